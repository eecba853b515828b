# scenarios.sh: every fault scenario in tests/scenarios/faults/ (and every top-level scenario
# that carries an "expect", such as the healthy bare-metal variant) yields its findings and
# exit code. Each scenario carries "expect": {"exit": N, "findings": {"id": "severity"},
# "absent": ["id"], "echo_of": {"id": "cause-id" or null}, "gpus": {"id": [index, ...]},
# "fix_has", "summary_has", "evidence_has": {"id": ["text", ...]}, "report_has",
# "report_once", "report_lacks": ["text", ...], "env": {"VAR": "value"}, "status_exit": N};
# see docs/scenarios.md. The scenarios in
# tests/scenarios/known-gaps/ state what doctor should say but does not yet: they are run too
# and reported as SKIP lines.
. "$TOP/tests/cli/lib.sh"
need_tool jq "each scenario's expectations"

# vis TEXT: TEXT with its control bytes shown (^[), for the names of checks
vis() { printf '%s' "$1" | cat -v; }

KEYS="exit status_exit env findings absent echo_of gpus fix_has summary_has evidence_has
report_has report_once report_lacks"
KEYS=$(echo $KEYS)

# texts_in KEY WHAT FIELD: for each "id": ["text", ...] of the scenario's .expect[KEY], a check
# that a finding with that id holds the text in FIELD (a jq path to strings); uses $f, $name
texts_in() {
	jq -r --arg k "$1" '(.expect[$k] // {}) | to_entries[] | .key as $id | .value[] | "\($id) \(.)"' "$f" |
	while IFS= read -r line; do
		id=${line%% *}
		text=${line#* }
		if jq -e --arg id "$id" --arg t "$text" \
			"[.findings[] | select(.id == \$id) | $3] | any(contains(\$t))" \
			"$TMP/out.json" >/dev/null 2>&1; then pass "$name: $id $2 holds $(vis "$text")"; else
			fail "$name: $id $2 holds $(vis "$text")" "found: $(jq -c --arg id "$id" "[.findings[] | select(.id == \$id) | $3]" "$TMP/out.json" 2>/dev/null | cat -v)"; fi
	done
}

# check_scenario FILE: the PASS/FAIL lines of one scenario's expectations
check_scenario() {
	f=$1
	name=$(basename "$f" .json)
	# a misspelt key would check nothing: every key must be one this runner knows
	bad=$(jq -r --arg k "$KEYS" '(.expect | keys) - ($k | split(" ")) | join(" ")' "$f")
	if [ -z "$bad" ]; then pass "$name: expectation keys known"; else
		fail "$name: expectation keys known" "unknown: $bad"; fi
	want=$(jq -r '.expect.exit // 0' "$f")
	envs=$(jq -r '(.expect.env // {}) | to_entries[] | "\(.key)=\(.value)"' "$f")
	# shellcheck disable=SC2086
	env $envs "$GPUVET" --replay "$f" doctor --json >"$TMP/out.json" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$want" ]; then pass "$name: doctor exits $want"; else
		fail "$name: doctor exits $want" "got $got: $(head -c 300 "$TMP/err" | tr '\n' ' ')"; fi
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
	# "echo_of": every finding with that id is folded under that cause (null: none of them
	# is an echo, it is a cause of its own)
	jq -r '(.expect.echo_of // {}) | to_entries[] | "\(.key) \(.value // "null")"' "$f" |
	while read -r id cause; do
		if jq -e --arg id "$id" --arg c "$cause" \
			'[.findings[] | select(.id == $id) | (.echo_of // "null")] as $e |
			 ($e | length) > 0 and all($e[]; . == $c)' "$TMP/out.json" >/dev/null 2>&1; then
			pass "$name: $id echoes $cause"
		else
			fail "$name: $id echoes $cause" "found: $(jq -c --arg id "$id" '[.findings[] | select(.id == $id) | .echo_of]' "$TMP/out.json" 2>/dev/null)"
		fi
	done
	# "gpus": the NVML indexes the findings with that id name, all together ([]: only GPUs
	# that NVML does not know, named by their address)
	jq -r '(.expect.gpus // {}) | to_entries[] | "\(.key) \(.value | tojson)"' "$f" |
	while read -r id want; do
		if jq -e --arg id "$id" --argjson w "$want" \
			'[.findings[] | select(.id == $id)] as $m | ($m | length) > 0 and
			 ([$m[] | (.gpus // [])[]] | unique) == ($w | unique)' \
			"$TMP/out.json" >/dev/null 2>&1; then
			pass "$name: $id names GPUs $want"
		else
			fail "$name: $id names GPUs $want" "found: $(jq -c --arg id "$id" '[.findings[] | select(.id == $id) | .gpus]' "$TMP/out.json" 2>/dev/null)"
		fi
	done
	jq -r '(.expect.absent // [])[]' "$f" | while read -r id; do
		if jq -e --arg id "$id" '[.findings[] | select(.id == $id)] | length == 0' \
			"$TMP/out.json" >/dev/null 2>&1; then pass "$name: no $id"; else
			fail "$name: no $id"; fi
	done
	# "fix_has", "summary_has", "evidence_has": a finding with that id has each text, as it
	# is, in its JSON fix text, its summary, one of its evidence lines
	texts_in fix_has fix '.fix.text // empty'
	texts_in summary_has summary '.summary'
	texts_in evidence_has evidence '(.evidence // [])[]'
	# the human report of the same machine: same exit code, no crash, fits 100 columns
	env $envs COLUMNS=100 "$GPUVET" --replay "$f" doctor >"$TMP/out.txt" 2>"$TMP/err"
	got=$?
	width=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/out.txt")
	if [ "$got" -eq "$want" ] && [ "$width" -le 100 ]; then pass "$name: human report"; else
		fail "$name: human report" "exit $got, widest line $width"; fi
	# "report_has" / "report_lacks": texts (fixed strings, within one line: the report wraps at
	# spaces) the human report shows or must never show (a raw escape byte)
	jq -r '(.expect.report_has // [])[]' "$f" | while IFS= read -r text; do
		if grep -Fq -- "$text" "$TMP/out.txt"; then pass "$name: report shows $(vis "$text")"; else
			fail "$name: report shows $(vis "$text")" "$(head -c 300 "$TMP/out.txt" | cat -v)"; fi
	done
	# "report_once": texts on exactly one line of the report (a group printed once)
	jq -r '(.expect.report_once // [])[]' "$f" | while IFS= read -r text; do
		n=$(grep -cF -- "$text" "$TMP/out.txt")
		if [ "$n" -eq 1 ]; then pass "$name: report shows $(vis "$text") once"; else
			fail "$name: report shows $(vis "$text") once" "on $n lines"; fi
	done
	jq -r '(.expect.report_lacks // [])[]' "$f" | while IFS= read -r text; do
		if grep -Fq -- "$text" "$TMP/out.txt"; then
			fail "$name: report never shows $(vis "$text")" \
				"$(grep -F -- "$text" "$TMP/out.txt" | head -2 | cat -v)"
		else pass "$name: report never shows $(vis "$text")"; fi
	done
	swant=$(jq -r '.expect.status_exit // 0' "$f")
	env $envs "$GPUVET" --replay "$f" status >"$TMP/status.txt" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$swant" ]; then pass "$name: status exits $swant"; else
		fail "$name: status exits $swant" "got $got: $(head -c 300 "$TMP/err" | tr '\n' ' ')"; fi
}

for f in "$SCEN"/*.json "$SCEN"/faults/*.json; do
	jq -e 'has("expect")' "$f" >/dev/null 2>&1 || continue
	check_scenario "$f"
done

# known gaps: the first expectation doctor misses, or a reminder to move a met one to faults/
for f in "$SCEN"/known-gaps/*.json; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .json)
	# its checks go to a file, not to run.sh: they are not this script's results
	(RESULTS="$TMP/gap.results"; check_scenario "$f") >"$TMP/gap.txt" 2>&1
	if grep -q '^FAIL' "$TMP/gap.txt"; then
		skip "known gap $name: $(grep -m1 '^FAIL' "$TMP/gap.txt" | cut -c6- | sed "s/^$name: //")"
	else
		skip "known gap $name: doctor now meets it; move it to faults/"
	fi
done
done_testing
