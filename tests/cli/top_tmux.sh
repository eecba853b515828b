# top_tmux.sh: the interactive `gpuvet top` driven in tmux on replayed scenarios: the screen
# at 120x40 and 80x24 for 2, 8 and 16 GPUs, the keys (sort, reverse, filter, help, GPU
# selector, kill with its confirmation, the F6 sort and F9 signal choosers), resizing down to
# 20x5 and back, a GPU lost mid-run, throttling, monochrome, MIG, quitting with q, F10 and Esc
# (exit 0), Ctrl-C and SIGTERM (exit 130), and TERM=dumb (plain frames).
. "$TOP/tests/cli/lib.sh"
M="$SCEN/monitor"

need_tool tmux "the interactive screen"
SOCK="gpuvet-test-$$"
trap 'tmux -L "$SOCK" kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT

# start SESSION WIDTH HEIGHT ENV ARGS...: run gpuvet in a detached tmux window
start() {
	s=$1 w=$2 h=$3 env=$4
	shift 4
	tmux -L "$SOCK" new-session -d -s "$s" -x "$w" -y "$h" \
		"trap : INT TERM; env TERM=screen LC_ALL=C $env $GPUVET $*; echo EXIT=\$? > $TMP/$s.exit; sleep 600"
}

screen() {
	tmux -L "$SOCK" capture-pane -p -t "$1" >"$TMP/screen" 2>/dev/null
}

# wait_for SESSION PATTERN [SECONDS]: poll the screen until PATTERN (grep -E) shows
wait_for() {
	i=0
	limit=$(( ${3:-10} * 5 ))
	while [ $i -lt $limit ]; do
		screen "$1"
		grep -Eq -- "$2" "$TMP/screen" && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# see NAME SESSION PATTERN [SECONDS]: a check that the screen shows PATTERN
see() {
	if wait_for "$2" "$3" "${4:-10}"; then pass "$1"; else
		fail "$1" "no /$3/ on the screen: $(head -c 600 "$TMP/screen")"; fi
}

# not_see NAME SESSION PATTERN: after a short wait the screen does not show PATTERN
not_see() {
	sleep 0.6
	screen "$2"
	if grep -Eq -- "$3" "$TMP/screen"; then fail "$1" "unexpected /$3/"; else pass "$1"; fi
}

keys() {
	s=$1
	shift
	tmux -L "$SOCK" send-keys -t "$s" "$@"
}

# exits_with NAME SESSION CODE: gpuvet ended in SESSION with CODE (waits up to 5 s)
exits_with() {
	i=0
	while [ $i -lt 50 ] && [ ! -s "$TMP/$2.exit" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if grep -q "^EXIT=$3\$" "$TMP/$2.exit" 2>/dev/null; then pass "$1"; else
		fail "$1" "$(cat "$TMP/$2.exit" 2>/dev/null || echo 'did not exit'), wanted $3"; fi
}

# quit_ok NAME SESSION [KEY]: KEY (default q) ends gpuvet with exit code 0
quit_ok() {
	keys "$2" "${3:-q}"
	exits_with "$1" "$2" 0
}

# gpuvet_pid SESSION: the PID of gpuvet in SESSION (env execs it: the pane shell's child)
gpuvet_pid() {
	ps -o pid= --ppid "$(tmux -L "$SOCK" list-panes -t "$1" -F '#{pane_pid}')" | tr -d ' ' | head -1
}

# ---- two GPUs with a training job, 120x40 ---------------------------------------------------
start a 120 40 "" --replay "$M/procs.json" top -d 0.5
see "top starts" a '^ gpuvet top  scrubbed-host  driver 580.159.04'
see "GPU panels" a '^ GPU 1  H200  ok'
see "process row" a '4242 alice +3f2a9c1d8e7b +0 +23G +87 .*python3 train.py --epochs 3'
see "second job appears" a '5151 root .*python3 serve.py'
see "footer keys" a 'h help  F6 sort  / filter  g GPU  F9 kill  F10 quit'
see "own cost shown" a 'collector [0-9.]+% CPU'
keys a s
see "sort key s" a 'sort: SM%'
keys a r
see "reverse r" a 'sort: SM% \(reversed\)'
keys a p
see "sort by PID" a 'sort: PID'
keys a F6
see "F6 opens the sort chooser" a 'Sort processes by'
see "the chooser starts at the current sort" a '> PID'
keys a Up
see "Up moves in the chooser" a '> host memory'
keys a Enter
see "Enter sorts" a 'sort: host memory'
not_see "the chooser closes" a 'Sort processes by'
keys a F6 Down Escape
not_see "Esc closes the chooser" a 'Sort processes by'
see "Esc in the chooser changes nothing and does not quit" a 'sort: host memory'
keys a p
keys a / s e r v e Enter
see "filter applied" a 'filter: serve'
not_see "filter hides the rest" a '4242 alice'
keys a Escape
see "filter cleared" a '4242 alice'
keys a h
see "help screen" a 'gpuvet top: keys'
see "help explains tree CPU" a 'TREECPU% is the CPU of the process and all its children'
keys a x
not_see "help closes" a 'gpuvet top: keys'
keys a 1
see "GPU selector digit" a 'showing GPU 1'
see "a chart when one GPU is shown" a "utilisation, last minutes"
not_see "other GPU hidden" a '^ GPU 0  H200'
keys a a
see "all GPUs again" a '^ GPU 0  H200'
keys a g
see "GPU selector g" a 'showing GPU 0'
keys a a m r Home
keys a k
see "kill asks first" a 'Send SIGTERM to PID 4242 on GPU 0\?'
keys a n
see "kill cancelled" a 'cancelled: nothing sent'
keys a K
see "SIGKILL asks first" a 'Send SIGKILL to PID 4242'
keys a y
see "kill refused in a replay" a 'kill is off here: this is a replay or a fake root'
keys a F9
see "F9 opens the signal chooser" a 'Send a signal to PID 4242 on GPU 0'
see "SIGTERM first" a '> SIGTERM +ask it to stop'
keys a Down
see "Down picks SIGKILL" a '> SIGKILL'
keys a Enter
see "F9's Enter sends (refused in a replay)" a 'kill is off here: this is a replay or a fake root'
keys a F9 Escape
see "F9 then Esc sends nothing" a 'cancelled: nothing sent'
keys a h
see "help lists F10" a 'F10, q, Esc +quit'
see "help lists F6" a 'F6 +choose the sort column'
see "help lists F9" a 'F9 +choose a signal'
keys a x
tmux -L "$SOCK" resize-window -t a -x 20 -y 5
see "20x5 says too small" a 'terminal too small'
see "20x5 says the size" a '20x5, need 40x8'
tmux -L "$SOCK" resize-window -t a -x 80 -y 24
see "back at 80x24" a '^ GPU 0  H200  ok'
see "80x24 process row" a '4242 alice'
n=$(awk 'length > 80' "$TMP/screen" | wc -l)
[ "$n" = 0 ] && pass "80x24 fits" || fail "80x24 fits" "$n long lines"
quit_ok "q quits with 0" a

# ---- quitting: F10 and Esc (0), Ctrl-C and SIGTERM (130) -------------------------------------
start q1 100 30 "" --replay "$M/x2.json" top -d 0.5
see "top runs (F10)" q1 '^ GPU 1  H200  ok'
quit_ok "F10 quits with 0" q1 F10
start q2 100 30 "" --replay "$M/x2.json" top -d 0.5
see "top runs (Esc)" q2 '^ GPU 1  H200  ok'
quit_ok "Esc quits with 0" q2 Escape
start q3 100 30 "" --replay "$M/x2.json" top -d 0.5
see "top runs (Ctrl-C)" q3 '^ GPU 1  H200  ok'
keys q3 C-c
exits_with "Ctrl-C exits 130" q3 130
start q4 100 30 "" --replay "$M/x2.json" top -d 0.5
see "top runs (SIGTERM)" q4 '^ GPU 1  H200  ok'
pid=$(gpuvet_pid q4)
if [ -n "$pid" ] && kill -TERM "$pid"; then exits_with "SIGTERM exits 130" q4 130; else
	fail "SIGTERM exits 130" "no gpuvet process found in the pane"; fi
screen q4
expect_no_grep "the terminal is restored after SIGTERM" '^ GPU 1  H200' "$TMP/screen"
start r 100 30 "" --replay "$M/procs.json" top -d 0.5 --readonly
see "readonly runs" r '4242 alice'
keys r F9
see "F9 under --readonly" r 'read-only: started with --readonly'
not_see "no chooser under --readonly" r 'Send a signal'
quit_ok "quit readonly" r

# ---- a terminal curses cannot drive: plain frames (bug 9) -------------------------------------
start t 100 40 "TERM=dumb" --replay "$M/x2.json" top -d 0.5
see "TERM=dumb says why" t "note: the terminal 'dumb' cannot move its cursor: printing a plain frame every 0.5 s"
see "TERM=dumb gives a hint" t "hint: 'top --once' prints one frame"
see "TERM=dumb shows the GPUs" t '^ GPU 1  H200  ok'
sleep 1.2
screen t
n=$(grep -c '^ gpuvet top ' "$TMP/screen")
[ "$n" -ge 2 ] && pass "TERM=dumb repeats the frame" || fail "TERM=dumb repeats the frame" "$n title lines"
keys t C-c
exits_with "TERM=dumb: Ctrl-C exits 130" t 130
start u 100 40 "TERM=no-such-terminal" --replay "$M/x2.json" top -d 0.5
see "unknown TERM says why" u "the terminal type 'no-such-terminal' is unknown to curses"
see "unknown TERM shows the GPUs" u '^ GPU 0  H200  ok'
keys u C-c
exits_with "unknown TERM: Ctrl-C exits 130" u 130

# ---- MIG --------------------------------------------------------------------------------------
start v 140 40 "" --replay "$M/mig.json" top -d 0.5
see "MIG on the screen" v '^ GPU 0  H200  ok  .*MIG on, 3 instances'
see "MIG pending on the screen" v '^ GPU 1  H200  ok  .*MIG off \(on after the next GPU reset\)'
quit_ok "quit MIG" v

# ---- 1, 8 and 16 GPUs -----------------------------------------------------------------------
start o 80 24 "" --replay "$M/x1.json" top -d 0.5
see "1 GPU at 80x24" o '^ GPU 0  H200  ok'
not_see "only one GPU" o '^ GPU 1 '
quit_ok "quit 1" o
start b 120 40 "" --replay "$M/x8.json" top -d 0.5
see "8 GPUs at 120x40" b '^ +7  H200  ok'
quit_ok "quit 8" b
start c 80 24 "" --replay "$M/x16.json" top -d 0.5
see "16 GPUs at 80x24" c '^ 15 '
see "16 GPUs first line" c '^  0 '
keys c 9
see "pick GPU 9 of 16" c '^ GPU 9  H200  ok'
quit_ok "quit 16" c

# ---- a GPU lost mid-run, throttling, monochrome ----------------------------------------------
start d 120 40 "GPUVET_REPLAY_SPEED=4" --replay "$M/lost.json" top -d 0.5
see "GPU lost on screen" d '^ GPU 1  H200  LOST'
see "lost reason" d 'GPU is lost: nvmlDeviceGetUtilizationRates answered GPU is lost \(15\)'
see "the other GPU still ok" d '^ GPU 0  H200  ok'
quit_ok "quit lost" d
start e 120 40 "" --replay "$M/throttle.json" top -d 0.5
see "throttle reasons" e 'clocks held back: sw power cap, hw thermal'
tmux -L "$SOCK" capture-pane -e -p -t e >"$TMP/color"
if grep -q "$(printf '\033')\[3[1-6]m" "$TMP/color"; then pass "colours when the terminal has them"; else
	fail "colours when the terminal has them" "no colour codes"; fi
quit_ok "quit throttle" e
start f 120 40 "NO_COLOR=1" --replay "$M/throttle.json" top -d 0.5
see "monochrome runs" f 'clocks held back'
tmux -L "$SOCK" capture-pane -e -p -t f >"$TMP/mono"
if grep -q "$(printf '\033')\[3[1-6]m" "$TMP/mono"; then fail "NO_COLOR means no colours" "colour codes"; else
	pass "NO_COLOR means no colours"; fi
quit_ok "quit monochrome" f
start g 100 30 "" --replay "$M/x2.json" top -d 0.5 --no-color
see "--no-color runs" g '^ GPU 1  H200  ok'
tmux -L "$SOCK" capture-pane -e -p -t g >"$TMP/mono"
if grep -q "$(printf '\033')\[3[1-6]m" "$TMP/mono"; then fail "--no-color means no colours" "colour codes"; else
	pass "--no-color means no colours"; fi
quit_ok "quit --no-color" g
done_testing
