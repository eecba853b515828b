# tests/cli/lib.sh: helpers for CLI tests. Each test prints PASS/FAIL lines for tests/run.sh.
# GPUVET is the binary; TOP the repository; SCEN the scenario folder.
SCEN="$TOP/tests/scenarios"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }

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

# expect_jq NAME FILTER FILE: jq -e FILTER FILE is true.
expect_jq() {
	if jq -e "$2" "$3" >/dev/null 2>&1; then pass "$1"; else
		fail "$1" "jq '$2' is not true"; fi
}
