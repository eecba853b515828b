/* sensors.c: the NVML sampling thread of bench (see sensors.h). */
#define _GNU_SOURCE
#include "sensors.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../gpu/device.h"
#include "../gpu/probe.h"
#include "../util/util.h"

struct bench_sensors {
	struct probe *p;
	struct gpu *gpus; /* copies: index is what probe_sample_gpu needs */
	int n;
	int interval_ms;
	int64_t t0_ns;
	pthread_t th;
	bool running;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	struct sensor_reading *r;
	size_t nr, cap;
};

static double num_or(const struct num *n, double scale)
{
	return num_ok(n) ? (double)n->v * scale : -1;
}

static void *sensors_main(void *arg)
{
	struct bench_sensors *s = arg;
	struct gpu_sample smp;

	memset(&smp, 0, sizeof(smp));
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		int i;

		pthread_mutex_unlock(&s->mu);
		for (i = 0; i < s->n; i++) {
			struct sensor_reading rd;

			free(smp.procs);
			memset(&smp, 0, sizeof(smp));
			if (probe_sample_gpu(s->p, &s->gpus[i], PROBE_FAST, &smp) != 0)
				continue;
			rd.t_s = (double)(now_ns() - s->t0_ns) / 1e9;
			rd.gpu = (int)s->gpus[i].index;
			rd.clock_sm_mhz = num_or(&smp.clock_sm_mhz, 1);
			rd.clock_mem_mhz = num_or(&smp.clock_mem_mhz, 1);
			rd.power_w = num_or(&smp.power_mw, 1e-3);
			rd.temp_c = num_or(&smp.temp_c, 1);
			rd.clock_events = num_ok(&smp.clock_events) ? smp.clock_events.v : -1;
			pthread_mutex_lock(&s->mu);
			if (s->nr == s->cap) {
				s->cap = s->cap ? s->cap * 2 : 1024;
				s->r = xrealloc(s->r, s->cap * sizeof(*s->r));
			}
			s->r[s->nr++] = rd;
			pthread_mutex_unlock(&s->mu);
		}
		pthread_mutex_lock(&s->mu);
		if (!s->stop) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += (long)s->interval_ms * 1000000L;
			ts.tv_sec += ts.tv_nsec / 1000000000L;
			ts.tv_nsec %= 1000000000L;
			pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		}
	}
	pthread_mutex_unlock(&s->mu);
	free(smp.procs);
	return NULL;
}

struct bench_sensors *bench_sensors_start(struct probe *p, const struct gpu *gpus,
					  const int *nvml_indexes, int n, int interval_ms,
					  int64_t t0_ns)
{
	struct bench_sensors *s = xcalloc(1, sizeof(*s));
	int i;

	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->t0_ns = t0_ns;
	s->interval_ms = interval_ms > 0 ? interval_ms : 100;
	if (!p || n <= 0)
		return s;
	s->p = p;
	s->gpus = xcalloc((size_t)n, sizeof(*s->gpus));
	for (i = 0; i < n; i++) {
		s->gpus[s->n] = gpus[nvml_indexes[i]];
		s->gpus[s->n].s.procs = NULL;
		s->n++;
	}
	if (pthread_create(&s->th, NULL, sensors_main, s) == 0)
		s->running = true;
	return s;
}

void bench_sensors_stop(struct bench_sensors *s)
{
	if (!s || !s->running)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th, NULL);
	s->running = false;
}

void bench_sensors_window(struct bench_sensors *s, int nvml_index, double t0_s, double t1_s,
			  struct sensor_window *w)
{
	double sum_clk = 0, sum_pw = 0, best = 1e300;
	int nclk = 0, npw = 0;
	size_t i, nearest = (size_t)-1;
	double mid = (t0_s + t1_s) / 2;

	memset(w, 0, sizeof(*w));
	w->clock_sm_avg = w->clock_sm_min = w->power_avg = w->power_max = w->temp_max = -1;
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	for (i = 0; i < s->nr; i++) {
		const struct sensor_reading *r = &s->r[i];
		double d = r->t_s > mid ? r->t_s - mid : mid - r->t_s;

		if (r->gpu != nvml_index)
			continue;
		if (d < best) {
			best = d;
			nearest = i;
		}
		if (r->t_s < t0_s || r->t_s > t1_s)
			continue;
		w->n++;
		if (r->clock_sm_mhz >= 0) {
			sum_clk += r->clock_sm_mhz;
			nclk++;
			if (w->clock_sm_min < 0 || r->clock_sm_mhz < w->clock_sm_min)
				w->clock_sm_min = r->clock_sm_mhz;
		}
		if (r->power_w >= 0) {
			sum_pw += r->power_w;
			npw++;
			if (r->power_w > w->power_max)
				w->power_max = r->power_w;
		}
		if (r->temp_c > w->temp_max)
			w->temp_max = r->temp_c;
	}
	if (nclk)
		w->clock_sm_avg = sum_clk / nclk;
	if (npw)
		w->power_avg = sum_pw / npw;
	if (w->n == 0 && nearest != (size_t)-1) {
		const struct sensor_reading *r = &s->r[nearest];

		w->clock_sm_avg = w->clock_sm_min = r->clock_sm_mhz;
		w->power_avg = w->power_max = r->power_w;
		w->temp_max = r->temp_c;
	}
	pthread_mutex_unlock(&s->mu);
}

static json_t *opt_real(double v, double scale)
{
	return v >= 0 ? json_real((double)(int64_t)(v * scale + 0.5) / scale) : json_null();
}

json_t *bench_sensors_json(struct bench_sensors *s)
{
	json_t *o = json_object(), *g = json_object();
	size_t i;

	if (!s) {
		json_decref(g);
		return o;
	}
	json_object_set_new(o, "interval_ms", json_integer(s->interval_ms));
	json_object_set_new(
	    o, "columns",
	    json_pack("[s,s,s,s,s]", "t_s", "sm_clock_mhz", "mem_clock_mhz", "power_w", "temp_c"));
	pthread_mutex_lock(&s->mu);
	for (i = 0; i < s->nr; i++) {
		const struct sensor_reading *r = &s->r[i];
		char key[16];
		json_t *arr;

		str_fmt(key, sizeof(key), "%d", r->gpu);
		arr = json_object_get(g, key);
		if (!arr) {
			arr = json_array();
			json_object_set_new(g, key, arr);
		}
		json_array_append_new(
		    arr, json_pack("[o,o,o,o,o]", opt_real(r->t_s, 1000),
				   opt_real(r->clock_sm_mhz, 1), opt_real(r->clock_mem_mhz, 1),
				   opt_real(r->power_w, 10), opt_real(r->temp_c, 1)));
	}
	pthread_mutex_unlock(&s->mu);
	json_object_set_new(o, "gpus", g);
	return o;
}

void bench_sensors_free(struct bench_sensors *s)
{
	if (!s)
		return;
	bench_sensors_stop(s);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s->gpus);
	free(s->r);
	free(s);
}
