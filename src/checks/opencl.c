/*
 * opencl.c: OpenCL beside CUDA (issue 14): the ICD files under /etc/OpenCL/vendors, each naming
 * a platform's library, and what each platform reports through the ICD loader. A broken ICD (its
 * library missing or refusing to load) is the usual OpenCL failure: clinfo then just shows one
 * platform fewer, and an application sees no device with no word of why.
 *
 * Facts: gpu/opencl.c (cl_collect), real loads on the machine itself, files only under --root;
 * not recorded, so a replay reports nothing here. None of this is a failure: gpuvet's GPU work
 * is CUDA's, and OpenCL is reported for the programs that use it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/quote.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"

static const struct finding_def defs[] = {
    {"opencl.platforms", LAYER_TOOLKIT, "OpenCL platforms and their devices", false},
    {"opencl.no_loader", LAYER_TOOLKIT, "no OpenCL ICD loader", false},
    {"opencl.icd_broken", LAYER_TOOLKIT, "an OpenCL ICD names a library that does not load", false},
    {"opencl.no_platform", LAYER_TOOLKIT, "the OpenCL loader finds no platform", false},
    {"opencl.no_devices", LAYER_TOOLKIT, "an OpenCL platform has no device", false},
    {"opencl.hung", LAYER_TOOLKIT, "an OpenCL ICD or the loader did not answer", false},
};

static void run_opencl(const struct doctor_input *in, struct findings *out);

const struct check check_opencl = {
    .name = "opencl",
    .layer = LAYER_TOOLKIT,
    .run = run_opencl,
    .defs = defs,
    .ndefs = ARRAY_SIZE(defs),
};

/* The Debian package behind the ICD libraries people meet, or NULL. */
static const char *icd_package(const char *library)
{
	static const struct {
		const char *prefix, *package;
	} known[] = {
	    {"libpocl", "pocl-opencl-icd"},
	    {"libnvidia-opencl", "the NVIDIA driver's OpenCL part (nvidia-opencl-icd, or "
				 "libnvidia-compute-<driver branch> on Ubuntu)"},
	    {"libigdrcl", "intel-opencl-icd"},
	    {"libamdocl", "rocm-opencl (or mesa-opencl-icd's rusticl)"},
	    {"libRusticlOpenCL", "mesa-opencl-icd"},
	    {"libMesaOpenCL", "mesa-opencl-icd"},
	};
	const char *base = strrchr(library, '/') ? strrchr(library, '/') + 1 : library;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (strncmp(base, known[i].prefix, strlen(known[i].prefix)) == 0)
			return known[i].package;
	return NULL;
}

static void broken_icd(const struct cl_facts *cl, const struct cl_icd *icd, struct findings *out)
{
	struct finding *f;
	const char *pkg = icd_package(icd->library);
	char *path = xasprintf("%s/%s", cl->vendors_dir, icd->file);
	char *q = quote_shell(path);

	switch (icd->state) {
	case CL_ICD_EMPTY:
		f = finding_add(out, "opencl.icd_broken", SEV_WARN, -1,
				"OpenCL ICD %s names no library", icd->file);
		break;
	case CL_ICD_UNREADABLE:
		f = finding_add(out, "opencl.icd_broken", SEV_WARN, -1,
				"OpenCL ICD %s cannot be read: %s", icd->file, icd->error);
		break;
	case CL_ICD_MISSING:
		f = finding_add(out, "opencl.icd_broken", SEV_WARN, -1,
				"OpenCL ICD %s names %s, which does not exist", icd->file,
				icd->library);
		break;
	default:
		f = finding_add(out, "opencl.icd_broken", SEV_WARN, -1,
				"OpenCL ICD %s names %s, which does not load: %s", icd->file,
				icd->library, icd->error);
		break;
	}
	finding_evidence(f, "%s: %s", path, icd->library[0] ? icd->library : "(empty)");
	if (icd->error[0])
		finding_evidence(f, "dlopen %s: %s", icd->library, icd->error);
	if (pkg)
		finding_fix(
		    f, FIX_ROOT,
		    "install or reinstall %s, which provides %s; or remove the ICD: sudo rm "
		    "%s",
		    pkg, icd->library, q);
	else
		finding_fix(
		    f, FIX_ROOT,
		    "reinstall the package that owns it (dpkg -S %s) so that %s is there, or "
		    "remove the ICD: sudo rm %s",
		    q, icd->library[0] ? icd->library : "its library", q);
	free(q);
	free(path);
}

static void list_platforms(const struct cl_facts *cl, struct findings *out)
{
	struct finding *f;
	int p, d, ndev = 0;

	for (p = 0; p < cl->nplatforms; p++)
		ndev += cl->plat[p].ndevices;
	f = finding_add(out, "opencl.platforms", SEV_INFO, -1,
			"OpenCL: %d platform%s, %d device%s (loader %s)", cl->nplatforms,
			cl->nplatforms == 1 ? "" : "s", ndev, ndev == 1 ? "" : "s",
			cl->loader_path);
	for (p = 0; p < cl->nplatforms; p++) {
		const struct cl_platform_facts *pf = &cl->plat[p];

		finding_evidence(f, "platform %d: %s (%s), %s", p, pf->name, pf->vendor,
				 pf->version);
		for (d = 0; d < pf->ndevices; d++) {
			const struct cl_device_facts *dv = &pf->dev[d];

			finding_evidence(f,
					 "platform %d device %d: %s %s, %s, driver %s, %u compute "
					 "units, %u MHz, %.1f GiB global memory",
					 p, d, dv->type, dv->name, dv->version, dv->driver,
					 dv->compute_units, dv->clock_mhz,
					 (double)dv->global_mem_bytes / (1024.0 * 1024 * 1024));
		}
	}
}

static void run_opencl(const struct doctor_input *in, struct findings *out)
{
	const struct cl_facts *cl = &in->cl;
	int i;

	if (!cl->examined)
		return;
	if (cl->hung) {
		struct finding *f = finding_add(out, "opencl.hung", SEV_WARN, -1,
						"OpenCL did not answer: %s outlived the watchdog's "
						"limit; nothing else of OpenCL "
						"was checked",
						cl->hung_call);

		finding_evidence(f, "%s: no answer within GPUVET_CALL_TIMEOUT_MS (default 20 s)",
				 cl->hung_call);
		finding_fix(
		    f, 0,
		    "An ICD's driver hangs in its start-up: for NVIDIA's, the GPU below is "
		    "the usual cause (see the health and kernel-log layers); run 'clinfo' to "
		    "see which platform hangs, and move its .icd out of /etc/OpenCL/vendors "
		    "until it is fixed");
		return;
	}
	for (i = 0; i < cl->nicds; i++)
		if (cl->icds[i].state != CL_ICD_OK)
			broken_icd(cl, &cl->icds[i], out);
	if (!cl->loader_found) {
		struct finding *f = finding_add(out, "opencl.no_loader", SEV_INFO, -1,
						"OpenCL is off: no ICD loader (libOpenCL.so.1)%s",
						cl->nicds ? ", though ICDs are installed" : "");

		finding_evidence(f, "%s: %s", cl->loader_path, cl->loader_error);
		finding_evidence(f, "%s: %d ICD file%s", cl->vendors_dir, cl->nicds,
				 cl->nicds == 1 ? "" : "s");
		finding_fix(
		    f, FIX_ROOT,
		    "only if a program needs OpenCL: sudo apt-get install ocl-icd-libopencl1 "
		    "(and pocl-opencl-icd for the CPU)");
		return;
	}
	if (!cl->live)
		return; /* a fake root: its files were judged, its platforms cannot be asked */
	if (cl->platforms_rc != 0 || cl->nplatforms == 0) {
		struct finding *f =
		    finding_add(out, "opencl.no_platform", SEV_INFO, -1,
				"OpenCL finds no platform: clGetPlatformIDs: %s (%d)",
				cl->platforms_rc_name ? cl->platforms_rc_name : "CL_SUCCESS",
				(int)cl->platforms_rc);

		finding_evidence(f, "loader: %s", cl->loader_path);
		finding_evidence(f, "%s: %d ICD file%s", cl->vendors_dir, cl->nicds,
				 cl->nicds == 1 ? "" : "s");
		if (cl->nicds == 0)
			finding_fix(
			    f, FIX_ROOT,
			    "only if a program needs OpenCL: install a platform "
			    "(pocl-opencl-icd for the CPU; NVIDIA's comes with the driver)");
		return;
	}
	for (i = 0; i < cl->nplatforms; i++) {
		const struct cl_platform_facts *pf = &cl->plat[i];
		struct finding *f;

		if (pf->ndevices > 0)
			continue;
		f = finding_add(out, "opencl.no_devices", SEV_WARN, -1,
				"OpenCL platform %s has no device: clGetDeviceIDs: %s (%d)",
				pf->name, pf->devices_rc_name, (int)pf->devices_rc);
		finding_evidence(f, "platform %d: %s (%s), %s", i, pf->name, pf->vendor,
				 pf->version);
		finding_fix(f, 0,
			    "NVIDIA's platform sees no GPU when /dev/nvidia* is missing or not "
			    "accessible (see the devices layer above); PoCL sees none when "
			    "POCL_DEVICES names no usable device");
	}
	list_platforms(cl, out);
}
