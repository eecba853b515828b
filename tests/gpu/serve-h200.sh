#!/bin/bash
# serve-h200.sh: `gpuvet serve` on a real GPU (the lead runs it on the H200, one device call of
# a few minutes). In one run:
#   1. the binary's libraries there (ldd: libmicrohttpd and libyaml are linked in; gnutls, crypt
#      and sqlite come from the system);
#   2. `gpuvet status` through serve's agent against `status --no-agent` and nvidia-smi on the
#      idle GPU, then again on the busy GPU while `gpuvet burn --mode compute` runs
#      (tests/bench/agent-status.sh);
#   3. during the burn, /metrics scraped every second beside `nvidia-smi --query-gpu`: power,
#      SM clock and temperature side by side, and their mean differences;
#   4. serve's own cost: CPU per second with nobody scraping (collection, doctor every 60 s),
#      CPU per scrape over 300 scrapes, resident memory before and after.
# Usage: bash tests/gpu/serve-h200.sh [GPUVET]   (OUT: where the raw outputs go, packed into
# $OUT/serve.tgz)
set -u
cd "$(dirname "$0")/../.." || exit 1
G=${1:-.carry/build/gpuvet}
BASE=${OUT:-$(mktemp -d)}
D=$BASE/serve
mkdir -p "$D"
SOCK=$D/agent.sock
PORT=19849
serve_pid= burn_pid=
cleanup() {
	[ -n "$burn_pid" ] && kill "$burn_pid" 2>/dev/null
	[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null
	wait 2>/dev/null
	[ -n "${OUT:-}" ] && tar -C "$BASE" -czf "$BASE/serve.tgz" serve 2>/dev/null && rm -rf "$D"
}
trap cleanup EXIT

echo "== libraries"
ldd "$G" | grep -E "not found|gnutls|crypt|sqlite|microhttpd|yaml|ncurses|jansson" | sed 's/ (0x.*//'
"$G" version

echo "== serve"
"$G" serve --listen 127.0.0.1:$PORT --socket "$SOCK" --json >"$D/serve.out" 2>"$D/serve.err" &
serve_pid=$!
for _ in $(seq 100); do grep -q '"event":"start"' "$D/serve.out" 2>/dev/null && break; sleep 0.1; done
head -1 "$D/serve.out"
sleep 3
cpu() { awk '{ print $14 + $15 }' "/proc/$serve_pid/stat"; }   # clock ticks
rss() { awk '/VmRSS/ { print $2 }' "/proc/$serve_pid/status"; } # kB
hz=$(getconf CLK_TCK)

echo "== serve's cost with nobody scraping (20 s, doctor every 60 s, its first run included)"
c0=$(cpu); sleep 20; c1=$(cpu)
awk -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "serve idle: %.2f %% of one core\n", (b - a) / hz / 20 * 100 }'

echo "== status, idle GPU"
SOCKET=$SOCK bash tests/bench/agent-status.sh "$G" 30 2>&1 | tail -9

echo "== status, busy GPU (gpuvet burn --mode compute)"
"$G" burn --mode compute --duration 75 >"$D/burn.out" 2>"$D/burn.err" &
burn_pid=$!
sleep 12
SOCKET=$SOCK bash tests/bench/agent-status.sh "$G" 30 2>&1 | tail -9

echo "== /metrics beside nvidia-smi during the burn (15 readings, 1 s apart)"
python3 - "$PORT" "$D" <<'PY'
import re, subprocess, sys, time, urllib.request
port, d = sys.argv[1], sys.argv[2]
want = {"gpuvet_power_watts": 1, "gpuvet_sm_clock_hertz": 1e6, "gpuvet_temperature_celsius": 1}
rows = []
for i in range(15):
    body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port, timeout=5).read().decode()
    smi = subprocess.run(["nvidia-smi", "--query-gpu=power.draw,clocks.sm,temperature.gpu",
                          "--format=csv,noheader,nounits", "-i", "0"], capture_output=True,
                         text=True).stdout.strip().split(",")
    got = {}
    for name, div in want.items():
        m = re.search(r'^%s\{gpu="0"[^}]*\} (\S+)$' % name, body, re.M)
        got[name] = float(m.group(1)) / div if m else float("nan")
    rows.append((got["gpuvet_power_watts"], float(smi[0]), got["gpuvet_sm_clock_hertz"],
                 float(smi[1]), got["gpuvet_temperature_celsius"], float(smi[2])))
    time.sleep(1)
open(d + "/track.txt", "w").write(body)
print("  serve W  smi W   serve MHz smi MHz  serve C smi C")
for r in rows:
    print("  %7.1f %6.1f   %9.0f %7.0f  %7.0f %5.0f" % r)
n = len(rows)
for k, name in ((0, "power W"), (2, "SM clock MHz"), (4, "temperature C")):
    diff = sum(abs(r[k] - r[k + 1]) for r in rows) / n
    mean = sum(r[k + 1] for r in rows) / n
    print("mean |serve - nvidia-smi| %s: %.2f (nvidia-smi's mean %.1f, %.1f %%)" %
          (name, diff, mean, diff / mean * 100 if mean else 0))
PY

echo "== serve's cost per scrape (300 scrapes, one after another, GPU busy)"
r0=$(rss); c0=$(cpu); t0=$(date +%s%N)
python3 - "$PORT" <<'PY'
import sys, urllib.request
for _ in range(300):
    urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read()
PY
t1=$(date +%s%N); c1=$(cpu); r1=$(rss)
awk -v a="$c0" -v b="$c1" -v hz="$hz" -v t0="$t0" -v t1="$t1" -v r0="$r0" -v r1="$r1" 'BEGIN {
	w = (t1 - t0) / 1e9
	printf "300 scrapes in %.2f s (%.2f ms each); serve CPU %.3f s over them (collection included): %.0f us per scrape\n", w, w / 300 * 1000, (b - a) / hz, (b - a) / hz / 300 * 1e6
	printf "serve RSS %d kB before, %d kB after\n", r0, r1 }'
curl -s "http://127.0.0.1:$PORT/metrics" 2>/dev/null | grep -E '^(gpuvet_collector_cpu_seconds_total|gpuvet_scrape_render_seconds|process_resident_memory_bytes)' | head -5
wait "$burn_pid"; echo "burn exit $?"; burn_pid=
tail -4 "$D/burn.out"
kill "$serve_pid"; wait "$serve_pid"; echo "serve exit $?"; serve_pid=
