# slurm_gres.sh: `gpuvet topo --gres-conf` on replayed scenarios: one gres.conf line per GPU
# with Type= from the model, File= from the minor number, Links= with the NVLink counts in
# Slurm's order (-1 itself), Cores= from NVML's CPU affinity: in Slurm's core numbering when
# /sys/devices/system/cpu has the topology (hardware threads folded), else the CPU ids, said so.
. "$TOP/tests/cli/lib.sh"
M="$SCEN/monitor"

expect_exit "two GPUs" 0 "$GPUVET" --replay "$M/x2.json" topo --gres-conf
expect_grep "GPU 0 line" '^Name=gpu Type=h200 File=/dev/nvidia0 Cores=0-31 Links=-1,18$' "$TMP/out"
expect_grep "GPU 1 line" '^Name=gpu Type=h200 File=/dev/nvidia1 Cores=0-31 Links=18,-1$' "$TMP/out"
expect_grep "CPU ids said so" '^# Cores=: the CPU ids of NVML.s affinity' "$TMP/out"
expect_grep "AutoDetect advice" '^# or let slurmd read the same from NVML .*AutoDetect=nvml$' "$TMP/out"
n=$(grep -c '^Name=gpu' "$TMP/out")
[ "$n" -eq 2 ] && pass "one line per GPU" || fail "one line per GPU" "$n lines"

expect_exit "one GPU" 0 "$GPUVET" --replay "$M/x1.json" topo --gres-conf
expect_grep "one GPU: no Links" '^Name=gpu Type=h200 File=/dev/nvidia0 Cores=0-31$' "$TMP/out"
expect_exit "eight GPUs" 0 "$GPUVET" --replay "$M/x8.json" topo --gres-conf
expect_grep "eight GPUs: GPU 5" '^Name=gpu Type=h200 File=/dev/nvidia5 Cores=0-31 Links=18,18,18,18,18,-1,18,18$' "$TMP/out"

# two sockets of 8 cores with 2 threads each: CPUs 0-7 and 16-23 are socket 0's cores 0-7,
# 8-15 and 24-31 socket 1's; GPU 0 is local to socket 0, GPU 1 to socket 1; the minor numbers
# are swapped (GPU 0 is /dev/nvidia1), so GPU 1's line comes first
{
	printf '{"gpuvet_recording": 1, "derive": "%s",\n' "$M/x2.json"
	printf ' "nvml": {"devices": {"0": {"nvmlDeviceGetCpuAffinity": [0, [16711935]], "nvmlDeviceGetMinorNumber": [0, 1]},\n'
	printf '                     "1": {"nvmlDeviceGetCpuAffinity": [0, [4278255360]], "nvmlDeviceGetMinorNumber": [0, 0]}}},\n'
	printf ' "files": {"/sys/devices/system/cpu/present": "0-31\\n"'
	cpu=0
	while [ $cpu -lt 32 ]; do
		pkg=$(((cpu / 8) % 2))
		core=$((cpu % 8))
		printf ',\n  "/sys/devices/system/cpu/cpu%d/topology/physical_package_id": "%d\\n"' $cpu $pkg
		printf ',\n  "/sys/devices/system/cpu/cpu%d/topology/core_id": "%d\\n"' $cpu $core
		cpu=$((cpu + 1))
	done
	printf '}}\n'
} >"$TMP/sockets.json"
expect_exit "two sockets" 0 "$GPUVET" --replay "$TMP/sockets.json" topo --gres-conf
expect_grep "two sockets: nvidia0 is GPU 1, socket 1's cores" '^Name=gpu Type=h200 File=/dev/nvidia0 Cores=8-15 Links=-1,18$' "$TMP/out"
expect_grep "two sockets: nvidia1 is GPU 0, socket 0's cores" '^Name=gpu Type=h200 File=/dev/nvidia1 Cores=0-7 Links=18,-1$' "$TMP/out"
expect_grep "two sockets: Slurm's numbering said so" "^# Cores=: Slurm's core numbers" "$TMP/out"
sed -n '/^Name=/p' "$TMP/out" | head -1 | grep -q nvidia0 && pass "two sockets: lines in minor-number order" ||
	fail "two sockets: lines in minor-number order" "$(grep '^Name=' "$TMP/out" | head -1)"

expect_exit "--gres-conf with --json" 4 "$GPUVET" --replay "$M/x2.json" topo --gres-conf --json
expect_grep "--gres-conf with --json: says so" 'goes alone' "$TMP/err"
expect_exit "--gres-conf with -i" 4 "$GPUVET" --replay "$M/x2.json" topo --gres-conf -i 0
done_testing
