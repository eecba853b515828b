/* loader.c: dlopen and symbol tables for vendor libraries (see loader.h). */
#define _GNU_SOURCE
#include "loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../record/recorder.h"
#include "../util/util.h"

void vlib_version_from_name(const char *path, char *out, size_t n)
{
	const char *base = strrchr(path, '/');
	const char *so;

	base = base ? base + 1 : path;
	out[0] = '\0';
	so = strstr(base, ".so.");
	if (!so)
		return;
	so += 4;
	/* "libcuda.so.1" carries only the ABI number, not a driver version */
	if (!strchr(so, '.'))
		return;
	str_copy(out, so, n);
}

/* Read a small file of the replay folder into buf; returns 0 when present. */
static int replay_file(const char *dir, const char *key, const char *suffix, char *buf, size_t n)
{
	char path[PATH_MAX];
	FILE *f;
	size_t r;

	str_fmt(path, sizeof(path), "%s/lib/%s.%s", dir, key, suffix);
	f = fopen(path, "re");
	if (!f)
		return -1;
	r = fread(buf, 1, n - 1, f);
	buf[r] = '\0';
	fclose(f);
	return 0;
}

int vlib_open(struct vlib *l, const char *what, const char *key, const char *soname,
	      const char *env_var, struct err *e)
{
	const char *override = env_var ? getenv(env_var) : NULL;
	const char *replay = getenv("GPUVET_REPLAY_DIR");
	char replay_path[PATH_MAX];
	const char *target = soname;
	struct link_map *lm = NULL;

	memset(l, 0, sizeof(*l));
	l->what = what;
	l->key = key;
	l->soname = soname;
	if (replay && *replay) {
		char recorded_error[512];

		if (replay_file(replay, key, "error", recorded_error, sizeof(recorded_error)) == 0) {
			str_copy(l->error, str_trim(recorded_error), sizeof(l->error));
			return err_set(e, EXIT_UNAVAILABLE, "cannot load %s '%s': %s", what, soname,
				       l->error);
		}
		str_fmt(replay_path, sizeof(replay_path), "%s/lib/%s", replay, soname);
		target = replay_path;
	} else if (override && *override) {
		target = override;
		l->from_override = true;
	}
	l->handle = dlopen(target, RTLD_NOW | RTLD_LOCAL);
	if (!l->handle) {
		const char *why = dlerror();

		/* dlerror repeats the file name first; keep only the reason */
		if (why && strstr(why, ": "))
			why = strstr(why, ": ") + 2;
		str_copy(l->error, why ? why : "unknown error", sizeof(l->error));
		if (l->from_override)
			str_copy(l->path, target, sizeof(l->path));
		if (rec_active())
			rec_library(key, NULL, NULL, l->error);
		return err_set(e, EXIT_UNAVAILABLE, "cannot load %s '%s': %s", what,
			       l->from_override ? target : soname, l->error);
	}
	if (dlinfo(l->handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0]) {
		char real[PATH_MAX];

		if (realpath(lm->l_name, real))
			str_copy(l->path, real, sizeof(l->path));
		else
			str_copy(l->path, lm->l_name, sizeof(l->path));
	} else {
		str_copy(l->path, target, sizeof(l->path));
	}
	vlib_version_from_name(l->path, l->version, sizeof(l->version));
	if (replay && *replay) {
		char info[PATH_MAX + 80];
		char *nl;

		/* the recorded machine's file, not our fake one */
		if (replay_file(replay, key, "path", info, sizeof(info)) == 0) {
			nl = strchr(info, '\n');
			if (nl) {
				*nl = '\0';
				str_copy(l->version, str_trim(nl + 1), sizeof(l->version));
			} else {
				l->version[0] = '\0';
			}
			str_copy(l->path, str_trim(info), sizeof(l->path));
		}
	}
	if (rec_active())
		rec_library(key, l->path, l->version, NULL);
	return 0;
}

int vlib_open_any(struct vlib *l, const char *what, const char *key, const char *const *candidates,
		  size_t ncandidates, const char *env_var, struct err *e)
{
	const char *override = env_var ? getenv(env_var) : NULL;
	char tried[sizeof(l->error)];
	size_t i;

	if ((override && *override) || ncandidates == 0)
		return vlib_open(l, what, key, ncandidates ? candidates[0] : "", env_var, e);
	tried[0] = '\0';
	for (i = 0; i < ncandidates; i++) {
		struct err le;

		err_clear(&le);
		if (vlib_open(l, what, key, candidates[i], NULL, &le) == 0)
			return 0;
		if (tried[0])
			str_append(tried, "; ", sizeof(tried));
		str_append(tried, candidates[i], sizeof(tried));
		str_append(tried, ": ", sizeof(tried));
		str_append(tried, l->error, sizeof(tried));
	}
	str_copy(l->error, tried, sizeof(l->error));
	l->soname = candidates[0];
	return err_set(e, EXIT_UNAVAILABLE, "cannot load %s (tried %s)", what, tried);
}

static bool replay_says_missing(const char *key, const char *name)
{
	const char *replay = getenv("GPUVET_REPLAY_DIR");
	char list[8192];
	char *tok, *save = NULL;

	if (!replay || !*replay || replay_file(replay, key, "missing", list, sizeof(list)) != 0)
		return false;
	for (tok = strtok_r(list, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (strcmp(tok, name) == 0)
			return true;
	return false;
}

int vlib_bind(struct vlib *l, const struct vsym *syms, size_t n, void *table, struct err *e)
{
	size_t i;
	int j;

	for (i = 0; i < n; i++) {
		void *fn = NULL;

		for (j = 0; j < 3 && syms[i].names[j] && !fn; j++) {
			if (replay_says_missing(l->key, syms[i].names[j]))
				continue;
			fn = dlsym(l->handle, syms[i].names[j]);
		}
		memcpy((char *)table + syms[i].offset, &fn, sizeof(fn));
		if (fn)
			continue;
		if (rec_active())
			rec_missing_symbol(l->key, syms[i].names[0]);
		if (syms[i].required)
			return err_set(e, EXIT_UNAVAILABLE, "%s library '%s' lacks required symbol %s",
				       l->what, l->path, syms[i].names[0]);
		if (l->nmissing < VLIB_MAX_MISSING)
			l->missing[l->nmissing++] = syms[i].names[0];
	}
	return 0;
}

bool vlib_is_missing(const struct vlib *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->nmissing; i++)
		if (strcmp(l->missing[i], name) == 0)
			return true;
	return false;
}

void vlib_close(struct vlib *l)
{
	if (l->handle)
		dlclose(l->handle);
	l->handle = NULL;
}
