#!/usr/bin/env bash
# Collects what the runtime image needs from a build tree: the server and bot binaries
# (into OUT/bin), the learned bot's weights and the search bot's value networks
# (OUT/share/gavel/weights) and the Debian
# packages that provide the binaries' shared libraries (OUT/packages.txt).
# Used by the Dockerfile's build stage; tested on the host by CTest.
#   scripts/runtime-files.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=${1:?build dir}
out=${2:?output dir}
mkdir -p "$out/bin"
binaries=()
for name in gavel-engine gavel-arena gavel-bot; do
  path=$(find "$build" -type f -name "$name" -perm -u+x | head -n 1)
  [[ -n "$path" ]] && binaries+=("$path") && cp "$path" "$out/bin/"
done
cp "$(dirname "$0")/gavel-entrypoint.sh" "$out/bin/gavel"
mkdir -p "$out/share/gavel/weights"
cp "$(dirname "$0")"/../weights/*.gmlp "$(dirname "$0")"/../weights/*.value "$out/share/gavel/weights/"
((${#binaries[@]} > 0)) || { echo "no binaries under $build" >&2; exit 1; }
# Every shared library the binaries load, mapped to the package that ships it.
ldd "${binaries[@]}" | awk '/=> \// {print $3}' | sort -u | while read -r library; do
  dpkg -S "$library" 2>/dev/null || dpkg -S "$(realpath "$library")" 2>/dev/null ||
    { echo "no package ships $library" >&2; exit 1; }
done | cut -d: -f1 | sort -u > "$out/packages.txt"
echo "$(wc -l < "$out/packages.txt") runtime packages for ${#binaries[@]} binaries"
