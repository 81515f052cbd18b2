#!/usr/bin/env bash
# Installs the Debian 12 packages gavel needs to build and run (the main job), and with
# --test also what only the test command needs: clang for the sanitizer and fuzzing pass,
# ccache so the subset build reuses the full build's objects, openssl to make the TLS tests'
# certificates, a PostgreSQL server for the PostgreSQL store's tests (each test starts its
# own in a temporary directory), Node.js and the pinned npm packages of the offline
# Kubernetes manifest validation, and headless Chromium that loads the arena's pages in the
# tests. libpqxx is PostgreSQL's C++ client, for the arena's PostgreSQL store; cpp-httplib serves
# the arena's pages over TLS (OpenSSL 3, which prometheus-cpp's civetweb cannot use; sealed
# states take their bulk cipher from it too); pybind11, python3-dev and numpy build the
# Python module `gavel`; gperftools' tcmalloc is the servers' allocator (docs/performance.md).
# Idempotent and non-interactive: does nothing when everything is already installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev
  libabsl-dev libspdlog-dev prometheus-cpp-dev libsqlite3-dev libpqxx-dev libcpp-httplib-dev libeigen3-dev libsodium-dev libssl-dev libgoogle-perftools-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-grpcio python3-protobuf python3-dev python3-numpy pybind11-dev
)
test_only=false
[[ ${1:-} == --test ]] && test_only=true
if $test_only; then
  packages+=(clang libclang-rt-14-dev ccache openssl postgresql chromium)
  # A machine that already has node and npm (from any source) keeps them.
  command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  echo "installing: ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

$test_only || exit 0

# The manifest validator's npm packages, pinned by k8s/validate/package-lock.json.
cd "$(dirname "$0")/../k8s/validate"
if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules ]]; then
  # The registry sometimes stalls a download; a stalled attempt is retried, not fatal.
  for attempt in 1 2 3 4 5; do
    npm ci --no-audit --no-fund --loglevel=error --fetch-retries=5 \
      --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=60000 --fetch-timeout=120000 \
      >/dev/null && break
    ((attempt < 5)) || { rm -rf node_modules; echo "npm ci failed $attempt times" >&2; exit 1; }
    echo "npm ci attempt $attempt failed; retrying in $((attempt * 10)) s" >&2
    sleep $((attempt * 10))
  done
fi
