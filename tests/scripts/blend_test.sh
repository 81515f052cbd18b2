#!/usr/bin/env bash
# gavel-train --method=blend on the repository's weights: a network blended with itself keeps
# its weights (only the metadata gains its share), the curve gets one row per opponent, and
# networks of two tables or a share outside 0..1 are refused with a clear error and no file.
set -euo pipefail
train=${1:?gavel-train binary}
weights=$(cd "$(dirname "$0")/../../weights" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# The first game of this build (a build may hold a subset of the games); each has weights for
# three and four players.
mapfile -t games < <("$train" --list_games)
game=${games[0]:?no games in this build}
blend() { "$train" --game="$game" --method=blend --eval_games=4 --eval_vs=dirk "$@"; }

network=$weights/$game-3p.gmlp
blend --start="$network" --blend_with="$network" --blend_share=0.5 --out="$work/self.gmlp" \
  --curve="$work/self.csv" 2>/dev/null || fail "blending a network with itself failed"
# The header and weights (learn/mlp.h: 16 bytes, the layer sizes, then each layer's floats)
# come before the metadata: those bytes agree.
read -r -a sizes < <(od -An -tu4 -j 16 -N $((4 * ($(od -An -tu4 -j 12 -N4 "$network") + 1))) "$network")
bytes=$((16 + 4 * ${#sizes[@]}))
for ((i = 0; i + 1 < ${#sizes[@]}; i++)); do bytes=$((bytes + 4 * (sizes[i] + 1) * sizes[i + 1])); done
cmp -s -n "$bytes" "$network" "$work/self.gmlp" || fail "the weights changed"
cmp -s "$network" "$work/self.gmlp" && fail "the metadata did not change"
grep -aq '^blend_share=0.5$' "$work/self.gmlp" || fail "no blend_share in the metadata"
grep -q '^blend=0.5,dirk,4,' "$work/self.csv" || fail "no evaluation row: $(cat "$work/self.csv")"

if blend --start="$network" --blend_with="$weights/$game-4p.gmlp" --out="$work/mixed.gmlp" 2>"$work/err"; then
  fail "networks of two tables blended"
fi
grep -q "not networks of one table" "$work/err" || fail "unclear error: $(cat "$work/err")"
if blend --start="$network" --blend_with="$network" --blend_share=1.5 --out="$work/far.gmlp" 2>"$work/err"; then
  fail "a share of 1.5 was accepted"
fi
grep -q "between 0 and 1" "$work/err" || fail "unclear error: $(cat "$work/err")"
[[ ! -e $work/mixed.gmlp && ! -e $work/far.gmlp ]] || fail "a refused blend wrote weights"
echo "blend: ok"
