# bench_ranks.sh: `gpuvet bench allreduce` across processes without Slurm: two processes with
# the rank variables set by hand (torchrun's RANK/WORLD_SIZE/LOCAL_RANK, Open MPI's), each
# driving one fake GPU, joined through the fake NCCL's shared memory; NCCL's id handed over
# through a --rendezvous folder and over TCP (MASTER_ADDR/MASTER_PORT). Rank 0 alone prints and
# its verdict covers rank 1's (a wrong result on rank 1 only fails rank 0's report). The same
# under a real srun: slurm_real.sh.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
fake_gpus "allreduce across processes"
export GPUVET_NCCL_LIBRARY="$F/libnccl.so.2"
B="--size 1M --time-budget 0.01 --json"
mkdir -p "$TMP/rv"

# pair NAME VARS0 VARS1 ARGS...: rank 0 and rank 1 at once (env assignments in VARS*); their
# outputs in $TMP/r0.* and $TMP/r1.*, their exit codes in rc0 and rc1
pair() {
	name=$1 v0=$2 v1=$3
	shift 3
	# shellcheck disable=SC2086
	env $v0 timeout 60 "$GPUVET" bench allreduce "$@" >"$TMP/r0.out" 2>"$TMP/r0.err" &
	p0=$!
	# shellcheck disable=SC2086
	env $v1 timeout 60 "$GPUVET" bench allreduce "$@" >"$TMP/r1.out" 2>"$TMP/r1.err"
	rc1=$?
	wait $p0
	rc0=$?
}

pair "file" "RANK=0 WORLD_SIZE=2 LOCAL_RANK=0" "RANK=1 WORLD_SIZE=2 LOCAL_RANK=1" $B --rendezvous "$TMP/rv"
[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] && pass "file rendezvous: both ranks exit 0" ||
	fail "file rendezvous: both ranks exit 0" "rank 0: $rc0 $(head -c 300 "$TMP/r0.err"); rank 1: $rc1 $(head -c 300 "$TMP/r1.err")"
expect_jq "file rendezvous: rank 0 reports 2 ranks, verified" \
	'[.results[] | select(.bench == "allreduce")] | length > 0 and all(.verified == true and (.series | test("2 ranks")))' "$TMP/r0.out"
expect_jq "file rendezvous: the verdict names every rank" \
	'[.results[] | select(.bench == "allreduce") | .verify] | all(test("all 2 ranks"))' "$TMP/r0.out"
[ ! -s "$TMP/r1.out" ] && pass "file rendezvous: rank 1 prints nothing" || fail "file rendezvous: rank 1 prints nothing" "$(head -c 200 "$TMP/r1.out")"
[ -z "$(ls -A "$TMP/rv")" ] && pass "file rendezvous: the id file is removed" || fail "file rendezvous: the id file is removed" "$(ls -A "$TMP/rv")"

# over TCP from rank 0, with Open MPI's variables
port=$((30000 + $$ % 20000))
pair "tcp" "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port" \
	"OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port" $B
[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] && pass "tcp: both ranks exit 0" ||
	fail "tcp: both ranks exit 0" "rank 0: $rc0 $(head -c 300 "$TMP/r0.err"); rank 1: $rc1 $(head -c 300 "$TMP/r1.err")"
expect_jq "tcp: verified, launcher named" \
	'[.results[] | select(.bench == "allreduce")] | length > 0 and all(.verified == true and (.config | test("2 processes \\(mpirun\\)")))' "$TMP/r0.out"

# rank 1's result wrong, rank 0's right: rank 0 reports the mismatch (exit 2)
FAKEGPU_NCCL_CORRUPT_RANK=1 pair "corrupt" "RANK=0 WORLD_SIZE=2 LOCAL_RANK=0" "RANK=1 WORLD_SIZE=2 LOCAL_RANK=1" $B --rendezvous "$TMP/rv"
[ "$rc0" -eq 2 ] && pass "rank 1 wrong: rank 0 exits 2" || fail "rank 1 wrong: rank 0 exits 2" "exit $rc0 $(head -c 300 "$TMP/r0.err")"
expect_jq "rank 1 wrong: rank 0's report says MISMATCH" \
	'[.results[] | select(.bench == "allreduce")] | length > 0 and all(.verified == false and (.verify | test("MISMATCH")))' "$TMP/r0.out"

# a rank past the size is a usage error; one process alone is the ordinary one-process run
RANK=2 WORLD_SIZE=2 LOCAL_RANK=0 expect_exit "rank past the size" 4 "$GPUVET" bench allreduce $B
expect_grep "rank past the size: says so" 'not a rank of the job.s size' "$TMP/err"
RANK=0 WORLD_SIZE=2 LOCAL_RANK=5 expect_exit "local rank past the GPUs" 4 "$GPUVET" bench allreduce $B
RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 expect_exit "one rank: the usual run on every GPU" 0 "$GPUVET" bench allreduce $B
expect_jq "one rank: 2 GPUs in one process" '[.results[] | select(.bench == "allreduce")] | all(.series | test("2 GPUs"))' "$TMP/out"
done_testing
