# burn_faults.sh: `gpuvet burn` when things go wrong, on the two fake GPUs (tests/bench/fakegpu):
# an Xid line that the kernel log gains during the run (a fake root's /dev/kmsg), a GPU that
# hangs (FAKEGPU_HANG: the watchdog gives up on it, the report is printed, the process ends
# without it), a GPU that falls off the bus (FAKEGPU_LOST), memory taken before the buffers
# (FAKEGPU_ALLOC_MIB), a second burn on a GPU already burning (the lock), and the terminal
# closed mid-run (SIGHUP). No gpuvet is left running after any of them.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
need_tool python3 "a terminal closed under burn"
fake_gpus "burn faults"
R="--memory-fraction 0.002 --json"

# gone PID NAME: the process has ended
gone() {
	if kill -0 "$1" 2>/dev/null; then fail "$2: no process left behind" "PID $1 still runs"; kill -KILL "$1"; else pass "$2: no process left behind"; fi
}
# has GPU ID: the filter "GPU's findings hold ID"
has() { echo "([.gpus[] | select(.index == $1) | .findings[] | select(.id == \"$2\")] | length) >= 1"; }

# an Xid for GPU 1 appears in the kernel log during the run; the old one and another GPU's
# do not count
K="$TMP/root"
mkdir -p "$K/dev" "$K/proc/sys/kernel"
echo 0 >"$K/proc/sys/kernel/dmesg_restrict"
printf '3,500,1000,-;NVRM: Xid (PCI:0000:11:00): 13, pid=1, name=old, Graphics Exception\n' >"$K/dev/kmsg"
GPUVET_ROOT="$K" "$GPUVET" burn --duration 4 $R >"$TMP/xid.json" 2>"$TMP/xid.err" &
pid=$!
sleep 2
printf '3,501,2000,-;NVRM: Xid (PCI:0000:11:00): 79, pid=2, name=gpuvet, GPU has fallen off the bus.\n3,502,2001,-;NVRM: Xid (PCI:0000:12:00): 48, pid=2, name=x, DBE\n' >>"$K/dev/kmsg"
wait $pid
rc=$?
if [ "$rc" = 2 ]; then pass "xid: a new Xid fails the run (exit 2)"; else fail "xid: a new Xid fails the run (exit 2)" "exit $rc"; fi
expect_jq "xid: burn.xid on GPU 1: one new Xid, the last 79" "$(has 1 burn.xid) and ([.gpus[1].findings[] | select(.id == \"burn.xid\") | .summary] == [\"1 Xid error during the run, the last Xid 79\"])" "$TMP/xid.json"
expect_jq "xid: GPU 0 passes (another GPU's Xid is not its)" '.gpus[0].verdict == "PASS" and .gpus[1].verdict == "FAIL"' "$TMP/xid.json"
GPUVET_ROOT="$K" expect_exit "xid: old Xid lines do not count (exit 0)" 0 "$GPUVET" burn --duration 1 $R

# GPU 1 hangs 2 s in: the watchdog (floor 1 s) gives up on it, GPU 0 finishes, exit 2
FAKEGPU_HANG=1:2 GPUVET_BURN_WATCHDOG_S=1 "$GPUVET" burn --duration 4 $R >"$TMP/hang.json" 2>"$TMP/hang.err" &
pid=$!
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
gone $pid "hang"
wait $pid
rc=$?
if [ "$rc" = 2 ]; then pass "hang: exit 2"; else fail "hang: exit 2" "exit $rc"; fi
expect_jq "hang: burn.hung on GPU 1 with the phase and the silence" "$(has 1 burn.hung) and ([.gpus[1].findings[] | select(.id == \"burn.hung\") | .evidence[] | select(test(\"no progress for [0-9.]+ s in the compute phase\"))] | length == 1)" "$TMP/hang.json"
expect_jq "hang: GPU 0 ran to the end and passed" '.gpus[0].verdict == "PASS" and .gpus[0].counts.products > 0 and .interrupted == false' "$TMP/hang.json"
expect_grep "hang: says the thread is left and memory freed at exit" "GPU 1 hung: its thread is left behind; the driver frees its memory" "$TMP/hang.err"
GPUVET_BURN_WATCHDOG_S=0 expect_exit "hang: a bad GPUVET_BURN_WATCHDOG_S (exit 4)" 4 "$GPUVET" burn --duration 1 $R

# GPU 0 falls off the bus 2 s in: its calls answer CUDA_ERROR_DEVICE_UNAVAILABLE
FAKEGPU_LOST=0:2 expect_exit "lost: exit 2" 2 "$GPUVET" burn --duration 4 $R
expect_jq "lost: burn.lost on GPU 0 names the CUDA error" "$(has 0 burn.lost) and ([.gpus[0].findings[] | select(.id == \"burn.lost\") | .evidence[] | select(test(\"CUDA_ERROR_DEVICE_UNAVAILABLE\"))] | length == 1)" "$TMP/out"
expect_jq "lost: GPU 1 passes" '.gpus[1].verdict == "PASS"' "$TMP/out"

# memory taken before the buffers: the run takes what fits and says so
FAKEGPU_ALLOC_MIB=40 expect_exit "out of memory at the start: runs on what fits (exit 0)" 0 "$GPUVET" burn -i 0 --duration 1 --memory-fraction 0.5 --json
expect_jq "out of memory: fewer buffers than asked, at least two, in the JSON" '.gpus[0].buffers >= 2 and .gpus[0].buffers < .gpus[0].buffers_asked and .gpus[0].verdict == "PASS"' "$TMP/out"
FAKEGPU_ALLOC_MIB=40 expect_exit "out of memory: text report" 0 "$GPUVET" burn -i 0 --duration 1 --memory-fraction 0.5
expect_grep "out of memory: the text says how many fit" "note: [0-9]+ of [0-9]+ result buffers fit" "$TMP/out"

# a second burn on a GPU that burns: refused, naming the first one's PID
"$GPUVET" burn -i 1 --duration 3 $R >"$TMP/first.json" 2>&1 &
pid=$!
sleep 1
expect_exit "lock: a second burn on GPU 1 is refused (exit 5)" 5 "$GPUVET" burn --duration 1 $R
expect_grep "lock: the refusal names the other burn's PID" "GPU 1 \(0000:11:00.0\) is being burned by another gpuvet burn \(PID $pid\)" "$TMP/err"
expect_exit "lock: GPU 0 is free meanwhile (exit 0)" 0 "$GPUVET" burn -i 0 --duration 1 $R
wait $pid
expect_jq "lock: the first burn ran to its end" '.exit_code == 0 and .gpus[0].index == 1' "$TMP/first.json"
expect_exit "lock: free again once the first ended (exit 0)" 0 "$GPUVET" burn -i 1 --duration 1 $R

# the terminal closed mid-run: SIGHUP stops it like SIGTERM, the partial verdict goes to stdout
got=$(python3 "$TOP/tests/cli/hup.py" "$TMP/hup.json" "$TMP/hup.pid" "$GPUVET" burn --duration 60 $R)
if [ "$got" = 130 ]; then pass "SIGHUP: exits 130"; else fail "SIGHUP: exits 130" "exit $got"; fi
expect_jq "SIGHUP: a partial verdict" '.interrupted == true and .exit_code == 130 and (.gpus | length) == 2' "$TMP/hup.json"
gone "$(cat "$TMP/hup.pid")" "SIGHUP"
done_testing
