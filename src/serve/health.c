/* health.c: serve's doctor and kernel-log thread (see health.h). */
#define _GNU_SOURCE
#include "health.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../checks/doctor.h"
#include "../util/util.h"

struct health {
	struct health_opts o;
	char **bus_ids;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* CLOCK_MONOTONIC */
	bool stop, done;
	/* published, under lock */
	struct metrics_finding *findings;
	size_t nfindings;
	bool ran;
	double last_run_wall, duration_s;
	unsigned char worst;
	uint64_t runs;
	bool have_xids;
	struct xid_tally xids;
	uint64_t gen;
};

static void publish_doctor(struct health *h, const struct findings *fs, double wall, double took)
{
	struct metrics_finding *v = xcalloc(fs->n ? fs->n : 1, sizeof(*v));
	size_t i;

	for (i = 0; i < fs->n; i++) {
		str_copy(v[i].id, fs->v[i].def->id, sizeof(v[i].id));
		v[i].sev = (unsigned char)fs->v[i].sev;
		v[i].gpu = fs->v[i].gpu;
		str_copy(v[i].summary, fs->v[i].summary ? fs->v[i].summary : "", sizeof(v[i].summary));
	}
	pthread_mutex_lock(&h->lock);
	free(h->findings);
	h->findings = v;
	h->nfindings = fs->n;
	h->ran = true;
	h->last_run_wall = wall;
	h->duration_s = took;
	h->worst = (unsigned char)findings_worst(fs);
	h->runs++;
	h->gen++;
	pthread_mutex_unlock(&h->lock);
}

static void run_doctor(struct health *h)
{
	struct doctor_input *in = xcalloc(1, sizeof(*in));
	struct findings fs = {NULL, 0, 0};
	int64_t t0 = now_ns();
	struct err e;

	err_clear(&e);
	if (doctor_collect(in, h->o.probe_flags, &e) == 0) {
		doctor_check(in, &fs);
		publish_doctor(h, &fs, wall_time(), (double)(now_ns() - t0) / 1e9);
		findings_free(&fs);
	}
	/* a probe stuck in the driver keeps its session: doctor_input_free leaves it alone */
	doctor_input_free(in);
	free(in);
}

static void read_xids(struct health *h, struct xid_tally *mine, struct kmsg_facts *k)
{
	kmsg_collect(k);
	if (k->read_rc != 0)
		return; /* restricted or absent: the counts stay absent (or as they were) */
	xid_tally_update(mine, k, (const char *const *)h->bus_ids);
	pthread_mutex_lock(&h->lock);
	if (!h->have_xids || mine->generation != h->xids.generation) {
		xid_tally_copy(&h->xids, mine);
		h->have_xids = true;
		h->gen++;
	}
	pthread_mutex_unlock(&h->lock);
}

static void *health_main(void *arg)
{
	struct health *h = arg;
	struct kmsg_facts *k = xcalloc(1, sizeof(*k));
	struct xid_tally mine;
	int64_t next_doctor = now_ns(), next_xid = now_ns();

	xid_tally_init(&mine, h->o.ngpus);
	for (;;) {
		int64_t now = now_ns(), wake;
		struct timespec ts;

		if (now >= next_xid) {
			read_xids(h, &mine, k);
			next_xid = now_ns() + h->o.xid_ns;
		}
		if (h->o.doctor_ns > 0 && now >= next_doctor) {
			run_doctor(h);
			next_doctor = now_ns() + h->o.doctor_ns;
		}
		wake = next_xid;
		if (h->o.doctor_ns > 0 && next_doctor < wake)
			wake = next_doctor;
		ts.tv_sec = (time_t)(wake / 1000000000LL);
		ts.tv_nsec = (long)(wake % 1000000000LL);
		pthread_mutex_lock(&h->lock);
		while (!h->stop && now_ns() < wake)
			if (pthread_cond_timedwait(&h->wake, &h->lock, &ts) != 0)
				break;
		if (h->stop) {
			h->done = true;
			pthread_mutex_unlock(&h->lock);
			break;
		}
		pthread_mutex_unlock(&h->lock);
	}
	xid_tally_free(&mine);
	free(k);
	return NULL;
}

int health_start(struct health **out, const struct health_opts *o, struct err *e)
{
	struct health *h = xcalloc(1, sizeof(*h));
	pthread_condattr_t ca;
	unsigned i;

	h->o = *o;
	if (h->o.xid_ns <= 0)
		h->o.xid_ns = 5000000000LL;
	h->bus_ids = xcalloc(o->ngpus ? o->ngpus : 1, sizeof(*h->bus_ids));
	for (i = 0; i < o->ngpus; i++)
		h->bus_ids[i] = xstrdup(o->bus_ids && o->bus_ids[i] ? o->bus_ids[i] : "");
	xid_tally_init(&h->xids, o->ngpus);
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	/* now_ns is CLOCK_MONOTONIC: the waits use the same clock */
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&h->thread, NULL, health_main, h) != 0) {
		health_stop(h);
		return err_set(e, EXIT_ERROR, "cannot start serve's doctor thread");
	}
	h->started = true;
	*out = h;
	return 0;
}

uint64_t health_gen(struct health *h)
{
	uint64_t g;

	pthread_mutex_lock(&h->lock);
	g = h->gen;
	pthread_mutex_unlock(&h->lock);
	return g;
}

void health_copy(struct health *h, struct health_view *v)
{
	struct metrics_finding *copy;

	pthread_mutex_lock(&h->lock);
	copy = xcalloc(h->nfindings ? h->nfindings : 1, sizeof(*copy));
	if (h->nfindings)
		memcpy(copy, h->findings, h->nfindings * sizeof(*copy));
	free((void *)v->doctor.v);
	v->doctor_on = h->o.doctor_ns > 0;
	v->doctor.ran = h->ran;
	v->doctor.last_run_wall = h->last_run_wall;
	v->doctor.duration_s = h->duration_s;
	v->doctor.v = copy;
	v->doctor.n = h->nfindings;
	v->worst = h->worst;
	v->doctor_runs = h->runs;
	v->have_xids = h->have_xids;
	xid_tally_copy(&v->xids, &h->xids);
	v->gen = h->gen;
	pthread_mutex_unlock(&h->lock);
}

void health_view_free(struct health_view *v)
{
	free((void *)v->doctor.v);
	xid_tally_free(&v->xids);
	memset(v, 0, sizeof(*v));
}

void health_stop(struct health *h)
{
	unsigned i;

	if (!h)
		return;
	if (h->started) {
		struct timespec ts;

		pthread_mutex_lock(&h->lock);
		h->stop = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 2;
		if (pthread_timedjoin_np(h->thread, NULL, &ts) != 0) {
			/* doctor is stuck in a vendor call: leave the thread and its memory */
			pthread_detach(h->thread);
			return;
		}
	}
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->lock);
	for (i = 0; i < h->o.ngpus; i++)
		free(h->bus_ids[i]);
	free(h->bus_ids);
	free(h->findings);
	xid_tally_free(&h->xids);
	free(h);
}
