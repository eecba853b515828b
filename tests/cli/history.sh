# history.sh: `gpuvet history` and the writers' --history on replayed scenarios: doctor's runs
# and findings, the output and exit code unchanged by storing, GPUVET_HISTORY=1, cards that
# appear and move between slots and hosts, the card-or-slot verdict, watch's events (throttle
# episodes, a GPU lost), bench and burn figures on the fake GPUs with their trend, events since
# a date, retention past the limit, bad command lines.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
need_tool sqlite3 "the stored rows"
DB="$TMP/h.db"
H="$SCEN/h200x2.json"
M="$SCEN/monitor"
S0=0000000000000
S1=0000000000001

# a scenario: the pair with its two cards swapped (and, with $3, on another host), derived from $2
swapped() {
	host=
	[ -n "${3:-}" ] && host=", \"uname\": {\"machine\": \"x86_64\", \"nodename\": \"$3\", \"release\": \"6.8.0\", \"sysname\": \"Linux\", \"version\": \"#1\"}"
	cat >"$TMP/$1" <<EOS
{"gpuvet_recording": 1, "derive": "$2", "description": "the cards swapped"$host,
 "nvml": {"devices": {
  "0": {"nvmlDeviceGetSerial": [0, "$S1"], "nvmlDeviceGetUUID": [0, "GPU-00000000-0000-0000-0000-000000000001"]},
  "1": {"nvmlDeviceGetSerial": [0, "$S0"], "nvmlDeviceGetUUID": [0, "GPU-00000000-0000-0000-0000-000000000000"]}}}}
EOS
}
# out_same NAME A B: two doctor outputs are the same but for the run's duration on the last line
out_same() {
	sed 's/ in [0-9.]* s$//' "$2" >"$TMP/a.cmp"
	sed 's/ in [0-9.]* s$//' "$3" >"$TMP/b.cmp"
	if cmp -s "$TMP/a.cmp" "$TMP/b.cmp"; then pass "$1"; else fail "$1" "$(diff "$TMP/a.cmp" "$TMP/b.cmp" | head -5)"; fi
}

# no database yet
expect_exit "history without a database (exit 5)" 5 "$GPUVET" history --db "$DB"
expect_grep "it says there is none" "no history database at '.*h.db'" "$TMP/err"
[ ! -e "$DB" ] && pass "reading creates no database" || fail "reading creates no database"

# doctor: stored, output and exit code unchanged
expect_exit "doctor" 0 "$GPUVET" --replay "$H" doctor
cp "$TMP/out" "$TMP/plain.out"
expect_exit "doctor --history" 0 "$GPUVET" --replay "$H" doctor --history="$DB"
out_same "doctor's output is the same with --history" "$TMP/plain.out" "$TMP/out"
[ ! -s "$TMP/err" ] && pass "nothing on stderr when it is stored" || fail "nothing on stderr" "$(head -c 300 "$TMP/err")"
expect_exit "history --json" 0 "$GPUVET" history --db "$DB" --json
expect_jq "one doctor run, ok" '.runs | length == 1 and .[0].kind == "doctor" and .[0].verdict == "ok" and .[0].host == "scrubbed-host" and .[0].exit_code == 0' "$TMP/out"
expect_jq "two cards appeared" '[.events[] | select(.kind == "appeared")] | length == 2' "$TMP/out"
expect_jq "events carry serial, UUID and slot" '[.events[] | .serial != null and (.uuid | startswith("GPU-")) and (.pci_slot | test("^0000:00:0[67].0$"))] | all' "$TMP/out"
expect_jq "times are ISO 8601 UTC" '.runs[0].time | test("^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:]{8}Z$")' "$TMP/out"
doc=$(sqlite3 "$DB" "SELECT doc FROM runs WHERE id = 1")
if printf '%s' "$doc" | jq -e '.result == "ok" and (.findings | length) > 3' >/dev/null 2>&1; then
	pass "the run keeps doctor's JSON document"; else fail "the run keeps doctor's JSON document"; fi

# GPUVET_HISTORY=1 and GPUVET_HISTORY_DB: a failing GPU 0 (remap pending)
GPUVET_HISTORY=1 GPUVET_HISTORY_DB="$DB" expect_exit "GPUVET_HISTORY=1 doctor (exit 2 as without)" 2 \
	"$GPUVET" --replay "$SCEN/faults/row23-remap-pending.json" doctor
expect_exit "history text" 0 "$GPUVET" history --db "$DB"
expect_grep "runs newest first" "^  [0-9T:Z-]+  scrubbed-host  doctor  fail +exit 2$" "$TMP/out"
expect_exit "history gpu S0" 0 "$GPUVET" history --db "$DB" gpu $S0 --json
expect_jq "the finding is on the card's timeline" '[.timeline[] | select(.what == "doctor fail" and (.detail | startswith("health.remap_pending")))] | length == 1' "$TMP/out"
expect_jq "one slot, undecided" '.placements | length == 1 and .[0].pci_slot == "0000:00:06.0"' "$TMP/out"
expect_jq "verdict undecided" '.verdict.answer == "undecided"' "$TMP/out"

# the cards swap slots, then S0 has errors again in its new slot: the fault follows the card;
# and on S1's side, its old slot 06 now has errors with S0: S1 looks clean
swapped swap.json "$H"
swapped swap-fault.json "$SCEN/faults/row23-remap-failure.json"
expect_exit "doctor on the swapped pair" 0 "$GPUVET" --replay "$TMP/swap.json" doctor --history="$DB"
expect_exit "doctor on the swapped pair, GPU 1 failing" 2 "$GPUVET" --replay "$TMP/swap-fault.json" doctor --history="$DB"
expect_exit "history events --kind slot_change" 0 "$GPUVET" history --db "$DB" events --kind slot_change --json
expect_jq "both cards moved" '[.events[].detail] | sort == ["moved from slot 0000:00:06.0 to slot 0000:00:07.0", "moved from slot 0000:00:07.0 to slot 0000:00:06.0"]' "$TMP/out"
expect_exit "history gpu S0 (card)" 0 "$GPUVET" history --db "$DB" gpu $S0
expect_grep "card: the errors followed it" "^card or slot\? card: the errors followed the card to another slot$" "$TMP/out"
expect_grep "two slots named" "^  - the card had errors in 2 slots$" "$TMP/out"
expect_grep "slots listed" "^  scrubbed-host 0000:00:07.0  from " "$TMP/out"
expect_exit "history gpu by UUID" 0 "$GPUVET" history --db "$DB" gpu GPU-00000000-0000-0000-0000-000000000001 --json
expect_jq "S1 had no errors" '.gpu.serial == "'$S1'" and .verdict.answer == "none"' "$TMP/out"
expect_exit "history gpu unknown (exit 5)" 5 "$GPUVET" history --db "$DB" gpu 999
expect_grep "no such GPU" "no GPU with serial or UUID '999' in the history" "$TMP/err"

# a second host: S1 goes to node-b's slot 07, where it fails; node-b's slot 07 had no other
# card: the card moved, clean before; S1's errors in one slot: undecided on its own ... until
# S0's slot 07 on scrubbed-host is compared: another card's errors in a slot S1 used
swapped nodeb.json "$SCEN/faults/row23-remap-failure.json" node-b
# on node-b GPU 1 (slot 07) is S0 again in this derived pair: move S1 there instead
sed -i "s/\"0\": {\"nvmlDeviceGetSerial\": \[0, \"$S1\"\]/\"0\": {\"nvmlDeviceGetSerial\": [0, \"$S0\"]/; s/\"1\": {\"nvmlDeviceGetSerial\": \[0, \"$S0\"\]/\"1\": {\"nvmlDeviceGetSerial\": [0, \"$S1\"]/; s/\"0\": \(.*\)-000000000001\"\]}/\"0\": \1-000000000000\"]}/; s/\"1\": \(.*\)-000000000000\"\]}/\"1\": \1-000000000001\"]}/" "$TMP/nodeb.json"
expect_exit "doctor on node-b" 2 "$GPUVET" --replay "$TMP/nodeb.json" doctor --history="$DB"
expect_exit "history gpu S1 across hosts" 0 "$GPUVET" history --db "$DB" gpu $S1 --json
expect_jq "S1 moved to node-b" '[.timeline[] | select(.what == "slot_change") | .detail] | any(. == "moved from scrubbed-host slot 0000:00:06.0 to node-b slot 0000:00:07.0")' "$TMP/out"
expect_jq "S1's slots on two hosts" '[.placements[].host] | unique == ["node-b", "scrubbed-host"]' "$TMP/out"
expect_jq "S1: errors in one slot, clean in the others: slot" '.verdict.answer == "slot" and (.verdict.error_slots | length == 1 and .[0].host == "node-b")' "$TMP/out"
expect_exit "history gpu S0 (slot 07 shared)" 0 "$GPUVET" history --db "$DB" gpu $S0 --json
expect_jq "S0: followed the card, and its slot had another card's errors" '.verdict.answer == "card" or .verdict.answer == "both"' "$TMP/out"

# watch --history: the throttle episode under way, then GPU 1 lost
expect_exit "watch --history on throttling" 0 "$GPUVET" --replay "$M/throttle.json" watch -c 2 -d 0.2 --history="$DB"
expect_exit "watch --history on a lost GPU" 0 "$GPUVET" --replay "$M/lost.json" watch -c 14 -d 0.2 --history="$DB" --json
expect_jq "watch's JSON lines unchanged" '.kind == "gpu"' "$TMP/out"
expect_exit "history events --since 1h" 0 "$GPUVET" history --db "$DB" events --since 1h --json
expect_jq "the throttle episode" '[.events[] | select(.kind == "throttle" and .serial == "'$S0'" and .detail == "hw_thermal started (active when sampling began)")] | length == 1' "$TMP/out"
expect_jq "GPU 1 lost, once" '[.events[] | select(.kind == "lost")] | length == 1 and .[0].pci_slot == "0000:00:07.0" and (.[0].detail | startswith("lost: "))' "$TMP/out"
expect_jq "oldest first" '[.events[].time] | . == sort' "$TMP/out"
expect_exit "history events --since a future date" 0 "$GPUVET" history --db "$DB" events --since 2099-01-01
expect_grep "none since" "^no events since 2099-01-01T00:00:00Z$" "$TMP/out"
expect_exit "history events -n 2" 0 "$GPUVET" history --db "$DB" events -n 2 --json
expect_jq "the newest two" '.events | length == 2' "$TMP/out"

# bench and burn on the fake GPUs: figures per card, and their trend
(
	fake_gpus "history"
	B="memory --quick --size 1M --time-budget 0.01"
	"$GPUVET" bench $B --history="$DB" >"$TMP/b1.out" 2>&1 && "$GPUVET" bench $B --history="$DB" --json >"$TMP/b2.out" 2>&1
	echo "bench $?" >"$TMP/fake.rc"
	GPUVET_BURN_INJECT=bitflip:1 "$GPUVET" burn --duration 1 --memory-fraction 0.002 --history="$DB" >"$TMP/burn.out" 2>&1
	echo "burn $?" >>"$TMP/fake.rc"
)
expect_grep "bench --history twice" "^bench 0$" "$TMP/fake.rc"
expect_grep "burn --history (a GPU fails: exit 2)" "^burn 2$" "$TMP/fake.rc"
expect_jq "bench --json unchanged by --history" '.results | length > 0' "$TMP/b2.out"
# two runs: make the trend known, first 4210 GB/s on 2026-03-01, then 3705 a month later
sqlite3 "$DB" "UPDATE results SET value = CASE WHEN run_id = (SELECT min(id) FROM runs WHERE kind = 'bench') THEN 4210 ELSE 3705 END, time = CASE WHEN run_id = (SELECT min(id) FROM runs WHERE kind = 'bench') THEN 1772366400 ELSE 1775044800 END WHERE family = 'memory' AND key = 'copy_kernel'"
expect_exit "history bench" 0 "$GPUVET" history --db "$DB" bench --family memory
expect_grep "down 12 % since March" "^GPU serial unknown \(vm 0000:10:00.0\) memory copy_kernel: 4210 -> 3705 GB/s, down 12 % since 2026-03-01 \(2 runs\)$" "$TMP/out"
expect_exit "history bench --json --since" 0 "$GPUVET" history --db "$DB" bench --family memory --since 2026-03-15 --json
expect_jq "since cuts the first point" '[.trends[] | select(.key == "copy_kernel")] | length == 2 and all(.n == 1 and (has("change_pct") | not) or .n == 1)' "$TMP/out"
expect_exit "history bench --family burn" 0 "$GPUVET" history --db "$DB" bench --family burn --json
expect_jq "burn figures per GPU" '[.trends[] | select(.key == "tflops")] | length == 2' "$TMP/out"
expect_jq "burn's failing GPU counted its compare errors" '[.trends[] | select(.key == "compare_errors" and .pci_slot == "0000:11:00.0") | .last.value] == [1]' "$TMP/out"
n=$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE kind = 'burn' AND verdict = 'fail' AND exit_code = 2")
[ "$n" = 1 ] && pass "burn's run: fail, exit 2" || fail "burn's run: fail, exit 2" "$n"

# retention: limits kept in the database, applied by every later write
expect_exit "history prune --max-rows 3" 0 "$GPUVET" history --db "$DB" prune --max-rows 3 --json
expect_jq "prune removed rows and says the limits" '.deleted > 0 and .max_rows == 3 and .max_age_days == 365' "$TMP/out"
for i in 1 2 3 4 5 6; do "$GPUVET" --replay "$H" doctor --history="$DB" >/dev/null 2>&1; done
n=$(sqlite3 "$DB" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM events) || ' ' || (SELECT count(*) FROM results)")
# the bench and burn runs went, and their figures with them (ON DELETE CASCADE)
[ "$n" = "3 3 0" ] && pass "six more runs, still 3 rows per table" || fail "six more runs, still 3 rows per table" "$n"
expect_exit "history vacuum" 0 "$GPUVET" history --db "$DB" vacuum
expect_grep "vacuum says the sizes" "^vacuumed .*h.db: [0-9]+ bytes before, [0-9]+ after$" "$TMP/out"
ic=$(sqlite3 "$DB" "PRAGMA integrity_check")
[ "$ic" = ok ] && pass "integrity_check ok" || fail "integrity_check ok" "$ic"
v=$(sqlite3 "$DB" "SELECT max(version) FROM schema_version")
[ "$v" = 2 ] && pass "schema version 2" || fail "schema version 2" "$v"

# bad command lines
expect_exit "bad --since (exit 4)" 4 "$GPUVET" history --db "$DB" events --since yesterday
expect_exit "bad --kind (exit 4)" 4 "$GPUVET" history --db "$DB" events --kind bogus
expect_exit "unknown subcommand (exit 4)" 4 "$GPUVET" history --db "$DB" frob
expect_exit "gpu without a serial (exit 4)" 4 "$GPUVET" history --db "$DB" gpu
expect_exit "--max-rows without prune (exit 4)" 4 "$GPUVET" history --db "$DB" --max-rows 5
expect_exit "a database from a newer gpuvet (exit 3)" 3 sh -c "sqlite3 '$DB' 'INSERT INTO schema_version VALUES (99, 0)' && '$GPUVET' history --db '$DB'"
expect_grep "newer schema said" "schema version 99, newer than this gpuvet's" "$TMP/err"
done_testing
