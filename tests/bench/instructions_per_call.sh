#!/usr/bin/env bash
# Instructions a call of handler_bench benchmarks, counted by valgrind (`apt-get install
# valgrind`; no build or test needs it): a measure of a handler's work that a shared
# machine's changing speed does not move, for comparing two builds whose times differ by less
# than the machine's spread.
# Each benchmark runs once for one call and once for `calls` calls (the same moves of the same
# seeded game in every build); the difference over the difference in calls leaves out the
# set-up both runs share.
#
#   tests/bench/instructions_per_call.sh [handler_bench binary] [benchmark regex] [calls]
#   tests/bench/instructions_per_call.sh build/tests/bench/handler_bench 'HandleCombinedApply/(carat|moonlight_market)$'
set -euo pipefail
binary=${1:-build/tests/bench/handler_bench}
filter=${2:-HandleCombinedApply}
calls=${3:-2000}

# The instructions valgrind counts in a run of the benchmark `name` making `calls` calls.
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
      "$binary" --benchmark_filter="^$1(/iterations:[0-9]+)?\$" --calls="$2" 2>&1 |
    awk '/I *refs/ { gsub(",", "", $4); print $4 }'
}

for name in $("$binary" --benchmark_list_tests --benchmark_filter="$filter"); do
  one=$(count "$name" 1)
  many=$(count "$name" "$calls")
  echo "$name $(( (many - one) / (calls - 1) )) instructions a call"
done
