/*
 * toolkit.c: the CUDA toolkits on this machine, the nvcc on PATH and CUDA_HOME (catalog
 * row 18), read from files: nothing is run.
 *
 * A toolkit only matters for compiling (CUDA extensions, JIT of PTX by programs built with
 * it); prebuilt wheels bring their own runtime. checks/toolkit.c keeps its version apart from
 * the driver's maximum CUDA and from the CUDA a framework was built for (lesson 5).
 *
 * A toolkit's version comes from version.json (CUDA 11.1 and later), else version.txt (older
 * toolkits), else the CUDA_VERSION define in include/cuda.h (some container images ship
 * neither file: the H200 image's /usr/local/cuda-13.0 has only cuda.h), else the folder name.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "facts.h"

/* cuda.h defines CUDA_VERSION after its licence; the first 64 KiB always hold it. */
#define CUDA_H_MAX_BYTES (64u << 10)
#define VERSION_FILE_MAX_BYTES (64u << 10)
/* /usr/local rarely holds more; a pathological folder is not walked further */
#define USR_LOCAL_MAX_NAMES 4096

static const char *env_value(const char *fact, const char *name)
{
	/* platform.c fills the env facts; fall back to the host layer when it has not */
	if (fact && fact[0])
		return fact;
	return host_getenv(name);
}

/* "cuda": { ... "version": "12.4.1" ... } */
static bool version_from_json(const char *text, char *out, size_t n)
{
	const char *p = text, *end, *q;

	while ((p = strstr(p, "\"cuda\"")) != NULL) {
		p += 6;
		while (isspace((unsigned char)*p))
			p++;
		if (*p != ':')
			continue;
		p = strchr(p, '{');
		if (!p)
			return false;
		end = strchr(p, '}');
		q = strstr(p, "\"version\"");
		if (!q || (end && q > end))
			return false;
		q = strchr(q + 9, '"');
		if (!q || (end && q > end))
			return false;
		q++;
		end = strchr(q, '"');
		if (!end || end == q)
			return false;
		str_copy(out, q, n < (size_t)(end - q) + 1 ? n : (size_t)(end - q) + 1);
		return true;
	}
	return false;
}

/* "CUDA Version 11.0.228" */
static bool version_from_txt(const char *text, char *out, size_t n)
{
	const char *p = strstr(text, "CUDA Version");
	size_t len = 0;

	if (!p)
		return false;
	p += 12;
	while (*p == ' ' || *p == '\t')
		p++;
	while (isdigit((unsigned char)p[len]) || p[len] == '.')
		len++;
	if (!len)
		return false;
	str_copy(out, p, n < len + 1 ? n : len + 1);
	return true;
}

/* "#define CUDA_VERSION 13000" -> "13.0" */
static bool version_from_header(const char *text, char *out, size_t n)
{
	const char *p = text;

	while ((p = strstr(p, "#define CUDA_VERSION")) != NULL) {
		uint64_t v;
		const char *end;

		p += 20;
		if (*p != ' ' && *p != '\t')
			continue; /* CUDA_VERSION_MAJOR and friends */
		while (*p == ' ' || *p == '\t')
			p++;
		if (parse_u64_prefix(p, 10, &v, &end) != 0 || end == p || v < 1000 || v > 99990)
			return false;
		str_fmt(out, n, "%u.%u", (unsigned)(v / 1000), (unsigned)(v % 1000 / 10));
		return true;
	}
	return false;
}

/* "/usr/local/cuda-12.4" -> "12.4" */
static bool version_from_name(const char *path, char *out, size_t n)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!str_starts(base, "cuda-") || !isdigit((unsigned char)base[5]) || !strchr(base, '.'))
		return false;
	str_copy(out, base + 5, n);
	return true;
}

static void toolkit_version(const char *prefix, char *out, size_t n)
{
	static const struct {
		const char *file;
		size_t max;
		bool (*parse)(const char *, char *, size_t);
	} sources[] = {
		{"version.json", VERSION_FILE_MAX_BYTES, version_from_json},
		{"version.txt", VERSION_FILE_MAX_BYTES, version_from_txt},
		{"include/cuda.h", CUDA_H_MAX_BYTES, version_from_header},
	};
	size_t i;

	out[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(sources); i++) {
		char path[512];
		char *text;
		bool ok;
		int rc = 0;

		str_fmt(path, sizeof(path), "%s/%s", strcmp(prefix, "/") ? prefix : "",
			sources[i].file);
		text = host_read(path, sources[i].max, NULL, &rc);
		if (!text)
			continue;
		ok = sources[i].parse(text, out, n);
		free(text);
		if (ok)
			return;
	}
	if (!version_from_name(prefix, out, n))
		out[0] = '\0';
}

/* The toolkit at path (resolved), added once; its index, or -1 when it is not a folder. */
static int add_toolkit(struct toolkit_facts *t, const char *path)
{
	char real[256];
	struct host_stat st;
	int i;

	if (host_realpath(path, real, sizeof(real)) != 0 || host_stat(real, &st) != 0 ||
	    st.type != 'd')
		return -1;
	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].path, real) == 0)
			return i;
	if (t->n >= FACTS_MAX_TOOLKITS)
		return -1;
	str_copy(t->v[t->n].path, real, sizeof(t->v[t->n].path));
	toolkit_version(real, t->v[t->n].version, sizeof(t->v[t->n].version));
	t->v[t->n].is_default = false;
	return t->n++;
}

static void scan_usr_local(struct toolkit_facts *t)
{
	char **names;
	size_t n, i;
	int def;

	if (host_list("/usr/local", &names, &n) == 0) {
		for (i = 0; i < n && i < USR_LOCAL_MAX_NAMES; i++) {
			char path[256];

			if (!str_starts(names[i], "cuda-"))
				continue;
			str_fmt(path, sizeof(path), "/usr/local/%s", names[i]);
			add_toolkit(t, path);
		}
		host_list_free(names, n);
	}
	/* /usr/local/cuda: usually a link (through /etc/alternatives), sometimes a folder */
	def = add_toolkit(t, "/usr/local/cuda");
	if (def >= 0)
		t->v[def].is_default = true;
}

/* The first nvcc on PATH, like a shell would run it, and the toolkit it belongs to. */
static void find_nvcc(struct toolkit_facts *t, const char *path_var)
{
	char copy[4096];
	char *tok, *save = NULL;

	if (!path_var)
		return;
	str_copy(copy, path_var, sizeof(copy));
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char path[512], real[256], prefix[256];
		struct host_stat st;
		char *slash;
		int i;

		if (tok[0] != '/')
			continue;
		str_fmt(path, sizeof(path), "%s/nvcc", tok);
		if (host_stat(path, &st) != 0 || st.type != 'f' || !(st.mode & 0111))
			continue;
		if (host_realpath(path, real, sizeof(real)) != 0)
			continue;
		str_copy(t->nvcc_path, real, sizeof(t->nvcc_path));
		/* <prefix>/bin/nvcc */
		str_copy(prefix, real, sizeof(prefix));
		for (i = 0; i < 2; i++) {
			slash = strrchr(prefix, '/');
			if (!slash)
				break;
			*slash = '\0';
		}
		if (!prefix[0])
			str_copy(prefix, "/", sizeof(prefix));
		i = add_toolkit(t, prefix);
		if (i >= 0)
			str_copy(t->nvcc_version, t->v[i].version, sizeof(t->nvcc_version));
		return;
	}
}

void toolkit_collect(struct toolkit_facts *t, const struct env_facts *env)
{
	const char *home = host_getenv("CUDA_HOME");
	int i;

	memset(t, 0, sizeof(*t));
	scan_usr_local(t);
	find_nvcc(t, env_value(env ? env->path : NULL, "PATH"));
	/* torch.utils.cpp_extension looks at CUDA_HOME, then CUDA_PATH */
	if (!home || !home[0])
		home = host_getenv("CUDA_PATH");
	if (home && home[0]) {
		str_copy(t->cuda_home, home, sizeof(t->cuda_home));
		i = home[0] == '/' ? add_toolkit(t, home) : -1;
		if (i >= 0) {
			str_copy(t->cuda_home_real, t->v[i].path, sizeof(t->cuda_home_real));
			str_copy(t->cuda_home_version, t->v[i].version, sizeof(t->cuda_home_version));
		}
	}
}
