# advise_h200.sh: the diagnosis on timelines recorded on an H200 (`advise --record` by
# tests/gpu/advise-h200.sh, the GPU's UUID scrubbed): tests/gpu/advise/*.py, each with one
# planted bottleneck, and a healthy control. advise must name the planted cause first, with
# the exit status of a warning, and nothing for the control (advise.ok, exit 0). h2d, sync,
# small, healthy and input were recorded with PCIe counters read every 200 ms and their
# 32-bit wrap counted (gpu/procutil.h); leak, cpu, starved and sync-b on the run before
# (sync-b: 82 % utilised, the sync costing 18 % of the GPU's time).
. "$TOP/tests/cli/lib.sh"
A="$SCEN/advise"
need_tool jq "advise --json"

for pair in input:advise.input_pipeline small:advise.small_work sync:advise.sync_points sync-b:advise.sync_points \
	h2d:advise.h2d_copies leak:advise.memory_growth cpu:advise.cpu_work \
	starved:advise.starved_host healthy:advise.ok; do
	job=${pair%%:*}
	first=${pair#*:}
	code=1
	[ "$job" = healthy ] && code=0
	expect_exit "H200 $job: exit $code" $code "$GPUVET" advise --from "$A/h200-$job.timeline.json" --json
	expect_jq "H200 $job: $first first" ".findings[0].id == \"$first\"" "$TMP/out"
done

# the control: nothing else said either
"$GPUVET" advise --from "$A/h200-healthy.timeline.json" --json >"$TMP/out" 2>"$TMP/err"
expect_jq "H200 healthy: advise.ok is the only finding" '[.findings[].id] == ["advise.ok"]' "$TMP/out"
# the h2d job's copies: 5-6 GB/s of pageable copies on Gen5 x16, not the wrapped 0.4-1.3
"$GPUVET" advise --from "$A/h200-h2d.timeline.json" >"$TMP/out" 2>"$TMP/err"
expect_grep "H200 h2d: the copy rate said" 'host-to-GPU copies at [5-7]\.[0-9] GB/s' "$TMP/out"

done_testing
