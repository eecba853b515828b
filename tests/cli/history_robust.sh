# history_robust.sh: storing into the history never changes a command's output or exit code:
# a database another writer holds (busy timeout, then a warning; watch keeps its events and
# stores them once the lock is gone), a full disk (a tiny tmpfs when this machine lets us mount
# one, else a file size limit), a folder that cannot be created, a file that is not a database.
# The kill -9 test is tests/unit/test_history_crash.c.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
need_tool sqlite3 "holding a write lock"
DB="$TMP/h.db"
H="$SCEN/h200x2.json"
M="$SCEN/monitor"
export GPUVET_HISTORY_BUSY_MS=300

# out_same NAME A B: two doctor outputs are the same but for the run's duration on the last line
out_same() {
	sed 's/ in [0-9.]* s$//' "$2" >"$TMP/a.cmp"
	sed 's/ in [0-9.]* s$//' "$3" >"$TMP/b.cmp"
	if cmp -s "$TMP/a.cmp" "$TMP/b.cmp"; then pass "$1"; else fail "$1" "$(diff "$TMP/a.cmp" "$TMP/b.cmp" | head -5)"; fi
}
# hold_lock SECONDS: another process holds a write transaction on $DB for that long; returns once
# it does
hold_lock() {
	(echo "BEGIN IMMEDIATE;"; echo "INSERT INTO settings VALUES ('lock', '1');"; sleep "$1"; echo "ROLLBACK;") |
		sqlite3 "$DB" >/dev/null 2>&1 &
	locker=$!
	i=0
	while [ $i -lt 150 ]; do
		sqlite3 "$DB" "PRAGMA busy_timeout = 0; BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1 || return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

expect_exit "doctor, plain" 2 "$GPUVET" --replay "$SCEN/faults/row23-remap-pending.json" doctor
cp "$TMP/out" "$TMP/plain.out"
expect_exit "doctor --history makes the database" 2 "$GPUVET" --replay "$SCEN/faults/row23-remap-pending.json" doctor --history="$DB"

# a locked database: the busy timeout, then one warning; output and exit code as without
if hold_lock 4; then pass "another process holds the write lock"; else fail "another process holds the write lock"; fi
start=$(date +%s%N)
expect_exit "doctor --history on a locked database (exit 2, as without)" 2 \
	"$GPUVET" --replay "$SCEN/faults/row23-remap-pending.json" doctor --history="$DB"
took=$((($(date +%s%N) - start) / 1000000))
out_same "locked: the output is the same" "$TMP/plain.out" "$TMP/out"
expect_grep "locked: a warning" "^gpuvet: warning: history not stored: history database '.*h.db': starting a write: database is locked$" "$TMP/err"
expect_grep "locked: the hint" "^gpuvet: hint: another process holds a write transaction on it; nothing was stored$" "$TMP/err"
n=$(wc -l <"$TMP/err")
[ "$n" = 2 ] && pass "locked: two lines on stderr" || fail "locked: two lines on stderr" "$n"
[ "$took" -lt 3000 ] && pass "locked: gave up after the busy timeout ($took ms)" || fail "locked: gave up after the busy timeout" "$took ms"
wait "$locker" 2>/dev/null
n=$(sqlite3 "$DB" "SELECT count(*) FROM runs")
[ "$n" = 1 ] && pass "locked: nothing half-stored" || fail "locked: nothing half-stored" "$n runs"

# watch: its first writes meet the lock; the events wait in memory and go in afterwards
if hold_lock 1.5; then pass "the lock again"; else fail "the lock again"; fi
expect_exit "watch --history on a locked database" 0 "$GPUVET" --replay "$M/throttle.json" watch -c 10 -d 0.3 --history="$DB" --json
n=$(grep -c '"kind": *"gpu"' "$TMP/out")
[ "$n" = 20 ] && pass "watch: every line printed" || fail "watch: every line printed" "$n"
n=$(grep -c "^gpuvet: warning: history not stored: .*database is locked" "$TMP/err")
[ "$n" = 1 ] && pass "watch: one warning while locked" || fail "watch: one warning while locked" "$n: $(head -c 300 "$TMP/err")"
wait "$locker" 2>/dev/null
n=$(sqlite3 "$DB" "SELECT count(*) FROM events WHERE kind = 'throttle' AND detail LIKE 'hw_thermal started%'")
[ "$n" = 1 ] && pass "watch: the event stored once the lock went" || fail "watch: the event stored once the lock went" "$n"

# a full disk
full_db=
if [ "$(id -u)" = 0 ] && mkdir -p "$TMP/mnt" && mount -t tmpfs -o size=1m tmpfs "$TMP/mnt" 2>/dev/null; then
	trap 'umount "$TMP/mnt" 2>/dev/null; rm -rf "$TMP"' EXIT
	full_db="$TMP/mnt/h.db"
	"$GPUVET" --replay "$H" doctor --history="$full_db" >/dev/null 2>&1
	dd if=/dev/zero of="$TMP/mnt/fill" bs=4k >/dev/null 2>&1 # until the disk is full
	expect_exit "doctor --history on a full disk (tmpfs)" 2 "$GPUVET" --replay "$SCEN/faults/row23-remap-pending.json" doctor --history="$full_db"
	out_same "full: the output is the same" "$TMP/plain.out" "$TMP/out"
	expect_grep "full: a warning" "^gpuvet: warning: history not stored: .*(full|disk I/O error)" "$TMP/err"
	rm -f "$TMP/mnt/fill"
	expect_exit "doctor --history once there is room" 2 "$GPUVET" --replay "$SCEN/faults/row23-remap-pending.json" doctor --history="$full_db"
	[ ! -s "$TMP/err" ] && pass "full: stored once there is room" || fail "full: stored once there is room" "$(head -c 300 "$TMP/err")"
	ic=$(sqlite3 "$full_db" "PRAGMA integrity_check; SELECT count(*) FROM runs")
	[ "$ic" = "ok
2" ] && pass "full: the database intact, both stored runs there" || fail "full: the database intact" "$ic"
else
	# no mount here: a file size limit fails the writes the same way (EFBIG, SIGXFSZ ignored)
	full_db="$TMP/full.db"
	(trap '' XFSZ; ulimit -f 16; exec "$GPUVET" --replay "$SCEN/faults/row23-remap-pending.json" doctor --history="$full_db") >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" = 2 ] && pass "doctor --history past the file size limit (exit 2)" || fail "doctor --history past the file size limit" "exit $rc"
	out_same "full: the output is the same" "$TMP/plain.out" "$TMP/out"
	expect_grep "full: a warning" "^gpuvet: warning: history not stored: " "$TMP/err"
fi

# a folder that cannot be made, a file that is not a database
expect_exit "doctor --history in /proc (exit 2, as without)" 2 "$GPUVET" --replay "$SCEN/faults/row23-remap-pending.json" doctor --history=/proc/gpuvet-none/h.db
out_same "unwritable: the output is the same" "$TMP/plain.out" "$TMP/out"
expect_grep "unwritable: a warning" "^gpuvet: warning: history not stored: cannot create the folder '/proc/gpuvet-none'" "$TMP/err"
printf 'this is not a database, and it is long enough to have a header of sorts.............\n' >"$TMP/garbage.db"
expect_exit "doctor --history into a file that is no database" 2 "$GPUVET" --replay "$SCEN/faults/row23-remap-pending.json" doctor --history="$TMP/garbage.db"
expect_grep "not a database: a warning" "^gpuvet: warning: history not stored: .*file is not a database" "$TMP/err"
expect_grep "not a database: the hint" "^gpuvet: hint: move the file away" "$TMP/err"
# watch says at once when its database cannot be opened: nothing is sampled
expect_exit "watch --history in /proc (exit 3)" 3 "$GPUVET" --replay "$M/x2.json" watch -c 1 --history=/proc/gpuvet-none/h.db
[ ! -s "$TMP/out" ] && pass "watch: nothing printed" || fail "watch: nothing printed"
done_testing
