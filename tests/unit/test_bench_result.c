/* test_bench_result.c: bench's run bookkeeping and its JSON (src/bench/result*.c), sizes as
 * people write them, the table of benchmarks and their names (src/bench/family.c), and CPU
 * lists (src/bench/cpu.c). */
#include <jansson.h>
#include <math.h>
#include <sched.h>

#include "bench/bench.h"
#include "bench/cpu.h"
#include "bench/result_json.h"
#include "util/util.h"
#include "test.h"

static void sizes_parse(void)
{
	uint64_t v = 0;

	CHECK(bench_parse_size("4096", &v) == 0 && v == 4096);
	CHECK(bench_parse_size("1G", &v) == 0 && v == 1ull << 30);
	CHECK(bench_parse_size("512M", &v) == 0 && v == 512ull << 20);
	CHECK(bench_parse_size("64KiB", &v) == 0 && v == 65536);
	CHECK(bench_parse_size("1.5g", &v) == 0 && v == 3ull << 29);
	CHECK(bench_parse_size("2GB", &v) == 0 && v == 2ull << 30);
	CHECK(bench_parse_size("12Q", &v) == -1);
	CHECK(bench_parse_size("", &v) == -1);
	CHECK(bench_parse_size("-1G", &v) == -1);
	CHECK(bench_parse_size("0", &v) == -1);
	CHECK(bench_parse_size("G", &v) == -1);
	CHECK(bench_parse_size("1GiBx", &v) == -1);
}

static void sizes_format(void)
{
	char b[32];

	bench_size_str(1ull << 30, b, sizeof(b));
	CHECK_STR(b, "1 GiB");
	bench_size_str(512 << 20, b, sizeof(b));
	CHECK_STR(b, "512 MiB");
	bench_size_str(4096, b, sizeof(b));
	CHECK_STR(b, "4 KiB");
	bench_size_str(1000, b, sizeof(b));
	CHECK_STR(b, "1000 B");
	bench_size_str(150109880320.0, b, sizeof(b));
	CHECK_STR(b, "139.8 GiB");
	bench_size_str(8.0 * (1 << 30), b, sizeof(b));
	CHECK_STR(b, "8 GiB");
}

/* The benchmark named name (a test's own lookup, so a wrong index cannot hide). */
static const struct bench_family *fam(const char *name)
{
	int i;

	for (i = 0; i < bench_nfamilies; i++)
		if (strcmp(bench_families[i]->name, name) == 0)
			return bench_families[i];
	return NULL;
}

static const char *found(const char *name)
{
	int i = bench_family_find(name);

	return i >= 0 ? bench_families[i]->name : NULL;
}

static void family_names(void)
{
	CHECK_STR(found("memory"), "memory");
	CHECK_STR(found("MEMORY"), "memory");
	CHECK_STR(found("hbm"), "memory");
	CHECK_STR(found("nccl"), "allreduce");
	CHECK_STR(found("h2d"), "transfer");
	CHECK_STR(found("fit"), "fit");
	CHECK(bench_family_find("me") == -1);
	CHECK(bench_family_find("all") == -1);
	CHECK(bench_family_find("bogus") == -1);
}

/* Every name and alias on the command line means one benchmark, "all" none of them. */
static void family_names_unique(void)
{
	int i;

	for (i = 0; i < bench_nfamilies; i++) {
		const struct bench_family *f = bench_families[i];
		char aliases[128], *tok, *save = NULL;

		CHECK(bench_family_find(f->name) == i);
		CHECK(strcmp(f->name, "all") != 0);
		str_copy(aliases, f->aliases ? f->aliases : "", sizeof(aliases));
		for (tok = strtok_r(aliases, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			CHECK(bench_family_find(tok) == i);
			CHECK(strcasecmp(tok, "all") != 0);
		}
	}
}

/* Each descriptor says all it must: the run, the texts, what it needs and how it is shown. */
static void family_table(void)
{
	int i, last_cuda = -1;

	CHECK(bench_nfamilies >= 7 && bench_nfamilies <= 32);
	/* the OpenCL ones (cl.c) come after every CUDA one; fit runs last of those: what the
	 * other figures explain */
	for (i = 0; i < bench_nfamilies; i++)
		if (!bench_families[i]->opencl)
			last_cuda = i;
		else
			CHECK(last_cuda == i - 1 || bench_families[i - 1]->opencl);
	CHECK(last_cuda >= 0);
	CHECK_STR(bench_families[last_cuda]->name, "fit");
	CHECK(fam("cl-memory") && fam("cl-memory")->opencl && fam("cl-compute") &&
	      fam("cl-compute")->opencl);
	for (i = 0; i < bench_nfamilies; i++) {
		const struct bench_family *f = bench_families[i];
		size_t k;

		CHECK(f->name && f->summary && f->title && f->run);
		for (k = 0; f->name[k]; k++)
			CHECK((f->name[k] >= 'a' && f->name[k] <= 'z') ||
			      (f->name[k] >= '0' && f->name[k] <= '9') ||
			      (f->name[k] == '-' && k > 0 && f->name[k + 1]));
		CHECK(strlen(f->name) <= 10); /* --list's column */
		/* an OpenCL benchmark needs no CUDA GPU (its devices are cl:N) */
		CHECK(f->min_gpus >= (f->opencl ? 0 : 1) && f->size_buffers >= 0);
		CHECK(!f->opencl || (f->libs == 0 && f->size_buffers == 0));
		CHECK((f->libs_required & ~f->libs) == 0);
		CHECK(!f->size_tables || (f->size_columns && f->size_columns[0].series));
		CHECK(!(f->size_tables && f->matrices)); /* tables replace the rows */
	}
	/* what the table relies on, by benchmark */
	CHECK(fam("memory") && fam("memory")->traffic_column && fam("memory")->size_buffers == 3);
	CHECK(fam("p2p") && fam("p2p")->matrices && fam("p2p")->min_gpus == 2);
	CHECK(fam("gemm") && fam("gemm")->libs_required == BENCH_LIB_CUBLASLT);
	CHECK(fam("fit") && fam("fit")->libs == BENCH_LIB_CUBLASLT && !fam("fit")->libs_required);
	CHECK(fam("allreduce") && fam("allreduce")->libs_required == BENCH_LIB_NCCL);
}

static void cpulists(void)
{
	cpu_set_t s;

	CHECK(bench_parse_cpulist("0-3,8,10-11\n", &s) == 0);
	CHECK(CPU_COUNT(&s) == 7 && CPU_ISSET(2, &s) && CPU_ISSET(8, &s) && !CPU_ISSET(9, &s));
	CHECK(bench_parse_cpulist("5", &s) == 0 && CPU_COUNT(&s) == 1);
	CHECK(bench_parse_cpulist("", &s) == -1);
	CHECK(bench_parse_cpulist("3-1", &s) == -1);
	CHECK(bench_parse_cpulist("a-b", &s) == -1);
	CHECK(bench_parse_cpulist(NULL, &s) == -1);
}

static void run_to_json(void)
{
	struct bench_run run;
	struct bench_result *r;
	double v[] = {2000, 2100, 2050};
	json_t *j, *res, *x;

	bench_run_init(&run);
	r = bench_run_add(&run, fam("memory"), "copy_kernel", "copy, our kernel");
	r->gpu = 0;
	r->size = 1 << 30;
	str_copy(r->size_unit, "B", sizeof(r->size_unit));
	str_copy(r->unit, "GB/s", sizeof(r->unit));
	bench_result_set_samples(r, v, 3);
	r->traffic_factor = 2;
	r->peak = 4815;
	r->verified = VERIFY_OK;
	r->headline = true;
	r = bench_run_add(&run, fam("p2p"), "latency_p2p_on", "latency");
	r->gpu = 0;
	r->peer = 1;
	r->lower_better = true;
	str_copy(r->unit, "us", sizeof(r->unit));
	bench_result_set_samples(r, v, 1);
	r->verified = VERIFY_FAILED;
	bench_run_add(&run, fam("launch"), "launch", "launch");
	bench_note(&run, fam("gemm"), NOTE_SKIP, "no %s here", "cuBLASLt");
	bench_summary(&run, fam("fit"), "axpy_crossover_elements", NAN, "elements", "never");
	bench_summary(&run, fam("gemm"), "gpu0_bf16_over_fp32", 15.5, "x", "bf16 is %.1fx", 15.5);
	bench_plot(&run, fam("memory"), "memory-size", "t", "x", "y", false);
	bench_plot(&run, fam("memory"), "memory-size", "again", "x", "y", true);
	CHECK(bench_run_failed(&run) == 1);
	CHECK(run.nplots == 1);

	j = bench_run_json(&run);
	res = json_object_get(j, "results");
	CHECK(json_array_size(res) == 3);
	x = json_array_get(res, 0);
	CHECK_STR(json_string_value(json_object_get(x, "bench")), "memory");
	CHECK(json_real_value(json_object_get(x, "median")) == 2050);
	CHECK(json_real_value(json_object_get(x, "hbm_traffic")) == 4100);
	/* % of peak is of the traffic */
	CHECK(fabs(json_real_value(json_object_get(x, "percent_of_peak")) - 100.0 * 4100 / 4815) <
	      1e-9);
	CHECK(json_is_true(json_object_get(x, "verified")));
	CHECK(json_array_size(json_object_get(x, "samples")) == 3);
	CHECK(json_object_get(x, "peer") == NULL);
	x = json_array_get(res, 1);
	CHECK(json_integer_value(json_object_get(x, "peer")) == 1);
	CHECK(json_is_false(json_object_get(x, "verified")));
	CHECK(json_is_true(json_object_get(x, "lower_is_better")));
	CHECK(json_object_get(x, "percent_of_peak") == NULL);
	x = json_array_get(res, 2);
	CHECK(json_is_null(json_object_get(x, "verified")));
	/* sensors never read are absent, not 0 */
	CHECK(json_object_get(x, "power_w") == NULL);
	CHECK(json_is_null(
	    json_object_get(json_array_get(json_object_get(j, "summary"), 0), "value")));
	CHECK(json_real_value(json_object_get(json_array_get(json_object_get(j, "summary"), 1),
					      "value")) == 15.5);
	CHECK_STR(json_string_value(
		      json_object_get(json_array_get(json_object_get(j, "notes"), 0), "kind")),
		  "skip");
	CHECK(json_integer_value(json_object_get(j, "unverified")) == 1);
	CHECK(json_array_size(json_object_get(j, "plots")) == 1);
	json_decref(j);
	bench_run_free(&run);
}

int main(void)
{
	RUN(sizes_parse);
	RUN(sizes_format);
	RUN(family_names);
	RUN(family_names_unique);
	RUN(family_table);
	RUN(cpulists);
	RUN(run_to_json);
	return TEST_DONE();
}
