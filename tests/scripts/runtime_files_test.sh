#!/usr/bin/env bash
# What can be tested of the container image without a Docker engine: the build stage's
# runtime-file collection on this build tree, and the entrypoint's role dispatch.
set -euo pipefail
build=${1:?build dir}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bash "$(dirname "$0")/../../scripts/runtime-files.sh" "$build" "$out"
fail=0
for package in libgrpc++1.51 libprotobuf32 libc6; do
  grep -qx "$package" "$out/packages.txt" || { echo "FAIL: $package missing from packages.txt"; fail=1; }
done
# The learned bot's weights, one file per game, load in the collected bot.
weights=$(ls "$out/share/gavel/weights"/*.gmlp 2>/dev/null | wc -l)
((weights >= 5)) || { echo "FAIL: $weights weights files collected, expected 5"; fail=1; }
# And every value network of the repository beside them.
values=$(ls "$out/share/gavel/weights"/*.value 2>/dev/null | wc -l)
expected=$(ls "$(dirname "$0")"/../../weights/*.value | wc -l)
((values == expected && values > 0)) || { echo "FAIL: $values value networks collected, expected $expected"; fail=1; }
# Every listed package is a real installed Debian package.
while read -r package; do
  dpkg-query -W "$package" >/dev/null 2>&1 || { echo "FAIL: $package is not a package"; fail=1; }
done < "$out/packages.txt"
# The entrypoint runs the engine by role and refuses an unknown role.
PATH="$out/bin:$PATH" gavel engine --help >/dev/null 2>&1 || true
if PATH="$out/bin:$PATH" gavel no-such-role 2>/dev/null; then echo "FAIL: unknown role accepted"; fail=1; fi
# Start by role and wait for the readiness line (a blocking read, no polling).
coproc engine { PATH="$out/bin:$PATH" exec gavel engine --listen=127.0.0.1:0 2>/dev/null; }
read -r -t 60 line <&"${engine[0]}" || line=""
[[ "$line" == "listening on port "* ]] || { echo "FAIL: gavel engine did not start"; fail=1; }
kill -TERM "$engine_PID"
wait "$engine_PID" || { echo "FAIL: gavel engine did not exit 0 on SIGTERM"; fail=1; }
if ((fail)); then echo "0 passed, 1 failed"; exit 1; fi
echo "1 passed, 0 failed"
