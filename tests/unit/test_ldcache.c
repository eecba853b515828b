/*
 * test_ldcache.c: host/libs.c reading /etc/ld.so.cache: the new format, the old format, the
 * old-then-new layout older glibcs wrote, the architecture filter, and garbage: truncated,
 * bit-flipped and random caches must never make it read outside the file (run under ASan by
 * `make asan`).
 */
#include <stdlib.h>

#include "fakeroot.h"
#include "host/facts.h"
#include "ldcache_gen.h"
#include "test.h"
#include "util/util.h"

static const struct ldc_entry sample[] = {
	{"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", 0x0303},
	{"libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", 0x0303},
	{"libcudart.so.12", "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12", 0x0303},
	{"libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", 0x0303},
	{"libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1", 0x0303},
	/* a 32-bit copy: the 64-bit loader never takes it */
	{"libcuda.so.1", "/usr/lib/i386-linux-gnu/libcuda.so.1", 0x0003},
};

/* The files the sample cache points at. */
static char *sample_root(void)
{
	char *root = fr_new();

	fr_file(root, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "elf");
	fr_link(root, "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.550.54.15");
	fr_file(root, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15", "elf");
	fr_link(root, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "libnvidia-ml.so.550.54.15");
	fr_file(root, "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127", "elf");
	fr_link(root, "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12",
		"libcudart.so.12.4.127");
	fr_file(root, "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0", "elf");
	fr_link(root, "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "libcudnn.so.9.1.0");
	fr_file(root, "/usr/lib/x86_64-linux-gnu/libz.so.1", "elf");
	fr_file(root, "/usr/lib/i386-linux-gnu/libcuda.so.1", "elf");
	fr_facts(root, "uname machine x86_64\n");
	return root;
}

static void collect(struct lib_facts *l)
{
	struct env_facts env;

	memset(&env, 0, sizeof(env));
	libs_collect(l, &env);
}

static void check_sample(const struct lib_facts *l)
{
	CHECK(l->ldcache_read);
	CHECK(l->libcuda.n == 1);
	CHECK_STR(l->libcuda.v[0].name, "libcuda.so.1");
	CHECK_STR(l->libcuda.v[0].path, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	CHECK_STR(l->libcuda.v[0].real, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15");
	CHECK_STR(l->libcuda.v[0].version, "550.54.15");
	CHECK(l->libcuda.v[0].src == LIBSRC_LDCACHE);
	CHECK(l->libcuda.v[0].size == 3);
	CHECK(l->libnvml.n == 1);
	CHECK_STR(l->libnvml.v[0].version, "550.54.15");
	CHECK(l->libcudart.n == 1);
	CHECK_STR(l->libcudart.v[0].version, "12.4.127");
	CHECK(l->libcudnn.n == 1);
	CHECK_STR(l->libcudnn.v[0].version, "9.1.0");
}

/* The sample cache in one layout; spoil_old breaks the old entries' string offsets, so only
 * the new table that follows them can give the right answer. */
static void read_layout(enum ldc_format fmt, bool spoil_old)
{
	unsigned char buf[8192];
	size_t n = ldc_build(buf, sizeof(buf), fmt, sample, (int)ARRAY_SIZE(sample));
	char *root = sample_root();
	struct lib_facts l;

	CHECK(n > 0);
	if (spoil_old)
		memset(buf + 16, 0xff, ARRAY_SIZE(sample) * 12);
	fr_bytes(root, "/etc/ld.so.cache", buf, n);
	fr_use(root);
	collect(&l);
	check_sample(&l);
	fr_free(root);
}

static void new_format(void)
{
	read_layout(LDC_NEW, false);
}

static void old_format(void)
{
	read_layout(LDC_OLD, false);
}

static void old_then_new(void)
{
	read_layout(LDC_COMPAT, true);
}

static void other_arch_kept_when_machine_unknown(void)
{
	unsigned char buf[4096];
	size_t n = ldc_build(buf, sizeof(buf), LDC_NEW, sample, (int)ARRAY_SIZE(sample));
	char *root = fr_new();
	struct lib_facts l;

	fr_file(root, "/usr/lib/i386-linux-gnu/libcuda.so.1", "elf");
	fr_facts(root, "# no uname: the filter falls back to any libc6 entry\n");
	fr_bytes(root, "/etc/ld.so.cache", buf, n);
	fr_use(root);
	collect(&l);
	CHECK(l.ldcache_read);
	CHECK(l.libcuda.n == 1);
	CHECK_STR(l.libcuda.v[0].path, "/usr/lib/i386-linux-gnu/libcuda.so.1");
	fr_free(root);
}

static void not_a_cache(void)
{
	char *root = sample_root();
	struct lib_facts l;

	fr_file(root, "/etc/ld.so.cache", "this is not a cache at all, just text\n");
	fr_use(root);
	collect(&l);
	CHECK(!l.ldcache_read);
	CHECK(l.libcuda.n == 0 || l.libcuda.v[0].src != LIBSRC_LDCACHE);
	fr_free(root);
}

static void counts_past_the_end_are_refused(void)
{
	unsigned char buf[4096];
	size_t n = ldc_build(buf, sizeof(buf), LDC_NEW, sample, (int)ARRAY_SIZE(sample));
	char *root = sample_root();
	struct lib_facts l;

	/* nlibs = 0x7fffffff: entries would run far past the file */
	ldc_put32(buf + 20, 0x7fffffff);
	fr_bytes(root, "/etc/ld.so.cache", buf, n);
	fr_use(root);
	collect(&l);
	CHECK(!l.ldcache_read);
	fr_free(root);
}

static void strings_past_the_end_are_skipped(void)
{
	unsigned char buf[4096];
	size_t n = ldc_build(buf, sizeof(buf), LDC_NEW, sample, (int)ARRAY_SIZE(sample));
	char *root = sample_root();
	struct lib_facts l;

	ldc_put32(buf + 48 + 4, 0xfffffff0);  /* entry 0 key: far outside */
	ldc_put32(buf + 48 + 24 + 8, (uint32_t)n - 1); /* entry 1 value: the last byte */
	buf[n - 1] = 'x';			       /* ... and no NUL after it */
	fr_bytes(root, "/etc/ld.so.cache", buf, n);
	fr_use(root);
	collect(&l);
	CHECK(l.ldcache_read);
	/* what the cache lost, the loader (and the collector) finds in the default folders */
	CHECK(l.libcuda.n == 1 && l.libcuda.v[0].src == LIBSRC_DEFAULT_DIR);
	CHECK(l.libnvml.n == 1 && l.libnvml.v[0].src == LIBSRC_DEFAULT_DIR);
	CHECK(l.libcudart.n == 1 && l.libcudart.v[0].src == LIBSRC_LDCACHE);
	fr_free(root);
}

/* Every prefix of a valid cache, in all three layouts: no crash, no read past the end. */
static void truncated_everywhere(void)
{
	static const enum ldc_format fmts[] = {LDC_NEW, LDC_OLD, LDC_COMPAT};
	unsigned char buf[8192];
	char *root = sample_root();
	size_t f, n, cut;
	int full_ok = 0, short_refused = 0;

	fr_use(root);
	for (f = 0; f < ARRAY_SIZE(fmts); f++) {
		n = ldc_build(buf, sizeof(buf), fmts[f], sample, (int)ARRAY_SIZE(sample));
		CHECK(n > 0);
		for (cut = 0; cut <= n; cut++) {
			struct lib_facts l;

			fr_bytes(root, "/etc/ld.so.cache", buf, cut);
			collect(&l);
			if (cut == n && l.ldcache_read && l.libcuda.n == 1)
				full_ok++;
			if (cut < 16 && !l.ldcache_read)
				short_refused++;
		}
	}
	CHECK(full_ok == 3);
	CHECK(short_refused == 3 * 16);
	fr_free(root);
}

static uint32_t xorshift(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Random corruption of valid caches, and pure noise behind a valid magic. */
static void random_garbage(void)
{
	unsigned char good[8192], buf[8192];
	char *root = sample_root();
	uint32_t seed = 0x9e3779b9;
	int iter, parsed = 0;

	fr_use(root);
	for (iter = 0; iter < 3000; iter++) {
		enum ldc_format fmt = (enum ldc_format)(iter % 3);
		size_t n = ldc_build(good, sizeof(good), fmt, sample, (int)ARRAY_SIZE(sample));
		struct lib_facts l;
		int flips, k;

		memcpy(buf, good, n);
		if (iter % 10 == 9) {
			/* noise after a valid header magic */
			for (k = 20; k < (int)n; k++)
				buf[k] = (unsigned char)xorshift(&seed);
		} else {
			flips = 1 + (int)(xorshift(&seed) % 8);
			for (k = 0; k < flips; k++) {
				/* favour the headers and entry tables, where offsets live */
				size_t at = xorshift(&seed) % (k % 2 ? n : (n < 200 ? n : 200));

				buf[at] = (unsigned char)xorshift(&seed);
			}
		}
		n = xorshift(&seed) % 4 == 0 ? xorshift(&seed) % (n + 1) : n;
		fr_bytes(root, "/etc/ld.so.cache", buf, n);
		collect(&l);
		parsed += l.ldcache_read;
		for (k = 0; k < l.libcuda.n; k++) {
			CHECK(l.libcuda.v[k].path[0] == '/');
			CHECK(strlen(l.libcuda.v[k].path) < sizeof(l.libcuda.v[k].path));
		}
	}
	/* most single flips leave a readable cache: the parser is not just refusing everything */
	CHECK(parsed > 300);
	fr_free(root);
}

int main(void)
{
	RUN(new_format);
	RUN(old_format);
	RUN(old_then_new);
	RUN(other_arch_kept_when_machine_unknown);
	RUN(not_a_cache);
	RUN(counts_past_the_end_are_refused);
	RUN(strings_past_the_end_are_skipped);
	RUN(truncated_everywhere);
	RUN(random_garbage);
	return TEST_DONE();
}
