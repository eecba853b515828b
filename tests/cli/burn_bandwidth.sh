# burn_bandwidth.sh: burn's bandwidth and power phases on two fake GPUs (tests/bench/fakegpu):
# the bandwidth phase measures device memory and both directions of the host link (numbers in
# the JSON, verified copies), puts the model's HBM peak beside it (the fake's memory clock,
# FAKEGPU_MEM_CLOCK_MHZ, sets the peak below or far above what the CPU copies) and
# burn.bandwidth_low fires when the figure is under it; the power phase runs and reports its
# object. Without NVML (as here) the host link's expected rate is n/a. After the phase every pair
# of GPUs is measured both ways (burn.p2p_unavailable, burn.p2p_low against the other pairs and
# peer copy errors through FAKEGPU_NO_PEER, FAKEGPU_SLOW_PEER, FAKEGPU_CORRUPT). It checks the
# harness, not any GPU.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
fake_gpus "burn"

# a peak of 16 MHz x 2 x 256 bit / 8 = 1.024 GB/s: the CPU's copies are well above it
export FAKEGPU_MEM_CLOCK_MHZ=16
expect_exit "burn --mode bandwidth: passes" 0 "$GPUVET" burn --mode bandwidth --duration 2 --json
cp "$TMP/out" "$TMP/bw.json"
expect_jq "burn --mode bandwidth: only that phase ran" '.modes == ["bandwidth"] and ([.gpus[] | .power == null and .memory == null and .counts.products == 0] | all)' "$TMP/bw.json"
expect_jq "burn --mode bandwidth: device and both host-link figures are numbers" '[.gpus[] | .bandwidth | (.device_gbs | type) == "number" and .device_gbs > 0 and (.h2d_gbs | type) == "number" and .h2d_gbs > 0 and (.d2h_gbs | type) == "number" and .d2h_gbs > 0] | all' "$TMP/bw.json"
expect_jq "burn --mode bandwidth: the model's peak beside it, the link's n/a without NVML" '[.gpus[] | .bandwidth | .device_expect_gbs > 1.02 and .device_expect_gbs < 1.03 and .link_expect_gbs == null and .link_gen == null] | all' "$TMP/bw.json"
expect_jq "burn --mode bandwidth: copies verified, buffers sized" '[.gpus[] | .bandwidth | .bad_words == 0 and .device_bytes >= 4096 and .host_bytes >= 4096 and .host_bytes <= .device_bytes] | all' "$TMP/bw.json"
expect_jq "burn --mode bandwidth: every GPU PASS, burn.pass names the figures" '[.gpus[] | .verdict == "PASS" and ([.findings[] | select(.id == "burn.pass") | .evidence[] | select(test("^bandwidth: device memory [0-9.]+ GB/s \\([0-9]+ % of 1.0 expected\\); host to GPU [0-9.]+ GB/s \\(expected n/a\\)"))] | length == 1)] | all' "$TMP/bw.json"
expect_jq "burn --mode bandwidth: no bandwidth finding above the peak" '[.gpus[].findings[] | select(.id == "burn.bandwidth_low" or .id == "burn.copy_errors")] | length == 0' "$TMP/bw.json"
expect_exit "burn --mode bandwidth: text report" 0 "$GPUVET" burn -i 1 --mode bandwidth --duration 1
expect_grep "burn --mode bandwidth: text shows the figures" "^  bandwidth: device [0-9]+ GB/s, host to GPU [0-9.]+ GB/s, GPU to host [0-9.]+ GB/s$" "$TMP/out"
expect_grep "burn --mode bandwidth: text shows what is expected" "^  expected: device 1 GB/s \\(HBM peak\\), host link n/a$" "$TMP/out"

# a peak of 64 TB/s: no CPU copies that, so each GPU's device memory is low (a warning: PASS)
FAKEGPU_MEM_CLOCK_MHZ=1000000 expect_exit "burn --mode bandwidth: far below the peak still exits 0" 0 "$GPUVET" burn --mode bandwidth --duration 1 --json
expect_jq "burn --mode bandwidth: burn.bandwidth_low on each GPU, with its evidence" '[.gpus[] | .verdict == "PASS" and ([.findings[] | select(.id == "burn.bandwidth_low" and .severity == "warn") | select(any(.evidence[]; test("^device memory \\(copy kernel, HBM traffic\\): [0-9.]+ GB/s, 0 % of the 64000.0 GB/s expected \\(the model.s HBM peak\\) \\(under 70 % warns\\)$")))] | length == 1)] | all' "$TMP/out"

# GPU to GPU: after both bandwidth phases, the pair is measured both ways, verified, and shown;
# the fakes reach each other (cuDeviceCanAccessPeer) and, without NVML, the path is unknown
expect_jq "burn --mode bandwidth: the pair measured both ways" '.p2p | length == 1 and (.[0] | .gpu == 0 and .peer == 1 and .can_access and .peer_can_access and .gbs > 0 and .peer_gbs > 0 and .bad_words == 0 and .bytes >= 4096 and .expect_gbs == null and .path == "unknown")' "$TMP/bw.json"
expect_jq "burn --mode bandwidth: burn.pass names the pair" '[.gpus[] | [.findings[] | select(.id == "burn.pass") | .evidence[] | select(test("^GPU to GPU: with GPU [01] [0-9.]+ out, [0-9.]+ in GB/s \\(expected n/a\\)$"))] | length == 1] | all' "$TMP/bw.json"
expect_exit "burn --mode bandwidth: text with the pair" 0 "$GPUVET" burn --mode bandwidth --duration 1
expect_grep "burn --mode bandwidth: text lists the pair" "^  GPU 0 -> GPU 1 [0-9.]+ GB/s, GPU 1 -> GPU 0 [0-9.]+ GB/s; expected n/a$" "$TMP/out"
expect_exit "burn --mode bandwidth: one GPU, no pair" 0 "$GPUVET" burn -i 1 --mode bandwidth --duration 1 --json
expect_jq "burn --mode bandwidth: one GPU, an empty list of pairs" '.p2p == []' "$TMP/out"
# two GPUs that cannot reach each other: noted (information), not measured, still PASS
FAKEGPU_NO_PEER=0:1 expect_exit "burn --mode bandwidth: no P2P path still exits 0" 0 "$GPUVET" burn --mode bandwidth --duration 1 --json
expect_jq "burn --mode bandwidth: no P2P path noted on both GPUs" '(.p2p[0] | .can_access == false and .peer_can_access == false and .gbs == null and .peer_gbs == null) and ([.gpus[] | .verdict == "PASS" and ([.findings[] | select(.id == "burn.p2p_unavailable" and .severity == "info" and (.summary | test("GPU 0 and GPU 1 cannot reach each other")))] | length == 1)] | all)' "$TMP/out"
# three GPUs, the link between 0 and 1 ten times slower: those two warn (burn.p2p_low against
# the other pairs), GPU 2 passes
FAKEGPU_COUNT=3 FAKEGPU_SLOW_PEER=0:1 expect_exit "burn --mode bandwidth: a slow pair still exits 0" 0 "$GPUVET" burn --mode bandwidth --duration 1 --json
expect_jq "burn --mode bandwidth: three pairs" '[.p2p[] | "\(.gpu)-\(.peer)"] == ["0-1","0-2","1-2"]' "$TMP/out"
expect_jq "burn --mode bandwidth: burn.p2p_low on GPUs 0 and 1 only" '[.gpus[] | [.findings[] | select(.id == "burn.p2p_low")] | length] == [1,1,0]' "$TMP/out"
expect_jq "burn --mode bandwidth: burn.p2p_low's evidence" '[.gpus[0].findings[] | select(.id == "burn.p2p_low") | .evidence[] | select(test("^GPU 0 -> GPU 1: [0-9.]+ GB/s, expected: n/a \\(path unknown\\); [0-9]+ % of the median [0-9.]+ GB/s of 4 other copies over the same kind of path \\(under 85 % warns\\)$"))] | length == 1' "$TMP/out"
# a peer copy that reads back wrong fails both GPUs of the pair
FAKEGPU_CORRUPT=cuMemcpyPeerAsync expect_exit "burn --mode bandwidth: a corrupted peer copy fails (exit 2)" 2 "$GPUVET" burn --mode bandwidth --duration 1 --json
expect_jq "burn --mode bandwidth: burn.copy_errors on both GPUs" '.p2p[0].bad_words > 0 and ([.gpus[] | .verdict == "FAIL" and ([.findings[] | select(.id == "burn.copy_errors" and (.summary | test("^GPU-to-GPU copies with GPU [01] read back")))] | length == 1)] | all)' "$TMP/out"

# the power phase runs and reports its object
expect_exit "burn --mode power: passes" 0 "$GPUVET" burn --mode power --duration 1 --memory-fraction 0.002 --json
expect_jq "burn --mode power: the power object" '.modes == ["power"] and ([.gpus[] | .bandwidth == null and (.power | .precision == "bf16" and .n == 256 and .products > 0 and (.tflops | type) == "number")] | all)' "$TMP/out"
done_testing
