#!/bin/sh
# tests/run.sh: runs the unit tests (build/tests/test_*) and the CLI tests (tests/cli/*.sh),
# prints each result line and ends with "N passed, M failed"; exits 1 when anything failed.
# Usage: sh tests/run.sh [unit|cli] [PATTERN]
O=${O:-build}
which=${1:-all}
pattern=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# `make asan` has the sanitizers write their reports here: each one fails the test it came from
san="$top/$O/sanitizer"

sanitizer_reports() {
	[ -d "$san" ] || return 0
	for r in "$san"/report.*; do
		[ -f "$r" ] || continue
		echo "FAIL $1: sanitizer report ($O/sanitizer/seen/$(basename "$r"))" >>"$out"
		head -30 "$r" >>"$out"
		mkdir -p "$san/seen" && mv "$r" "$san/seen/"
	done
}

if [ "$which" = all ] || [ "$which" = unit ]; then
	for t in "$top/$O"/tests/test_*; do
		[ -x "$t" ] || continue
		case "$t" in *"$pattern"*) ;; *) continue ;; esac
		if ! "$t" >>"$out" 2>&1; then
			grep -q '^FAIL' "$out" || echo "FAIL $(basename "$t"): exited non-zero" >>"$out"
		fi
		sanitizer_reports "$(basename "$t")"
	done
fi
if [ "$which" = all ] || [ "$which" = cli ]; then
	for t in "$top"/tests/cli/*.sh; do
		case "$t" in */lib.sh) continue ;; esac
		case "$t" in *"$pattern"*) ;; *) continue ;; esac
		GPUVET="$top/$O/gpuvet" TOP="$top" O="$O" sh "$t" >>"$out" 2>&1 ||
			echo "FAIL $(basename "$t"): script exited non-zero" >>"$out"
		sanitizer_reports "$(basename "$t")"
	done
fi
grep -E '^(PASS|FAIL|SKIP)' "$out"
grep -vE '^(PASS|FAIL|SKIP)' "$out" | head -40
pass=$(grep -c '^PASS' "$out")
fail=$(grep -c '^FAIL' "$out")
skip=$(grep -c '^SKIP' "$out")
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
