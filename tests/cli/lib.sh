# tests/cli/lib.sh: helpers for CLI tests, sourced by each tests/cli/*.sh. GPUVET is the binary;
# TOP the repository; SCEN the scenario folder; TMP a scratch folder removed at exit.
#
# The rules every script follows (tests/run.sh enforces them, so a script that dies part-way or
# loses a result cannot read as green):
# - each check prints one result line through pass, fail or skip ("PASS name", "FAIL name: why",
#   "SKIP name: why"), never with a bare echo: the helpers count what they print;
# - the script's last command is done_testing, which prints "DONE N results". run.sh fails a
#   script that ends without that line (it exited or died part-way) or whose N differs from the
#   result lines it printed (a result lost in a file or a pipe, or printed by hand);
# - a script that stops early on purpose calls skip_all REASON (one SKIP) or bail NAME REASON
#   (one FAIL), which declare and exit; never a bare exit;
# - a tool the checks need (jq, tmux) is asked for with need_tool: missing, that is a FAIL, never
#   a silent pass or a skip;
# - the exit status is 0 (failures are FAIL lines): run.sh fails any other, and a script that
#   runs longer than its limit (CLI_TIMEOUT, 300 s).
SCEN="$TOP/tests/scenarios"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# a script stopped by run.sh's time limit still removes its scratch folder
trap 'exit 143' TERM HUP
# one line per result printed; a subshell that must not count its results (its output goes to a
# file, not to run.sh) points RESULTS elsewhere
RESULTS="$TMP/.results"
: >"$RESULTS"
# per-user run files (burn's per-GPU locks, src/burn/lock.c) in the script's own folder: the
# fake GPUs' bus ids are the same in every script and every checkout on this machine
mkdir -p "$TMP/run" && export XDG_RUNTIME_DIR="$TMP/run"

pass() { echo "PASS $1"; echo >>"$RESULTS"; }
fail() { echo "FAIL $1${2:+: $2}"; echo >>"$RESULTS"; }
skip() { echo "SKIP $1"; echo >>"$RESULTS"; }

# done_testing: the script's last line: how many results it printed (see the rules above)
done_testing() {
	echo "DONE $(wc -l <"$RESULTS" | tr -d ' ') results"
}

# skip_all REASON: nothing here can be checked, for a reason that is no fault (one SKIP); ends
# the script
skip_all() {
	skip "$1"
	done_testing
	exit 0
}

# bail NAME REASON: what the rest needs failed (one FAIL); ends the script
bail() {
	fail "$1" "$2"
	done_testing
	exit 0
}

# need_tool TOOL WHAT: the script checks WHAT with TOOL. Without it: a FAIL (in CI and on a
# developer's machine alike: `make deps` installs it) and the script ends.
need_tool() {
	command -v "$1" >/dev/null 2>&1 && return 0
	bail "$(basename "$0" .sh): $1 is installed" "needed to check $2; install it (make deps)"
}

# expect_exit NAME CODE CMD...: run CMD, compare the exit code.
expect_exit() {
	name=$1; want=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$want" ]; then pass "$name"; else
		fail "$name" "exit $got, wanted $want; stderr: $(head -c 300 "$TMP/err")"; fi
}

# expect_grep NAME PATTERN FILE: the file has a line matching PATTERN (grep -E).
expect_grep() {
	if grep -Eq -- "$2" "$3"; then pass "$1"; else
		fail "$1" "no match for /$2/ in $(head -c 400 "$3")"; fi
}

expect_no_grep() {
	if grep -Eq -- "$2" "$3"; then fail "$1" "unexpected /$2/"; else pass "$1"; fi
}

# expect_jq NAME FILTER FILE: jq -e FILTER FILE is true. An empty FILE fails: jq 1.6 -e
# exits 0 on empty input, so a command that printed nothing would pass every check.
expect_jq() {
	if [ -s "$3" ] && jq -e "$2" "$3" >/dev/null 2>&1; then pass "$1"; else
		fail "$1" "jq '$2' is not true$([ -s "$3" ] || echo ' (the file is empty)')"; fi
}

# fake_gpus WHAT: a command that computes (burn) on the two fake GPUs of tests/bench/fakegpu,
# 512 MiB each, C copies of the kernels, no NVML; F names their folder. Without them (make
# test builds them) the script is skipped, or bails in CI.
fake_gpus() {
	F="$TOP/$O/fakegpu"
	if [ ! -f "$F/libcuda.so.1" ]; then
		if [ "${CI:-}" = true ]; then bail "$1 on fake GPUs" "$F not built (make test builds it)"; fi
		skip_all "$1 on fake GPUs: $F not built (make test builds it)"
	fi
	printf 'not a fatbin: the fake GPUs run C copies of the kernels\n' >"$TMP/kernels.bin"
	export GPUVET_BENCH_KERNELS="$TMP/kernels.bin"
	export GPUVET_CUDA_LIBRARY="$F/libcuda.so.1" GPUVET_CUBLASLT_LIBRARY="$F/libcublasLt.so.13"
	export GPUVET_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 FAKEGPU_MEM_MIB=512
}
