/* exporter.c: the render cache and the /healthz verdict of `gpuvet serve` (see exporter.h). */
#define _GNU_SOURCE
#include "exporter.h"

#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../checks/finding.h"
#include "../util/strbuf.h"
#include "../util/util.h"

struct cached {
	bool valid;
	char *body;
	size_t len;
};

struct exporter {
	struct collector *c;
	struct health *h;
	struct exporter_opts o;
	double start_time;
	atomic_ullong scrapes[METRICS_NPATHS];
	pthread_mutex_t lock;
	/* under lock: the inputs of the cached bodies, and the bodies */
	struct mon_snapshot snap;
	struct health_view hv;
	uint64_t hgen;
	bool have_inputs;
	struct cached cache[METRICS_NFORMATS];
	double render_seconds;
};

struct exporter *exporter_new(struct collector *c, struct health *h, const struct exporter_opts *o)
{
	struct exporter *ex = xcalloc(1, sizeof(*ex));

	ex->c = c;
	ex->h = h;
	ex->o = *o;
	ex->o.hostname = xstrdup(o->hostname ? o->hostname : "");
	ex->start_time = wall_time();
	ex->render_seconds = -1;
	pthread_mutex_init(&ex->lock, NULL);
	return ex;
}

void exporter_free(struct exporter *ex)
{
	int f;

	if (!ex)
		return;
	for (f = 0; f < METRICS_NFORMATS; f++)
		free(ex->cache[f].body);
	mon_snapshot_free(&ex->snap);
	health_view_free(&ex->hv);
	pthread_mutex_destroy(&ex->lock);
	free((void *)ex->o.hostname);
	free(ex);
}

void exporter_count(struct exporter *ex, enum metrics_path p)
{
	atomic_fetch_add(&ex->scrapes[p < METRICS_NPATHS ? p : METRICS_PATH_OTHER], 1);
}

/* Bring the inputs up to date when the collector or the health thread published since;
 * under ex->lock. */
static void refresh(struct exporter *ex)
{
	uint64_t seq = collector_wait(ex->c, ex->snap.seq, 0);
	uint64_t hgen = health_gen(ex->h);
	int f;

	if (ex->have_inputs && seq == ex->snap.seq && hgen == ex->hgen)
		return;
	if (!ex->have_inputs || seq != ex->snap.seq)
		collector_copy(ex->c, &ex->snap);
	if (!ex->have_inputs || hgen != ex->hgen) {
		health_copy(ex->h, &ex->hv);
		ex->hgen = ex->hv.gen;
	}
	ex->have_inputs = true;
	for (f = 0; f < METRICS_NFORMATS; f++)
		ex->cache[f].valid = false;
}

/* serve's own resident memory, from the real /proc (not the examined root's: this is gpuvet
 * itself), or -1. */
static int64_t own_rss_bytes(void)
{
	char buf[128];
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	unsigned long long size, resident;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &size, &resident) != 2)
		return -1;
	return (int64_t)resident * sysconf(_SC_PAGESIZE);
}

static double own_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

void exporter_metrics(struct exporter *ex, enum metrics_format f, char **body, size_t *len)
{
	struct cached *c = &ex->cache[f];
	struct metrics_live live;
	struct strbuf sb;
	int p;

	memset(&live, 0, sizeof(live));
	live.cpu_seconds = own_cpu_seconds();
	live.rss_bytes = own_rss_bytes();
	live.start_time = ex->start_time;
	for (p = 0; p < METRICS_NPATHS; p++)
		live.scrapes[p] = atomic_load(&ex->scrapes[p]);
	pthread_mutex_lock(&ex->lock);
	refresh(ex);
	if (!c->valid) {
		struct metrics_input in;
		struct strbuf out;
		int64_t t0 = now_ns();

		memset(&in, 0, sizeof(in));
		in.snap = &ex->snap;
		in.health = ex->hv.doctor_on ? &ex->hv.doctor : NULL;
		in.xids = ex->hv.have_xids ? &ex->hv.xids : NULL;
		in.hostname = ex->o.hostname;
		in.dcgm = ex->o.dcgm;
		in.procs = ex->o.procs;
		sb_init(&out);
		metrics_render(&in, f, &out);
		free(c->body);
		c->len = out.len;
		c->body = sb_detach(&out);
		c->valid = true;
		ex->render_seconds = (double)(now_ns() - t0) / 1e9;
	}
	live.render_seconds = ex->render_seconds;
	live.now_ns = now_ns();
	sb_init(&sb);
	sb_add(&sb, c->body, c->len);
	metrics_render_live(&ex->snap, &live, f, &sb);
	pthread_mutex_unlock(&ex->lock);
	*len = sb.len;
	*body = sb_detach(&sb);
}

int exporter_healthz(struct exporter *ex, bool json, char **body, size_t *len)
{
	const struct health_view *v = &ex->hv;
	struct strbuf sb;
	json_t *o = NULL, *arr = NULL;
	bool failing;
	const char *state;
	size_t i;

	pthread_mutex_lock(&ex->lock);
	refresh(ex);
	failing = v->doctor.ran && v->worst == SEV_FAIL;
	state = !v->doctor_on ? "doctor is off" : !v->doctor.ran ? "doctor has not run yet"
				 : failing ? "failure" : v->worst == SEV_WARN ? "warning" : "ok";
	sb_init(&sb);
	if (json) {
		o = json_object();
		arr = json_array();
		json_object_set_new(o, "status", json_string(failing ? "fail" : "ok"));
		json_object_set_new(o, "verdict", json_string(state));
		if (v->doctor.ran)
			json_object_set_new(o, "last_run", json_real(v->doctor.last_run_wall));
	} else {
		sb_adds(&sb, failing ? "failure\n" : "ok\n");
		if (!failing && strcmp(state, "ok") != 0)
			sb_addf(&sb, "(%s)\n", state);
	}
	for (i = 0; failing && i < v->doctor.n; i++) {
		const struct metrics_finding *f = &v->doctor.v[i];

		if (f->sev != SEV_FAIL)
			continue;
		if (json) {
			json_t *fo = json_object();

			json_object_set_new(fo, "id", json_string(f->id));
			if (f->gpu >= 0)
				json_object_set_new(fo, "gpu", json_integer(f->gpu));
			json_object_set_new(fo, "summary", json_string(f->summary));
			json_array_append_new(arr, fo);
		} else if (f->gpu >= 0) {
			sb_addf(&sb, "GPU %d: %s: %s\n", f->gpu, f->id, f->summary);
		} else {
			sb_addf(&sb, "%s: %s\n", f->id, f->summary);
		}
	}
	pthread_mutex_unlock(&ex->lock);
	if (json) {
		char *s;

		json_object_set_new(o, "failures", arr);
		s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		sb_adds(&sb, s);
		sb_addc(&sb, '\n');
		free(s);
		json_decref(o);
	}
	*len = sb.len;
	*body = sb_detach(&sb);
	return failing ? 503 : 200;
}
