# signals.sh: Ctrl-C (SIGINT) and SIGTERM end every long-running command with exit 130
# (docs/exit-codes.md), and a replayed command stopped by SIGINT, SIGTERM, SIGHUP or SIGPIPE
# leaves nothing behind in /dev/shm or $TMPDIR (issue 10, bug 6: replays used to unpack there).
#
# A command is made long-running by a replay that hangs: faults/driver-hang.json has a driver
# call that never returns, so doctor, status, topo, record and top --once wait on the watchdog
# (20 s) and are stopped while they wait; watch runs until stopped. bench on the fake GPUs is
# checked the same way in bench_fakegpu.sh (SIGINT and SIGTERM: 130, partial results).
. "$TOP/tests/cli/lib.sh"
HANG="$SCEN/faults/driver-hang.json"
MON="$SCEN/monitor/x2.json"

# stop NAME SIG WANT CMD...: run CMD in the background, send SIG once it is running, and
# compare its exit status with WANT
stop() {
	name=$1 sig=$2 want=$3
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	sleep 1
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid"
	got=$?
	if [ "$got" -eq "$want" ]; then
		pass "$name: SIG$sig exits $want"
		return
	fi
	fail "$name: SIG$sig exits $want" "exit $got; stderr: $(head -c 200 "$TMP/err")"
}

mkdir "$TMP/rec"
for sig in INT TERM; do
	stop "doctor on a hung driver" $sig 130 "$GPUVET" --replay "$HANG" doctor
	stop "doctor --json on a hung driver" $sig 130 "$GPUVET" --replay "$HANG" doctor --json
	stop "status on a hung driver" $sig 130 "$GPUVET" --replay "$HANG" status
	stop "topo on a hung driver" $sig 130 "$GPUVET" --replay "$HANG" topo
	stop "top --once on a hung driver" $sig 130 "$GPUVET" --replay "$HANG" top --once
	stop "record on a hung driver" $sig 130 "$GPUVET" --replay "$HANG" record "$TMP/rec/r.json"
	stop "record - on a hung driver" $sig 130 "$GPUVET" --replay "$HANG" record -
	stop "watch" $sig 130 "$GPUVET" --replay "$MON" watch
	stop "watch --json" $sig 130 "$GPUVET" --replay "$MON" watch --json
	if "$GPUVET" status --help 2>/dev/null | grep -qE '^ +-l[ ,]'; then
		stop "status -l" $sig 130 "$GPUVET" --replay "$MON" status -l 1
	else
		skip "status -l: SIG$sig exits 130: this status has no -l (another helper adds it)"
	fi
done
if [ -z "$(ls -A "$TMP/rec")" ]; then pass "record stopped: no file or temporary left in its folder"; else
	fail "record stopped: no file or temporary left in its folder" "$(ls -A "$TMP/rec")"; fi

# nothing left behind: every way a replayed command can be stopped, with TMPDIR a folder of our
# own (it must stay empty) and /dev/shm compared by name before and after (other programs use
# it too: only a new entry of ours, named gpuvet*, or owned by us and new, counts)
mkdir "$TMP/tmpdir"
shm_list() {
	if [ -d /dev/shm ]; then find /dev/shm -mindepth 1 -maxdepth 1 -user "$(id -u)" 2>/dev/null | sort; fi
}
shm_list >"$TMP/shm.before"
for sig in INT TERM HUP PIPE; do
	TMPDIR="$TMP/tmpdir" "$GPUVET" --replay "$HANG" doctor >/dev/null 2>&1 &
	pid=$!
	sleep 1
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid"
	TMPDIR="$TMP/tmpdir" "$GPUVET" --replay "$MON" watch >/dev/null 2>&1 &
	pid=$!
	sleep 1
	kill -"$sig" "$pid" 2>/dev/null
	sleep 0.2
	kill -KILL "$pid" 2>/dev/null # watch ignores SIGPIPE (its readers are checked by writing)
	wait "$pid"
	if [ -z "$(ls -A "$TMP/tmpdir")" ]; then pass "SIG$sig: nothing left in \$TMPDIR"; else
		fail "SIG$sig: nothing left in \$TMPDIR" "$(ls -A "$TMP/tmpdir" | head -3)"; fi
done
# a reader that goes away, as `watch | head -1` does
TMPDIR="$TMP/tmpdir" timeout 10 sh -c '"$1" --replay "$2" watch | head -1' sh "$GPUVET" "$MON" >/dev/null 2>&1
if [ -z "$(ls -A "$TMP/tmpdir")" ]; then pass "reader gone: nothing left in \$TMPDIR"; else
	fail "reader gone: nothing left in \$TMPDIR" "$(ls -A "$TMP/tmpdir" | head -3)"; fi
# unset, TMPDIR falls back to /tmp, and the old unpacking went to /dev/shm: both compared
env -u TMPDIR "$GPUVET" --replay "$HANG" doctor >/dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM "$pid" 2>/dev/null
wait "$pid"
shm_list >"$TMP/shm.after"
new=$(comm -13 "$TMP/shm.before" "$TMP/shm.after" | grep -i gpuvet)
if [ -z "$new" ]; then pass "no gpuvet folder left in /dev/shm"; else
	fail "no gpuvet folder left in /dev/shm" "$(echo "$new" | head -3)"; fi
leftover=$(find /tmp -maxdepth 1 -name 'gpuvet-replay-*' -newer "$TMP/shm.before" 2>/dev/null | head -3)
if [ -z "$leftover" ]; then pass "no gpuvet-replay folder left in /tmp"; else
	fail "no gpuvet-replay folder left in /tmp" "$leftover"; fi
done_testing
