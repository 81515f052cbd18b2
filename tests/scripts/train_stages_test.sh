#!/usr/bin/env bash
# scripts/train.sh with a stand-in gavel-train that records its flags: every stage gets the
# weights named {previous} and {stage<k>}, the last stage writes the table's files, and a
# stage naming one that is not before it (or a first stage naming {previous}) stops the run
# before any stage trains. Every stage gets the script's threads for evaluations and rollouts.
# Two tables train at the same time, and a table that fails fails the script with its log shown
# and stops the other.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/build/learn" "$work/weights"
cat >"$work/build/learn/gavel-train" <<'STUB'
#!/usr/bin/env bash
echo "$*" >>"$(dirname "$0")/../calls"
for flag; do
  case $flag in
    --out=*) : >"${flag#--out=}" ;;
    # A rendezvous through a FIFO: each side's open blocks until the other side's, so both
    # finish only if the two tables train at the same time.
    --wait_for=*) timeout 20 cat "${flag#--wait_for=}" >/dev/null ;;
    --signal=*) timeout 20 bash -c 'echo go >"$1"' _ "${flag#--signal=}" ;;
    --fail) echo "stand-in trainer failing on purpose" >&2; exit 3 ;;
    # A long training: holds a lock (released when the process ends) until 30 s have passed.
    --hold=*) exec 9>"${flag#--hold=}" && flock 9 ;;
    --hang=*) exec 3<>"${flag#--hang=}" && read -r -t 30 -u 3 _ || true ;;
  esac
done
STUB
chmod +x "$work/build/learn/gavel-train"
run() { GAVEL_SKIP_BUILD=1 GAVEL_TRAIN_THREADS=3 GAVEL_BUILD_DIR="$work/build" GAVEL_WEIGHTS_DIR="$work/weights" bash "$repo/scripts/train.sh" toy; }
fail() { echo "FAIL: $*" >&2; exit 1; }

printf '%s\n' '--method=selfplay' '' '--start={stage1} --search_opponents=learned:{stage1}' \
  '--start={stage1} --search_opponents=dirk,learned:{stage2},learned:{previous}' >"$work/weights/toy-2p.train"
run 2>/dev/null
mapfile -t calls <"$work/build/calls"
((${#calls[@]} == 3)) || fail "expected 3 stages, got ${#calls[@]}"
stage1=$work/build/train-stages/toy-2p.stage1.gmlp
stage2=$work/build/train-stages/toy-2p.stage2.gmlp
[[ ${calls[0]} == "--game=toy --players=2 --seed=1 --method=selfplay "* ]] || fail "stage 1: ${calls[0]}"
[[ ${calls[0]} == *" --eval_threads=3 --rollout_threads=3 "* ]] || fail "threads: ${calls[0]}"
[[ ${calls[1]} == *" --start=$stage1 --search_opponents=learned:$stage1 "* ]] || fail "stage 2: ${calls[1]}"
[[ ${calls[2]} == *" --start=$stage1 --search_opponents=dirk,learned:$stage2,learned:$stage2 "* ]] || fail "stage 3: ${calls[2]}"
[[ ${calls[2]} == *" --out=$work/weights/toy-2p.gmlp --curve=$work/weights/toy-2p.curve.csv" ]] || fail "last stage's files: ${calls[2]}"
[[ -e $work/weights/toy-2p.gmlp ]] || fail "the last stage wrote no weights"

rm "$work/build/calls"
printf '%s\n' '--method=selfplay' '--start={stage2}' >"$work/weights/toy-2p.train"
if run 2>"$work/err"; then fail "a stage naming itself trained"; fi
grep -q "stage 2 names a stage that is not before it" "$work/err" || fail "no clear error: $(cat "$work/err")"
[[ ! -e $work/build/calls ]] || fail "stages trained before the settings were refused"
printf '%s\n' '--start={previous}' >"$work/weights/toy-2p.train"
if run 2>"$work/err"; then fail "a first stage naming {previous} trained"; fi
grep -q "stage 1 names a stage that is not before it" "$work/err" || fail "no clear error: $(cat "$work/err")"
[[ ! -e $work/build/calls ]] || fail "a stage trained before the settings were refused"

# A value network's settings train after the table's network, into <game>-<n>p.value.
rm -f "$work/build/calls"
printf '%s\n' '--method=selfplay' >"$work/weights/toy-2p.train"
printf '%s\n' '--episodes=7 --hidden=9' >"$work/weights/toy-2p.value.train"
run 2>/dev/null
mapfile -t calls <"$work/build/calls"
((${#calls[@]} == 2)) || fail "expected the network and the value network, got ${#calls[@]} calls"
[[ ${calls[0]} == *" --out=$work/weights/toy-2p.gmlp "* ]] || fail "the network first: ${calls[0]}"
[[ ${calls[1]} == "--game=toy --players=2 --seed=1 --method=value --value_weights=$work/weights --episodes=7 --hidden=9 --eval_threads=3 --out=$work/weights/toy-2p.value" ]] ||
  fail "value network: ${calls[1]}"
# Two tables at once (GAVEL_TRAIN_JOBS, 2 by default): each only finishes if the other runs
# beside it; each one's output goes to its log.
rm -f "$work/build/calls" "$work/weights/toy-2p.value.train"
mkfifo "$work/fifo"
printf '%s\n' "--wait_for=$work/fifo" >"$work/weights/toy-2p.train"
printf '%s\n' "--signal=$work/fifo" >"$work/weights/toy-3p.train"
run 2>"$work/err" || fail "two tables at once: $(cat "$work/err")"
mapfile -t calls <"$work/build/calls"
((${#calls[@]} == 2)) || fail "expected both tables, got ${#calls[@]} calls"
grep -q "^toy-2p.train: done" "$work/err" && grep -q "^toy-3p.train: done" "$work/err" || fail "no table reported done: $(cat "$work/err")"
[[ -e $work/build/train-stages/toy-3p.train.log ]] || fail "no log of the three-player table"

# A table that fails stops the script, which shows its log's end.
printf '%s\n' '--fail' >"$work/weights/toy-2p.train"
printf '%s\n' '--method=selfplay' >"$work/weights/toy-3p.train"
if run 2>"$work/err"; then fail "a failed table did not fail the script"; fi
grep -q "^toy-2p.train: failed" "$work/err" && grep -q "failing on purpose" "$work/err" || fail "no clear error: $(cat "$work/err")"

# ... and stops the table training beside it: the three-player one has taken its lock when the
# two-player one fails, and gives it up only when it ends (by itself after 30 s).
mkfifo "$work/hang"
printf '%s\n' "--wait_for=$work/fifo --fail" >"$work/weights/toy-2p.train"
printf '%s\n' "--hold=$work/lock --signal=$work/fifo --hang=$work/hang" >"$work/weights/toy-3p.train"
if run 2>"$work/err"; then fail "a failed table did not fail the script"; fi
grep -q "^toy-2p.train: failed" "$work/err" || fail "no clear error: $(cat "$work/err")"
flock -w 10 "$work/lock" true || fail "the table beside a failed one was not stopped"
echo "train.sh stages: ok"
