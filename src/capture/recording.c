/*
 * recording.c: the recorder behind recorder.h, and writing a recording to a file.
 *
 * The capture is one jansson document built as answers arrive. Host facts go under "files",
 * "env", "uname" and "identity"; vendor answers under "nvml" and "cuda", split into "system"
 * and one object per device; library paths under "libraries". docs/scenarios.md describes the
 * format; src/replay/replay.c reads it back.
 */
#define _GNU_SOURCE
#include "recording.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/file.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "recorder.h"
#include "scrub.h"

static json_t *doc;
/* probe.c queries GPUs from several threads at once; jansson is not thread-safe */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;

void rec_start(void)
{
	if (doc)
		json_decref(doc);
	doc = json_object();
	json_object_set_new(doc, "gpuvet_recording", json_integer(RECORDING_FORMAT));
	json_object_set_new(doc, "files", json_object());
	json_object_set_new(doc, "env", json_object());
	json_object_set_new(doc, "libraries", json_object());
}

bool rec_active(void)
{
	return doc != NULL;
}

static json_t *section(json_t *parent, const char *name, bool array)
{
	json_t *s = json_object_get(parent, name);

	if (!s) {
		s = array ? json_array() : json_object();
		json_object_set_new(parent, name, s);
	}
	return s;
}

/* The object for one path under "files", created on first use. A plain string entry (file
 * content) is upgraded to an object when more is learnt about the same path. */
static json_t *file_entry(const char *path)
{
	json_t *files = section(doc, "files", false);
	json_t *e = json_object_get(files, path);

	if (e && json_is_object(e))
		return e;
	if (e && json_is_string(e)) {
		json_t *o = json_object();

		json_object_set(o, "content", e);
		json_object_set_new(files, path, o);
		return o;
	}
	e = json_object();
	json_object_set_new(files, path, e);
	return e;
}

/* Text that survives a JSON string and a terminal unchanged (printable, valid UTF-8);
 * anything else is stored in hex. */
static bool is_plain_text(const char *data, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = (unsigned char)data[i];
		size_t extra, k;

		if (c < 0x80) {
			if (c == 0 || (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f)
				return false;
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0 && c >= 0xc2)
			extra = 1;
		else if ((c & 0xf0) == 0xe0)
			extra = 2;
		else if ((c & 0xf8) == 0xf0 && c <= 0xf4)
			extra = 3;
		else
			return false;
		for (k = 1; k <= extra; k++)
			if (i + k >= len || ((unsigned char)data[i + k] & 0xc0) != 0x80)
				return false;
		i += extra + 1;
	}
	return true;
}

static void rec_file_locked(const char *path, const char *data, size_t len)
{
	json_t *files, *e, *s;

	if (!doc)
		return;
	files = section(doc, "files", false);
	e = json_object_get(files, path);
	s = is_plain_text(data, len) ? json_stringn(data, len) : NULL;

	if (s) {
		if (!e)
			json_object_set_new(files, path, s);
		else if (json_is_object(e))
			json_object_set_new(e, "content", s);
		else
			json_object_set_new(files, path, s);
	} else {
		struct strbuf hex;
		size_t i;

		sb_init(&hex);
		for (i = 0; i < len; i++)
			sb_addf(&hex, "%02x", (unsigned char)data[i]);
		e = file_entry(path);
		json_object_del(e, "content");
		json_object_set_new(e, "hex", json_string(hex.buf));
		sb_release(&hex);
	}
}

static const char *errno_name(int errnum)
{
	switch (errnum) {
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EIO: return "EIO";
	case ENODEV: return "ENODEV";
	case ENXIO: return "ENXIO";
	case EINVAL: return "EINVAL";
	case ENOTDIR: return "ENOTDIR";
	case EBUSY: return "EBUSY";
	case EAGAIN: return "EAGAIN";
	case ELOOP: return "ELOOP";
	default: return "EIO";
	}
}

static void rec_error_locked(const char *path, int errnum)
{
	json_t *files;

	if (!doc)
		return;
	files = section(doc, "files", false);
	/* a later failure never hides content already captured */
	if (json_object_get(files, path))
		return;
	json_object_set_new(file_entry(path), "error", json_string(errno_name(errnum)));
}

static void rec_link_locked(const char *path, const char *target)
{
	if (!doc)
		return;
	json_object_set_new(file_entry(path), "link", json_string(target));
}

static void rec_dir_locked(const char *path, char **names, size_t n)
{
	json_t *a;
	size_t i;

	if (!doc)
		return;
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(names[i]));
	json_object_set_new(file_entry(path), "dir", a);
}

static void rec_hang_locked(const char *path)
{
	json_t *e;

	if (!doc)
		return;
	e = file_entry(path);
	/* what a stalled read answers is the hang, not an error recorded on the way */
	json_object_del(e, "error");
	json_object_set_new(e, "hang", json_true());
}

static void rec_stat_locked(const char *path, const struct rec_stat *st)
{
	char mode[16], type[2] = {st->type, '\0'};

	if (!doc)
		return;
	str_fmt(mode, sizeof(mode), "%04o", st->mode);
	json_object_set_new(file_entry(path), "stat",
			    json_pack("{s:s, s:s, s:i, s:i, s:i, s:i}", "type", type, "mode", mode,
				      "uid", (json_int_t)st->uid, "gid", (json_int_t)st->gid, "major",
				      (json_int_t)st->major, "minor", (json_int_t)st->minor));
}

static void rec_env_locked(const char *name, const char *value)
{
	if (!doc)
		return;
	json_object_set_new(section(doc, "env", false), name,
			    value ? json_string(value) : json_null());
}

static void rec_uname_locked(const char *sysname, const char *nodename, const char *release, const char *version,
	       const char *machine)
{
	if (!doc)
		return;
	json_object_set_new(doc, "uname",
			    json_pack("{s:s, s:s, s:s, s:s, s:s}", "sysname", sysname, "nodename",
				      nodename, "release", release, "version", version, "machine",
				      machine));
}

static void rec_identity_locked(unsigned uid, unsigned gid, const unsigned *groups, int ngroups)
{
	json_t *g;
	int i;

	if (!doc)
		return;
	g = json_array();
	for (i = 0; i < ngroups; i++)
		json_array_append_new(g, json_integer(groups[i]));
	json_object_set_new(doc, "identity",
			    json_pack("{s:i, s:i, s:o}", "uid", (json_int_t)uid, "gid", (json_int_t)gid,
				      "groups", g));
}

/* The object that holds answers for (lib, gpu): doc[lib].system or doc[lib].devices[gpu]. */
static json_t *answers_for(const char *lib, int gpu)
{
	json_t *l = section(doc, lib, false);
	json_t *devs;

	if (gpu < 0)
		return section(l, "system", false);
	devs = section(l, "devices", true);
	while ((int)json_array_size(devs) <= gpu)
		json_array_append_new(devs, json_object());
	return json_array_get(devs, (size_t)gpu);
}

/* Is there a hang stored under key? It is kept over any later answer. */
static bool is_hang(json_t *answers, const char *key)
{
	return json_is_true(json_object_get(json_object_get(answers, key), "hang"));
}

static void rec_call_locked(const char *lib, int gpu, const char *key, int rc, const char *fmt,
			    va_list ap)
{
	json_t *a;
	const char *f;

	if (!doc || is_hang(answers_for(lib, gpu), key))
		return;
	a = json_array();
	json_array_append_new(a, json_integer(rc));
	for (f = fmt; *f; f++) {
		if (*f == 'i')
			json_array_append_new(a, json_integer(va_arg(ap, int64_t)));
		else if (*f == 'u')
			json_array_append_new(a, json_integer((json_int_t)va_arg(ap, uint64_t)));
		else if (*f == 's')
			json_array_append_new(a, json_string(va_arg(ap, const char *)));
	}
	json_object_set_new(answers_for(lib, gpu), key, a);
}

static void rec_call_rows_locked(const char *lib, int gpu, const char *key, int rc, const char *fmt,
		   size_t nrows, const int64_t *vals)
{
	size_t width = strlen(fmt), r, c;
	json_t *a;

	if (!doc || is_hang(answers_for(lib, gpu), key))
		return;
	a = json_array();
	json_array_append_new(a, json_integer(rc));
	for (r = 0; r < nrows; r++) {
		json_t *row = json_array();

		for (c = 0; c < width; c++)
			json_array_append_new(row, json_integer(vals[r * width + c]));
		json_array_append_new(a, row);
	}
	json_object_set_new(answers_for(lib, gpu), key, a);
}

static void rec_hang_call_locked(const char *lib, int gpu, const char *key)
{
	json_object_set_new(answers_for(lib, gpu), key, json_pack("{s:b}", "hang", 1));
}

static void rec_library_locked(const char *lib, const char *path, const char *version, const char *error)
{
	json_t *o;

	if (!doc)
		return;
	o = json_object();
	if (path)
		json_object_set_new(o, "path", json_string(path));
	if (version)
		json_object_set_new(o, "version", json_string(version));
	if (error)
		json_object_set_new(o, "error", json_string(error));
	json_object_set_new(section(doc, "libraries", false), lib, o);
}

static void rec_missing_symbol_locked(const char *lib, const char *symbol)
{
	json_t *o;

	if (!doc)
		return;
	o = json_object_get(section(doc, "libraries", false), lib);
	if (!o) {
		o = json_object();
		json_object_set_new(section(doc, "libraries", false), lib, o);
	}
	json_array_append_new(section(o, "missing", true), json_string(symbol));
}

/* The public entry points: one lock around the document. */
#define LOCKED(call)                                                                               \
	do {                                                                                       \
		pthread_mutex_lock(&rec_lock);                                                     \
		if (doc)                                                                           \
			call;                                                                      \
		pthread_mutex_unlock(&rec_lock);                                                   \
	} while (0)

void rec_file(const char *path, const char *data, size_t len)
{
	LOCKED(rec_file_locked(path, data, len));
}

void rec_error(const char *path, int errnum)
{
	LOCKED(rec_error_locked(path, errnum));
}

void rec_link(const char *path, const char *target)
{
	LOCKED(rec_link_locked(path, target));
}

void rec_dir(const char *path, char **names, size_t n)
{
	LOCKED(rec_dir_locked(path, names, n));
}

void rec_hang(const char *path)
{
	LOCKED(rec_hang_locked(path));
}

void rec_stat(const char *path, const struct rec_stat *st)
{
	LOCKED(rec_stat_locked(path, st));
}

void rec_env(const char *name, const char *value)
{
	LOCKED(rec_env_locked(name, value));
}

void rec_uname(const char *sysname, const char *nodename, const char *release, const char *version,
	       const char *machine)
{
	LOCKED(rec_uname_locked(sysname, nodename, release, version, machine));
}

void rec_identity(unsigned uid, unsigned gid, const unsigned *groups, int ngroups)
{
	LOCKED(rec_identity_locked(uid, gid, groups, ngroups));
}

void rec_call(const char *lib, int gpu, const char *key, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	LOCKED(rec_call_locked(lib, gpu, key, rc, fmt, ap));
	va_end(ap);
}

void rec_call_rows(const char *lib, int gpu, const char *key, int rc, const char *fmt,
		   size_t nrows, const int64_t *vals)
{
	LOCKED(rec_call_rows_locked(lib, gpu, key, rc, fmt, nrows, vals));
}

void rec_hang_call(const char *lib, int gpu, const char *key)
{
	LOCKED(rec_hang_call_locked(lib, gpu, key));
}

void rec_library(const char *lib, const char *path, const char *version, const char *error)
{
	LOCKED(rec_library_locked(lib, path, version, error));
}

void rec_missing_symbol(const char *lib, const char *symbol)
{
	LOCKED(rec_missing_symbol_locked(lib, symbol));
}

/* ---- writing ------------------------------------------------------------------------------- */

static int rec_write_locked(const char *path, const struct rec_meta *meta, struct err *e)
{
	char stamp[64];
	time_t now = time(NULL);
	struct tm tm;
	char *text, *with_nl;
	int rc;

	if (!doc)
		return err_set(e, EXIT_ERROR, "no recording was made");
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(doc, "created", json_string(stamp));
	json_object_set_new(doc, "gpuvet_version", json_string(meta->version));
	json_object_set_new(doc, "scrubbed", json_boolean(meta->scrub));
	if (meta->description)
		json_object_set_new(doc, "description", json_string(meta->description));
	if (meta->scrub)
		scrub_recording(doc);
	text = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!text)
		return err_set(e, EXIT_ERROR, "cannot serialise the recording");
	if (strcmp(path, "-") == 0) {
		fputs(text, stdout);
		fputc('\n', stdout);
		free(text);
		fflush(stdout);
		return 0;
	}
	/* 0600: a recording describes the machine (paths, users, versions, serials unless
	 * scrubbed); file_replace never writes through a link or into someone else's file */
	with_nl = xasprintf("%s\n", text);
	free(text);
	rc = file_replace(path, with_nl, strlen(with_nl), 0600, e);
	free(with_nl);
	return rc;
}

/* Answers of one library: its system calls and, per device, its device calls. */
static void count_lib(json_t *l, size_t *devices, size_t *answers)
{
	json_t *devs = json_object_get(l, "devices"), *d;
	size_t i;

	*answers = json_object_size(json_object_get(l, "system"));
	*devices = json_array_size(devs);
	json_array_foreach(devs, i, d) *answers += json_object_size(d);
}

void rec_count(struct rec_counts *c)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_lock(&rec_lock);
	if (doc) {
		c->files = json_object_size(json_object_get(doc, "files"));
		c->env_vars = json_object_size(json_object_get(doc, "env"));
		count_lib(json_object_get(doc, "nvml"), &c->nvml_devices, &c->nvml_answers);
		count_lib(json_object_get(doc, "cuda"), &c->cuda_devices, &c->cuda_answers);
	}
	pthread_mutex_unlock(&rec_lock);
}

/* Under the lock: after a hang, threads the watchdog abandoned may still be recording. */
int rec_write(const char *path, const struct rec_meta *meta, struct err *e)
{
	int rc;

	pthread_mutex_lock(&rec_lock);
	rc = rec_write_locked(path, meta, e);
	pthread_mutex_unlock(&rec_lock);
	return rc;
}

void rec_stop(void)
{
	pthread_mutex_lock(&rec_lock);
	json_decref(doc);
	doc = NULL;
	pthread_mutex_unlock(&rec_lock);
}
