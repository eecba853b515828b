# slurm.sh: `gpuvet doctor --slurm` on replayed scenarios against a stand-in scontrol (a script
# that prints a node line and logs what it was asked): a failure drains with a reason naming the
# GPU and finding, a healthy node that gpuvet drained is resumed, a node drained by someone
# else or waiting for a reboot is left alone, warnings drain only with --drain-on warning, the
# jobs' software never drains, a hung doctor drains within --timeout, a hung or missing scontrol
# is an error that drains nothing, --dry-run runs no update, and the options' errors. The same
# against a real Slurm: slurm_real.sh.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
F="$SCEN/faults"

# the stand-in: `show node -o NAME` prints $FAKE_NODE (a line as Slurm 22.05 prints it), every
# call is logged; FAKE_HANG makes it hang
cat >"$TMP/scontrol" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" >>"$FAKE_LOG"
[ -n "${FAKE_HANG:-}" ] && exec sleep 60
case "$1" in
show) printf '%s\n' "$FAKE_NODE" ;;
update) ;;
*) echo "scontrol: unknown $1" >&2; exit 1 ;;
esac
EOF
chmod +x "$TMP/scontrol"
export GPUVET_SCONTROL="$TMP/scontrol" FAKE_LOG="$TMP/log"
unset SLURMD_NODENAME
head='NodeName=n1 Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUTot=2 OS=Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01) RealMemory=1000 Sockets=2'
idle="$head State=IDLE ThreadsPerCore=1 Partitions=debug"
lost_reason='gpuvet: GPU 1 (00000000:00:07.0) gpu.fallen_off_bus: the GPU stopped responding on the PCIe bus'
lost_re=$(printf '%s' "$lost_reason" | sed 's/[().]/\\&/g')

# run NAME CODE NODE_LINE ARGS...: doctor --slurm --node n1 ARGS on the stand-in showing NODE_LINE
run() {
	name=$1 code=$2
	export FAKE_NODE="$3"
	shift 3
	: >"$FAKE_LOG"
	expect_exit "$name: exit $code" "$code" "$GPUVET" "$@"
}

# a lost GPU: drained, the reason names the GPU, its bus id and the cause (not its echo)
run "lost GPU" 2 "$idle" --replay "$F/row10-gpu-lost.json" doctor --slurm --node n1
expect_grep "lost GPU: reported" '^gpuvet doctor --slurm: node n1: fail$' "$TMP/out"
expect_grep "lost GPU: the cause listed" '^  fail  GPU 1 \(00000000:00:07.0\) gpu.fallen_off_bus: ' "$TMP/out"
expect_grep "lost GPU: its echo marked" '^  fail  GPU 1 .* nvml.gpu_lost: .*\(an echo\)$' "$TMP/out"
expect_grep "lost GPU: state read" '^show node -o n1$' "$TMP/log"
expect_grep "lost GPU: drained with gpuvet's reason" "^update NodeName=n1 State=DRAIN Reason=$lost_re\$" "$TMP/log"
expect_grep "lost GPU: says it ran" '^slurm: ran: .*scontrol update NodeName=n1 State=DRAIN' "$TMP/out"

# --dry-run: the same command printed, shell-quoted, and only `show` run
run "dry run" 2 "$idle" --replay "$F/row10-gpu-lost.json" doctor --slurm --node n1 --dry-run
expect_grep "dry run: the command printed" "^slurm: dry run, not run: .*/scontrol update NodeName=n1 State=DRAIN 'Reason=$lost_re'\$" "$TMP/out"
expect_no_grep "dry run: no update" '^update' "$TMP/log"

# already drained by gpuvet for this reason: nothing to do
run "drained again" 2 "$head State=IDLE+DRAIN Reason=$lost_reason [root@2026-12-02T05:33:16]" \
	--replay "$F/row10-gpu-lost.json" doctor --slurm --node n1
expect_no_grep "drained again: no update" '^update' "$TMP/log"
expect_grep "drained again: says why" '^slurm: none: already drained by gpuvet for this reason$' "$TMP/out"

# drained by an admin: the failure does not overwrite the admin's reason
run "admin drain, failing" 2 "$head State=IDLE+DRAIN Reason=bad DIMM B2 [alice@2026-12-01T10:00:00]" \
	--replay "$F/row10-gpu-lost.json" doctor --slurm --node n1
expect_no_grep "admin drain, failing: no update" '^update' "$TMP/log"
expect_grep "admin drain, failing: says why" "^slurm: leave: drained or down for someone else's reason" "$TMP/out"

# healthy: nothing when not drained; resumed when gpuvet drained it; left when someone else did
run "healthy" 0 "$idle" --replay "$SCEN/h200x2.json" doctor --slurm --node n1
expect_no_grep "healthy: no update" '^update' "$TMP/log"
run "healthy after gpuvet's drain" 0 "$head State=IDLE+DRAIN Reason=$lost_reason [root@2026-12-02T05:33:16]" \
	--replay "$SCEN/h200x2.json" doctor --slurm --node n1
expect_grep "healthy after gpuvet's drain: resumed" '^update NodeName=n1 State=RESUME$' "$TMP/log"
run "healthy, admin drain" 0 "$head State=IDLE+DRAIN Reason=bad DIMM B2 [alice@2026-12-01T10:00:00]" \
	--replay "$SCEN/h200x2.json" doctor --slurm --node n1
expect_no_grep "healthy, admin drain: left drained" '^update' "$TMP/log"
run "healthy, reboot asap" 0 "$head State=IDLE+DRAIN+REBOOT_REQUESTED Reason=$lost_reason [root@2026-12-02T05:33:16]" \
	--replay "$SCEN/h200x2.json" doctor --slurm --node n1
expect_no_grep "healthy, reboot asap: left alone" '^update' "$TMP/log"

# warnings: not drained by default (exit 1), drained with --drain-on warning
run "nvlink down" 1 "$idle" --replay "$F/nvlink-down.json" doctor --slurm --node n1
expect_no_grep "nvlink down: not drained" '^update' "$TMP/log"
run "nvlink down, --drain-on warning" 1 "$idle" --replay "$F/nvlink-down.json" doctor --slurm --node n1 --drain-on warning
expect_grep "nvlink down, --drain-on warning: drained" '^update NodeName=n1 State=DRAIN Reason=gpuvet: GPU 1 \(00000000:00:07.0\) fabric.nvlink_down: 16 of 18 NVLinks are up' "$TMP/log"

# the jobs' software never drains: a torch too new for the driver, CUDA_VISIBLE_DEVICES="" in
# the environment (cuInit fails as its echo)
for s in row15-driver-too-old-for-torch row17-cvd-empty; do
	run "$s" 0 "$idle" --replay "$F/$s.json" doctor --slurm --node n1
	expect_no_grep "$s: not drained" '^update' "$TMP/log"
	expect_grep "$s: ignored, said so" '^  ignored: [0-9]+ finding\(s\) about toolkits' "$TMP/out"
done

# a hung driver call: doctor is cut off at --timeout and the node drains (the watchdog's own
# per-call limit is set beyond it)
start=$(date +%s)
GPUVET_CALL_TIMEOUT_MS=120000 run "hung doctor" 2 "$idle" --replay "$F/driver-hang.json" doctor --slurm --node n1 --timeout 2
took=$(($(date +%s) - start))
if [ "$took" -le 10 ]; then pass "hung doctor: cut off in ${took} s"; else fail "hung doctor: cut off in time" "took $took s"; fi
expect_grep "hung doctor: drained" '^update NodeName=n1 State=DRAIN Reason=gpuvet: node slurm.doctor_timeout: doctor did not finish within 2 s' "$TMP/log"

# scontrol hangs (slurmd not registered yet, NHC #159): an error within its limit, nothing done
start=$(date +%s)
FAKE_HANG=1 GPUVET_SCONTROL_TIMEOUT_MS=500 run "hung scontrol, healthy" 3 "$idle" --replay "$SCEN/h200x2.json" doctor --slurm --node n1
took=$(($(date +%s) - start))
if [ "$took" -le 10 ]; then pass "hung scontrol: cut off in ${took} s"; else fail "hung scontrol: cut off in time" "took $took s"; fi
expect_grep "hung scontrol: says so" "^gpuvet: error: cannot read node n1's state: .*scontrol did not answer within 0.5 s$" "$TMP/err"
expect_grep "hung scontrol: retried next run" 'the next run tries again' "$TMP/err"
FAKE_HANG=1 GPUVET_SCONTROL_TIMEOUT_MS=500 run "hung scontrol, failing" 2 "$idle" --replay "$F/row10-gpu-lost.json" doctor --slurm --node n1
GPUVET_SCONTROL=/nonexistent/scontrol run "no scontrol" 3 "$idle" --replay "$SCEN/h200x2.json" doctor --slurm --node n1
expect_grep "no scontrol: says so" "cannot run /nonexistent/scontrol: not found" "$TMP/err"
run "unknown node" 3 "Node n1 not found" --replay "$SCEN/h200x2.json" doctor --slurm --node n1
expect_grep "unknown node: says so" "no NodeName= and State=" "$TMP/err"

# the node's name: SLURMD_NODENAME (set by slurmd), else hostname -s
FAKE_NODE="$idle" SLURMD_NODENAME=gpu-17 "$GPUVET" --replay "$SCEN/h200x2.json" doctor --slurm >"$TMP/out" 2>&1
expect_grep "SLURMD_NODENAME names the node" '^show node -o gpu-17$' "$TMP/log"
: >"$FAKE_LOG"
FAKE_NODE="$idle" "$GPUVET" --replay "$SCEN/h200x2.json" doctor --slurm >"$TMP/out" 2>&1
expect_grep "else hostname -s" "^show node -o $(hostname -s)\$" "$TMP/log"

# --json
run "json" 2 "$idle" --replay "$F/row10-gpu-lost.json" doctor --slurm --node n1 --json --dry-run
expect_jq "json: verdict" '.node == "n1" and .result == "fail" and .exit_code == 2 and .timed_out == false and .timeout_s == 50 and .drain_on == "failure"' "$TMP/out"
expect_jq "json: problems" '[.problems[] | "\(.gpu) \(.bus_id) \(.id) \(.echo)"] == ["1 00000000:00:07.0 gpu.fallen_off_bus false", "1 00000000:00:07.0 nvml.gpu_lost true"]' "$TMP/out"
expect_jq "json: action" ".reason == \"$lost_reason\" and .slurm_node.state == \"IDLE\" and .action == \"drain\" and .dry_run and (.done | not) and .error == null" "$TMP/out"
expect_jq "json: command" '.command[1:] == ["update", "NodeName=n1", "State=DRAIN", "Reason='"$lost_reason"'"]' "$TMP/out"

# options
expect_exit "--dry-run wants --slurm" 4 "$GPUVET" --replay "$SCEN/h200x2.json" doctor --dry-run
expect_grep "--dry-run wants --slurm: says so" 'go with --slurm' "$TMP/err"
expect_exit "--timeout 0" 4 "$GPUVET" --replay "$SCEN/h200x2.json" doctor --slurm --timeout 0
expect_exit "--timeout x" 4 "$GPUVET" --replay "$SCEN/h200x2.json" doctor --slurm --timeout x
expect_exit "--drain-on bad" 4 "$GPUVET" --replay "$SCEN/h200x2.json" doctor --slurm --drain-on sometimes
expect_grep "--drain-on bad: says so" "'failure' or 'warning'" "$TMP/err"
expect_exit "doctor --help" 0 "$GPUVET" doctor --help
expect_grep "--help names --slurm" '^  --slurm ' "$TMP/out"
done_testing
