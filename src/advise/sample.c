/*
 * sample.c: the sampler of `gpuvet advise` (sample.h). The GPU side comes from the collector
 * (gpu/collector.c), opened with its fast tier at advise's tick: its per-GPU workers already
 * read utilisation, memory, power, clocks, clock-event reasons, GPM and the process list at a
 * few tens of microseconds per GPU, and NVML's own utilisation samples of the job's GPUs
 * (collector_want_util). The host side of the job is read here through host.h: per tick,
 * /proc/PID/stat of each process of the job's tree and of the main process's busiest thread,
 * /proc/pressure and the job's cgroup; once a second (RESCAN_NS), what changes seldom or costs
 * more: the tree's members, which thread is the busiest (all of them read), /proc/PID/io and
 * /proc/stat. On a live job every host read is a hand-over to a hostio worker, tens of us:
 * their number is the cost (tests/unit/test_advise_cost.c counts them). CPU shares come from
 * differences between two ticks, so the first tick has none (its readings stay "not read",
 * never 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../gpu/collector.h"
#include "../host/host.h"
#include "../host/proctree.h"
#include "../util/util.h"
#include "sample.h"

/* PCIe and NVLink rates: counters read every 200 ms. The PCIe byte counters wrap at 4 GiB
 * (collector_slow.c): at 1 s an h2d-bound job's 5 GB/s read as 0.4-1.3 GB/s. */
#define SLOW_NS 200000000LL
/* what changes seldom: the tree's members, its busiest thread, its bytes read, the machine's
 * CPU */
#define RESCAN_NS    1000000000LL
#define FIND_WAIT_NS 3000000000LL /* the user's GPU processes: NVML's first lists */
#define MAPS_MAX     (64u << 20)

/* A process or thread seen at the previous tick: its CPU ticks and bytes read, keyed by PID
 * and start time so a reused PID starts afresh. */
struct seen {
	unsigned pid;
	uint64_t start_ticks;
	uint64_t cpu_ticks;
	int64_t read_bytes; /* -1 unreadable */
};

struct seen_set {
	struct seen *v;
	size_t n, cap;
};

/* What the previous ticks read. Monotonic times are 0 when never. */
struct host_prev {
	struct seen_set procs;   /* the tree's members at the last tick */
	int64_t t_ns;            /* the last tick */
	int64_t tree_ns;         /* the tree's members last listed */
	bool member_gone;        /* one ended since: list them again */
	struct seen_set threads; /* every thread of the main process at threads_ns */
	int64_t threads_ns;
	struct seen follow; /* the busiest thread, read at follow_ns */
	int64_t follow_ns;
	bool following;
	struct seen_set io; /* the members' bytes read at io_ns */
	int64_t io_ns;
	struct num read_bytes_s;       /* over the second before io_ns */
	int64_t psi_cpu_us, psi_io_us; /* -1 unreadable */
	int64_t cg_throttled_us;
	uint64_t stat_busy, stat_total; /* /proc/stat at stat_ns, clock ticks */
	bool stat_ok;
	int64_t stat_ns;
	struct num host_busy_pct; /* over the second before stat_ns */
	bool main_seen;           /* the main process was alive at a tick */
};

struct sampler {
	const struct adv_sample_opts *o;
	struct adv_timeline *tl;
	struct collector *c;
	struct mon_snapshot s;
	unsigned roots[ADV_MAX_PROCS]; /* the job's roots: named PIDs, the started command, or the
					  GPU processes found */
	size_t nroots;
	unsigned *tree; /* the roots and their descendants, this tick */
	size_t ntree;
	int map[ADV_MAX_GPUS]; /* timeline GPU -> snapshot position */
	char cgroup[512];      /* the main process's cgroup folder under /sys/fs/cgroup, "" none */
	int cg_version;        /* 2, 1, 0 unknown */
	struct host_prev prev;
	long hz;
	int64_t t0_ns;                       /* monotonic time of the first tick, 0 before */
	bool util_asked[ADV_MAX_GPUS];       /* NVML's utilisation samples asked for (job's GPUs) */
	uint64_t util_seen_us[ADV_MAX_GPUS]; /* the newest of them taken */
};

/* ---- cost accounting (struct adv_sample_cost) --------------------------------------------- */

struct part_mark {
	int64_t t_ns;
	uint64_t ops;
};

const char *adv_part_name(int part)
{
	static const char *const names[ADV_PART_N] = {"tree",   "procs", "threads", "pressure",
						      "cgroup", "stat",  "gpu"};

	return part >= 0 && part < ADV_PART_N ? names[part] : "?";
}

static void part_start(struct part_mark *m)
{
	m->t_ns = now_ns();
	m->ops = host_ops();
}

/* Adds the time and host operations since part_start to part, and starts the next part. */
static void part_end(const struct sampler *sm, int part, struct part_mark *m)
{
	struct adv_sample_cost *c = sm->o->cost;
	struct part_mark now;

	part_start(&now);
	if (c) {
		c->part_ns[part] += now.t_ns - m->t_ns;
		c->part_ops[part] += now.ops - m->ops;
	}
	*m = now;
}

/* ---- small readers ------------------------------------------------------------------------ */

const char *adv_framework_from_maps(const char *maps)
{
	if (!maps)
		return "";
	if (strstr(maps, "libtorch"))
		return "pytorch";
	if (strstr(maps, "libtensorflow") || strstr(maps, "_pywrap_tensorflow"))
		return "tensorflow";
	if (strstr(maps, "jaxlib") || strstr(maps, "xla_extension"))
		return "jax";
	return "";
}

int64_t adv_pcie_peak_bytes_s(int gen, int width)
{
	/* usable bytes per second per lane after the line encoding: 8b/10b up to gen 2,
	 * 128b/130b from gen 3 (gen 6's FLIT mode is close to that) */
	static const double lane_bytes_s[] = {0, 250e6, 500e6, 984.6e6, 1969.2e6, 3938.5e6, 7877e6};

	if (gen <= 0 || gen >= (int)ARRAY_SIZE(lane_bytes_s) || width <= 0)
		return 0;
	return (int64_t)(lane_bytes_s[gen] * width * 0.8);
}

/* A clock's time in ns. */
static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static bool tree_has(const struct sampler *sm, unsigned pid)
{
	size_t i;

	for (i = 0; i < sm->ntree; i++)
		if (sm->tree[i] == pid)
			return true;
	return false;
}

/* The roots and all their descendants, without repeats. */
static void tree_refresh(struct sampler *sm)
{
	size_t i, k, n;
	unsigned *d;

	sm->ntree = 0;
	for (i = 0; i < sm->nroots; i++) {
		if (proctree_descendants(sm->roots[i], &d, &n) != 0)
			continue;
		for (k = 0; k < n; k++) {
			if (tree_has(sm, d[k]))
				continue;
			sm->tree = xrealloc(sm->tree, (sm->ntree + 1) * sizeof(*sm->tree));
			sm->tree[sm->ntree++] = d[k];
		}
		free(d);
	}
}

static struct seen *seen_find(struct seen_set *s, unsigned pid, uint64_t start)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].pid == pid && s->v[i].start_ticks == start)
			return &s->v[i];
	return NULL;
}

static void seen_put(struct seen_set *s, const struct seen *x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 32;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = *x;
}

/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=123456": the total stall time in us. */
static int64_t psi_some_total_us(const char *path)
{
	char *text = host_read(path, 4096, NULL, NULL);
	const char *p;
	uint64_t v;
	int64_t out = -1;

	if (!text)
		return -1;
	if (str_starts(text, "some ") && (p = strstr(text, "total=")) &&
	    parse_u64_prefix(p + 6, 10, &v, &p) == 0)
		out = (int64_t)v;
	free(text);
	return out;
}

/* The first line of /proc/stat: busy and total clock ticks of the whole machine; and the
 * number of "cpuN" lines (online CPUs). */
static int read_proc_stat(uint64_t *busy, uint64_t *total, int *ncpus)
{
	char *text = host_read("/proc/stat", 1 << 20, NULL, NULL), *line, *save = NULL;
	uint64_t v[10] = {0};
	int n = 0, rc = -1;

	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (str_starts(line, "cpu ")) {
			const char *p = line + 4;
			int i;

			for (i = 0; i < 10; i++) {
				while (*p == ' ')
					p++;
				if (parse_u64_prefix(p, 10, &v[i], &p) != 0)
					break;
			}
			if (i >= 4) {
				/* user nice system idle iowait irq softirq steal: idle and
				 * iowait are the idle ones; guest time is already in user */
				*total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
				*busy = *total - v[3] - v[4];
				rc = 0;
			}
		} else if (str_starts(line, "cpu") && line[3] >= '0' && line[3] <= '9') {
			n++;
		}
	}
	free(text);
	if (ncpus)
		*ncpus = n;
	return rc;
}

/* The main process's cgroup (v2 "0::/path", or v1's cpu controller) and the job's CPU quota in
 * cores. */
static void read_cgroup(struct sampler *sm, unsigned pid)
{
	char path[600], *text, *line, *save = NULL;
	int64_t quota = -1, period = -1;

	str_fmt(path, sizeof(path), "/proc/%u/cgroup", pid);
	text = host_read(path, 65536, NULL, NULL);
	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *rest = strchr(line, ':'), *rel;

		if (!rest)
			continue;
		if (str_starts(line, "0::")) {
			rel = line + 3;
			str_fmt(sm->cgroup, sizeof(sm->cgroup), "/sys/fs/cgroup%s",
				strcmp(rel, "/") ? rel : "");
			sm->cg_version = 2;
		} else if (strstr(rest, ":cpu,") || strstr(rest, ",cpu:") ||
			   strstr(rest, ":cpu:")) {
			rel = strchr(rest + 1, ':');
			if (!rel)
				continue;
			str_fmt(sm->cgroup, sizeof(sm->cgroup), "/sys/fs/cgroup/%.*s%s",
				(int)(rel - rest - 1), rest + 1,
				strcmp(rel + 1, "/") ? rel + 1 : "");
			sm->cg_version = 1;
			break; /* v1's cpu controller wins over the v2 line of a hybrid */
		}
	}
	free(text);
	if (!sm->cgroup[0])
		return;
	if (sm->cg_version == 2) {
		char buf[128], q[32];
		long long per;

		str_fmt(path, sizeof(path), "%s/cpu.max", sm->cgroup);
		if (host_read_line(path, buf, sizeof(buf)) == 0 &&
		    sscanf(buf, "%31s %lld", q, &per) == 2 && strcmp(q, "max") != 0 &&
		    parse_i64(q, &quota) == 0)
			period = per;
	} else {
		uint64_t v;

		str_fmt(path, sizeof(path), "%s/cpu.cfs_quota_us", sm->cgroup);
		/* -1 (no quota) does not parse as unsigned */
		if (host_read_u64(path, &v) == 0)
			quota = (int64_t)v;
		str_fmt(path, sizeof(path), "%s/cpu.cfs_period_us", sm->cgroup);
		if (host_read_u64(path, &v) == 0)
			period = (int64_t)v;
	}
	if (quota > 0 && period > 0)
		/* whole cores, rounded, at least one: 2.5 cores read as 3 */
		num_set(&sm->tl->cg_quota_cores, quota / period + (quota % period >= period / 2));
}

/* The job cgroup's throttled time in us (cpu.stat: v2 throttled_usec, v1 throttled_time ns). */
static int64_t cg_throttled_us(const struct sampler *sm)
{
	char path[600], *text;
	const char *p;
	uint64_t v;
	int64_t out = -1;

	if (!sm->cgroup[0])
		return -1;
	str_fmt(path, sizeof(path), "%s/cpu.stat", sm->cgroup);
	text = host_read(path, 65536, NULL, NULL);
	if (!text)
		return -1;
	if ((p = strstr(text, "throttled_usec ")) && parse_u64_prefix(p + 15, 10, &v, &p) == 0)
		out = (int64_t)v;
	else if ((p = strstr(text, "throttled_time ")) && parse_u64_prefix(p + 15, 10, &v, &p) == 0)
		out = (int64_t)(v / 1000);
	free(text);
	return out;
}

static int64_t proc_read_bytes(unsigned pid)
{
	char path[64], *text;
	const char *p;
	uint64_t v;
	int64_t out = -1;

	str_fmt(path, sizeof(path), "/proc/%u/io", pid);
	text = host_read(path, 4096, NULL, NULL);
	if (!text)
		return -1;
	if ((p = strstr(text, "\nread_bytes: ")) && parse_u64_prefix(p + 13, 10, &v, &p) == 0)
		out = (int64_t)v;
	free(text);
	return out;
}

static void set_pct(struct num *n, double pct)
{
	num_set(n, (int64_t)(pct + 0.5));
}

/* ---- one tick of the host side ------------------------------------------------------------ */

/* ticks of CPU over dt_s seconds, in % of one core */
static double ticks_pct(const struct sampler *sm, uint64_t ticks, double dt_s)
{
	return (double)ticks * 100.0 / (double)sm->hz / dt_s;
}

/* One thread of the main process: 0 with its CPU ticks in *x, -1 when it is gone. */
static int thread_stat(unsigned pid, unsigned tid, struct seen *x)
{
	char path[96], *text;
	struct proc_stat ps;
	int rc = -1;

	str_fmt(path, sizeof(path), "/proc/%u/task/%u/stat", pid, tid);
	text = host_read(path, 4096, NULL, NULL);
	if (text && proctree_parse_stat(text, &ps) == 0) {
		x->pid = tid;
		x->start_ticks = ps.start_ticks;
		x->cpu_ticks = ps.utime + ps.stime;
		x->read_bytes = -1;
		rc = 0;
	}
	free(text);
	return rc;
}

/* Every thread of the main process, read once a second: the one that burnt the most CPU since
 * the previous scan becomes the one followed tick by tick. Returns its share (% of one core)
 * over that time, -1 when there was no previous scan. */
static double threads_scan(struct sampler *sm, int64_t now)
{
	struct host_prev *pv = &sm->prev;
	struct seen_set all = {0};
	double dt_s = pv->threads_ns ? (double)(now - pv->threads_ns) / 1e9 : 0, best = -1;
	char path[64], **names = NULL;
	size_t n = 0, i, pick = 0;

	pv->following = false;
	str_fmt(path, sizeof(path), "/proc/%u/task", sm->tl->pid);
	if (host_list(path, &names, &n) == 0) {
		for (i = 0; i < n; i++) {
			struct seen x, *was;

			if (!str_all_digits(names[i]) ||
			    thread_stat(sm->tl->pid, (unsigned)strtoul(names[i], NULL, 10), &x) !=
				0)
				continue;
			seen_put(&all, &x);
			was = seen_find(&pv->threads, x.pid, x.start_ticks);
			if (was && dt_s > 0 && x.cpu_ticks >= was->cpu_ticks) {
				double pct = ticks_pct(sm, x.cpu_ticks - was->cpu_ticks, dt_s);

				if (pct > best) {
					best = pct;
					pick = all.n - 1;
				}
			}
		}
		host_list_free(names, n);
	}
	if (best >= 0) {
		pv->follow = all.v[pick];
		pv->follow_ns = now;
		pv->following = true;
	}
	free(pv->threads.v);
	pv->threads = all;
	pv->threads_ns = now;
	return best;
}

/* The main process's busiest thread, in % of one core over the tick; -1 none. Only the thread
 * followed is read each tick: which thread is the busiest changes seldom (a training loop's
 * main thread), and reading all of them was most of advise's cost (a PyTorch process has
 * 60-100 threads). They are all read again every second, or when the one followed ends. */
static double busiest_thread(struct sampler *sm, int64_t now)
{
	struct host_prev *pv = &sm->prev;
	double pct = -1, best;
	struct seen x;
	bool scan = !pv->following || now - pv->threads_ns >= RESCAN_NS;

	if (pv->following) {
		if (thread_stat(sm->tl->pid, pv->follow.pid, &x) == 0 &&
		    x.start_ticks == pv->follow.start_ticks) {
			if (now > pv->follow_ns && x.cpu_ticks >= pv->follow.cpu_ticks)
				pct = ticks_pct(sm, x.cpu_ticks - pv->follow.cpu_ticks,
						(double)(now - pv->follow_ns) / 1e9);
			pv->follow = x;
			pv->follow_ns = now;
		} else {
			scan = true;
		}
	}
	if (scan) {
		best = threads_scan(sm, now);
		/* the tick's figure stays the followed thread's; without one (the first scans, or
		 * it ended), the busiest one's over the time since the previous scan */
		if (pct < 0)
			pct = best;
	}
	return pct;
}

/* The bytes the tree read (/proc/PID/io), once a second: a rate over that second, kept in
 * pv->read_bytes_s for the ticks until the next reading. */
static void tree_io(struct sampler *sm, const struct seen_set *procs, int64_t now)
{
	struct host_prev *pv = &sm->prev;
	struct seen_set io = {0};
	double dt_s = pv->io_ns ? (double)(now - pv->io_ns) / 1e9 : 0;
	int64_t total = 0, before = 0;
	bool known = dt_s > 0;
	size_t i;

	for (i = 0; i < procs->n; i++) {
		struct seen x = procs->v[i], *was;

		x.read_bytes = proc_read_bytes(x.pid);
		seen_put(&io, &x);
		was = seen_find(&pv->io, x.pid, x.start_ticks);
		if (!was) {
			/* new since the last reading: its bytes count from its start */
			if (x.read_bytes >= 0)
				total += x.read_bytes;
		} else if (x.read_bytes >= 0 && was->read_bytes >= 0) {
			total += x.read_bytes;
			before += was->read_bytes;
		} else {
			known = false;
		}
	}
	pv->read_bytes_s.st = VAL_NA;
	if (known && io.n && total >= before)
		num_set(&pv->read_bytes_s, (int64_t)((double)(total - before) / dt_s));
	free(pv->io.v);
	pv->io = io;
	pv->io_ns = now;
}

/* The machine's CPU (/proc/stat), once a second, kept in pv->host_busy_pct: on a machine with
 * many CPUs the file is tens of kilobytes (a line per CPU, every interrupt's count). */
static void machine_cpu(struct sampler *sm, int64_t now)
{
	struct host_prev *pv = &sm->prev;
	uint64_t sbusy, stotal;

	pv->host_busy_pct.st = VAL_NA;
	pv->stat_ns = now;
	if (read_proc_stat(&sbusy, &stotal, NULL) != 0) {
		pv->stat_ok = false;
		return;
	}
	if (pv->stat_ok && stotal > pv->stat_total && sbusy >= pv->stat_busy && sm->tl->ncpus > 0)
		set_pct(&pv->host_busy_pct, (double)(sbusy - pv->stat_busy) * 100.0 *
						sm->tl->ncpus / (double)(stotal - pv->stat_total));
	pv->stat_busy = sbusy;
	pv->stat_total = stotal;
	pv->stat_ok = true;
}

static void host_tick(struct sampler *sm, struct adv_tick *t, int64_t now)
{
	struct host_prev *pv = &sm->prev;
	struct seen_set procs = {0};
	double dt_s = pv->t_ns ? (double)(now - pv->t_ns) / 1e9 : 0;
	double tree = 0, main_pct = -1, workers_pct = 0, thread_pct;
	int64_t v;
	unsigned workers = 0, busy = 0, blocked = 0;
	bool cpu_known = dt_s > 0, main_alive = false;
	size_t i;
	struct part_mark pm;

	part_start(&pm);
	/* the tree's members change seldom (workers start with an epoch): listed every second,
	 * or at once when one of them ended; listing means reading the children file of every
	 * thread of every member */
	if (!pv->tree_ns || pv->member_gone || now - pv->tree_ns >= RESCAN_NS) {
		tree_refresh(sm);
		pv->tree_ns = now;
		pv->member_gone = false;
	}
	part_end(sm, ADV_PART_TREE, &pm);
	for (i = 0; i < sm->ntree; i++) {
		struct proc_stat ps;
		struct seen x, *was;
		bool is_main = sm->tree[i] == sm->tl->pid;
		double pct;

		if (proctree_read_stat(sm->tree[i], &ps) != 0) {
			pv->member_gone = true;
			continue;
		}
		if (ps.state == 'Z' || ps.state == 'X')
			continue;
		x.pid = ps.pid;
		x.start_ticks = ps.start_ticks;
		x.cpu_ticks = ps.utime + ps.stime;
		x.read_bytes = -1;
		seen_put(&procs, &x);
		if (is_main)
			main_alive = true;
		else {
			workers++;
			busy += ps.state == 'R';
		}
		blocked += ps.state == 'D';
		was = seen_find(&pv->procs, x.pid, x.start_ticks);
		if (!was) {
			/* new since the last tick: its CPU before now is not this tick's */
			if (is_main)
				cpu_known = false;
			continue;
		}
		if (dt_s <= 0)
			continue;
		pct = ticks_pct(sm, x.cpu_ticks - was->cpu_ticks, dt_s);
		tree += pct;
		if (is_main)
			main_pct = pct;
		else
			workers_pct += pct;
	}
	/* the main process gone (or a zombie): the job ended; this tick describes no job */
	if (main_alive)
		pv->main_seen = true;
	else if (pv->main_seen)
		sm->tl->ended = true;
	if (procs.n) {
		num_set(&t->h.workers, workers);
		num_set(&t->h.workers_busy, busy);
		num_set(&t->h.tree_blocked_io, blocked);
	}
	if (cpu_known && procs.n) {
		set_pct(&t->h.tree_cpu_pct, tree);
		set_pct(&t->h.workers_cpu_pct, workers_pct);
		if (main_pct >= 0)
			set_pct(&t->h.main_cpu_pct, main_pct);
	}
	if (!pv->io_ns || now - pv->io_ns >= RESCAN_NS)
		tree_io(sm, &procs, now);
	if (procs.n && num_ok(&pv->read_bytes_s))
		t->h.read_bytes_s = pv->read_bytes_s;
	part_end(sm, ADV_PART_PROCS, &pm);
	thread_pct = main_alive ? busiest_thread(sm, now) : -1;
	if (thread_pct >= 0)
		set_pct(&t->h.main_thread_max_pct, thread_pct);
	part_end(sm, ADV_PART_THREADS, &pm);

	v = psi_some_total_us("/proc/pressure/cpu");
	if (v >= 0 && pv->psi_cpu_us >= 0 && dt_s > 0 && v >= pv->psi_cpu_us)
		set_pct(&t->h.cpu_pressure_pct, (double)(v - pv->psi_cpu_us) / 1e4 / dt_s);
	pv->psi_cpu_us = v;
	v = psi_some_total_us("/proc/pressure/io");
	if (v >= 0 && pv->psi_io_us >= 0 && dt_s > 0 && v >= pv->psi_io_us)
		set_pct(&t->h.io_pressure_pct, (double)(v - pv->psi_io_us) / 1e4 / dt_s);
	pv->psi_io_us = v;
	part_end(sm, ADV_PART_PRESSURE, &pm);
	v = cg_throttled_us(sm);
	if (v >= 0 && pv->cg_throttled_us >= 0 && dt_s > 0 && v >= pv->cg_throttled_us)
		set_pct(&t->h.cg_throttled_pct, (double)(v - pv->cg_throttled_us) / 1e4 / dt_s);
	pv->cg_throttled_us = v;
	part_end(sm, ADV_PART_CGROUP, &pm);
	if (!pv->stat_ns || now - pv->stat_ns >= RESCAN_NS)
		machine_cpu(sm, now);
	if (num_ok(&pv->host_busy_pct))
		t->h.host_busy_pct = pv->host_busy_pct;
	part_end(sm, ADV_PART_STAT, &pm);

	free(pv->procs.v);
	pv->procs = procs;
	pv->t_ns = now;
}

/* ---- one tick of the GPU side ------------------------------------------------------------- */

static void num_copy(struct num *dst, const struct num *src)
{
	if (num_ok(src))
		*dst = *src;
}

/* GPM's milli-percent as a whole percentage */
static void num_mpct(struct num *dst, const struct num *src)
{
	if (num_ok(src))
		num_set(dst, (src->v + 500) / 1000);
}

/* The job's GPU processes in this snapshot: those of its tree (or named by NVML PID when the
 * host cannot see them). */
static bool proc_of_job(const struct sampler *sm, const struct mon_proc *p)
{
	size_t i;

	if (p->mapped)
		return tree_has(sm, p->host.pid);
	for (i = 0; i < sm->nroots; i++)
		if (sm->roots[i] == p->nvml_pid)
			return true;
	return false;
}

static void note_pid(struct adv_timeline *tl, unsigned pid)
{
	int i;

	for (i = 0; i < tl->npids; i++)
		if (tl->pids[i] == pid)
			return;
	if (tl->npids < ADV_MAX_PROCS)
		tl->pids[tl->npids++] = pid;
}

/* NVML's own utilisation samples of the job's GPUs: one call per tick and GPU in the
 * collector, so only for the GPUs the job holds. */
static void want_util(struct sampler *sm, int k)
{
	if (sm->util_asked[k])
		return;
	sm->util_asked[k] = true;
	collector_want_util(sm->c, sm->s.gpus[sm->map[k]].g.index, true);
}

/* The samples newer than those taken, on the timeline's clock: NVML stamps them with the
 * wall clock, the ticks count on the monotonic one from the first tick. Samples from before
 * the first tick (the driver's whole ring, at the first call) are left out. */
static void util_samples(struct sampler *sm)
{
	const struct mon_snapshot *s = &sm->s;
	/* the two clocks read back to back (the snapshot's wall time is its publication's, a
	 * tick's work later than its monotonic time) */
	int64_t mono_minus_wall_ns = clock_ns(CLOCK_MONOTONIC) - clock_ns(CLOCK_REALTIME);
	int k;
	unsigned i;

	for (k = 0; k < sm->tl->ngpus; k++) {
		const struct mon_util_samples *u = &s->gpus[sm->map[k]].util;

		if (!sm->util_asked[k])
			continue;
		for (i = 0; i < u->n; i++) {
			int64_t t;

			if (u->v[i].ts_us <= sm->util_seen_us[k])
				continue;
			sm->util_seen_us[k] = u->v[i].ts_us;
			t = (int64_t)u->v[i].ts_us * 1000 + mono_minus_wall_ns - sm->t0_ns;
			if (t >= 0)
				adv_util_add(sm->tl, t, k, u->v[i].pct);
		}
	}
}

/* Before the first tick: the utilisation samples of the GPUs the job holds already (later
 * ones are asked for when gpu_tick sees them). */
static void ask_util(struct sampler *sm)
{
	size_t i;
	int k;

	for (i = 0; i < sm->s.nprocs; i++)
		for (k = 0; k < sm->tl->ngpus && proc_of_job(sm, &sm->s.procs[i]); k++)
			if (sm->s.gpus[sm->map[k]].g.index == sm->s.procs[i].gpu)
				want_util(sm, k);
}

static void gpu_tick(struct sampler *sm, struct adv_tick *t)
{
	const struct mon_snapshot *s = &sm->s;
	int64_t mem[ADV_MAX_GPUS] = {0}, sm_pct[ADV_MAX_GPUS] = {0};
	bool any[ADV_MAX_GPUS] = {false}, sm_known[ADV_MAX_GPUS];
	size_t i;
	int k;

	for (k = 0; k < sm->tl->ngpus; k++) {
		const struct mon_gpu *mg = &s->gpus[sm->map[k]];
		const struct gpu_sample *gs = &mg->g.s;
		struct adv_gpu_tick *g = &t->g[k];

		sm_known[k] = num_ok(&mg->proc_util);
		if (mg->lost || mg->hung)
			continue;
		num_copy(&g->util_pct, &gs->util_gpu_pct);
		num_mpct(&g->sm_active_pct, &mg->gpm[GPM_SM_ACTIVE]);
		num_mpct(&g->sm_occupancy_pct, &mg->gpm[GPM_SM_OCCUPANCY]);
		num_mpct(&g->tensor_active_pct, &mg->gpm[GPM_TENSOR_ACTIVE]);
		num_mpct(&g->dram_active_pct, &mg->gpm[GPM_DRAM_ACTIVE]);
		num_copy(&g->pcie_rx_bytes_s, &mg->pcie_rx_bytes_s);
		num_copy(&g->pcie_tx_bytes_s, &mg->pcie_tx_bytes_s);
		num_copy(&g->nvlink_rx_bytes_s, &mg->nvlink_rx_bytes_s);
		num_copy(&g->nvlink_tx_bytes_s, &mg->nvlink_tx_bytes_s);
		num_copy(&g->power_mw, &gs->power_mw);
		num_copy(&g->sm_mhz, &gs->clock_sm_mhz);
		num_copy(&g->clock_events, &gs->clock_events);
		num_copy(&g->temp_c, &gs->temp_c);
		num_copy(&g->mem_used_bytes, &gs->mem_used_bytes);
	}
	for (i = 0; i < s->nprocs; i++) {
		const struct mon_proc *p = &s->procs[i];

		if (!proc_of_job(sm, p))
			continue;
		for (k = 0; k < sm->tl->ngpus; k++) {
			if (s->gpus[sm->map[k]].g.index != p->gpu)
				continue;
			any[k] = true;
			sm->tl->gpus[k].job_holds = true;
			want_util(sm, k);
			note_pid(sm->tl, p->mapped ? p->host.pid : p->nvml_pid);
			if (p->gpu_mem_bytes >= 0)
				mem[k] += p->gpu_mem_bytes;
			if (p->sm_pct >= 0)
				sm_pct[k] += p->sm_pct;
		}
	}
	for (k = 0; k < sm->tl->ngpus; k++) {
		if (s->gpus[sm->map[k]].lost || s->gpus[sm->map[k]].hung)
			continue;
		/* no process of the job on a GPU: it uses none of its memory or SMs */
		num_set(&t->g[k].job_mem_bytes, mem[k]);
		if (sm_known[k] || !any[k])
			num_set(&t->g[k].job_sm_pct, sm_pct[k] > 100 ? 100 : sm_pct[k]);
	}
}

/* ---- finding the job ---------------------------------------------------------------------- */

static void gpu_facts(struct sampler *sm)
{
	struct adv_timeline *tl = sm->tl;
	unsigned i;

	tl->ngpus = 0;
	for (i = 0; i < sm->s.ngpus && tl->ngpus < ADV_MAX_GPUS; i++) {
		const struct mon_gpu *mg = &sm->s.gpus[i];
		struct adv_gpu_facts *f = &tl->gpus[tl->ngpus];
		int64_t peak;

		if (!mg->selected)
			continue;
		sm->map[tl->ngpus++] = (int)i;
		memset(f, 0, sizeof(*f));
		f->index = (int)mg->g.index;
		if (text_ok(&mg->g.st.name))
			str_copy(f->name, mg->g.st.name.s, sizeof(f->name));
		if (text_ok(&mg->g.st.bus_id))
			str_copy(f->bus_id, mg->g.st.bus_id.s, sizeof(f->bus_id));
		if (text_ok(&mg->g.st.uuid))
			str_copy(f->uuid, mg->g.st.uuid.s, sizeof(f->uuid));
		f->mem_total_bytes = mg->g.st.mem_total_bytes;
		f->power_limit_mw = mg->g.st.power_limit_mw;
		f->sm_max_mhz = mg->g.st.clock_max_sm_mhz;
		f->pcie_gen = mg->g.s.pcie_gen;
		f->pcie_width = mg->g.s.pcie_width;
		f->pcie_max_gen = mg->g.st.pcie_gen_max;
		f->pcie_max_width = mg->g.st.pcie_width_max;
		/* everything not VAL_OK reads as "not read" */
		struct num *all[] = {&f->mem_total_bytes, &f->power_limit_mw, &f->sm_max_mhz,
				     &f->pcie_gen,        &f->pcie_width,     &f->pcie_max_gen,
				     &f->pcie_max_width};
		size_t a;

		for (a = 0; a < ARRAY_SIZE(all); a++)
			if (!num_ok(all[a]))
				all[a]->st = VAL_NA;
		f->pcie_peak_bytes_s.st = VAL_NA;
		/* the link as it could train (a GPU at rest drops to gen 1) */
		peak = num_ok(&f->pcie_max_gen) && num_ok(&f->pcie_max_width)
			   ? adv_pcie_peak_bytes_s((int)f->pcie_max_gen.v, (int)f->pcie_max_width.v)
			   : 0;
		if (peak > 0)
			num_set(&f->pcie_peak_bytes_s, peak);
		f->gpm = num_ok(&mg->gpm_supported) && mg->gpm_supported.v;
	}
}

/* The process that stands for pid's job: its farthest ancestor reached without climbing into
 * a session leader (a login shell, a batch script, init) or PID 1. Two GPU processes with the
 * same one belong to one job (torchrun's or mp.spawn's ranks share their launcher); two runs
 * started from one shell do not (their common ancestor is the shell). */
static unsigned job_leader(unsigned pid)
{
	unsigned cur = pid;
	int depth;

	for (depth = 0; depth < 64; depth++) {
		struct proc_stat me, parent;

		if (proctree_read_stat(cur, &me) != 0 || me.ppid <= 1 ||
		    proctree_read_stat(me.ppid, &parent) != 0 || parent.session == parent.pid)
			break;
		cur = me.ppid;
	}
	return cur;
}

/* Without PIDs named: the GPU processes of the user (every user's for root) grouped into jobs
 * by job_leader; the job whose processes hold the most GPU memory (a training job rather than
 * a notebook or a server beside it; the lowest leader PID on a tie) becomes sm->roots, the
 * others go to the notes, so no job's host figures are mixed with another's. */
static void pick_job(struct sampler *sm, unsigned uid, bool all_users)
{
	struct {
		unsigned leader;
		int64_t mem;
		int gpus[8], ngpus;
	} jobs[ADV_MAX_PROCS];
	unsigned leader_of[ADV_MAX_PROCS], pids[ADV_MAX_PROCS];
	size_t i, k, npids = 0, njobs = 0, best = 0;
	struct adv_job_notes *nt = sm->o->notes;

	for (i = 0; i < sm->s.nprocs; i++) {
		const struct mon_proc *p = &sm->s.procs[i];
		size_t j;
		int g;

		if (!p->mapped || (!all_users && p->host.uid != uid))
			continue;
		for (k = 0; k < npids && pids[k] != p->host.pid; k++)
			;
		if (k == npids) {
			if (npids == ADV_MAX_PROCS)
				continue;
			pids[npids] = p->host.pid;
			leader_of[npids++] = job_leader(p->host.pid);
		}
		for (j = 0; j < njobs && jobs[j].leader != leader_of[k]; j++)
			;
		if (j == njobs) {
			memset(&jobs[j], 0, sizeof(jobs[j]));
			jobs[j].leader = leader_of[k];
			njobs++;
		}
		if (p->gpu_mem_bytes > 0)
			jobs[j].mem += p->gpu_mem_bytes;
		for (g = 0; g < jobs[j].ngpus && jobs[j].gpus[g] != (int)p->gpu; g++)
			;
		if (g == jobs[j].ngpus && g < (int)ARRAY_SIZE(jobs[j].gpus))
			jobs[j].gpus[jobs[j].ngpus++] = (int)p->gpu;
	}
	for (i = 1; i < njobs; i++)
		if (jobs[i].mem > jobs[best].mem ||
		    (jobs[i].mem == jobs[best].mem && jobs[i].leader < jobs[best].leader))
			best = i;
	sm->nroots = 0;
	for (k = 0; k < npids; k++)
		if (njobs && leader_of[k] == jobs[best].leader)
			sm->roots[sm->nroots++] = pids[k];
	if (!nt)
		return;
	memset(nt, 0, sizeof(*nt));
	nt->njobs = (int)njobs;
	for (i = 0; i < njobs && nt->nothers < ADV_MAX_OTHER_JOBS; i++) {
		struct adv_other_job *oj;

		if (i == best)
			continue;
		oj = &nt->others[nt->nothers++];
		oj->pid = jobs[i].leader;
		proctree_cmdline(oj->pid, oj->cmd, sizeof(oj->cmd));
		memcpy(oj->gpus, jobs[i].gpus, sizeof(oj->gpus));
		oj->ngpus = jobs[i].ngpus;
	}
}

/* The GPU processes that make up the job in the latest snapshot; fills sm->roots when the job
 * was not named. Returns how many there are. */
static size_t job_procs(struct sampler *sm, unsigned uid, bool all_users)
{
	size_t i, n = 0;

	if (sm->o->npids == 0 && !sm->o->launched)
		pick_job(sm, uid, all_users);
	tree_refresh(sm);
	for (i = 0; i < sm->s.nprocs; i++)
		n += proc_of_job(sm, &sm->s.procs[i]);
	return n;
}

static unsigned first_job_pid(const struct sampler *sm)
{
	size_t i;

	for (i = 0; i < sm->s.nprocs; i++)
		if (proc_of_job(sm, &sm->s.procs[i]))
			return sm->s.procs[i].mapped ? sm->s.procs[i].host.pid
						     : sm->s.procs[i].nvml_pid;
	return 0;
}

static int find_job(struct sampler *sm, struct err *e)
{
	const struct adv_sample_opts *o = sm->o;
	struct host_identity id;
	bool all_users;
	int64_t deadline;
	uint64_t seq = 0;
	size_t i;

	host_identity(&id);
	all_users = id.uid == 0;
	for (i = 0; i < o->npids && i < ADV_MAX_PROCS; i++) {
		struct proc_stat ps;

		if (proctree_read_stat(o->pids[i], &ps) != 0)
			return err_set(e, EXIT_UNAVAILABLE, "no process %u", o->pids[i]);
		sm->roots[sm->nroots++] = o->pids[i];
	}
	if (o->launched)
		sm->roots[sm->nroots++] = o->launched;
	deadline = now_ns() + (o->launched ? o->wait_ns : FIND_WAIT_NS);
	for (;;) {
		seq = collector_wait(sm->c, seq, 200);
		collector_copy(sm->c, &sm->s);
		if (sm->s.stalled)
			return err_set(e, EXIT_ERROR, "NVML stopped answering: %s",
				       sm->s.stall_msg);
		/* the process lists come with the second tick: per-process utilisation needs a
		 * previous sample */
		if (sm->s.seq >= 2 && job_procs(sm, id.uid, all_users) > 0)
			break;
		if (o->progress && !o->progress(o->arg, sm->tl, -1))
			return err_set(e, EXIT_INTERRUPTED, "stopped before the job held a GPU");
		if (now_ns() >= deadline)
			break;
	}
	if (job_procs(sm, id.uid, all_users) == 0) {
		if (o->launched) {
			err_set(e, EXIT_UNAVAILABLE, "the command held no GPU after %lld s",
				(long long)(o->wait_ns / 1000000000LL));
			err_hint(e,
				 "check that it uses the GPU (CUDA_VISIBLE_DEVICES, -i), or give "
				 "it longer with --wait SEC");
		} else if (o->npids) {
			err_set(e, EXIT_UNAVAILABLE, "process %u holds no GPU%s", o->pids[0],
				o->npids > 1 ? ", nor do the others named" : "");
			err_hint(e,
				 "name the training process (gpuvet top lists GPU processes), or "
				 "start it under advise: gpuvet advise -- python train.py");
		} else {
			err_set(e, EXIT_UNAVAILABLE, "no GPU process of %s is running",
				all_users ? "any user" : "yours");
			err_hint(e, "start the job first, or let advise start it: gpuvet advise -- "
				    "python train.py");
		}
		return -1;
	}
	return 0;
}

/* The main process is another user's and advise is not root: which of the files advise reads
 * the kernel refuses (their readings stay n/a), into the notes. */
static void note_refused(struct sampler *sm)
{
	static const struct {
		const char *file, *what;
	} files[] = {{"io", "bytes read"}, {"maps", "framework"}};
	struct adv_job_notes *nt = sm->o->notes;
	struct host_identity id;
	struct proc_status st;
	size_t i;

	if (!nt || host_identity(&id) != 0 || id.uid == 0 ||
	    proctree_read_status(sm->tl->pid, &st) != 0 || st.uid == id.uid)
		return;
	nt->owner_uid = st.uid;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char path[64], one[96];
		int err = 0;
		char *text;

		str_fmt(path, sizeof(path), "/proc/%u/%s", sm->tl->pid, files[i].file);
		text = host_read(path, 1 << 16, NULL, &err);
		free(text);
		if (text || (err != -EACCES && err != -EPERM))
			continue;
		str_fmt(one, sizeof(one), "%s%s (%s)", nt->refused[0] ? ", " : "", path,
			files[i].what);
		str_append(nt->refused, one, sizeof(nt->refused));
	}
}

static void job_facts(struct sampler *sm)
{
	struct adv_timeline *tl = sm->tl;
	char path[64], *maps;
	uint64_t b, t;
	size_t i;

	tl->pid = first_job_pid(sm);
	proctree_cmdline(tl->pid, tl->cmd, sizeof(tl->cmd));
	/* the framework is loaded by the process that holds the GPU, or by its parent (a
	 * launcher) when that is what the user named */
	for (i = 0; i < sm->s.nprocs && !tl->framework[0]; i++) {
		const struct mon_proc *p = &sm->s.procs[i];

		if (!p->mapped || !proc_of_job(sm, p))
			continue;
		str_fmt(path, sizeof(path), "/proc/%u/maps", p->host.pid);
		maps = host_read(path, MAPS_MAX, NULL, NULL);
		str_copy(tl->framework, adv_framework_from_maps(maps), sizeof(tl->framework));
		free(maps);
	}
	note_refused(sm);
	tl->cg_quota_cores.st = VAL_NA;
	read_cgroup(sm, tl->pid);
	if (read_proc_stat(&b, &t, &tl->ncpus) != 0 || tl->ncpus == 0)
		tl->ncpus = host_is_fake() ? 0 : (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* ---- the run ------------------------------------------------------------------------------ */

int adv_sample(const struct adv_sample_opts *o, struct adv_timeline *tl, struct err *e)
{
	struct sampler sm;
	struct mon_opts mo;
	int64_t t0 = 0, end, cpu0, wall0;
	struct mon_cost mc0;
	uint64_t seq;
	int rc = -1;

	memset(tl, 0, sizeof(*tl));
	memset(&sm, 0, sizeof(sm));
	if (o->notes)
		memset(o->notes, 0, sizeof(*o->notes));
	sm.o = o;
	sm.tl = tl;
	sm.hz = proctree_hz();
	sm.prev.psi_cpu_us = sm.prev.psi_io_us = sm.prev.cg_throttled_us = -1;
	sm.prev.read_bytes_s.st = sm.prev.host_busy_pct.st = VAL_NA;
	tl->tick_ns = o->tick_ns > 0 ? o->tick_ns : ADV_TICK_DEFAULT_NS;
	tl->cg_quota_cores.st = VAL_NA;

	memset(&mo, 0, sizeof(mo));
	mo.fast_ns = tl->tick_ns;
	mo.slow_ns = SLOW_NS;
	mo.procs = true;
	/* advise asks the process table only who the job's GPU processes are; it reads the job's
	 * own tree itself */
	mo.host_ns = RESCAN_NS;
	mo.gpm = true;
	mo.ids = o->ids;
	if (collector_open(&sm.c, &mo, e) != 0)
		return -1;
	if (find_job(&sm, e) != 0)
		goto out;
	gpu_facts(&sm);
	job_facts(&sm);
	ask_util(&sm);

	/* the cost counts from here: what advise takes from the machine while the job runs */
	if (o->cost)
		memset(o->cost, 0, sizeof(*o->cost));
	mc0 = sm.s.cost;
	cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	wall0 = now_ns();
	end = wall0 + o->duration_ns;
	seq = sm.s.seq;
	while (now_ns() < end && !tl->ended) {
		struct adv_tick *t;
		struct part_mark pm;
		uint64_t got = collector_wait(sm.c, seq, (int)(tl->tick_ns * 3 / 1000000));
		int64_t now = now_ns();

		if (got == seq) {
			/* a tick late (a hung GPU is shown as such by the collector): go on */
			if (o->progress && !o->progress(o->arg, tl, end - now))
				break;
			continue;
		}
		seq = got;
		part_start(&pm);
		collector_copy(sm.c, &sm.s);
		if (sm.s.stalled)
			break;
		if (!t0)
			t0 = sm.t0_ns = sm.s.t_ns;
		t = adv_tick_add(tl, sm.s.t_ns - t0);
		part_end(&sm, ADV_PART_GPU, &pm);
		host_tick(&sm, t, now);
		if (tl->ended) {
			/* the job ended since the last tick: what this one read (an idle GPU, no
			 * process) is not the job's; the report rests on the ticks before */
			tl->nticks--;
			break;
		}
		part_start(&pm);
		gpu_tick(&sm, t);
		util_samples(&sm);
		part_end(&sm, ADV_PART_GPU, &pm);
		if (o->cost)
			o->cost->ticks++;
		if (o->progress && !o->progress(o->arg, tl, end - now_ns()))
			break;
	}
	tl->self_cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	tl->self_wall_ns = now_ns() - wall0;
	if (o->cost) {
		o->cost->collector_ticks = sm.s.cost.fast_ticks - mc0.fast_ticks;
		o->cost->collector_cpu_ns = sm.s.cost.fast_cpu_ns - mc0.fast_cpu_ns;
		o->cost->collector_host_cpu_ns = sm.s.cost.host_cpu_ns - mc0.host_cpu_ns;
		o->cost->collector_host_ops = sm.s.cost.host_ops - mc0.host_ops;
		o->cost->collector_nvml_cpu_ns =
		    (sm.s.cost.fast_nvml_cpu_ns - mc0.fast_nvml_cpu_ns) +
		    (sm.s.cost.procs_nvml_cpu_ns - mc0.procs_nvml_cpu_ns) +
		    (sm.s.cost.gpm_cpu_ns - mc0.gpm_cpu_ns);
	}
	rc = 0;
out:
	collector_close(sm.c);
	mon_snapshot_free(&sm.s);
	free(sm.tree);
	free(sm.prev.procs.v);
	free(sm.prev.threads.v);
	free(sm.prev.io.v);
	if (rc != 0)
		adv_timeline_free(tl);
	return rc;
}
