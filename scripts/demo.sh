#!/usr/bin/env bash
# The main job: installs what is missing and builds; plays random Sultan games through the
# engine server with a client written from the .proto alone; then starts the engine
# server, the arena and bot processes (C++ Dirk, the learned bot, C++ random, a Python
# random bot) on loopback, runs a short tournament over every registered game at four
# seats, prints the standings and stops everything.
#
# The arena's pages (leaderboard, matches, replays with each game's board) are served while
# the tournament runs; their address is printed.
#
#   scripts/demo.sh          short tournament (DEALS=12 deals per game: twice each of the
#                            six orders four bots can sit in)
#   scripts/demo.sh long     longer one (DEALS=102); DEALS=N sets any length
#   scripts/demo.sh serve    the short tournament, then keeps serving its pages on
#                            http://127.0.0.1:${HTTP_PORT:-8080}/ until Ctrl-C
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build_dir=${GAVEL_BUILD_DIR:-build}
/usr/bin/python3 tests/python/sultan_client.py --engine "$build_dir/service/gavel-engine" \
  --games "${GAMES:-3}" --players "${PLAYERS:-4}"

deals=${DEALS:-12}
[[ ${1:-} == long ]] && deals=${DEALS:-102}
serve=false
[[ ${1:-} == serve ]] && serve=true
work=$(mktemp -d)
pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap stop_all EXIT

# Starts a server with its stdout on a pipe and reads its readiness line, "listening on
# port N" (no polling); sets `port` (and `http_port` when it serves pages) and leaves the
# pipe open on file descriptor `$2`.
start_server() {
  local name=$1 fd_var=$2
  shift 2
  mkfifo "$work/$name.out"
  "$@" >"$work/$name.out" &
  pids+=($!)
  server_pid=$!
  exec {fd}<"$work/$name.out"
  printf -v "$fd_var" '%s' "$fd"
  local line
  while read -r line <&"$fd"; do
    [[ $line == "http on port "* ]] && http_port=${line##* }
    [[ $line == "listening on port "* ]] && { port=${line##* }; return; }
  done
  echo "$name did not start" >&2
  exit 1
}

start_server engine engine_fd "$build_dir/service/gavel-engine" --listen=127.0.0.1:0 \
  --log_level=warn
engine_port=$port
# The demo's own bots: a fixed seed and the same cards in every seat rotation (less luck in
# the standings); an arena open to others keeps both off (docs/arena.md, threat model).
start_server arena arena_fd "$build_dir/service/arena/gavel-arena" --listen=127.0.0.1:0 \
  --engine="127.0.0.1:$engine_port" --db="$work/arena.db" --tournament --exit_after_tournament \
  --wait_for_bots=4 --deals="$deals" --seed=1 --duplicate_deals --log_level=warn --http_listen=127.0.0.1:0
arena=127.0.0.1:$port
arena_pid=$server_pid
games=$("$build_dir/service/arena/gavel-arena" games)
echo "engine on port $engine_port, arena on port $port; games: $games; $deals deals per game"
echo "pages (leaderboard, matches, live replays): http://127.0.0.1:$http_port/"

"$build_dir/bots/gavel-bot" --policy=dirk --name=dirk --arena="$arena" \
  --log_level=warn 2>"$work/dirk.log" &
pids+=($!)
"$build_dir/bots/gavel-bot" --policy=learned --name=learned --weights=weights --arena="$arena" \
  --log_level=warn 2>"$work/learned.log" &
pids+=($!)
"$build_dir/bots/gavel-bot" --policy=random --name=random --arena="$arena" \
  --log_level=warn 2>"$work/random.log" &
pids+=($!)
/usr/bin/python3 bots/python/random_bot.py --arena="$arena" --name=py-random --games="$games" \
  2>"$work/py-random.log" &
pids+=($!)

# The arena prints the standings and exits when the tournament is over.
cat <&"$arena_fd"
wait "$arena_pid" || { echo "the tournament did not complete" >&2; exit 1; }
"$build_dir/service/arena/gavel-arena" verify --db="$work/arena.db"

if $serve; then
  start_server pages pages_fd "$build_dir/service/arena/gavel-arena" --listen=127.0.0.1:0 \
    --db="$work/arena.db" --http_listen="127.0.0.1:${HTTP_PORT:-8080}" --log_level=warn
  echo "serving the tournament's pages on http://127.0.0.1:$http_port/ (Ctrl-C stops)"
  wait "$server_pid" || true
fi
