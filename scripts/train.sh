#!/usr/bin/env bash
# Reproduces the learned bot's weights for one game (or all five, one after another), from
# seed 1, with a progress bar. Writes weights/<game>-4p.gmlp and weights/<game>-4p.curve.csv
# (every evaluation against Dirk, and for the networks the margin tuning).
#
#   scripts/train.sh carat         one game
#   scripts/train.sh               every game
#
# Carat and Mercado: a policy search (learn/policy_search.h) from a linear network that
# plays Dirk's advice: Carat's 60 iterations took about 23 minutes on one core here,
# Mercado's 120 about 26 minutes with GAVEL_TRAIN_THREADS=2 (the default). Same seed, same
# bytes, on any thread count.
#
# Sultan, Moonlight Market and Morgenland: networks trained by paired rollouts or self-play
# (learn/trainer.h), 10-30 minutes each on one core. Their committed weights were made with
# these settings at commit 97e26d8; the trainer has changed since (input layout, rollout
# candidates and targets), so running it now trains new networks, not byte-identical
# copies. To reproduce the committed files:
#   git worktree add /tmp/gavel-97e26d8 97e26d8 && /tmp/gavel-97e26d8/scripts/train.sh <game>
set -euo pipefail
cd "$(dirname "$0")/.."
[[ ${GAVEL_SKIP_BUILD:-} == 1 ]] || scripts/build.sh >/dev/null
build_dir=${GAVEL_BUILD_DIR:-build}
threads=${GAVEL_TRAIN_THREADS:-2}  # games of evaluations and searches; same weights on any count
network="--hidden=128,64 --eval_games=400 --tune_games=1000"
search="--method=search --start=dirk --pairs=8 --margin_sigma=0 --eval_every=5 --eval_games=2000"
declare -A settings=(
  [sultan]="--method=rollouts --episodes=10000 --sample_rate=0.2 --eval_every=1000 $network"
  [moonlight_market]="--method=rollouts --episodes=1500 --sample_rate=0.05 --eval_every=150 $network"
  [carat]="$search --search_move_features=15 --iterations=60 --search_games=600 --sigma=0.1"
  [mercado]="$search --search_move_features=44 --iterations=120 --search_games=300 --sigma=0.04"
  [morgenland]="--method=selfplay --episodes=80000 --train_steps=2 --guide_start=0.8 --guide_end=0.3 --eval_every=8000 $network"
)
games=("${@:-sultan moonlight_market carat mercado morgenland}")
for game in ${games[*]}; do
  [[ -n ${settings[$game]:-} ]] || { echo "unknown game $game" >&2; exit 2; }
  read -r -a flags <<<"${settings[$game]}"
  "$build_dir/learn/gavel-train" --game="$game" --players=4 --seed=1 "${flags[@]}" \
    --eval_threads="$threads" --out="weights/$game-4p.gmlp" --curve="weights/$game-4p.curve.csv"
done
