/*
 * test_advise_timeline.c: the timeline of `gpuvet advise` (advise/timeline.h) and its JSON form
 * (advise/timeline_json.c): a fresh tick reads "not read" everywhere, a timeline written and
 * read back is the same (values, nulls, util samples, facts), and the strict reader names the
 * field it refuses.
 */
#include <stdlib.h>
#include <string.h>

#include "advise/timeline.h"
#include "advise/timeline_json.h"
#include "test.h"

static void fill(struct adv_timeline *tl)
{
	struct adv_tick *t;
	int i;

	memset(tl, 0, sizeof(*tl));
	tl->pid = 4242;
	snprintf(tl->cmd, sizeof(tl->cmd), "python3 train.py --epochs 3");
	snprintf(tl->framework, sizeof(tl->framework), "pytorch");
	tl->pids[0] = 4242;
	tl->pids[1] = 4300;
	tl->npids = 2;
	tl->ncpus = 16;
	num_set(&tl->cg_quota_cores, 4);
	tl->tick_ns = 100000000;
	tl->ngpus = 2;
	for (i = 0; i < 2; i++) {
		tl->gpus[i].index = i;
		snprintf(tl->gpus[i].name, sizeof(tl->gpus[i].name), "NVIDIA H200");
		snprintf(tl->gpus[i].bus_id, sizeof(tl->gpus[i].bus_id), "00000000:00:0%d.0",
			 6 + i);
		num_set(&tl->gpus[i].mem_total_bytes, 150754820096LL);
		num_set(&tl->gpus[i].pcie_gen, 5);
		tl->gpus[i].pcie_max_width.st = VAL_NA;
		tl->gpus[i].job_holds = i == 0;
		tl->gpus[i].gpm = true;
	}
	for (i = 0; i < 5; i++) {
		t = adv_tick_add(tl, (int64_t)i * 100000000);
		num_set(&t->h.main_cpu_pct, 100 - i);
		num_set(&t->h.workers, 0);
		num_set(&t->g[0].util_pct, i * 20);
		num_set(&t->g[0].pcie_rx_bytes_s, 12000000000LL);
		num_set(&t->g[1].util_pct, 0);
		adv_util_add(tl, (int64_t)i * 100000000 + 16000000, 0, i * 20);
	}
	tl->self_cpu_ns = 12345678;
	tl->self_wall_ns = 500000000;
}

static void fresh_tick_is_unread(void)
{
	struct adv_timeline tl;
	struct adv_tick *t;

	memset(&tl, 0, sizeof(tl));
	t = adv_tick_add(&tl, 7);
	CHECK(t->t_ns == 7);
	CHECK(t->h.tree_cpu_pct.st == VAL_NA);
	CHECK(t->h.host_busy_pct.st == VAL_NA);
	CHECK(t->g[0].util_pct.st == VAL_NA);
	CHECK(t->g[ADV_MAX_GPUS - 1].job_sm_pct.st == VAL_NA);
	CHECK(tl.nticks == 1);
	adv_timeline_free(&tl);
	CHECK(tl.ticks == NULL && tl.nticks == 0);
}

static void round_trip(void)
{
	struct adv_timeline a, b;
	struct err e;
	char *text, *again;
	size_t i;

	fill(&a);
	text = adv_timeline_to_json(&a);
	CHECK(text != NULL);
	CHECK(strstr(text, "\"gpuvet_advise_timeline\": 1") != NULL);
	/* a reading not taken is null, never 0 */
	CHECK(strstr(text, "\"io_pressure_pct\": null") != NULL);
	CHECK(adv_timeline_from_json(text, strlen(text), &b, &e) == 0);
	CHECK(b.pid == 4242 && b.npids == 2 && b.pids[1] == 4300);
	CHECK_STR(b.cmd, a.cmd);
	CHECK_STR(b.framework, "pytorch");
	CHECK(b.ncpus == 16 && b.tick_ns == 100000000);
	CHECK(num_ok(&b.cg_quota_cores) && b.cg_quota_cores.v == 4);
	CHECK(b.ngpus == 2 && b.gpus[0].job_holds && !b.gpus[1].job_holds && b.gpus[1].gpm);
	CHECK_STR(b.gpus[1].bus_id, "00000000:00:07.0");
	CHECK(b.gpus[0].mem_total_bytes.v == 150754820096LL);
	CHECK(b.gpus[0].pcie_max_width.st == VAL_NA);
	CHECK(b.nticks == 5 && b.nutil == 5);
	for (i = 0; i < 5; i++) {
		CHECK(b.ticks[i].t_ns == a.ticks[i].t_ns);
		CHECK(num_ok(&b.ticks[i].h.main_cpu_pct) &&
		      b.ticks[i].h.main_cpu_pct.v == a.ticks[i].h.main_cpu_pct.v);
		CHECK(num_ok(&b.ticks[i].h.workers) && b.ticks[i].h.workers.v == 0);
		CHECK(b.ticks[i].h.tree_cpu_pct.st == VAL_NA);
		CHECK(b.ticks[i].g[0].util_pct.v == a.ticks[i].g[0].util_pct.v);
		CHECK(b.ticks[i].g[0].pcie_rx_bytes_s.v == 12000000000LL);
		CHECK(num_ok(&b.ticks[i].g[1].util_pct) && b.ticks[i].g[1].util_pct.v == 0);
		CHECK(b.ticks[i].g[1].sm_active_pct.st == VAL_NA);
		CHECK(b.util[i].t_ns == a.util[i].t_ns && b.util[i].pct == a.util[i].pct);
	}
	CHECK(b.self_cpu_ns == 12345678 && b.self_wall_ns == 500000000);
	/* written again, byte for byte the same */
	again = adv_timeline_to_json(&b);
	CHECK_STR(again, text);
	free(again);
	free(text);
	adv_timeline_free(&a);
	adv_timeline_free(&b);
}

/* Replace the first `from` in text by `to` and read the result: it must fail naming `field`. */
static int refuses(const char *text, const char *from, const char *to, const char *field)
{
	struct adv_timeline tl;
	struct err e;
	const char *at = strstr(text, from);
	char *bad;
	size_t n;
	int ok;

	if (!at)
		return 0;
	n = strlen(text) - strlen(from) + strlen(to);
	bad = malloc(n + 1);
	memcpy(bad, text, (size_t)(at - text));
	memcpy(bad + (at - text), to, strlen(to));
	memcpy(bad + (at - text) + strlen(to), at + strlen(from), strlen(at + strlen(from)) + 1);
	memset(&e, 0, sizeof(e));
	ok = adv_timeline_from_json(bad, n, &tl, &e) != 0 && e.code == EXIT_ERROR &&
	     strstr(e.msg, field) != NULL && tl.ticks == NULL;
	if (!ok)
		printf("# %s -> %s: %s\n", from, to, e.msg);
	free(bad);
	return ok;
}

static void strict_reader(void)
{
	struct adv_timeline a;
	char *text;

	fill(&a);
	text = adv_timeline_to_json(&a);
	CHECK(refuses(text, "\"gpuvet_advise_timeline\": 1", "\"gpuvet_advise_timeline\": 2",
		      "version 2"));
	CHECK(refuses(text, "\"gpuvet_advise_timeline\": 1,", "", "no \"gpuvet_advise_timeline\""));
	CHECK(refuses(text, "\"ncpus\": 16", "\"ncpus\": \"16\"",
		      "machine.ncpus: expected an integer"));
	CHECK(refuses(text, "\"util_pct\": 0", "\"util_pct\": 0.5",
		      "ticks[0].gpus[0].util_pct: expected an integer or null"));
	CHECK(refuses(text, "\"main_cpu_pct\": 100,", "", "ticks[0].host.main_cpu_pct: missing"));
	CHECK(refuses(text, "\"main_cpu_pct\": 100", "\"main_cpu_pct\": 100, \"mian_cpu\": 1",
		      "ticks[0].host.mian_cpu: unknown field"));
	CHECK(refuses(text, "\"tick_ns\": 100000000", "\"tick_ns\": 0",
		      "machine.tick_ns: 0 is out of range"));
	CHECK(refuses(text, "\"t_ns\": 100000000", "\"t_ns\": -1", "ticks[1].t_ns"));
	CHECK(refuses(text, "\"job_holds\": true", "\"job_holds\": 1", "gpus[0].job_holds"));
	CHECK(refuses(text, "16000000,\n   0,\n   0", "16000000,\n   7,\n   0", "util_samples[0]"));
	CHECK(refuses("[1]", "[1]", "[1, 2]", "expected an object"));
	CHECK(refuses(text, "{", "", "not JSON"));
	free(text);
	adv_timeline_free(&a);
}

int main(void)
{
	RUN(fresh_tick_is_unread);
	RUN(round_trip);
	RUN(strict_reader);
	return TEST_DONE();
}
