/*
 * test_drmfdinfo.c: DRM clients from fdinfo (gpu/drmfdinfo.c): the keys of amdgpu (old and
 * new memory keys), i915 (busy nanoseconds, local memory) and xe (cycles over total cycles,
 * VRAM) as the kernel's drm-usage-stats.rst lays them out; a file that is no DRM client; and the
 * sweep of a fake /proc: only descriptors that link to /dev/dri are read, a client held by two
 * processes is one, the device filter, a process whose fd folder is not readable counted.
 */
#include <stdlib.h>
#include <string.h>

#include "fakeroot.h"
#include "gpu/drmfdinfo.h"
#include "test.h"
#include "util/util.h"

static const char amd_old[] = "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\n"
			      "drm-client-id:\t7\ndrm-pdev:\t0000:0c:00.0\npasid:\t32770\n"
			      "drm-memory-vram:\t1048576 KiB\ndrm-memory-gtt: \t2048 KiB\n"
			      "drm-memory-cpu: \t0 KiB\ndrm-engine-gfx:\t1000 ns\n"
			      "drm-engine-compute:\t500 ns\ndrm-engine-dec:\t7 ns\n"
			      "drm-engine-enc:\t3 ns\ndrm-engine-dma:\t11 ns\n";

static void amdgpu_keys(void)
{
	struct drm_client c;

	c.pid = 42;
	CHECK(drm_fdinfo_parse(amd_old, &c));
	CHECK(c.pid == 42);
	CHECK_STR(c.driver, "amdgpu");
	CHECK_STR(c.pdev, "0000:0c:00.0");
	CHECK(c.client_id == 7);
	CHECK(c.mem_bytes == 1073741824LL);
	CHECK(c.gtt_bytes == 2097152LL);
	/* gfx and compute are the compute class, summed */
	CHECK(c.has[DRM_CLASS_COMPUTE] && c.busy_ns[DRM_CLASS_COMPUTE] == 1500);
	CHECK(c.busy_ns[DRM_CLASS_DEC] == 7 && c.busy_ns[DRM_CLASS_ENC] == 3);
	CHECK(c.busy_ns[DRM_CLASS_COPY] == 11);
}

static void standard_memory_keys_first(void)
{
	/* kernel 6.13 and later: drm-resident-vram beside amdgpu's own key */
	const char text[] = "drm-driver:\tamdgpu\ndrm-client-id:\t8\ndrm-pdev:\t0000:03:00.0\n"
			    "drm-memory-vram:\t4096 KiB\ndrm-resident-vram:\t8 MiB\n"
			    "drm-resident-gtt:\t1 MiB\n";
	struct drm_client c;

	CHECK(drm_fdinfo_parse(text, &c));
	CHECK(c.mem_bytes == 8LL << 20);
}

static void i915_keys(void)
{
	const char text[] = "drm-driver:\ti915\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t31\n"
			    "drm-total-system0:\t4 KiB\ndrm-resident-local0:\t512 MiB\n"
			    "drm-engine-render:\t900 ns\ndrm-engine-copy:\t10 ns\n"
			    "drm-engine-video:\t20 ns\ndrm-engine-capacity-video:\t2\n"
			    "drm-engine-video-enhance:\t5 ns\n";
	struct drm_client c;

	CHECK(drm_fdinfo_parse(text, &c));
	CHECK(c.mem_bytes == 512LL << 20);
	CHECK(c.busy_ns[DRM_CLASS_COMPUTE] == 900);
	CHECK(c.busy_ns[DRM_CLASS_DEC] == 20); /* video-enhance is not counted */
	CHECK(!c.has[DRM_CLASS_ENC]);
	CHECK(c.gtt_bytes == -1);
}

static void xe_cycles(void)
{
	const char text[] = "drm-driver:\txe\ndrm-client-id:\t12\ndrm-pdev:\t0000:18:00.0\n"
			    "drm-resident-system:\t4096 KiB\ndrm-resident-vram0:\t8388608 KiB\n"
			    "drm-resident-vram1:\t1048576 KiB\n"
			    "drm-cycles-rcs:\t10\ndrm-total-cycles-rcs:\t1000\n"
			    "drm-cycles-ccs:\t700\ndrm-total-cycles-ccs:\t1000\n";
	struct drm_client c;

	CHECK(drm_fdinfo_parse(text, &c));
	CHECK(c.mem_bytes == 9LL << 30); /* both tiles' VRAM, not system memory */
	CHECK(c.has_cycles[DRM_CLASS_COMPUTE] && c.cycles[DRM_CLASS_COMPUTE] == 710);
	CHECK(c.total_cycles[DRM_CLASS_COMPUTE] == 1000);
	CHECK(!c.has[DRM_CLASS_COMPUTE]);
}

static void not_a_client(void)
{
	struct drm_client c;

	CHECK(!drm_fdinfo_parse("pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t1\n", &c));
	CHECK(!drm_fdinfo_parse("", &c));
	CHECK(c.mem_bytes == -1);
}

static void proc_entry(const char *root, const char *pid, const char *fd, const char *target,
		       const char *info)
{
	char path[128];

	str_fmt(path, sizeof(path), "/proc/%s/fd/%s", pid, fd);
	fr_link(root, path, target);
	if (info) {
		str_fmt(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
		fr_file(root, path, info);
	}
}

static void sweep(void)
{
	char *root = fr_new();
	const char *dev0 = "0000:0c:00.0";
	struct drm_client *v = NULL;
	size_t n = 0;
	unsigned unreadable = 0;
	char shared[sizeof(amd_old) + 64];

	/* 100 holds the client; 200 holds it too (forked), and a socket; 300 another GPU's */
	proc_entry(root, "100", "5", "/dev/dri/renderD128", amd_old);
	proc_entry(root, "200", "9", "/dev/dri/renderD128", amd_old);
	proc_entry(root, "200", "3", "socket:[123]", "pos:\t0\n");
	str_copy(shared, amd_old, sizeof(shared));
	memcpy(strstr(shared, "0000:0c"), "0000:22", 7);
	proc_entry(root, "300", "4", "/dev/dri/renderD129", shared);
	fr_dir(root, "/proc/self");
	/* 400's fd folder is another user's */
	fr_dir(root, "/proc/400");
	fr_facts(root, "error /proc/400/fd EACCES\n");
	fr_use(root);
	CHECK(drm_clients_scan(NULL, 0, &v, &n, &unreadable) == 0);
	CHECK(n == 2);
	CHECK(n == 2 && v[0].pid == 100 && !strcmp(v[0].pdev, dev0));
	CHECK(unreadable == 1);
	free(v);
	CHECK(drm_clients_scan(&dev0, 1, &v, &n, NULL) == 0);
	CHECK(n == 1 && v[0].pid == 100);
	free(v);
	host_set_root(NULL, NULL);
	fr_free(root);
}

int main(void)
{
	RUN(amdgpu_keys);
	RUN(standard_memory_keys_first);
	RUN(i915_keys);
	RUN(xe_cycles);
	RUN(not_a_client);
	RUN(sweep);
	return TEST_DONE();
}
