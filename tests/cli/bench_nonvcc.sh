# bench_nonvcc.sh: gpuvet builds without nvcc (make NVCC=false), and bench then says why it cannot
# run. Builds a second tree under $TMP (about a minute on two cores).
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
if ! (cd "$TOP" && make -s -j2 O="$TMP/nonvcc" NVCC=false build-only) >"$TMP/make.log" 2>&1; then
	bail "make NVCC=false builds" "$(tail -c 400 "$TMP/make.log")"
fi
pass "make NVCC=false builds"
G="$TMP/nonvcc/gpuvet"
if [ -f "$TMP/nonvcc/kernels/gpuvet.fatbin" ]; then fail "no fatbin without nvcc"; else pass "no fatbin without nvcc"; fi
expect_exit "nonvcc: --list" 0 "$G" bench --list
expect_grep "nonvcc: --list says there are no kernels" '^kernels: none: gpuvet was built without nvcc' "$TMP/out"
expect_exit "nonvcc: bench says why it cannot run" 5 env GPUVET_NVML_LIBRARY=/nonexistent "$G" bench memory
expect_grep "nonvcc: the message" 'gpuvet was built without nvcc; install the CUDA toolkit and rebuild to run bench' "$TMP/err"
expect_exit "nonvcc: other commands work" 0 "$G" --version
# GPUVET_BENCH_KERNELS supplies an image; on the fake GPUs any file runs the whole harness
F="$TOP/$O/fakegpu"
if [ -f "$F/libcuda.so.1" ]; then
	echo "any bytes" >"$TMP/k.bin"
	expect_exit "nonvcc: bench runs with GPUVET_BENCH_KERNELS on fake GPUs" 0 env \
		GPUVET_BENCH_KERNELS="$TMP/k.bin" GPUVET_CUDA_LIBRARY="$F/libcuda.so.1" \
		GPUVET_NVML_LIBRARY=/nonexistent "$G" bench launch memory --quick --size 1M --json
	expect_jq "nonvcc: the file is recorded" '.versions.kernels_file != null and .unverified == 0' "$TMP/out"
	expect_exit "nonvcc: --list names the file" 0 env GPUVET_BENCH_KERNELS="$TMP/k.bin" "$G" bench --list
	expect_grep "nonvcc: --list line" '^kernels: from GPUVET_BENCH_KERNELS=' "$TMP/out"
fi
expect_exit "nonvcc: stored results still render" 0 "$G" bench --load "$TOP/tests/bench/sample-fakegpu.json"
done_testing
