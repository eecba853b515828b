/*
 * test_checks_opencl.c: doctor's OpenCL check (checks/opencl.c) on facts that gpu/opencl.c
 * collects from hand-built roots: ICD files naming a library that is there, one that is not, an
 * empty one, and a root without the ICD loader; and the verdicts on platform lists no machine
 * here has (a platform without devices, no platform). The working case on a real PoCL is
 * tests/cli/opencl.sh.
 */
#include "fakeroot.h"
#include "test.h"

#include "checks/catalog.h"
#include "checks/doctor.h"
#include "util/util.h"

static struct doctor_input in;
static struct findings fs;

static void run_check(void)
{
	findings_free(&fs);
	memset(&fs, 0, sizeof(fs));
	check_find("opencl")->run(&in, &fs);
}

static const struct finding *find_nth(const char *id, int nth)
{
	size_t i;

	for (i = 0; i < fs.n; i++)
		if (strcmp(fs.v[i].def->id, id) == 0 && nth-- == 0)
			return &fs.v[i];
	return NULL;
}

static bool evidence_has(const struct finding *f, const char *text)
{
	int i;

	for (i = 0; f && i < f->nevidence; i++)
		if (strstr(f->evidence[i], text))
			return true;
	return false;
}

/* A root with three ICDs (one good, one naming a missing library, one empty) and no loader. */
static void broken_icds(void)
{
	char *root = fr_new();
	const struct finding *f;

	fr_file(root, "/etc/OpenCL/vendors/pocl.icd", "libpocl.so.2\n");
	fr_file(root, "/usr/lib/x86_64-linux-gnu/libpocl.so.2", "");
	fr_file(root, "/etc/OpenCL/vendors/nvidia.icd", "libnvidia-opencl.so.1\n");
	fr_file(root, "/etc/OpenCL/vendors/vendor.icd", "  /opt/vendor/libvendorcl.so \n");
	fr_file(root, "/etc/OpenCL/vendors/empty.icd", "\n");
	fr_file(root, "/etc/OpenCL/vendors/README", "not an ICD\n");
	fr_use(root);
	cl_collect(&in.cl);
	CHECK(in.cl.examined && !in.cl.live);
	CHECK(in.cl.nicds == 4);
	run_check();
	/* sorted by file name: empty, nvidia, pocl, vendor */
	f = find_nth("opencl.icd_broken", 0);
	CHECK(f && f->sev == SEV_WARN);
	CHECK_STR(f ? f->summary : "", "OpenCL ICD empty.icd names no library");
	f = find_nth("opencl.icd_broken", 1);
	CHECK_STR(f ? f->summary : "",
		  "OpenCL ICD nvidia.icd names libnvidia-opencl.so.1, which does not exist");
	CHECK(f && f->fix && strstr(f->fix, "nvidia-opencl-icd") &&
	      strstr(f->fix, "sudo rm /etc/OpenCL/vendors/nvidia.icd"));
	CHECK(evidence_has(f, "/etc/OpenCL/vendors/nvidia.icd: libnvidia-opencl.so.1"));
	f = find_nth("opencl.icd_broken", 2);
	CHECK_STR(f ? f->summary : "",
		  "OpenCL ICD vendor.icd names /opt/vendor/libvendorcl.so, which does not exist");
	CHECK(f && f->fix && strstr(f->fix, "dpkg -S /etc/OpenCL/vendors/vendor.icd"));
	CHECK(find_nth("opencl.icd_broken", 3) == NULL);
	f = find_nth("opencl.no_loader", 0);
	CHECK(f && f->sev == SEV_INFO);
	CHECK(f && strstr(f->summary, "though ICDs are installed"));
	CHECK(find_nth("opencl.platforms", 0) == NULL);

	/* the library appears: that ICD is fine; with the loader there, no no_loader line */
	fr_file(root, "/opt/vendor/libvendorcl.so", "");
	fr_file(root, "/usr/lib/x86_64-linux-gnu/libOpenCL.so.1", "");
	fr_use(root);
	cl_collect(&in.cl);
	run_check();
	CHECK(find_nth("opencl.icd_broken", 2) == NULL);
	CHECK(find_nth("opencl.no_loader", 0) == NULL);
	CHECK(in.cl.loader_found);
	fr_free(root);
	fr_use("/");
}

/* A replay's machine (a facts file) records no OpenCL: nothing is said about it. */
static void fake_machine_silent(void)
{
	char *root = fr_new();

	fr_file(root, "/etc/OpenCL/vendors/nvidia.icd", "libnvidia-opencl.so.1\n");
	fr_facts(root, "env PATH=/usr/bin\n");
	fr_use(root);
	cl_collect(&in.cl);
	CHECK(!in.cl.examined);
	run_check();
	CHECK(fs.n == 0);
	fr_free(root);
	fr_use("/");
}

/* The platform verdicts, on facts as the live collector fills them. */
static void platform_verdicts(void)
{
	const struct finding *f;

	memset(&in.cl, 0, sizeof(in.cl));
	in.cl.examined = in.cl.live = in.cl.loader_found = true;
	str_copy(in.cl.vendors_dir, "/etc/OpenCL/vendors", sizeof(in.cl.vendors_dir));
	str_copy(in.cl.loader_path, "/usr/lib/libOpenCL.so.1", sizeof(in.cl.loader_path));
	in.cl.platforms_rc = -1001;
	in.cl.platforms_rc_name = "CL_PLATFORM_NOT_FOUND_KHR";
	run_check();
	f = find_nth("opencl.no_platform", 0);
	CHECK(f && f->sev == SEV_INFO && strstr(f->summary, "CL_PLATFORM_NOT_FOUND_KHR (-1001)"));
	CHECK(f && f->fix && strstr(f->fix, "pocl-opencl-icd"));

	in.cl.platforms_rc = 0;
	in.cl.platforms_rc_name = "CL_SUCCESS";
	in.cl.nplatforms = 2;
	str_copy(in.cl.plat[0].name, "NVIDIA CUDA", sizeof(in.cl.plat[0].name));
	in.cl.plat[0].devices_rc = -1;
	in.cl.plat[0].devices_rc_name = "CL_DEVICE_NOT_FOUND";
	str_copy(in.cl.plat[1].name, "Portable Computing Language", sizeof(in.cl.plat[1].name));
	in.cl.plat[1].ndevices = 1;
	str_copy(in.cl.plat[1].dev[0].name, "cpu-x86", sizeof(in.cl.plat[1].dev[0].name));
	in.cl.plat[1].dev[0].type = "CPU";
	in.cl.plat[1].dev[0].compute_units = 8;
	in.cl.plat[1].dev[0].global_mem_bytes = 4ull << 30;
	run_check();
	f = find_nth("opencl.no_devices", 0);
	CHECK(f && f->sev == SEV_WARN);
	CHECK_STR(f ? f->summary : "",
		  "OpenCL platform NVIDIA CUDA has no device: clGetDeviceIDs: CL_DEVICE_NOT_FOUND "
		  "(-1)");
	CHECK(find_nth("opencl.no_devices", 1) == NULL);
	f = find_nth("opencl.platforms", 0);
	CHECK(f && f->sev == SEV_INFO);
	CHECK_STR(f ? f->summary : "",
		  "OpenCL: 2 platforms, 1 device (loader /usr/lib/libOpenCL.so.1)");
	CHECK(evidence_has(f, "platform 1 device 0: CPU cpu-x86, "));
	CHECK(evidence_has(f, "8 compute units"));
	CHECK(evidence_has(f, "4.0 GiB global memory"));
}

int main(void)
{
	RUN(broken_icds);
	RUN(fake_machine_silent);
	RUN(platform_verdicts);
	findings_free(&fs);
	return TEST_DONE();
}
