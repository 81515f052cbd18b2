#!/usr/bin/env bash
# Reproduces the learned bot's weights for one game (or every game of the build, one after
# another), every table size that has settings, from seed 1, with a progress bar. Writes
# weights/<game>-<n>p.gmlp and weights/<game>-<n>p.curve.csv (every evaluation against Dirk,
# and for the networks the margin tuning).
#
#   scripts/train.sh carat         one game
#   scripts/train.sh               every game
#
# Carat and Mercado: a policy search (learn/policy_search.h) from a linear network that
# plays Dirk's advice, for two, three and four players: Carat's 60 iterations took about 23
# minutes on one core here at four players and 7 at two or three, Mercado's 120 about 26
# minutes with GAVEL_TRAIN_THREADS=2 (the default) at four and 10 to 15 on one core at two or
# three. Same seed, same bytes, on any thread count. Carat's four-player network has a second
# stage, the same search from the first one's weights against a mixed field (Dirk, ISMCTS at 100
# and 1,000 iterations, random), about 21 minutes on two cores; checked byte for byte.
#
# Morgenland at five players: the same policy search from Dirk's advice, against a population
# of Dirk and players that barely play (random, ISMCTS at one and two iterations), about 27
# minutes on one core; checked byte for byte.
#
# Sultan and Moonlight Market at every size, Morgenland at three and four players: trained by
# paired rollouts or self-play (learn/trainer.h), half a minute to 23 minutes each on one core
# (paired rollouts run on GAVEL_TRAIN_THREADS threads too). Moonlight Market's first stages use
# the same settings at every size, rollouts played out at random. Sultan's two-player network
# has a second stage, trained on the first one's play from its weights (about 35 minutes of one
# core), a third that imitates ISMCTS at 4,000 iterations along the second one's games (45
# minutes on two cores, checked byte for byte; 13 minutes since ISMCTS became twice as fast,
# where another machine wrote other bytes, docs/learning.md), and a fourth that blends the two,
# three quarters of the second stage's weights and a quarter of the third's (gavel-train
# --method=blend; its evaluations took 5 minutes beside another job, same bytes). Sultan's
# four-player network tunes its advice margin at tables of the issue's field
# (--tune_population, 4 to 5 minutes on two cores after its 13 minutes of training; on the
# machine of 2026-12-02 the training wrote other bytes than the repository's,
# docs/learning.md). Moonlight Market's two- to five-player networks have the same steps: a
# second stage that imitates ISMCTS at 1,000 iterations along the first one's games, and a
# blend of the first stage's weights
# (three quarters at two and five players, nine tenths at three and four) and the second's (a
# table's three stages 10, 23 and 24 minutes on two cores beside other jobs at two to four
# players, 30 alone at five; the game end to end, every table size, 63 min 10 s on two cores,
# nothing else running, 2026-12-02, every network and curve byte for byte).
# End to end on two cores, every table size, nothing else running (2026-11-27, before Sultan's
# third stage, which brought Sultan to about 84 minutes; 110 minutes end to end on the slower
# machine of 2026-11-30, 70 there since Dirk's play-outs allocate little and 57 since a game's
# sampled decisions are compared together, docs/learning.md): Sultan 38 min 48 s, Moonlight
# Market 12 min 26 s, Carat 26 min 36 s, Mercado 21 min 24 s, Morgenland 38 min 2 s, each run
# writing its game's weights and curves as in weights/, byte for byte.
#
# Then the search bot's value networks where a table has settings for one
# (weights/<game>-<n>p.value.train; Morgenland at three to five players): 30-45 s each on two
# cores, the same bytes on any thread count.
#
# A game's tables train GAVEL_TRAIN_JOBS at a time (2 by default), each stage with
# GAVEL_TRAIN_THREADS threads (2) for its evaluations, searches and rollouts: self-play keeps
# only one core busy, so two tables side by side use the machine. With more than one at a time,
# each table's output goes to build/train-stages/<game>-<n>p.train.log and a line says when it
# is done. The weights depend on neither count. Times above are of one table at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ ${GAVEL_SKIP_BUILD:-} == 1 ]] || scripts/build.sh >/dev/null
build_dir=${GAVEL_BUILD_DIR:-build}
weights_dir=${GAVEL_WEIGHTS_DIR:-weights}  # another folder of .train files (the script's test)
threads=${GAVEL_TRAIN_THREADS:-2}  # evaluations, searches and rollouts at once; same weights on any count
# Each network's training flags are beside its weights, weights/<game>-<n>p.train for a table
# of n players, one line per stage: a later stage starts from the weights the one before it
# wrote, which its flags name {previous} (e.g. --start={previous}), and may name any earlier
# stage's weights {stage<k>} (a league: an exploiter searched against {stage1}, then the main
# network from {stage1} against a population holding the exploiter). The last stage writes
# weights/<game>-<n>p.gmlp and .curve.csv; an earlier stage k writes
# weights/<game>-<n>p.stage<k>.curve.csv and its weights in $build_dir/train-stages (a fixed
# path, since the curves name it). The games are those of this build (gavel-train --list_games).
jobs=${GAVEL_TRAIN_JOBS:-2}  # tables trained at once (self-play keeps one core busy); same weights on any count
games=("$@")
((${#games[@]})) || mapfile -t games < <("$build_dir/learn/gavel-train" --list_games)
stages_dir=$build_dir/train-stages
mkdir -p "$stages_dir"

# One table's settings file: sets name, players and every stage's flags (lines), weights (outs)
# and curve (curves); a stage naming one that is not before it stops the script.
plan_table() {
  local settings=$1 stage k line
  name=$(basename "$settings" .train)  # <game>-<n>p
  players=${name##*-}
  players=${players%p}
  mapfile -t stages < <(grep -v '^[[:space:]]*$' "$settings")
  outs=() curves=() lines=()
  for ((stage = 1; stage <= ${#stages[@]}; stage++)); do
    if ((stage == ${#stages[@]})); then
      outs+=("$weights_dir/$name.gmlp") curves+=("$weights_dir/$name.curve.csv")
    else
      outs+=("$stages_dir/$name.stage$stage.gmlp") curves+=("$weights_dir/$name.stage$stage.curve.csv")
    fi
    line=${stages[stage - 1]}
    ((stage == 1)) || line=${line//\{previous\}/${outs[stage - 2]}}
    for ((k = 1; k < stage; k++)); do line=${line//\{stage$k\}/${outs[k - 1]}}; done
    [[ $line != *"{stage"* && $line != *"{previous}"* ]] || { echo "$settings: stage $stage names a stage that is not before it" >&2; exit 2; }
    lines+=("$line")
  done
}

train_table() {
  local stage flags
  plan_table "$1"
  for ((stage = 1; stage <= ${#stages[@]}; stage++)); do
    read -r -a flags <<<"${lines[stage - 1]}"
    ((${#stages[@]} == 1)) || echo "$name: stage $stage of ${#stages[@]}" >&2
    "$build_dir/learn/gavel-train" --game="$game" --players="$players" --seed=1 "${flags[@]}" \
      --eval_threads="$threads" --rollout_threads="$threads" --out="${outs[stage - 1]}" --curve="${curves[stage - 1]}"
  done
}

# The search bot's value networks (learn/value_network.h): weights/<game>-<n>p.value.train
# holds one line of flags for gavel-train --method=value, which writes <game>-<n>p.value.
train_value() {
  local settings=$1 flags
  name=$(basename "$settings" .value.train)  # <game>-<n>p
  players=${name##*-}
  players=${players%p}
  read -r -a flags < <(grep -v '^[[:space:]]*$' "$settings" | head -n 1)
  echo "$name: value network" >&2
  "$build_dir/learn/gavel-train" --game="$game" --players="$players" --seed=1 --method=value \
    --value_weights="$weights_dir" "${flags[@]}" --eval_threads="$threads" --out="$weights_dir/$name.value"
}

# Runs `$1 <settings file>` for every further argument, $jobs at a time. With more than one,
# each one's output goes to $stages_dir/<settings file's name>.log; a failure stops the others
# and the script, showing the end of its log.
declare -A job_logs=()
stop_jobs() {
  local pid
  for pid in "${!job_logs[@]}"; do pkill -TERM -P "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done
}
trap 'stop_jobs; exit 130' INT TERM
wait_for_a_job() {
  local pid status=0
  wait -n -p pid || status=$?
  local log=${job_logs[$pid]}
  unset "job_logs[$pid]"
  if ((status)); then
    echo "$(basename "$log" .log): failed (status $status); the end of $log:" >&2
    tail -n 20 "$log" >&2
    stop_jobs
    exit "$status"
  fi
  echo "$(basename "$log" .log): done; $(grep -v '^[[:space:]]*$' "$log" | tail -n 1)" >&2
}
run_each() {
  local command=$1 settings log
  shift
  if ((jobs <= 1)); then
    for settings; do "$command" "$settings"; done
    return
  fi
  for settings; do
    ((${#job_logs[@]} < jobs)) || wait_for_a_job
    log=$stages_dir/$(basename "$settings").log
    echo "$(basename "$settings"): started, output in $log" >&2
    "$command" "$settings" >"$log" 2>&1 &
    job_logs[$!]=$log
  done
  while ((${#job_logs[@]})); do wait_for_a_job; done
}

for game in "${games[@]}"; do
  shopt -s nullglob
  settings_files=("$weights_dir/$game"-*p.train)
  ((${#settings_files[@]})) || { echo "$game: no training settings ($weights_dir/$game-<n>p.train)" >&2; exit 2; }
  # Every table's stages first, so that a stage naming one not before it stops the run before
  # anything trains.
  for settings in "${settings_files[@]}"; do plan_table "$settings"; done
  run_each train_table "${settings_files[@]}"
  # After all of the game's networks, whose play they may learn from (--value_population=learned
  # loads every network in the folder).
  run_each train_value "$weights_dir/$game"-*p.value.train
done
