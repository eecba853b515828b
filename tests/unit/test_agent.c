/*
 * test_agent.c: serve's local agent (serve/agent.h) end to end on the replay of the 2x H200
 * recording: the collector samples it, the agent answers status on a socket in a temporary
 * folder, and each answer must equal what status renders from its own one-shot probe (table,
 * -v, JSON, --query CSV and JSON, -i, a selection error). Then the server under bad input and
 * load: garbage, another protocol version, a half frame and a client that never reads its reply
 * (neither holds up the others; the half frame is dropped at the time limit), 200 clients at
 * once; and the client's fallbacks: no
 * socket, a stale one, a listener that never answers, a reply of another version,
 * "unsupported". The socket's set-up: its mode from /dev/nvidiactl, a stale socket replaced, a
 * live one refused, a file that is no socket left alone, the socket removed at stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "gpu/collector.h"
#include "gpu/probe.h"
#include "replay/replay.h"
#include "serve/agent.h"
#include "test.h"
#include "testpaths.h"
#include "util/util.h"
#include "view/status_view.h"

static char dir[PATH_MAX], sock[PATH_MAX];
static struct collector *coll;
static struct agent *agent;

/* ---- the cases: option sets, and what status renders from its own probe ------------------- */
struct tcase {
	const char *name;
	struct status_opts o;
	int want_rc;
	char *want_out, *want_err; /* rendered from a one-shot probe before the collector runs */
};

static struct tcase cases[] = {
    {"table", {.header = true}, 0, NULL, NULL},
    {"table -v", {.verbose = true, .header = true}, 0, NULL, NULL},
    {"table -i 1", {.ids = "1", .header = true}, 0, NULL, NULL},
    {"table in colour", {.color = true, .header = true}, 0, NULL, NULL},
    {"json", {.json = true, .header = true}, 0, NULL, NULL},
    {"json -l", {.json = true, .loop_ms = 1000, .header = true}, 0, NULL, NULL},
    {"query of the table's readings",
     {.query = "index,name,pci.bus_id,memory.total,memory.used,power.draw,power.limit,"
	       "utilization.gpu,clocks.current.sm,temperature.gpu,ecc.errors.uncorrected."
	       "volatile.total,pcie.link.gen.current",
      .csv = true,
      .header = true},
     0,
     NULL,
     NULL},
    {"query of the full probe",
     {.query = "index,serial,uuid,vbios_version,power.limit,enforced.power.limit,pstate,"
	       "fan.speed,clocks.mem,clocks.max.sm,temperature.memory,power.draw.average,"
	       "ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.aggregate.total,"
	       "remapped_rows.pending,retired_pages.sbe,clocks_event_reasons.active,"
	       "clocks_event_reasons_counters.sw_power_cap,fabric.state,processes,"
	       "compute_mode,persistence_mode,nvlink_count,driver_version,count",
      .csv = true,
      .nounits = true,
      .header = true},
     0,
     NULL,
     NULL},
    {"query noheader",
     {.query = "index,temperature.gpu", .csv = true, .noheader = true},
     0,
     NULL,
     NULL},
    {"query json",
     {.query = "index,uuid,power.draw,fan.speed", .json = true, .header = true},
     0,
     NULL,
     NULL},
    {"-i 7: no such GPU", {.ids = "7", .header = true}, EXIT_USAGE, NULL, NULL},
};

/* status's own rendering: a one-shot probe of the replay */
static int render_direct(struct tcase *t)
{
	struct gpu_system sys;
	struct strbuf out, err;
	struct err e;
	struct status_opts o = t->o;

	memset(&sys, 0, sizeof(sys));
	err_clear(&e);
	if (probe_run(&sys, status_probe_flags(&o), &e) != 0)
		return -1;
	sb_init(&out);
	sb_init(&err);
	t->want_rc = status_render(&sys, &o, &out, &err);
	t->want_out = sb_detach(&out);
	t->want_err = sb_detach(&err);
	gpu_system_free(&sys);
	return 0;
}

/* JSON without the keys that say where it came from */
static char *json_plain(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	char *s;

	if (!j)
		return NULL;
	json_object_del(j, "source");
	json_object_del(j, "sample_age_ms");
	s = json_dumps(j, JSON_PRESERVE_ORDER | JSON_COMPACT);
	json_decref(j);
	return s;
}

static bool same_output(const struct tcase *t, const char *got)
{
	char *a, *b;
	bool same;

	if (!t->o.json || t->o.query)
		return strcmp(t->want_out, got) == 0;
	a = json_plain(t->want_out);
	b = json_plain(got);
	same = a && b && strcmp(a, b) == 0;
	free(a);
	free(b);
	return same;
}

static int call(const struct status_opts *o, struct agent_answer *ans, char *why, size_t n,
		int timeout_ms)
{
	struct strbuf req;
	bool absent;
	int rc;

	sb_init(&req);
	if (agent_status_encode(o, &req) != 0) {
		sb_release(&req);
		return -2;
	}
	rc = agent_call(sock, AGENT_REQ_STATUS, req.buf, req.len, timeout_ms, ans, &absent, why, n);
	sb_release(&req);
	return rc;
}

static void test_answers_equal_status(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct agent_answer ans;
		char why[256] = "";
		int rc = call(&cases[i].o, &ans, why, sizeof(why), 2000);

		if (rc != 0)
			printf("case '%s': %s\n", cases[i].name, why);
		CHECK(rc == 0);
		if (!same_output(&cases[i], ans.out.buf) || ans.exit_code != cases[i].want_rc ||
		    strcmp(ans.err.buf, cases[i].want_err) != 0)
			printf("case '%s': agent (exit %d):\n%s%s-- status (exit %d):\n%s%s\n",
			       cases[i].name, ans.exit_code, ans.out.buf, ans.err.buf,
			       cases[i].want_rc, cases[i].want_out, cases[i].want_err);
		CHECK(same_output(&cases[i], ans.out.buf));
		CHECK(ans.exit_code == cases[i].want_rc);
		CHECK_STR(ans.err.buf, cases[i].want_err);
		CHECK(ans.age_s >= 0 && ans.age_s < 5);
		agent_answer_free(&ans);
	}
}

static void test_json_says_agent(void)
{
	struct status_opts o = {.json = true, .header = true};
	struct agent_answer ans;
	char why[256];
	json_t *j;
	json_error_t je;

	CHECK(call(&o, &ans, why, sizeof(why), 2000) == 0);
	j = json_loads(ans.out.buf, 0, &je);
	CHECK(j);
	CHECK_STR(json_string_value(json_object_get(j, "source")), "agent");
	CHECK(json_is_integer(json_object_get(j, "sample_age_ms")));
	json_decref(j);
	agent_answer_free(&ans);
	/* and status's own JSON says it read NVML itself */
	CHECK(strstr(cases[4].want_out, "\"source\"") == NULL); /* the direct render had none */
}

static void test_unsupported(void)
{
	static const struct {
		struct status_opts o;
		const char *why;
	} un[] = {
	    {{.apps = "pid,used_memory", .csv = true, .header = true}, "process lists"},
	    {{.query = "index,sm_count", .csv = true, .header = true}, "CUDA"},
	    {{.query = "index,energy_mj", .csv = true, .header = true}, "slow query"},
	    {{.query = "cpu_affinity", .csv = true, .header = true}, "slow query"},
	};
	struct agent_answer ans;
	char why[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(un); i++) {
		why[0] = '\0';
		CHECK(call(&un[i].o, &ans, why, sizeof(why), 2000) == -1);
		if (!strstr(why, un[i].why))
			printf("why: %s\n", why);
		CHECK(strstr(why, "unsupported: ") && strstr(why, un[i].why));
	}
	/* the timestamp is local time: answered in serve's time zone */
	{
		struct status_opts o = {.query = "timestamp,index", .csv = true, .header = true};

		CHECK(call(&o, &ans, why, sizeof(why), 2000) == 0);
		CHECK(strncmp(ans.out.buf, "timestamp, index\n", 17) == 0);
		agent_answer_free(&ans);
	}
}

/* ---- raw sockets ------------------------------------------------------------------------------
 */

static int raw_connect(const char *path)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	str_copy(sa.sun_path, path, sizeof(sa.sun_path));
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read until EOF or timeout_ms; the bytes read, -1 on timeout. */
static ssize_t read_to_eof(int fd, unsigned char *buf, size_t n, int timeout_ms)
{
	size_t got = 0;
	int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;

	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		int left = (int)((deadline - now_ns()) / 1000000);
		ssize_t r;

		if (left <= 0 || poll(&p, 1, left) <= 0)
			return -1;
		r = read(fd, buf + got, n - got);
		if (r <= 0)
			return (ssize_t)got;
		got += (size_t)r;
		if (got == n)
			return (ssize_t)got;
	}
}

static void test_garbage(void)
{
	static const char junk[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	unsigned char buf[512], hdr[AGENT_HEADER_BYTES];
	unsigned type, version;
	uint32_t len;
	char why[128];
	ssize_t n;
	int fd = raw_connect(sock);

	CHECK(fd >= 0);
	CHECK(write(fd, junk, sizeof(junk) - 1) == (ssize_t)sizeof(junk) - 1);
	n = read_to_eof(fd, buf, sizeof(buf), 2000);
	close(fd);
	/* an error reply, then the connection is closed */
	CHECK(n >= AGENT_HEADER_BYTES);
	CHECK(agent_header_get(buf, &type, &len, &version, why, sizeof(why)) == 0);
	CHECK(type == AGENT_REP_ERROR && n == (ssize_t)(AGENT_HEADER_BYTES + len));
	CHECK(memmem(buf + AGENT_HEADER_BYTES, len, "not a gpuvet agent frame", 24));

	/* another protocol version: refused in words the client can show */
	fd = raw_connect(sock);
	CHECK(fd >= 0);
	agent_header_put(hdr, AGENT_REQ_STATUS, 0);
	hdr[4] = 9;
	CHECK(write(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr));
	n = read_to_eof(fd, buf, sizeof(buf), 2000);
	close(fd);
	CHECK(n >= AGENT_HEADER_BYTES);
	CHECK(agent_header_get(buf, &type, &len, &version, why, sizeof(why)) == 0);
	CHECK(type == AGENT_REP_ERROR);
	CHECK(memmem(buf + AGENT_HEADER_BYTES, len, "protocol version 9", 18));

	/* an oversized request is refused from its header */
	fd = raw_connect(sock);
	CHECK(fd >= 0);
	agent_header_put(hdr, AGENT_REQ_STATUS, 100u << 20);
	CHECK(write(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr));
	n = read_to_eof(fd, buf, sizeof(buf), 2000);
	close(fd);
	CHECK(n >= AGENT_HEADER_BYTES);
	CHECK(agent_header_get(buf, &type, &len, &version, why, sizeof(why)) == 0);
	CHECK(type == AGENT_REP_ERROR);

	/* a well-framed request that is no status request */
	{
		static const char bad[] = "json=maybe\n";
		struct strbuf sb;

		fd = raw_connect(sock);
		CHECK(fd >= 0);
		agent_header_put(hdr, AGENT_REQ_STATUS, sizeof(bad) - 1);
		sb_init(&sb);
		sb_add(&sb, (const char *)hdr, sizeof(hdr));
		sb_adds(&sb, bad);
		CHECK(write(fd, sb.buf, sb.len) == (ssize_t)sb.len);
		sb_release(&sb);
		n = read_to_eof(fd, buf, sizeof(buf), 2000);
		close(fd);
		CHECK(n >= AGENT_HEADER_BYTES);
		CHECK(agent_header_get(buf, &type, &len, &version, why, sizeof(why)) == 0);
		CHECK(type == AGENT_REP_ERROR);
	}
}

/* A half frame and a client that never reads its reply hold up nobody; the half frame is
 * dropped at the connection's time limit. (A reply this small fits the socket's buffer, so the
 * server's partial writes are not exercised here.) */
static void test_slow_clients(void)
{
	struct status_opts o = {.header = true};
	struct agent_answer ans;
	unsigned char hdr[AGENT_HEADER_BYTES], buf[64];
	struct strbuf req;
	struct agent_stats st0, st1;
	char why[256];
	int half = raw_connect(sock), mute = raw_connect(sock), i;
	int64_t t0;

	CHECK(half >= 0 && mute >= 0);
	agent_get_stats(agent, &st0);
	agent_header_put(hdr, AGENT_REQ_STATUS, 500);
	CHECK(write(half, hdr, 6) == 6); /* half a header */
	/* a whole request, whose reply it never reads */
	sb_init(&req);
	CHECK(agent_status_encode(&o, &req) == 0);
	agent_header_put(hdr, AGENT_REQ_STATUS, (uint32_t)req.len);
	CHECK(write(mute, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr));
	CHECK(write(mute, req.buf, req.len) == (ssize_t)req.len);
	sb_release(&req);
	for (i = 0; i < 20; i++) {
		t0 = now_ns();
		CHECK(call(&o, &ans, why, sizeof(why), 2000) == 0);
		/* not held up (a shared CI machine may stall a call, but not for the 2 s limit) */
		CHECK(now_ns() - t0 < 1000000000LL);
		agent_answer_free(&ans);
	}
	/* the half frame is dropped at the time limit (the read sees the end) */
	t0 = now_ns();
	CHECK(read_to_eof(half, buf, sizeof(buf), AGENT_CONN_TIMEOUT_MS + 2000) == 0);
	CHECK(now_ns() - t0 > 500000000LL);
	close(half);
	close(mute);
	agent_get_stats(agent, &st1);
	CHECK(st1.dropped >= st0.dropped + 1);
}

struct load_arg {
	int rc;
	bool same;
};

static void *one_client(void *arg)
{
	struct load_arg *la = arg;
	struct agent_answer ans;
	char why[256];

	la->rc = call(&cases[0].o, &ans, why, sizeof(why), 10000);
	la->same = la->rc == 0 && strcmp(ans.out.buf, cases[0].want_out) == 0;
	if (la->rc == 0)
		agent_answer_free(&ans);
	return NULL;
}

static void test_200_clients(void)
{
	enum { N = 200 };
	pthread_t th[N];
	struct load_arg la[N];
	struct agent_stats st;
	int i, ok = 0, same = 0;
	int64_t t0 = now_ns();

	for (i = 0; i < N; i++)
		CHECK(pthread_create(&th[i], NULL, one_client, &la[i]) == 0);
	for (i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		ok += la[i].rc == 0;
		same += la[i].same;
	}
	if (ok != N)
		printf("200 clients: %d answered, %d the same, in %.0f ms\n", ok, same,
		       (now_ns() - t0) / 1e6);
	CHECK(ok == N && same == N);
	agent_get_stats(agent, &st);
	CHECK(st.answered >= N);
}

/* ---- the client's fallbacks and the socket's set-up -------------------------------------------
 */

struct fake_server {
	int lfd;
	bool reply_v9; /* reply with protocol version 9; else never answer */
};

static void *fake_serve(void *arg)
{
	struct fake_server *fs = arg;
	int fd = accept(fs->lfd, NULL, NULL);
	unsigned char hdr[AGENT_HEADER_BYTES], buf[4096];

	if (fd < 0)
		return NULL;
	if (fs->reply_v9) {
		if (read(fd, buf, sizeof(buf)) < 0) {
			/* only the reply matters */
		}
		agent_header_put(hdr, AGENT_REP_OK, 0);
		hdr[4] = 9;
		if (write(fd, hdr, sizeof(hdr)) < 0) {
			/* the client may be gone */
		}
	} else {
		usleep(600000);
	}
	close(fd);
	return NULL;
}

static int listen_at(const char *path, bool do_listen)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	str_copy(sa.sun_path, path, sizeof(sa.sun_path));
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    (do_listen && listen(fd, 8) != 0))
		return -1;
	return fd;
}

static void test_fallbacks(void)
{
	struct agent_answer ans;
	char path[PATH_MAX + 32], why[256];
	bool absent;
	struct fake_server fs;
	pthread_t th;
	int64_t t0;
	int fd;

	/* no socket */
	str_fmt(path, sizeof(path), "%s/none.sock", dir);
	CHECK(agent_call(path, AGENT_REQ_STATUS, "x", 1, 200, &ans, &absent, why, sizeof(why)) ==
	      -1);
	CHECK(absent);
	/* a stale socket: nobody listens */
	str_fmt(path, sizeof(path), "%s/stale.sock", dir);
	fd = listen_at(path, false);
	CHECK(fd >= 0);
	close(fd);
	CHECK(agent_call(path, AGENT_REQ_STATUS, "x", 1, 200, &ans, &absent, why, sizeof(why)) ==
	      -1);
	CHECK(absent);
	/* a listener that never answers: the call gives up at its time limit */
	str_fmt(path, sizeof(path), "%s/mute.sock", dir);
	fs.lfd = listen_at(path, true);
	fs.reply_v9 = false;
	CHECK(fs.lfd >= 0);
	CHECK(pthread_create(&th, NULL, fake_serve, &fs) == 0);
	t0 = now_ns();
	CHECK(agent_call(path, AGENT_REQ_STATUS, "x", 1, 200, &ans, &absent, why, sizeof(why)) ==
	      -1);
	CHECK(!absent);
	CHECK(now_ns() - t0 >= 190000000LL && now_ns() - t0 < 1500000000LL);
	CHECK(strstr(why, "no reply within 200 ms"));
	pthread_join(th, NULL);
	/* a reply of another protocol version */
	fs.reply_v9 = true;
	CHECK(pthread_create(&th, NULL, fake_serve, &fs) == 0);
	CHECK(agent_call(path, AGENT_REQ_STATUS, "x", 1, 1000, &ans, &absent, why, sizeof(why)) ==
	      -1);
	pthread_join(th, NULL);
	close(fs.lfd);
	CHECK(strstr(why, "protocol version 9"));
	/* another gpuvet version: unsupported */
	{
		static const char req[] = "gpuvet=0.0.1\njson=0\n";

		CHECK(agent_call(sock, AGENT_REQ_STATUS, req, sizeof(req) - 1, 1000, &ans, &absent,
				 why, sizeof(why)) == -1);
		CHECK(strstr(why, "unsupported: serve is another gpuvet version"));
	}
	/* a value with a newline cannot be sent */
	{
		struct status_opts o = {.ids = "0\njson=1"};
		struct strbuf sb;

		sb_init(&sb);
		CHECK(agent_status_encode(&o, &sb) == -1);
		sb_release(&sb);
	}
}

static void test_socket_setup(void)
{
	struct agent *other = NULL;
	struct err e;
	struct stat st;
	char path[PATH_MAX + 32];
	int fd;

	/* the mode of the replay's /dev/nvidiactl (0666), the folder made 0755 */
	CHECK(stat(sock, &st) == 0 && S_ISSOCK(st.st_mode));
	CHECK((st.st_mode & 0777) == 0666);
	str_fmt(path, sizeof(path), "%s/sub", dir);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0755);
	CHECK(strstr(agent_describe(agent), "mode 0666"));
	/* a live one: refused */
	err_clear(&e);
	CHECK(agent_start(&other, sock, coll, &e) == -1);
	CHECK(strstr(e.msg, "already running"));
	/* a file that is no socket: left alone */
	str_fmt(path, sizeof(path), "%s/file.sock", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0);
	close(fd);
	CHECK(agent_start(&other, path, coll, &e) == -1);
	CHECK(strstr(e.msg, "is not a socket"));
	CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode));
	/* a stale socket is replaced, answers, and is removed at stop */
	str_fmt(path, sizeof(path), "%s/stale2.sock", dir);
	fd = listen_at(path, false);
	CHECK(fd >= 0);
	close(fd);
	CHECK(agent_start(&other, path, coll, &e) == 0);
	{
		struct status_opts o = {.header = true};
		struct agent_answer ans;
		struct strbuf req;
		char why[256];
		bool absent;

		sb_init(&req);
		CHECK(agent_status_encode(&o, &req) == 0);
		CHECK(agent_call(path, AGENT_REQ_STATUS, req.buf, req.len, 2000, &ans, &absent, why,
				 sizeof(why)) == 0);
		sb_release(&req);
		CHECK_STR(ans.out.buf, cases[0].want_out);
		agent_answer_free(&ans);
	}
	agent_stop(other);
	CHECK(stat(path, &st) != 0 && errno == ENOENT);
	/* the default path */
	{
		char buf[256];

		setenv("GPUVET_AGENT_SOCKET", "/x/y.sock", 1);
		CHECK_STR(agent_default_path(buf, sizeof(buf)), "/x/y.sock");
		unsetenv("GPUVET_AGENT_SOCKET");
		setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
		if (geteuid() != 0)
			CHECK_STR(agent_default_path(buf, sizeof(buf)),
				  "/run/user/1000/gpuvet/agent.sock");
	}
}

/* ---- set-up ---------------------------------------------------------------------------------- */

static void setup(void)
{
	char top[PATH_MAX], libdir[PATH_MAX], scen[PATH_MAX + 64];
	struct mon_opts mo;
	struct mon_snapshot s;
	struct err e;
	const char *tmp = getenv("TMPDIR");
	size_t i;
	int64_t deadline;
	bool ready = false;
	FILE *f;

	test_paths(top, sizeof(top), libdir, sizeof(libdir));
	setenv("GPUVET_REPLAY_LIBDIR", libdir, 1);
	str_fmt(dir, sizeof(dir), "%s/gpuvet-agent-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	CHECK(mkdtemp(dir));
	str_fmt(sock, sizeof(sock), "%s/sub/agent.sock", dir);
	/* GPU 0's enforced power limit below its limit: the table shows the enforced one where it
	 * was read, and its own probe does not read it, so neither may the agent's answer */
	str_fmt(scen, sizeof(scen), "%s/scenario.json", dir);
	f = fopen(scen, "w");
	CHECK(f);
	fprintf(f,
		"{\"gpuvet_recording\": 1, \"derive\": \"%s/tests/scenarios/h200x2.json\",\n"
		" \"nvml\": {\"devices\": {\"0\": {\"nvmlDeviceGetEnforcedPowerLimit\": "
		"[0, 500000]}}}}\n",
		top);
	CHECK(fclose(f) == 0);
	err_clear(&e);
	CHECK(replay_start(scen, &e) == 0);
	/* status's own answers first: the collector then holds NVML for the rest */
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK(render_direct(&cases[i]) == 0);
	CHECK(strstr(cases[0].want_out, "81/700W"));
	CHECK(strstr(cases[4].want_out, "\"power_enforced_mw\": 500000"));

	memset(&mo, 0, sizeof(mo));
	mo.fast_ns = 100000000;
	mo.slow_ns = 100000000;
	mo.procs = true;
	CHECK(collector_open(&coll, &mo, &e) == 0);
	/* until both tiers have sampled every GPU */
	memset(&s, 0, sizeof(s));
	deadline = now_ns() + 20LL * 1000000000LL;
	while (!ready && now_ns() < deadline) {
		collector_wait(coll, s.seq, 500);
		collector_copy(coll, &s);
		ready = s.ngpus == 2 && s.gpus[0].slow_t_ns && s.gpus[1].slow_t_ns;
		if (!ready)
			usleep(20000);
	}
	mon_snapshot_free(&s);
	CHECK(ready);
	CHECK(agent_start(&agent, sock, coll, &e) == 0);
}

static void test_setup(void)
{
	setup();
}

int main(void)
{
	char cmd[PATH_MAX + 16];

	RUN(test_setup);
	if (agent) {
		RUN(test_answers_equal_status);
		RUN(test_json_says_agent);
		RUN(test_unsupported);
		RUN(test_garbage);
		RUN(test_slow_clients);
		RUN(test_200_clients);
		RUN(test_fallbacks);
		RUN(test_socket_setup);
		agent_stop(agent);
	}
	if (coll)
		collector_close(coll);
	replay_finish();
	if (dir[0]) {
		str_fmt(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0) {
			/* a scratch folder left in TMPDIR */
		}
	}
	return TEST_DONE();
}
