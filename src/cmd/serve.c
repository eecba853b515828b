/*
 * serve.c: `gpuvet serve`, the Prometheus exporter: the collector (gpu/collector.h) sampling
 * on its own clock, doctor and the kernel log on a thread of their own (serve/health.h), and
 * an HTTP server (serve/http.h) answering /metrics from a render cache (serve/exporter.h).
 *
 * The main thread only waits for SIGINT or SIGTERM (blocked in every thread, taken with
 * sigtimedwait, so no handler runs inside libmicrohttpd or NVML) and, with --json, prints one
 * line per change of doctor's verdict. Either signal ends serve cleanly with exit 0: stopping is
 * how a service manager ends it, not a failure.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../checks/finding.h"
#include "../gpu/collector.h"
#include "../gpu/probe.h"
#include "../history/record.h"
#include "../history/store.h"
#include "../serve/agent.h"
#include "../serve/exporter.h"
#include "../serve/health.h"
#include "../serve/http.h"
#include "../serve/webconfig.h"
#include "../util/util.h"
#include "cmd.h"
#include "serve_usage.h"
#include "history_hook.h"


struct serve_opts {
	const char *listen, *web_config;
	const char *socket; /* NULL: the default path */
	bool no_socket;
	struct cmd_history hist;
	double interval, slow_interval, doctor_interval;
	long max_connections, timeout_s;
	bool dcgm, procs, json;
};

static int parse_seconds(const char *opt, const char *arg, double min, double *out)
{
	char *end = NULL;

	*out = strtod(arg, &end);
	if (!end || end == arg || *end || !(*out >= min) || *out > 86400)
		return cmd_usage_error(&cmd_serve, "%s takes seconds from %g to 86400, not '%s'", opt,
				       min, arg);
	return 0;
}

static int parse_count(const char *opt, const char *arg, long max, long *out)
{
	int64_t v;

	if (parse_i64(arg, &v) != 0 || v < 1 || v > max)
		return cmd_usage_error(&cmd_serve, "%s takes a number from 1 to %ld, not '%s'", opt, max,
				       arg);
	*out = (long)v;
	return 0;
}

static void put_json(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	puts(s);
	fflush(stdout);
	free(s);
	json_decref(o);
}

/* Doctor's verdict in one word: info lines are no problem. */
static const char *verdict_name(unsigned char worst)
{
	return worst == SEV_FAIL ? "fail" : worst == SEV_WARN ? "warn" : "ok";
}

/* --json: doctor's verdict changed (or was reached the first time). */
static void print_verdict(const struct health_view *v, const char *previous)
{
	json_t *o = json_object(), *fails = json_array();
	size_t i;

	json_object_set_new(o, "event", json_string("verdict"));
	json_object_set_new(o, "time", json_real(v->doctor.last_run_wall));
	json_object_set_new(o, "verdict", json_string(verdict_name(v->worst)));
	if (previous)
		json_object_set_new(o, "previous", json_string(previous));
	for (i = 0; i < v->doctor.n; i++) {
		const struct metrics_finding *f = &v->doctor.v[i];
		json_t *fo;

		if (f->sev != SEV_FAIL && f->sev != SEV_WARN)
			continue;
		fo = json_object();
		json_object_set_new(fo, "id", json_string(f->id));
		json_object_set_new(fo, "severity", json_string(severity_name((enum severity)f->sev)));
		if (f->gpu >= 0)
			json_object_set_new(fo, "gpu", json_integer(f->gpu));
		json_object_set_new(fo, "summary", json_string(f->summary));
		json_array_append_new(fails, fo);
	}
	json_object_set_new(o, "findings", fails);
	put_json(o);
}

static void print_start(const char *address, bool tls, unsigned ngpus, const char *sock)
{
	json_t *o = json_object();
	char url[128];

	str_fmt(url, sizeof(url), "%s://%s/metrics", tls ? "https" : "http", address);
	json_object_set_new(o, "event", json_string("start"));
	json_object_set_new(o, "address", json_string(address));
	json_object_set_new(o, "url", json_string(url));
	json_object_set_new(o, "socket", sock ? json_string(sock) : json_null());
	json_object_set_new(o, "pid", json_integer(getpid()));
	json_object_set_new(o, "gpus", json_integer(ngpus));
	put_json(o);
}

static void host_name(char *out, size_t n)
{
	const char *node = getenv("NODE_NAME"); /* dcgm-exporter's, set by a DaemonSet */

	if (node && *node) {
		str_copy(out, node, n);
		return;
	}
	if (gethostname(out, n) != 0)
		out[0] = '\0';
	out[n - 1] = '\0';
}

/* The local agent unless --no-socket; on a replay or a fake root (not this machine) only when
 * --socket or GPUVET_AGENT_SOCKET names its socket, as status asks one there only then. */
static bool want_agent(const struct serve_opts *o)
{
	const char *env = getenv("GPUVET_AGENT_SOCKET");

	if (o->no_socket)
		return false;
	return o->socket || !(gopts.replay || gopts.root) || (env && *env);
}

static int serve_run(const struct serve_opts *o)
{
	struct webconfig wc;
	bool have_wc = false;
	struct mon_opts mo;
	struct collector *c = NULL;
	struct health *h = NULL;
	struct exporter *ex = NULL;
	struct http *srv = NULL;
	struct agent *ag = NULL;
	struct hist_live *hl = NULL;
	struct mon_snapshot prev, cur; /* --history's */
	uint64_t hist_seq = 0;
	bool hist_failing = false;
	char sockbuf[256];
	const char *sock = NULL;
	struct mon_snapshot s;
	struct health_view v;
	struct health_opts ho;
	struct exporter_opts eo;
	struct http_opts hto;
	const char **bus = NULL;
	char hostname[256];
	sigset_t sigs;
	uint64_t seen_runs = 0;
	unsigned char last_worst = 0;
	struct err e;
	int rc = EXIT_OK;
	unsigned i;

	err_clear(&e);
	memset(&s, 0, sizeof(s));
	memset(&prev, 0, sizeof(prev));
	memset(&cur, 0, sizeof(cur));
	memset(&v, 0, sizeof(v));
	if (o->web_config) {
		if (webconfig_load(o->web_config, &wc, &e) != 0)
			return cmd_report_error(&e);
		have_wc = true;
	}
	/* every thread started from here on inherits the mask: the signals come to sigtimedwait
	 * below, never to a handler inside libmicrohttpd's or NVML's threads */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	memset(&mo, 0, sizeof(mo));
	mo.fast_ns = (int64_t)(o->interval * 1e9);
	mo.slow_ns = (int64_t)(o->slow_interval * 1e9);
	/* every fast group, the media engines and BAR1 included (a call each per tick; one a GPU
	 * lacks is asked once): dcgm-exporter's ENC/DEC columns, and what `gpuvet watch`'s default
	 * columns read, so that watch can take its samples from serve's agent */
	mo.fast_mask = PF_ALL | PF_MEDIA;
	/* the process lists, for gpuvet_processes; their host details (user, command) on the slow
	 * tier's clock, new PIDs at once */
	mo.procs = true;
	mo.host_ns = mo.slow_ns;
	mo.gpm = true;
	if (collector_open(&c, &mo, &e) != 0) {
		rc = cmd_report_error(&e);
		goto out;
	}
	collector_wait(c, 0, (int)(o->interval * 1000) + 3000);
	collector_copy(c, &s);

	bus = xcalloc(s.ngpus ? s.ngpus : 1, sizeof(*bus));
	for (i = 0; i < s.ngpus; i++)
		bus[i] = text_ok(&s.gpus[i].g.st.bus_id) ? s.gpus[i].g.st.bus_id.s : "";
	memset(&ho, 0, sizeof(ho));
	ho.doctor_ns = (int64_t)(o->doctor_interval * 1e9);
	ho.xid_ns = mo.slow_ns;
	ho.ngpus = s.ngpus;
	ho.bus_ids = bus;
	/* doctor's probe without CUDA: cuInit in a long-lived exporter would keep the CUDA driver's
	 * threads and memory for nothing the metrics need ('gpuvet doctor' checks CUDA) */
	ho.probe_flags = PROBE_NVML | PROBE_STATIC | PROBE_STATIC_SLOW | PROBE_SAMPLE | PROBE_PROCS;
	if (health_start(&h, &ho, &e) != 0) {
		rc = cmd_report_error(&e);
		goto out;
	}
	host_name(hostname, sizeof(hostname));
	memset(&eo, 0, sizeof(eo));
	eo.dcgm = o->dcgm;
	eo.procs = o->procs;
	eo.hostname = hostname;
	ex = exporter_new(c, h, &eo);
	memset(&hto, 0, sizeof(hto));
	hto.listen = o->listen;
	hto.max_connections = (unsigned)o->max_connections;
	hto.timeout_s = (unsigned)o->timeout_s;
	hto.wc = have_wc ? &wc : NULL;
	if (http_start(&srv, &hto, ex, &e) != 0) {
		rc = cmd_report_error(&e);
		goto out;
	}

	/* the local agent, on the same collector: `gpuvet status` asks it first */
	if (want_agent(o)) {
		sock = o->socket ? o->socket : agent_default_path(sockbuf, sizeof(sockbuf));
		if (!sock)
			fprintf(stderr, "gpuvet: note: no local agent: XDG_RUNTIME_DIR is not set "
					"(--socket PATH names one)\n");
		else if (agent_start(&ag, sock, c, &e) != 0) {
			rc = cmd_report_error(&e);
			goto out;
		} else if (!o->json)
			fprintf(stderr, "gpuvet: local agent: %s\n", agent_describe(ag));
	}
	/* --history: the events of live sampling, as `watch --history` stores them */
	if (cmd_history_wanted(&o->hist)) {
		char path[4096], host[128];

		cmd_history_host(host, sizeof(host));
		if (hist_path(o->hist.db, path, sizeof(path), &e) != 0 ||
		    hist_live_open(&hl, path, host, &e) != 0) {
			rc = cmd_report_error(&e);
			goto out;
		}
	}

	if (o->json)
		print_start(http_address(srv), have_wc && wc.cert_pem, s.ngpus, ag ? sock : NULL);
	else
		fprintf(stderr, "gpuvet: serving %s://%s/metrics for %u GPU%s\n",
			have_wc && wc.cert_pem ? "https" : "http", http_address(srv), s.ngpus,
			s.ngpus == 1 ? "" : "s");
	for (;;) {
		struct timespec ts = {0, 250000000L};
		int sig = sigtimedwait(&sigs, NULL, &ts);

		if (sig == SIGINT || sig == SIGTERM)
			break;
		if (hl && collector_copy(c, &cur) != hist_seq) {
			struct mon_snapshot t;
			struct err he;

			err_clear(&he);
			if (hist_live_tick(hl, hist_seq ? &prev : NULL, &cur, NULL, &he) == 0)
				hist_failing = false;
			else if (!hist_failing) {
				hist_failing = true;
				fprintf(stderr, "gpuvet: warning: history not stored: %s\n", he.msg);
			}
			hist_seq = cur.seq;
			/* this one is the next one's previous; the old previous is reused */
			t = prev;
			prev = cur;
			cur = t;
		}
		if (!o->json || o->doctor_interval <= 0)
			continue;
		health_copy(h, &v);
		if (v.doctor_runs != seen_runs) {
			if (seen_runs == 0 || strcmp(verdict_name(v.worst), verdict_name(last_worst)) != 0)
				print_verdict(&v, seen_runs ? verdict_name(last_worst) : NULL);
			seen_runs = v.doctor_runs;
			last_worst = v.worst;
		}
	}
	if (o->json) {
		json_t *stop = json_object();

		json_object_set_new(stop, "event", json_string("stop"));
		put_json(stop);
	}
out:
	agent_stop(ag);
	hist_live_close(hl);
	mon_snapshot_free(&prev);
	mon_snapshot_free(&cur);
	http_stop(srv);
	exporter_free(ex);
	health_stop(h);
	health_view_free(&v);
	free(bus);
	mon_snapshot_free(&s);
	if (c)
		collector_close(c);
	if (have_wc)
		webconfig_free(&wc);
	return rc;
}

static int run_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{"listen", required_argument, NULL, 'l'},
		{"web-config", required_argument, NULL, 'W'},
		{"interval", required_argument, NULL, 'd'},
		{"slow-interval", required_argument, NULL, 'S'},
		{"doctor-interval", required_argument, NULL, 'D'},
		{"dcgm-names", no_argument, NULL, 'N'},
		{"procs", no_argument, NULL, 'p'},
		{"max-connections", required_argument, NULL, 'M'},
		{"timeout", required_argument, NULL, 'T'},
		{"socket", required_argument, NULL, 'U'},
		{"no-socket", no_argument, NULL, 'u'},
		CMD_HISTORY_OPTION,
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct serve_opts o;

	memset(&o, 0, sizeof(o));
	o.listen = "127.0.0.1:9849";
	o.interval = 1.0;
	o.slow_interval = 5.0;
	o.doctor_interval = 60.0;
	o.max_connections = 64;
	o.timeout_s = 10;
	double t;
	int opt, rc;

	while ((opt = cmd_getopt(&cmd_serve, argc, argv, "l:d:jh", opts)) != -1) {
		switch (opt) {
		case 'l': o.listen = optarg; break;
		case 'W': o.web_config = optarg; break;
		case 'd':
			if ((rc = parse_seconds("--interval", optarg, 0.01, &o.interval)) != 0)
				return rc;
			break;
		case 'S':
			if ((rc = parse_seconds("--slow-interval", optarg, 0.1, &o.slow_interval)) != 0)
				return rc;
			break;
		case 'D':
			if ((rc = parse_seconds("--doctor-interval", optarg, 0, &t)) != 0)
				return rc;
			if (t > 0 && t < 1)
				return cmd_usage_error(&cmd_serve, "--doctor-interval takes 0 (never) or "
								   "at least 1 second, not '%s'",
						       optarg);
			o.doctor_interval = t;
			break;
		case 'N': o.dcgm = true; break;
		case 'p': o.procs = true; break;
		case 'M':
			if ((rc = parse_count("--max-connections", optarg, 100000, &o.max_connections)) != 0)
				return rc;
			break;
		case 'T':
			if ((rc = parse_count("--timeout", optarg, 3600, &o.timeout_s)) != 0)
				return rc;
			break;
		case 'U': o.socket = optarg; break;
		case 'u': o.no_socket = true; break;
		case CMD_HISTORY_OPT: cmd_history_option(&o.hist, optarg); break;
		case 'j': o.json = true; break;
		case 'h': cmd_print_usage(&cmd_serve); return EXIT_OK;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (optind < argc)
		return cmd_usage_error(&cmd_serve, "unexpected argument '%s'", argv[optind]);
	return serve_run(&o);
}

const struct cmd cmd_serve = {
	.name = "serve",
	.summary = SERVE_SUMMARY,
	.usage = serve_usage,
	.run = run_serve,
};
