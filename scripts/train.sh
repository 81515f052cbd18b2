#!/usr/bin/env bash
# Reproduces the learned bot's weights for one game (or all five, one after another):
# self-play training with Dirk's advice, seeded, single-threaded. Writes
# weights/<game>-4p.gmlp (the best network, with its tuned advice margin),
# weights/<game>-4p.curve.csv (the evaluation curve) and shows a progress bar.
#
#   scripts/train.sh sultan        one game
#   scripts/train.sh               every game
#
# Episode counts are sized for about 15-30 minutes per game on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
build_dir=${GAVEL_BUILD_DIR:-build}
declare -A episodes=([sultan]=300000 [moonlight_market]=100000 [carat]=200000 [mercado]=200000
                     [morgenland]=80000)
games=("${@:-sultan moonlight_market carat mercado morgenland}")
for game in ${games[*]}; do
  [[ -n ${episodes[$game]:-} ]] || { echo "unknown game $game" >&2; exit 2; }
  "$build_dir/learn/gavel-train" --game="$game" --players=4 --seed=1 \
    --episodes="${episodes[$game]}" --eval_every=$((episodes[$game] / 10)) --eval_games=400 \
    --hidden=128,64 --tune_games=1000 \
    --out="weights/$game-4p.gmlp" --curve="weights/$game-4p.curve.csv"
done
