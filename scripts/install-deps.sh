#!/usr/bin/env bash
# Installs the Debian 12 packages gavel needs to build, test and run. Idempotent and
# non-interactive: does nothing when every package is already installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev
  libabsl-dev libspdlog-dev prometheus-cpp-dev libsqlite3-dev libeigen3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  python3 python3-grpcio python3-protobuf
)

# Node.js runs the offline Kubernetes manifest validation (k8s/validate). A machine that
# already has node and npm (from any source) keeps them.
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)

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

# The manifest validator's npm packages, pinned by k8s/validate/package-lock.json.
cd "$(dirname "$0")/../k8s/validate"
if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules ]]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
