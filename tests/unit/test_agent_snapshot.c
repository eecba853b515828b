/*
 * test_agent_snapshot.c: a collector snapshot to bytes and back (serve/snapwire.h), what serve's
 * agent sends `top` and `watch`. A constructed snapshot whose every value is set, each in one of
 * the states a reading has (a value, n/a, an error with its call, code and reason, never
 * asked), must come back byte for byte (the call names as the same interned strings), so a
 * field the format drops fails here; the runs of values it sends must cover the structures of
 * gpu/device.h; a selection and "no processes" must be applied; and every truncation, a byte
 * flipped in the header and another version must be refused without reading past the end.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/collector.h"
#include "serve/snapwire.h"
#include "test.h"
#include "util/util.h"

static unsigned counter;

static const char *call_name(unsigned k)
{
	char name[40];

	str_fmt(name, sizeof(name), "nvmlDeviceGetThing%u", k % 37);
	return snapwire_intern(name);
}

/* Every fourth state: a value, n/a, an error, never asked; values and codes differ. */
static void set_num(struct num *n)
{
	unsigned k = ++counter;

	memset(n, 0, sizeof(*n));
	switch (k % 4) {
	case 0: break; /* VAL_UNSET: nothing else travels */
	case 1:
		n->st = VAL_OK;
		n->v = (int64_t)k * 1000003 - 5;
		n->lib = LIB_NVML;
		n->call = call_name(k);
		break;
	case 2:
		n->st = VAL_NA;
		n->rc = 3;
		n->lib = LIB_NVML;
		n->reason = REASON_NOT_SUPPORTED;
		n->call = call_name(k);
		break;
	default:
		n->st = VAL_ERR;
		n->v = -(int64_t)k;
		n->rc = (int)k;
		n->lib = k % 8 == 3 ? LIB_CUDA : LIB_HOST;
		n->reason = (unsigned char)(1 + k % REASON_OTHER);
		n->call = k % 16 == 3 ? NULL : call_name(k);
		break;
	}
}

static void set_text(struct text *t)
{
	struct num n;

	set_num(&n);
	memset(t, 0, sizeof(*t));
	t->st = n.st;
	if (t->st == VAL_UNSET)
		return;
	t->rc = n.rc;
	t->lib = n.lib;
	t->reason = n.reason;
	t->call = n.call;
	str_fmt(t->s, sizeof(t->s), "text %u", counter);
}

static void set_runs(void *base, const struct snapwire_run *runs, size_t nruns)
{
	size_t r, i;

	for (r = 0; r < nruns; r++)
		for (i = 0; i < runs[r].count; i++) {
			char *p = (char *)base + runs[r].off;

			if (runs[r].text)
				set_text((struct text *)p + i);
			else
				set_num((struct num *)p + i);
		}
}

static void fill_gpu(struct mon_gpu *mg, unsigned gi)
{
	unsigned i;

	mg->g.index = gi;
	set_runs(&mg->g.st, snapwire_static_runs, snapwire_nstatic_runs);
	mg->g.s.t_ns = 123456789 + gi;
	set_runs(&mg->g.s, snapwire_sample_runs, snapwire_nsample_runs);
	mg->g.s.lost = gi == 1;
	mg->selected = gi != 2;
	set_num(&mg->pcie_tx_bytes_s);
	set_num(&mg->pcie_rx_bytes_s);
	mg->pcie_source = 'c';
	set_num(&mg->nvlink_tx_bytes_s);
	set_num(&mg->nvlink_rx_bytes_s);
	mg->nvlink_up = 18 - gi;
	set_num(&mg->energy_avg_mw);
	for (i = 0; i < CE_BUSY_N; i++)
		set_num(&mg->ce_busy_mpct[i]);
	set_num(&mg->gpm_supported);
	for (i = 0; i < GPM_NMETRICS; i++)
		set_num(&mg->gpm[i]);
	set_num(&mg->proc_util);
	set_num(&mg->util.status);
	mg->util.n = MON_UTIL_SAMPLES - gi;
	for (i = 0; i < mg->util.n; i++) {
		mg->util.v[i].ts_us = 1700000000000000ULL + i * 1000 + gi;
		mg->util.v[i].pct = (int)((i * 7 + gi) % 101);
	}
	mg->lost = gi == 1;
	mg->hung = gi == 0;
	mg->problem_ns = 42000 + gi;
	str_fmt(mg->problem, sizeof(mg->problem), "nvmlDeviceGetPowerUsage on GPU %u: timeout", gi);
	mg->fast_unsupported = 0x11u << gi;
	mg->fast_t_ns = 5000 + gi;
	mg->slow_t_ns = 6000 + gi;
}

static void fill_proc(struct mon_proc *p, unsigned i, unsigned ngpus)
{
	p->gpu = i % ngpus;
	p->nvml_pid = 1000 + i;
	p->type = "CGB"[i % 3];
	p->gpu_mem_bytes = i == 1 ? -1 : (int64_t)i << 30;
	p->sm_pct = (int)i;
	p->mem_pct = -1;
	p->enc_pct = 3;
	p->dec_pct = 4;
	p->mapped = i % 2 ? 'd' : 'f';
	p->host.pid = 2000 + i;
	p->host.start_ticks = 99999 + i;
	p->host.uid = 1000;
	str_copy(p->host.user, "alice", sizeof(p->host.user));
	p->host.inner_pid = 7 + i;
	str_copy(p->host.container, "abcdef012345", sizeof(p->host.container));
	str_fmt(p->host.cmd, sizeof(p->host.cmd), "python train.py --rank %u", i);
	p->host.cpu_pct = 12.5 * i;
	p->host.tree_cpu_pct = 101.25 + i;
	p->host.tree_nprocs = 3 + i;
	p->host.rss_bytes = 1 << 20;
	p->host.tree_rss_bytes = 3 << 20;
}

static void build(struct mon_snapshot *s)
{
	unsigned i;

	memset(s, 0, sizeof(*s));
	s->seq = 77;
	s->t_ns = 987654321;
	s->wall = 1700000000.125;
	str_copy(s->driver_version, "580.95.05", sizeof(s->driver_version));
	str_copy(s->nvml_version, "13.580.95.05", sizeof(s->nvml_version));
	s->cuda_driver_version = 13000;
	str_copy(s->nvml_path, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", sizeof(s->nvml_path));
	s->ngpus = 3;
	s->gpus = xcalloc(s->ngpus, sizeof(*s->gpus));
	for (i = 0; i < s->ngpus; i++)
		fill_gpu(&s->gpus[i], i);
	s->nprocs = 5;
	s->procs = xcalloc(s->nprocs, sizeof(*s->procs));
	for (i = 0; i < s->nprocs; i++)
		fill_proc(&s->procs[i], i, s->ngpus);
	s->pidns = PIDNS_CHILD;
	str_copy(s->note, "processes in other containers are not visible", sizeof(s->note));
	s->stalled = true;
	str_copy(s->stall_msg, "nvmlDeviceGetCount hung", sizeof(s->stall_msg));
	{
		int64_t v[sizeof(s->cost) / sizeof(int64_t)];

		for (i = 0; i < ARRAY_SIZE(v); i++)
			v[i] = 1000 + i;
		memcpy(&s->cost, v, sizeof(v));
	}
	s->fast_ns = 1000000000;
	s->slow_ns = -1;
	s->fast_mask = 0x5a5;
	s->reads_procs = true;
	s->reads_gpm = true;
}

static void test_round_trip_every_field(void)
{
	struct mon_snapshot a, b, b_top;
	struct strbuf sb;
	char why[128] = "";

	counter = 0;
	build(&a);
	sb_init(&sb);
	snapwire_encode(&a, NULL, true, &sb);
	CHECK(snapwire_decode(sb.buf, sb.len, &b, why, sizeof(why)) == 0);
	CHECK(b.ngpus == a.ngpus);
	/* procs of GPU 2 (not selected) stay home */
	CHECK(b.nprocs == 4);
	CHECK(memcmp(a.gpus, b.gpus, a.ngpus * sizeof(*a.gpus)) == 0);
	CHECK(memcmp(&a.procs[0], &b.procs[0], sizeof(a.procs[0])) == 0);
	CHECK(memcmp(&a.procs[1], &b.procs[1], sizeof(a.procs[0])) == 0);
	CHECK(memcmp(&a.procs[3], &b.procs[2], sizeof(a.procs[0])) == 0);
	CHECK(memcmp(&a.procs[4], &b.procs[3], sizeof(a.procs[0])) == 0);
	b_top = b;
	b_top.gpus = a.gpus;
	b_top.procs = a.procs;
	b_top.nprocs = a.nprocs;
	CHECK(memcmp(&a, &b_top, sizeof(a)) == 0);
	/* the names are the interned ones: the same pointers */
	CHECK(b.gpus[0].g.st.name.call == a.gpus[0].g.st.name.call);
	mon_snapshot_free(&a);
	mon_snapshot_free(&b);
	sb_release(&sb);
}

static void test_selection_and_no_procs(void)
{
	struct mon_snapshot a, b;
	struct strbuf sb;
	bool sel[3] = {false, false, true};
	char why[128] = "";

	build(&a);
	sb_init(&sb);
	snapwire_encode(&a, sel, true, &sb);
	CHECK(snapwire_decode(sb.buf, sb.len, &b, why, sizeof(why)) == 0);
	CHECK(!b.gpus[0].selected && !b.gpus[1].selected && b.gpus[2].selected);
	CHECK(b.nprocs == 1 && b.procs[0].gpu == 2);
	mon_snapshot_free(&b);
	sb_reset(&sb);
	snapwire_encode(&a, NULL, false, &sb);
	CHECK(snapwire_decode(sb.buf, sb.len, &b, why, sizeof(why)) == 0);
	CHECK(b.nprocs == 0 && b.procs);
	mon_snapshot_free(&a);
	mon_snapshot_free(&b);
	sb_release(&sb);
}

/* The runs sent cover struct gpu_static whole, and struct gpu_sample from its first value to
 * its process list; a field added outside them fails here. */
static void test_runs_cover_structures(void)
{
	size_t r, at = 0, bytes;

	for (r = 0; r < snapwire_nstatic_runs; r++) {
		CHECK(snapwire_static_runs[r].off == at);
		bytes = snapwire_static_runs[r].text ? sizeof(struct text) : sizeof(struct num);
		at += snapwire_static_runs[r].count * bytes;
	}
	CHECK(at == sizeof(struct gpu_static));
	at = offsetof(struct gpu_sample, util_gpu_pct);
	CHECK(at == sizeof(int64_t)); /* t_ns, then the values */
	for (r = 0; r < snapwire_nsample_runs; r++) {
		CHECK(snapwire_sample_runs[r].off == at);
		bytes = snapwire_sample_runs[r].text ? sizeof(struct text) : sizeof(struct num);
		at += snapwire_sample_runs[r].count * bytes;
	}
	CHECK(at == offsetof(struct gpu_sample, procs));
	CHECK(offsetof(struct gpu_sample, procs_len) == at + sizeof(void *));
	CHECK(offsetof(struct gpu_sample, lost) == at + sizeof(void *) + sizeof(size_t));
	CHECK(sizeof(struct gpu_sample) <= offsetof(struct gpu_sample, lost) + sizeof(int64_t));
}

static void test_bad_messages(void)
{
	struct mon_snapshot a, b;
	struct strbuf sb;
	char why[128];
	size_t cut;

	build(&a);
	sb_init(&sb);
	snapwire_encode(&a, NULL, true, &sb);
	for (cut = 0; cut < sb.len; cut++) {
		char *copy = xmalloc(cut + 1);

		memcpy(copy, sb.buf, cut); /* its own allocation: ASan sees any read past the end */
		why[0] = '\0';
		CHECK(snapwire_decode(copy, cut, &b, why, sizeof(why)) != 0);
		CHECK(why[0] && b.gpus == NULL);
		free(copy);
	}
	sb.buf[4] = (char)(SNAPWIRE_VERSION + 1);
	CHECK(snapwire_decode(sb.buf, sb.len, &b, why, sizeof(why)) != 0);
	CHECK(strstr(why, "format") != NULL);
	sb.buf[4] = SNAPWIRE_VERSION;
	sb.buf[0] = 'X';
	CHECK(snapwire_decode(sb.buf, sb.len, &b, why, sizeof(why)) != 0);
	sb.buf[0] = 'G';
	sb_addc(&sb, 0);
	CHECK(snapwire_decode(sb.buf, sb.len, &b, why, sizeof(why)) != 0);
	CHECK_STR(why, "bytes after the snapshot");
	mon_snapshot_free(&a);
	sb_release(&sb);
}

int main(void)
{
	RUN(test_round_trip_every_field);
	RUN(test_selection_and_no_procs);
	RUN(test_runs_cover_structures);
	RUN(test_bad_messages);
	return TEST_DONE();
}
