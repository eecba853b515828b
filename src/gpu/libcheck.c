/*
 * libcheck.c: the "NVML is not usable" message (see libcheck.h).
 */
#include "libcheck.h"

#include <string.h>

#include "fields.h"

/* What the loader tries when GPUVET_NVML_LIBRARY names no file (vendor/nvml.c). */
#define NVML_SONAME "libnvidia-ml.so.1"

int libcheck_nvml(const struct gpu_system *sys, struct err *e)
{
	/* other vendors' GPUs are read without NVML: a machine of those alone needs none */
	if (sys->nsysgpus && (!sys->nvml_lib.loaded || sys->nvml_init.v != 0))
		return 0;
	if (!sys->nvml_lib.loaded) {
		/* the loader keeps the path of a file it opened (a missing symbol) or was told to
		 * open (an override); else it searched for the soname */
		const char *file = sys->nvml_lib.path[0] ? sys->nvml_lib.path : NVML_SONAME;
		const char *why = sys->nvml_lib.error[0] ? sys->nvml_lib.error : "unknown error";

		/* dlerror and the binder often name the file already: say it once */
		if (strstr(why, file))
			err_set(e, EXIT_UNAVAILABLE, "cannot load NVML: %s", why);
		else
			err_set(e, EXIT_UNAVAILABLE, "cannot load NVML '%s': %s", file, why);
		err_hint(e, "run 'gpuvet doctor' to find out why");
		return -1;
	}
	if (sys->nvml_init.v != 0) {
		char eb[96];

		err_set(e, EXIT_UNAVAILABLE, "nvmlInit_v2: %s",
			field_error_text(LIB_NVML, (int)sys->nvml_init.v, eb, sizeof(eb)));
		err_hint(e, "run 'gpuvet doctor' to find out why");
		return -1;
	}
	return 0;
}
