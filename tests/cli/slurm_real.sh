# slurm_real.sh: `gpuvet doctor --slurm` as the HealthCheckProgram of a real single-node Slurm
# (slurmctld, slurmd and munged from Debian's slurm-wlm and munge, started as root in a
# temporary folder with its own slurm.conf, munge key and free ports, torn down at the end):
# a failing replayed scenario drains the node with gpuvet's reason, a healthy one resumes it,
# a node drained by hand stays drained; then `srun -n 2 gpuvet bench allreduce` on the fake
# GPUs. Skipped when not root or without Slurm; under CI=true that is a failure.
# not root, but sudo without a password (a CI runner's user): the whole script again as root
if [ "$(id -u)" -ne 0 ] && [ -z "${GPUVET_SUDOED:-}" ] && command -v sudo >/dev/null 2>&1 &&
	sudo -n true 2>/dev/null; then
	exec sudo -n -E env GPUVET_SUDOED=1 PATH="$PATH" sh "$0" "$@"
fi
. "$TOP/tests/cli/lib.sh"

# not_here REASON: this machine cannot run it: a skip, or a failure in CI
not_here() {
	if [ "${CI:-}" = true ]; then bail "real Slurm" "$1"; fi
	skip_all "real Slurm: $1"
}
[ "$(id -u)" -eq 0 ] || not_here "needs root (slurmd and slurmctld run as root here)"
for t in slurmctld slurmd munged munge scontrol srun sinfo; do
	command -v "$t" >/dev/null 2>&1 || not_here "$t is not installed (slurm-wlm, munge)"
done

D="$TMP/slurm"
mkdir -p "$D/state" "$D/spool" "$D/log"
# munged wants every folder above its socket searchable by all
chmod 755 "$TMP" "$D"
export SLURM_CONF="$D/slurm.conf"

# every daemon this script started, by the pid its pid file gave once it started (a daemon
# removes the file as it ends); nothing else is touched
PIDS=
remember() {
	i=0
	while [ ! -s "$D/$1.pid" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$D/$1.pid" ] && PIDS="$PIDS $(cat "$D/$1.pid")"
}
alive() {
	for pid in $PIDS; do kill -0 "$pid" 2>/dev/null && return 0; done
	return 1
}
teardown() {
	for pid in $PIDS; do kill "$pid" 2>/dev/null; done
	i=0
	while alive && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	for pid in $PIDS; do kill -9 "$pid" 2>/dev/null; done
}
trap 'teardown; rm -rf "$TMP"' EXIT
trap 'exit 143' TERM HUP INT

# free_port: a TCP port nothing listens on (from /proc/net/tcp*, no tools needed)
free_port() {
	p=$((20000 + ($$ * 7 + ${1:-0} * 131) % 30000))
	while :; do
		hex=$(printf '%04X' "$p")
		if ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '{ print $2 }' | grep -q ":$hex\$"; then
			echo "$p"
			return
		fi
		p=$((p + 1))
	done
}
ctld_port=$(free_port 1)
slurmd_port=$(free_port 2)
[ "$slurmd_port" = "$ctld_port" ] && slurmd_port=$((ctld_port + 1))
node=$(hostname -s)

dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$D/munge.key"
if munged -f --socket="$D/munge.sock" --key-file="$D/munge.key" --pid-file="$D/munged.pid" \
	--log-file="$D/log/munged.log" --seed-file="$D/munged.seed" >"$D/log/munged.out" 2>&1; then
	remember munged
	pass "munged started"
else
	bail "munged started" "$(tail -3 "$D/log/munged.out" "$D/log/munged.log" 2>/dev/null)"
fi

# the health check: gpuvet on the scenario named in $D/scenario, logged; slurmd gives it
# SLURMD_NODENAME and little else, so the wrapper sets what gpuvet needs
cat >"$D/healthcheck" <<EOF
#!/bin/sh
PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin
SLURM_CONF="$D/slurm.conf"
export PATH SLURM_CONF
echo "run \$(date +%s) \$SLURMD_NODENAME" >>"$D/hc.runs"
exec "$GPUVET" --replay "\$(cat "$D/scenario")" doctor --slurm >>"$D/hc.log" 2>&1
EOF
chmod 755 "$D/healthcheck"
: >"$D/plugstack.conf"
echo "$SCEN/h200x2.json" >"$D/scenario"
cat >"$D/slurm.conf" <<EOF
ClusterName=gpuvettest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
PlugStackConfig=$D/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=none
ReturnToService=2
SlurmdTimeout=60
HealthCheckProgram=$D/healthcheck
HealthCheckInterval=2
HealthCheckNodeState=ANY
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -f "$D/slurm.conf" >"$D/log/slurmctld.out" 2>&1 && remember slurmctld
if [ -s "$D/slurmctld.pid" ] && slurmd -f "$D/slurm.conf" >"$D/log/slurmd.out" 2>&1 && remember slurmd; then
	pass "slurmctld and slurmd started"
else
	bail "slurmctld and slurmd started" "$(tail -5 "$D/log/slurmctld.out" "$D/log/slurmd.out" "$D/log/slurmctld.log" "$D/log/slurmd.log" 2>/dev/null)"
fi

# node_line: the node as scontrol prints it
node_line() { timeout 10 scontrol show node -o "$node" 2>/dev/null; }
# wait_for NAME SECONDS TEST...: TEST (a shell command) becomes true within SECONDS
wait_for() {
	name=$1 secs=$2
	shift 2
	end=$(($(date +%s) + secs))
	while [ "$(date +%s)" -le "$end" ]; do
		if "$@"; then
			pass "$name"
			return 0
		fi
		sleep 0.5
	done
	fail "$name" "not within $secs s; node: $(node_line | grep -o 'State=[^ ]*') $(node_line | grep -o 'Reason=.*'); health check log: $(tail -4 "$D/hc.log" 2>/dev/null | tr '\n' '|')"
	return 1
}
registered() { node_line | grep -Eq 'State=(IDLE|MIXED|ALLOCATED)'; }
wait_for "the node registers" 60 registered || bail "the node registers" "$(tail -5 "$D/log/slurmd.log")"
# runs: how many health checks have run so far
runs() { wc -l <"$D/hc.runs" 2>/dev/null | tr -d ' ' || echo 0; }
# two_more_runs: wait until two more health checks have run
two_more_runs() {
	want=$(($(runs) + 2))
	enough() { [ "$(runs)" -ge "$want" ]; }
	wait_for "$1" 30 enough
}
two_more_runs "slurmd runs the health check"
expect_grep "slurmd gives it SLURMD_NODENAME" "^run [0-9]+ $node\$" "$D/hc.runs"

# a lost GPU: slurmd's health check drains the node with gpuvet's reason
echo "$SCEN/faults/row10-gpu-lost.json" >"$D/scenario"
drained_by_gpuvet() {
	node_line | grep -q 'State=[A-Z+]*DRAIN' &&
		node_line | grep -q 'Reason=gpuvet: GPU 1 (00000000:00:07.0) gpu.fallen_off_bus: the GPU stopped responding on the PCIe bus \['
}
wait_for "a failing scenario drains the node with gpuvet's reason" 30 drained_by_gpuvet
sinfo -R -h -o '%E' >"$TMP/sinfo" 2>&1
expect_grep "sinfo -R shows gpuvet's reason" '^gpuvet: GPU 1 \(00000000:00:07.0\) gpu.fallen_off_bus' "$TMP/sinfo"

# healthy again: resumed
echo "$SCEN/h200x2.json" >"$D/scenario"
resumed() { node_line | grep -Eq 'State=(IDLE|MIXED|ALLOCATED) '; }
wait_for "a healthy scenario resumes the node" 30 resumed

# drained by hand: it stays drained, healthy or failing, and keeps the admin's reason
timeout 10 scontrol update NodeName="$node" State=DRAIN Reason="admin: bad DIMM B2"
admin_drained() { node_line | grep -q 'State=[A-Z+]*DRAIN' && node_line | grep -q 'Reason=admin: bad DIMM B2 \['; }
two_more_runs "health checks on the hand-drained node (healthy)"
admin_drained && pass "a node drained by hand stays drained" ||
	fail "a node drained by hand stays drained" "$(node_line | grep -o 'State=[^ ]*') $(node_line | grep -o 'Reason=.*')"
echo "$SCEN/faults/row10-gpu-lost.json" >"$D/scenario"
two_more_runs "health checks on the hand-drained node (failing)"
admin_drained && pass "a failure does not overwrite the admin's reason" ||
	fail "a failure does not overwrite the admin's reason" "$(node_line | grep -o 'Reason=.*')"
expect_grep "the health check said it left the node alone" "^slurm: leave: drained or down for someone else's reason" "$D/hc.log"
echo "$SCEN/h200x2.json" >"$D/scenario"
timeout 10 scontrol update NodeName="$node" State=RESUME
wait_for "resumed by hand" 30 resumed

# srun -n 2 gpuvet bench allreduce: two ranks on the two fake GPUs (tests/bench/fakegpu), NCCL's
# id through the job's submit folder; rank 0 prints the verified table for both
F="$TOP/$O/fakegpu"
if [ -f "$F/libnccl.so.2" ] && [ -f "$F/libcuda.so.1" ]; then
	printf 'not a fatbin: the fake GPUs run C copies of the kernels\n' >"$TMP/kernels.bin"
	mkdir -p "$TMP/job"
	(cd "$TMP/job" && GPUVET_BENCH_KERNELS="$TMP/kernels.bin" GPUVET_CUDA_LIBRARY="$F/libcuda.so.1" \
		GPUVET_NCCL_LIBRARY="$F/libnccl.so.2" GPUVET_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 \
		FAKEGPU_MEM_MIB=512 timeout 120 srun -n 2 "$GPUVET" bench allreduce --size 1M \
		--time-budget 0.01 --json) >"$TMP/srun.out" 2>"$TMP/srun.err"
	rc=$?
	[ "$rc" -eq 0 ] && pass "srun -n 2 gpuvet bench allreduce exits 0" ||
		fail "srun -n 2 gpuvet bench allreduce exits 0" "exit $rc: $(head -c 400 "$TMP/srun.err")"
	if command -v jq >/dev/null 2>&1; then
		expect_jq "srun: one report, from rank 0" '.results | length > 0' "$TMP/srun.out"
		expect_jq "srun: 2 ranks under srun, every result verified" \
			'[.results[] | select(.bench == "allreduce")] | length > 0 and all(.verified == true and (.config | test("2 processes \\(srun\\)")) and (.verify | test("all 2 ranks")))' \
			"$TMP/srun.out"
	else
		fail "srun: the report checked" "jq is not installed"
	fi
	[ -z "$(ls -A "$TMP/job")" ] && pass "srun: NCCL's id file is removed" || fail "srun: NCCL's id file is removed" "$(ls -A "$TMP/job")"
elif [ "${CI:-}" = true ]; then
	fail "srun -n 2 gpuvet bench allreduce" "$F not built (make test builds it)"
else
	skip "srun -n 2 gpuvet bench allreduce: $F not built (make test builds it)"
fi

# the daemons end with the script (the EXIT trap too, for a script stopped part-way)
n=0
for pid in $PIDS; do kill -0 "$pid" 2>/dev/null && n=$((n + 1)); done
[ "$n" -eq 3 ] && pass "the three daemons are up at the end" || fail "the three daemons are up at the end" "$n of 3"
teardown
alive && fail "every daemon stopped" "still running: $PIDS" || pass "every daemon stopped"
done_testing
