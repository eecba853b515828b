# burn.sh: `gpuvet burn` on two fake GPUs (tests/bench/fakegpu): arguments, a clean run that
# passes (exit 0), each fault of GPUVET_BURN_INJECT caught by the check meant for it (exit 2),
# the JSON's shape, and Ctrl-C (exit 130, a partial verdict). The fake multiplies n = 256 only:
# burn must fall back from 8192 to it. It checks the harness, not any GPU.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
fake_gpus "burn"
R="--duration 1 --memory-fraction 0.002"

# arguments
expect_exit "burn --help" 0 "$GPUVET" burn --help
expect_grep "burn --help names the levels" "1 = 30 s, 2 = 3 min, 3 = 15 min, 4 = 1 h" "$TMP/out"
expect_exit "burn --level 5 (exit 4)" 4 "$GPUVET" burn --level 5
expect_exit "burn --duration and --level (exit 4)" 4 "$GPUVET" burn --duration 3 --level 1
expect_exit "burn --duration 0 (exit 4)" 4 "$GPUVET" burn --duration 0
expect_exit "burn --precision int4 (exit 4)" 4 "$GPUVET" burn --precision int4
expect_exit "burn --memory-fraction 1.5 (exit 4)" 4 "$GPUVET" burn --memory-fraction 1.5
expect_exit "burn -i 7 names no GPU (exit 4)" 4 "$GPUVET" burn -i 7 $R
GPUVET_BURN_INJECT=melt expect_exit "burn: bad GPUVET_BURN_INJECT (exit 4)" 4 "$GPUVET" burn $R
expect_grep "burn: bad GPUVET_BURN_INJECT named" "GPUVET_BURN_INJECT='melt'" "$TMP/err"
GPUVET_CUBLASLT_LIBRARY=/nonexistent/libcublasLt.so.13 expect_exit "burn without cuBLASLt (exit 5)" 5 "$GPUVET" burn $R

# a clean run passes on both GPUs, products compared and checked
expect_exit "burn: clean run passes" 0 "$GPUVET" burn $R --json
cp "$TMP/out" "$TMP/clean.json"
expect_jq "burn: JSON shape" '(.gpus | length) == 2 and .exit_code == 0 and .interrupted == false and ([.gpus[] | has("index") and has("name") and has("serial") and has("bus_id") and has("tflops") and has("findings") and (.counts | has("products") and has("compare_errors") and has("reference_errors") and has("nan_inf"))] | all)' "$TMP/clean.json"
expect_jq "burn: every GPU PASS, no errors" '[.gpus[] | .verdict == "PASS" and .counts.products > 0 and .counts.reference_checks > 0 and .counts.compare_errors == 0 and .counts.reference_errors == 0 and .counts.nan_inf == 0] | all' "$TMP/clean.json"
expect_jq "burn: falls back to the size the fake runs, several buffers" '[.gpus[] | .n == 256 and .buffers >= 2] | all' "$TMP/clean.json"
expect_exit "burn: text report" 0 "$GPUVET" burn -i 1 $R
expect_grep "burn: text names the GPU and PASS" "^GPU 1  Fake GPU 1 .* 0000:11:00.0  PASS" "$TMP/out"
expect_no_grep "burn: -i 1 leaves GPU 0 alone" "^GPU 0" "$TMP/out"

# each fault caught by its own check, on the GPU it was put on
GPUVET_BURN_INJECT=bitflip:1 expect_exit "burn: a flipped bit fails (exit 2)" 2 "$GPUVET" burn $R --json
expect_jq "burn: bitflip caught by compare on GPU 1 only" '(.gpus[0].verdict == "PASS") and (.gpus[1].verdict == "FAIL") and .gpus[1].counts.compare_errors >= 1 and .gpus[0].counts.compare_errors == 0' "$TMP/out"
GPUVET_BURN_INJECT=nan:0 expect_exit "burn: a NaN fails (exit 2)" 2 "$GPUVET" burn $R --json
expect_jq "burn: NaN counted on GPU 0" '.gpus[0].verdict == "FAIL" and .gpus[0].counts.nan_inf >= 1 and .gpus[1].verdict == "PASS"' "$TMP/out"
GPUVET_BURN_INJECT=ulp expect_exit "burn: consistently wrong results fail (exit 2)" 2 "$GPUVET" burn $R --json
expect_jq "burn: ulp caught by the reference, not by compare" '[.gpus[] | .verdict == "FAIL" and .counts.reference_errors >= 1 and .counts.compare_errors == 0] | all' "$TMP/out"
GPUVET_BURN_INJECT=ulp:1 expect_exit "burn: text report says FAIL" 2 "$GPUVET" burn $R
expect_grep "burn: the failing GPU is FAIL" "^GPU 1  .*  FAIL$" "$TMP/out"

# Ctrl-C: a partial verdict, exit 130
"$GPUVET" burn --duration 60 --memory-fraction 0.002 --json >"$TMP/int.json" 2>"$TMP/int.err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
if [ "$rc" = 130 ]; then pass "burn: Ctrl-C exits 130"; else fail "burn: Ctrl-C exits 130" "exit $rc"; fi
expect_jq "burn: Ctrl-C partial verdict" '.interrupted == true and .exit_code == 130 and (.gpus | length) == 2' "$TMP/int.json"
expect_grep "burn: Ctrl-C says memory was freed" "GPU memory freed" "$TMP/int.err"
done_testing
