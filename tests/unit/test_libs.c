/*
 * test_libs.c: host/libs.c listing driver and runtime libraries in the loader's order:
 * LD_LIBRARY_PATH, then the cache, then default folders; stubs, forward-compatibility copies,
 * WSL's driver store, dangling links, merged /usr.
 */
#include <stdlib.h>

#include "fakeroot.h"
#include "host/facts.h"
#include "ldcache_gen.h"
#include "test.h"
#include "util/util.h"

static void write_cache(const char *root, const struct ldc_entry *e, int n)
{
	unsigned char buf[8192];
	size_t len = ldc_build(buf, sizeof(buf), LDC_NEW, e, n);

	fr_bytes(root, "/etc/ld.so.cache", buf, len);
}

static void collect(struct lib_facts *l)
{
	struct env_facts env;

	memset(&env, 0, sizeof(env));
	libs_collect(l, &env);
}

/* A driver's user-space files in dir, as the installer lays them out. */
static void driver_files(const char *root, const char *dir, const char *ver)
{
	char path[512], target[128];

	snprintf(path, sizeof(path), "%s/libcuda.so.%s", dir, ver);
	fr_file(root, path, "a real libcuda, tens of MB on a real machine");
	snprintf(target, sizeof(target), "libcuda.so.%s", ver);
	snprintf(path, sizeof(path), "%s/libcuda.so.1", dir);
	fr_link(root, path, target);
	snprintf(path, sizeof(path), "%s/libcuda.so", dir);
	fr_link(root, path, "libcuda.so.1");
	snprintf(path, sizeof(path), "%s/libnvidia-ml.so.%s", dir, ver);
	fr_file(root, path, "nvml");
	snprintf(target, sizeof(target), "libnvidia-ml.so.%s", ver);
	snprintf(path, sizeof(path), "%s/libnvidia-ml.so.1", dir);
	fr_link(root, path, target);
}

/* The H200 container: LD_LIBRARY_PATH names the driver folder the cache also lists. */
static void h200_layout(void)
{
	static const struct ldc_entry cache[] = {
		{"libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1", 0x0303},
		{"libcuda.so.1", "/lib/libcuda.so.1", 0x0303},
		{"libcuda.so", "/usr/local/nvidia/lib64/libcuda.so", 0x0303},
		{"libnvidia-ml.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1", 0x0303},
		{"libcudart.so.13", "/usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.13",
		 0x0303},
		{"libcudnn.so.9", "/lib/x86_64-linux-gnu/libcudnn.so.9", 0x0303},
	};
	char *root = fr_new();
	struct lib_facts l;

	driver_files(root, "/usr/local/nvidia/lib64", "580.159.04");
	driver_files(root, "/lib", "580.159.04");
	fr_dir(root, "/usr/local/nvidia/lib");
	fr_file(root, "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.96", "rt");
	fr_link(root, "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13",
		"libcudart.so.13.0.96");
	fr_link(root, "/usr/local/cuda", "/etc/alternatives/cuda");
	fr_link(root, "/etc/alternatives/cuda", "/usr/local/cuda-13.0");
	fr_file(root, "/lib/x86_64-linux-gnu/libcudnn.so.9.14.0", "dnn");
	fr_link(root, "/lib/x86_64-linux-gnu/libcudnn.so.9", "libcudnn.so.9.14.0");
	/* a default folder the loader never reaches, because the cache knows libcuda */
	driver_files(root, "/usr/lib64", "470.1.1");
	write_cache(root, cache, (int)ARRAY_SIZE(cache));
	fr_facts(root, "env LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/nvidia/lib\n"
		       "uname machine x86_64\n");
	fr_use(root);
	collect(&l);
	CHECK(l.ldcache_read);
	CHECK_STR(l.ld_library_path, "/usr/local/nvidia/lib64:/usr/local/nvidia/lib");
	/* LD_LIBRARY_PATH first, the soname first in its folder; the copies in that folder
	 * (libcuda.so, the full-version file) are one file and listed once */
	CHECK(l.libcuda.n == 2);
	CHECK_STR(l.libcuda.v[0].name, "libcuda.so.1");
	CHECK_STR(l.libcuda.v[0].path, "/usr/local/nvidia/lib64/libcuda.so.1");
	CHECK_STR(l.libcuda.v[0].real, "/usr/local/nvidia/lib64/libcuda.so.580.159.04");
	CHECK_STR(l.libcuda.v[0].version, "580.159.04");
	CHECK(l.libcuda.v[0].src == LIBSRC_LD_LIBRARY_PATH);
	CHECK(!l.libcuda.v[0].stub && !l.libcuda.v[0].compat && !l.libcuda.v[0].wsl);
	CHECK(l.libcuda.v[0].size > 20);
	CHECK_STR(l.libcuda.v[1].path, "/lib/libcuda.so.1");
	CHECK(l.libcuda.v[1].src == LIBSRC_LDCACHE);
	CHECK(l.libnvml.n == 1);
	CHECK_STR(l.libnvml.v[0].version, "580.159.04");
	CHECK(l.libcudart.n == 1);
	CHECK_STR(l.libcudart.v[0].real,
		  "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.96");
	CHECK_STR(l.libcudart.v[0].version, "13.0.96");
	CHECK(l.libcudnn.n == 1);
	CHECK_STR(l.libcudnn.v[0].version, "9.14.0");
	fr_free(root);
}

static void stub_on_ld_library_path(void)
{
	static const struct ldc_entry cache[] = {
		{"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", 0x0303},
	};
	char *root = fr_new();
	struct lib_facts l;

	fr_file(root, "/usr/local/cuda-12.4/lib64/stubs/libcuda.so", "stub");
	fr_link(root, "/usr/local/cuda-12.4/lib64/stubs/libcuda.so.1", "libcuda.so");
	fr_link(root, "/usr/local/cuda", "cuda-12.4");
	driver_files(root, "/usr/lib/x86_64-linux-gnu", "550.54.15");
	write_cache(root, cache, 1);
	fr_facts(root, "env LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs/::relative/lib\n"
		       "uname machine x86_64\n");
	fr_use(root);
	collect(&l);
	CHECK(l.libcuda.n == 2);
	CHECK_STR(l.libcuda.v[0].path, "/usr/local/cuda/lib64/stubs/libcuda.so.1");
	CHECK_STR(l.libcuda.v[0].real, "/usr/local/cuda-12.4/lib64/stubs/libcuda.so");
	CHECK(l.libcuda.v[0].stub);
	CHECK_STR(l.libcuda.v[0].version, "");
	CHECK(l.libcuda.v[0].size == 4);
	CHECK(!l.libcuda.v[1].stub);
	CHECK_STR(l.libcuda.v[1].version, "550.54.15");
	fr_free(root);
}

static void compat_and_wsl(void)
{
	static const struct ldc_entry cache[] = {
		{"libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1", 0x0303},
		{"libnvidia-ml.so.1", "/usr/lib/wsl/lib/libnvidia-ml.so.1", 0x0303},
	};
	char *root = fr_new();
	struct lib_facts l;

	fr_file(root, "/usr/local/cuda-12.8/compat/libcuda.so.570.124.06", "compat");
	fr_link(root, "/usr/local/cuda-12.8/compat/libcuda.so.1", "libcuda.so.570.124.06");
	/* WSL: the files sit in the Windows driver store, named libcuda.so.1.1 */
	fr_file(root, "/usr/lib/wsl/drivers/nv.inf_amd64_1/libcuda.so.1.1", "wsl");
	fr_link(root, "/usr/lib/wsl/lib/libcuda.so.1",
		"/usr/lib/wsl/drivers/nv.inf_amd64_1/libcuda.so.1.1");
	fr_file(root, "/usr/lib/wsl/lib/libnvidia-ml.so.1", "wsl");
	write_cache(root, cache, (int)ARRAY_SIZE(cache));
	fr_facts(root, "env LD_LIBRARY_PATH=/usr/local/cuda-12.8/compat\nuname machine x86_64\n");
	fr_use(root);
	collect(&l);
	CHECK(l.libcuda.n == 2);
	CHECK(l.libcuda.v[0].compat);
	CHECK_STR(l.libcuda.v[0].version, "570.124.06");
	CHECK(l.libcuda.v[1].wsl && !l.libcuda.v[1].compat);
	CHECK_STR(l.libcuda.v[1].version, ""); /* "1.1" is not a driver version */
	CHECK(l.libnvml.n == 1 && l.libnvml.v[0].wsl);
	fr_free(root);
}

static void no_cache_default_dirs_once(void)
{
	char *root = fr_new();
	struct lib_facts l;

	/* merged /usr: /lib is a link to usr/lib, so /lib/x86_64-linux-gnu is the same folder */
	driver_files(root, "/usr/lib/x86_64-linux-gnu", "535.183.01");
	fr_link(root, "/lib", "usr/lib");
	/* a dangling link is skipped, as the loader skips it */
	fr_link(root, "/usr/lib64/libcudart.so.12", "libcudart.so.12.2.140");
	fr_facts(root, "uname machine x86_64\n");
	fr_use(root);
	collect(&l);
	CHECK(!l.ldcache_read);
	CHECK(l.libcuda.n == 1);
	CHECK(l.libcuda.v[0].src == LIBSRC_DEFAULT_DIR);
	CHECK_STR(l.libcuda.v[0].path, "/lib/x86_64-linux-gnu/libcuda.so.1");
	CHECK_STR(l.libcuda.v[0].version, "535.183.01");
	CHECK(l.libnvml.n == 1);
	CHECK(l.libcudart.n == 0);
	fr_free(root);
}

static void nothing_installed(void)
{
	char *root = fr_new();
	struct lib_facts l;

	fr_facts(root, "env HOME=/root\n");
	fr_use(root);
	collect(&l);
	CHECK(!l.ldcache_read);
	CHECK(l.libcuda.n == 0 && l.libnvml.n == 0 && l.libcudart.n == 0 && l.libcudnn.n == 0);
	CHECK_STR(l.ld_library_path, "");
	fr_free(root);
}

static void many_copies_capped(void)
{
	char *root = fr_new();
	struct lib_facts l;
	char dirs[4096] = "env LD_LIBRARY_PATH=";
	int i;

	for (i = 0; i < 40; i++) {
		char dir[64];

		snprintf(dir, sizeof(dir), "/opt/copy%02d", i);
		driver_files(root, dir, "550.54.15");
		str_append(dirs, dir, sizeof(dirs));
		str_append(dirs, ":", sizeof(dirs));
	}
	str_append(dirs, "\n", sizeof(dirs));
	fr_facts(root, dirs);
	fr_use(root);
	collect(&l);
	CHECK(l.libcuda.n == FACTS_MAX_LIBS);
	CHECK_STR(l.libcuda.v[0].path, "/opt/copy00/libcuda.so.1");
	fr_free(root);
}

int main(void)
{
	RUN(h200_layout);
	RUN(stub_on_ld_library_path);
	RUN(compat_and_wsl);
	RUN(no_cache_default_dirs_once);
	RUN(nothing_installed);
	RUN(many_copies_capped);
	return TEST_DONE();
}
