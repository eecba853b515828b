# bench_fakegpu.sh: `gpuvet bench` from start to end on two fake GPUs (tests/bench/fakegpu: a
# CPU-backed libcuda, libnccl and libcublasLt): every benchmark runs and verifies; a wrong result
# fails the exit code; a kernel image the driver refuses, a missing library and Ctrl-C give
# clear messages, and partial results. The fake says nothing about speed: it checks the harness.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
F="$TOP/$O/fakegpu"
if [ ! -f "$F/libcuda.so.1" ]; then
	# CI builds them (make test): not there, the harness went unchecked
	if [ "${CI:-}" = true ]; then bail "bench on fake GPUs" "$F not built (make test builds it)"; fi
	skip_all "bench on fake GPUs: $F not built (make test builds it)"
fi
if ! "$GPUVET" bench --list | grep -q '^kernels: built by nvcc'; then
	# built without nvcc (as on CI): the fake driver ignores the image, any file will do
	printf 'not a fatbin: the fake GPUs run C copies of the kernels\n' >"$TMP/kernels.bin"
	export GPUVET_BENCH_KERNELS="$TMP/kernels.bin"
fi
export GPUVET_CUDA_LIBRARY="$F/libcuda.so.1" GPUVET_NCCL_LIBRARY="$F/libnccl.so.2"
export GPUVET_CUBLASLT_LIBRARY="$F/libcublasLt.so.13" GPUVET_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
export FAKEGPU_MEM_MIB=512
B="--size 1M --time-budget 0.01"

expect_exit "fake: all benchmarks, quick" 0 "$GPUVET" bench all --quick $B --json --html "$TMP/q.html"
cp "$TMP/out" "$TMP/q.json"
# --quick multiplies n = 1024 and 8192 only, which the fake cuBLASLt refuses: gemm is noted, not
# run; every other benchmark --list names ran
others=$("$GPUVET" bench --list | awk '/^$/ { exit } $1 != "all" && $1 != "gemm" { print $1 }' | sort |
	jq -R . | jq -sc .)
expect_jq "fake: every other benchmark ran" "[.results[].bench] | unique == $others and length >= 6" "$TMP/q.json"
expect_jq "fake: every result verified" '([.results[] | .verified == true] | all) and (.results | length) > 40' "$TMP/q.json"
expect_jq "fake: two devices" '.devices | length == 2' "$TMP/q.json"
expect_jq "fake: p2p both ways" '[.results[] | select(.bench == "p2p") | "\(.gpu)->\(.peer)"] | unique == ["0->1","1->0"]' "$TMP/q.json"
expect_jq "fake: the fastest variant is named" '[.results[] | select(.test == "copy_kernel" and .headline) | .config | test("kernel copy_(gs|bt)[48]")] | all' "$TMP/q.json"
expect_jq "fake: pinned factor measured" '[.summary[] | select(.key == "pinned_over_pageable_h2d")] | length == 2' "$TMP/q.json"
expect_jq "fake: no errors" '.errors == [] and .exit_code == 0' "$TMP/q.json"
n=$(grep -o '<svg' "$TMP/q.html" | wc -l)
if [ "$n" -ge 6 ]; then pass "fake: html plots ($n)"; else fail "fake: html plots" "$n"; fi

# gemm at the one size the fake cuBLASLt takes (n = 256), every precision, verified
expect_exit "fake: gemm" 0 "$GPUVET" bench gemm -i 1 --size 1M --time-budget 0.05 --json
cp "$TMP/out" "$TMP/g.json"
expect_jq "fake: gemm six precisions" '[.results[] | select(.bench == "gemm") | .test] | unique == ["bf16","fp16","fp32","fp64","fp8","tf32"]' "$TMP/g.json"
expect_jq "fake: gemm on GPU 1 only" '[.results[].gpu] | unique == [1]' "$TMP/g.json"
expect_jq "fake: gemm verified against fp64" '[.results[] | .verified and (.verify | test("fp64 CPU reference"))] | all' "$TMP/g.json"
expect_jq "fake: gemm candidates timed" '[.results[] | .config | test("algorithm [0-9]+ of [0-9]+ timed")] | all' "$TMP/g.json"
expect_jq "fake: several candidates compared" '[.results[] | .config | capture("of (?<n>[0-9]+) timed").n | tonumber] | max >= 2' "$TMP/g.json"
expect_jq "fake: mixed-precision summary" '[.summary[] | select(.key == "gpu1_bf16_over_fp32")] | length == 1' "$TMP/g.json"
expect_jq "fake: sizes the fake refuses are noted" '[.notes[] | select(.kind == "skip" and (.text | test("no fp64 algorithm")))] | length == 1' "$TMP/g.json"
# issue 10: normal(0, 1) inputs by default; the headline measured sustained (>= 0.5 s back to
# back) with the burst beside it, in JSON and in the text
expect_jq "fake: gemm inputs normal, layout tn" '[.results[] | .config | test("; tn, normal;")] | all' "$TMP/g.json"
expect_jq "fake: gemm headline sustained >= 0.5 s, burst of 20 beside it" \
	'[.results[] | select(.headline) | .sustained_s >= 0.5 and .sustained_ops >= 2 and .burst > 0 and .burst_ops == 20] | (all and length == 6)' "$TMP/g.json"
expect_jq "fake: gemm headline median is the whole run's rate" \
	'[.results[] | select(.headline) | (.median - 2 * pow(.size; 3) / (.sustained_s / .sustained_ops) / 1e12 | fabs) < 1e-9] | all' "$TMP/g.json"
expect_jq "fake: gemm burst summaries" '[.summary[] | select(.key | test("^gpu1_[a-z0-9]+_burst$"))] | length == 6' "$TMP/g.json"
G1="GPUVET_GEMM_SUSTAIN=0.05 GPUVET_GEMM_BURST=3 GPUVET_GEMM_SIZES=256"
expect_exit "fake: gemm text" 0 env $G1 GPUVET_GEMM_PRECISIONS=bf16 "$GPUVET" bench gemm -i 0 --time-budget 0.02
expect_grep "fake: gemm text shows sustained and burst" 'bf16 at n=256: .* TFLOP/s sustained \(.* products back to back, .* s\); .* in a burst of 3' "$TMP/out"
# the variants a side-by-side run compares (tests/gpu/gemm-vs-torch.sh)
for l in nn nt; do
	expect_exit "fake: gemm layout $l" 0 env $G1 GPUVET_GEMM_LAYOUT=$l GPUVET_GEMM_PRECISIONS=bf16,fp8,fp64 \
		"$GPUVET" bench gemm -i 0 --time-budget 0.02 --json
	expect_jq "fake: gemm layout $l verified (fp8 stays tn)" \
		"[.results[] | . as \$r | .verified and (.config | test(if \$r.test == \"fp8\" then \"; tn,\" else \"; $l,\" end))] | (all and length == 3)" "$TMP/out"
done
expect_exit "fake: gemm heuristic's first, uniform inputs" 0 env $G1 GPUVET_GEMM_ALGOS=1 GPUVET_GEMM_INPUT=uniform \
	GPUVET_GEMM_WORKSPACE=64M GPUVET_GEMM_PRECISIONS=fp16 "$GPUVET" bench gemm -i 0 --time-budget 0.02 --json
expect_jq "fake: gemm untimed first algorithm, uniform" '[.results[] | .verified and (.config | test("uniform; the heuristic.s first algorithm, untimed"))] | (all and length == 1)' "$TMP/out"
expect_exit "fake: gemm bad variant (exit 4)" 4 env GPUVET_GEMM_ALGOS=0 "$GPUVET" bench gemm -i 0 $B
expect_grep "fake: gemm bad variant named" "GPUVET_GEMM_ALGOS='0': expected a whole number from 1 to 16" "$TMP/err"
# a wrong product (A read the wrong way round) fails verification, signed inputs and all
for l in tn nn; do
	FAKEGPU_CORRUPT=cublasLtMatmul expect_exit "fake: gemm wrong product fails ($l, exit 2)" 2 env $G1 GPUVET_GEMM_LAYOUT=$l \
		"$GPUVET" bench gemm -i 0 --time-budget 0.02 --json
	expect_jq "fake: gemm every precision caught ($l)" '[.results[] | .verified == false and (.verify | test("^MISMATCH"))] | (all and length == 6)' "$TMP/out"
done

# a wrong result fails the run, loudly
FAKEGPU_CORRUPT=gv_copy_ expect_exit "fake: a corrupted copy fails verification (exit 2)" 2 \
	"$GPUVET" bench memory -i 0 $B
expect_grep "fake: the row says FAILED" 'copy, .*FAILED' "$TMP/out"
expect_grep "fake: the summary line says so" 'FAILED verification' "$TMP/out"
FAKEGPU_CORRUPT=gv_axpy expect_exit "fake: a wrong axpy fails fit" 2 "$GPUVET" bench fit --quick $B --json
expect_jq "fake: fit's GPU rows failed, the CPU rows did not" \
	'([.results[] | select(.test == "axpy_gpu") | .verified] | all(. == false)) and ([.results[] | select(.test == "axpy_cpu") | .verified] | all)' "$TMP/out"

# a kernel image from a file that cannot be read
GPUVET_BENCH_KERNELS="$TMP/none.fatbin" expect_exit "fake: GPUVET_BENCH_KERNELS unreadable (exit 5)" 5 "$GPUVET" bench launch $B
expect_grep "fake: names the file" "cannot read GPUVET_BENCH_KERNELS '$TMP/none.fatbin'" "$TMP/err"

# the driver will not load the kernels
FAKEGPU_MODULE_ERROR=209 expect_exit "fake: kernel image refused (exit 5)" 5 "$GPUVET" bench launch $B
expect_grep "fake: names the GPU and the error" "cannot load gpuvet's kernels on GPU 0 \(Fake GPU 0, sm_90\): CUDA_ERROR_NO_BINARY_FOR_GPU" "$TMP/err"
expect_grep "fake: passes the JIT log on" 'no image for this GPU' "$TMP/err"
expect_grep "fake: hint to rebuild" 'rebuild gpuvet with a CUDA toolkit' "$TMP/err"

# libraries
GPUVET_CUBLASLT_LIBRARY=/nonexistent/libcublasLt.so.13 expect_exit "fake: gemm without cuBLASLt (exit 5)" 5 \
	"$GPUVET" bench gemm $B
expect_grep "fake: cuBLASLt message" "cannot load cuBLASLt" "$TMP/err"
expect_grep "fake: cuBLASLt hint" "GPUVET_CUBLASLT_LIBRARY" "$TMP/err"
GPUVET_NCCL_LIBRARY=/nonexistent/libnccl.so.2 expect_exit "fake: allreduce without NCCL (exit 5)" 5 \
	"$GPUVET" bench allreduce $B
expect_grep "fake: NCCL message" "cannot load NCCL" "$TMP/err"
GPUVET_NCCL_LIBRARY=/nonexistent/libnccl.so.2 expect_exit "fake: all without NCCL skips all-reduce" 0 \
	"$GPUVET" bench all --quick $B --json
expect_jq "fake: the skip is a note" '[.notes[] | select(.bench == "allreduce" and .kind == "skip" and (.text | test("needs NCCL")))] | length == 1' "$TMP/out"
FAKEGPU_COUNT=1 expect_exit "fake: one GPU: p2p and allreduce skip" 0 "$GPUVET" bench p2p allreduce $B --json
expect_jq "fake: one GPU notes" '[.notes[] | select(.kind == "skip")] | length == 2' "$TMP/out"

# memory that runs out mid-run: the message names the size, the results so far are kept
FAKEGPU_MEM_MIB=64 expect_exit "fake: --size too big for the free memory, found mid-run" 4 \
	"$GPUVET" bench launch memory --size 21M --time-budget 0.01 --json
expect_jq "fake: launch results kept" '[.results[] | select(.bench == "launch")] | length == 6' "$TMP/out"
expect_jq "fake: the error is in the document" '(.errors | length) == 1 and .exit_code == 4' "$TMP/out"
expect_grep "fake: names what does not fit" "memory needs 3 buffers of it and GPU 0 has" "$TMP/err"
FAKEGPU_MEM_MIB=62 expect_exit "fake: out of GPU memory mid-run" 5 \
	"$GPUVET" bench launch transfer -i 1 --size 31M --time-budget 0.01 --json
expect_grep "fake: the allocation is named" "cannot allocate 31 MiB of GPU memory on GPU 1 for the transfer buffers: CUDA_ERROR_OUT_OF_MEMORY" "$TMP/err"
expect_jq "fake: results before it kept" '[.results[] | select(.bench == "launch")] | length == 3' "$TMP/out"

# an output that cannot be written fails before anything is measured (issue 10, bug 7: the old
# binary measured the whole run first): exit 3 at once, naming the path, nothing on stdout
for bad in "$TMP/no/such/folder/r.html" "$TMP"; do
	start=$(date +%s)
	expect_exit "fake: --html $bad unwritable: exit 3" 3 "$GPUVET" bench all --size 4M --time-budget 0.3 --html "$bad"
	took=$(($(date +%s) - start))
	if [ "$took" -le 1 ]; then pass "fake: --html $bad fails before measuring (${took} s)"; else
		fail "fake: --html $bad fails before measuring" "took $took s"; fi
	expect_grep "fake: --html $bad: the path is named" "cannot write '$bad'" "$TMP/err"
	expect_no_grep "fake: --html $bad: nothing measured" "." "$TMP/out"
done
mkdir "$TMP/ro" && chmod 555 "$TMP/ro"
if touch "$TMP/ro/probe" 2>/dev/null; then
	rm -f "$TMP/ro/probe"
	skip "fake: --html into a read-only folder: this user writes anywhere (root)"
else
	expect_exit "fake: --html into a read-only folder: exit 3" 3 "$GPUVET" bench memory $B --html "$TMP/ro/r.html"
	expect_grep "fake: read-only folder: the reason" "cannot write '$TMP/ro/r.html': Permission denied" "$TMP/err"
fi
if [ -z "$(ls -A "$TMP/ro")" ]; then pass "fake: the check leaves nothing behind"; else
	fail "fake: the check leaves nothing behind" "$(ls -A "$TMP/ro")"; fi
chmod 755 "$TMP/ro"
# the check changes nothing at a writable path: the page is still written after the run
expect_exit "fake: --html to a writable path" 0 "$GPUVET" bench launch $B --html "$TMP/ok.html"
expect_grep "fake: the page is written" '<title>gpuvet bench</title>' "$TMP/ok.html"
if [ "$(ls -A "$TMP" | grep -c '^\.ok\.html\.')" -eq 0 ]; then pass "fake: no temporary file left"; else
	fail "fake: no temporary file left"; fi

# GPU selection as nvidia-smi spells it: -i and --id; --gpu stays as a hidden alias
expect_exit "fake: bench --id 1" 0 "$GPUVET" bench launch --id 1 $B --json
expect_jq "fake: --id 1 measures GPU 1 only" '[.results[].gpu] | unique == [1]' "$TMP/out"
expect_exit "fake: bench --gpu 0 (older spelling)" 0 "$GPUVET" bench launch --gpu 0 $B --json
expect_jq "fake: --gpu 0 measures GPU 0 only" '[.results[].gpu] | unique == [0]' "$TMP/out"

# Ctrl-C: partial results, exit 130
for sig in INT TERM; do
	"$GPUVET" bench all --size 4M --time-budget 0.3 --json >"$TMP/int.json" 2>"$TMP/int.err" &
	pid=$!
	sleep 1.5
	kill -$sig "$pid"
	wait "$pid"
	rc=$?
	if [ "$rc" -eq 130 ]; then pass "fake: SIG$sig exits 130"; else fail "fake: SIG$sig exits 130" "exit $rc"; fi
	expect_jq "fake: SIG$sig keeps the results so far" '.interrupted == true and (.results | length) > 0 and .exit_code == 130' "$TMP/int.json"
	expect_grep "fake: SIG$sig says so" 'interrupted: partial results shown, GPU memory freed' "$TMP/int.err"
done
done_testing
