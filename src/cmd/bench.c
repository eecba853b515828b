/*
 * bench.c: `gpuvet bench`: what this machine's GPUs really deliver, against their own peak and
 * against the CPU. Options, checks, the run, and the JSON document every output is rendered
 * from (the table in bench_report.c, the HTML page in bench_html.c). The measuring is in
 * src/bench/ (bench.h has the method); the kernels in src/kernels/.
 *
 * Order of checks, cheapest and most certain first: the command line (exit 4), the output files
 * (--html: 3, before minutes of measuring), the GPUs named and the sizes against what the probe
 * reports (4, also on a replayed machine), a replay (5: nothing to measure), the kernels built
 * into this binary (5), no GPU at all (5, -i or not), the driver's bench calls and the libraries
 * a named benchmark needs (5). Ctrl-C stops between steps: GPU memory is freed, the
 * results so far are printed and the exit code is 130.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../bench/bench.h"
#include "../bench/cpu.h"
#include "../bench/ranks.h"
#include "../bench/result_json.h"
#include "../bench/sensors.h"
#include "../gpu/busid.h"
#include "../gpu/select.h"
#include "../gpu/fields.h"
#include "../gpu/probe.h"
#include "../host/host.h"
#include "../kernels/image.h"
#include "../util/stop.h"
#include "../util/file.h"
#include "../util/util.h"
#include "../history/events.h"
#include "bench_report.h"
#include "cmd.h"
#include "history_hook.h"

static const char usage[] =
	"usage: gpuvet bench [BENCH...] [-i IDS] [--size SIZE] [--time-budget SEC] [--quick]\n"
	"                    [--json] [--html FILE] [--history[=DB]] [--rendezvous DIR]\n"
	"       gpuvet bench --list\n"
	"       gpuvet bench --load FILE [--json] [--html FILE]\n"
	"\n"
	"Measure what each part of this machine delivers, as a share of what the hardware should,\n"
	"and where the CPU is still faster. BENCH is one or more of the benchmarks --list names,\n"
	"or all (the default: every CUDA one; cl-memory and cl-compute run on every OpenCL\n"
	"device, PoCL's CPU included, when named). Every result is verified.\n"
	"\n"
	"options:\n"
	"  -i, --id IDS         only these GPUs: index, UUID or PCI bus id (comma-separated);\n"
	"                       cl:N (cl:0,cl:2) the OpenCL devices of cl-memory and cl-compute\n"
	"  --size SIZE          buffer size of memory, transfer and p2p (default 1G; K/M/G suffixes)\n"
	"  --time-budget SEC    time per measurement (default 0.25; --quick: 0.06)\n"
	"  --quick              fewer sizes and shorter measurements: a smoke test\n"
	"  -j, --json           print the results as JSON, every sample included (docs/bench.md)\n"
	"  --html FILE          also write a self-contained HTML page with a plot of every sweep\n"
	"  --history[=DB]       also store the results in the history database (the default one,\n"
	"                       or DB; GPUVET_HISTORY=1 does the same): 'gpuvet history bench'\n"
	"                       shows their trend\n"
	"  --load FILE          show a result saved with --json instead of measuring\n"
	"  --list               list the benchmarks and what this binary can run\n"
	"  --rendezvous DIR     allreduce under srun or mpirun, one process per GPU: the shared\n"
	"                       folder where rank 0 leaves NCCL's id (default: the job's submit\n"
	"                       folder; TCP to rank 0 when MASTER_ADDR and MASTER_PORT are set)\n"
	"  -h, --help           this help\n"
	"\n"
	"exit codes: 0 ok, 2 a result failed verification, 3 gpuvet error, 4 usage, 5 no GPU,\n"
	"kernels or library, 130 interrupted (the results so far are still printed)\n";

struct bench_cli {
	uint64_t cl_devices; /* -i cl:N */
	unsigned families;
	unsigned named; /* named on the command line (not through "all") */
	const char *ids;
	uint64_t size;
	double budget;
	bool quick, json, list;
	const char *html, *load;
	struct cmd_history hist;
	const char *rendezvous; /* --rendezvous DIR */
	int argc;
	char **argv;
};

/* ---- progress on stderr, only on a terminal ---------------------------------------------- */

struct progress {
	bool on;
	int64_t t0;
	int done, total;
};

static void progress_cb(void *arg, const struct bench_family *family, const char *what)
{
	struct progress *p = arg;
	char line[160];

	if (!p->on)
		return;
	str_fmt(line, sizeof(line), "[%d/%d %s, %.0f s] %s", p->done + 1, p->total, family->name,
		(double)(now_ns() - p->t0) / 1e9, what);
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
}

static void progress_clear(struct progress *p)
{
	if (p->on) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

/* ---- --list ------------------------------------------------------------------------------ */

static int list_benches(void)
{
	int f;

	for (f = 0; f < bench_nfamilies; f++)
		if (!bench_families[f]->opencl)
			printf("%-10s %s\n", bench_families[f]->name, bench_families[f]->summary);
	printf("%-10s %s\n", "all", "every benchmark above, in this order");
	/* after a blank line: not part of "all" (scripts read the list up to the blank line) */
	printf("\non OpenCL devices (cl:N), when named:\n");
	for (f = 0; f < bench_nfamilies; f++)
		if (bench_families[f]->opencl)
			printf("%-10s %s\n", bench_families[f]->name, bench_families[f]->summary);
	if (bench_kernels_override())
		printf("\nkernels: from GPUVET_BENCH_KERNELS=%s\n", bench_kernels_override());
	else if (gpuvet_kernels_size)
		printf("\nkernels: built by nvcc %s for sm_%s (plus PTX of the newest)\n",
		       gpuvet_kernels_nvcc, gpuvet_kernels_targets);
	else
		printf("\nkernels: none: %s; install the CUDA toolkit and rebuild to run bench\n",
		       gpuvet_kernels_missing);
	return EXIT_OK;
}

/* ---- the GPUs ---------------------------------------------------------------------------- */

struct cand {
	int ordinal; /* CUDA */
	int nvml;    /* NVML index or -1 */
	int shown;
	const struct cuda_device *cd;
	const struct gpu *ng;
};

static int make_cands(const struct gpu_system *sys, struct cand **out)
{
	struct cand *c = xcalloc(sys->ncuda ? sys->ncuda : 1, sizeof(*c));
	unsigned j, i;
	int n = 0;

	for (j = 0; j < sys->ncuda; j++) {
		const struct cuda_device *cd = &sys->cuda_devs[j];

		c[n].ordinal = (int)j;
		c[n].nvml = -1;
		c[n].cd = cd;
		for (i = 0; i < sys->ngpus && text_ok(&cd->bus_id); i++)
			if (text_ok(&sys->gpus[i].st.bus_id) &&
			    bus_id_same(sys->gpus[i].st.bus_id.s, cd->bus_id.s)) {
				c[n].nvml = (int)i;
				c[n].ng = &sys->gpus[i];
			}
		c[n].shown = c[n].nvml >= 0 ? c[n].nvml : (int)j;
		n++;
	}
	*out = c;
	return n;
}

/* Pick the GPUs -i names (all when none), in the order given; -1 with e on a bad id. */
static int select_gpus(const struct cand *c, int n, const char *ids, int **sel, int *nsel,
		       struct err *e)
{
	int *s = xcalloc((size_t)(n ? n : 1), sizeof(*s)), k = 0, i;
	struct select_list l;
	struct select_gpu *g;
	size_t *picks, j;
	int rc;

	if (!ids) {
		/* in the order users number them */
		for (i = 0; i < n; i++)
			s[k++] = i;
		for (i = 1; i < k; i++) {
			int m, v = s[i];

			for (m = i; m > 0 && c[s[m - 1]].shown > c[v].shown; m--)
				s[m] = s[m - 1];
			s[m] = v;
		}
		*sel = s;
		*nsel = k;
		return 0;
	}
	if (select_parse(ids, &l, e) != 0) {
		free(s);
		return -1;
	}
	/* a CUDA device is known by the number users see, its NVML twin's UUID and its bus id */
	g = xcalloc((size_t)(n ? n : 1), sizeof(*g));
	for (i = 0; i < n; i++) {
		g[i].index = (unsigned)c[i].shown;
		g[i].uuid = c[i].ng && text_ok(&c[i].ng->st.uuid) ? c[i].ng->st.uuid.s : NULL;
		g[i].bus_id = text_ok(&c[i].cd->bus_id) ? c[i].cd->bus_id.s : NULL;
	}
	picks = xcalloc(l.n, sizeof(*picks));
	rc = select_match(&l, g, (size_t)n, picks, e);
	/* without duplicates, l.n <= n */
	for (j = 0; rc == 0 && j < l.n; j++)
		s[k++] = (int)picks[j];
	free(picks);
	free(g);
	select_list_free(&l);
	if (rc != 0) {
		free(s);
		return -1;
	}
	*sel = s;
	*nsel = k;
	return 0;
}

/* Buffers of --size the selected benchmarks hold on one GPU at once: the most any one holds. */
static int size_multiple(unsigned families)
{
	int f, most = 0;

	for (f = 0; f < bench_nfamilies; f++)
		if ((families & (1u << f)) && bench_families[f]->size_buffers > most)
			most = bench_families[f]->size_buffers;
	return most;
}

/* "unknown benchmark" lists what there is */
static void print_bench_names(FILE *f)
{
	int i;

	fputs("gpuvet: hint: 'gpuvet bench --list' names them: ", f);
	for (i = 0; i < bench_nfamilies; i++)
		fprintf(f, "%s, ", bench_families[i]->name);
	fputs("all\n", f);
}

static int output(const struct bench_cli *o, json_t *doc)
{
	struct err e;

	err_clear(&e);
	if (o->json) {
		char *s =
		    json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));

		puts(s ? s : "{}");
		free(s);
	} else {
		bench_report_table(stdout, doc);
	}
	fflush(stdout);
	if (o->html && bench_report_html_file(doc, o->html, &e) != 0)
		return cmd_report_error(&e);
	return 0;
}

static int load_result(const struct bench_cli *o)
{
	json_error_t je;
	json_t *doc = json_load_file(o->load, 0, &je);
	int rc;

	if (!doc) {
		fprintf(stderr, "gpuvet: error: cannot read bench result '%s': %s (line %d)\n",
			o->load, je.text, je.line);
		return EXIT_ERROR;
	}
	if (!json_is_array(json_object_get(doc, "results"))) {
		fprintf(stderr, "gpuvet: error: '%s' is not a 'gpuvet bench --json' result\n",
			o->load);
		json_decref(doc);
		return EXIT_ERROR;
	}
	rc = output(o, doc);
	json_decref(doc);
	return rc ? rc : EXIT_OK;
}

/* ---- options ----------------------------------------------------------------------------- */

/* "all": the CUDA benchmarks; the OpenCL ones (bench/cl.c) run when named */
static unsigned all_families(void)
{
	unsigned m = 0;
	int f;

	for (f = 0; f < bench_nfamilies; f++)
		if (!bench_families[f]->opencl)
			m |= 1u << f;
	return m;
}

/* -i cl:N[,cl:M...] (or cl:N,M): the OpenCL devices; -1 on junk */
static int parse_cl_ids(const char *s, uint64_t *out)
{
	*out = 0;
	while (*s) {
		char *end = NULL;
		unsigned long n;

		if (strncmp(s, "cl:", 3) == 0)
			s += 3;
		if (*s < '0' || *s > '9')
			return -1;
		n = strtoul(s, &end, 10);
		if (n >= 64 || (*end && *end != ','))
			return -1;
		*out |= 1ull << n;
		s = *end ? end + 1 : end;
	}
	return *out ? 0 : -1;
}

static int parse(int argc, char **argv, struct bench_cli *o)
{
	static const struct option opts[] = {
	    {"id", required_argument, NULL, 'i'},
	    /* the older spelling, kept for scripts; --help shows -i/--id as nvidia-smi has it */
	    {"gpu", required_argument, NULL, 'i'},
	    {"size", required_argument, NULL, 's'},
	    {"time-budget", required_argument, NULL, 'b'},
	    {"quick", no_argument, NULL, 'q'},
	    {"json", no_argument, NULL, 'j'},
	    {"html", required_argument, NULL, 'H'},
	    {"load", required_argument, NULL, 'L'},
	    {"list", no_argument, NULL, 'l'},
	    CMD_HISTORY_OPTION,
	    {"rendezvous", required_argument, NULL, 'R'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt, i;

	memset(o, 0, sizeof(*o));
	/* getopt permutes argv: keep the command line as typed for the JSON */
	o->argc = argc;
	o->argv = xcalloc((size_t)argc + 1, sizeof(*o->argv));
	memcpy(o->argv, argv, (size_t)argc * sizeof(*argv));
	while ((opt = cmd_getopt(&cmd_bench, argc, argv, "i:jh", opts)) != -1) {
		switch (opt) {
		case 'i': {
			struct err e;

			if (strncmp(optarg, "cl:", 3) == 0) {
				if (parse_cl_ids(optarg, &o->cl_devices) != 0)
					return cmd_usage_error(&cmd_bench,
							       "bad -i '%s': OpenCL devices are "
							       "cl:N, comma-separated",
							       optarg);
				break;
			}

			/* a malformed list is a usage error before a GPU is asked */
			err_clear(&e);
			if (select_parse(optarg, NULL, &e) != 0)
				return cmd_report_error(&e);
			o->ids = optarg;
			break;
		}
		case 's':
			if (bench_parse_size(optarg, &o->size) != 0 || o->size < 4096)
				return cmd_usage_error(
				    &cmd_bench,
				    "bad --size '%s': give bytes with an optional K, M "
				    "or G suffix, at least 4K",
				    optarg);
			break;
		case 'b': {
			char *end = NULL;

			o->budget = strtod(optarg, &end);
			if (end == optarg || *end || !(o->budget > 0) || o->budget > 60)
				return cmd_usage_error(
				    &cmd_bench,
				    "bad --time-budget '%s': seconds, more than 0 and "
				    "at most 60",
				    optarg);
			break;
		}
		case 'q': o->quick = true; break;
		case 'j': o->json = true; break;
		case 'H': o->html = optarg; break;
		case 'L': o->load = optarg; break;
		case 'l': o->list = true; break;
		case CMD_HISTORY_OPT: cmd_history_option(&o->hist, optarg); break;
		case 'R': o->rendezvous = optarg; break;
		case 'h': cmd_print_usage(&cmd_bench); return -1;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	for (i = optind; i < argc; i++) {
		int f;

		if (!strcasecmp(argv[i], "all")) {
			o->families |= all_families();
			continue;
		}
		f = bench_family_find(argv[i]);
		if (f < 0) {
			fprintf(stderr, "gpuvet: error: unknown benchmark '%s'\n", argv[i]);
			print_bench_names(stderr);
			return EXIT_USAGE;
		}
		o->families |= 1u << f;
		o->named |= 1u << f;
	}
	if (!o->families)
		o->families = all_families();
	if (o->cl_devices && (o->families & all_families()))
		return cmd_usage_error(&cmd_bench, "-i cl:N names OpenCL devices: name only the "
						   "OpenCL benchmarks (cl-memory, cl-compute)");
	if (o->load && optind < argc)
		return cmd_usage_error(&cmd_bench,
				       "--load shows a stored result: name no benchmark");
	return 0;
}

/* ---- the run ----------------------------------------------------------------------------- */

static void fill_facts(struct bench_gpu *g, const struct cand *c)
{
	if (text_ok(&c->cd->name))
		str_copy(g->name, c->cd->name.s, sizeof(g->name));
	if (text_ok(&c->cd->bus_id))
		str_copy(g->bus_id, c->cd->bus_id.s, sizeof(g->bus_id));
	if (num_ok(&c->cd->mem_total_bytes))
		g->mem_total = (size_t)c->cd->mem_total_bytes.v;
	g->numa_node = -1;
	if (c->ng) {
		const struct gpu_static *st = &c->ng->st;

		if (num_ok(&st->pcie_gen_max) && num_ok(&st->pcie_width_max)) {
			g->pcie_gen = (int)st->pcie_gen_max.v;
			g->pcie_width = (int)st->pcie_width_max.v;
		}
		if (num_ok(&st->nvlink_count))
			g->nvlink_links = (int)st->nvlink_count.v;
		if (num_ok(&st->numa_node))
			g->numa_node = (int)st->numa_node.v;
	}
	bench_gpu_local_cpus(g);
}

/* The run into the history: its document, and the GPUs by the index the results name. */
static void store_history(const struct bench_cli *o, double t0, const struct cand *cands,
			  const int *sel, int nsel, json_t *doc, int exit_code)
{
	struct hist_gpu_id *ids = xcalloc(nsel ? (size_t)nsel : 1, sizeof(*ids));
	char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	int i;

	for (i = 0; i < nsel; i++) {
		const struct cand *c = &cands[sel[i]];

		if (c->ng)
			hist_gpu_id_from_gpu(c->ng, &ids[i]);
		ids[i].index = c->shown;
		if (!ids[i].pci_slot[0] && text_ok(&c->cd->bus_id))
			hist_pci_slot(c->cd->bus_id.s, ids[i].pci_slot, sizeof(ids[i].pci_slot));
		if (!ids[i].model[0] && text_ok(&c->cd->name))
			str_copy(ids[i].model, c->cd->name.s, sizeof(ids[i].model));
	}
	cmd_history_run(&o->hist, "bench", t0,
			exit_code == EXIT_OK	     ? "ok"
			: exit_code == EXIT_FAIL     ? "fail"
			: exit_code == EXIT_INTERRUPTED ? "interrupted"
						       : "error",
			exit_code, text, ids, (size_t)nsel);
	free(text);
	free(ids);
}

static int run_bench(int argc, char **argv)
{
	struct bench_cli o;
	struct gpu_system sys, sys2;
	struct cand *cands = NULL;
	int *sel = NULL, nsel = 0, ncand, rc, i, f, exit_code = EXIT_OK;
	struct err e;
	struct bench_run run;
	struct bench_env env;
	struct probe *probe = NULL;
	struct progress prog;
	json_t *errors = json_array(), *doc;
	struct stop_guard stop;
	int *nvml_idx = NULL, nnvml = 0;
	void *image_owned = NULL;
	double t0 = wall_time();
	struct bench_ranks ranks;
	bool multi = false, cl_only;

	err_clear(&e);
	memset(&sys, 0, sizeof(sys));
	memset(&sys2, 0, sizeof(sys2));
	memset(&env, 0, sizeof(env));
	memset(&prog, 0, sizeof(prog));
	bench_run_init(&run);
	rc = parse(argc, argv, &o);
	if (rc != 0 || o.list || o.load) {
		json_decref(errors);
		if (rc == 0)
			rc = o.list ? list_benches() : load_result(&o);
		else if (rc < 0)
			rc = EXIT_OK;
		free(o.argv);
		return rc;
	}

	/* only OpenCL benchmarks: no CUDA driver, kernels or GPU needed (bench/cl.c) */
	cl_only = (o.families & all_families()) == 0;
	/* the page is written after the run: a path it cannot go to fails now, not minutes later */
	if (o.html && file_check_writable(o.html, &e) != 0) {
		json_decref(errors);
		free(o.argv);
		return cmd_report_error(&e);
	}
	/* what the probe says: enough to check -i and --size, also on a replayed machine */
	if (probe_run(&sys, PROBE_NVML | PROBE_STATIC | PROBE_CUDA, &e) != 0) {
		json_decref(errors);
		free(o.argv);
		return cmd_report_error(&e);
	}
	ncand = make_cands(&sys, &cands);
	/* allreduce alone under srun or mpirun: this process is one rank and drives one GPU */
	memset(&ranks, 0, sizeof(ranks));
	ranks.rendezvous = o.rendezvous;
	if (o.families == 1u << bench_family_find("allreduce")) {
		int bad;

		multi = bench_ranks_detect(&ranks, &bad, &e);
		if (bad) {
			rc = cmd_report_error(&e);
			goto out_early;
		}
	}
	/* no GPU at all: -i cannot match, but that is not the user's mistake; the no-GPU message
	 * below (and its hint at doctor) says what is wrong */
	if (ncand == 0)
		sel = xcalloc(1, sizeof(*sel));
	else if (select_gpus(cands, ncand, o.ids, &sel, &nsel, &e) != 0) {
		rc = cmd_report_error(&e);
		goto out_early;
	}
	/* the local rank's GPU; the only one when the launcher bound each rank to one GPU */
	if (multi && nsel > 1) {
		if (ranks.local_rank >= nsel) {
			err_set(&e, EXIT_USAGE, "rank %d is local rank %d, but this node has %d GPUs",
				ranks.rank, ranks.local_rank, nsel);
			err_hint(&e, "start at most one process per GPU on each node");
			rc = cmd_report_error(&e);
			goto out_early;
		}
		sel[0] = sel[ranks.local_rank];
		nsel = 1;
	}
	if (o.size && size_multiple(o.families)) {
		for (i = 0; i < nsel; i++) {
			const struct cand *c = &cands[sel[i]];
			double need = (double)o.size * size_multiple(o.families);

			if (num_ok(&c->cd->mem_total_bytes) &&
			    need > (double)c->cd->mem_total_bytes.v) {
				char a[32], b[32];

				bench_size_str((double)o.size, a, sizeof(a));
				bench_size_str((double)c->cd->mem_total_bytes.v, b, sizeof(b));
				err_set(&e, EXIT_USAGE,
					"--size %s does not fit: these benchmarks need %d buffers "
					"of it and "
					"GPU %d has %s",
					a, size_multiple(o.families), c->shown, b);
				err_hint(&e, "use a smaller --size");
				rc = cmd_report_error(&e);
				goto out_early;
			}
		}
	}
	if (gopts.replay) {
		err_set(&e, EXIT_UNAVAILABLE,
			"gpuvet bench needs a real GPU: a replayed machine (--replay) answers the "
			"probe "
			"calls only, so nothing can be measured");
		err_hint(&e,
			 "run it on the machine itself; 'gpuvet bench --load FILE' shows a stored "
			 "result");
		rc = cmd_report_error(&e);
		goto out_early;
	}
	if (cl_only) {
		nsel = 0;
		goto setup;
	}
	env.image =
	    bench_kernels_image(gpuvet_kernels_size ? gpuvet_kernels : NULL, &image_owned, &e);
	if (!env.image && e.msg[0]) {
		rc = cmd_report_error(&e);
		goto out_early;
	}
	if (!env.image) {
		err_set(&e, EXIT_UNAVAILABLE,
			"%s; install the CUDA toolkit and rebuild to run bench",
			gpuvet_kernels_missing);
		err_hint(
		    &e,
		    "with nvcc on PATH (or make NVCC=/path/to/nvcc), 'make' builds the kernels");
		rc = cmd_report_error(&e);
		goto out_early;
	}
	if (nsel == 0) {
		if (!sys.cuda_lib.loaded)
			err_set(&e, EXIT_UNAVAILABLE,
				"no GPU to measure: cannot load the CUDA driver library: %s",
				sys.cuda_lib.error);
		else if (sys.cuda_init.v != 0) {
			char eb[96];

			err_set(&e, EXIT_UNAVAILABLE, "no GPU to measure: cuInit: %s",
				field_error_text(LIB_CUDA, (int)sys.cuda_init.v, eb, sizeof(eb)));
		} else
			err_set(&e, EXIT_UNAVAILABLE, "no GPU to measure: no CUDA device found");
		err_hint(&e, "run 'gpuvet doctor' to find out why");
		rc = cmd_report_error(&e);
		goto out_early;
	}

	/* our own handle on the driver, with the calls bench needs, then the libraries: a
	 * benchmark named on the command line fails without its library */
	env.opt.families = o.families;
	env.opt.named = o.named;
	if (multi)
		env.ranks = &ranks;
	if (bench_setup_driver(&env, &e) != 0 ||
	    bench_setup_libs(&env, multi ? ranks.size : nsel, &e) != 0) {
		rc = cmd_report_error(&e);
		goto out_early;
	}
setup:
	env.opt.families = o.families;
	env.opt.named = o.named;
	env.opt.cl_devices = o.cl_devices;

	/* the environment of the run */
	env.opt.size_bytes = o.size;
	env.opt.budget_s = o.budget;
	env.opt.quick = o.quick;
	env.run = &run;
	env.stop = &stop_requested;
	env.cpu_threads = bench_cpu_init();
	env.gpus = xcalloc((size_t)nsel, sizeof(*env.gpus));
	env.ngpus = nsel;
	nvml_idx = xcalloc((size_t)nsel, sizeof(*nvml_idx));
	for (i = 0; i < nsel; i++) {
		const struct cand *c = &cands[sel[i]];
		struct bench_gpu *g = &env.gpus[i];

		g->ordinal = c->ordinal;
		g->index = c->shown;
		g->nvml_index = c->nvml;
		fill_facts(g, c);
		if (c->nvml >= 0)
			nvml_idx[nnvml++] = c->nvml;
	}
	if (probe_open(&probe, &sys2, PROBE_NVML, &e) == 0 && sys2.ngpus > 0)
		env.sensors =
		    bench_sensors_start(probe, sys2.gpus, nvml_idx, nnvml, 100, run.t0_ns);
	else
		env.sensors = bench_sensors_start(NULL, NULL, NULL, 0, 100, run.t0_ns);
	err_clear(&e);
	prog.on = isatty(2);
	prog.t0 = now_ns();
	for (f = 0; f < bench_nfamilies; f++)
		prog.total += (o.families >> f) & 1;
	env.progress = progress_cb;
	env.progress_arg = &prog;

	stop_guard_begin(&stop);

	for (i = 0; i < nsel && !stop_requested; i++) {
		if (bench_gpu_open(&env, &env.gpus[i], &e) != 0) {
			progress_clear(&prog);
			exit_code = cmd_report_error(&e);
			json_array_append_new(errors, json_string(e.msg));
			goto finish;
		}
	}
	for (f = 0; f < bench_nfamilies && !stop_requested; f++) {
		const struct bench_family *fam = bench_families[f];

		if (!(o.families & (1u << f)))
			continue;
		err_clear(&e);
		bench_progress(&env, fam, "starting");
		if (fam->run(&env, &e) != 0) {
			progress_clear(&prog);
			if (e.code == EXIT_INTERRUPTED)
				break;
			cmd_report_error(&e);
			json_array_append_new(errors, json_sprintf("%s: %s", fam->name, e.msg));
			bench_note(&run, fam, NOTE_ERROR, "%s", e.msg);
			if (exit_code == EXIT_OK)
				exit_code = e.code ? e.code : EXIT_ERROR;
		}
		prog.done++;
	}
finish:
	progress_clear(&prog);
	stop_guard_end(&stop);
	run.interrupted = stop_requested != 0;
	bench_sensors_stop(env.sensors);
	for (i = 0; i < nsel; i++)
		bench_gpu_close(&env, &env.gpus[i]);
	if (run.interrupted)
		exit_code = EXIT_INTERRUPTED;
	else if (exit_code == EXIT_OK && bench_run_failed(&run))
		exit_code = EXIT_FAIL;
	{
		struct bench_doc_in din = {
		    o.argc, o.argv, text_ok(&sys.driver_version) ? sys.driver_version.s : NULL};

		doc = bench_doc_build(&din, &env, errors, exit_code);
	}
	/* rank 0 speaks for every rank: the others' verdicts are in its counts */
	rc = !multi || ranks.rank == 0 ? output(&o, doc) : 0;
	if (cmd_history_wanted(&o.hist) && (!multi || ranks.rank == 0))
		store_history(&o, t0, cands, sel, nsel, doc, exit_code);
	json_decref(doc);
	if (rc && exit_code == EXIT_OK)
		exit_code = rc;
	if (run.interrupted)
		fputs("gpuvet: interrupted: partial results shown, GPU memory freed\n", stderr);
	bench_sensors_free(env.sensors);
	if (probe)
		probe_close(probe);
	gpu_system_free(&sys2);
	bench_cpu_shutdown();
	rc = exit_code;
	goto out;
out_early:
	(void)0;
out:
	bench_teardown(&env);
	free(image_owned);
	free(env.gpus);
	free(nvml_idx);
	free(cands);
	free(sel);
	bench_run_free(&run);
	gpu_system_free(&sys);
	json_decref(errors);
	free(o.argv);
	return rc;
}

const struct cmd cmd_bench = {
    .name = "bench",
    .summary = "measure what the GPUs deliver against their peak and against the CPU",
    .usage = usage,
    .run = run_bench,
};
