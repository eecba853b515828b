# advise.sh: `gpuvet advise`: its command line (bad values exit 4), no GPU process (exit 5),
# --from on hand-made timelines (tests/advise/gen.py), the strict reader of saved timelines
# (exit 3 naming the field), --record then --from giving the same report, and live sampling on
# a replayed machine (the replay's training job, its GPU and its workers).
. "$TOP/tests/cli/lib.sh"
M="$SCEN/monitor"
export LC_ALL=C
need_tool jq "advise --json"
need_tool python3 "the hand-made timelines (tests/advise/gen.py)"

# the command line
expect_exit "--interval below 50 ms" 4 "$GPUVET" advise --interval 10
expect_grep "--interval's range named" "--interval takes 50 to 1000 ms" "$TMP/err"
expect_exit "--interval not a number" 4 "$GPUVET" advise --interval fast
expect_exit "--duration 0" 4 "$GPUVET" advise --duration 0
expect_exit "--duration too long" 4 "$GPUVET" advise --duration 99999
expect_exit "a PID that is not a number" 4 "$GPUVET" advise 12ab
expect_exit "nothing after --" 4 "$GPUVET" advise --
expect_exit "PIDs with -- COMMAND" 4 "$GPUVET" advise 42 -- sleep 1
expect_exit "--from with a PID" 4 "$GPUVET" advise --from x.json 42
expect_exit "-- COMMAND with --replay" 4 "$GPUVET" --replay "$M/x2.json" advise -- sleep 1
expect_exit "unknown option" 4 "$GPUVET" advise --frobnicate
expect_exit "--help" 0 "$GPUVET" advise --help
expect_grep "--help's synopsis" '^usage: gpuvet advise \[PID\.\.\.\]' "$TMP/out"

# no GPU process on a machine with two idle GPUs
expect_exit "no GPU process: exit 5" 5 "$GPUVET" --replay "$M/x2.json" advise --duration 1
expect_grep "no GPU process: said" '^gpuvet: error: no GPU process of any user is running' "$TMP/err"
expect_grep "no GPU process: hint" '^gpuvet: hint: .*gpuvet advise -- python train.py' "$TMP/err"
expect_exit "a named PID that does not exist: exit 5" 5 "$GPUVET" --replay "$M/x2.json" advise 777 --duration 1
expect_grep "the PID named" 'no process 777' "$TMP/err"

# hand-made timelines
python3 "$TOP/tests/advise/gen.py" "$TMP" || bail "tests/advise/gen.py writes the timelines" "exit $?"
expect_exit "--from, input bound: a warning (exit 1)" 1 "$GPUVET" advise --from "$TMP/input_bound.json"
expect_grep "input bound: the input pipeline ranks first" "^  1\. WARN advise\.input_pipeline: " "$TMP/out"
expect_grep "the job" '^job: PID 4242  python3 train.py --epochs 3$' "$TMP/out"
expect_grep "its GPU and framework" '^  GPUs: GPU 0 \(NVIDIA H200\)  framework: pytorch$' "$TMP/out"
expect_grep "the summary" '^summary: GPU util 38% \(idle in 60% of ticks\)  SM active 32%  CPU main 100%  workers 0 \(CPU 0%\)$' "$TMP/out"
expect_grep "the cost" "^advise's own cost: 1\.0% of one core, 1000 us per tick$" "$TMP/out"
expect_exit "--from --json" 0 "$GPUVET" advise --from "$TMP/busy.json" --json
cp "$TMP/out" "$TMP/busy.out"
expect_jq "json: job" '.job.pid == 4242 and .job.gpus == [0] and .job.framework == "pytorch"' "$TMP/busy.out"
expect_jq "json: summary" '.summary.ticks == 20 and .summary.gpu_util_pct == 99 and .summary.workers == 4 and .summary.workers_cpu_pct == 200' "$TMP/busy.out"
expect_jq "json: findings and cost" '(.findings | type) == "array" and .cost.us_per_tick == 1500' "$TMP/busy.out"
expect_jq "busy: nothing but advise.ok" '[.findings[].id] == ["advise.ok"]' "$TMP/busy.out"
expect_exit "--from, nothing read: cannot judge (exit 1)" 1 "$GPUVET" advise --from "$TMP/unread.json" --json
expect_jq "nothing read: only advise.no_samples" '[.findings[].id] == ["advise.no_samples"]' "$TMP/out"
expect_jq "unread readings are null, not 0" '.summary.gpu_util_pct == null and .summary.main_cpu_pct == null and .summary.workers == null' "$TMP/out"
expect_exit "--from --html" 1 "$GPUVET" advise --from "$TMP/input_bound.json" --html "$TMP/page.html"
expect_grep "page: title" '<title>gpuvet advise: PID 4242 python3 train.py --epochs 3</title>' "$TMP/page.html"
expect_grep "page: utilisation plot" '<title>GPU utilisation</title>' "$TMP/page.html"
expect_grep "page: CPU plot with the main process" 'CPU of the job.*|main process' "$TMP/page.html"
expect_grep "page: a line drawn" '<polyline' "$TMP/page.html"

# the strict reader: exit 3 naming the field
jq '.ticks[2].gpus[0].util_pct = "high"' "$TMP/busy.json" >"$TMP/bad1.json"
expect_exit "a mistyped reading: exit 3" 3 "$GPUVET" advise --from "$TMP/bad1.json"
expect_grep "the field named" 'ticks\[2\]\.gpus\[0\]\.util_pct: expected an integer or null' "$TMP/err"
jq 'del(.machine.ncpus)' "$TMP/busy.json" >"$TMP/bad2.json"
expect_exit "a missing field: exit 3" 3 "$GPUVET" advise --from "$TMP/bad2.json"
expect_grep "the missing field named" 'machine\.ncpus: missing' "$TMP/err"
jq '.gpuvet_advise_timeline = 9' "$TMP/busy.json" >"$TMP/bad3.json"
expect_exit "another version: exit 3" 3 "$GPUVET" advise --from "$TMP/bad3.json"
expect_grep "the version named" 'version 9, this gpuvet reads version 1' "$TMP/err"
expect_exit "not JSON: exit 3" 3 "$GPUVET" advise --from "$TOP/README.md"
expect_exit "no such file: exit 3" 3 "$GPUVET" advise --from "$TMP/none.json"
expect_grep "the file named" "cannot read '$TMP/none.json'" "$TMP/err"

# live on a replayed machine: the training job (PID 4242 on GPU 0, four workers)
expect_exit "live: unwritable --record fails before sampling" 3 "$GPUVET" --replay "$M/procs.json" advise --duration 1 --record "$TMP/no/such/dir/t.json"
# one second is too short to judge: advise.no_samples, a warning (exit 1)
expect_exit "live: the replay's job" 1 "$GPUVET" --replay "$M/procs.json" advise --duration 1 --record "$TMP/live.json"
cp "$TMP/out" "$TMP/live.out"
expect_grep "live: the job found" '^job: PID 4242  python3 train.py --epochs 3$' "$TMP/live.out"
expect_grep "live: its GPU" '^  GPUs: GPU 0 \(NVIDIA H200\)$' "$TMP/live.out"
expect_grep "live: utilisation, SM active and workers read" '^summary: GPU util 87% .* SM active 71% .* workers 4 ' "$TMP/live.out"
expect_jq "live: ticks sampled at 100 ms" '(.ticks | length) >= 5 and .machine.tick_ns == 100000000' "$TMP/live.json"
expect_jq "live: the job's GPU, its memory and the workers per tick" '.gpus[0].job_holds and (.gpus[1].job_holds | not) and .ticks[-1].gpus[0].job_mem_bytes == 24696061952 and .ticks[-1].host.workers == 4' "$TMP/live.json"
expect_jq "live: a reading the replay lacks is null" '.ticks[-1].host.read_bytes_s == null and .ticks[0].host.main_cpu_pct == null' "$TMP/live.json"
# NVML's own utilisation samples of the job's GPU (the replay serves five per 100 ms, one idle):
# every tick's, none twice, on the ticks' clock (not the wall clock's); none of GPU 1, which the
# job does not hold
expect_jq "live: NVML's utilisation samples, five per tick" '(.util_samples | length) >= 5 * ((.ticks | length) - 1) and ([.util_samples[][0]] | unique | length) == (.util_samples | length)' "$TMP/live.json"
expect_jq "live: the samples' values and GPU" 'all(.util_samples[]; .[1] == 0 and (.[2] == 0 or .[2] == 100)) and ([.util_samples[] | select(.[2] == 0)] | length) >= (.ticks | length) - 1' "$TMP/live.json"
expect_jq "live: the samples on the ticks' clock" '.ticks[-1].t_ns as $last | all(.util_samples[]; .[0] >= 0 and .[0] <= $last + 200000000)' "$TMP/live.json"
expect_jq "live: its own cost measured" '.cost.self_cpu_ns > 0 and .cost.self_wall_ns >= 500000000' "$TMP/live.json"
expect_exit "live: a worker that holds no GPU: exit 5" 5 "$GPUVET" --replay "$M/procs.json" advise -i 0 4251 --duration 1
expect_exit "live: the PID named" 1 "$GPUVET" --replay "$M/procs.json" advise 4242 --duration 1 --interval 200 --json
expect_jq "live: the PID named, at 200 ms" '.job.pid == 4242 and .summary.tick_ms == 200' "$TMP/out"

# --record then --from: the same report (the cost line is the recorded one too)
expect_exit "--from the recorded timeline" 1 "$GPUVET" advise --from "$TMP/live.json"
if cmp -s "$TMP/out" "$TMP/live.out"; then pass "--record then --from: the same report"; else
	fail "--record then --from: the same report" "$(diff "$TMP/live.out" "$TMP/out" | head -c 400)"; fi

# the edges (docs/cmd/advise.md, "Edges")
# too short: --duration 1 at --interval 1000 is one or two ticks: advise.no_samples alone, a
# warning (exit 1) that says "too short" and how long is enough at this tick; the same --from
expect_exit "short: live, exit 1" 1 "$GPUVET" --replay "$M/procs.json" advise 4242 --duration 1 --interval 1000 --json --record "$TMP/short.json"
expect_jq "short: advise.no_samples alone" '[.findings[].id] == ["advise.no_samples"]' "$TMP/out"
expect_jq "short: said too short, with the time needed at this tick" '(.findings[0].summary | startswith("too short to judge")) and (.findings[0].fix | contains("at least 21 s at this tick"))' "$TMP/out"
expect_exit "short: --from, exit 1" 1 "$GPUVET" advise --from "$TMP/short.json"
expect_grep "short: --from says too short" '^  1\. WARN advise\.no_samples: too short to judge: [12] ticks .*at 1000 ms), 20 needed$' "$TMP/out"
# MIG: GPU 0 split into instances (NVML: utilisation, its finer samples and per-process SM %
# Not Supported; GPM answers): advise says what it cannot read (n/a, null, never 0), shows
# GPM's SM activity without taking it for utilisation, no idle verdict; exit 1
expect_exit "MIG: exit 1" 1 "$GPUVET" --replay "$M/migjob.json" advise 4242 --duration 3 --json --record "$TMP/mig.json"
cp "$TMP/out" "$TMP/mig.out"
expect_jq "MIG: advise.no_samples alone, on GPU 0" '[.findings[].id] == ["advise.no_samples"] and .findings[0].gpu == 0' "$TMP/mig.out"
expect_jq "MIG: says the utilisation cannot be read" '.findings[0].summary | startswith("GPU 0'"'"'s utilisation cannot be read (n/a in ")' "$TMP/mig.out"
expect_jq "MIG: GPM's SM activity shown" 'any(.findings[0].evidence[]; startswith("SM active (GPM): median 71 %"))' "$TMP/mig.out"
expect_jq "MIG: the profiler named" '.findings[0].fix | contains("nsys profile") and contains("dcgmi dmon")' "$TMP/mig.out"
expect_jq "MIG: utilisation null, not 0" '.summary.gpu_util_pct == null and .summary.gpu_idle_ticks_pct == null and .summary.sm_active_pct == 71' "$TMP/mig.out"
expect_jq "MIG: per tick, utilisation and the job's SM % null" 'all(.ticks[]; .gpus[0].util_pct == null and .gpus[0].job_sm_pct == null) and (.util_samples | length) == 0' "$TMP/mig.json"
expect_exit "MIG: --from, exit 1" 1 "$GPUVET" advise --from "$TMP/mig.json"
expect_grep "MIG: the summary line says n/a" '^summary: GPU util n/a  SM active 71% ' "$TMP/out"
expect_grep "MIG: --from gives the same finding" "^  1\\. WARN advise\\.no_samples: GPU 0's utilisation cannot be read" "$TMP/out"
# a job that exits mid-watch (live: tests/unit/test_advise_ended.c): the report rests on the
# ticks it was alive in and says it ended; too soon to judge, said as such
expect_exit "ended early: --from, exit 1" 1 "$GPUVET" advise --from "$TMP/ended_short.json" --json
expect_jq "ended early: advise.no_samples says the job ended" '.job.ended and [.findings[].id] == ["advise.no_samples"] and (.findings[0].summary | startswith("the job ended 0.8 s into the sampling, too soon to judge"))' "$TMP/out"
expect_jq "ended early: the fix says how to catch it" '.findings[0].fix | contains("gpuvet advise -- python train.py")' "$TMP/out"
expect_exit "ended after 4 s: judged, exit 0" 0 "$GPUVET" advise --from "$TMP/ended_long.json"
expect_grep "ended after 4 s: said" '^  sampled 40 ticks of 100 ms over 3\.9 s \(the job ended\)$' "$TMP/out"
expect_grep "ended after 4 s: the verdict on what was sampled" '^  1\. ok   advise\.ok: ' "$TMP/out"
# several jobs: alice's train.py (GPU 0, 4 workers, 23 GiB) and finetune.py (GPU 1, 2 workers,
# 10 GiB), root's serve.py on GPU 1 (not hers): without a PID advise watches one job, the one
# with the most GPU memory, alone (its GPU, its processes, its workers), and names the other
# with the command that advises on it
expect_exit "two jobs: one advised on" 1 "$GPUVET" --replay "$M/twojobs.json" advise --duration 1 --json
cp "$TMP/out" "$TMP/two.out"
expect_jq "two jobs: train.py alone, never their sum" '.job.pid == 4242 and .job.pids == [4242] and .job.gpus == [0] and .summary.workers == 4' "$TMP/two.out"
expect_grep "two jobs: which one said" '^gpuvet: note: 2 GPU jobs are running; advising on PID 4242 ' "$TMP/err"
expect_grep "two jobs: the other, with how to pick it" '^gpuvet: note: also running: PID 6161 on GPU 1 \(python3 finetune\.py --lr 1e-4\): gpuvet advise 6161$' "$TMP/err"
expect_no_grep "two jobs: another user's process is no job of hers" '5151|serve\.py' "$TMP/err"
expect_exit "two jobs: the other named" 1 "$GPUVET" --replay "$M/twojobs.json" advise 6161 --duration 1 --json
expect_jq "two jobs: finetune.py alone" '.job.pid == 6161 and .job.pids == [6161] and .job.gpus == [1] and .summary.workers == 2' "$TMP/out"
expect_no_grep "two jobs: a named PID, no note" 'note: ' "$TMP/err"
# another user's PID, advise not root: the kernel refuses /proc/PID/io and maps; advise says
# which readings were refused (n/a, null in the timeline, never 0) and how to read them
"$GPUVET" --replay "$M/otheruser.json" advise 4242 --duration 1 --json --record "$TMP/other.json" >"$TMP/out" 2>"$TMP/err"
expect_jq "another user's PID: advised on" '.job.pid == 4242 and .summary.workers == 4' "$TMP/out"
expect_grep "another user's PID: the refused readings named" "^gpuvet: note: PID 4242 is alice's: the kernel refuses /proc/4242/io \\(bytes read\\), /proc/4242/maps \\(framework\\) to other users: n/a in the report, not 0$" "$TMP/err"
expect_grep "another user's PID: how to read them" '^gpuvet: hint: run advise as alice, or as root' "$TMP/err"
expect_jq "another user's PID: bytes read null, never 0" 'all(.ticks[]; .host.read_bytes_s == null)' "$TMP/other.json"
"$GPUVET" --replay "$M/procs.json" advise 4242 --duration 1 >"$TMP/out" 2>"$TMP/err"
expect_no_grep "root: nothing refused, no note" 'refuses' "$TMP/err"

done_testing
