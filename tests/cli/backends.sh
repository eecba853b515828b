# backends.sh: other vendors' GPUs (gpu/backend.h) through every command that reads the device
# model: status (table, JSON, nvidia-smi queries), watch, top, record and its replay, serve's
# metrics and agent, doctor; on the constructed machines of tests/scenarios/sysfs/ (the AMD
# ones; the Intel ones are checked the same way where they exist). The NVIDIA machine's output
# must not change: its checks stay in status.sh, watch.sh, serve.sh.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
. "$TOP/tests/cli/serve_lib.inc"
S="$SCEN/sysfs"
MI=$S/amd-mi300x.json RX=$S/amd-rx7900xtx.json FAULTS=$S/amd-faults.json

# ---- status
expect_exit "status: MI300X machine without NVML exits 0" 0 "$GPUVET" --replay "$MI" status
expect_grep "status: both MI300X shown, vendor word dropped" '^  1 Instinct MI300X +0000:22:00.0 +41C +131/750W +2\.0/192\.0 +0% +1420MHz$' "$TMP/out"
expect_exit "status --json" 0 "$GPUVET" --replay "$MI" status --json
expect_jq "status --json: vendor, driver, gfx target" '.gpus[0] | .vendor == "AMD" and .driver == "amdgpu" and .gfx_target == "gfx942"' "$TMP/out"
expect_jq "status --json: readings from sysfs" '.gpus[0] | .util_gpu_pct == 37 and .temp_c == 45 and .power_mw == 152000 and .mem_total_bytes == 206158430208 and .pcie_gen == 5' "$TMP/out"
expect_jq "status --json: processes from DRM fdinfo" '.gpus[0].processes == 2 and .gpus[1].processes == 1' "$TMP/out"
expect_jq "status --json: NVIDIA-only readings absent, never 0" '.gpus[0] | has("compute_mode") | not' "$TMP/out"
expect_exit "status -q: NVIDIA-only reading" 0 "$GPUVET" --replay "$MI" status --query-gpu=index,vendor,compute_mode,clocks_event_reasons.active,temperature.gpu --format=csv,noheader
expect_grep "status -q: NVIDIA-only is [N/A], the rest read" '^0, AMD, \[N/A\], \[N/A\], 45$' "$TMP/out"
expect_exit "status --query-compute-apps" 0 "$GPUVET" --replay "$MI" status --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader
expect_grep "compute apps: a process on two GPUs listed on each" '^4242, 0000:22:00.0, 2048 MiB$' "$TMP/out"
expect_exit "status: Radeon" 0 "$GPUVET" --replay "$RX" status --json
expect_jq "Radeon: fan and edge temperature" '.gpus[0] | .vendor == "AMD" and (.fan_pct | type == "number") and .temp_c == 52' "$TMP/out"
expect_exit "status: unreadable files" 0 "$GPUVET" --replay "$FAULTS" status --json
expect_jq "faults: unreadable hwmon is an error, not 0" '.gpus[0] | (has("power_mw") | not) and (.errors.power_mw | test("Permission denied"))' "$TMP/out"
expect_jq "faults: only the amdgpu card (not the BMC's ast)" '.gpu_count == 1' "$TMP/out"

# ---- Intel: xe (Max 1550, two tiles) and i915 (Arc A770 beside the integrated GPU)
MAX=$S/intel-max1550.json ARC=$S/intel-arc-a770.json
expect_exit "status: Max 1550 on xe" 0 "$GPUVET" --replay "$MAX" status --json
expect_jq "Max 1550: vendor, driver, both tiles' memory, the faster tile's clock" '.gpus[0] | .vendor == "Intel" and .driver == "xe" and .mem_total_bytes == 137438953472 and .clock_gr_mhz == 1550' "$TMP/out"
expect_jq "Max 1550: its process from xe's fdinfo, with its VRAM" '.gpus[0].processes == 1' "$TMP/out"
expect_exit "Max 1550: compute apps" 0 "$GPUVET" --replay "$MAX" status --query-compute-apps=pid,used_memory --format=csv,noheader
expect_grep "Max 1550: the job's 8 GiB of VRAM" '^7001, 8192 MiB$' "$TMP/out"
expect_exit "status: Arc A770 and the integrated GPU" 0 "$GPUVET" --replay "$ARC" status --json
expect_jq "Arc: both GPUs on i915, in bus order" '[.gpus[] | .driver] == ["i915", "i915"] and (.gpus[1].name | test("A770"))' "$TMP/out"
expect_jq "Arc: the link of the card's own switch, not the GPU's x1" '.gpus[1] | .pcie_width_max == 16' "$TMP/out"
expect_exit "doctor on the Intel machine (no oneAPI installed): exit 2" 2 "$GPUVET" --replay "$MAX" doctor --json
expect_jq "doctor: no NVIDIA GPU is information, the missing Level Zero the failure" '([.findings[] | select(.id == "pci.no_gpu")][0].severity == "info") and ([.findings[] | select(.severity == "fail") | .id] == ["oneapi.level_zero_missing", "oneapi.compute_runtime_missing"])' "$TMP/out"

# ---- watch and top
expect_exit "watch -c 1" 0 "$GPUVET" --replay "$MI" watch -c 1 -s pucm
expect_grep "watch: the MI300X's power, temperatures, util and clocks" '^ +0 +152 +45 +38 +37 +12 ' "$TMP/out"
expect_exit "watch --json" 0 "$GPUVET" --replay "$MI" watch -c 1 --json
expect_jq "watch --json: a reading" 'select(.kind == "gpu" and .gpu == 1) | .power_mw == 131000' "$TMP/out"
expect_exit "top --json" 0 "$GPUVET" --replay "$MI" top --json
expect_jq "top --json: processes named from /proc" '[.processes[] | select(.pid == 4242)] | length == 2' "$TMP/out"
expect_exit "top --once" 0 "$GPUVET" --replay "$MI" top --once --width 120
expect_grep "top: slowdown reasons said NVIDIA only, not 'nothing holding it back'" 'slowdown reasons n/a \(NVIDIA only\)' "$TMP/out"
expect_no_grep "top: no verdict it cannot give" 'nothing holding it back' "$TMP/out"

# ---- both kinds on one machine: NVML's GPU keeps index 0, the Radeon follows
MIX=$S/mixed-h200-rx7900xtx.json
expect_exit "mixed: status" 0 "$GPUVET" --replay "$MIX" status --query-gpu=index,vendor,compute_mode,temperature.gpu --format=csv,noheader
printf '0, NVIDIA, Default, 43\n1, AMD, [N/A], 52\n' >"$TMP/want"
if cmp -s "$TMP/want" "$TMP/out"; then pass "mixed: NVML's GPU then the Radeon, NVIDIA-only fields [N/A] on it alone"; else
	fail "mixed: NVML's GPU then the Radeon" "$(cat "$TMP/out")"; fi
expect_exit "mixed: -i 1 selects the Radeon" 0 "$GPUVET" --replay "$MIX" status -i 1 --json
expect_jq "mixed: -i 1 is the AMD GPU" '([.gpus[] | select(.vendor == "AMD")] | length) == 1 and (.gpus | length) == 1' "$TMP/out"
expect_exit "mixed: watch" 0 "$GPUVET" --replay "$MIX" watch -c 1 -s pu
expect_grep "mixed: watch has the Radeon's line" '^ +1 +78 +52 ' "$TMP/out"
expect_exit "mixed: doctor is NVIDIA's and AMD's" 0 "$GPUVET" --replay "$MIX" doctor --json
expect_jq "mixed: the NVIDIA GPU found, the AMD layer ok" '([.findings[] | select(.id == "pci.ok")] | length == 1) and ([.findings[] | select(.id == "amd.ok")] | length == 1)' "$TMP/out"

# ---- topo: the PCIe tree and NUMA apply; NVML's P2P and NVLink are said to be NVIDIA's
expect_exit "topo on the MI300X machine" 0 "$GPUVET" --replay "$MI" topo
expect_grep "topo: the pair across NUMA nodes from the PCI paths" '^GPU0 +X +SYS\* +0-47,96-143' "$TMP/out"
expect_grep "topo: P2P is NVIDIA's" '^P2P: n/a \(NVIDIA only' "$TMP/out"
expect_grep "topo: NVLink is NVIDIA's" '^NVLink: n/a \(NVIDIA only' "$TMP/out"
expect_exit "topo --json on the Arc machine" 0 "$GPUVET" --replay "$ARC" topo --json
expect_jq "topo --json: the A770's link" '.gpus[1].pcie.gen == 4 and .gpus[1].pcie.width == 16' "$TMP/out"

# ---- record and replay: the recording holds the files, and replays the same
expect_exit "record an AMD replay" 0 "$GPUVET" --replay "$MI" record "$TMP/again.json"
"$GPUVET" --replay "$MI" status --json | jq -S 'del(.gpus[].errors)' >"$TMP/a.json"
"$GPUVET" --replay "$TMP/again.json" status --json | jq -S 'del(.gpus[].errors)' >"$TMP/b.json"
if cmp -s "$TMP/a.json" "$TMP/b.json"; then pass "record round trip: the same status"; else
	fail "record round trip: the same status" "$(diff "$TMP/a.json" "$TMP/b.json" | head -5)"; fi
expect_jq "the recording keeps the sysfs files" '.files | has("/sys/class/drm")' "$TMP/again.json"

# ---- doctor: no NVIDIA GPU on a machine that never had NVIDIA's driver is not a failure
expect_exit "doctor on the MI300X machine: exit 0" 0 "$GPUVET" --replay "$MI" doctor --json
expect_jq "doctor: pci.no_gpu is information there" '[.findings[] | select(.id == "pci.no_gpu")][0].severity == "info"' "$TMP/out"
expect_jq "doctor: its echoes too" '[.findings[] | select(.echo_of == "pci.no_gpu") | .severity] | all(. == "info")' "$TMP/out"

# ---- serve: metrics and the agent
if start_serve "serve on the MI300X machine" "$MI" --interval 0.2; then
	wait_for "metrics" 5 curl -sf "$URL/metrics" -o "$TMP/m.txt"
	curl -sf "$URL/metrics" -o "$TMP/m.txt"
	expect_grep "serve: gpu_info names vendor and driver" '^gpuvet_gpu_info\{.*vendor="AMD",driver_version="",driver="amdgpu"' "$TMP/m.txt"
	expect_grep "serve: power from hwmon" '^gpuvet_power_watts\{gpu="0".*\} 152$' "$TMP/m.txt"
	expect_no_grep "serve: no NVIDIA-only series for them" '^gpuvet_clock_event_active\{gpu=' "$TMP/m.txt"
	stop_serve "serve on the MI300X machine"
fi
done_testing
