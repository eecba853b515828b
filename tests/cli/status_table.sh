# status_table.sh: the status table fits 80 columns on every shipped scenario (issue 10: it was
# 117+), the wide one is -v, and MIG mode and instances show in the table, --query and --json.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
BASE="$SCEN/h200x2.json"

# every recording shipped: no line of the default table is wider than 80 columns
wide="" count=0
for f in $(find "$SCEN" -name '*.json' ! -name '*.doctor.json' | sort); do
	GPUVET_CALL_TIMEOUT_MS=300 timeout 20 "$GPUVET" --replay "$f" status >"$TMP/t" 2>/dev/null
	grep -q '^GPU ' "$TMP/t" && count=$((count + 1))
	w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/t")
	[ "$w" -le 80 ] || wide="$wide ${f#"$SCEN"/}:$w"
done
if [ "$count" -ge 100 ]; then pass "the table is shown on $count scenarios"; else fail "the table is shown on the scenarios" "$count"; fi
if [ -z "$wide" ]; then pass "the table fits 80 columns on every scenario"; else
	fail "the table fits 80 columns on every scenario" "wider:$wide"; fi
# with colour, the visible width is the same
expect_exit "status --color always" 0 "$GPUVET" --color always --replay "$SCEN/monitor/x16.json" status
w=$(sed 's/\x1b\[[0-9;]*m//g' "$TMP/out" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
if [ "$w" -le 80 ]; then pass "with colour: 80 columns"; else fail "with colour: 80 columns" "$w"; fi

# the essential columns; the rest under -v
expect_exit "status" 0 "$GPUVET" --replay "$BASE" status
expect_grep "the header" '^GPU +NAME +BUS ID +TEMP +POWER +MEMORY GiB +UTIL +SM CLK$' "$TMP/out"
expect_no_grep "no margin, PCIe, ECC or reasons by default" '47C|5x16|idle' "$TMP/out"
expect_exit "status -v" 0 "$GPUVET" --replay "$BASE" status --verbose
expect_grep "--verbose: the wide header" '^GPU +NAME +BUS ID +TEMP/MRG +POWER +MEMORY GiB +UTIL +SM CLK +PCIE +ECC +CLOCK EVENTS$' "$TMP/out"

# MIG: a line under the GPU, the nvidia-smi fields, JSON
expect_exit "MIG on, no instance" 0 "$GPUVET" --replay "$SCEN/faults/row27-mig-no-instances.json" status
expect_grep "MIG on, no instance: its line under GPU 0" '^    MIG enabled, no instances$' "$TMP/out"
if [ "$(grep -c MIG "$TMP/out")" -eq 1 ]; then pass "no MIG line for the GPU without MIG"; else
	fail "no MIG line for the GPU without MIG" "$(cat "$TMP/out")"; fi
cat >"$TMP/mig.json" <<EOJ
{"gpuvet_recording": 1, "derive": "$BASE",
 "nvml": {"devices": {"1": {"nvmlDeviceGetMigMode": [0, 1, 0], "nvmlDeviceGetMaxMigDeviceCount": [0, 7],
   "nvmlDeviceGetMigDeviceHandleByIndex(0)": [0], "nvmlDeviceGetMigDeviceHandleByIndex(1)": [0],
   "nvmlDeviceGetMigDeviceHandleByIndex(2)": [0], "nvmlDeviceGetMigDeviceHandleByIndex(3)": [6],
   "nvmlDeviceGetMigDeviceHandleByIndex(4)": [6], "nvmlDeviceGetMigDeviceHandleByIndex(5)": [6],
   "nvmlDeviceGetMigDeviceHandleByIndex(6)": [6]}}}}
EOJ
expect_exit "MIG with instances, off at the next reset" 0 "$GPUVET" --replay "$TMP/mig.json" status
expect_grep "MIG: instances and the pending mode" '^    MIG enabled, 3 instances; disabled after the next GPU reset$' "$TMP/out"
if awk '/^ +1 H200/ { getline; if ($0 ~ /^    MIG/) found = 1 } END { exit !found }' "$TMP/out"; then
	pass "MIG: the line is under its GPU"; else fail "MIG: the line is under its GPU" "$(cat "$TMP/out")"; fi
expect_exit "MIG -v" 0 "$GPUVET" --replay "$TMP/mig.json" status -v
expect_grep "MIG -v: the line too" '^    MIG enabled, 3 instances' "$TMP/out"
expect_exit "MIG query" 0 "$GPUVET" --replay "$TMP/mig.json" status --query index,mig.mode.current,mig.mode.pending,mig_instances --format csv
printf 'index, mig.mode.current, mig.mode.pending, mig_instances\n0, Disabled, Disabled, [N/A]\n1, Enabled, Disabled, 3\n' >"$TMP/want"
if cmp -s "$TMP/want" "$TMP/out"; then pass "MIG query: nvidia-smi's names"; else fail "MIG query: nvidia-smi's names" "$(cat "$TMP/out")"; fi
expect_exit "MIG json" 0 "$GPUVET" --replay "$TMP/mig.json" status --json
expect_jq "MIG json: mode and instances" '.gpus[1].mig_current == true and .gpus[1].mig_pending == false and .gpus[1].mig_instances == 3 and .gpus[0].mig_current == false and (.gpus[0] | has("mig_instances") | not)' "$TMP/out"
done_testing
