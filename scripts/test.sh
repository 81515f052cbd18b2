#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd "${GAVEL_BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)" --timeout 900
