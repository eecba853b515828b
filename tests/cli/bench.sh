# bench.sh: `gpuvet bench` argument handling, and its failure paths on a replayed 2 x H200
# machine (tests/bench/h200x2-skeleton.json: what NVML and the CUDA probe answered there).
. "$TOP/tests/cli/lib.sh"
REC="$TOP/tests/bench/h200x2-skeleton.json"

expect_exit "bench --help" 0 "$GPUVET" bench --help
expect_grep "bench usage" '^usage: gpuvet bench' "$TMP/out"
expect_grep "bench usage names the exit codes" '130 interrupted' "$TMP/out"
expect_grep "bench usage: -i, --id as nvidia-smi" '^  -i, --id IDS ' "$TMP/out"
expect_no_grep "bench usage: --gpu is no longer shown" '--gpu' "$TMP/out"
expect_exit "help bench" 0 "$GPUVET" help bench
expect_exit "bench --list" 0 "$GPUVET" bench --list
cp "$TMP/out" "$TMP/list"
# the benchmarks as the table has them (src/bench/family.c): the lines before the first blank one
benches=$(awk '/^$/ { exit } $1 != "all" { print $1 }' "$TMP/list")
n=$(echo $benches | wc -w)
if [ "$n" -ge 7 ]; then pass "bench --list names $n benchmarks"; else fail "bench --list names the benchmarks" "$benches"; fi
expect_grep "bench --list names all" "^all +" "$TMP/list"
expect_grep "bench --list says what kernels the binary holds" '^kernels: (built by nvcc|none: gpuvet was built without nvcc)' "$TMP/out"

expect_exit "unknown benchmark" 4 "$GPUVET" bench memroy
expect_grep "unknown benchmark is named" "unknown benchmark 'memroy'" "$TMP/err"
expect_grep "unknown benchmark hint lists them" "gpuvet bench --list" "$TMP/err"
expect_exit "unknown benchmark among good ones" 4 "$GPUVET" bench memory frobnicate gemm
expect_exit "bad --size" 4 "$GPUVET" bench --size 12Q memory
expect_grep "bad --size message" "bad --size '12Q'" "$TMP/err"
expect_exit "--size below 4K" 4 "$GPUVET" bench --size 100 memory
expect_exit "--size zero" 4 "$GPUVET" bench --size 0 memory
expect_exit "--time-budget 0" 4 "$GPUVET" bench --time-budget 0
expect_exit "--time-budget junk" 4 "$GPUVET" bench --time-budget 1s
expect_exit "--time-budget too long" 4 "$GPUVET" bench --time-budget 1000
expect_exit "--load with a benchmark" 4 "$GPUVET" bench --load x.json memory
expect_exit "unknown bench option" 4 "$GPUVET" bench --frobnicate
expect_grep "bench usage hint" "try 'gpuvet bench --help'" "$TMP/err"

# a replayed machine: the probe answers, nothing can be measured
expect_exit "replay: GPU index that does not exist" 4 "$GPUVET" --replay "$REC" bench -i 7 memory
expect_grep "replay: the bad index is named" "no GPU matches '7' \(2 GPUs present\)" "$TMP/err"
expect_exit "replay: one bad id among good ones" 4 "$GPUVET" --replay "$REC" bench -i 0,2 memory
expect_exit "replay: --size that does not fit" 4 "$GPUVET" --replay "$REC" bench --size 100G memory
expect_grep "replay: the size message names GPU and memory" \
	'--size 100 GiB does not fit: these benchmarks need 3 buffers of it and GPU 0 has 139.8 GiB' "$TMP/err"
expect_exit "replay: --size for transfer needs 2 buffers" 4 "$GPUVET" --replay "$REC" bench --size 70G transfer
expect_grep "replay: 2 buffers" 'need 2 buffers' "$TMP/err"
expect_exit "replay: bench needs a real GPU" 5 "$GPUVET" --replay "$REC" bench memory
expect_grep "replay: clear message" 'gpuvet bench needs a real GPU: a replayed machine' "$TMP/err"
expect_grep "replay: hint points at --load" "bench --load FILE" "$TMP/err"
expect_exit "replay: a GPU named by bus id" 5 "$GPUVET" --replay "$REC" bench -i 0000:00:07.0 memory
expect_no_grep "replay: the bus id is accepted" "no GPU matches" "$TMP/err"
expect_exit "replay: launch has no buffers, so any --size fits" 5 "$GPUVET" --replay "$REC" bench --size 100G launch
expect_exit "replay: all" 5 "$GPUVET" --replay "$REC" bench
expect_no_grep "replay: nothing printed on stdout" "." "$TMP/out"

# a machine without a GPU: -i cannot match, and that is not the user's mistake: the message
# says there is no GPU and points at doctor, not at status (issue 10, bug 8: the old binary said
# "no GPU matches '0'" with exit 4 and a hint at status)
for how in "-i 0" "--id 0" ""; do
	expect_exit "no GPU: bench $how exits 5" 5 env GPUVET_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 \
		GPUVET_CUDA_LIBRARY=/nonexistent/libcuda.so.1 "$GPUVET" bench $how memory
	expect_grep "no GPU: bench $how says there is no GPU" '^gpuvet: error: no GPU to measure' "$TMP/err"
	expect_grep "no GPU: bench $how points at doctor" "hint: run 'gpuvet doctor'" "$TMP/err"
	expect_no_grep "no GPU: bench $how does not point at status" 'status' "$TMP/err"
done

# every benchmark --list names is taken on the command line (past the names, to "needs a real
# GPU") and has its row in docs/bench.md
for b in $benches; do
	expect_exit "replay: bench $b is a benchmark" 5 "$GPUVET" --replay "$REC" bench "$b"
	expect_grep "docs/bench.md describes $b" "^\| \`$b\` \|" "$TOP/docs/bench.md"
done
done_testing
