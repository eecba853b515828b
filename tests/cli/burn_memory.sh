# burn_memory.sh: `gpuvet burn --mode memory` on two fake GPUs (tests/bench/fakegpu, 512 MiB
# each): a clean run takes at least 90 % of the free memory and checks every word in every
# verifying step of at least one pass; GPUVET_BURN_INJECT=stuck fails only the GPU it names,
# with a range holding the stuck word (a third into the tested memory) and the patterns that
# write a 0 there; a spoiled write is seen by every pattern; memory,compute runs both phases;
# Ctrl-C stops the memory phase promptly. It checks the harness and the C copies of
# kernels/memtest.cu, not any GPU.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
fake_gpus "burn memory"
# verifying steps per pass: walking ones, walking zeros, random and address read once each,
# moving inversions three times
VERIFY=7

# a clean run passes on both GPUs
expect_exit "burn memory: clean run passes" 0 "$GPUVET" burn --mode memory --duration 1 --json
cp "$TMP/out" "$TMP/clean.json"
expect_jq "burn memory: JSON shape" '.modes == ["memory"] and (.gpus | length) == 2 and ([.gpus[].memory | (keys | sort) == (["bytes","free_bytes","want_bytes","chunks","passes","words_checked","errors","bad_ranges","failed_patterns","traffic_bytes","test_s","pass_s","gbs","patterns"] | sort) and (.bad_ranges | type) == "array" and .chunks >= 1 and .patterns == ["walking-ones","walking-zeros","moving-inversions","random","address"]] | all)' "$TMP/clean.json"
expect_jq "burn memory: every GPU PASS, no error, no product" '[.gpus[] | .verdict == "PASS" and .memory.errors == 0 and .memory.bad_ranges == [] and .memory.failed_patterns == "" and .counts.products == 0 and .power == null and .error == null] | all' "$TMP/clean.json"
expect_jq "burn memory: at least 90 % of the free memory tested" '[.gpus[].memory | .bytes >= 0.9 * .free_bytes and .bytes == .want_bytes and .bytes <= .free_bytes] | all' "$TMP/clean.json"
expect_jq "burn memory: complete passes check every word $VERIFY times" "[.gpus[].memory | .passes >= 1 and .words_checked == $VERIFY * .passes * (.bytes / 8) and .pass_s > 0 and .gbs > 0] | all" "$TMP/clean.json"
expect_exit "burn memory: text report" 0 "$GPUVET" burn --mode memory --duration 1 -i 0
expect_grep "burn memory: text names what was tested" "^  memory: 0.5 GiB tested, [1-9][0-9]* passes, [0-9]+ words checked, 0 errors, fastest pass" "$TMP/out"
expect_grep "burn memory: text says the memory test passed" "memory test: 0.45 GiB, [1-9][0-9]* complete pass" "$TMP/out"

# a share other than the default
expect_exit "burn memory: --memory-fraction 0.5 passes" 0 "$GPUVET" burn --mode memory --duration 1 --memory-fraction 0.5 -i 1 --json
expect_jq "burn memory: --memory-fraction 0.5 takes half" '.gpus[0].memory | .bytes >= 0.5 * .free_bytes and .bytes < 0.51 * .free_bytes' "$TMP/out"

# a bit stuck at 1 on GPU 1: GPU 1 fails with the word in a range, GPU 0 passes
GPUVET_BURN_INJECT=stuck:1 expect_exit "burn memory: a stuck bit fails (exit 2)" 2 "$GPUVET" burn --mode memory --duration 1 --json
cp "$TMP/out" "$TMP/stuck.json"
expect_jq "burn memory: stuck caught on GPU 1 only" '.gpus[0].verdict == "PASS" and .gpus[0].memory.errors == 0 and .gpus[1].verdict == "FAIL" and .gpus[1].memory.errors >= 1' "$TMP/stuck.json"
expect_jq "burn memory: a range holds the stuck word" '.gpus[1].memory | ((.bytes / 24 | floor) * 8) as $at | [.bad_ranges[] | select(.first <= $at and $at <= .last)] | length == 1' "$TMP/stuck.json"
expect_jq "burn memory: every failing read placed in that one range" '.gpus[1].memory | (.bad_ranges | length) == 1 and .bad_ranges[0].words == .errors' "$TMP/stuck.json"
expect_jq "burn memory: the patterns that write a 0 there named" '.gpus[1].memory.failed_patterns | test("walking-ones") and test("moving-inversions")' "$TMP/stuck.json"
at=$(jq -r '.gpus[1].memory | (.bytes / 24 | floor) * 8' "$TMP/stuck.json")
hex=$(printf '0x%x' "$at")
expect_jq "burn memory: burn.memory_errors evidence names $hex" "[.gpus[1].findings[] | select(.id == \"burn.memory_errors\" and .severity == \"fail\") | .evidence[] | select(contains(\"$hex\"))] | length == 1" "$TMP/stuck.json"
GPUVET_BURN_INJECT=stuck:1 expect_exit "burn memory: text report says FAIL" 2 "$GPUVET" burn --mode memory --duration 1 -i 1
expect_grep "burn memory: the failing GPU is FAIL" "^GPU 1  .*  FAIL$" "$TMP/out"
expect_grep "burn memory: text evidence names the range" "failing words, byte offsets into the tested memory: $hex \\([0-9]+ reads?\\)" "$TMP/out"
# stuck is the memory phase's fault: the products stay clean
GPUVET_BURN_INJECT=stuck expect_exit "burn memory: stuck leaves the compute phase clean" 0 "$GPUVET" burn --mode compute --duration 1 --memory-fraction 0.002

# a write spoiled on the GPU (the fake's FAKEGPU_CORRUPT): every pattern sees it
FAKEGPU_CORRUPT=gv_mt_write expect_exit "burn memory: a spoiled write fails (exit 2)" 2 "$GPUVET" burn --mode memory --duration 1 -i 0 --json
expect_jq "burn memory: every pattern saw the spoiled word at 0" '.gpus[0].memory | .failed_patterns == "walking-ones,walking-zeros,moving-inversions,random,address" and .bad_ranges[0].first == 0' "$TMP/out"

# both phases, in order
expect_exit "burn memory,compute: passes" 0 "$GPUVET" burn --mode memory,compute --duration 2 --json
expect_jq "burn memory,compute: both phases ran" '.modes == ["memory","compute"] and ([.gpus[] | .memory.passes >= 1 and .counts.products > 0 and .verdict == "PASS"] | all)' "$TMP/out"

# Ctrl-C in the memory phase: prompt, a partial verdict, exit 130
start=$(date +%s)
"$GPUVET" burn --mode memory --duration 60 --json >"$TMP/int.json" 2>"$TMP/int.err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
took=$(($(date +%s) - start))
if [ "$rc" = 130 ]; then pass "burn memory: Ctrl-C exits 130"; else fail "burn memory: Ctrl-C exits 130" "exit $rc"; fi
if [ "$took" -le 10 ]; then pass "burn memory: Ctrl-C stops promptly"; else fail "burn memory: Ctrl-C stops promptly" "took $took s"; fi
expect_jq "burn memory: Ctrl-C partial verdict" '.interrupted == true and .exit_code == 130 and ([.gpus[] | .memory.bytes > 0] | all)' "$TMP/int.json"
done_testing
