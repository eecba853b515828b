/* proctree.c: see proctree.h. */
#define _GNU_SOURCE
#include "proctree.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../util/util.h"
#include "host.h"

#define TREE_MAX 4096
/* the inode number of the kernel's initial PID namespace (PROC_PID_INIT_INO), fixed since 3.8 */
#define INIT_PIDNS "pid:[4026531836]"

long proctree_hz(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? hz : 100;
}

/* ---- parsing ---------------------------------------------------------------------------- */

int proctree_parse_stat(const char *text, struct proc_stat *out)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	const char *p;
	uint64_t v[24];
	int n = 0;
	size_t len;
	uint64_t pid;

	memset(out, 0, sizeof(*out));
	if (!open || !close || close < open || parse_u64_prefix(text, 10, &pid, NULL) != 0)
		return -EINVAL;
	out->pid = (unsigned)pid;
	len = (size_t)(close - open - 1);
	if (len >= sizeof(out->comm))
		len = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, len);
	out->comm[len] = '\0';
	p = close + 1;
	while (*p == ' ')
		p++;
	if (!*p)
		return -EINVAL;
	out->state = *p++;
	/* fields 4 (ppid) onwards are numbers; keep up to rss (24) */
	while (n < 22 && *p) {
		const char *end;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (*p == '-') {
			uint64_t neg;

			/* the nice and priority fields may be negative; we keep none of them */
			if (parse_u64_prefix(p + 1, 10, &neg, &end) != 0)
				return -EINVAL;
			v[n++] = 0;
		} else if (parse_u64_prefix(p, 10, &v[n++], &end) != 0) {
			return -EINVAL;
		}
		p = end;
	}
	if (n < 21)
		return -EINVAL;
	/* v[0] is field 4 */
	out->ppid = (unsigned)v[0];
	out->session = (unsigned)v[2];
	out->utime = v[10];
	out->stime = v[11];
	out->start_ticks = v[18];
	out->rss_pages = n > 20 ? (int64_t)v[20] : 0;
	return 0;
}

int proctree_read_stat(unsigned pid, struct proc_stat *out)
{
	char path[64];
	char *text;
	int err = 0, rc;

	str_fmt(path, sizeof(path), "/proc/%u/stat", pid);
	text = host_read(path, 4096, NULL, &err);
	if (!text)
		return err ? err : -ESRCH;
	rc = proctree_parse_stat(text, out);
	free(text);
	return rc;
}

int proctree_parse_status(const char *text, struct proc_status *out)
{
	const char *line = text;

	memset(out, 0, sizeof(*out));
	out->rss_kb = -1;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		const char *p;

		if (str_starts(line, "Uid:")) {
			uint64_t v;

			p = line + 4;
			while (*p == ' ' || *p == '\t')
				p++;
			if (parse_u64_prefix(p, 10, &v, NULL) == 0)
				out->uid = (unsigned)v;
		} else if (str_starts(line, "NSpid:")) {
			p = line + 6;
			while (out->nnspid < PROCTREE_MAX_NS) {
				uint64_t v;
				const char *end;

				while (*p == ' ' || *p == '\t')
					p++;
				if (!isdigit((unsigned char)*p) ||
				    parse_u64_prefix(p, 10, &v, &end) != 0)
					break;
				out->nspid[out->nnspid++] = (unsigned)v;
				p = end;
			}
		} else if (str_starts(line, "VmRSS:")) {
			uint64_t v;

			p = line + 6;
			while (*p == ' ' || *p == '\t')
				p++;
			if (parse_u64_prefix(p, 10, &v, NULL) == 0)
				out->rss_kb = (int64_t)v;
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

int proctree_read_status(unsigned pid, struct proc_status *out)
{
	char path[64];
	char *text;
	int err = 0;

	str_fmt(path, sizeof(path), "/proc/%u/status", pid);
	text = host_read(path, 16384, NULL, &err);
	if (!text)
		return err ? err : -ESRCH;
	proctree_parse_status(text, out);
	free(text);
	return 0;
}

int proctree_cmdline(unsigned pid, char *buf, size_t n)
{
	char path[64];
	size_t len = 0, i;
	char *text;
	int err = 0;

	buf[0] = '\0';
	str_fmt(path, sizeof(path), "/proc/%u/cmdline", pid);
	text = host_read(path, 4096, &len, &err);
	if (text) {
		for (i = 0; i < len; i++)
			if (text[i] == '\0' || !isprint((unsigned char)text[i]))
				text[i] = ' ';
		str_copy(buf, str_trim(text), n);
		free(text);
	}
	if (!buf[0]) {
		struct proc_stat st;

		if (proctree_read_stat(pid, &st) != 0)
			return err ? err : -ESRCH;
		str_fmt(buf, n, "[%s]", st.comm);
	}
	return 0;
}

void proctree_container_from_cgroup(const char *cgroup, char *out, size_t n)
{
	const char *p, *best = NULL;
	size_t run = 0;

	out[0] = '\0';
	if (!cgroup)
		return;
	/* the last long run of hex digits is the container id in every runtime's naming
	 * (docker-<id>.scope, /docker/<id>, cri-containerd-<id>, crio-<id>, libpod-<id>) */
	for (p = cgroup;; p++) {
		if (*p && isxdigit((unsigned char)*p) && !isupper((unsigned char)*p)) {
			run++;
			continue;
		}
		if (run >= 32)
			best = p - run;
		run = 0;
		if (!*p)
			break;
	}
	if (best) {
		size_t k = n - 1 < 12 ? n - 1 : 12;

		memcpy(out, best, k);
		out[k] = '\0';
		return;
	}
	/* LXC: /lxc/<name>/ or /lxc.payload.<name>/ */
	if ((p = strstr(cgroup, "/lxc.payload.")) != NULL)
		p += strlen("/lxc.payload.");
	else if ((p = strstr(cgroup, "/lxc/")) != NULL)
		p += strlen("/lxc/");
	if (p) {
		size_t k = strcspn(p, "/\n");

		if (k >= n)
			k = n - 1;
		memcpy(out, p, k);
		out[k] = '\0';
	}
}

/* ---- users ------------------------------------------------------------------------------- */

static pthread_mutex_t user_lock = PTHREAD_MUTEX_INITIALIZER;
static char *passwd_text;
static unsigned passwd_epoch;
static bool passwd_read;

void proctree_user_name(unsigned uid, char *buf, size_t n)
{
	const char *line;

	str_fmt(buf, n, "%u", uid);
	pthread_mutex_lock(&user_lock);
	if (!passwd_read || passwd_epoch != host_epoch()) {
		free(passwd_text);
		passwd_text = host_read("/etc/passwd", 1 << 20, NULL, NULL);
		passwd_epoch = host_epoch();
		passwd_read = true;
	}
	for (line = passwd_text; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *c1 = strchr(line, ':'), *c2, *c3;
		uint64_t v;

		if (c1 && (!nl || c1 < nl) && (c2 = strchr(c1 + 1, ':')) != NULL &&
		    (c3 = strchr(c2 + 1, ':')) != NULL && (!nl || c3 < nl) &&
		    parse_u64_prefix(c2 + 1, 10, &v, NULL) == 0 && v == uid) {
			size_t k = (size_t)(c1 - line);

			if (k >= n)
				k = n - 1;
			memcpy(buf, line, k);
			buf[k] = '\0';
			break;
		}
		line = nl ? nl + 1 : NULL;
	}
	pthread_mutex_unlock(&user_lock);
}

/* ---- trees ------------------------------------------------------------------------------- */

static bool have(const unsigned *v, size_t n, unsigned x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Children of pid from the children files of its threads; -ENOENT when the kernel has none
 * (CONFIG_PROC_CHILDREN off), -ESRCH when the process is gone. */
static int children_of(unsigned pid, unsigned **out, size_t *n, size_t *cap)
{
	char path[96];
	char **tids = NULL;
	size_t ntids = 0, t;
	int rc;

	str_fmt(path, sizeof(path), "/proc/%u/task", pid);
	rc = host_list(path, &tids, &ntids);
	if (rc != 0)
		return -ESRCH;
	for (t = 0; t < ntids; t++) {
		char *text, *p;
		int err = 0;

		str_fmt(path, sizeof(path), "/proc/%u/task/%s/children", pid, tids[t]);
		text = host_read(path, 65536, NULL, &err);
		if (!text) {
			if (err == -ENOENT && t == 0) {
				char stat_path[96];

				/* no children file but the thread exists: the kernel lacks them */
				str_fmt(stat_path, sizeof(stat_path), "/proc/%u/task/%s/stat", pid,
					tids[t]);
				if (host_exists(stat_path)) {
					host_list_free(tids, ntids);
					return -ENOENT;
				}
			}
			continue;
		}
		for (p = text; *p;) {
			uint64_t v;
			const char *end;

			while (*p == ' ' || *p == '\n')
				p++;
			if (!*p || parse_u64_prefix(p, 10, &v, &end) != 0)
				break;
			if (*n < TREE_MAX && !have(*out, *n, (unsigned)v)) {
				if (*n == *cap) {
					*cap = *cap ? *cap * 2 : 16;
					*out = xrealloc(*out, *cap * sizeof(**out));
				}
				(*out)[(*n)++] = (unsigned)v;
			}
			p = (char *)end;
		}
		free(text);
	}
	host_list_free(tids, ntids);
	return 0;
}

/* The fallback: every process's parent from a scan of /proc. */
static int descendants_by_scan(unsigned root, unsigned **out, size_t *n, size_t *cap)
{
	char **names = NULL;
	size_t nn = 0, i, done;
	unsigned *pid = NULL, *ppid = NULL;
	size_t np = 0;
	int rc = host_list("/proc", &names, &nn);

	if (rc != 0)
		return rc;
	pid = xcalloc(nn + 1, sizeof(*pid));
	ppid = xcalloc(nn + 1, sizeof(*ppid));
	for (i = 0; i < nn; i++) {
		struct proc_stat st;
		uint64_t v;

		if (!str_all_digits(names[i]) || parse_u64(names[i], &v) != 0)
			continue;
		if (proctree_read_stat((unsigned)v, &st) != 0)
			continue;
		pid[np] = st.pid;
		ppid[np] = st.ppid;
		np++;
	}
	host_list_free(names, nn);
	for (done = 0; done < *n; done++) {
		for (i = 0; i < np; i++) {
			if (ppid[i] != (*out)[done] || have(*out, *n, pid[i]) || *n >= TREE_MAX)
				continue;
			if (*n == *cap) {
				*cap *= 2;
				*out = xrealloc(*out, *cap * sizeof(**out));
			}
			(*out)[(*n)++] = pid[i];
		}
	}
	(void)root;
	free(pid);
	free(ppid);
	return 0;
}

int proctree_descendants(unsigned pid, unsigned **pids, size_t *n)
{
	size_t cap = 16, done;
	int rc;

	*pids = xcalloc(cap, sizeof(**pids));
	(*pids)[0] = pid;
	*n = 1;
	for (done = 0; done < *n; done++) {
		rc = children_of((*pids)[done], pids, n, &cap);
		if (rc == -ENOENT) {
			*n = 1;
			return descendants_by_scan(pid, pids, n, &cap);
		}
		if (rc == -ESRCH && done == 0) {
			free(*pids);
			*pids = NULL;
			*n = 0;
			return -ESRCH;
		}
	}
	return 0;
}

enum proctree_pidns proctree_pidns(void)
{
	char buf[64];

	if (host_readlink("/proc/self/ns/pid", buf, sizeof(buf)) != 0)
		return PIDNS_UNKNOWN;
	return strcmp(buf, INIT_PIDNS) == 0 ? PIDNS_HOST : PIDNS_CHILD;
}

int proctree_gpu_fds(unsigned pid, uint64_t *minors, bool *ctl)
{
	char path[96], target[256];
	char **fds = NULL;
	size_t nfds = 0, i;
	int rc;

	*minors = 0;
	*ctl = false;
	str_fmt(path, sizeof(path), "/proc/%u/fd", pid);
	rc = host_list(path, &fds, &nfds);
	if (rc != 0)
		return rc;
	for (i = 0; i < nfds; i++) {
		uint64_t m;

		str_fmt(path, sizeof(path), "/proc/%u/fd/%s", pid, fds[i]);
		if (host_readlink(path, target, sizeof(target)) != 0)
			continue;
		if (strcmp(target, "/dev/nvidiactl") == 0)
			*ctl = true;
		else if (str_starts(target, "/dev/nvidia") && str_all_digits(target + 11) &&
			 parse_u64(target + 11, &m) == 0 && m < 64)
			*minors |= 1ULL << m;
	}
	host_list_free(fds, nfds);
	return 0;
}

int proctree_gpu_roots(unsigned minor, unsigned **pids, size_t *n)
{
	char **names = NULL;
	size_t nn = 0, i, nh = 0;
	unsigned *holders, *parents;
	int rc = host_list("/proc", &names, &nn);

	*pids = NULL;
	*n = 0;
	if (rc != 0)
		return rc;
	holders = xcalloc(nn + 1, sizeof(*holders));
	parents = xcalloc(nn + 1, sizeof(*parents));
	for (i = 0; i < nn; i++) {
		uint64_t v, minors;
		bool ctl;
		struct proc_stat st;

		if (!str_all_digits(names[i]) || parse_u64(names[i], &v) != 0)
			continue;
		if (proctree_gpu_fds((unsigned)v, &minors, &ctl) != 0 || !(minors & (1ULL << minor)))
			continue;
		if (proctree_read_stat((unsigned)v, &st) != 0)
			continue;
		holders[nh] = (unsigned)v;
		parents[nh] = st.ppid;
		nh++;
	}
	host_list_free(names, nn);
	*pids = xcalloc(nh + 1, sizeof(**pids));
	for (i = 0; i < nh; i++)
		if (!have(holders, nh, parents[i]))
			(*pids)[(*n)++] = holders[i];
	free(holders);
	free(parents);
	return 0;
}

int proctree_signal(unsigned pid, uint64_t start_ticks, int sig)
{
	struct proc_stat st;
	int fd = -1, rc;

	if (host_root()[0] || host_is_fake())
		return -EXDEV;
	if (pid <= 1)
		return -EPERM;
#ifdef SYS_pidfd_open
	/* a pidfd pins the process: if the start time still matches after it is open, the
	 * signal cannot reach a process that took the PID over in between */
	fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (fd < 0 && errno == ESRCH)
		return -ESRCH;
#endif
	rc = proctree_read_stat(pid, &st);
	if (rc != 0) {
		if (fd >= 0)
			close(fd);
		return -ESRCH;
	}
	if (st.start_ticks != start_ticks) {
		if (fd >= 0)
			close(fd);
		return -ESTALE;
	}
#ifdef SYS_pidfd_send_signal
	if (fd >= 0) {
		rc = (int)syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
		rc = rc == 0 ? 0 : -errno;
		close(fd);
		return rc;
	}
#endif
	if (fd >= 0)
		close(fd);
	return kill((pid_t)pid, sig) == 0 ? 0 : -errno;
}

/* ---- the tracker ------------------------------------------------------------------------- */

static double cpu_pct(uint64_t ticks, int64_t dt_ns, long hz)
{
	return (double)ticks * 100.0 * 1e9 / ((double)hz * (double)dt_ns);
}

struct pt_entry {
	unsigned pid; /* 0: free slot */
	uint64_t start;
	uint64_t gen;	     /* round of the last reading */
	uint64_t ticks;	     /* utime + stime at that reading */
	uint64_t prev_ticks; /* the reading of the round before, when prev_valid */
	bool prev_valid;
	bool fresh;	     /* started after the previous round: all its ticks are new */
	bool have_info;
	unsigned uid, inner_pid;
	char user[32], container[24], cmd[256];
};

struct proctree {
	struct pt_entry *slots;
	size_t cap, used;
	uint64_t gen;
	int64_t now_ns, prev_ns;
	uint64_t uptime_ticks, prev_uptime_ticks; /* 0 unknown */
	long hz;
	long page;
};

struct proctree *proctree_new(void)
{
	struct proctree *t = xcalloc(1, sizeof(*t));

	t->cap = 256;
	t->slots = xcalloc(t->cap, sizeof(*t->slots));
	t->hz = proctree_hz();
	t->page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
	return t;
}

void proctree_free(struct proctree *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}

static size_t slot_of(const struct proctree *t, unsigned pid, uint64_t start)
{
	size_t h = ((size_t)pid * 2654435761u) ^ (size_t)start;
	size_t i;

	for (i = 0; i < t->cap; i++) {
		size_t k = (h + i) & (t->cap - 1);

		if (t->slots[k].pid == 0 || (t->slots[k].pid == pid && t->slots[k].start == start))
			return k;
	}
	return t->cap; /* never: the table is kept under 3/4 full */
}

static void grow(struct proctree *t)
{
	struct pt_entry *old = t->slots;
	size_t oldcap = t->cap, i;

	t->cap *= 2;
	t->slots = xcalloc(t->cap, sizeof(*t->slots));
	t->used = 0;
	for (i = 0; i < oldcap; i++) {
		if (!old[i].pid)
			continue;
		t->slots[slot_of(t, old[i].pid, old[i].start)] = old[i];
		t->used++;
	}
	free(old);
}

static struct pt_entry *entry(struct proctree *t, unsigned pid, uint64_t start, bool *created)
{
	size_t k;

	if ((t->used + 1) * 4 > t->cap * 3)
		grow(t);
	k = slot_of(t, pid, start);
	*created = t->slots[k].pid == 0;
	if (*created) {
		memset(&t->slots[k], 0, sizeof(t->slots[k]));
		t->slots[k].pid = pid;
		t->slots[k].start = start;
		t->used++;
	}
	return &t->slots[k];
}

void proctree_begin(struct proctree *t, int64_t now_ns)
{
	char buf[128];
	double up;

	t->prev_ns = t->now_ns;
	t->now_ns = now_ns;
	t->prev_uptime_ticks = t->uptime_ticks;
	t->uptime_ticks = 0;
	t->gen++;
	if (host_read_line("/proc/uptime", buf, sizeof(buf)) == 0 && sscanf(buf, "%lf", &up) == 1 &&
	    up > 0)
		t->uptime_ticks = (uint64_t)(up * (double)t->hz);
}

/* Read pid's CPU ticks for this round; *delta gets the ticks spent since the previous round
 * (false when unknown). */
static struct pt_entry *sample(struct proctree *t, unsigned pid, struct proc_stat *st,
			       uint64_t *delta, bool *known)
{
	struct pt_entry *e;
	bool created;
	uint64_t ticks;

	*known = false;
	*delta = 0;
	if (proctree_read_stat(pid, st) != 0)
		return NULL;
	ticks = st->utime + st->stime;
	e = entry(t, pid, st->start_ticks, &created);
	if (created) {
		/* a process born since the previous round: everything it used is new */
		e->fresh = t->prev_ns && t->prev_uptime_ticks && st->start_ticks >= t->prev_uptime_ticks;
	}
	if (e->gen != t->gen) {
		e->prev_valid = !created && e->gen + 1 == t->gen;
		e->prev_ticks = e->ticks;
		e->ticks = ticks;
		e->gen = t->gen;
		if (!created)
			e->fresh = false;
	}
	if (e->prev_valid && e->ticks >= e->prev_ticks) {
		*delta = e->ticks - e->prev_ticks;
		*known = true;
	} else if (e->fresh) {
		*delta = e->ticks;
		*known = true;
	}
	return e;
}

int proctree_info(struct proctree *t, unsigned pid, struct proc_info *out)
{
	struct proc_stat st;
	struct pt_entry *e;
	uint64_t delta, tree_delta = 0;
	bool known, root_known;
	unsigned *members = NULL;
	size_t nm = 0, i;
	int64_t dt = t->prev_ns ? t->now_ns - t->prev_ns : 0;

	memset(out, 0, sizeof(*out));
	out->cpu_pct = out->tree_cpu_pct = -1;
	out->pid = pid;
	e = sample(t, pid, &st, &delta, &root_known);
	if (!e)
		return -ESRCH;
	out->start_ticks = st.start_ticks;
	if (!e->have_info) {
		struct proc_status ps;
		char path[64], *cg;

		e->inner_pid = pid;
		if (proctree_read_status(pid, &ps) == 0) {
			e->uid = ps.uid;
			if (ps.nnspid > 0)
				e->inner_pid = ps.nspid[ps.nnspid - 1];
		}
		proctree_user_name(e->uid, e->user, sizeof(e->user));
		proctree_cmdline(pid, e->cmd, sizeof(e->cmd));
		str_fmt(path, sizeof(path), "/proc/%u/cgroup", pid);
		cg = host_read(path, 65536, NULL, NULL);
		proctree_container_from_cgroup(cg, e->container, sizeof(e->container));
		free(cg);
		e->have_info = true;
	}
	out->uid = e->uid;
	out->inner_pid = e->inner_pid;
	str_copy(out->user, e->user, sizeof(out->user));
	str_copy(out->container, e->container, sizeof(out->container));
	str_copy(out->cmd, e->cmd, sizeof(out->cmd));
	out->rss_bytes = st.rss_pages * t->page;
	if (root_known && dt > 0)
		out->cpu_pct = cpu_pct(delta, dt, t->hz);
	/* the tree: the process and everything below it */
	tree_delta = root_known ? delta : 0;
	out->tree_rss_bytes = out->rss_bytes;
	out->tree_nprocs = 1;
	if (proctree_descendants(pid, &members, &nm) == 0) {
		for (i = 1; i < nm; i++) {
			struct proc_stat cs;

			if (!sample(t, members[i], &cs, &delta, &known))
				continue;
			out->tree_nprocs++;
			out->tree_rss_bytes += cs.rss_pages * t->page;
			if (known)
				tree_delta += delta;
		}
	}
	free(members);
	if (root_known && dt > 0)
		out->tree_cpu_pct = cpu_pct(tree_delta, dt, t->hz);
	return 0;
}

void proctree_end(struct proctree *t)
{
	size_t i;
	bool stale = false;

	/* forget what two rounds did not see; rebuild the table so probe chains stay short */
	for (i = 0; i < t->cap; i++)
		if (t->slots[i].pid && t->slots[i].gen + 2 <= t->gen)
			stale = true;
	if (!stale)
		return;
	{
		struct pt_entry *old = t->slots;
		size_t oldcap = t->cap;

		t->slots = xcalloc(t->cap, sizeof(*t->slots));
		t->used = 0;
		for (i = 0; i < oldcap; i++) {
			if (!old[i].pid || old[i].gen + 2 <= t->gen)
				continue;
			t->slots[slot_of(t, old[i].pid, old[i].start)] = old[i];
			t->used++;
		}
		free(old);
	}
}
