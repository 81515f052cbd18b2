#!/usr/bin/env bash
# scripts/train.sh with a stand-in gavel-train that records its flags: every stage gets the
# weights named {previous} and {stage<k>}, the last stage writes the table's files, and a
# stage naming one that is not before it (or a first stage naming {previous}) stops the run
# before any stage trains. Every stage gets the script's threads for evaluations and rollouts.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/build/learn" "$work/weights"
cat >"$work/build/learn/gavel-train" <<'STUB'
#!/usr/bin/env bash
echo "$*" >>"$(dirname "$0")/../calls"
for flag; do [[ $flag != --out=* ]] || : >"${flag#--out=}"; done
STUB
chmod +x "$work/build/learn/gavel-train"
run() { GAVEL_SKIP_BUILD=1 GAVEL_TRAIN_THREADS=3 GAVEL_BUILD_DIR="$work/build" GAVEL_WEIGHTS_DIR="$work/weights" bash "$repo/scripts/train.sh" toy; }
fail() { echo "FAIL: $*" >&2; exit 1; }

printf '%s\n' '--method=selfplay' '' '--start={stage1} --search_opponents=learned:{stage1}' \
  '--start={stage1} --search_opponents=dirk,learned:{stage2},learned:{previous}' >"$work/weights/toy-2p.train"
run 2>/dev/null
mapfile -t calls <"$work/build/calls"
((${#calls[@]} == 3)) || fail "expected 3 stages, got ${#calls[@]}"
stage1=$work/build/train-stages/toy-2p.stage1.gmlp
stage2=$work/build/train-stages/toy-2p.stage2.gmlp
[[ ${calls[0]} == "--game=toy --players=2 --seed=1 --method=selfplay "* ]] || fail "stage 1: ${calls[0]}"
[[ ${calls[0]} == *" --eval_threads=3 --rollout_threads=3 "* ]] || fail "threads: ${calls[0]}"
[[ ${calls[1]} == *" --start=$stage1 --search_opponents=learned:$stage1 "* ]] || fail "stage 2: ${calls[1]}"
[[ ${calls[2]} == *" --start=$stage1 --search_opponents=dirk,learned:$stage2,learned:$stage2 "* ]] || fail "stage 3: ${calls[2]}"
[[ ${calls[2]} == *" --out=$work/weights/toy-2p.gmlp --curve=$work/weights/toy-2p.curve.csv" ]] || fail "last stage's files: ${calls[2]}"
[[ -e $work/weights/toy-2p.gmlp ]] || fail "the last stage wrote no weights"

rm "$work/build/calls"
printf '%s\n' '--method=selfplay' '--start={stage2}' >"$work/weights/toy-2p.train"
if run 2>"$work/err"; then fail "a stage naming itself trained"; fi
grep -q "stage 2 names a stage that is not before it" "$work/err" || fail "no clear error: $(cat "$work/err")"
[[ ! -e $work/build/calls ]] || fail "stages trained before the settings were refused"
printf '%s\n' '--start={previous}' >"$work/weights/toy-2p.train"
if run 2>"$work/err"; then fail "a first stage naming {previous} trained"; fi
grep -q "stage 1 names a stage that is not before it" "$work/err" || fail "no clear error: $(cat "$work/err")"
[[ ! -e $work/build/calls ]] || fail "a stage trained before the settings were refused"

# A value network's settings train after the table's network, into <game>-<n>p.value.
rm -f "$work/build/calls"
printf '%s\n' '--method=selfplay' >"$work/weights/toy-2p.train"
printf '%s\n' '--episodes=7 --hidden=9' >"$work/weights/toy-2p.value.train"
run 2>/dev/null
mapfile -t calls <"$work/build/calls"
((${#calls[@]} == 2)) || fail "expected the network and the value network, got ${#calls[@]} calls"
[[ ${calls[0]} == *" --out=$work/weights/toy-2p.gmlp "* ]] || fail "the network first: ${calls[0]}"
[[ ${calls[1]} == "--game=toy --players=2 --seed=1 --method=value --value_weights=$work/weights --episodes=7 --hidden=9 --eval_threads=3 --out=$work/weights/toy-2p.value" ]] ||
  fail "value network: ${calls[1]}"
echo "train.sh stages: ok"
