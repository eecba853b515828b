/*
 * bench_doc.c: the JSON document of `gpuvet bench` (docs/bench.md has the schema): versions of
 * every library that took part, the devices with their peaks and the formulas behind them, the
 * environment that steers NCCL, the results (bench/result_json.c) and the sensor readings.
 * Every output (--json, the table, --html) is rendered from it.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../bench/bench.h"
#include "../bench/cpu.h"
#include "../bench/result_json.h"
#include "../bench/sensors.h"
#include "../kernels/image.h"
#include "../util/util.h"
#include "bench_report.h"
#include "cmd.h"

static json_t *device_json(const struct bench_gpu *g)
{
	json_t *d = json_object(), *pk = json_object(), *tf = json_object(), *fm = json_object();
	double hbm = peak_hbm_bytes(g->mem_clock_mhz, g->bus_width_bits);
	double pcie = peak_pcie_bytes(g->pcie_gen, g->pcie_width);
	double nvl = peak_nvlink_bytes(g->cc_major, g->cc_minor, g->nvlink_links);
	int p;

	json_object_set_new(d, "gpu", json_integer(g->index));
	json_object_set_new(d, "cuda_ordinal", json_integer(g->ordinal));
	json_object_set_new(d, "name", json_string(g->name));
	json_object_set_new(d, "bus_id", json_string(g->bus_id));
	json_object_set_new(d, "cc", json_sprintf("%d.%d", g->cc_major, g->cc_minor));
	json_object_set_new(d, "sm_count", json_integer(g->sm_count));
	json_object_set_new(d, "sm_clock_max_mhz", json_integer(g->clock_mhz));
	json_object_set_new(d, "mem_clock_mhz", json_integer(g->mem_clock_mhz));
	json_object_set_new(d, "bus_width_bits", json_integer(g->bus_width_bits));
	json_object_set_new(d, "l2_bytes", json_integer(g->l2_bytes));
	json_object_set_new(d, "memory_bytes", json_integer((json_int_t)g->mem_total));
	json_object_set_new(d, "copy_engines", json_integer(g->copy_engines));
	if (g->pcie_gen > 0) {
		json_object_set_new(d, "pcie_gen", json_integer(g->pcie_gen));
		json_object_set_new(d, "pcie_width", json_integer(g->pcie_width));
	}
	json_object_set_new(d, "nvlink_links", json_integer(g->nvlink_links));
	if (g->local_cpus[0])
		json_object_set_new(d, "local_cpus", json_string(g->local_cpus));
	if (g->numa_node >= 0)
		json_object_set_new(d, "numa_node", json_integer(g->numa_node));
	if (hbm > 0) {
		json_object_set_new(pk, "hbm_gbs", json_real(hbm / 1e9));
		json_object_set_new(fm, "hbm",
				    json_sprintf("%d MHz x 2 (DDR) x %d bit / 8", g->mem_clock_mhz,
						 g->bus_width_bits));
	}
	if (pcie > 0) {
		json_object_set_new(pk, "pcie_gbs", json_real(pcie / 1e9));
		json_object_set_new(fm, "pcie",
				    json_sprintf("gen %d rate x %d lanes x line code / 8, "
						 "per direction",
						 g->pcie_gen, g->pcie_width));
	}
	if (nvl > 0) {
		json_object_set_new(pk, "nvlink_gbs", json_real(nvl / 1e9));
		json_object_set_new(
		    fm, "nvlink",
		    json_sprintf("%d links x %.4g GB/s per direction", g->nvlink_links,
				 peak_nvlink_link_bytes(g->cc_major, g->cc_minor) / 1e9));
	}
	for (p = 0; p < PREC_COUNT; p++) {
		double fl = peak_flops(g->cc_major, g->cc_minor, g->sm_count, g->clock_mhz, p);

		if (fl > 0)
			json_object_set_new(tf, peak_prec_name(p), json_real(fl / 1e12));
	}
	json_object_set_new(pk, "tflops", tf);
	json_object_set_new(
	    fm, "tflops",
	    json_sprintf("%d SMs x %d MHz x FMA/clock/SM x 2", g->sm_count, g->clock_mhz));
	json_object_set_new(d, "peaks", pk);
	json_object_set_new(d, "peak_formulas", fm);
	return d;
}

json_t *bench_doc_build(const struct bench_doc_in *in, struct bench_env *env, json_t *errors,
			int exit_code)
{
	json_t *doc = json_object(), *v = json_object(), *opts = json_object(), *bs = json_array();
	json_t *devs = json_array(), *envs = json_object(), *host = json_object(),
	       *cmdline = json_array();
	json_t *run = bench_run_json(env->run);
	static const char *const vars[] = {"NCCL_NVLS_ENABLE",
					   "NCCL_ALGO",
					   "NCCL_PROTO",
					   "NCCL_P2P_DISABLE",
					   "NCCL_DEBUG",
					   "CUDA_VISIBLE_DEVICES",
					   "CUDA_DEVICE_MAX_CONNECTIONS",
					   "GPUVET_CUBLASLT_LIBRARY",
					   "GPUVET_NCCL_LIBRARY",
					   /* gemm's variants (docs/bench.md) */
					   "GPUVET_GEMM_INPUT",
					   "GPUVET_GEMM_ALGOS",
					   "GPUVET_GEMM_WORKSPACE",
					   "GPUVET_GEMM_LAYOUT",
					   "GPUVET_GEMM_SUSTAIN",
					   "GPUVET_GEMM_BURST",
					   "GPUVET_GEMM_PRECISIONS",
					   "GPUVET_GEMM_SIZES"};
	char buf[64];
	time_t now = time(NULL);
	struct tm tmv;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	size_t i;
	int f;

	gmtime_r(&now, &tmv);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tmv);
	json_object_set_new(doc, "gpuvet_bench", json_integer(1));
	json_object_set_new(doc, "created", json_string(buf));
	for (i = 0; i < (size_t)in->argc; i++)
		json_array_append_new(cmdline, json_string(in->argv[i]));
	json_object_set_new(doc, "command", cmdline);
	json_object_set_new(v, "gpuvet", json_string(GPUVET_VERSION));
	if (in->driver_version && *in->driver_version)
		json_object_set_new(v, "driver", json_string(in->driver_version));
	bench_versions_json(env, v);
	json_object_set_new(v, "kernels_nvcc", json_string(gpuvet_kernels_nvcc));
	json_object_set_new(v, "kernels_targets", json_string(gpuvet_kernels_targets));
	if (getenv("GPUVET_BENCH_KERNELS"))
		json_object_set_new(v, "kernels_file", json_string(getenv("GPUVET_BENCH_KERNELS")));
	json_object_set_new(doc, "versions", v);
	for (f = 0; f < bench_nfamilies; f++)
		if (env->opt.families & (1u << f))
			json_array_append_new(bs, json_string(bench_families[f]->name));
	json_object_set_new(opts, "benchmarks", bs);
	json_object_set_new(opts, "size_bytes",
			    json_integer((json_int_t)(env->opt.size_bytes ? env->opt.size_bytes
									  : BENCH_DEFAULT_SIZE)));
	json_object_set_new(opts, "time_budget_s", json_real(bench_budget(env)));
	json_object_set_new(opts, "quick", json_boolean(env->opt.quick));
	json_object_set_new(doc, "options", opts);
	json_object_set_new(host, "cpus", json_integer(env->cpu_threads));
	json_object_set_new(host, "cpu_isa", json_string(bench_cpu_isa()));
	if (pages > 0 && psz > 0)
		json_object_set_new(host, "ram_bytes", json_integer((json_int_t)pages * psz));
	json_object_set_new(doc, "host", host);
	for (i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *val = getenv(vars[i]);

		if (val)
			json_object_set_new(envs, vars[i], json_string(val));
	}
	json_object_set_new(doc, "environment", envs);
	for (f = 0; f < env->ngpus; f++)
		json_array_append_new(devs, device_json(&env->gpus[f]));
	json_object_set_new(doc, "devices", devs);
	json_object_update(doc, run);
	json_decref(run);
	json_object_set_new(doc, "sensors", bench_sensors_json(env->sensors));
	json_object_set(doc, "errors", errors);
	json_object_set_new(doc, "exit_code", json_integer(exit_code));
	return doc;
}
