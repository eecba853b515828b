/*
 * replay_load.c: reading a recording for a replay (replay.c serves what it returns).
 *
 * A recording is loaded, following its "derive" chain: a scenario may name a base recording
 * and change only what differs (objects merge key by key, null deletes, an object patches an
 * array by index, "replicate_gpus" copies GPU 0). A recording is untrusted input, so the file
 * itself and everything the merge makes of it are bounded here (replay_int.h has the limits);
 * replay.c checks each part as it turns it into what the host layer and the loader serve.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/strbuf.h"
#include "../util/util.h"
#include "../capture/recording.h"
#include "replay_int.h"

/* ---- loading and deriving ----------------------------------------------------------------- */

static int merge(json_t *base, json_t *patch, struct err *e);

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

static int merge_value(json_t *parent_obj, const char *key, json_t *bv, json_t *pv,
		       struct err *e)
{
	if (json_is_null(pv)) {
		json_object_del(parent_obj, key);
	} else if (bv && json_is_object(bv) && json_is_object(pv)) {
		return merge(bv, pv, e);
	} else if (bv && json_is_array(bv) && json_is_object(pv) && index_patch(pv)) {
		const char *k;
		json_t *v;

		json_object_foreach(pv, k, v) {
			uint64_t idx;
			json_t *elem;

			if (!str_all_digits(k) || parse_u64(k, &idx) != 0 || idx >= REPLAY_INDEX_MAX)
				return err_set(e, EXIT_ERROR,
					       "recording: index %s of \"%s\" is past the limit of %d",
					       strlen(k) < 24 ? k : "(long)", key, REPLAY_INDEX_MAX - 1);
			while (json_array_size(bv) <= idx)
				json_array_append_new(bv, json_object());
			elem = json_array_get(bv, idx);
			if (json_is_object(elem) && json_is_object(v)) {
				if (merge(elem, v, e) != 0)
					return -1;
			} else {
				json_array_set(bv, idx, v);
			}
		}
	} else {
		json_object_set(parent_obj, key, pv);
	}
	return 0;
}

static int merge(json_t *base, json_t *patch, struct err *e)
{
	const char *k;
	json_t *v;

	json_object_foreach(patch, k, v) {
		if (strcmp(k, "derive") == 0)
			continue;
		if (merge_value(base, k, json_object_get(base, k), v, e) != 0)
			return -1;
	}
	return 0;
}

/* Copy GPU n of the recording to make a machine of `count` GPUs (8- and 16-GPU scenarios). */
static void replicate_gpus(json_t *rec, json_int_t count);

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

/* A name or key shown in an error: control characters as \xNN, cut at 80 bytes. */
const char *replay_shown(const char *s, char *buf, size_t n)
{
	size_t w = 0;

	for (; *s && w + 5 < n && w < 80; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			w += (size_t)snprintf(buf + w, n - w, "\\x%02x", c);
		else
			buf[w++] = (char)c;
	}
	buf[w] = '\0';
	return buf;
}

bool replay_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return true;
	return false;
}

static int check_nesting(json_t *v, int depth, struct err *e)
{
	const char *k;
	json_t *x;
	size_t i;

	if (depth > REPLAY_NEST_MAX)
		return err_set(e, EXIT_ERROR, "recording: nested deeper than %d levels",
			       REPLAY_NEST_MAX);
	if (json_is_object(v)) {
		json_object_foreach(v, k, x) if (check_nesting(x, depth + 1, e) != 0) return -1;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x) if (check_nesting(x, depth + 1, e) != 0) return -1;
	}
	return 0;
}

/* A recorded path: absolute, no "." or ".." component, no control character, bounded. */
int replay_check_path(const char *p, struct err *e)
{
	char buf[128];
	const char *c = p;

	if (replay_has_control(p))
		return err_set(e, EXIT_ERROR, "recording: file path with a control character: '%s'",
			       replay_shown(p, buf, sizeof(buf)));
	if (p[0] != '/' || strlen(p) > REPLAY_PATH_MAX)
		return err_set(e, EXIT_ERROR, "recording: unsafe file path '%s'",
			       replay_shown(p, buf, sizeof(buf)));
	while (*c) {
		size_t len;

		while (*c == '/')
			c++;
		len = strcspn(c, "/");
		if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.') ||
		    len > 255)
			return err_set(e, EXIT_ERROR, "recording: unsafe file path '%s'",
				       replay_shown(p, buf, sizeof(buf)));
		c += len;
	}
	return 0;
}

/* ---- loading ---------------------------------------------------------------------------------- */

/* Read up to REPLAY_FILE_MAX bytes of fd to its end into *out (caller frees); -1 when it holds
 * more, with *len the bytes read so far. A read error ends it as the end would. */
static int read_bounded(int fd, char **out, size_t *len)
{
	size_t have = 0, cap = 1 << 16;
	char *buf = xmalloc(cap + 1);

	for (;;) {
		ssize_t r;

		if (have == cap) {
			if (cap > REPLAY_FILE_MAX) {
				*out = buf;
				*len = have;
				return -1;
			}
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		r = read(fd, buf + have, cap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
	}
	if (have > REPLAY_FILE_MAX) {
		*out = buf;
		*len = have;
		return -1;
	}
	*out = buf;
	*len = have;
	return 0;
}

/* Read a recording: "-" is standard input (what `record -` writes), anything else a regular
 * file of bounded size (a FIFO or a device would block or never end; a folder is named as
 * one, since a scenario folder is an easy slip for a scenario file). */
static json_t *read_json(const char *path, struct err *e)
{
	bool from_stdin = strcmp(path, "-") == 0;
	const char *shown = from_stdin ? "(standard input)" : path;
	json_error_t je;
	struct stat st;
	json_t *doc;
	char *buf;
	size_t have = 0;
	int fd;

	if (from_stdin) {
		if (isatty(STDIN_FILENO)) {
			err_set(e, EXIT_USAGE, "--replay - reads a recording from standard input, "
					       "which is a terminal");
			err_hint(e, "pipe one in: gpuvet record - | gpuvet --replay - doctor");
			return NULL;
		}
		if (read_bounded(STDIN_FILENO, &buf, &have) != 0) {
			free(buf);
			err_set(e, EXIT_ERROR, "recording on standard input is larger than %u MiB",
				REPLAY_FILE_MAX >> 20);
			return NULL;
		}
		goto parse;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err_set(e, EXIT_ERROR, "cannot read recording '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		err_set(e, EXIT_ERROR, "'%s' is a folder, not a recording", path);
		err_hint(e, "give the .json file 'gpuvet record' wrote, or '-' for standard input");
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		err_set(e, EXIT_ERROR, "cannot read recording '%s': not a regular file", path);
		return NULL;
	}
	if ((uint64_t)st.st_size > REPLAY_FILE_MAX) {
		close(fd);
		err_set(e, EXIT_ERROR, "recording '%s' is larger than %u MiB", path,
			REPLAY_FILE_MAX >> 20);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (have < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + have, (size_t)st.st_size - have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
	}
	close(fd);
parse:
	doc = json_loadb(buf, have, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (!doc)
		err_set(e, EXIT_ERROR, "recording '%s' is not valid JSON: line %d: %s", shown,
			je.line, je.text);
	return doc;
}

static json_t *load_file(const char *path, int depth, struct err *e)
{
	const char *shown = strcmp(path, "-") == 0 ? "(standard input)" : path;
	json_t *doc, *derive;

	if (depth > DERIVE_DEPTH_MAX) {
		err_set(e, EXIT_ERROR, "recording '%s': derive chain deeper than %d", shown,
			DERIVE_DEPTH_MAX);
		return NULL;
	}
	doc = read_json(path, e);
	if (!doc)
		return NULL;
	if (!json_is_object(doc)) {
		json_decref(doc);
		err_set(e, EXIT_ERROR, "recording '%s' is not a JSON object", shown);
		return NULL;
	}
	if (check_nesting(doc, 0, e) != 0) {
		json_decref(doc);
		return NULL;
	}
	derive = json_object_get(doc, "derive");
	if (derive) {
		char base_path[PATH_MAX], dir[PATH_MAX];
		json_t *base, *rep;
		char *slash;

		if (!json_is_string(derive)) {
			json_decref(doc);
			err_set(e, EXIT_ERROR, "recording '%s': \"derive\" must name a file", shown);
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
		rep = json_object_get(doc, "replicate_gpus");
		if (rep && (!json_is_integer(rep) || json_integer_value(rep) < 1 ||
			    json_integer_value(rep) > REPLAY_GPUS_MAX)) {
			json_decref(doc);
			json_decref(base);
			err_set(e, EXIT_ERROR, "recording '%s': \"replicate_gpus\" must be 1 to %d",
				shown, REPLAY_GPUS_MAX);
			return NULL;
		}
		if (rep)
			replicate_gpus(base, json_integer_value(rep));
		if (merge(base, doc, e) != 0) {
			json_decref(doc);
			json_decref(base);
			return NULL;
		}
		json_object_del(base, "replicate_gpus");
		json_decref(doc);
		doc = base;
	}
	if (!json_is_integer(json_object_get(doc, "gpuvet_recording"))) {
		json_decref(doc);
		err_set(e, EXIT_ERROR, "'%s' is not a gpuvet recording (no \"gpuvet_recording\")",
			shown);
		return NULL;
	}
	if (json_integer_value(json_object_get(doc, "gpuvet_recording")) > RECORDING_FORMAT) {
		json_decref(doc);
		err_set(e, EXIT_ERROR, "recording '%s' has a newer format than this gpuvet reads",
			shown);
		return NULL;
	}
	return doc;
}


json_t *replay_load(const char *path, struct err *e)
{
	return load_file(path, 0, e);
}
