#!/bin/bash
# backends-nvidia.sh: issue 14 asks that NVIDIA's behaviour and speed stay as they were with the
# other vendors' backends in. On an NVIDIA machine, in one run, interleaved so that drift hits
# both alike: `gpuvet status`, `status --json` and `doctor` of the binary before (OLD) against
# the binary now (NEW), idle and then with the GPU busy (BUSY_CMD, started here; default none);
# medians and ratios, and the JSON of both with the new keys (vendor) taken out, which must be
# the same but for the readings that move. No pass/fail on times (noisy machines): ratios.
# Usage: tests/bench/backends-nvidia.sh OLD NEW [REPS]    (both with --no-agent)
set -u
OLD=$1 NEW=$2 N=${3:-40}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# median of N interleaved runs of each, in ms: time_pair NAME ARGS...
time_pair() {
	name=$1
	shift
	: >"$work/o" ; : >"$work/n"
	for _ in $(seq "$N"); do
		for side in o n; do
			b=$OLD; [ $side = n ] && b=$NEW
			s=$(date +%s%N)
			"$b" "$@" >/dev/null 2>&1
			e=$(date +%s%N)
			echo $(((e - s) / 1000)) >>"$work/$side"
		done
	done
	python3 - "$name" "$work/o" "$work/n" <<'PY'
import statistics, sys
name, o, n = sys.argv[1], *[[int(x) / 1000 for x in open(p)] for p in sys.argv[2:4]]
mo, mn = statistics.median(o), statistics.median(n)
print("%-28s old %8.2f ms  new %8.2f ms  new/old %.3f  (min %.2f / %.2f, n=%d)"
      % (name, mo, mn, mn / mo, min(o), min(n), len(o)))
PY
}

run_all() {
	time_pair "status ($1)" status --no-agent
	time_pair "status --json ($1)" status --no-agent --json
	time_pair "status -q ($1)" status --no-agent --query-gpu=index,name,temperature.gpu,power.draw,utilization.gpu --format=csv
	N=$((N / 4)) time_pair "doctor ($1)" doctor
}

run_all idle
# the same JSON but for what moves between two reads
drop='import json,sys
d=json.load(sys.stdin)
for g in d["gpus"]:
    g.pop("vendor", None)
    for k in list(g):
        if k.startswith(("util","power_mw","temp","clock_sm","clock_gr","clock_mem","mem_used","mem_free","energy","fan","pcie_gen","pstate","processes","clock_events")): g.pop(k)
print(json.dumps(d, indent=1, sort_keys=True))'
"$OLD" status --no-agent --json | python3 -c "$drop" >"$work/old.json"
"$NEW" status --no-agent --json | python3 -c "$drop" >"$work/new.json"
if cmp -s "$work/old.json" "$work/new.json"; then echo "status --json: the same keys and static values (vendor aside)"; else
	echo "status --json differs:"; diff "$work/old.json" "$work/new.json" | head -20; fi
"$NEW" status --no-agent --json | python3 -c 'import json,sys; print("vendors:", sorted({g["vendor"] for g in json.load(sys.stdin)["gpus"]}))'
if [ -n "${BUSY_CMD:-}" ]; then
	# exec: the load is this PID, so that the kill below ends it (not only a shell)
	sh -c "exec $BUSY_CMD" >"$work/busy.log" 2>&1 &
	busy=$!
	sleep "${BUSY_WARMUP:-8}"
	run_all busy
	kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null
fi
