#!/usr/bin/env bash
# A tournament through the engine service with random bots (C++ gavel-bot processes),
# measured from the engine's own metrics and /proc: engine calls per move, moves per second
# per engine core (moves divided by the engine's CPU seconds), matches and moves per second,
# the arena's CPU per move and its memory per connected bot.
#
#   tests/bench/arena_calls.sh [build_dir] [games] [deals] [bots] [concurrency] [engine flags...]
#   tests/bench/arena_calls.sh build sultan,carat 20 4
#   tests/bench/arena_calls.sh build "" 2 200 64     # how far one arena goes
#   tests/bench/arena_calls.sh build "" 6 4 4 --state_cache_entries=0   # every state decoded
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir=${1:-build}
games=${2:-}
deals=${3:-20}
bots=${4:-4}
concurrency=${5:-4}
engine_flags=("${@:6}")
work=$(mktemp -d)
pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap stop_all EXIT

# Starts a server with its stdout on a pipe, waits for the line starting with $3.
start_server() {
  local name=$1 fd_var=$2 prefix=$3
  shift 3
  mkfifo "$work/$name.out"
  "$@" >"$work/$name.out" &
  pids+=($!)
  server_pid=$!
  exec {fd}<"$work/$name.out"
  printf -v "$fd_var" '%s' "$fd"
  local line
  while read -r line <&"$fd"; do
    [[ $line == "$prefix"* ]] && break
  done
  port=${line##* }
}

metric_sum() {  # sums a metric's samples (optionally those whose labels contain $3)
  /usr/bin/python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' \
    "http://127.0.0.1:$1/metrics" | awk -v name="$2" -v label="${3:-}" \
    '$1 ~ "^"name"({|$)" && index($1, label) { sum += $2 } END { printf "%d\n", sum }'
}

cpu_seconds() {  # utime + stime of a process, in seconds
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($14 + $15) / hz }' "/proc/$1/stat"
}

memory_kb() {  # $2 of a process's /proc status: VmRSS now, VmHWM its peak
  awk -v field="$2:" '$1 == field { print $2 }' "/proc/$1/status"
}

start_server engine engine_fd "metrics on port" "$build_dir/service/gavel-engine" \
  --listen=127.0.0.1:0 --metrics_listen=127.0.0.1:0 --log_level=warn "${engine_flags[@]}"
engine_metrics=$port
engine_pid=$server_pid
read -r line <&"$engine_fd"
engine_port=${line##* }
game_flag=()
[[ -n $games ]] && game_flag=(--games="$games")
start_server arena arena_fd "listening on port" "$build_dir/service/arena/gavel-arena" \
  --listen=127.0.0.1:0 --engine="127.0.0.1:$engine_port" --db="$work/arena.db" --tournament \
  --exit_after_tournament --wait_for_bots="$bots" --deals="$deals" --progress=false \
  --max_bots="$bots" --concurrency="$concurrency" --players=4 \
  --metrics_listen=127.0.0.1:0 --log_level=warn "${game_flag[@]}"
arena=127.0.0.1:$port
arena_pid=$server_pid
arena_idle_kb=$(memory_kb "$arena_pid" VmRSS)
for i in $(seq 1 "$bots"); do
  "$build_dir/bots/gavel-bot" --policy=random --name="random$i" --arena="$arena" \
    --log_level=warn 2>/dev/null &
  pids+=($!)
done
start=$(date +%s.%N)
while read -r line <&"$arena_fd"; do
  echo "$line" >>"$work/standings"
  # the arena's last line ends its standings; read what it uses before it exits
  [[ $line == tournament* ]] && { arena_cpu=$(cpu_seconds "$arena_pid"); arena_peak_kb=$(memory_kb "$arena_pid" VmHWM); }
done
end=$(date +%s.%N)
calls=$(metric_sum "$engine_metrics" gavel_engine_calls_total)
applies=$(metric_sum "$engine_metrics" gavel_engine_calls_total 'rpc="Apply"')
cache_hits=$(metric_sum "$engine_metrics" gavel_engine_state_cache_lookups_total 'result="hit"')
cache_misses=$(metric_sum "$engine_metrics" gavel_engine_state_cache_lookups_total 'result="miss"')
cpu=$(cpu_seconds "$engine_pid")
grep -m1 "^tournament" "$work/standings" || true
matches=$(grep -m1 "^tournament" "$work/standings" | awk '{ print $3 }')
awk -v calls="$calls" -v moves="$applies" -v cpu="$cpu" -v start="$start" -v end="$end" \
    -v matches="$matches" -v bots="$bots" -v arena_cpu="$arena_cpu" -v idle="$arena_idle_kb" \
    -v peak="$arena_peak_kb" -v hits="$cache_hits" -v misses="$cache_misses" 'BEGIN {
  wall = end - start
  printf "%d bots, %d matches, %d moves in %.1f s: %.1f matches/s, %.0f moves/s\n",
         bots, matches, moves, wall, matches / wall, moves / wall
  printf "engine: %d calls, %.3f calls per move; CPU %.2f s, %.0f moves per engine core-second\n",
         calls, calls / moves, cpu, moves / cpu
  printf "engine state cache: %d hits, %d misses\n", hits, misses
  printf "arena: CPU %.2f s, %.1f us per move; memory %d KiB idle, %d KiB peak, %.0f KiB per bot\n",
         arena_cpu, 1e6 * arena_cpu / moves, idle, peak, (peak - idle) / bots }'
wait "$arena_pid"
