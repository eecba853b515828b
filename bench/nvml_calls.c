/*
 * nvml_calls.c: the cost of each NVML query a `gpuvet status` line needs, the first time a
 * process makes it and the second time, on GPU 0, in the order given. On the H200s the first
 * call into each part of the driver costs milliseconds (a round trip to the GPU's firmware)
 * and the next ones microseconds: this says which queries a one-shot command should avoid.
 *
 * Build: gcc -O2 -o nvml_calls bench/nvml_calls.c -ldl
 * Usage: nvml_calls [NAME...]: NAMEs from the list it prints with no arguments; one line each:
 * "NAME first_us second_us rc".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef int (*fn_t)();
static void *lib, *dev;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static fn_t sym(const char *name)
{
	return (fn_t)dlsym(lib, name);
}

struct field { unsigned id, scope; long long ts, lat; int type, ret; unsigned long long v; };

static int call(const char *what)
{
	unsigned char buf[512];
	unsigned u = 0;
	int a = 0, b = 0;
	unsigned long long ull = 0;
	struct field fv[3];

	memset(buf, 0, sizeof(buf));
	if (!strcmp(what, "name")) return sym("nvmlDeviceGetName")(dev, buf, 96);
	if (!strcmp(what, "uuid")) return sym("nvmlDeviceGetUUID")(dev, buf, 96);
	if (!strcmp(what, "pci")) return sym("nvmlDeviceGetPciInfo_v3")(dev, buf);
	if (!strcmp(what, "memory")) {
		*(unsigned *)buf = 40 | 2u << 24;
		return sym("nvmlDeviceGetMemoryInfo_v2")(dev, buf);
	}
	if (!strcmp(what, "util")) return sym("nvmlDeviceGetUtilizationRates")(dev, buf);
	if (!strcmp(what, "temp")) return sym("nvmlDeviceGetTemperature")(dev, 0, &u);
	if (!strcmp(what, "margin")) {
		*(unsigned *)buf = 8 | 1u << 24;
		return sym("nvmlDeviceGetMarginTemperature")(dev, buf);
	}
	if (!strcmp(what, "power")) return sym("nvmlDeviceGetPowerUsage")(dev, &u);
	if (!strcmp(what, "limit")) return sym("nvmlDeviceGetPowerManagementLimit")(dev, &u);
	if (!strcmp(what, "enforced")) return sym("nvmlDeviceGetEnforcedPowerLimit")(dev, &u);
	if (!strcmp(what, "clock")) return sym("nvmlDeviceGetClockInfo")(dev, 1, &u);
	if (!strcmp(what, "events")) return sym("nvmlDeviceGetCurrentClocksEventReasons")(dev, &ull);
	if (!strcmp(what, "gen")) return sym("nvmlDeviceGetCurrPcieLinkGeneration")(dev, &u);
	if (!strcmp(what, "width")) return sym("nvmlDeviceGetCurrPcieLinkWidth")(dev, &u);
	if (!strcmp(what, "genmax")) return sym("nvmlDeviceGetMaxPcieLinkGeneration")(dev, &u);
	if (!strcmp(what, "widthmax")) return sym("nvmlDeviceGetMaxPcieLinkWidth")(dev, &u);
	if (!strcmp(what, "eccmode")) return sym("nvmlDeviceGetEccMode")(dev, &a, &b);
	if (!strcmp(what, "eccvol")) return sym("nvmlDeviceGetTotalEccErrors")(dev, 1, 0, &ull);
	if (!strcmp(what, "fields")) {
		memset(fv, 0, sizeof(fv));
		fv[0].id = 1; fv[1].id = 4; fv[2].id = 190;
		return sym("nvmlDeviceGetFieldValues")(dev, 3, fv);
	}
	if (!strcmp(what, "f_eccmode") || !strcmp(what, "f_dbe") || !strcmp(what, "f_limit")) {
		memset(fv, 0, sizeof(fv));
		fv[0].id = what[2] == 'e' ? 1 : what[2] == 'd' ? 4 : 190;
		return sym("nvmlDeviceGetFieldValues")(dev, 1, fv);
	}
	return -1;
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		puts("name uuid pci memory util temp margin power limit enforced clock events gen width "
		     "genmax widthmax eccmode eccvol fields f_eccmode f_dbe f_limit");
		return 0;
	}
	lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	if (!lib || sym("nvmlInit_v2")() != 0 || sym("nvmlDeviceGetHandleByIndex_v2")(0, &dev) != 0) {
		fprintf(stderr, "nvml_calls: no NVML or no GPU 0\n");
		return 1;
	}
	for (i = 1; i < argc; i++) {
		double t0 = now_us(), t1, t2;
		int rc = call(argv[i]);

		t1 = now_us();
		call(argv[i]);
		t2 = now_us();
		printf("%-10s first %8.1f us  second %7.1f us  rc %d\n", argv[i], t1 - t0, t2 - t1, rc);
	}
	return 0;
}
