#!/usr/bin/env bash
# Configures and builds gavel into build/ (or $GAVEL_BUILD_DIR). Extra arguments go to
# CMake's configure step (e.g. -DGAVEL_GAMES=sultan). With ccache installed (the test
# command installs it), compilations are cached under paths relative to the checkout, so a
# second build directory of the same sources reuses the first one's objects.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${GAVEL_BUILD_DIR:-build}
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-RelWithDebInfo} \
  "${launcher[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j"${GAVEL_JOBS:-$(nproc)}"
