/*
 * replay.c: turning a recording back into a machine gpuvet can examine.
 *
 * A recording (recording.c) is loaded, following its "derive" chain: a scenario may name a
 * base recording and change only what differs (objects merge key by key, null deletes, an
 * object patches an array by index). The result is unpacked into a temporary folder:
 *
 *   root/            the recorded files, links and folders: the host layer's root prefix
 *   root/.gpuvet/facts  environment, uname, identity, device nodes and forced errors
 *   lib/             the fake libnvidia-ml.so.1 and libcuda.so.1 (links to our builds), and
 *                    per library the recorded path/version, load error and missing symbols
 *   nvml.tsv cuda.tsv   every recorded answer, for the fake libraries
 *
 * The real code path then runs against it: host.c reads root/, loader.c loads lib/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
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
#include "recording.h"

#define DERIVE_DEPTH_MAX 8

static char replay_dir[PATH_MAX];

/* ---- loading and deriving ----------------------------------------------------------------- */

static void merge(json_t *base, json_t *patch);

/* An object whose keys are all numbers patches an array element by element. */
static bool index_patch(json_t *obj)
{
	const char *k;
	json_t *v;

	if (!json_object_size(obj))
		return false;
	json_object_foreach(obj, k, v) {
		(void)v;
		if (!str_all_digits(k))
			return false;
	}
	return true;
}

static void merge_value(json_t *parent_obj, const char *key, json_t *bv, json_t *pv)
{
	if (json_is_null(pv)) {
		json_object_del(parent_obj, key);
	} else if (bv && json_is_object(bv) && json_is_object(pv)) {
		merge(bv, pv);
	} else if (bv && json_is_array(bv) && json_is_object(pv) && index_patch(pv)) {
		const char *k;
		json_t *v;

		json_object_foreach(pv, k, v) {
			uint64_t idx;
			json_t *elem;

			if (!str_all_digits(k) || parse_u64(k, &idx) != 0)
				continue;
			while (json_array_size(bv) <= idx)
				json_array_append_new(bv, json_object());
			elem = json_array_get(bv, idx);
			if (json_is_object(elem) && json_is_object(v))
				merge(elem, v);
			else
				json_array_set(bv, idx, v);
		}
	} else {
		json_object_set(parent_obj, key, pv);
	}
}

static void merge(json_t *base, json_t *patch)
{
	const char *k;
	json_t *v;

	json_object_foreach(patch, k, v) {
		if (strcmp(k, "derive") == 0)
			continue;
		merge_value(base, k, json_object_get(base, k), v);
	}
}

/* Copy GPU n of the recording to make a machine of `count` GPUs (8- and 16-GPU scenarios). */
static void replicate_gpus(json_t *rec, json_int_t count);

static json_t *load_file(const char *path, int depth, struct err *e)
{
	json_error_t je;
	json_t *doc, *derive;

	if (depth > DERIVE_DEPTH_MAX) {
		err_set(e, EXIT_ERROR, "recording '%s': derive chain deeper than %d", path,
			DERIVE_DEPTH_MAX);
		return NULL;
	}
	doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		if (je.line > 0)
			err_set(e, EXIT_ERROR, "recording '%s' is not valid JSON: line %d: %s", path,
				je.line, je.text);
		else
			err_set(e, EXIT_ERROR, "cannot read recording '%s': %s", path, je.text);
		return NULL;
	}
	if (!json_is_object(doc)) {
		json_decref(doc);
		err_set(e, EXIT_ERROR, "recording '%s' is not a JSON object", path);
		return NULL;
	}
	derive = json_object_get(doc, "derive");
	if (derive) {
		char base_path[PATH_MAX], dir[PATH_MAX];
		json_t *base;
		char *slash;

		if (!json_is_string(derive)) {
			json_decref(doc);
			err_set(e, EXIT_ERROR, "recording '%s': \"derive\" must name a file", path);
			return NULL;
		}
		str_copy(dir, path, sizeof(dir));
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			str_copy(dir, ".", sizeof(dir));
		if (json_string_value(derive)[0] == '/')
			str_copy(base_path, json_string_value(derive), sizeof(base_path));
		else
			str_fmt(base_path, sizeof(base_path), "%s/%s", dir, json_string_value(derive));
		base = load_file(base_path, depth + 1, e);
		if (!base) {
			json_decref(doc);
			return NULL;
		}
		{
			json_t *rep = json_object_get(doc, "replicate_gpus");

			if (json_is_integer(rep))
				replicate_gpus(base, json_integer_value(rep));
		}
		merge(base, doc);
		json_object_del(base, "replicate_gpus");
		json_decref(doc);
		doc = base;
	}
	if (!json_is_integer(json_object_get(doc, "gpuvet_recording"))) {
		json_decref(doc);
		err_set(e, EXIT_ERROR, "'%s' is not a gpuvet recording (no \"gpuvet_recording\")",
			path);
		return NULL;
	}
	if (json_integer_value(json_object_get(doc, "gpuvet_recording")) > RECORDING_FORMAT) {
		json_decref(doc);
		err_set(e, EXIT_ERROR, "recording '%s' has a newer format than this gpuvet reads",
			path);
		return NULL;
	}
	return doc;
}

/* Rewrite every occurrence of a bus id or UUID of the source GPU in a string. */
static char *subst(const char *s, const char *from, const char *to)
{
	struct strbuf out;
	const char *p = s, *hit;
	size_t fl = strlen(from);

	sb_init(&out);
	if (!fl) {
		sb_adds(&out, s);
		return sb_detach(&out);
	}
	while ((hit = strcasestr(p, from)) != NULL) {
		sb_add(&out, p, (size_t)(hit - p));
		sb_adds(&out, to);
		p = hit + fl;
	}
	sb_adds(&out, p);
	return sb_detach(&out);
}

static json_t *deep_subst(json_t *v, const char *from, const char *to)
{
	if (json_is_string(v)) {
		char *s = subst(json_string_value(v), from, to);
		json_t *r = json_string(s);

		free(s);
		return r;
	}
	if (json_is_array(v)) {
		json_t *a = json_array(), *x;
		size_t i;

		json_array_foreach(v, i, x) json_array_append_new(a, deep_subst(x, from, to));
		return a;
	}
	if (json_is_object(v)) {
		json_t *o = json_object(), *x;
		const char *k;

		json_object_foreach(v, k, x) {
			char *nk = subst(k, from, to);

			json_object_set_new(o, nk, deep_subst(x, from, to));
			free(nk);
		}
		return o;
	}
	return json_deep_copy(v);
}

static void replicate_gpus(json_t *rec, json_int_t count)
{
	json_t *nv = json_object_get(rec, "nvml");
	json_t *devs = json_object_get(nv, "devices");
	json_t *files = json_object_get(rec, "files");
	json_t *sys = json_object_get(nv, "system");
	json_t *src, *srcpci;
	const char *bus, *uuid;
	size_t have, i;
	char short_bus[32];

	if (!json_is_array(devs) || count < 1 || count > 256)
		return;
	have = json_array_size(devs);
	if (!have)
		return;
	src = json_array_get(devs, 0);
	srcpci = json_object_get(src, "nvmlDeviceGetPciInfo");
	bus = json_string_value(json_array_get(srcpci, 1));
	uuid = json_string_value(json_array_get(json_object_get(src, "nvmlDeviceGetUUID"), 1));
	if (!bus || !uuid)
		return;
	/* "00000000:00:06.0" -> "0000:00:06.0", the spelling of /sys and /proc */
	str_copy(short_bus, strlen(bus) > 12 ? bus + strlen(bus) - 12 : bus, sizeof(short_bus));
	for (i = have; i < (size_t)count; i++) {
		char nbus[32], nshort[32], nuuid[64];
		json_t *copy;
		const char *k;
		json_t *v;
		json_t *newfiles = json_object();

		/* a fresh bus number per GPU: 0x40 + i, device 0 */
		str_fmt(nshort, sizeof(nshort), "0000:%02zx:00.0", 0x40 + i);
		str_fmt(nbus, sizeof(nbus), "00000000:%02zX:00.0", 0x40 + i);
		str_fmt(nuuid, sizeof(nuuid), "GPU-%08zx-0000-0000-0000-000000000000", i);
		copy = deep_subst(src, uuid, nuuid);
		{
			json_t *c2 = deep_subst(copy, bus, nbus);

			json_decref(copy);
			copy = c2;
		}
		{
			json_t *pci = json_object_get(copy, "nvmlDeviceGetPciInfo");

			if (json_is_array(pci) && json_array_size(pci) > 3)
				json_array_set_new(pci, 3, json_integer((json_int_t)(0x40 + i)));
		}
		json_object_set_new(copy, "nvmlDeviceGetMinorNumber",
				    json_pack("[i,i]", 0, (json_int_t)i));
		json_array_append_new(devs, copy);
		/* the host view of the new GPU: every file mentioning the source bus id */
		json_object_foreach(files, k, v) {
			if (!strcasestr(k, short_bus))
				continue;
			{
				char *nk = subst(k, short_bus, nshort);
				json_t *nvv = deep_subst(v, short_bus, nshort);
				json_t *nv2 = deep_subst(nvv, uuid + 4, nuuid + 4);

				json_object_set_new(newfiles, nk, nv2);
				json_decref(nvv);
				free(nk);
			}
		}
		json_object_update(files, newfiles);
		json_decref(newfiles);
		/* device node, directory listings */
		{
			char node[32], devname[16];
			json_t *dir;

			str_fmt(node, sizeof(node), "/dev/nvidia%zu", i);
			str_fmt(devname, sizeof(devname), "nvidia%zu", i);
			if (json_object_get(files, "/dev/nvidia0") && !json_object_get(files, node))
				json_object_set(files, node, json_object_get(files, "/dev/nvidia0"));
			dir = json_object_get(json_object_get(files, "/dev"), "dir");
			if (json_is_array(dir))
				json_array_append_new(dir, json_string(devname));
			dir = json_object_get(json_object_get(files, "/sys/bus/pci/devices"), "dir");
			if (json_is_array(dir))
				json_array_append_new(dir, json_string(nshort));
			dir = json_object_get(json_object_get(files, "/proc/driver/nvidia/gpus"), "dir");
			if (json_is_array(dir))
				json_array_append_new(dir, json_string(nshort));
		}
	}
	if (json_array_size(devs) > (size_t)count)
		while (json_array_size(devs) > (size_t)count)
			json_array_remove(devs, json_array_size(devs) - 1);
	if (sys)
		json_object_set_new(sys, "nvmlDeviceGetCount", json_pack("[i,i]", 0, count));
	/* CUDA sees the same GPUs */
	{
		json_t *cu = json_object_get(rec, "cuda");
		json_t *cdevs = json_object_get(cu, "devices");
		json_t *csys = json_object_get(cu, "system");

		if (json_is_array(cdevs) && json_array_size(cdevs) > 0) {
			json_t *c0 = json_array_get(cdevs, 0);

			for (i = json_array_size(cdevs); i < (size_t)count; i++) {
				char nshort[32];
				json_t *copy;

				str_fmt(nshort, sizeof(nshort), "0000:%02zx:00.0", 0x40 + i);
				copy = deep_subst(c0, short_bus, nshort);
				json_array_append_new(cdevs, copy);
			}
			while (json_array_size(cdevs) > (size_t)count)
				json_array_remove(cdevs, json_array_size(cdevs) - 1);
			if (csys && json_object_get(csys, "cuDeviceGetCount"))
				json_object_set_new(csys, "cuDeviceGetCount",
						    json_pack("[i,i]", 0, count));
		}
	}
}

/* ---- unpacking ---------------------------------------------------------------------------- */

static int parent_dirs(const char *path);

/* mkdir -p from the deepest folder up: most of a path already exists */
static int mkdirs(const char *path)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT || parent_dirs(path) != 0)
		return -1;
	return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

static int parent_dirs(const char *path)
{
	char tmp[PATH_MAX];
	char *slash;

	str_copy(tmp, path, sizeof(tmp));
	slash = strrchr(tmp, '/');
	if (!slash || slash == tmp)
		return 0;
	*slash = '\0';
	return mkdirs(tmp);
}

/* A recorded path must be absolute and must not climb out of the root. */
static bool safe_path(const char *p)
{
	return p[0] == '/' && !strstr(p, "/../") && !str_ends(p, "/..") && strlen(p) < 2048;
}

static int write_bytes(const char *path, const char *data, size_t len)
{
	FILE *f;

	/* folders only when the file cannot be made: a recording holds thousands of files */
	f = fopen(path, "we");
	if (!f && errno == ENOENT && parent_dirs(path) == 0)
		f = fopen(path, "we");
	if (!f)
		return -1;
	if (len && fwrite(data, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int unpack_file(const char *root, const char *rpath, json_t *v, struct strbuf *facts,
		       struct err *e)
{
	char full[PATH_MAX];
	json_t *content = NULL, *hex = NULL, *link = NULL, *dir = NULL, *stat = NULL, *error = NULL;

	if (!safe_path(rpath))
		return err_set(e, EXIT_ERROR, "recording: unsafe file path '%s'", rpath);
	str_fmt(full, sizeof(full), "%s%s", root, rpath);
	if (json_is_string(v))
		content = v;
	else if (json_is_object(v)) {
		content = json_object_get(v, "content");
		hex = json_object_get(v, "hex");
		link = json_object_get(v, "link");
		dir = json_object_get(v, "dir");
		stat = json_object_get(v, "stat");
		error = json_object_get(v, "error");
	} else {
		return err_set(e, EXIT_ERROR, "recording: bad entry for '%s'", rpath);
	}
	if (link) {
		const char *to = json_is_string(link) ? json_string_value(link) : NULL;
		int rc = to ? symlink(to, full) : -1;

		if (to && rc != 0 && errno == ENOENT && parent_dirs(full) == 0)
			rc = symlink(to, full);
		if (!to || (rc != 0 && errno != EEXIST))
			return err_set(e, EXIT_ERROR, "recording: cannot replay link '%s'", rpath);
	} else if (json_is_string(content)) {
		if (write_bytes(full, json_string_value(content), json_string_length(content)) != 0)
			return err_set(e, EXIT_ERROR, "cannot write replay file for '%s': %s", rpath,
				       strerror(errno));
	} else if (json_is_string(hex)) {
		const char *h = json_string_value(hex);
		size_t n = strlen(h) / 2, i;
		char *bytes = xmalloc(n + 1);

		for (i = 0; i < n; i++) {
			int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);

			if (hi < 0 || lo < 0) {
				free(bytes);
				return err_set(e, EXIT_ERROR, "recording: bad hex for '%s'", rpath);
			}
			bytes[i] = (char)(hi << 4 | lo);
		}
		if (write_bytes(full, bytes, n) != 0) {
			free(bytes);
			return err_set(e, EXIT_ERROR, "cannot write replay file for '%s'", rpath);
		}
		free(bytes);
	} else if (dir) {
		if (mkdirs(full) != 0)
			return err_set(e, EXIT_ERROR, "cannot make replay folder for '%s'", rpath);
	}
	if (json_is_string(error) && strcmp(json_string_value(error), "ENOENT") != 0) {
		/* the path must exist for the error to be served from .gpuvet/facts */
		struct stat st;

		if (lstat(full, &st) != 0 && write_bytes(full, "", 0) != 0)
			return err_set(e, EXIT_ERROR, "cannot write replay file for '%s'", rpath);
		sb_addf(facts, "error %s %s\n", rpath, json_string_value(error));
	}
	if (json_is_object(stat)) {
		const char *type = json_string_value(json_object_get(stat, "type"));
		const char *mode = json_string_value(json_object_get(stat, "mode"));
		struct stat st;

		if (!type || !mode)
			return err_set(e, EXIT_ERROR, "recording: bad stat for '%s'", rpath);
		if (lstat(full, &st) != 0) {
			if (type[0] == 'd' ? mkdirs(full) != 0 : write_bytes(full, "", 0) != 0)
				return err_set(e, EXIT_ERROR, "cannot write replay file for '%s'", rpath);
		}
		sb_addf(facts, "node %s %c %s %lld %lld %lld %lld\n", rpath, type[0], mode,
			(long long)json_integer_value(json_object_get(stat, "uid")),
			(long long)json_integer_value(json_object_get(stat, "gid")),
			(long long)json_integer_value(json_object_get(stat, "major")),
			(long long)json_integer_value(json_object_get(stat, "minor")));
	}
	return 0;
}

/* Names listed in a recorded folder but not otherwise captured become empty files. */
static int unpack_listing(const char *root, const char *rpath, json_t *v, struct err *e)
{
	json_t *dir = json_is_object(v) ? json_object_get(v, "dir") : NULL;
	json_t *name;
	size_t i;

	if (!json_is_array(dir))
		return 0;
	json_array_foreach(dir, i, name) {
		char full[PATH_MAX];
		struct stat st;
		const char *n = json_string_value(name);

		if (!n || strchr(n, '/') || strcmp(n, "..") == 0 || strcmp(n, ".") == 0)
			return err_set(e, EXIT_ERROR, "recording: bad name in folder '%s'", rpath);
		str_fmt(full, sizeof(full), "%s%s/%s", root, strcmp(rpath, "/") ? rpath : "", n);
		if (lstat(full, &st) != 0 && write_bytes(full, "", 0) != 0)
			return err_set(e, EXIT_ERROR, "cannot write replay file in '%s'", rpath);
	}
	return 0;
}

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
	size_t i;
	json_t *v;

	if (json_is_object(ans)) {
		json_t *tl = json_object_get(ans, "timeline");

		if (json_is_true(json_object_get(ans, "hang"))) {
			sb_addf(sb, "%s\t", scope);
			tsv_escape(sb, key);
			sb_addf(sb, "\t%s\thang\n", when);
			return 0;
		}
		if (json_is_array(tl)) {
			json_t *pt;

			json_array_foreach(tl, i, pt) {
				char t[32];

				if (!json_is_array(pt) || !json_is_number(json_array_get(pt, 0)))
					return err_set(e, EXIT_ERROR, "recording: bad timeline for %s",
						       key);
				str_fmt(t, sizeof(t), "%.3f", json_number_value(json_array_get(pt, 0)));
				if (tsv_answer(sb, scope, key, json_array_get(pt, 1), t, e) != 0)
					return -1;
			}
			return 0;
		}
		return err_set(e, EXIT_ERROR, "recording: bad answer for %s", key);
	}
	if (!json_is_array(ans) || !json_is_integer(json_array_get(ans, 0)))
		return err_set(e, EXIT_ERROR, "recording: bad answer for %s", key);
	sb_addf(sb, "%s\t", scope);
	tsv_escape(sb, key);
	sb_addf(sb, "\t%s\t%lld", when, (long long)json_integer_value(json_array_get(ans, 0)));
	json_array_foreach(ans, i, v) {
		if (i == 0)
			continue;
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

static int write_tsv(const char *dir, const char *name, json_t *lib, struct err *e)
{
	struct strbuf sb;
	char path[PATH_MAX];
	json_t *sys = json_object_get(lib, "system");
	json_t *devs = json_object_get(lib, "devices");
	const char *k;
	json_t *v;
	size_t i;
	int rc = 0;

	sb_init(&sb);
	json_object_foreach(sys, k, v) {
		if ((rc = tsv_answer(&sb, "sys", k, v, "-", e)) != 0)
			goto out;
	}
	json_array_foreach(devs, i, v) {
		const char *dk;
		json_t *dv;
		char scope[16];

		str_fmt(scope, sizeof(scope), "%zu", i);
		json_object_foreach(v, dk, dv) {
			if ((rc = tsv_answer(&sb, scope, dk, dv, "-", e)) != 0)
				goto out;
		}
	}
	str_fmt(path, sizeof(path), "%s/%s", dir, name);
	if (write_bytes(path, sb.buf, sb.len) != 0)
		rc = err_set(e, EXIT_ERROR, "cannot write '%s': %s", path, strerror(errno));
out:
	sb_release(&sb);
	return rc;
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

static int unpack_library(const char *dir, const char *libdir, const char *key,
			  const char *soname, json_t *info, struct err *e)
{
	char path[PATH_MAX], target[PATH_MAX];
	json_t *err_v = json_object_get(info, "error");
	json_t *missing = json_object_get(info, "missing");

	if (json_is_string(err_v)) {
		str_fmt(path, sizeof(path), "%s/lib/%s.error", dir, key);
		return write_bytes(path, json_string_value(err_v), json_string_length(err_v)) == 0
			       ? 0
			       : err_set(e, EXIT_ERROR, "cannot write '%s'", path);
	}
	str_fmt(path, sizeof(path), "%s/lib/%s", dir, soname);
	str_fmt(target, sizeof(target), "%s/%s", libdir, soname);
	if (parent_dirs(path) != 0 || symlink(target, path) != 0)
		return err_set(e, EXIT_ERROR, "cannot link the fake %s: %s", soname, strerror(errno));
	if (json_is_string(json_object_get(info, "path"))) {
		struct strbuf sb;

		sb_init(&sb);
		sb_addf(&sb, "%s\n%s\n", json_string_value(json_object_get(info, "path")),
			json_is_string(json_object_get(info, "version"))
				? json_string_value(json_object_get(info, "version"))
				: "");
		str_fmt(path, sizeof(path), "%s/lib/%s.path", dir, key);
		write_bytes(path, sb.buf, sb.len);
		sb_release(&sb);
	}
	if (json_is_array(missing)) {
		struct strbuf sb;
		size_t i;
		json_t *m;

		sb_init(&sb);
		json_array_foreach(missing, i, m) if (json_is_string(m)) sb_addf(&sb, "%s\n",
										   json_string_value(m));
		str_fmt(path, sizeof(path), "%s/lib/%s.missing", dir, key);
		write_bytes(path, sb.buf, sb.len);
		sb_release(&sb);
	}
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void replay_cleanup(void)
{
	if (replay_dir[0] && !getenv("GPUVET_KEEP_REPLAY"))
		nftw(replay_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	replay_dir[0] = '\0';
}

void replay_finish(void)
{
	replay_cleanup();
}

static int unpack(json_t *rec, const char *dir, struct err *e)
{
	char root[PATH_MAX], libdir[PATH_MAX], path[PATH_MAX];
	struct strbuf facts;
	json_t *files = json_object_get(rec, "files");
	json_t *env = json_object_get(rec, "env");
	json_t *un = json_object_get(rec, "uname");
	json_t *id = json_object_get(rec, "identity");
	json_t *libs = json_object_get(rec, "libraries");
	const char *k;
	json_t *v;
	int rc = 0;

	if (find_fake_libs(libdir, sizeof(libdir), e) != 0)
		return -1;
	str_fmt(root, sizeof(root), "%s/root", dir);
	if (mkdirs(root) != 0)
		return err_set(e, EXIT_ERROR, "cannot make '%s': %s", root, strerror(errno));
	sb_init(&facts);
	sb_adds(&facts, "# written by gpuvet --replay\n");
	if (files && !json_is_object(files)) {
		rc = err_set(e, EXIT_ERROR, "recording: \"files\" must be an object");
		goto out;
	}
	/* links first, so contents below them land in the right folders */
	json_object_foreach(files, k, v) {
		if (json_is_object(v) && json_object_get(v, "link") &&
		    (rc = unpack_file(root, k, v, &facts, e)) != 0)
			goto out;
	}
	json_object_foreach(files, k, v) {
		if (!(json_is_object(v) && json_object_get(v, "link")) &&
		    (rc = unpack_file(root, k, v, &facts, e)) != 0)
			goto out;
	}
	json_object_foreach(files, k, v) {
		if ((rc = unpack_listing(root, k, v, e)) != 0)
			goto out;
	}
	json_object_foreach(env, k, v) {
		if (json_is_string(v) && !strchr(k, '=') && !strchr(json_string_value(v), '\n'))
			sb_addf(&facts, "env %s=%s\n", k, json_string_value(v));
	}
	if (json_is_object(un)) {
		static const char *const keys[] = {"sysname", "nodename", "release", "version",
						   "machine"};
		size_t i;

		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			const char *s = json_string_value(json_object_get(un, keys[i]));

			if (s && !strchr(s, '\n'))
				sb_addf(&facts, "uname %s %s\n", keys[i], s);
		}
	}
	if (json_is_object(id)) {
		json_t *groups = json_object_get(id, "groups"), *g;
		size_t i;

		sb_addf(&facts, "id %lld %lld", (long long)json_integer_value(json_object_get(id, "uid")),
			(long long)json_integer_value(json_object_get(id, "gid")));
		json_array_foreach(groups, i, g) sb_addf(&facts, " %lld",
							 (long long)json_integer_value(g));
		sb_addc(&facts, '\n');
	}
	str_fmt(path, sizeof(path), "%s/.gpuvet/facts", root);
	if (write_bytes(path, facts.buf, facts.len) != 0) {
		rc = err_set(e, EXIT_ERROR, "cannot write '%s'", path);
		goto out;
	}
	{
		json_t *nvinfo = json_object_get(libs, "nvml");
		json_t *cuinfo = json_object_get(libs, "cuda");
		json_t *none = json_pack("{s:s}", "error",
					 "cannot open shared object file: No such file or directory");

		/* a recording that never got to load a library says so: it was not found */
		rc = unpack_library(dir, libdir, "nvml", "libnvidia-ml.so.1", nvinfo ? nvinfo : none, e);
		if (rc == 0)
			rc = unpack_library(dir, libdir, "cuda", "libcuda.so.1", cuinfo ? cuinfo : none,
					    e);
		json_decref(none);
		if (rc)
			goto out;
	}
	if ((rc = write_tsv(dir, "nvml.tsv", json_object_get(rec, "nvml"), e)) != 0)
		goto out;
	rc = write_tsv(dir, "cuda.tsv", json_object_get(rec, "cuda"), e);
out:
	sb_release(&facts);
	return rc;
}

int replay_unpack(const char *path, const char *dir, struct err *e)
{
	json_t *rec = load_file(path, 0, e);
	int rc;

	if (!rec)
		return -1;
	rc = unpack(rec, dir, e);
	json_decref(rec);
	return rc;
}

int replay_start(const char *path, struct err *e)
{
	const char *tmp = getenv("TMPDIR");
	char root[PATH_MAX];
	json_t *rec;

	rec = load_file(path, 0, e);
	if (!rec)
		return -1;
	/* the tree of a recording is thousands of small files made and removed at once: on
	 * tmpfs that takes milliseconds, on a disk file system up to a second */
	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
	str_fmt(replay_dir, sizeof(replay_dir), "%s/gpuvet-replay-XXXXXX", tmp);
	if (!mkdtemp(replay_dir)) {
		replay_dir[0] = '\0';
		json_decref(rec);
		return err_set(e, EXIT_ERROR, "cannot make a temporary folder: %s", strerror(errno));
	}
	atexit(replay_cleanup);
	if (unpack(rec, replay_dir, e) != 0) {
		json_decref(rec);
		return -1;
	}
	json_decref(rec);
	setenv("GPUVET_REPLAY_DIR", replay_dir, 1);
	/* the user's own overrides must not bypass the replay */
	unsetenv("GPUVET_NVML_LIBRARY");
	unsetenv("GPUVET_CUDA_LIBRARY");
	str_fmt(root, sizeof(root), "%s/root", replay_dir);
	return host_set_root(root, e);
}
