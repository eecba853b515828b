/*
 * python_site.c: what the GPU frameworks' builds left in one site-packages, read as text:
 * torch/version.py, dist-info METADATA pins, TensorFlow's build_info.py, the jax CUDA plugin
 * and the NVIDIA wheel folders (the environments are found in python.c; python_int.h).
 */
#define _GNU_SOURCE
#include "python_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "facts.h"

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* The Python name word at s, not the start of a longer one (Truex, None_) */
static bool py_word(const char *s, const char *word)
{
	size_t len = strlen(word);

	return strncmp(s, word, len) == 0 && !isalnum((unsigned char)s[len]) && s[len] != '_';
}

/* Does the quoted key whose opening quote is at open start a tuple: `('key', ...`? */
static bool opens_tuple(const char *text, const char *open)
{
	while (open > text && isspace((unsigned char)open[-1]))
		open--;
	return open > text && open[-1] == '(';
}

/* After `key:`: a dict value, or an annotation (`cuda: Optional[str] = '13.0'`). */
static const char *after_colon(const char *q)
{
	q = skip_blank(q);
	if (*q == '\'' || *q == '"' || *q == '[' || py_word(q, "None") || py_word(q, "True") ||
	    py_word(q, "False"))
		return q;
	while (*q && *q != '=' && *q != '\n')
		q++;
	return *q == '=' ? skip_blank(q + 1) : NULL;
}

/*
 * Where the value of the key found at name starts, or NULL when that occurrence assigns
 * nothing. *pair says the value must be followed by ')': TensorFlow's gen_build_info.py
 * writes `build_info = collections.OrderedDict([('cuda_version', '12.5.1'), ...])`.
 */
static const char *value_start(const char *text, const char *name, size_t len, bool *pair)
{
	const char before = name == text ? '\n' : name[-1];
	const char *q = name + len;
	bool quoted = false;

	*pair = false;
	if (isalnum((unsigned char)before) || before == '_' || before == '.')
		return NULL;
	if (*q == '\'' || *q == '"') {
		if (*q != before)
			return NULL; /* 'cuda" or cuda': not a key */
		quoted = true;
		q++;
	}
	if (isalnum((unsigned char)*q) || *q == '_')
		return NULL; /* a longer name: cuda_version_number when looking for cuda_version */
	q = skip_blank(q);
	if (quoted && *q == ',' && opens_tuple(text, name - 1)) {
		*pair = true;
		return skip_space(q + 1);
	}
	if (*q == ':')
		return after_colon(q + 1);
	if (*q == '=' && q[1] != '=')
		return skip_blank(q + 1);
	return NULL;
}

/*
 * The literal at q: a string's or a list's insides (1), "True" or "False" (2), None (0); -1
 * for anything else, a string not closed on its line or a list not closed. *end is set past
 * the literal.
 */
static int py_literal(const char *q, char *out, size_t n, const char **end)
{
	const char *close;
	size_t len;

	if (py_word(q, "None")) {
		*end = q + 4;
		return 0;
	}
	if (py_word(q, "True") || py_word(q, "False")) {
		str_copy(out, *q == 'T' ? "True" : "False", n);
		*end = q + (*q == 'T' ? 4 : 5);
		return 2;
	}
	if (*q == '[') {
		close = strchr(q + 1, ']');
	} else if (*q == '\'' || *q == '"') {
		close = q + 1 + strcspn(q + 1, *q == '\'' ? "'\n" : "\"\n");
		if (*close != *q)
			close = NULL;
	} else {
		return -1;
	}
	if (!close)
		return -1;
	len = (size_t)(close - q); /* the insides and their terminating NUL */
	str_copy(out, q + 1, n < len ? n : len);
	*end = close + 1;
	return 1;
}

/*
 * The value assigned to key in Python source: `key = 'v'`, `key: Optional[str] = 'v'`, the
 * dict form `'key': 'v'` and the pair form `('key', 'v')`. Returns 1 with a string or a
 * list's insides in out, 2 with "True" or "False", 0 for None, -1 when the key is not
 * assigned.
 */
int python_value(const char *text, const char *key, char *out, size_t n)
{
	const size_t klen = strlen(key);
	const char *p = text;

	out[0] = '\0';
	while ((p = strstr(p, key)) != NULL) {
		const char *q, *end;
		bool pair;
		int rc;

		q = value_start(text, p, klen, &pair);
		p += klen;
		if (!q)
			continue;
		rc = py_literal(q, out, n, &end);
		if (rc >= 0 && (!pair || *skip_space(end) == ')'))
			return rc;
		out[0] = '\0';
	}
	return -1;
}

/* "name-1.2.3.dist-info" for project name (a dash and a digit after it); NULL when absent. */
static const char *find_dist_info(char **names, size_t n, const char *project)
{
	size_t plen = strlen(project), i;

	for (i = 0; i < n; i++)
		if (strncmp(names[i], project, plen) == 0 && names[i][plen] == '-' &&
		    isdigit((unsigned char)names[i][plen + 1]) && str_ends(names[i], ".dist-info"))
			return names[i];
	return NULL;
}

/* The version in a dist-info folder name: "torch-2.11.0.dist-info" -> "2.11.0". */
static void dist_info_version(const char *dist, char *out, size_t n)
{
	const char *dash = strchr(dist, '-');
	size_t len;

	out[0] = '\0';
	if (!dash)
		return;
	dash++;
	len = strlen(dash) - strlen(".dist-info");
	str_copy(out, dash, n < len + 1 ? n : len + 1);
}

static bool has_name(char **names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

static struct framework *add_fw(struct python_env *e, enum fw_kind kind, const char *path)
{
	struct framework *f;

	if (e->nfw >= FACTS_MAX_FW)
		return NULL;
	f = &e->fw[e->nfw++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	str_copy(f->path, path, sizeof(f->path));
	return f;
}

/* "Requires-Dist: nvidia-cudnn-cu12==9.5.1.17; platform_system == ..." -> "9.5.1.17" */
static void cudnn_pin_from_metadata(const char *site, const char *dist, char *out, size_t n)
{
	char path[1024];
	char *text, *line, *save = NULL;
	int rc = 0;

	out[0] = '\0';
	str_fmt(path, sizeof(path), "%s/%s/METADATA", site, dist);
	text = host_read(path, METADATA_MAX_BYTES, NULL, &rc);
	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *p, *v;
		size_t len = 0;

		if (line[0] == '\0' || line[0] == '\r')
			break; /* the end of the headers */
		if (!str_starts(line, "Requires-Dist:"))
			continue;
		p = line + 14;
		while (*p == ' ')
			p++;
		if (!str_starts(p, "nvidia-cudnn-cu") || !(v = strstr(p, "==")))
			continue;
		v += 2;
		while (isdigit((unsigned char)v[len]) || v[len] == '.')
			len++;
		str_copy(out, v, n < len + 1 ? n : len + 1);
		break;
	}
	free(text);
}

/* "2.5.1+cu124" -> "12.4"; "" when the tag is not a CUDA one */
static void cuda_from_tag(const char *version, char *out, size_t n)
{
	const char *tag = strstr(version, "+cu");
	size_t len = 0;

	out[0] = '\0';
	if (!tag)
		return;
	tag += 3;
	while (isdigit((unsigned char)tag[len]))
		len++;
	if (len < 3)
		return;
	/* the last digit is the minor: cu118 = 11.8, cu130 = 13.0 */
	str_fmt(out, n, "%.*s.%c", (int)(len - 1), tag, tag[len - 1]);
}

static void scan_torch(struct python_env *e, char **names, size_t n)
{
	char dir[1024], path[1024], val[64];
	const char *dist = find_dist_info(names, n, "torch");
	struct framework *f;
	char *text;
	int rc = 0;

	join(dir, sizeof(dir), e->site, "torch");
	f = add_fw(e, FW_TORCH, dir);
	if (!f)
		return;
	join(path, sizeof(path), dir, "version.py");
	text = host_read(path, SMALL_FILE_MAX_BYTES, NULL, &rc);
	if (text) {
		/* version.py keeps the local tag (+cu130, +cpu) that dist-info names may lose */
		if (python_value(text, "__version__", val, sizeof(val)) == 1)
			str_copy(f->version, val, sizeof(f->version));
		if (python_value(text, "cuda", val, sizeof(val)) == 1)
			str_copy(f->cuda, val, sizeof(f->cuda));
		f->rocm = python_value(text, "hip", val, sizeof(val)) == 1 && val[0];
		free(text);
	} else {
		char cuda_lib[1024];

		if (dist)
			dist_info_version(dist, f->version, sizeof(f->version));
		join(cuda_lib, sizeof(cuda_lib), dir, "lib/libtorch_cuda.so");
		if (host_exists(cuda_lib))
			cuda_from_tag(f->version, f->cuda, sizeof(f->cuda));
	}
	if (!f->version[0] && dist)
		dist_info_version(dist, f->version, sizeof(f->version));
	f->cpu_only = !f->cuda[0] && !f->rocm;
	if (dist)
		cudnn_pin_from_metadata(e->site, dist, f->cudnn_pin, sizeof(f->cudnn_pin));
	/* archs stays "": no small file states them. The cubins are in the ~1 GB
	 * libtorch_cuda.so, which host_read cannot read in part; checks/framework.c maps the
	 * build's CUDA version to PyTorch's release arch lists instead. */
}

/* An old X.Y entry: "7.5" -> "sm_75" in place, returning 75; 0 (tok untouched) otherwise. */
static int legacy_arch(char *tok, size_t n)
{
	const char *dot = strchr(tok, '.');
	char major[8], sm[32];
	uint64_t ma, mi;

	if (!dot || (size_t)(dot - tok) >= sizeof(major))
		return 0;
	str_copy(major, tok, (size_t)(dot - tok) + 1);
	if (parse_u64(major, &ma) != 0 || parse_u64(dot + 1, &mi) != 0 || ma > 99 || mi > 9)
		return 0;
	str_fmt(sm, sizeof(sm), "sm_%d%d", (int)ma, (int)mi);
	str_copy(tok, sm, n);
	return (int)(ma * 10 + mi);
}

/*
 * ['sm_60', 'sm_70', 'compute_90'] -> "sm_60 sm_70 compute_90" (compute_XY is SASS and PTX,
 * sm_XY SASS only). Older builds list ['3.5', '7.0']: those are SASS for each, and PTX for
 * the highest (third_party/gpus/cuda_configure.bzl) -> "sm_35 sm_70 compute_70".
 */
void python_tf_archs(const char *list, char *out, size_t n)
{
	const char *p = list;
	int legacy_max = 0;
	bool all_legacy = true;

	out[0] = '\0';
	while (*p) {
		char tok[32];
		size_t len = 0;
		int cc;

		while (*p && !isalnum((unsigned char)*p))
			p++;
		while (p[len] && (isalnum((unsigned char)p[len]) || p[len] == '_' || p[len] == '.'))
			len++;
		if (!len)
			break;
		str_copy(tok, p, sizeof(tok) < len + 1 ? sizeof(tok) : len + 1);
		p += len;
		cc = legacy_arch(tok, sizeof(tok));
		if (cc > legacy_max)
			legacy_max = cc;
		all_legacy &= cc > 0;
		if (out[0])
			str_append(out, " ", n);
		str_append(out, tok, n);
	}
	if (all_legacy && legacy_max) {
		char ptx[32];

		str_fmt(ptx, sizeof(ptx), " compute_%d", legacy_max);
		str_append(out, ptx, n);
	}
}

/* A True/False assignment: 1 or 0; -1 when the key is missing or holds something else. */
static int py_bool(const char *text, const char *key)
{
	char val[8];

	if (python_value(text, key, val, sizeof(val)) != 2)
		return -1; /* the string 'False' is not a boolean */
	return str_eq(val, "True");
}

static void scan_tensorflow(struct python_env *e, char **names, size_t n)
{
	static const char *const projects[] = {"tensorflow", "tensorflow_gpu", "tensorflow_cpu",
					       "tf_nightly"};
	char dir[1024], path[1024], val[256];
	struct framework *f;
	const char *dist = NULL;
	char *text;
	int rc = 0, is_cuda;
	size_t i;

	join(dir, sizeof(dir), e->site, "tensorflow");
	f = add_fw(e, FW_TENSORFLOW, dir);
	if (!f)
		return;
	for (i = 0; i < ARRAY_SIZE(projects) && !dist; i++)
		dist = find_dist_info(names, n, projects[i]);
	if (dist)
		dist_info_version(dist, f->version, sizeof(f->version));
	join(path, sizeof(path), dir, "python/platform/build_info.py");
	text = host_read(path, SMALL_FILE_MAX_BYTES, NULL, &rc);
	if (!text) {
		f->cpu_only = false; /* unknown: no build info to say either way */
		return;
	}
	if (python_value(text, "cuda_version", val, sizeof(val)) == 1 ||
	    python_value(text, "cuda_version_number", val, sizeof(val)) == 1)
		str_copy(f->cuda, val, sizeof(f->cuda));
	if (python_value(text, "cudnn_version", val, sizeof(val)) == 1 ||
	    python_value(text, "cudnn_version_number", val, sizeof(val)) == 1)
		str_copy(f->cudnn_pin, val, sizeof(f->cudnn_pin));
	if (python_value(text, "cuda_compute_capabilities", val, sizeof(val)) == 1)
		python_tf_archs(val, f->archs, sizeof(f->archs));
	f->rocm = py_bool(text, "is_rocm_build") == 1;
	is_cuda = py_bool(text, "is_cuda_build");
	if (is_cuda == 0)
		f->cuda[0] = '\0';
	/* gen_build_info.py always writes is_cuda_build: a file that lacks it was cut off, and
	 * says nothing either way; a CUDA build without cuda_version is not judged */
	f->cpu_only = is_cuda == 0 && !f->rocm;
	free(text);
}

static void scan_jax(struct python_env *e, char **names, size_t n)
{
	static const struct {
		const char *project;
		const char *cuda;
	} plugins[] = {{"jax_cuda13_plugin", "13"}, {"jax_cuda12_plugin", "12"}};
	char dir[1024];
	struct framework *f;
	const char *dist;
	size_t i;

	join(dir, sizeof(dir), e->site, "jax");
	f = add_fw(e, FW_JAX, dir);
	if (!f)
		return;
	dist = find_dist_info(names, n, "jax");
	if (dist)
		dist_info_version(dist, f->version, sizeof(f->version));
	/* the plugin package name carries the CUDA major it was built for */
	for (i = 0; i < ARRAY_SIZE(plugins) && !f->cuda[0]; i++) {
		dist = find_dist_info(names, n, plugins[i].project);
		if (dist) {
			str_copy(f->cuda, plugins[i].cuda, sizeof(f->cuda));
			if (!f->version[0])
				dist_info_version(dist, f->version, sizeof(f->version));
		}
	}
	/* jaxlib before the plugins: jaxlib-0.4.20+cuda12.cudnn89 */
	dist = find_dist_info(names, n, "jaxlib");
	if (!f->cuda[0] && dist) {
		const char *tag = strstr(dist, "+cuda");

		if (tag && isdigit((unsigned char)tag[5]))
			str_fmt(f->cuda, sizeof(f->cuda), "%.*s", isdigit((unsigned char)tag[6]) ? 2 : 1,
				tag + 5);
	}
	f->cpu_only = !f->cuda[0];
}

/* site-packages/nvidia/<component>/lib: where the wheels put libcublasLt and libnccl. */
static void scan_nvidia_wheels(struct python_env *e)
{
	char top[1024];
	char **subs;
	size_t nsubs, i;

	join(top, sizeof(top), e->site, "nvidia");
	if (host_list(top, &subs, &nsubs) != 0)
		return;
	for (i = 0; i < nsubs && i < NVIDIA_MAX_DIRS; i++) {
		char lib[1024];
		char **libs;
		size_t nlibs, j;

		str_fmt(lib, sizeof(lib), "%s/%s/lib", top, subs[i]);
		if (host_list(lib, &libs, &nlibs) != 0)
			continue;
		for (j = 0; j < nlibs; j++) {
			if (!e->nvidia_libdir[0] && str_starts(libs[j], "libcublasLt.so"))
				str_copy(e->nvidia_libdir, lib, sizeof(e->nvidia_libdir));
			if (!e->nvidia_nccl_dir[0] && str_starts(libs[j], "libnccl.so"))
				str_copy(e->nvidia_nccl_dir, lib, sizeof(e->nvidia_nccl_dir));
		}
		host_list_free(libs, nlibs);
	}
	host_list_free(subs, nsubs);
}

void scan_site(struct python_env *e)
{
	char **names;
	size_t total, n;

	if (host_list(e->site, &names, &total) != 0)
		return;
	n = total < SITE_MAX_NAMES ? total : SITE_MAX_NAMES;
	if (has_name(names, n, "torch"))
		scan_torch(e, names, n);
	if (has_name(names, n, "tensorflow"))
		scan_tensorflow(e, names, n);
	if (has_name(names, n, "jax"))
		scan_jax(e, names, n);
	if (has_name(names, n, "nvidia"))
		scan_nvidia_wheels(e);
	host_list_free(names, total);
}
