# scenarios.sh: every fault scenario in tests/scenarios/faults/ yields its findings and exit
# code. Each scenario carries "expect": {"exit": N, "findings": {"id": "severity"},
# "absent": ["id"], "env": {"VAR": "value"}, "status_exit": N}; see docs/scenarios.md.
. "$TOP/tests/cli/lib.sh"

for f in "$SCEN"/faults/*.json; do
	name=$(basename "$f" .json)
	want=$(jq -r '.expect.exit // 0' "$f")
	envs=$(jq -r '(.expect.env // {}) | to_entries[] | "\(.key)=\(.value)"' "$f")
	# shellcheck disable=SC2086
	env $envs "$GPUVET" --replay "$f" doctor --json >"$TMP/out.json" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$want" ]; then pass "$name: doctor exits $want"; else
		fail "$name: doctor exits $want" "got $got: $(head -c 300 "$TMP/err")"; fi
	jq -r '(.expect.findings // {}) | to_entries[] | "\(.key) \(.value)"' "$f" |
	while read -r id sev; do
		if jq -e --arg id "$id" --arg sev "$sev" \
			'[.findings[] | select(.id == $id) | .severity] | index($sev) != null' \
			"$TMP/out.json" >/dev/null 2>&1; then
			pass "$name: $id is $sev"
		else
			fail "$name: $id is $sev" "found: $(jq -c --arg id "$id" '[.findings[] | select(.id == $id) | .severity]' "$TMP/out.json" 2>/dev/null)"
		fi
	done
	jq -r '(.expect.absent // [])[]' "$f" | while read -r id; do
		if jq -e --arg id "$id" '[.findings[] | select(.id == $id)] | length == 0' \
			"$TMP/out.json" >/dev/null 2>&1; then pass "$name: no $id"; else
			fail "$name: no $id"; fi
	done
	# the human report of the same machine: same exit code, no crash, fits 100 columns
	env $envs COLUMNS=100 "$GPUVET" --replay "$f" doctor >"$TMP/out.txt" 2>"$TMP/err"
	got=$?
	width=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/out.txt")
	if [ "$got" -eq "$want" ] && [ "$width" -le 100 ]; then pass "$name: human report"; else
		fail "$name: human report" "exit $got, widest line $width"; fi
	swant=$(jq -r '.expect.status_exit // 0' "$f")
	env $envs "$GPUVET" --replay "$f" status >"$TMP/status.txt" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$swant" ]; then pass "$name: status exits $swant"; else
		fail "$name: status exits $swant" "got $got: $(head -c 300 "$TMP/err")"; fi
done
