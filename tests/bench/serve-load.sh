#!/bin/sh
# serve-load.sh: load on `gpuvet serve` (not part of `make test`): N concurrent scrapers for T
# seconds against a running serve, or against one started here on a replayed scenario. Prints
# the scrapes per second, latency p50/p99/max, errors, and serve's CPU time and RSS over the
# run (from /proc/PID, so serve must run on this machine).
#
# usage: sh tests/bench/serve-load.sh [-n SCRAPERS] [-t SECONDS] [-u URL -p PID]
#                                     [-s SCENARIO] [-- SERVE_OPTIONS...]
#   defaults: 50 scrapers, 10 s, serve started on tests/scenarios/monitor/x8.json
#   -u URL -p PID   load an already running serve (URL of its /metrics, PID to measure)
#   -a              ask for OpenMetrics, as Prometheus does
set -e
n=50 secs=10 url= pid= om=0
top=$(cd "$(dirname "$0")/../.." && pwd)
scen="$top/tests/scenarios/monitor/x8.json"
gpuvet=${GPUVET:-$top/build/gpuvet}
while getopts n:t:u:p:s:a opt; do
	case $opt in
	n) n=$OPTARG ;;
	t) secs=$OPTARG ;;
	u) url=$OPTARG ;;
	p) pid=$OPTARG ;;
	s) scen=$OPTARG ;;
	a) om=1 ;;
	*) sed -n '2,12p' "$0" >&2; exit 4 ;;
	esac
done
shift $((OPTIND - 1))
tmp=$(mktemp -d)
started=
cleanup() {
	[ -n "$started" ] && kill "$started" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ -z "$url" ]; then
	"$gpuvet" --replay "$scen" serve --listen 127.0.0.1:0 --json "$@" >"$tmp/serve.out" 2>"$tmp/serve.err" &
	started=$!
	pid=$started
	i=0
	while ! grep -q '"event":"start"' "$tmp/serve.out" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
			echo "serve-load: serve did not start: $(cat "$tmp/serve.err")" >&2
			exit 1
		fi
		sleep 0.1
	done
	url=$(sed -n 's/.*"url":"\([^"]*\)".*/\1/p' "$tmp/serve.out")
	sleep 2 # the first slow tick
fi
[ -n "$pid" ] || { echo "serve-load: -u needs -p PID to measure serve" >&2; exit 4; }
python3 - "$url" "$n" "$secs" "$pid" "$om" <<'PY'
import os, sys, threading, time, urllib.request

url, n, secs, pid, om = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5] == "1"
tick = os.sysconf("SC_CLK_TCK")

def cpu_s():
    with open("/proc/%s/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick

def rss_kib():
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1

lat, errors, sizes, lock = [], [], [], threading.Lock()
stop = time.monotonic() + secs
headers = {"Accept": "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"} if om else {}

def worker():
    while time.monotonic() < stop:
        t0 = time.monotonic()
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:
                body = r.read()
                ok = r.status == 200
        except Exception as e:
            ok, body = False, str(e).encode()
        dt = time.monotonic() - t0
        with lock:
            if ok:
                lat.append(dt)
                sizes.append(len(body))
            else:
                errors.append(body[:80])

rss0, cpu0, w0 = rss_kib(), cpu_s(), time.monotonic()
peak = rss0
ts = [threading.Thread(target=worker) for _ in range(n)]
for t in ts:
    t.start()
while any(t.is_alive() for t in ts):
    peak = max(peak, rss_kib())
    time.sleep(0.2)
wall, cpu1, rss1 = time.monotonic() - w0, cpu_s(), rss_kib()
lat.sort()
def pct(p):
    return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000 if lat else float("nan")
print("scrapers %d for %.1f s against %s%s" % (n, wall, url, " (OpenMetrics)" if om else ""))
print("scrapes %d ok, %d errors, %.0f scrapes/s, body %d bytes" % (len(lat), len(errors), len(lat) / wall, sizes[0] if sizes else 0))
print("latency ms p50 %.2f p99 %.2f max %.2f" % (pct(0.50), pct(0.99), lat[-1] * 1000 if lat else float("nan")))
print("serve cpu %.2f s (%.1f %% of one core), %.0f us per scrape" % (cpu1 - cpu0, 100 * (cpu1 - cpu0) / wall, 1e6 * (cpu1 - cpu0) / max(1, len(lat))))
print("serve rss %d KiB before, %d KiB peak, %d KiB after" % (rss0, peak, rss1))
if errors:
    print("first errors:", errors[:3])
PY
