#!/usr/bin/env bash
# The main job: installs what is missing, builds, starts the engine server on loopback
# and plays random Sultan games through it with a client written from the .proto alone.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build_dir=${GAVEL_BUILD_DIR:-build}
/usr/bin/python3 tests/python/sultan_client.py --engine "$build_dir/service/gavel-engine" \
  --games "${GAMES:-3}" --players "${PLAYERS:-4}"
