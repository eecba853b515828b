# burn_telemetry.sh: `gpuvet --replay SCENARIO burn`: burn computes on the two fake GPUs
# (tests/bench/fakegpu, GPUVET_CUDA_LIBRARY) and judges the telemetry a replay serves
# (tests/scenarios/burn, written by its make-scenarios.py): each fault that starts mid-run is
# raised on the GPU it hit, with the exit code it deserves; a healthy pair passes; a replay
# without a CUDA library named still gets the clear refusal.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
F="$TOP/$O/fakegpu"
if [ ! -f "$F/libcuda.so.1" ]; then
	if [ "${CI:-}" = true ]; then bail "burn telemetry on fake GPUs" "$F not built (make test builds it)"; fi
	skip_all "burn telemetry on fake GPUs: $F not built (make test builds it)"
fi
S="$SCEN/burn"
printf 'not a fatbin: the fake GPUs run C copies of the kernels\n' >"$TMP/kernels.bin"
export GPUVET_BENCH_KERNELS="$TMP/kernels.bin" GPUVET_CUBLASLT_LIBRARY="$F/libcublasLt.so.13"
# paced products, each far longer than the fake computes it even on a loaded 2-core machine:
# the two fake GPUs run at one rate (the sibling rule)
export FAKEGPU_MEM_MIB=512 FAKEGPU_PRODUCT_MS=120
R="--duration 5 --memory-fraction 0.002 --json"

# the replay's own CUDA library cannot compute: the refusal stays
expect_exit "burn --replay without a CUDA library (exit 5)" 5 "$GPUVET" --replay "$S/healthy.json" burn $R
expect_grep "burn --replay: clear refusal" "needs a real GPU: a replayed machine" "$TMP/err"
export GPUVET_CUDA_LIBRARY="$F/libcuda.so.1"

# burn_case NAME EXIT: run the scenario, keep its JSON as $TMP/NAME.json
burn_case() {
	expect_exit "burn --replay $1.json (exit $2)" "$2" "$GPUVET" --replay "$S/$1.json" burn $R
	cp "$TMP/out" "$TMP/$1.json"
}
# has GPU ID SEVERITY: the filter "GPU's findings hold ID at SEVERITY"
has() { echo "(.gpus[] | select(.index == $1) | [.findings[] | select(.id == \"$2\" and .severity == \"$3\")] | length) >= 1"; }
verdict() { echo "(.gpus[] | select(.index == $1) | .verdict) == \"$2\""; }

burn_case healthy 0
expect_jq "healthy: both GPUs PASS with telemetry" '(.gpus | length) == 2 and ([.gpus[] | .verdict == "PASS" and .samples >= 2 and .name == "NVIDIA H200" and ([.findings[].id] == ["burn.pass"])] | all)' "$TMP/healthy.json"
expect_jq "healthy: CUDA devices matched to NVML by bus id" '[.gpus[].bus_id] == ["0000:10:00.0", "0000:11:00.0"] and [.gpus[].serial] == ["0000000000000", "0000000000001"]' "$TMP/healthy.json"

burn_case thermal 2
expect_jq "thermal: burn.thermal fails GPU 1" "$(has 1 burn.thermal fail) and $(verdict 1 FAIL)" "$TMP/thermal.json"
expect_jq "thermal: GPU 0 passes" "$(verdict 0 PASS) and ([.gpus[0].findings[].id] | index(\"burn.thermal\") == null)" "$TMP/thermal.json"
expect_jq "thermal: evidence has the slowdown's share and the margin" '[.gpus[1].findings[] | select(.id == "burn.thermal") | .evidence[]] | (any(test("thermal slowdown .* active in [0-9]+ of [0-9]+ samples, first at")) and any(test("margin to slowdown: 1 C")))' "$TMP/thermal.json"

burn_case ecc 2
expect_jq "ecc: burn.ecc_new fails GPU 0" "$(has 0 burn.ecc_new fail) and $(verdict 0 FAIL)" "$TMP/ecc.json"
expect_jq "ecc: the count from 0 to 3" '[.gpus[0].findings[] | select(.id == "burn.ecc_new") | .evidence[] | select(test("volatile uncorrected ECC: 0 at .* 3 at"))] | length == 1' "$TMP/ecc.json"
expect_jq "ecc: GPU 1 passes" "$(verdict 1 PASS) and $(has 1 burn.pass ok)" "$TMP/ecc.json"

burn_case remap 2
expect_jq "remap: burn.remap fails GPU 1, pending set mid-run" "$(has 1 burn.remap fail) and ([.gpus[1].findings[] | select(.id == \"burn.remap\") | .evidence[] | select(test(\"remap pending set at\") and (test(\"already at the first sample\") | not))] | length == 1)" "$TMP/remap.json"
expect_jq "remap: GPU 0 passes" "$(verdict 0 PASS)" "$TMP/remap.json"

burn_case pcie 0
expect_jq "pcie: burn.pcie_replays warns on GPU 0 (a warning passes)" "$(has 0 burn.pcie_replays warn) and $(verdict 0 PASS) and $(has 1 burn.pass ok)" "$TMP/pcie.json"

burn_case slow 2
expect_jq "slow: GPU 1 fails against its sibling" "$(has 1 burn.slow_vs_siblings fail) and $(verdict 1 FAIL)" "$TMP/slow.json"
expect_jq "slow: the evidence names the clock and the sibling" '[.gpus[1].findings[] | select(.id == "burn.slow_vs_siblings") | .evidence[] | select(test("median SM clock under load: 1400 MHz against a median of 1980 over 1 sibling \\(GPU 0 1980\\)"))] | length == 1' "$TMP/slow.json"
expect_jq "slow: GPU 0 passes" "$(verdict 0 PASS) and $(has 0 burn.pass ok)" "$TMP/slow.json"
done_testing
