/*
 * python.c: Python environments and the GPU frameworks installed in them (PyTorch,
 * TensorFlow, JAX), read from files without importing anything (catalog section 2b, lesson 7).
 *
 * Importing torch takes seconds and can crash on the very stack doctor is examining, so this
 * reads what the build left behind: torch/version.py, the dist-info METADATA pins,
 * tensorflow/python/platform/build_info.py, the jax CUDA plugin's package name, and the
 * NVIDIA wheel folders under site-packages/nvidia. checks/framework.c judges the result
 * against the driver and the GPUs (and holds PyTorch's per-variant arch lists, which no small
 * file of the wheel states).
 *
 * Which environments: the python3 on PATH (a venv when pyvenv.cfg sits next to its bin/), the
 * active $VIRTUAL_ENV and $CONDA_PREFIX, conda environments in the usual places, the user
 * site and the system dist-packages. Work is bounded: listings are capped, only small text
 * files are read, and only their first part.
 *
 * This file finds the environments; python_site.c reads each one's site-packages
 * (python_int.h).
 */
#define _GNU_SOURCE
#include "python_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "facts.h"

static const char *env_value(const char *fact, const char *name)
{
	/* platform.c fills the env facts; fall back to the host layer when it has not */
	if (fact && fact[0])
		return fact;
	return host_getenv(name);
}

void join(char *out, size_t n, const char *a, const char *b)
{
	str_fmt(out, n, "%s/%s", strcmp(a, "/") ? a : "", b);
}

static void parent_dir(char *path)
{
	char *slash = strrchr(path, '/');

	if (slash && slash != path)
		*slash = '\0';
	else
		str_copy(path, "/", 2);
}

static bool is_dir(const char *path)
{
	struct host_stat st;

	return host_stat(path, &st) == 0 && st.type == 'd';
}

/* ---- environments ------------------------------------------------------------------------ */

/* "python3.12" -> 312 for ordering; 0 when not a python3.N name */
static int py_dir_rank(const char *name)
{
	uint64_t minor;

	if (!str_starts(name, "python3.") || parse_u64(name + 8, &minor) != 0 || minor > 99)
		return 0;
	return 300 + (int)minor;
}

/* <dir>/python3.N/<leaf> for the newest N that has it (the one matching want, if given). */
static bool find_versioned(const char *dir, const char *leaf, const char *want, char *out,
			   size_t n)
{
	char **names;
	size_t count, i;
	int best = 0;

	out[0] = '\0';
	if (host_list(dir, &names, &count) != 0)
		return false;
	for (i = 0; i < count; i++) {
		char path[1024];
		int rank = py_dir_rank(names[i]);

		if (!rank)
			continue;
		if (want && want[0] && !str_eq(names[i] + 6, want))
			continue;
		str_fmt(path, sizeof(path), "%s/%s/%s", dir, names[i], leaf);
		if (rank > best && is_dir(path)) {
			best = rank;
			str_copy(out, path, n);
		}
	}
	host_list_free(names, count);
	return best > 0;
}

/* "3.12" from a site path ".../lib/python3.12/site-packages" */
static void version_from_site(const char *site, char *out, size_t n)
{
	const char *p = strstr(site, "/python3.");
	size_t len = 0;

	if (!p)
		return;
	p += 7;
	while (isdigit((unsigned char)p[len]) || p[len] == '.')
		len++;
	str_copy(out, p, n < len + 1 ? n : len + 1);
}

/* pyvenv.cfg: "version_info = 3.12.3" (uv) or "version = 3.12.3" (venv) */
static void version_from_pyvenv(const char *prefix, char *out, size_t n)
{
	char path[1024];
	char *text;
	int rc = 0;
	const char *keys[] = {"version_info", "version"};
	size_t i;

	join(path, sizeof(path), prefix, "pyvenv.cfg");
	text = host_read(path, SMALL_FILE_MAX_BYTES, NULL, &rc);
	if (!text)
		return;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		char *line, *save = NULL;
		char *copy = xstrdup(text);

		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *eq = strchr(line, '=');

			if (!eq)
				continue;
			*eq = '\0';
			if (str_eq(str_trim(line), keys[i])) {
				str_copy(out, str_trim(eq + 1), n);
				break;
			}
		}
		free(copy);
		if (out[0])
			break;
	}
	free(text);
}

/* Add (or merge into) the environment whose site folder is site. */
static struct python_env *add_env(struct python_facts *py, const char *prefix, const char *kind,
				  const char *site, bool active, bool on_path)
{
	char real[512];
	struct python_env *e;
	int i;

	if (host_realpath(site, real, sizeof(real)) != 0 || !is_dir(real))
		return NULL;
	for (i = 0; i < py->n; i++) {
		if (str_eq(py->v[i].site, real)) {
			py->v[i].active |= active;
			py->v[i].on_path |= on_path;
			return &py->v[i];
		}
	}
	if (py->n >= FACTS_MAX_ENVS)
		return NULL;
	e = &py->v[py->n++];
	memset(e, 0, sizeof(*e));
	str_copy(e->prefix, prefix, sizeof(e->prefix));
	str_copy(e->kind, kind, sizeof(e->kind));
	str_copy(e->site, real, sizeof(e->site));
	e->active = active;
	e->on_path = on_path;
	version_from_pyvenv(prefix, e->py_version, sizeof(e->py_version));
	if (!e->py_version[0])
		version_from_site(real, e->py_version, sizeof(e->py_version));
	return e;
}

/* An environment by its prefix: <prefix>/lib/python3.N/site-packages. */
static void add_prefix(struct python_facts *py, const char *prefix, const char *kind, bool active,
		       bool on_path)
{
	char lib[1024], site[1024];

	join(lib, sizeof(lib), prefix, "lib");
	if (find_versioned(lib, "site-packages", NULL, site, sizeof(site)))
		add_env(py, prefix, kind, site, active, on_path);
}

static const char *prefix_kind(const char *prefix)
{
	char path[1024];

	join(path, sizeof(path), prefix, "pyvenv.cfg");
	if (host_exists(path))
		return "venv";
	join(path, sizeof(path), prefix, "conda-meta");
	if (host_exists(path))
		return "conda";
	return "system";
}

/* The system's own folders; on_path when the python3 on PATH is the system one. */
static void add_system(struct python_facts *py, bool on_path, const char *pyver)
{
	static const struct {
		const char *prefix, *dir, *leaf;
	} sys[] = {
		{"/usr/local", "/usr/local/lib", "dist-packages"},
		{"/usr/local", "/usr/local/lib", "site-packages"},
		{"/usr", "/usr/lib", "site-packages"},
		{"/usr", "/usr/lib64", "site-packages"},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sys); i++) {
		char site[1024];

		if (find_versioned(sys[i].dir, sys[i].leaf, pyver, site, sizeof(site)))
			add_env(py, sys[i].prefix, "system", site, false, on_path);
	}
	/* Debian and Ubuntu: apt's python3-* packages */
	add_env(py, "/usr", "system", "/usr/lib/python3/dist-packages", false, on_path);
}

/* The python3 a shell would run, and the environment it belongs to. */
static void add_on_path(struct python_facts *py, const char *path_var, char *kind_out,
			size_t kn, char *ver_out, size_t vn)
{
	char copy[4096];
	char *tok, *save = NULL;

	kind_out[0] = ver_out[0] = '\0';
	if (!path_var)
		return;
	str_copy(copy, path_var, sizeof(copy));
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char exe[1024], real[512], prefix[512];
		struct host_stat st;
		const char *base;
		struct python_env *e;

		if (tok[0] != '/')
			continue;
		join(exe, sizeof(exe), tok, "python3");
		if (host_stat(exe, &st) != 0 || st.type != 'f' || !(st.mode & 0111))
			continue;
		/* a venv is recognised before resolving: its python3 links to the base one */
		str_copy(prefix, tok, sizeof(prefix));
		parent_dir(prefix);
		if (!str_eq(prefix_kind(prefix), "venv")) {
			if (host_realpath(exe, real, sizeof(real)) != 0)
				return;
			base = strrchr(real, '/');
			if (base && str_starts(base + 1, "python3."))
				str_copy(ver_out, base + 7, vn);
			str_copy(prefix, real, sizeof(prefix));
			parent_dir(prefix);
			parent_dir(prefix);
		}
		str_copy(kind_out, prefix_kind(prefix), kn);
		if (str_eq(kind_out, "system") &&
		    (str_eq(prefix, "/usr") || str_eq(prefix, "/usr/local") || str_eq(prefix, "/"))) {
			add_system(py, true, ver_out);
			return;
		}
		{
			char lib[1024], site[1024];

			join(lib, sizeof(lib), prefix, "lib");
			if (find_versioned(lib, "site-packages", NULL, site, sizeof(site)) &&
			    (e = add_env(py, prefix, kind_out, site, false, true)) != NULL &&
			    !ver_out[0])
				str_copy(ver_out, e->py_version, vn);
		}
		return;
	}
}

/* conda environments under root/envs, and root itself (the base environment) */
static void add_conda_root(struct python_facts *py, const char *root)
{
	char envs[1024];
	char **names;
	size_t n, i;

	if (!is_dir(root))
		return;
	add_prefix(py, root, "conda", false, false);
	join(envs, sizeof(envs), root, "envs");
	if (host_list(envs, &names, &n) != 0)
		return;
	for (i = 0; i < n && i < CONDA_MAX_ENVS; i++) {
		char prefix[1024];

		join(prefix, sizeof(prefix), envs, names[i]);
		add_prefix(py, prefix, "conda", false, false);
	}
	host_list_free(names, n);
}

void python_collect(struct python_facts *py, const struct env_facts *env)
{
	static const char *const home_conda[] = {"miniconda3", "anaconda3", "miniforge3",
						 "mambaforge"};
	const char *path = env_value(env ? env->path : NULL, "PATH");
	const char *venv = env_value(env ? env->virtual_env : NULL, "VIRTUAL_ENV");
	const char *conda = env_value(env ? env->conda_prefix : NULL, "CONDA_PREFIX");
	const char *home = env_value(env ? env->home : NULL, "HOME");
	char kind[16], pyver[16];
	size_t i;
	int k;

	memset(py, 0, sizeof(*py));
	/* most relevant first: the list is capped at FACTS_MAX_ENVS */
	add_on_path(py, path, kind, sizeof(kind), pyver, sizeof(pyver));
	if (venv && venv[0] == '/')
		add_prefix(py, venv, str_eq(prefix_kind(venv), "conda") ? "conda" : "venv", true,
			   false);
	if (conda && conda[0] == '/')
		add_prefix(py, conda, "conda", true, false);
	if (home && home[0] == '/') {
		char dir[1024], site[1024];

		for (i = 0; i < ARRAY_SIZE(home_conda); i++) {
			join(dir, sizeof(dir), home, home_conda[i]);
			add_conda_root(py, dir);
		}
		/* the user site is used by a system python of the same version */
		join(dir, sizeof(dir), home, ".local/lib");
		if (find_versioned(dir, "site-packages", pyver, site, sizeof(site)) ||
		    find_versioned(dir, "site-packages", NULL, site, sizeof(site))) {
			char prefix[1024];
			char ver[16] = "";

			join(prefix, sizeof(prefix), home, ".local");
			version_from_site(site, ver, sizeof(ver));
			add_env(py, prefix, "user", site, false,
				str_eq(kind, "system") && pyver[0] && str_eq(pyver, ver));
		}
	}
	add_conda_root(py, "/opt/conda");
	add_system(py, false, NULL);
	for (k = 0; k < py->n; k++)
		scan_site(&py->v[k]);
}
