#!/usr/bin/env bash
# Configures and builds gavel into build/ (or $GAVEL_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${GAVEL_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-RelWithDebInfo} >/dev/null
cmake --build "$build_dir" -j"${GAVEL_JOBS:-$(nproc)}"
