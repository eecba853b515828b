# status_query.sh: nvidia-smi's queries in `status` (issue 10): --query-compute-apps with its
# names, header and units, and every --help-query field reading a value on the 1x H200
# recording wherever the recording holds the answer (bug 10: processes, cpu_affinity, energy_mj,
# sm_count and the PCIe throughput were always [N/A]).
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output and the recordings"
ONE="$SCEN/h200x1.json"
PROCS="$SCEN/monitor/procs.json"

# ---- every field of --help-query on h200x1 ----
# A field may read [N/A] there only when the recording itself lacks the answer; each such
# field is listed with the jq test on the recording that shows it (the driver said "not
# supported", or the call was never made because its mechanism does not apply).
D='.nvml.devices[0]'
na_reason() {
	case "$1" in
	fan.speed) echo "$D.nvmlDeviceGetFanSpeed[0] != 0" ;;
	retired_pages.sbe | retired_pages.dbe | retired_pages.pending)
		# page retirement is read only where rows are not remapped
		echo "($D | has(\"nvmlDeviceGetRetiredPagesPendingStatus\") | not) and $D.nvmlDeviceGetRemappedRows[0] == 0" ;;
	fabric.state) echo "$D.nvmlDeviceGetGpuFabricInfo[1] == 0" ;; # NVML's "not supported" state
	numa_node) echo "$D.nvmlDeviceGetNumaNodeId[0] != 0" ;;
	nvlink_count) echo "$D[\"nvmlDeviceGetNvLinkState(0)\"][0] != 0" ;;
	mig_instances) echo "$D.nvmlDeviceGetMigMode[1] == 0" ;; # MIG is off: no instances to count
	# the sysfs backends' readings (AMD, Intel: docs/backends.md), none of an NVIDIA GPU's
	driver | gfx_target | memory.gtt.total | memory.gtt.used | clocks.levels.sm | clocks.levels.mem)
		echo "true" ;;
	*) echo "false" ;;
	esac
}
"$GPUVET" status --help-query >"$TMP/help"
awk 'NR > 1 && /^$/ { exit } NR > 1 { print ($1 == "-" ? $2 : $1) }' "$TMP/help" >"$TMP/fields"
n=$(wc -l <"$TMP/fields")
if [ "$n" -gt 80 ]; then pass "--help-query lists $n GPU fields"; else fail "--help-query lists the GPU fields" "$n"; fi
bad=""
while read -r fld; do
	v=$("$GPUVET" --replay "$ONE" status --query "$fld" --format csv,noheader 2>&1)
	case "$v" in
	"[N/A]")
		jq -e "$(na_reason "$fld")" "$ONE" >/dev/null 2>&1 || bad="$bad $fld" ;;
	"" | "["* | *error*) bad="$bad $fld=$v" ;;
	esac
done <"$TMP/fields"
if [ -z "$bad" ]; then pass "every --help-query field reads a value on h200x1 where the recording has it"; else
	fail "every --help-query field reads a value on h200x1 where the recording has it" "no value:$bad"; fi
# the five of bug 10, with the recording's answers
expect_exit "bug 10 fields" 0 "$GPUVET" --replay "$ONE" status --query processes,cpu_affinity,energy_mj,sm_count,pcie_tx_kbps,pcie_rx_kbps --format csv,noheader
echo "0, 0-15, 3525630, 132, 23305, 21357" >"$TMP/want"
if cmp -s "$TMP/want" "$TMP/out"; then pass "bug 10 fields: the recorded values"; else
	fail "bug 10 fields: the recorded values" "$(cat "$TMP/out")"; fi
expect_exit "bug 10 fields in JSON" 0 "$GPUVET" --replay "$ONE" status --query processes,sm_count --json
expect_jq "bug 10 fields in JSON: numbers" '.[0].processes == 0 and .[0].sm_count == 132' "$TMP/out"
# the table's JSON has the process count (two cheap calls), not the slow ones
expect_exit "status --json" 0 "$GPUVET" --replay "$PROCS" status --json
expect_jq "status --json: processes per GPU" '.gpus[0].processes == 1' "$TMP/out"

# ---- --query-compute-apps ----
expect_grep "--help-query lists the compute-apps fields" '^used_gpu_memory +used_memory +MiB$' "$TMP/help"
expect_grep "--help-query lists process_name" '^process_name +name ' "$TMP/help"
expect_exit "compute apps csv" 0 "$GPUVET" --replay "$PROCS" status --query-compute-apps=pid,process_name,used_memory,gpu_uuid,gpu_bus_id,gpu_name --format=csv
cat >"$TMP/want" <<EOW
pid, process_name, used_gpu_memory [MiB], gpu_uuid, gpu_bus_id, gpu_name
4242, python3, 23552 MiB, GPU-00000000-0000-0000-0000-000000000000, 00000000:00:06.0, NVIDIA H200
EOW
if diff -u "$TMP/want" "$TMP/out" >"$TMP/diff"; then pass "compute apps: nvidia-smi's header, units and rows"; else
	fail "compute apps: nvidia-smi's header, units and rows" "$(head -c 600 "$TMP/diff")"; fi
expect_exit "compute apps noheader,nounits" 0 "$GPUVET" --replay "$PROCS" status --query-compute-apps=pid,name,used_gpu_memory --format=csv,noheader,nounits
echo "4242, python3, 23552" >"$TMP/want"
if cmp -s "$TMP/want" "$TMP/out"; then pass "compute apps noheader,nounits: bare values"; else fail "compute apps noheader,nounits: bare values" "$(cat "$TMP/out")"; fi
expect_exit "compute apps -i 1 (none yet)" 0 "$GPUVET" --replay "$PROCS" status --query-compute-apps=pid --format=csv -i 1
if [ "$(cat "$TMP/out")" = "pid" ]; then pass "compute apps: no process, only the header"; else
	fail "compute apps: no process, only the header" "$(cat "$TMP/out")"; fi
expect_exit "compute apps --json" 0 "$GPUVET" --replay "$PROCS" status --query-compute-apps=pid,used_memory,gpu_serial --json
expect_jq "compute apps --json: nvidia-smi's names as keys" '. == [{"pid": 4242, "used_gpu_memory": 23552, "gpu_serial": "0000000000000"}]' "$TMP/out"
# unreadable: the name of a process of another PID namespace, memory the driver withholds
expect_exit "compute apps in a container" 0 "$GPUVET" --replay "$SCEN/monitor/container.json" status --query-compute-apps=pid,process_name,used_memory --format=csv,noheader
if grep -qx '812345, \[N/A\], 8192 MiB' "$TMP/out" && grep -qx '43, \[N/A\], 2048 MiB' "$TMP/out"; then
	pass "compute apps: a PID of another namespace has no name here: [N/A]"
else
	fail "compute apps: a PID of another namespace has no name here: [N/A]" "$(cat "$TMP/out")"
fi
cat >"$TMP/nomem.json" <<EOF
{"gpuvet_recording": 1, "derive": "$PROCS",
 "nvml": {"devices": {"0": {"nvmlDeviceGetComputeRunningProcesses": [0, [4242, -1, 4294967295, 4294967295]]}}}}
EOF
expect_exit "compute apps: memory withheld" 0 "$GPUVET" --replay "$TMP/nomem.json" status --query-compute-apps=pid,used_memory --format=csv,noheader -i 0
if [ "$(cat "$TMP/out")" = "4242, [N/A]" ]; then pass "compute apps: memory withheld is [N/A], not 0"; else
	fail "compute apps: memory withheld is [N/A], not 0" "$(cat "$TMP/out")"; fi
expect_exit "compute apps: unknown field" 4 "$GPUVET" --replay "$PROCS" status --query-compute-apps=pid,bogus
expect_grep "compute apps: unknown field named" "unknown compute-apps field 'bogus'" "$TMP/err"
expect_exit "compute apps: empty list" 4 "$GPUVET" --replay "$PROCS" status --query-compute-apps=
expect_exit "compute apps with --query" 4 "$GPUVET" --replay "$PROCS" status --query index --query-compute-apps=pid

# ---- bug 8: an empty id list is a usage error everywhere status reads ids ----
for form in "-i ''" "--id=" "-i ,"; do
	for mode in "" "--json" "--query index" "--query-compute-apps pid" "-l 1"; do
		eval "set -- $form $mode"
		expect_exit "status $form $mode: usage error" 4 "$GPUVET" --replay "$ONE" status "$@"
		if [ ! -s "$TMP/out" ] && grep -q "GPU id" "$TMP/err"; then pass "status $form $mode: a message, no header"; else
			fail "status $form $mode: a message, no header" "out: $(head -c 200 "$TMP/out") err: $(head -c 200 "$TMP/err")"; fi
	done
done
done_testing
