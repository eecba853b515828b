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

#include "../capture/recorder.h"
#include "../util/util.h"

static const struct vlib_replay *replay_libs;
static size_t replay_nlibs;
static bool replaying;
static const char *const *live_keys;

void vlib_set_replay(const struct vlib_replay *libs, size_t n)
{
	replay_libs = libs;
	replay_nlibs = n;
	replaying = libs != NULL;
}

void vlib_set_live(const char *const *keys)
{
	live_keys = keys;
}

static bool is_live(const char *key)
{
	size_t i;

	for (i = 0; live_keys && live_keys[i]; i++)
		if (strcmp(live_keys[i], key) == 0)
			return true;
	return false;
}

static const struct vlib_replay *replay_lib(const char *key)
{
	size_t i;

	for (i = 0; i < replay_nlibs; i++)
		if (strcmp(replay_libs[i].key, key) == 0)
			return &replay_libs[i];
	return NULL;
}

/* The fake library takes its answers from us: nothing of a replay lives in files. */
static int replay_feed(struct vlib *l, const struct vlib_replay *r, struct err *e)
{
	int (*feed)(const char *, size_t);
	void *sym = dlsym(l->handle, "gpuvet_fake_answers");

	if (!sym) {
		str_copy(l->error, "the fake library has no gpuvet_fake_answers", sizeof(l->error));
		dlclose(l->handle);
		l->handle = NULL;
		return err_set(e, EXIT_ERROR, "cannot replay %s: '%s' is not gpuvet's fake library",
			       l->what, r->fake_path);
	}
	memcpy(&feed, &sym, sizeof(feed));
	if (feed(r->answers ? r->answers : "", r->answers ? r->answers_len : 0) != 0) {
		str_copy(l->error, "the fake library refused the answers", sizeof(l->error));
		dlclose(l->handle);
		l->handle = NULL;
		return err_set(e, EXIT_ERROR, "cannot replay %s: %s", l->what, l->error);
	}
	return 0;
}

int vlib_open(struct vlib *l, const char *what, const char *key, const char *soname,
	      const char *env_var, struct err *e)
{
	const char *override = env_var ? getenv(env_var) : NULL;
	const struct vlib_replay *replay = NULL;
	const char *target = soname;
	struct link_map *lm = NULL;

	memset(l, 0, sizeof(*l));
	l->what = what;
	l->key = key;
	l->soname = soname;
	if (replaying && !is_live(key)) {
		replay = replay_lib(key);
		if (!replay || replay->error) {
			str_copy(l->error,
				 replay ? replay->error
					: "cannot open shared object file: No such file or directory",
				 sizeof(l->error));
			return err_set(e, EXIT_UNAVAILABLE, "cannot load %s '%s': %s", what, soname,
				       l->error);
		}
		target = replay->fake_path;
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
	version_from_soname(l->path, l->version, sizeof(l->version));
	if (replay) {
		if (replay_feed(l, replay, e) != 0)
			return -1;
		/* the recorded machine's file, not our fake one */
		if (replay->path) {
			str_copy(l->path, replay->path, sizeof(l->path));
			str_copy(l->version, replay->version ? replay->version : "",
				 sizeof(l->version));
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
	const struct vlib_replay *r = replaying && !is_live(key) ? replay_lib(key) : NULL;
	size_t i;

	for (i = 0; r && i < r->nmissing; i++)
		if (strcmp(r->missing[i], name) == 0)
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
