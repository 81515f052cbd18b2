#!/usr/bin/env bash
# A tournament through the engine service with random bots, measured from the engine's own
# metrics: engine calls per move, and moves per second per engine core (moves divided by the
# engine process's CPU seconds, from /proc).
#
#   tests/bench/arena_calls.sh [build_dir] [games] [deals] [bots]
#   tests/bench/arena_calls.sh build sultan,carat 20 4
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir=${1:-build}
games=${2:-}
deals=${3:-20}
bots=${4:-4}
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

start_server engine engine_fd "metrics on port" "$build_dir/service/gavel-engine" \
  --listen=127.0.0.1:0 --metrics_listen=127.0.0.1:0 --log_level=warn
engine_metrics=$port
engine_pid=$server_pid
read -r line <&"$engine_fd"
engine_port=${line##* }
game_flag=()
[[ -n $games ]] && game_flag=(--games="$games")
start_server arena arena_fd "listening on port" "$build_dir/service/arena/gavel-arena" \
  --listen=127.0.0.1:0 --engine="127.0.0.1:$engine_port" --db="$work/arena.db" --tournament \
  --exit_after_tournament --wait_for_bots="$bots" --deals="$deals" --progress=false \
  --metrics_listen=127.0.0.1:0 --log_level=warn "${game_flag[@]}"
arena=127.0.0.1:$port
arena_pid=$server_pid
for i in $(seq 1 "$bots"); do
  "$build_dir/bots/gavel-bot" --policy=random --name="random$i" --arena="$arena" \
    --log_level=warn 2>/dev/null &
  pids+=($!)
done
start=$(date +%s.%N)
cat <&"$arena_fd" >"$work/standings"
end=$(date +%s.%N)
calls=$(metric_sum "$engine_metrics" gavel_engine_calls_total)
applies=$(metric_sum "$engine_metrics" gavel_engine_calls_total 'rpc="Apply"')
cpu=$(cpu_seconds "$engine_pid")
grep -m1 "^tournament" "$work/standings" || true
awk -v calls="$calls" -v moves="$applies" -v cpu="$cpu" -v start="$start" -v end="$end" 'BEGIN {
  printf "moves %d, engine calls %d: %.3f calls per move\n", moves, calls, calls / moves
  printf "engine CPU %.2f s: %.0f moves per engine core-second; %.0f moves/s wall\n",
         cpu, moves / cpu, moves / (end - start) }'
wait "$arena_pid"
