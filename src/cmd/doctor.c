/*
 * doctor.c: `gpuvet doctor`, the GPU stack checked bottom up, with a fix for each fault.
 *
 * The pipeline is in checks/doctor.c; the output in doctor_report.c; --slurm (drain and resume
 * the node) in doctor_slurm.c. Exit code: 0 all ok (info lines included), 1 warnings,
 * 2 failures (docs/exit-codes.md).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../checks/doctor.h"
#include "../gpu/probe.h"
#include "../history/events.h"
#include "../util/term.h"
#include "../util/util.h"
#include "cmd.h"
#include "doctor_report.h"
#include "doctor_slurm.h"
#include "history_hook.h"

static const char usage[] =
	"usage: gpuvet doctor [--json] [-v] [--history[=DB]]\n"
	"       gpuvet doctor --slurm [--dry-run] [--timeout SEC] [--drain-on LEVEL] [--node NAME]\n"
	"                     [--json]\n"
	"       gpuvet doctor --list-findings\n"
	"\n"
	"Check the GPU stack from the bottom up: PCI devices, the kernel module and its files,\n"
	"device nodes, the driver libraries, NVML, CUDA, GPU health (ECC, PCIe, clocks, power,\n"
	"heat, Xid errors), NVLink and NVSwitch, CUDA toolkits, PyTorch/TensorFlow/JAX builds\n"
	"and the environment. The lowest broken layer is named as the cause, with the evidence\n"
	"and the fix; what it breaks above is folded under it. Nothing is changed.\n"
	"\n"
	"options:\n"
	"  -j, --json       print JSON (docs/cmd/doctor.md)\n"
	"  -v, --verbose    also list the facts behind each ok and info line\n"
	"  --history[=DB]   also store this run in the history database (the default one, or\n"
	"                   DB; GPUVET_HISTORY=1 does the same): 'gpuvet history' shows it\n"
	"  --list-findings  print every finding id with its layer and title\n"
	"  -h, --help       this help\n"
	"\n"
	"Slurm (docs/slurm.md), as slurm.conf's HealthCheckProgram:\n"
	"  --slurm          drain this node through scontrol on a failure, with a reason\n"
	"                   'gpuvet: GPU <n> (<bus id>) <finding id>: <summary>'; resume it when\n"
	"                   healthy, only if gpuvet drained it. Toolkits, frameworks and the\n"
	"                   environment never drain\n"
	"  --dry-run        print the scontrol update instead of running it\n"
	"  --timeout SEC    doctor's time limit; past it the node drains (default 50)\n"
	"  --drain-on LEVEL failure (default) or warning\n"
	"  --node NAME      the node (default: $SLURMD_NODENAME, else hostname -s)\n"
	"\n"
	"exit codes: 0 all ok, 1 warnings, 2 failures, 3 doctor could not run (--slurm: or\n"
	"scontrol could not read or change the node and nothing failed)\n";

/* what doctor probes, with or without --slurm */
#define PROBE_FLAGS                                                                               \
	(PROBE_NVML | PROBE_STATIC | PROBE_STATIC_SLOW | PROBE_SAMPLE | PROBE_PROCS | PROBE_CUDA)

static int list_findings(void)
{
	size_t n, i;
	const struct finding_def *d = finding_defs(&n);

	for (i = 0; i < n; i++)
		printf("%-36s %-10s %s\n", d[i].id, layer_name(d[i].layer), d[i].title);
	return EXIT_OK;
}

/* The run into the history: the document --json prints, whether or not it was printed. */
static void store_history(const struct cmd_history *hist, double t0,
			  const struct doctor_input *in, const struct findings *fs, int rc)
{
	struct hist_gpu_id *ids = xcalloc(in->sys.ngpus ? in->sys.ngpus : 1, sizeof(*ids));
	char *doc = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&doc, &len);

	if (f) {
		report_json(f, in, fs);
		fclose(f);
	}
	for (i = 0; i < in->sys.ngpus; i++) {
		hist_gpu_id_from_gpu(&in->sys.gpus[i], &ids[i]);
		ids[i].index = (int)i; /* the index doctor's findings name */
	}
	cmd_history_run(hist, "doctor", t0,
			rc == EXIT_FAIL	  ? "fail"
			: rc == EXIT_WARN ? "warn"
					  : "ok",
			rc, doc, ids, in->sys.ngpus);
	free(doc);
	free(ids);
}

static int run_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"verbose", no_argument, NULL, 'v'},
		{"list-findings", no_argument, NULL, 'L'},
		CMD_HISTORY_OPTION,
		{"slurm", no_argument, NULL, 'S'},
		{"dry-run", no_argument, NULL, 'n'},
		{"timeout", required_argument, NULL, 'T'},
		{"drain-on", required_argument, NULL, 'D'},
		{"node", required_argument, NULL, 'N'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct doctor_input *in = xcalloc(1, sizeof(*in));
	struct findings fs = {NULL, 0, 0};
	struct report_opts ro = {gopts.verbose, 100};
	struct err e;
	enum severity worst;
	struct doctor_slurm_opts so = {false, false, 50, SEV_FAIL, NULL, PROBE_FLAGS};
	bool json = false, slurm = false, slurm_only = false;
	int64_t v;
	int opt, rc;
	struct cmd_history hist = {false, NULL};
	double t0 = wall_time();

	err_clear(&e);
	while ((opt = cmd_getopt(&cmd_doctor, argc, argv, "jvh", opts)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'v': ro.verbose = true; break;
		case 'L': free(in); return list_findings();
		case CMD_HISTORY_OPT: cmd_history_option(&hist, optarg); break;
		case 'S': slurm = true; break;
		case 'n': so.dry_run = slurm_only = true; break;
		case 'N': so.node = optarg; slurm_only = true; break;
		case 'T':
			slurm_only = true;
			if (parse_i64(optarg, &v) != 0 || v < 1 || v > 3600) {
				free(in);
				return cmd_usage_error(&cmd_doctor,
						       "--timeout wants seconds from 1 to 3600, not '%s'",
						       optarg);
			}
			so.timeout_s = (int)v;
			break;
		case 'D':
			slurm_only = true;
			if (!strcmp(optarg, "warning") || !strcmp(optarg, "warn")) {
				so.drain_at = SEV_WARN;
			} else if (!strcmp(optarg, "failure") || !strcmp(optarg, "fail")) {
				so.drain_at = SEV_FAIL;
			} else {
				free(in);
				return cmd_usage_error(&cmd_doctor,
						       "--drain-on is 'failure' or 'warning', not '%s'",
						       optarg);
			}
			break;
		case 'h': free(in); cmd_print_usage(&cmd_doctor); return EXIT_OK;
		default: free(in); return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (optind < argc) {
		free(in);
		return cmd_usage_error(&cmd_doctor, "unexpected argument '%s'", argv[optind]);
	}
	if (slurm_only && !slurm) {
		free(in);
		return cmd_usage_error(&cmd_doctor,
				       "--dry-run, --timeout, --drain-on and --node go with --slurm");
	}
	if (slurm) {
		free(in);
		so.json = json;
		return doctor_slurm(&so);
	}
	/* OpenCL only here: serve's doctor and --slurm's leave its ICDs alone (it never drains) */
	if (doctor_collect(in, PROBE_FLAGS | PROBE_OPENCL, &e) != 0) {
		free(in);
		return cmd_report_error(&e);
	}
	doctor_check(in, &fs);
	ro.width = term_width(100);
	if (ro.width > 100)
		ro.width = 100;
	if (json)
		report_json(stdout, in, &fs);
	else
		report_human(stdout, in, &fs, &ro);
	worst = findings_worst(&fs);
	rc = worst == SEV_FAIL ? EXIT_FAIL : worst == SEV_WARN ? EXIT_WARN : EXIT_OK;
	fflush(stdout);
	if (cmd_history_wanted(&hist))
		store_history(&hist, t0, in, &fs, rc);
	if (in->sys.hung) {
		/* a vendor call is stuck in the driver: leave without running its library's exit
		 * handlers, which may wait for the stuck call */
		_exit(rc);
	}
	findings_free(&fs);
	doctor_input_free(in);
	free(in);
	return rc;
}

const struct cmd cmd_doctor = {
	.name = "doctor",
	.summary = "check the GPU stack bottom up and say how to fix what is broken",
	.usage = usage,
	.run = run_doctor,
};
