#!/bin/sh
# tests/run.sh: runs the unit tests ($O/tests/test_*) and the CLI tests (tests/cli/*.sh), each on
# its own, and judges each by its own exit status and its own output. Prints each result line
# as its test ends and finishes with "N passed, M failed, K skipped"; exits 1 when anything
# failed. Usage: sh tests/run.sh [unit|cli] [PATTERN]
#
# A test fails, beyond the FAIL lines it prints, when it:
# - runs past its limit: UNIT_TIMEOUT seconds for a unit binary (default 60), CLI_TIMEOUT for a
#   script (default 300); the whole process group is stopped;
# - is killed by a signal (a crash), or exits non-zero without a FAIL line (a script: exits
#   non-zero at all, as its failures are FAIL lines);
# - ends without its "DONE N results" line (test.h's TEST_DONE, lib.sh's done_testing: it
#   stopped part-way), or N differs from the PASS/FAIL/SKIP lines it printed;
# - leaves a sanitizer report (`make asan` has them written under $O/sanitizer/).
O=${O:-build}
which=${1:-all}
pattern=${2:-}
unit_limit=${UNIT_TIMEOUT:-60}
cli_limit=${CLI_TIMEOUT:-300}
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results="$work/results" # every result line, of every test, in order
other="$work/other"     # every other line, after the name of the test that printed it
: >"$results"
: >"$other"
san="$top/$O/sanitizer"

# sanitizer_reports NAME: a FAIL for each report left since the last test; false when none
sanitizer_reports() {
	found=1
	[ -d "$san" ] || return 1
	for r in "$san"/report.*; do
		[ -f "$r" ] || continue
		echo "FAIL $1: sanitizer report ($O/sanitizer/seen/$(basename "$r"))"
		head -30 "$r" | sed "s|^|$1: |" >>"$other"
		mkdir -p "$san/seen" && mv "$r" "$san/seen/"
		found=0
	done
	return $found
}

# judge NAME KIND LIMIT RC SECONDS LOG: the result lines of one test: those it printed, then a
# FAIL for each way it went wrong that its own lines do not say
judge() {
	name=$1 kind=$2 limit=$3 rc=$4 took=$5 log=$6
	grep -E '^(PASS|FAIL|SKIP)' "$log"
	# the first lines of anything else it printed (a sanitizer's trace, a shell error)
	grep -vE '^(PASS|FAIL|SKIP)|^DONE [0-9]+ results$' "$log" | head -12 | sed "s|^|$name: |" >>"$other"
	printed=$(grep -cE '^(PASS|FAIL|SKIP)' "$log")
	failed=$(grep -c '^FAIL' "$log")
	declared=$(sed -n 's/^DONE \([0-9][0-9]*\) results$/\1/p' "$log" | tail -1)
	if sanitizer_reports "$name"; then
		return # its exit status is the sanitizer's, and its output stops at the report
	fi
	if [ "$rc" -ne 0 ] && [ "$took" -ge "$limit" ]; then
		echo "FAIL $name: timed out: still running after the $limit s limit of a $kind, stopped"
		return
	fi
	if [ "$rc" -gt 128 ]; then
		echo "FAIL $name: killed by signal $((rc - 128)) after $printed results"
		return
	elif [ "$rc" -ne 0 ] && { [ "$kind" = script ] || [ "$failed" -eq 0 ]; }; then
		echo "FAIL $name: exited with status $rc after $printed results"
		return
	fi
	if [ -z "$declared" ]; then
		echo "FAIL $name: ended without its \"DONE N results\" line, after $printed results"
	elif [ "$declared" -ne "$printed" ]; then
		echo "FAIL $name: declared $declared results but printed $printed"
	fi
}

# run_one NAME KIND LIMIT CMD...: run CMD alone (stdin from /dev/null, its output captured), in
# its own process group under the limit, and judge it
run_one() {
	name=$1 kind=$2 limit=$3
	shift 3
	start=$(date +%s)
	timeout -k 10 "$limit" "$@" <"/dev/null" >"$work/log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	judge "$name" "$kind" "$limit" "$rc" "$took" "$work/log" | tee -a "$results"
}

if [ "$which" = all ] || [ "$which" = unit ]; then
	for t in "$top/$O"/tests/test_*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		case "$t" in *"$pattern"*) ;; *) continue ;; esac
		run_one "$(basename "$t")" "unit binary" "$unit_limit" "$t"
	done
fi
if [ "$which" = all ] || [ "$which" = cli ]; then
	for t in "$top"/tests/cli/*.sh; do
		case "$t" in */lib.sh) continue ;; esac
		case "$t" in *"$pattern"*) ;; *) continue ;; esac
		run_one "$(basename "$t")" script "$cli_limit" \
			env GPUVET="$top/$O/gpuvet" TOP="$top" O="$O" sh "$t"
	done
fi
head -60 "$other"
pass=$(grep -c '^PASS' "$results")
fail=$(grep -c '^FAIL' "$results")
skip=$(grep -c '^SKIP' "$results")
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
