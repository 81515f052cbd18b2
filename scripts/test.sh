#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole test suite; builds and
# tests a subset of the games (carat and mercado); then builds the engine and its tests
# again with clang, AddressSanitizer and UBSan, and runs them with the libFuzzer targets
# (tests/fuzz: every game's states and views, sealed tokens, the decoded-state cache).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
scripts/build.sh
build_dir=${GAVEL_BUILD_DIR:-build}
(cd "$build_dir" && ctest --output-on-failure -j"$(nproc)" --timeout 900)

# A subset of the games builds and passes its tests, so that GAVEL_GAMES stays the one place
# that lists every game. ccache serves the objects the full build already compiled.
subset_dir=${GAVEL_SUBSET_DIR:-build-subset}
GAVEL_BUILD_DIR=$subset_dir scripts/build.sh -DGAVEL_GAMES=carat,mercado -DGAVEL_BENCHMARKS=OFF
(cd "$subset_dir" && ctest --output-on-failure -j"$(nproc)" --timeout 900)

sanitize_dir=${GAVEL_SANITIZE_DIR:-build-sanitize}
CC=clang CXX=clang++ cmake -S . -B "$sanitize_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGAVEL_SANITIZE=ON -DGAVEL_FUZZ=ON -DGAVEL_BENCHMARKS=OFF \
  -DGAVEL_FUZZ_SECONDS="${GAVEL_FUZZ_SECONDS:-60}" >/dev/null
cmake --build "$sanitize_dir" --target engine_tests -j"$(nproc)"
cd "$sanitize_dir"
ctest --output-on-failure -L engine -j"$(nproc)" --timeout 900
