/*
 * libs.c: which libcuda, libnvidia-ml, libcudart and libcudnn files the dynamic loader would
 * find, in the loader's own order, without loading any of them (catalog rows 7, 12-14, 19).
 *
 * "The wrong file was loaded" is the commonest library failure (lesson 3): a toolkit stub on
 * LD_LIBRARY_PATH, a forward-compatibility copy, a stale libcuda bundled in a container. So
 * every candidate is listed with where it came from, its resolved file and the version in
 * that file's name. The order is the loader's: LD_LIBRARY_PATH directories, then
 * /etc/ld.so.cache, then the default directories. checks/libraries.c judges the list; the
 * vendor probe (gpu/probe.c) reports the file it really loaded.
 *
 * /etc/ld.so.cache is parsed here, because `ldconfig -p` is a subprocess and a recording
 * must replay what was read. The file is untrusted input: every count, offset and string is
 * checked against the bytes actually read.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "facts.h"

/* A cache is some tens of KiB; anything past this is not one we want to walk. */
#define LDCACHE_MAX_BYTES (16u << 20)

/* glibc sysdeps/generic/ldconfig.h and dl-cache.h */
#define LDCACHE_OLD_MAGIC "ld.so-1.7.0"
#define LDCACHE_NEW_MAGIC "glibc-ld.so.cache1.1"
#define LDCACHE_OLD_HEADER 16u	/* magic[11], padding, nlibs */
#define LDCACHE_OLD_ENTRY 12u	/* flags, key, value */
#define LDCACHE_NEW_HEADER 48u	/* magic[17] version[3] nlibs len_strings flags ... */
#define LDCACHE_NEW_ENTRY 24u	/* flags, key, value, osversion, hwcap */
#define FLAG_TYPE_MASK 0x00ffu
#define FLAG_ELF 0x0001u
#define FLAG_ELF_LIBC6 0x0003u

/* A library name and the list its candidates go to: the four of struct lib_facts, or those a
 * caller of libs_search asks for (the Level Zero loader, Intel's compute runtime). */
struct family {
	const char *prefix; /* "libcuda.so": matches libcuda.so, libcuda.so.1, libcuda.so.580.1 */
	struct lib_list *list;
};

/* libs_collect's families, in the order of LIBS_FAMILIES's seen[] */
#define NV_FAMILIES(l)                                                                        \
	{                                                                                      \
		{"libcuda.so", &(l)->libcuda}, {"libnvidia-ml.so", &(l)->libnvml},             \
		    {"libcudart.so", &(l)->libcudart}, {"libcudnn.so", &(l)->libcudnn},        \
	}

/* Where the loader looks when neither LD_LIBRARY_PATH nor the cache has the name. */
static const char *const default_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

static bool name_in_family(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(name, prefix, n) == 0 && (name[n] == '\0' || name[n] == '.');
}

/* The loader asks for sonames (libcuda.so.1, libcudart.so.13), so list those first in a
 * folder; the full-version file and the unversioned link for compilers come after. */
static int name_rank(const char *name, const char *prefix)
{
	const char *rest = name + strlen(prefix);

	if (*rest == '\0')
		return 2;
	return strchr(rest + 1, '.') ? 1 : 0;
}

static void dir_of(const char *path, char *out, size_t n)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		str_copy(out, "/", n);
	else
		str_copy(out, path, n < (size_t)(slash - path) + 1 ? n : (size_t)(slash - path) + 1);
}

static bool same_dir(const char *a, const char *b)
{
	char da[512], db[512];

	dir_of(a, da, sizeof(da));
	dir_of(b, db, sizeof(db));
	return strcmp(da, db) == 0;
}

static void add_candidate(struct lib_list *list, const char *name, const char *path,
			  enum lib_source src)
{
	struct lib_candidate *c;
	struct host_stat st;
	char real[512];
	int i;

	if (list->n >= FACTS_MAX_LIBS)
		return;
	if (host_realpath(path, real, sizeof(real)) != 0)
		return; /* a dangling link or a stale cache entry: the loader skips it too */
	for (i = 0; i < list->n; i++) {
		/* the same file met again through the cache, or a second link in one folder */
		if (strcmp(list->v[i].path, path) == 0 ||
		    (strcmp(list->v[i].real, real) == 0 && same_dir(list->v[i].path, path)))
			return;
	}
	c = &list->v[list->n++];
	memset(c, 0, sizeof(*c));
	str_copy(c->name, name, sizeof(c->name));
	str_copy(c->path, path, sizeof(c->path));
	str_copy(c->real, real, sizeof(c->real));
	c->src = src;
	c->stub = strstr(path, "/stubs/") || strstr(real, "/stubs/");
	c->compat = strstr(path, "/compat/") || strstr(real, "/compat/") ||
		    strstr(path, "cuda-compat") || strstr(real, "cuda-compat");
	c->wsl = str_starts(path, "/usr/lib/wsl/") || str_starts(real, "/usr/lib/wsl/");
	/* WSL's driver-store files are named libcuda.so.1.1: an ABI number, not a version */
	if (!c->wsl)
		version_from_soname(real, c->version, sizeof(c->version));
	c->size = host_stat(real, &st) == 0 ? st.size : -1;
}

/* Every candidate of every family in one folder, sonames first. */
static void scan_dir(const struct family *fams, size_t nfams, const char *dir,
		     enum lib_source src, bool *want)
{
	char **names;
	size_t n, i, f;
	int rank;

	if (host_list(dir, &names, &n) != 0)
		return;
	for (f = 0; f < nfams; f++) {
		if (want && !want[f])
			continue;
		for (rank = 0; rank <= 2; rank++) {
			for (i = 0; i < n; i++) {
				char path[512];

				if (!name_in_family(names[i], fams[f].prefix) ||
				    name_rank(names[i], fams[f].prefix) != rank)
					continue;
				str_fmt(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "",
					names[i]);
				add_candidate(fams[f].list, names[i], path, src);
			}
		}
	}
	host_list_free(names, n);
}

static void scan_ld_library_path(const struct family *fams, size_t nfams, const char *llp)
{
	char copy[2048];
	char *tok, *save = NULL;

	str_copy(copy, llp, sizeof(copy));
	for (tok = strtok_r(copy, ":;", &save); tok; tok = strtok_r(NULL, ":;", &save)) {
		char dir[512];

		/* relative entries depend on the program's working folder: not ours to guess */
		if (tok[0] != '/')
			continue;
		str_copy(dir, tok, sizeof(dir));
		while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
			dir[strlen(dir) - 1] = '\0';
		scan_dir(fams, nfams, dir, LIBSRC_LD_LIBRARY_PATH, NULL);
	}
}

/* ---- /etc/ld.so.cache ------------------------------------------------------------------- */

struct ldcache {
	const unsigned char *buf;
	size_t len;
	bool big_endian;
	uint32_t want_flags; /* the exact flags this machine's loader accepts, 0 for any libc6 */
	const struct family *fams;
	size_t nfams;
	bool *seen; /* [nfams]: the cache names this family (listed or not) */
};

static uint32_t rd32(const struct ldcache *c, size_t off)
{
	const unsigned char *p = c->buf + off;

	if (c->big_endian)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* The NUL-terminated string at base+off, or NULL when it runs past the end of the file. */
static const char *cache_string(const struct ldcache *c, size_t base, uint32_t off)
{
	size_t at;

	if (base > c->len || off >= c->len - base)
		return NULL;
	at = base + off;
	if (!memchr(c->buf + at, '\0', c->len - at))
		return NULL;
	return (const char *)c->buf + at;
}

static bool flags_fit(const struct ldcache *c, uint32_t flags)
{
	if (c->want_flags)
		return flags == c->want_flags;
	return (flags & FLAG_TYPE_MASK) == FLAG_ELF_LIBC6 || (flags & FLAG_TYPE_MASK) == FLAG_ELF;
}

static void cache_entry(struct ldcache *c, size_t strbase,
			uint32_t flags, uint32_t key_off, uint32_t value_off)
{
	const char *key, *value;
	size_t f;

	if (!flags_fit(c, flags))
		return;
	key = cache_string(c, strbase, key_off);
	value = cache_string(c, strbase, value_off);
	if (!key || !value || value[0] != '/')
		return;
	for (f = 0; f < c->nfams; f++) {
		if (!name_in_family(key, c->fams[f].prefix))
			continue;
		c->seen[f] = true;
		add_candidate(c->fams[f].list, key, value, LIBSRC_LDCACHE);
	}
}

/* The new format, whose header starts at off; strings are relative to that header. */
static int parse_new(struct ldcache *c, size_t off)
{
	uint32_t nlibs, i;
	unsigned char order;

	if (off > c->len || c->len - off < LDCACHE_NEW_HEADER ||
	    memcmp(c->buf + off, LDCACHE_NEW_MAGIC, strlen(LDCACHE_NEW_MAGIC)) != 0)
		return -1;
	/* flags byte: 0 unknown (assume ours), 1 invalid, 2 little endian, 3 big endian */
	order = c->buf[off + 28];
	if (order == 1 || order > 3)
		return -1;
	c->big_endian = order == 3;
	nlibs = rd32(c, off + 20);
	if (nlibs > (c->len - off - LDCACHE_NEW_HEADER) / LDCACHE_NEW_ENTRY)
		return -1;
	for (i = 0; i < nlibs; i++) {
		size_t e = off + LDCACHE_NEW_HEADER + (size_t)i * LDCACHE_NEW_ENTRY;

		cache_entry(c, off, rd32(c, e), rd32(c, e + 4), rd32(c, e + 8));
	}
	return 0;
}

/* The old format alone, or followed by the new one (glibc before 2.32 wrote both). */
static int parse_old(struct ldcache *c)
{
	uint32_t nlibs, i;
	size_t end, newoff;

	if (c->len < LDCACHE_OLD_HEADER ||
	    memcmp(c->buf, LDCACHE_OLD_MAGIC, strlen(LDCACHE_OLD_MAGIC)) != 0)
		return -1;
	nlibs = rd32(c, 12);
	if (nlibs > (c->len - LDCACHE_OLD_HEADER) / LDCACHE_OLD_ENTRY)
		return -1;
	end = LDCACHE_OLD_HEADER + (size_t)nlibs * LDCACHE_OLD_ENTRY;
	/* the new header follows, aligned like struct cache_file_new (8 bytes) */
	newoff = (end + 7) & ~(size_t)7;
	if (parse_new(c, newoff) == 0)
		return 0;
	c->big_endian = false;
	for (i = 0; i < nlibs; i++) {
		size_t e = LDCACHE_OLD_HEADER + (size_t)i * LDCACHE_OLD_ENTRY;

		/* old-format strings are relative to the end of the entry table */
		cache_entry(c, end, rd32(c, e), rd32(c, e + 4), rd32(c, e + 8));
	}
	return 0;
}

static uint32_t loader_flags(void)
{
	struct host_uname un;

	if (host_uname(&un) != 0)
		return 0;
	/* _DL_CACHE_DEFAULT_ID of each 64-bit port: FLAG_ELF_LIBC6 | FLAG_<ARCH>_LIB64 */
	if (strcmp(un.machine, "x86_64") == 0)
		return 0x0303;
	if (strcmp(un.machine, "aarch64") == 0)
		return 0x0a03;
	if (strcmp(un.machine, "ppc64le") == 0)
		return 0x0503;
	return 0;
}

/* Fill c's lists from the cache in buf; false when buf is no cache. */
static bool parse_cache(struct ldcache *c, const unsigned char *buf, size_t len,
			uint32_t want_flags)
{
	c->buf = buf;
	c->len = len;
	c->want_flags = want_flags;
	return parse_new(c, 0) == 0 || parse_old(c) == 0;
}

bool libs_parse_ldcache(struct lib_facts *l, const unsigned char *buf, size_t len,
			uint32_t want_flags, bool seen[LIBS_FAMILIES])
{
	const struct family fams[] = NV_FAMILIES(l);
	struct ldcache c;

	_Static_assert(ARRAY_SIZE(fams) == LIBS_FAMILIES, "facts.h: LIBS_FAMILIES");
	memset(&c, 0, sizeof(c));
	memset(seen, 0, LIBS_FAMILIES * sizeof(*seen));
	c.fams = fams;
	c.nfams = ARRAY_SIZE(fams);
	c.seen = seen;
	return parse_cache(&c, buf, len, want_flags);
}

/* Cache entries in cache order; seen[f] tells whether the cache knows family f at all.
 * Returns whether the file was a cache. */
static bool scan_ldcache(const struct family *fams, size_t nfams, bool *seen)
{
	size_t len = 0;
	int rc = 0;
	unsigned char *buf = (unsigned char *)host_read("/etc/ld.so.cache", LDCACHE_MAX_BYTES,
							 &len, &rc);
	struct ldcache c;
	bool ok;

	if (!buf)
		return false;
	memset(&c, 0, sizeof(c));
	c.fams = fams;
	c.nfams = nfams;
	c.seen = seen;
	ok = parse_cache(&c, buf, len, loader_flags());
	free(buf);
	return ok;
}

/* The loader's search for every family: LD_LIBRARY_PATH, the cache, then the default folders
 * for the names the cache does not know. Returns whether the cache was read. */
static bool search(const struct family *fams, size_t nfams, const char *llp)
{
	bool *want = xcalloc(nfams, sizeof(*want)), *seen = xcalloc(nfams, sizeof(*seen));
	char real[ARRAY_SIZE(default_dirs)][256];
	size_t f, d;
	bool any = false, cache_read;

	scan_ld_library_path(fams, nfams, llp);
	cache_read = scan_ldcache(fams, nfams, seen);
	/* the default folders matter only for names the cache does not know */
	for (f = 0; f < nfams; f++) {
		want[f] = !seen[f];
		any |= want[f];
	}
	for (d = 0; any && d < ARRAY_SIZE(default_dirs); d++) {
		size_t k;

		/* merged /usr: /lib and /usr/lib are one folder; scan it once */
		real[d][0] = '\0';
		if (host_realpath(default_dirs[d], real[d], sizeof(real[d])) != 0) {
			real[d][0] = '\0';
			continue;
		}
		for (k = 0; k < d; k++)
			if (strcmp(real[k], real[d]) == 0)
				break;
		if (k == d)
			scan_dir(fams, nfams, default_dirs[d], LIBSRC_DEFAULT_DIR, want);
	}
	free(want);
	free(seen);
	return cache_read;
}

void libs_collect(struct lib_facts *l, const struct env_facts *env)
{
	const char *llp = host_getenv("LD_LIBRARY_PATH");

	(void)env; /* LD_LIBRARY_PATH is not among the env facts: read it here */
	memset(l, 0, sizeof(*l));
	str_copy(l->ld_library_path, llp ? llp : "", sizeof(l->ld_library_path));
	{
		const struct family fams[] = NV_FAMILIES(l);

		l->ldcache_read = search(fams, ARRAY_SIZE(fams), l->ld_library_path);
	}
}

void libs_search(const char *const *names, struct lib_list *lists, size_t n)
{
	struct family *fams = xcalloc(n ? n : 1, sizeof(*fams));
	const char *llp = host_getenv("LD_LIBRARY_PATH");
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&lists[i], 0, sizeof(lists[i]));
		fams[i].prefix = names[i];
		fams[i].list = &lists[i];
	}
	search(fams, n, llp ? llp : "");
	free(fams);
}
