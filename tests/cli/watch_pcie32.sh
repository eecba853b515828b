# watch_pcie32.sh: PCIe rates where the driver gives its byte counters as 32-bit values (a
# Hopper GPU: they wrap every 4 GiB). The scenario (derived from monitor/x2.json) moves 5 GB/s
# host to GPU on GPU 0, so its counter wraps more than once between watch's readings: the rate
# must come from nvmlDeviceGetPcieThroughput (5.0 GB/s), not from the wrapped counters (which
# read 0.7 GB/s, or nothing where the counter came back lower). GPU 1 keeps 64-bit counters.
. "$TOP/tests/cli/lib.sh"
need_tool jq "watch --json"
need_tool python3 "the derived scenario"
# expect_slurp NAME FILTER FILE: FILTER on the array of all lines is true
expect_slurp() {
	if jq -e -s "$2" "$3" >/dev/null 2>&1; then pass "$1"; else fail "$1" "jq -s '$2' is not true"; fi
}
python3 - "$SCEN/monitor/x2.json" "$TMP/pcie32.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
# the base recording it derives from, by an absolute path from the new file's folder
d["derive"] = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), d["derive"])
dev = d["nvml"]["devices"]["0"]
for fid, rate in ((197, 1250000), (198, 5 * 10 ** 9)):
    # [rc, value, 1]: the value as NVML's unsigned int (value type 1)
    dev["nvmlDeviceGetFieldValues(%d)" % fid] = {"timeline": [
        [t, [0, (2 * 10 ** 9 + t * rate) % 2 ** 32, 1]] for t in range(0, 120)]}
dev["nvmlDeviceGetPcieThroughput(0)"] = [0, 1221]
dev["nvmlDeviceGetPcieThroughput(1)"] = [0, 4882812]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit "watch on 32-bit counters" 0 "$GPUVET" --replay "$TMP/pcie32.json" watch -c 3 -d 1 --json -f gpu,rxpci,txpci
expect_slurp "GPU 0: receive from the 20 ms query, 5.0 GB/s" \
	'[.[] | select(.gpu == 0 and has("pcie_rx_bytes_s"))] | length > 0 and all(.[]; .pcie_rx_bytes_s > 4.9e9 and .pcie_rx_bytes_s < 5.1e9)' "$TMP/out"
expect_slurp "GPU 1: its 64-bit counters as before" \
	'[.[] | select(.gpu == 1 and has("pcie_rx_bytes_s"))] | length > 0 and all(.[]; .pcie_rx_bytes_s > 600000 and .pcie_rx_bytes_s < 800000)' "$TMP/out"
done_testing
