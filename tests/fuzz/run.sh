#!/bin/sh
# tests/fuzz/run.sh: runs the libFuzzer targets `make fuzz` built (tests/fuzz/fuzz_*.c) for
# SECONDS each, FUZZ_JOBS at a time (default: one per CPU), from seeds cut out of the
# committed scenarios. Prints one line per target with libFuzzer's final coverage ("cov",
# edges reached), features ("ft") and speed, fails a target that crashed, leaked, hung or
# reached less coverage than its floor in tests/fuzz/floors, and ends with "N passed, M
# failed". Exits 1 when anything failed.
# Usage: O=build-fuzz sh tests/fuzz/run.sh SECONDS [TARGET...]
set -u
O=${O:-build-fuzz}
secs=${1:-20}
[ $# -gt 0 ] && shift
top=$(cd "$(dirname "$0")/../.." && pwd)
floors="$top/tests/fuzz/floors"
targets=${*:-$(awk '!/^#/ && NF { print $1 }' "$floors")}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
work="$top/$O/fuzz-run"
seeds="$work/seeds"

rm -rf "$work"
mkdir -p "$seeds"

# The recording target writes each input into scenarios/in, beside a copy of every scenario,
# under a copy of the scenario tree: so "../h200x2.json" (a fault or monitor scenario),
# "h200x2.json" (a top-level one) and "row10-gpu-lost.json" (a fault deriving from a fault)
# all find their base, whatever the input's own folder was.
recordings=$(find "$top/tests/scenarios" -name '*.json' ! -name '*.doctor.json' | sort)
cp -R "$top/tests/scenarios" "$work/scenarios"
mkdir -p "$work/scenarios/in"
# shellcheck disable=SC2086 # one path per word
cp $recordings "$work/scenarios/in/"
# shellcheck disable=SC2086
"$top/$O/fuzz_seeds" "$seeds" $recordings || exit 1
[ -r /etc/ld.so.cache ] && cp /etc/ld.so.cache "$seeds/ldcache/this-machine"
# the field lists the CLI tests and docs pass to status --query and watch --fields
n=0
grep -rhoE -- "--(query(-gpu)?|fields)[= ][\"']?[A-Za-z0-9_.,]+" "$top/tests/cli" "$top/docs" \
	"$top/README.md" 2>/dev/null | sed -E "s/^--[a-z-]+[= ][\"']?//" | sort -u |
	while read -r list; do
		n=$((n + 1))
		printf '%s' "$list" >"$seeds/fields/used-$n"
	done
for d in "$top"/tests/fuzz/seeds/*/; do
	[ -d "$d" ] && mkdir -p "$seeds/$(basename "$d")" && cp "$d"* "$seeds/$(basename "$d")/"
done

seed_dir() {
	if [ "$1" = recording ]; then echo "$work/scenarios/in"; else echo "$seeds/$1"; fi
}

# Inputs up to a quarter above the largest seed: a whole recording (200-320 KiB) and then some.
max_len() {
	m=$(find "$(seed_dir "$1")" -type f -exec wc -c {} + |
		awk '$2 != "total" && $1 > m { m = $1 } END { print m + 0 }')
	m=$((m + m / 4))
	[ "$m" -lt 4096 ] && m=4096
	echo "$m"
}

run_one() {
	t=$1
	d="$work/$t"
	mkdir -p "$d/corpus"
	# new inputs go to corpus/; the seeds are only read
	GPUVET_FUZZ_SCENARIOS="$work/scenarios/in" UBSAN_OPTIONS=print_stacktrace=1 \
		"$top/$O/fuzz_$t" -max_total_time="$secs" -max_len="$(max_len "$t")" -timeout=25 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$d/" \
		"$d/corpus" "$(seed_dir "$t")" </dev/null >"$d/log" 2>&1
	echo $? >"$d/rc"
}

i=0
for t in $targets; do
	if [ ! -x "$top/$O/fuzz_$t" ]; then
		mkdir -p "$work/$t"
		echo "missing: $top/$O/fuzz_$t" >"$work/$t/log"
		echo 127 >"$work/$t/rc"
		continue
	fi
	run_one "$t" &
	i=$((i + 1))
	[ $((i % jobs)) -eq 0 ] && wait
done
wait

pass=0
fail=0
for t in $targets; do
	d="$work/$t"
	rc=$(cat "$d/rc" 2>/dev/null || echo 1)
	floor=$(awk -v t="$t" '$1 == t { print $2 }' "$floors")
	# the last status line: "#1234 DONE cov: 512 ft: 2048 corp: 90/4Mb ... exec/s: 61 rss: ..."
	stat=$(grep -E '^#[0-9]+[[:space:]]+[A-Z]+[[:space:]]+cov:' "$d/log" | tail -1)
	cov=$(echo "$stat" | sed -nE 's/.* cov: ([0-9]+).*/\1/p')
	ft=$(echo "$stat" | sed -nE 's/.* ft: ([0-9]+).*/\1/p')
	corp=$(echo "$stat" | sed -nE 's/.* corp: ([0-9]+).*/\1/p')
	execs=$(echo "$stat" | sed -nE 's/.* exec\/s: ([0-9]+).*/\1/p')
	runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$d/log")
	figures="cov ${cov:-?} ft ${ft:-?} exec/s ${execs:-?} runs ${runs:-?} corpus ${corp:-?}"
	artifact=$(find "$d" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
		-o -name 'oom-*' \) | head -1)
	if [ "$rc" -ne 0 ] || [ -n "$artifact" ]; then
		echo "FAIL fuzz_$t: exit $rc${artifact:+, input kept as ${artifact#"$top"/}} ($figures)"
		grep -m1 -A30 -E 'ERROR: |runtime error:|deadly signal|missing:' "$d/log" | sed 's/^/    /'
		fail=$((fail + 1))
	elif [ -z "$floor" ]; then
		echo "FAIL fuzz_$t: no floor in tests/fuzz/floors ($figures)"
		fail=$((fail + 1))
	elif [ -z "$cov" ] || [ "$cov" -lt "$floor" ]; then
		echo "FAIL fuzz_$t: coverage ${cov:-?} below its floor $floor ($figures)"
		tail -5 "$d/log" | sed 's/^/    /'
		fail=$((fail + 1))
	else
		echo "PASS fuzz_$t: $figures (floor $floor)"
		pass=$((pass + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
