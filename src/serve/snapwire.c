/*
 * snapwire.c: a collector snapshot to bytes and back (snapwire.h).
 *
 * A message: "GVSN", the version (2 bytes), the table of call names (a count, then each name
 * as a length byte and its bytes), then the snapshot's fields in a fixed order. A struct num is
 * its state byte and, unless it was never asked (VAL_UNSET), its value, vendor code, library,
 * reason and the index of its call in the table (0xffff: none); a struct text the same with its
 * string in place of the value. Strings go as a 2-byte length and their bytes, so what follows
 * a string's NUL in the sender's buffer is never sent. The static facts and the fast sample are
 * long runs of values, sent as runs (the tables below), so a field added inside a run travels
 * without a change here and one added outside fails the coverage test.
 *
 * The reader checks every length against what is left and every count against a limit before
 * it allocates, so a truncated or hostile message is an error, never a read past its end.
 */
#define _GNU_SOURCE
#include "snapwire.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

#define SNAPWIRE_MAX_NAMES 4096 /* distinct call names a process keeps */
#define MSG_MAX_NAMES 1024	/* in one message */
#define NO_CALL 0xffffu

static const unsigned char magic[4] = {'G', 'V', 'S', 'N'};

/* ---- the runs -------------------------------------------------------------------------------- */

#define RUN(type, first, last, is_text, elem)                                                    \
	{offsetof(type, first), (offsetof(type, last) - offsetof(type, first)) / sizeof(elem) + 1, \
	 is_text}

const struct snapwire_run snapwire_static_runs[] = {
	RUN(struct gpu_static, name, inforom_image, true, struct text),
	RUN(struct gpu_static, brand, numa_node, false, struct num),
	RUN(struct gpu_static, cpu_affinity, cpu_affinity, true, struct text),
	RUN(struct gpu_static, multi_gpu_board, ce_supported, false, struct num),
	RUN(struct gpu_static, driver, clock_levels_mem, true, struct text),
	RUN(struct gpu_static, mem_gtt_total_bytes, mem_gtt_total_bytes, false, struct num),
};
const size_t snapwire_nstatic_runs = ARRAY_SIZE(snapwire_static_runs);

/* t_ns, procs, procs_len and lost are sent one by one (the process list is not: the snapshot's
 * own list, struct mon_proc, is) */
const struct snapwire_run snapwire_sample_runs[] = {
	RUN(struct gpu_sample, util_gpu_pct, nprocs, false, struct num),
};
const size_t snapwire_nsample_runs = ARRAY_SIZE(snapwire_sample_runs);

/* ---- interning ------------------------------------------------------------------------------- */

static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *interned[SNAPWIRE_MAX_NAMES];
static unsigned ninterned;

const char *snapwire_intern(const char *name)
{
	const char *r = NULL;
	unsigned i;

	if (!name)
		return NULL;
	pthread_mutex_lock(&intern_lock);
	for (i = 0; i < ninterned && !r; i++)
		if (strcmp(interned[i], name) == 0)
			r = interned[i];
	if (!r && ninterned < SNAPWIRE_MAX_NAMES)
		r = interned[ninterned++] = xstrdup(name);
	pthread_mutex_unlock(&intern_lock);
	return r;
}

/* ---- writing --------------------------------------------------------------------------------- */

struct writer {
	struct strbuf *b;
	const char *names[MSG_MAX_NAMES];
	unsigned nnames;
};

static void w_bytes(struct writer *w, const void *p, size_t n)
{
	sb_add(w->b, (const char *)p, n);
}

static void w_u8(struct writer *w, unsigned v)
{
	unsigned char c = (unsigned char)v;

	w_bytes(w, &c, 1);
}

static void w_u16(struct writer *w, unsigned v)
{
	unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};

	w_bytes(w, b, 2);
}

static void w_u64(struct writer *w, uint64_t v)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	w_bytes(w, b, 8);
}

static void w_i64(struct writer *w, int64_t v)
{
	w_u64(w, (uint64_t)v);
}

static void w_u32(struct writer *w, uint32_t v)
{
	w_u64(w, v); /* 8 bytes: one integer writer, and the size hardly matters */
}

static void w_f64(struct writer *w, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	w_u64(w, v);
}

static void w_str(struct writer *w, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n > 0xffff)
		n = 0xffff;
	w_u16(w, (unsigned)n);
	w_bytes(w, s, n);
}

static unsigned call_index(struct writer *w, const char *call)
{
	unsigned i;

	if (!call)
		return NO_CALL;
	for (i = 0; i < w->nnames; i++)
		if (w->names[i] == call)
			return i;
	for (i = 0; i < w->nnames; i++)
		if (strcmp(w->names[i], call) == 0)
			return i;
	if (w->nnames >= MSG_MAX_NAMES || strlen(call) > 255)
		return NO_CALL;
	w->names[w->nnames] = call;
	return w->nnames++;
}

static void w_outcome(struct writer *w, const char *call, int rc, unsigned lib, unsigned reason)
{
	w_i64(w, rc);
	w_u8(w, lib);
	w_u8(w, reason);
	w_u16(w, call_index(w, call));
}

static void w_num(struct writer *w, const struct num *n)
{
	w_u8(w, n->st);
	if (n->st == VAL_UNSET)
		return;
	w_i64(w, n->v);
	w_outcome(w, n->call, n->rc, n->lib, n->reason);
}

static void w_text(struct writer *w, const struct text *t)
{
	w_u8(w, t->st);
	if (t->st == VAL_UNSET)
		return;
	w_str(w, t->s, sizeof(t->s));
	w_outcome(w, t->call, t->rc, t->lib, t->reason);
}

static void w_runs(struct writer *w, const void *base, const struct snapwire_run *runs,
		   size_t nruns)
{
	size_t r, i;

	for (r = 0; r < nruns; r++)
		for (i = 0; i < runs[r].count; i++) {
			const char *p = (const char *)base + runs[r].off;

			if (runs[r].text)
				w_text(w, (const struct text *)p + i);
			else
				w_num(w, (const struct num *)p + i);
		}
}

static void w_gpu(struct writer *w, const struct mon_gpu *mg, bool selected)
{
	unsigned i;

	w_u32(w, mg->g.index);
	w_u8(w, mg->g.vendor);
	w_runs(w, &mg->g.st, snapwire_static_runs, snapwire_nstatic_runs);
	w_i64(w, mg->g.s.t_ns);
	w_runs(w, &mg->g.s, snapwire_sample_runs, snapwire_nsample_runs);
	w_u8(w, mg->g.s.lost);
	w_u8(w, selected);
	w_num(w, &mg->pcie_tx_bytes_s);
	w_num(w, &mg->pcie_rx_bytes_s);
	w_u8(w, (unsigned char)mg->pcie_source);
	w_num(w, &mg->nvlink_tx_bytes_s);
	w_num(w, &mg->nvlink_rx_bytes_s);
	w_u32(w, mg->nvlink_up);
	w_num(w, &mg->energy_avg_mw);
	for (i = 0; i < CE_BUSY_N; i++)
		w_num(w, &mg->ce_busy_mpct[i]);
	w_num(w, &mg->gpm_supported);
	for (i = 0; i < GPM_NMETRICS; i++)
		w_num(w, &mg->gpm[i]);
	w_num(w, &mg->proc_util);
	w_num(w, &mg->util.status);
	w_u32(w, mg->util.n > MON_UTIL_SAMPLES ? MON_UTIL_SAMPLES : mg->util.n);
	for (i = 0; i < mg->util.n && i < MON_UTIL_SAMPLES; i++) {
		w_u64(w, mg->util.v[i].ts_us);
		w_i64(w, mg->util.v[i].pct);
	}
	w_u8(w, mg->lost);
	w_u8(w, mg->hung);
	w_i64(w, mg->problem_ns);
	w_str(w, mg->problem, sizeof(mg->problem));
	w_u32(w, mg->fast_unsupported);
	w_i64(w, mg->fast_t_ns);
	w_i64(w, mg->slow_t_ns);
}

static void w_proc(struct writer *w, const struct mon_proc *p)
{
	const struct proc_info *h = &p->host;

	w_u32(w, p->gpu);
	w_u32(w, p->nvml_pid);
	w_u8(w, (unsigned char)p->type);
	w_i64(w, p->gpu_mem_bytes);
	w_i64(w, p->sm_pct);
	w_i64(w, p->mem_pct);
	w_i64(w, p->enc_pct);
	w_i64(w, p->dec_pct);
	w_u8(w, (unsigned char)p->mapped);
	w_u32(w, h->pid);
	w_u64(w, h->start_ticks);
	w_u32(w, h->uid);
	w_str(w, h->user, sizeof(h->user));
	w_u32(w, h->inner_pid);
	w_str(w, h->container, sizeof(h->container));
	w_str(w, h->cmd, sizeof(h->cmd));
	w_f64(w, h->cpu_pct);
	w_f64(w, h->tree_cpu_pct);
	w_u32(w, h->tree_nprocs);
	w_i64(w, h->rss_bytes);
	w_i64(w, h->tree_rss_bytes);
}

/* mon_cost is made of 64-bit counters only (checked below): sent as they lie */
_Static_assert(sizeof(struct mon_cost) % sizeof(int64_t) == 0, "mon_cost: 64-bit fields only");

static void w_cost(struct writer *w, const struct mon_cost *c)
{
	int64_t v[sizeof(*c) / sizeof(int64_t)];
	size_t i;

	memcpy(v, c, sizeof(v));
	for (i = 0; i < ARRAY_SIZE(v); i++)
		w_i64(w, v[i]);
}

static bool proc_sent(const struct mon_snapshot *s, const bool *selected, const struct mon_proc *p)
{
	if (p->gpu >= s->ngpus)
		return false;
	return selected ? selected[p->gpu] : s->gpus[p->gpu].selected;
}

void snapwire_encode(const struct mon_snapshot *s, const bool *selected, bool with_procs,
		     struct strbuf *out)
{
	struct writer *w = xcalloc(1, sizeof(*w));
	struct strbuf body;
	size_t i, np = 0;
	unsigned k;

	sb_init(&body);
	w->b = &body;
	w_u64(w, s->seq);
	w_i64(w, s->t_ns);
	w_f64(w, s->wall);
	w_str(w, s->driver_version, sizeof(s->driver_version));
	w_str(w, s->nvml_version, sizeof(s->nvml_version));
	w_i64(w, s->cuda_driver_version);
	w_str(w, s->nvml_path, sizeof(s->nvml_path));
	w_u32(w, s->ngpus);
	for (k = 0; k < s->ngpus; k++)
		w_gpu(w, &s->gpus[k], selected ? selected[k] : s->gpus[k].selected);
	for (i = 0; with_procs && i < s->nprocs; i++)
		np += proc_sent(s, selected, &s->procs[i]);
	w_u32(w, (uint32_t)np);
	for (i = 0; np && i < s->nprocs; i++)
		if (proc_sent(s, selected, &s->procs[i]))
			w_proc(w, &s->procs[i]);
	w_u8(w, s->pidns);
	w_str(w, s->note, sizeof(s->note));
	w_u8(w, s->stalled);
	w_str(w, s->stall_msg, sizeof(s->stall_msg));
	w_cost(w, &s->cost);
	w_i64(w, s->fast_ns);
	w_i64(w, s->slow_ns);
	w_u32(w, s->fast_mask);
	w_u8(w, s->reads_procs);
	w_u8(w, s->reads_gpm);

	/* the header and the names, then the body that refers to them */
	w->b = out;
	w_bytes(w, magic, sizeof(magic));
	w_u16(w, SNAPWIRE_VERSION);
	w_u16(w, w->nnames);
	for (k = 0; k < w->nnames; k++) {
		size_t n = strlen(w->names[k]);

		w_u8(w, (unsigned)n);
		w_bytes(w, w->names[k], n);
	}
	sb_add(out, body.buf, body.len);
	sb_release(&body);
	free(w);
}

/* ---- reading --------------------------------------------------------------------------------- */

struct reader {
	const unsigned char *p;
	size_t len, pos;
	bool bad;
	const char *names[MSG_MAX_NAMES];
	unsigned nnames;
};

static const unsigned char *r_take(struct reader *r, size_t n)
{
	const unsigned char *p;

	if (r->bad || n > r->len - r->pos) {
		r->bad = true;
		return NULL;
	}
	p = r->p + r->pos;
	r->pos += n;
	return p;
}

static unsigned r_u8(struct reader *r)
{
	const unsigned char *p = r_take(r, 1);

	return p ? p[0] : 0;
}

static unsigned r_u16(struct reader *r)
{
	const unsigned char *p = r_take(r, 2);

	return p ? (unsigned)p[0] | (unsigned)p[1] << 8 : 0;
}

static uint64_t r_u64(struct reader *r)
{
	const unsigned char *p = r_take(r, 8);
	uint64_t v = 0;
	int i;

	for (i = 0; p && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static int64_t r_i64(struct reader *r)
{
	return (int64_t)r_u64(r);
}

/* A 32-bit field (sent in 8 bytes): out of range is a malformed message. */
static uint32_t r_u32(struct reader *r)
{
	uint64_t v = r_u64(r);

	if (v > UINT32_MAX)
		r->bad = true;
	return (uint32_t)v;
}

static int r_int(struct reader *r)
{
	int64_t v = r_i64(r);

	if (v < INT32_MIN || v > INT32_MAX)
		r->bad = true;
	return (int)v;
}

static double r_f64(struct reader *r)
{
	uint64_t v = r_u64(r);
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

/* A string into out[size], cut to fit (the sender's buffer is never larger). */
static void r_str(struct reader *r, char *out, size_t size)
{
	unsigned n = r_u16(r);
	const unsigned char *p = r_take(r, n);
	size_t k = n < size - 1 ? n : size - 1;

	if (!p)
		return;
	memcpy(out, p, k);
	out[k] = '\0';
}

static unsigned r_state(struct reader *r)
{
	unsigned st = r_u8(r);

	if (st > VAL_ERR)
		r->bad = true;
	return st;
}

static const char *r_call(struct reader *r)
{
	unsigned i = r_u16(r);

	if (i == NO_CALL)
		return NULL;
	if (i >= r->nnames) {
		r->bad = true;
		return NULL;
	}
	return r->names[i];
}

static void r_num(struct reader *r, struct num *n)
{
	n->st = (unsigned char)r_state(r);
	if (n->st == VAL_UNSET)
		return;
	n->v = r_i64(r);
	n->rc = r_int(r);
	n->lib = (unsigned char)r_u8(r);
	n->reason = (unsigned char)r_u8(r);
	n->call = r_call(r);
}

static void r_text(struct reader *r, struct text *t)
{
	t->st = (unsigned char)r_state(r);
	if (t->st == VAL_UNSET)
		return;
	r_str(r, t->s, sizeof(t->s));
	t->rc = r_int(r);
	t->lib = (unsigned char)r_u8(r);
	t->reason = (unsigned char)r_u8(r);
	t->call = r_call(r);
}

static void r_runs(struct reader *r, void *base, const struct snapwire_run *runs, size_t nruns)
{
	size_t k, i;

	for (k = 0; k < nruns; k++)
		for (i = 0; i < runs[k].count; i++) {
			char *p = (char *)base + runs[k].off;

			if (runs[k].text)
				r_text(r, (struct text *)p + i);
			else
				r_num(r, (struct num *)p + i);
		}
}

static bool r_bool(struct reader *r)
{
	unsigned v = r_u8(r);

	if (v > 1)
		r->bad = true;
	return v == 1;
}

static void r_gpu(struct reader *r, struct mon_gpu *mg)
{
	unsigned i, n;

	mg->g.index = r_u32(r);
	mg->g.vendor = (unsigned char)r_u8(r);
	r_runs(r, &mg->g.st, snapwire_static_runs, snapwire_nstatic_runs);
	mg->g.s.t_ns = r_i64(r);
	r_runs(r, &mg->g.s, snapwire_sample_runs, snapwire_nsample_runs);
	mg->g.s.lost = r_bool(r);
	mg->selected = r_bool(r);
	r_num(r, &mg->pcie_tx_bytes_s);
	r_num(r, &mg->pcie_rx_bytes_s);
	mg->pcie_source = (char)r_u8(r);
	r_num(r, &mg->nvlink_tx_bytes_s);
	r_num(r, &mg->nvlink_rx_bytes_s);
	mg->nvlink_up = r_u32(r);
	r_num(r, &mg->energy_avg_mw);
	for (i = 0; i < CE_BUSY_N; i++)
		r_num(r, &mg->ce_busy_mpct[i]);
	r_num(r, &mg->gpm_supported);
	for (i = 0; i < GPM_NMETRICS; i++)
		r_num(r, &mg->gpm[i]);
	r_num(r, &mg->proc_util);
	r_num(r, &mg->util.status);
	n = r_u32(r);
	if (n > MON_UTIL_SAMPLES) {
		r->bad = true;
		n = 0;
	}
	mg->util.n = n;
	for (i = 0; i < n; i++) {
		mg->util.v[i].ts_us = r_u64(r);
		mg->util.v[i].pct = r_int(r);
	}
	mg->lost = r_bool(r);
	mg->hung = r_bool(r);
	mg->problem_ns = r_i64(r);
	r_str(r, mg->problem, sizeof(mg->problem));
	mg->fast_unsupported = r_u32(r);
	mg->fast_t_ns = r_i64(r);
	mg->slow_t_ns = r_i64(r);
}

static void r_proc(struct reader *r, struct mon_proc *p)
{
	struct proc_info *h = &p->host;

	p->gpu = r_u32(r);
	p->nvml_pid = r_u32(r);
	p->type = (char)r_u8(r);
	p->gpu_mem_bytes = r_i64(r);
	p->sm_pct = r_int(r);
	p->mem_pct = r_int(r);
	p->enc_pct = r_int(r);
	p->dec_pct = r_int(r);
	p->mapped = (char)r_u8(r);
	h->pid = r_u32(r);
	h->start_ticks = r_u64(r);
	h->uid = r_u32(r);
	r_str(r, h->user, sizeof(h->user));
	h->inner_pid = r_u32(r);
	r_str(r, h->container, sizeof(h->container));
	r_str(r, h->cmd, sizeof(h->cmd));
	h->cpu_pct = r_f64(r);
	h->tree_cpu_pct = r_f64(r);
	h->tree_nprocs = r_u32(r);
	h->rss_bytes = r_i64(r);
	h->tree_rss_bytes = r_i64(r);
}

static void r_cost(struct reader *r, struct mon_cost *c)
{
	int64_t v[sizeof(*c) / sizeof(int64_t)];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		v[i] = r_i64(r);
	memcpy(c, v, sizeof(v));
}

/* The smallest a GPU or a process takes on the wire: a bound on the counts before allocating. */
#define GPU_MIN_BYTES 64
#define PROC_MIN_BYTES 64

int snapwire_decode(const void *buf, size_t len, struct mon_snapshot *out, char *why, size_t n)
{
	struct reader *r = xcalloc(1, sizeof(*r));
	const unsigned char *m;
	unsigned version, k;
	size_t i;
	uint32_t count;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	r->p = buf;
	r->len = len;
	m = r_take(r, sizeof(magic));
	if (!m || memcmp(m, magic, sizeof(magic)) != 0) {
		str_copy(why, "not a snapshot", n);
		goto out;
	}
	version = r_u16(r);
	if (version != SNAPWIRE_VERSION) {
		str_fmt(why, n, "snapshot format %u, this gpuvet reads %u", version, SNAPWIRE_VERSION);
		goto out;
	}
	r->nnames = r_u16(r);
	if (r->nnames > MSG_MAX_NAMES) {
		str_copy(why, "too many call names", n);
		goto out;
	}
	for (k = 0; k < r->nnames && !r->bad; k++) {
		unsigned l = r_u8(r);
		const unsigned char *p = r_take(r, l);
		char name[256];

		if (!p)
			break;
		memcpy(name, p, l);
		name[l] = '\0';
		if (strlen(name) != l || !(r->names[k] = snapwire_intern(name)))
			r->bad = true;
	}
	out->seq = r_u64(r);
	out->t_ns = r_i64(r);
	out->wall = r_f64(r);
	r_str(r, out->driver_version, sizeof(out->driver_version));
	r_str(r, out->nvml_version, sizeof(out->nvml_version));
	out->cuda_driver_version = r_int(r);
	r_str(r, out->nvml_path, sizeof(out->nvml_path));
	count = r_u32(r);
	if (r->bad || count > SNAPWIRE_MAX_GPUS || count > (r->len - r->pos) / GPU_MIN_BYTES) {
		str_copy(why, "a bad GPU count", n);
		goto out;
	}
	out->ngpus = count;
	out->gpus = xcalloc(count ? count : 1, sizeof(*out->gpus));
	for (k = 0; k < count && !r->bad; k++)
		r_gpu(r, &out->gpus[k]);
	count = r_u32(r);
	if (r->bad || count > SNAPWIRE_MAX_PROCS || count > (r->len - r->pos) / PROC_MIN_BYTES) {
		str_copy(why, "a bad process count", n);
		goto out;
	}
	out->nprocs = count;
	out->procs = xcalloc(count ? count : 1, sizeof(*out->procs));
	for (i = 0; i < count && !r->bad; i++) {
		r_proc(r, &out->procs[i]);
		if (out->procs[i].gpu >= out->ngpus)
			r->bad = true; /* front ends index gpus[] with it */
	}
	k = r_u8(r);
	if (k > PIDNS_CHILD)
		r->bad = true;
	out->pidns = (enum proctree_pidns)k;
	r_str(r, out->note, sizeof(out->note));
	out->stalled = r_bool(r);
	r_str(r, out->stall_msg, sizeof(out->stall_msg));
	r_cost(r, &out->cost);
	out->fast_ns = r_i64(r);
	out->slow_ns = r_i64(r);
	out->fast_mask = r_u32(r);
	out->reads_procs = r_bool(r);
	out->reads_gpm = r_bool(r);
	if (r->bad)
		str_copy(why, "a malformed or truncated snapshot", n);
	else if (r->pos != r->len)
		str_copy(why, "bytes after the snapshot", n);
	else
		rc = 0;
out:
	if (rc != 0)
		mon_snapshot_free(out);
	free(r);
	return rc;
}
