# status.sh: the one-line view, --json, and nvidia-smi compatible --query on the 2x H200 recording.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
BASE="$SCEN/h200x2.json"

expect_exit "status" 0 "$GPUVET" --replay "$BASE" status
expect_grep "status lists GPU 0" '^ +0 H200 +0000:00:06\.0 +40C +81/700W +0\.0/140\.4 +0% +345MHz$' "$TMP/out"
expect_grep "status lists GPU 1" '^ +1 H200 +0000:00:07\.0 +39C ' "$TMP/out"
expect_exit "status -v" 0 "$GPUVET" --replay "$BASE" status -v
expect_grep "status -v lists GPU 0" '^ +0 NVIDIA H200 +0000:00:06\.0' "$TMP/out"
expect_grep "status -v shows the temperature margin" '40C/47C' "$TMP/out"
expect_grep "status -v shows power against the limit" '81/700W' "$TMP/out"
expect_grep "status -v shows PCIe gen and width" ' 5x16 ' "$TMP/out"
expect_grep "status -v shows the clock-event reasons" 'idle$' "$TMP/out"
expect_exit "gpuvet -v status" 0 "$GPUVET" -v --replay "$BASE" status
expect_grep "gpuvet -v status is the wide table" '40C/47C' "$TMP/out"
expect_exit "status --json" 0 "$GPUVET" --replay "$BASE" status --json
expect_jq "json: driver" '.driver_version == "580.159.04"' "$TMP/out"
expect_jq "json: units in keys" '.gpus[0].power_mw == 81278 and .gpus[0].mem_total_bytes == 150754820096' "$TMP/out"
expect_jq "json: not supported is absent, not 0" '.gpus[0] | has("fan_pct") | not' "$TMP/out"
expect_jq "json: reasons in words" '.gpus[0].clock_event_reasons == ["idle"]' "$TMP/out"
expect_exit "status -i 1" 0 "$GPUVET" --replay "$BASE" status -i 1 --json
expect_jq "-i selects by index" '.gpus | length == 1 and .[0].index == 1' "$TMP/out"
expect_exit "status -i uuid" 0 "$GPUVET" --replay "$BASE" status -i GPU-00000000-0000-0000-0000-000000000000 --json
expect_jq "-i selects by UUID" '.gpus | length == 1 and .[0].index == 0' "$TMP/out"
expect_exit "status -i bus id" 0 "$GPUVET" --replay "$BASE" status -i 00:07.0 --json
expect_jq "-i selects by bus id" '.gpus | length == 1 and .[0].index == 1' "$TMP/out"
expect_exit "status -i out of range" 4 "$GPUVET" --replay "$BASE" status -i 7
expect_grep "-i out of range message" "no GPU matches '7'" "$TMP/err"

# nvidia-smi's own spelling: header units, values with units, [N/A] for unsupported
expect_exit "query csv" 0 "$GPUVET" --replay "$BASE" status --query=index,name,pci.bus_id,memory.total,power.draw,utilization.gpu,clocks.current.sm,fan.speed,pstate,ecc.mode.current,clocks_throttle_reasons.gpu_idle --format=csv
cat >"$TMP/want" <<EOW
index, name, pci.bus_id, memory.total [MiB], power.draw [W], utilization.gpu [%], clocks.current.sm [MHz], fan.speed [%], pstate, ecc.mode.current, clocks_throttle_reasons.gpu_idle
0, NVIDIA H200, 00000000:00:06.0, 143771 MiB, 81.28 W, 0 %, 345 MHz, [N/A], P0, Enabled, Active
1, NVIDIA H200, 00000000:00:07.0, 143771 MiB, 78.49 W, 0 %, 345 MHz, [N/A], P0, Enabled, Active
EOW
if diff -u "$TMP/want" "$TMP/out" >"$TMP/diff"; then pass "query csv matches nvidia-smi's format"; else
	fail "query csv matches nvidia-smi's format" "$(head -c 600 "$TMP/diff")"; fi
expect_exit "query noheader,nounits" 0 "$GPUVET" --replay "$BASE" status --query-gpu=memory.used,temperature.gpu --format=csv,noheader,nounits
printf '0, 40\n0, 39\n' >"$TMP/want"
if diff -u "$TMP/want" "$TMP/out" >/dev/null; then pass "query noheader,nounits"; else fail "query noheader,nounits" "$(cat "$TMP/out")"; fi
expect_exit "query unknown field" 4 "$GPUVET" --replay "$BASE" status --query bogus.field
expect_grep "query unknown field message" "unknown field 'bogus.field'" "$TMP/err"
expect_exit "format without query" 4 "$GPUVET" --replay "$BASE" status --format csv
expect_exit "bad format option" 4 "$GPUVET" --replay "$BASE" status --query index --format xml
expect_exit "help-query" 0 "$GPUVET" status --help-query
expect_grep "help-query lists nvidia-smi names" '^temperature\.gpu ' "$TMP/out"

# A --query of only the table's readings takes the table's lighter probe: each field reads the
# same there as next to a field that needs the full probe (serial).
"$GPUVET" status --help-query | awk 'NR > 1 && /^$/ { exit } NR > 1 { print ($1 == "-" ? $2 : $1) }' |
	grep -v '^timestamp$' >"$TMP/fields"
bad=""
while read -r fld; do
	"$GPUVET" --replay "$BASE" status --query "$fld" --format csv,noheader >"$TMP/q1" 2>&1
	"$GPUVET" --replay "$BASE" status --query "$fld,serial" --format csv,noheader 2>&1 |
		sed 's/, [^,]*$//' >"$TMP/q2"
	cmp -s "$TMP/q1" "$TMP/q2" || bad="$bad $fld"
done <"$TMP/fields"
if [ -z "$bad" ] && [ "$(wc -l <"$TMP/fields")" -gt 50 ]; then
	pass "every --query field reads the same with the light and the full probe"
else
	fail "every --query field reads the same with the light and the full probe" "differ:$bad"
fi
# a lost GPU is a non-zero exit for scripts that read only that (issue 10): every GPU is still
# shown; a selection without the lost GPU is fine
L="$SCEN/faults/row10-gpu-lost.json"
expect_exit "a lost GPU: status exits 2" 2 "$GPUVET" --replay "$L" status
expect_grep "a lost GPU: still shown" "GPU is lost" "$TMP/out"
expect_exit "a lost GPU: status --json exits 2" 2 "$GPUVET" --replay "$L" status --json
expect_exit "a lost GPU not selected: status -i 0 exits 0" 0 "$GPUVET" --replay "$L" status -i 0
done_testing
