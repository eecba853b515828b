/*
 * fake_nccl.c: a libnccl.so.2 for the fake GPUs of fake_cuda.c (device pointers are host
 * pointers).
 *
 * One process, every GPU: ncclCommInitAll, and all-reduce (float sum, or uint64 sum) queued
 * between ncclGroupStart and ncclGroupEnd and done at the end of the group, rank by rank.
 *
 * Several processes, one GPU each (srun -n 2, mpirun): ncclGetUniqueId makes an id that names a
 * POSIX shared-memory segment; ncclCommInitRank maps it. Each all-reduce is done at once, in
 * chunks: every rank copies its chunk into its slot of the segment, a barrier, every rank sums
 * the slots into its own output, a barrier. The barrier is a generation counter on atomics, with
 * a time limit so that a rank that died fails the others instead of hanging them.
 * FAKEGPU_NCCL_CORRUPT_RANK makes one rank's results wrong (tests/cli/bench_ranks.sh).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAXR   8
/* bytes each rank puts in the segment per step of a collective */
#define CHUNK (1u << 20)
/* a peer that does not reach a barrier within this is gone */
#define BARRIER_LIMIT_S 120

enum { T_UINT64 = 5, T_FLOAT32 = 7 };
enum { NC_OK = 0, NC_SYSTEM = 2, NC_INVALID = 4, NC_REMOTE = 6 };

struct id {
	char internal[128];
};

/* the shared segment of a communicator across processes */
struct shm {
	int nranks;
	unsigned count; /* ranks arrived at the current barrier */
	unsigned gen;	/* barriers passed */
	char pad[52];
	unsigned char slots[]; /* nranks x CHUNK */
};

struct comm {
	int rank, n;
	struct shm *shm; /* NULL in one process */
	size_t shm_bytes;
	char name[160];
};

static struct comm comms[MAXR];
static struct {
	const void *send;
	void *recv;
	size_t count;
	int type;
	int rank;
} queued[MAXR];
static int nqueued, depth;

static size_t type_size(int type)
{
	return type == T_UINT64 ? 8 : 4;
}

EXPORT int ncclGetVersion(int *v)
{
	*v = 22809;
	return 0;
}

EXPORT int ncclCommInitAll(struct comm **out, int n, const int *devs)
{
	int i;

	(void)devs;
	if (n < 1 || n > MAXR)
		return NC_INVALID;
	for (i = 0; i < n; i++) {
		comms[i].rank = i;
		comms[i].n = n;
		comms[i].shm = NULL;
		out[i] = &comms[i];
	}
	return 0;
}

/* dst[i] (+)= src[i] for count elements of type */
static void add(void *dst, const void *src, size_t count, int type)
{
	size_t i;

	if (type == T_UINT64) {
		uint64_t *d = dst;
		const uint64_t *s = src;

		for (i = 0; i < count; i++)
			d[i] += s[i];
	} else {
		float *d = dst;
		const float *s = src;

		for (i = 0; i < count; i++)
			d[i] += s[i];
	}
}

static void reduce(void)
{
	int r, q;
	size_t count = queued[0].count, esz = type_size(queued[0].type);
	void *sum = calloc(count ? count : 1, esz);

	for (r = 0; r < nqueued; r++)
		add(sum, queued[r].send, count, queued[r].type);
	for (q = 0; q < nqueued; q++)
		memcpy(queued[q].recv, sum, count * esz);
	free(sum);
	nqueued = 0;
}

static int barrier(struct shm *s)
{
	unsigned g = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);
	time_t end = time(NULL) + BARRIER_LIMIT_S;

	if (__atomic_add_fetch(&s->count, 1, __ATOMIC_ACQ_REL) == (unsigned)s->nranks) {
		__atomic_store_n(&s->count, 0, __ATOMIC_RELAXED);
		__atomic_add_fetch(&s->gen, 1, __ATOMIC_RELEASE);
		return 0;
	}
	while (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) == g) {
		struct timespec ts = {0, 20000};

		if (time(NULL) > end)
			return NC_REMOTE;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* FAKEGPU_NCCL_CORRUPT_RANK=N: rank N's all-reduce results are wrong (-1: none) */
static int corrupt_rank(void)
{
	const char *s = getenv("FAKEGPU_NCCL_CORRUPT_RANK");

	return s && *s ? (int)strtol(s, NULL, 10) : -1;
}

/* one all-reduce across processes, done now, CHUNK bytes per rank at a time */
static int reduce_shared(struct comm *c, const void *send, void *recv, size_t count, int type)
{
	size_t esz = type_size(type), per = CHUNK / esz, off;
	int r, rc;

	for (off = 0; off < count || (off == 0 && count == 0); off += per) {
		size_t n = count - off < per ? count - off : per;
		unsigned char *mine = c->shm->slots + (size_t)c->rank * CHUNK;
		void *acc = calloc(n ? n : 1, esz);

		memcpy(mine, (const unsigned char *)send + off * esz, n * esz);
		if ((rc = barrier(c->shm)) != 0) {
			free(acc);
			return rc;
		}
		for (r = 0; r < c->n; r++)
			add(acc, c->shm->slots + (size_t)r * CHUNK, n, type);
		/* tests: this rank's result goes wrong after the sum, as a bad GPU's would */
		if (off == 0 && n > 0 && type == T_FLOAT32 && corrupt_rank() == c->rank)
			((float *)acc)[0] += 1.0f;
		memcpy((unsigned char *)recv + off * esz, acc, n * esz);
		free(acc);
		/* nobody overwrites a slot before everyone has read it */
		if ((rc = barrier(c->shm)) != 0)
			return rc;
		if (count == 0)
			break;
	}
	return 0;
}

EXPORT int ncclGetUniqueId(struct id *id)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	memset(id, 0, sizeof(*id));
	snprintf(id->internal, sizeof(id->internal), "gvfake-%d-%ld-%ld", (int)getpid(),
		 (long)ts.tv_sec, (long)ts.tv_nsec);
	return 0;
}

EXPORT int ncclCommInitRank(struct comm **out, int nranks, struct id id, int rank)
{
	struct comm *c;
	size_t bytes;
	int fd, rc;

	if (nranks < 1 || nranks > MAXR || rank < 0 || rank >= nranks ||
	    strncmp(id.internal, "gvfake-", 7) != 0 || memchr(id.internal, 0, sizeof(id.internal)) == NULL)
		return NC_INVALID;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NC_SYSTEM;
	c->rank = rank;
	c->n = nranks;
	snprintf(c->name, sizeof(c->name), "/%s", id.internal);
	bytes = sizeof(struct shm) + (size_t)nranks * CHUNK;
	fd = shm_open(c->name, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
		if (fd >= 0)
			close(fd);
		free(c);
		return NC_SYSTEM;
	}
	c->shm = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (c->shm == MAP_FAILED) {
		free(c);
		return NC_SYSTEM;
	}
	c->shm_bytes = bytes;
	c->shm->nranks = nranks;
	/* everyone has joined before anyone goes on */
	if ((rc = barrier(c->shm)) != 0) {
		munmap(c->shm, bytes);
		free(c);
		return rc;
	}
	/* the name is no longer needed: the mappings keep the segment */
	if (rank == 0)
		shm_unlink(c->name);
	*out = c;
	return 0;
}

EXPORT int ncclCommDestroy(struct comm *c)
{
	if (c && c->shm) {
		barrier(c->shm);
		munmap(c->shm, c->shm_bytes);
		free(c);
	}
	return 0;
}

EXPORT int ncclAllReduce(const void *s, void *r, size_t count, int type, int op, struct comm *c,
			 void *stream)
{
	(void)stream;
	if ((type != T_FLOAT32 && type != T_UINT64) || op != 0)
		return NC_INVALID;
	if (c->shm)
		return reduce_shared(c, s, r, count, type);
	if (nqueued == MAXR)
		return NC_INVALID;
	queued[nqueued].send = s;
	queued[nqueued].recv = r;
	queued[nqueued].count = count;
	queued[nqueued].type = type;
	queued[nqueued].rank = c->rank;
	nqueued++;
	if (!depth && nqueued == c->n)
		reduce();
	return 0;
}

EXPORT int ncclGroupStart(void)
{
	depth++;
	return 0;
}

EXPORT int ncclGroupEnd(void)
{
	if (--depth == 0 && nqueued)
		reduce();
	return 0;
}

EXPORT const char *ncclGetErrorString(int rc)
{
	return rc ? "fake error" : "no error";
}
