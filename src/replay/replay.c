/*
 * replay.c: turning a recording back into a machine gpuvet can examine.
 *
 * A recording (src/capture/recording.c) is loaded by replay_load.c, following its "derive" chain. A
 * recording is untrusted input (it is made to be sent to someone else): everything it
 * declares is checked and bounded, and nothing of it is written to disk. It is served from
 * memory:
 *
 *   files, env, uname, identity   to the host layer (host_mem_*): every read of /proc, /sys,
 *                                 /dev... is answered from the recording, links resolved inside
 *                                 it, never against the real filesystem
 *   libraries, nvml, cuda         to the loader (vlib_set_replay): gpuvet's fake libnvidia-ml and
 *                                 libcuda (tests/nvml-replay) are loaded and handed the recorded
 *                                 answers as a table, with the recorded path, version, load
 *                                 error and missing symbols
 *
 * The real code path then runs against it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../host/host.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "../vendor/loader.h"
#include "replay.h"
#include "replay_int.h"

/* ---- the host's files, env, uname and identity ------------------------------------------------ */

static int parse_stat(const char *rpath, json_t *stat, struct host_stat *st, struct err *e)
{
	const char *type = json_string_value(json_object_get(stat, "type"));
	const char *mode = json_string_value(json_object_get(stat, "mode"));
	static const char *const ids[] = {"uid", "gid", "major", "minor"};
	unsigned *slot[] = {&st->uid, &st->gid, &st->major, &st->minor};
	uint64_t m;
	const char *end;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (!type || !mode || !type[0] || !strchr("fdlcbo", type[0]) ||
	    parse_u64_prefix(mode, 8, &m, &end) != 0 || *end || m > 07777)
		return err_set(e, EXIT_ERROR, "recording: bad stat for '%s'", rpath);
	st->type = type[0];
	st->mode = (unsigned)m;
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		json_t *v = json_object_get(stat, ids[i]);

		if (!v)
			continue;
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > UINT32_MAX)
			return err_set(e, EXIT_ERROR, "recording: bad stat for '%s'", rpath);
		*slot[i] = (unsigned)json_integer_value(v);
	}
	return 0;
}

static int add_file(const char *rpath, json_t *v, struct err *e)
{
	struct host_mem_entry en;
	struct host_stat st;
	json_t *content = NULL, *hex = NULL, *link = NULL, *dir = NULL, *stat = NULL, *error = NULL;
	char *bytes = NULL;
	const char **names = NULL;
	int rc = -1;

	if (replay_check_path(rpath, e) != 0)
		return -1;
	memset(&en, 0, sizeof(en));
	en.path = rpath;
	if (json_is_string(v)) {
		content = v;
	} else if (json_is_object(v)) {
		content = json_object_get(v, "content");
		hex = json_object_get(v, "hex");
		link = json_object_get(v, "link");
		dir = json_object_get(v, "dir");
		stat = json_object_get(v, "stat");
		error = json_object_get(v, "error");
		en.hang = json_is_true(json_object_get(v, "hang"));
	} else {
		return err_set(e, EXIT_ERROR, "recording: bad entry for '%s'", rpath);
	}
	if (!!content + !!hex + !!link + !!dir > 1)
		return err_set(e, EXIT_ERROR,
			       "recording: '%s' is more than one of content, hex, link and dir", rpath);
	if (content) {
		if (!json_is_string(content))
			return err_set(e, EXIT_ERROR, "recording: bad content for '%s'", rpath);
		en.kind = 'f';
		en.data = json_string_value(content);
		en.len = json_string_length(content);
	} else if (hex) {
		if (!json_is_string(hex))
			return err_set(e, EXIT_ERROR, "recording: bad hex for '%s'", rpath);
		bytes = hex_decode(json_string_value(hex), &en.len);
		if (!bytes)
			return err_set(e, EXIT_ERROR, "recording: bad hex for '%s'", rpath);
		en.kind = 'f';
		en.data = bytes;
	} else if (link) {
		const char *to = json_string_value(link);

		if (!to || !to[0] || strlen(to) > REPLAY_PATH_MAX || replay_has_control(to))
			return err_set(e, EXIT_ERROR, "recording: cannot replay link '%s'", rpath);
		en.kind = 'l';
		en.data = to;
		en.len = strlen(to);
	} else if (dir) {
		size_t i;
		json_t *name;

		if (!json_is_array(dir) || json_array_size(dir) > REPLAY_LIST_MAX)
			return err_set(e, EXIT_ERROR, "recording: bad folder listing '%s'", rpath);
		names = xcalloc(json_array_size(dir) + 1, sizeof(*names));
		json_array_foreach(dir, i, name) {
			const char *n = json_string_value(name);

			if (!n || !*n || strchr(n, '/') || strcmp(n, "..") == 0 ||
			    strcmp(n, ".") == 0 || replay_has_control(n) || strlen(n) > 255) {
				err_set(e, EXIT_ERROR, "recording: bad name in folder '%s'", rpath);
				goto out;
			}
			names[i] = n;
		}
		en.kind = 'd';
		en.names = names;
		en.nnames = json_array_size(dir);
	}
	if (stat) {
		if (!json_is_object(stat) || parse_stat(rpath, stat, &st, e) != 0) {
			err_set(e, EXIT_ERROR, "recording: bad stat for '%s'", rpath);
			goto out;
		}
		en.st = &st;
	}
	if (error) {
		if (!json_is_string(error)) {
			err_set(e, EXIT_ERROR, "recording: bad error for '%s'", rpath);
			goto out;
		}
		en.error = host_errno_from_name(json_string_value(error));
		/* a derived recording that adds what its base recorded missing: the path exists */
		if (en.error == ENOENT && (en.kind || en.st))
			en.error = 0;
	}
	rc = host_mem_add(&en, e);
out:
	free(bytes);
	free(names);
	return rc;
}

static int add_host(json_t *rec, struct err *e)
{
	json_t *files = json_object_get(rec, "files");
	json_t *env = json_object_get(rec, "env");
	json_t *un = json_object_get(rec, "uname");
	json_t *id = json_object_get(rec, "identity");
	const char *k;
	json_t *v;
	char buf[128];

	if (files && !json_is_object(files))
		return err_set(e, EXIT_ERROR, "recording: \"files\" must be an object");
	if (json_object_size(files) > REPLAY_FILES_MAX)
		return err_set(e, EXIT_ERROR, "recording: more than %d files", REPLAY_FILES_MAX);
	json_object_foreach(files, k, v) {
		if (add_file(k, v, e) != 0)
			return -1;
	}
	if (env && !json_is_object(env))
		return err_set(e, EXIT_ERROR, "recording: \"env\" must be an object");
	json_object_foreach(env, k, v) {
		if (!k[0] || strchr(k, '=') || replay_has_control(k) || strlen(k) > 4096)
			return err_set(e, EXIT_ERROR, "recording: bad environment variable name '%s'",
				       replay_shown(k, buf, sizeof(buf)));
		if (json_is_string(v))
			host_mem_env(k, json_string_value(v));
		else if (!json_is_null(v))
			return err_set(e, EXIT_ERROR, "recording: bad value of environment variable %s",
				       k);
	}
	if (json_is_object(un)) {
		struct host_uname u;
		static const char *const keys[] = {"sysname", "nodename", "release", "version",
						   "machine"};
		char *slot[] = {u.sysname, u.nodename, u.release, u.version, u.machine};
		size_t size[] = {sizeof(u.sysname), sizeof(u.nodename), sizeof(u.release),
				 sizeof(u.version), sizeof(u.machine)};
		size_t i;

		memset(&u, 0, sizeof(u));
		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			json_t *s = json_object_get(un, keys[i]);

			if (!s)
				continue;
			if (!json_is_string(s) || json_string_length(s) >= size[i])
				return err_set(e, EXIT_ERROR, "recording: bad uname %s", keys[i]);
			str_copy(slot[i], json_string_value(s), size[i]);
		}
		host_mem_uname(&u);
	}
	if (json_is_object(id)) {
		struct host_identity hid;
		json_t *groups = json_object_get(id, "groups"), *g;
		json_int_t uid = json_integer_value(json_object_get(id, "uid"));
		json_int_t gid = json_integer_value(json_object_get(id, "gid"));
		size_t i;

		memset(&hid, 0, sizeof(hid));
		if (uid < 0 || uid > UINT32_MAX || gid < 0 || gid > UINT32_MAX ||
		    (groups && (!json_is_array(groups) ||
				json_array_size(groups) > ARRAY_SIZE(hid.groups))))
			return err_set(e, EXIT_ERROR, "recording: bad identity");
		hid.uid = (unsigned)uid;
		hid.gid = (unsigned)gid;
		json_array_foreach(groups, i, g) {
			if (!json_is_integer(g) || json_integer_value(g) < 0 ||
			    json_integer_value(g) > UINT32_MAX)
				return err_set(e, EXIT_ERROR, "recording: bad identity");
			hid.groups[hid.ngroups++] = (unsigned)json_integer_value(g);
		}
		host_mem_identity(&hid);
	}
	return host_mem_end(e);
}

/* ---- the answers of the fake vendor libraries ------------------------------------------------- */

static void tsv_escape(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '%' || c == '\t' || c == '\n' || c == '\r' || c < 0x20)
			sb_addf(sb, "%%%02X", c);
		else
			sb_addc(sb, (char)c);
	}
}

/* One answer: [rc, v...] or {"hang": true} or {"timeline": [[t, [rc, v...]], ...]}. */
static int tsv_answer(struct strbuf *sb, const char *scope, const char *key, json_t *ans,
		      const char *when, struct err *e)
{
	size_t i, nvals = 0;
	json_t *v;

	if (json_is_object(ans)) {
		json_t *tl = json_object_get(ans, "timeline");

		if (json_is_true(json_object_get(ans, "hang"))) {
			sb_addf(sb, "%s\t", scope);
			tsv_escape(sb, key);
			sb_addf(sb, "\t%s\thang\n", when);
			return 0;
		}
		if (json_is_array(tl) && when[0] == '-') {
			json_t *pt;

			if (json_array_size(tl) > REPLAY_TIMELINE_MAX)
				return err_set(e, EXIT_ERROR, "recording: timeline of %s too long",
					       key);
			json_array_foreach(tl, i, pt) {
				char t[32];
				double at;

				if (!json_is_array(pt) || !json_is_number(json_array_get(pt, 0)))
					return err_set(e, EXIT_ERROR, "recording: bad timeline for %s",
						       key);
				at = json_number_value(json_array_get(pt, 0));
				if (!(at >= 0 && at < 1e9))
					return err_set(e, EXIT_ERROR, "recording: bad timeline for %s",
						       key);
				str_fmt(t, sizeof(t), "%.3f", at);
				if (tsv_answer(sb, scope, key, json_array_get(pt, 1), t, e) != 0)
					return -1;
			}
			return 0;
		}
		return err_set(e, EXIT_ERROR, "recording: bad answer for %s", key);
	}
	if (!json_is_array(ans) || !json_is_integer(json_array_get(ans, 0)) ||
	    json_integer_value(json_array_get(ans, 0)) < INT32_MIN ||
	    json_integer_value(json_array_get(ans, 0)) > INT32_MAX)
		return err_set(e, EXIT_ERROR, "recording: bad answer for %s", key);
	sb_addf(sb, "%s\t", scope);
	tsv_escape(sb, key);
	sb_addf(sb, "\t%s\t%lld", when, (long long)json_integer_value(json_array_get(ans, 0)));
	json_array_foreach(ans, i, v) {
		if (i == 0)
			continue;
		nvals += json_is_array(v) ? json_array_size(v) : 1;
		if (nvals > REPLAY_VALUES_MAX)
			return err_set(e, EXIT_ERROR, "recording: too many values in %s", key);
		if (json_is_integer(v)) {
			sb_addf(sb, "\ti:%lld", (long long)json_integer_value(v));
		} else if (json_is_string(v)) {
			sb_adds(sb, "\ts:");
			tsv_escape(sb, json_string_value(v));
		} else if (json_is_array(v)) {
			size_t j;
			json_t *x;

			sb_adds(sb, "\tr:");
			json_array_foreach(v, j, x) {
				if (!json_is_integer(x))
					return err_set(e, EXIT_ERROR, "recording: bad row in %s", key);
				sb_addf(sb, "%s%lld", j ? "," : "", (long long)json_integer_value(x));
			}
		} else {
			return err_set(e, EXIT_ERROR, "recording: bad value in %s", key);
		}
	}
	sb_addc(sb, '\n');
	return 0;
}

static int check_key(const char *lib, const char *key, struct err *e)
{
	char buf[128];

	if (!key[0] || replay_has_control(key) || strlen(key) > 1024)
		return err_set(e, EXIT_ERROR, "recording: bad %s call name '%s'", lib,
			       replay_shown(key, buf, sizeof(buf)));
	return 0;
}

static int make_table(const char *name, json_t *lib, struct strbuf *sb, struct err *e)
{
	json_t *sys = json_object_get(lib, "system");
	json_t *devs = json_object_get(lib, "devices");
	const char *k;
	json_t *v;
	size_t i;

	if ((sys && !json_is_object(sys)) || (devs && !json_is_array(devs)))
		return err_set(e, EXIT_ERROR, "recording: bad \"%s\" section", name);
	if (json_array_size(devs) > REPLAY_GPUS_MAX)
		return err_set(e, EXIT_ERROR, "recording: more than %d %s devices", REPLAY_GPUS_MAX,
			       name);
	json_object_foreach(sys, k, v) {
		if (check_key(name, k, e) != 0 || tsv_answer(sb, "sys", k, v, "-", e) != 0)
			return -1;
	}
	json_array_foreach(devs, i, v) {
		const char *dk;
		json_t *dv;
		char scope[16];

		if (!json_is_object(v))
			return err_set(e, EXIT_ERROR, "recording: bad %s device %zu", name, i);
		str_fmt(scope, sizeof(scope), "%zu", i);
		json_object_foreach(v, dk, dv) {
			if (check_key(name, dk, e) != 0 || tsv_answer(sb, scope, dk, dv, "-", e) != 0)
				return -1;
		}
	}
	return 0;
}

/* Where `make` put the fake libraries: next to the binary, or installed beside it. */
static int find_fake_libs(char *out, size_t n, struct err *e)
{
	const char *env = getenv("GPUVET_REPLAY_LIBDIR");
	char exe[PATH_MAX], cand[PATH_MAX];
	ssize_t len;
	char *slash;
	static const char *const rel[] = {"build/replay", "../lib/gpuvet/replay", "replay"};
	size_t i;

	if (env && *env) {
		str_copy(out, env, n);
		return 0;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return err_set(e, EXIT_ERROR, "cannot find gpuvet's own folder: %s", strerror(errno));
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	for (i = 0; i < ARRAY_SIZE(rel); i++) {
		str_fmt(cand, sizeof(cand), "%s/%s/libnvidia-ml.so.1", exe, rel[i]);
		if (access(cand, R_OK) == 0) {
			str_fmt(out, n, "%s/%s", exe, rel[i]);
			return 0;
		}
	}
	err_set(e, EXIT_ERROR, "the fake NVML library for replays is missing");
	err_hint(e, "build it with `make`, or set GPUVET_REPLAY_LIBDIR");
	return -1;
}

/* What the loader is told of each library; lives until replay_finish. */
struct replay_lib {
	struct vlib_replay v;
	char fake_path[PATH_MAX];
	char *path, *version, *error;
	char **missing;
	struct strbuf answers;
};

static struct replay_lib libs[2];
static struct vlib_replay lib_views[2];
/* GPUVET_CUDA_LIBRARY as the user set it before the replay hid it: burn's compute library */
static char *cuda_override;

static void libs_free(void)
{
	size_t i, j;

	vlib_set_replay(NULL, 0);
	for (i = 0; i < ARRAY_SIZE(libs); i++) {
		free(libs[i].path);
		free(libs[i].version);
		free(libs[i].error);
		for (j = 0; j < libs[i].v.nmissing; j++)
			free(libs[i].missing[j]);
		free(libs[i].missing);
		sb_release(&libs[i].answers);
		memset(&libs[i], 0, sizeof(libs[i]));
	}
}

static char *opt_string(json_t *info, const char *key, struct err *e, int *bad)
{
	json_t *v = json_object_get(info, key);

	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_string(v) || json_string_length(v) > REPLAY_PATH_MAX) {
		err_set(e, EXIT_ERROR, "recording: bad library %s", key);
		*bad = 1;
		return NULL;
	}
	return xstrdup(json_string_value(v));
}

static int add_library(struct replay_lib *l, const char *key, const char *soname,
		       const char *libdir, json_t *rec, struct err *e)
{
	json_t *info = json_object_get(json_object_get(rec, "libraries"), key);
	json_t *missing = json_object_get(info, "missing"), *m;
	int bad = 0;
	size_t i;

	sb_init(&l->answers);
	l->v.key = key;
	str_fmt(l->fake_path, sizeof(l->fake_path), "%s/%s", libdir, soname);
	l->v.fake_path = l->fake_path;
	if (info && !json_is_object(info))
		return err_set(e, EXIT_ERROR, "recording: bad library %s", key);
	/* a recording that never got to load a library says so: it was not found */
	if (!info)
		l->error = xstrdup("cannot open shared object file: No such file or directory");
	else
		l->error = opt_string(info, "error", e, &bad);
	l->path = opt_string(info, "path", e, &bad);
	l->version = opt_string(info, "version", e, &bad);
	if (bad)
		return -1;
	if (missing && (!json_is_array(missing) || json_array_size(missing) > 1024))
		return err_set(e, EXIT_ERROR, "recording: bad missing symbols of %s", key);
	l->missing = xcalloc(json_array_size(missing) + 1, sizeof(*l->missing));
	json_array_foreach(missing, i, m) if (json_is_string(m)) l->missing[l->v.nmissing++] =
		xstrdup(json_string_value(m));
	l->v.error = l->error;
	l->v.path = l->path;
	l->v.version = l->version;
	l->v.missing = (const char *const *)l->missing;
	if (make_table(key, json_object_get(rec, key), &l->answers, e) != 0)
		return -1;
	l->v.answers = l->answers.buf;
	l->v.answers_len = l->answers.len;
	return 0;
}

void replay_finish(void)
{
	vlib_set_live(NULL);
	free(cuda_override);
	cuda_override = NULL;
	libs_free();
	host_set_root(NULL, NULL);
}

int replay_start(const char *path, struct err *e)
{
	char libdir[PATH_MAX];
	json_t *rec;
	size_t i;

	if (find_fake_libs(libdir, sizeof(libdir), e) != 0)
		return -1;
	rec = replay_load(path, e);
	if (!rec)
		return -1;
	libs_free();
	host_mem_begin();
	if (add_host(rec, e) != 0 ||
	    add_library(&libs[0], "nvml", "libnvidia-ml.so.1", libdir, rec, e) != 0 ||
	    add_library(&libs[1], "cuda", "libcuda.so.1", libdir, rec, e) != 0) {
		json_decref(rec);
		replay_finish();
		return -1;
	}
	json_decref(rec);
	for (i = 0; i < ARRAY_SIZE(libs); i++)
		lib_views[i] = libs[i].v;
	vlib_set_replay(lib_views, ARRAY_SIZE(lib_views));
	/* the user's own overrides must not bypass the replay (burn asks for its CUDA library
	 * back: replay_live_cuda) */
	free(cuda_override);
	cuda_override = getenv("GPUVET_CUDA_LIBRARY") && *getenv("GPUVET_CUDA_LIBRARY")
			    ? xstrdup(getenv("GPUVET_CUDA_LIBRARY"))
			    : NULL;
	unsetenv("GPUVET_NVML_LIBRARY");
	unsetenv("GPUVET_CUDA_LIBRARY");
	return 0;
}

bool replay_live_cuda(void)
{
	static const char *const keys[] = {"cuda", "cublaslt", "nccl", NULL};

	if (!cuda_override)
		return false;
	if (setenv("GPUVET_CUDA_LIBRARY", cuda_override, 1) != 0)
		return false;
	vlib_set_live(keys);
	return true;
}
