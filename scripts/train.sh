#!/usr/bin/env bash
# Reproduces the learned bot's weights for one game (or all five, one after another),
# seeded and single-threaded, with a progress bar. Writes weights/<game>-4p.gmlp (the
# network that evaluated best against Dirk, with its tuned advice margin) and
# weights/<game>-4p.curve.csv (every evaluation, then the margin tuning).
#
#   scripts/train.sh sultan        one game
#   scripts/train.sh               every game
#
# Each game's settings below took 10-30 minutes on one core of this machine; the methods
# are described in learn/trainer.h and the README.
#
# The committed weights were made by this script, with these settings, at commit 97e26d8.
# The trainer has changed since (input layout, rollout candidates and targets), so running
# it now trains new networks, not byte-identical copies. To reproduce the committed files:
#   git worktree add /tmp/gavel-97e26d8 97e26d8 && /tmp/gavel-97e26d8/scripts/train.sh <game>
set -euo pipefail
cd "$(dirname "$0")/.."
[[ ${GAVEL_SKIP_BUILD:-} == 1 ]] || scripts/build.sh >/dev/null
build_dir=${GAVEL_BUILD_DIR:-build}
declare -A settings=(
  [sultan]="--method=rollouts --episodes=10000 --sample_rate=0.2"
  [moonlight_market]="--method=rollouts --episodes=1500 --sample_rate=0.05"
  [carat]="--method=rollouts --episodes=1500 --sample_rate=0.5"
  [mercado]="--method=rollouts --episodes=300 --sample_rate=0.2"
  [morgenland]="--method=selfplay --episodes=80000 --train_steps=2 --guide_start=0.8 --guide_end=0.3"
)
games=("${@:-sultan moonlight_market carat mercado morgenland}")
for game in ${games[*]}; do
  [[ -n ${settings[$game]:-} ]] || { echo "unknown game $game" >&2; exit 2; }
  read -r -a flags <<<"${settings[$game]}"
  episodes=${flags[1]#--episodes=}
  "$build_dir/learn/gavel-train" --game="$game" --players=4 --seed=1 "${flags[@]}" \
    --eval_every=$((episodes / 10)) --eval_games=400 --hidden=128,64 --tune_games=1000 \
    --out="weights/$game-4p.gmlp" --curve="weights/$game-4p.curve.csv"
done
