# bench_report.sh: rendering a stored result (--load): the table, the JSON document and the
# HTML page, from tests/bench/sample-fakegpu.json (a run on the fake GPUs of tests/bench/fakegpu).
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
S="$TOP/tests/bench/sample-fakegpu.json"

# the benchmarks, as the table has them (src/bench/family.c); the sample holds every one
benches=$("$GPUVET" bench --list | awk '/^$/ { exit } $1 != "all" { print $1 }')
nb=$(echo $benches | wc -w)
expect_exit "load: table" 0 "$GPUVET" bench --load "$S"
ns=$(grep -c '^== .* ==$' "$TMP/out")
if [ "$nb" -ge 7 ] && [ "$ns" -eq "$nb" ]; then pass "load: a section per benchmark ($ns)"; else
	fail "load: a section per benchmark" "$ns sections, $nb benchmarks"; fi
expect_grep "load: header names the libraries" '^gpuvet bench .*cuBLASLt 13.1.0, NCCL 2.28.9' "$TMP/out"
expect_grep "load: memory rows have both columns" 'copy, our kernel +1 MiB +[0-9.]+ GB/s +[0-9.]+ GB/s +[0-9.]+%' "$TMP/out"
expect_grep "load: the traffic column is labelled" 'HBM traffic: bytes read \+ written' "$TMP/out"
expect_grep "load: p2p rows name the pair" '^  0->1 +write, copy engine, P2P on' "$TMP/out"
expect_grep "load: sweeps are folded" '^  by size, GPU 0 pinned H2D \(GB/s\): 4 KiB' "$TMP/out"
expect_grep "load: the pinned factor" 'the guide.s pin_memory=True, measured' "$TMP/out"
expect_grep "load: the mixed-precision claim" 'bf16 is [0-9.]+x fp32' "$TMP/out"
expect_grep "load: the fit table" '^  elements +CPU +GPU +GPU\+transfers +check' "$TMP/out"
expect_grep "load: the crossover" 'counting transfers' "$TMP/out"
expect_grep "load: all-reduce busbw" 'busbw, 2 GPUs' "$TMP/out"
expect_no_grep "load: nothing failed" 'FAILED' "$TMP/out"

# JSON: the document round-trips, with the fields the docs promise
expect_exit "load: --json" 0 "$GPUVET" bench --load "$S" --json
cp "$TMP/out" "$TMP/doc.json"
expect_jq "json: versions" '.versions.gpuvet and .versions.cublaslt and .versions.nccl and .versions.kernels_targets' "$TMP/doc.json"
expect_jq "json: devices with peaks and formulas" '.devices | length == 2 and (.[0].peaks.hbm_gbs > 0) and (.[0].peak_formulas.hbm | test("x 2"))' "$TMP/doc.json"
expect_jq "json: every result has samples and stats" '[.results[] | (.samples | length > 0) and .median >= .min and .max >= .median and (.cv >= 0)] | all' "$TMP/doc.json"
expect_jq "json: every result verified" '[.results[] | .verified == true] | all' "$TMP/doc.json"
expect_jq "json: memory has traffic = 2 x copy" '[.results[] | select(.test == "copy_kernel") | (.hbm_traffic - .median * 2) / .hbm_traffic | if . < 0 then -. else . end < 1e-6] | all' "$TMP/doc.json"
expect_jq "json: busbw = algbw for 2 GPUs" '[.results[] | select(.bench == "allreduce" and .test == "busbw")] | length > 0' "$TMP/doc.json"
all=$(for b in $benches; do echo "$b"; done | sort | jq -R . | jq -sc .)
expect_jq "json: every benchmark present" "[.results[].bench] | unique == $all" "$TMP/doc.json"
expect_jq "json: plots declared" '[.plots[].id] | index("gemm-size") != null and index("fit-axpy") != null' "$TMP/doc.json"
expect_jq "json: summaries" '[.summary[].key] | index("axpy_crossover_elements") != null' "$TMP/doc.json"
expect_jq "json: sensors" '.sensors.gpus["0"] | length > 0' "$TMP/doc.json"
expect_jq "json: exit code and flags" '.exit_code == 0 and .interrupted == false and .unverified == 0' "$TMP/doc.json"
if jq -S . "$S" >"$TMP/a" 2>/dev/null && jq -S . "$TMP/doc.json" >"$TMP/b" && cmp -s "$TMP/a" "$TMP/b"; then
	pass "json: --load --json reproduces the stored document"
else
	fail "json: --load --json reproduces the stored document"
fi

# HTML
expect_exit "load: --html" 0 "$GPUVET" bench --load "$S" --html "$TMP/r.html"
n=$(grep -o '<svg' "$TMP/r.html" | wc -l)
if [ "$n" -ge 9 ]; then pass "html: a plot per sweep and for the sensors ($n)"; else fail "html: plots" "$n svg elements"; fi
expect_no_grep "html: no script" '<script' "$TMP/r.html"
expect_no_grep "html: no external assets" '(src|href)="http' "$TMP/r.html"
expect_grep "html: memory plot" 'Device memory copy rate by buffer size' "$TMP/r.html"
expect_grep "html: gemm plot" 'Matrix multiply rate by size' "$TMP/r.html"
expect_grep "html: crossover plot" 'CPU against GPU' "$TMP/r.html"
expect_exit "html: unwritable path" 3 "$GPUVET" bench --load "$S" --html /nonexistent/dir/r.html
expect_grep "html: names the path" "cannot write '/nonexistent/dir/r.html'" "$TMP/err"

# bad stored results
expect_exit "load: missing file" 3 "$GPUVET" bench --load "$TMP/none.json"
expect_grep "load: missing file message" "cannot read bench result" "$TMP/err"
echo '{"hello": 1}' >"$TMP/other.json"
expect_exit "load: not a bench result" 3 "$GPUVET" bench --load "$TMP/other.json"
expect_grep "load: says what it is not" "is not a 'gpuvet bench --json' result" "$TMP/err"
done_testing
