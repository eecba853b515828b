/*
 * record.c: `gpuvet record FILE`, a replayable snapshot of this machine.
 *
 * Runs everything doctor and status read (host facts, NVML, the CUDA probe) with the recorder
 * on, and writes one JSON file (docs/scenarios.md) a user can attach to a bug report.
 * `gpuvet --replay FILE <command>` runs any command against it.
 *
 * A call that hangs is the recording's most useful content: its answer is stored as
 * {"hang": true}, so the replay hangs at the same call, the file is written, and record then
 * fails like status does (exit 5) naming the call.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../checks/doctor.h"
#include "../gpu/probe.h"
#include "../gpu/topo.h"
#include "../vendor/watchdog.h"
#include "../capture/recorder.h"
#include "../capture/recording.h"
#include "../replay/replay.h"
#include "../util/file.h"
#include "../util/util.h"
#include "cmd.h"

static const char usage[] =
	"usage: gpuvet record [--scrub] [-m TEXT] [--json] FILE\n"
	"\n"
	"Write a snapshot of this machine to FILE ('-' for standard output): what NVML and the\n"
	"CUDA driver answered, and the /proc, /sys, /dev and /etc facts gpuvet read. Replay it\n"
	"anywhere with 'gpuvet --replay FILE doctor' (or status). Nothing is changed on the\n"
	"machine.\n"
	"\n"
	"options:\n"
	"  --scrub            for a file that leaves the site: replace user and group names\n"
	"                     (home folders too), host and domain names, IP and MAC addresses,\n"
	"                     UUIDs, serial numbers and disk ids with placeholders (user1,\n"
	"                     host1, 192.0.2.1, ...); drop the kernel command line values\n"
	"                     doctor does not read, the apt history's Commandline arguments\n"
	"                     and Requested-By lines, and process arguments\n"
	"                     (docs/scenarios.md lists it all)\n"
	"  -m, --message TEXT a description stored in the file\n"
	"  -j, --json         print what was recorded (path, bytes, GPUs, files, answers) as\n"
	"                     JSON on standard output, instead of the line on standard error\n"
	"  -h, --help         this help\n";

struct extra_job {
	struct gpu_system sys;
	struct err e;
};

/* What the other commands read beyond doctor: the topology (topo) and the per-process
 * utilisation samples (top, watch), so they replay from the same recording. */
static void record_extra(void *arg)
{
	struct extra_job *j = arg;
	struct probe *p = NULL;
	struct topo t;
	unsigned i;

	memset(&t, 0, sizeof(t));
	if (probe_open(&p, &j->sys, PROBE_NVML | PROBE_OTHER | PROBE_STATIC | PROBE_STATIC_SLOW,
		       &j->e) != 0) {
		probe_close(p);
		return;
	}
	/* other vendors' GPUs (doctor reads none): every tier, so that their files are kept */
	for (i = 0; i < j->sys.ngpus; i++)
		if (j->sys.gpus[i].sg)
			probe_sample_gpu(p, &j->sys.gpus[i],
					 PROBE_SAMPLE | PROBE_PROCS | PROBE_SLOW, &j->sys.gpus[i].s);
	if (j->sys.nvml_lib.loaded && j->sys.nvml_init.v == 0) {
		probe_topology(p, &j->sys, &t);
		for (i = 0; i < j->sys.ngpus; i++) {
			struct proc_util_sample *samples = NULL;
			size_t n = 0;
			struct num st;

			probe_process_util(p, &j->sys.gpus[i], 0, &samples, &n, &st);
			free(samples);
		}
		topo_free(&t);
	}
	probe_close(p);
}

/* `record --json`: what went into the file, from the capture itself. hang is the message of a
 * call that hung ("" when none). */
static void print_summary(const char *path, unsigned ngpus, bool scrub, const char *hang)
{
	struct rec_counts n;
	struct stat st;
	json_t *o;
	char *text;

	rec_count(&n);
	/* after a hang the probe may not have got to count them: the GPUs NVML answered for */
	if (!ngpus)
		ngpus = (unsigned)n.nvml_devices;
	o = json_pack("{s:s, s:i, s:b, s:I, s:I, s:{s:I, s:I}, s:{s:I, s:I}}", "path", path,
		      "gpus", (int)ngpus, "scrubbed", scrub, "files", (json_int_t)n.files,
		      "env_vars", (json_int_t)n.env_vars, "nvml", "devices",
		      (json_int_t)n.nvml_devices, "answers", (json_int_t)n.nvml_answers, "cuda",
		      "devices", (json_int_t)n.cuda_devices, "answers", (json_int_t)n.cuda_answers);
	if (!o)
		return;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		json_object_set_new(o, "bytes", json_integer((json_int_t)st.st_size));
	if (hang[0])
		json_object_set_new(o, "hang", json_string(hang));
	text = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	if (text)
		puts(text);
	free(text);
	json_decref(o);
	fflush(stdout);
}

/* Store the call the watchdog gave up on as a hang, under the library its name belongs to. */
static void record_hang(const char *call, int gpu)
{
	if (str_starts(call, "nvml"))
		rec_hang_call("nvml", gpu, call);
	else if (str_starts(call, "cu"))
		rec_hang_call("cuda", gpu, call);
}

static int run_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{"scrub", no_argument, NULL, 's'},
		{"message", required_argument, NULL, 'm'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct rec_meta meta = {GPUVET_VERSION, NULL, false};
	struct doctor_input in;
	struct err e;
	char hang_msg[sizeof(in.sys.hang_msg)] = "";
	unsigned ngpus;
	bool json = false;
	int opt, rc;

	err_clear(&e);
	while ((opt = cmd_getopt(&cmd_record, argc, argv, "m:jh", opts)) != -1) {
		switch (opt) {
		case 's': meta.scrub = true; break;
		case 'm': meta.description = optarg; break;
		case 'j': json = true; break;
		case 'h': cmd_print_usage(&cmd_record); return EXIT_OK;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error(&cmd_record, "record takes one FILE");
	if (json && strcmp(argv[optind], "-") == 0)
		return cmd_usage_error(&cmd_record, "--json prints the summary on standard output, "
						    "where 'record -' writes the recording: give a FILE");
	/* the file is written last: a path it cannot go to fails before the driver is asked
	 * (a hung driver makes that minutes) */
	if (strcmp(argv[optind], "-") != 0 && file_check_writable(argv[optind], &e) != 0)
		return cmd_report_error(&e);
	if (gopts.replay)
		fputs("gpuvet: note: recording a replay: the result repeats the replayed machine\n",
		      stderr);
	rec_start();
	/* the same reads as doctor, plus the slow PCIe throughput and energy queries */
	rc = doctor_collect(&in, PROBE_ALL, &e);
	if (rc != 0 && !in.sys.hung) {
		rec_stop();
		return cmd_report_error(&e);
	}
	if (in.sys.hung) {
		record_hang(in.sys.hang_call, in.sys.hang_gpu);
		str_copy(hang_msg, in.sys.hang_msg, sizeof(hang_msg));
	} else {
		struct extra_job *xj = xcalloc(1, sizeof(*xj));
		struct watchdog_hang hang;

		/* on a hang the job is abandoned to the stuck thread, as probe_run does */
		if (watchdog_run_report(record_extra, xj, 0, &hang, &xj->e) == 0) {
			gpu_system_free(&xj->sys);
			free(xj);
		} else {
			record_hang(hang.call, hang.gpu);
			str_copy(hang_msg, xj->e.msg, sizeof(hang_msg));
		}
	}
	ngpus = in.sys.ngpus;
	rc = rec_write(argv[optind], &meta, &e);
	doctor_input_free(&in);
	if (hang_msg[0]) {
		/* the recording is the evidence; the stuck call may never return, so leave without
		 * the library's exit handlers, as status does */
		if (rc != 0)
			cmd_report_error(&e);
		else if (json)
			print_summary(argv[optind], ngpus, meta.scrub, hang_msg);
		else if (strcmp(argv[optind], "-") != 0)
			fprintf(stderr, "gpuvet: recorded %s with the call that hung\n",
				argv[optind]);
		err_set(&e, EXIT_UNAVAILABLE, "%s", hang_msg);
		err_hint(&e, "the driver is not answering; run 'gpuvet doctor', and attach the "
			     "recording to a bug report");
		fflush(stdout);
		replay_finish();
		_exit(cmd_report_error(&e));
	}
	if (rc == 0 && json)
		print_summary(argv[optind], ngpus, meta.scrub, "");
	rec_stop();
	if (rc != 0)
		return cmd_report_error(&e);
	if (!json && strcmp(argv[optind], "-") != 0)
		fprintf(stderr, "gpuvet: recorded %u GPU%s to %s\n", ngpus, ngpus == 1 ? "" : "s",
			argv[optind]);
	return EXIT_OK;
}

const struct cmd cmd_record = {
	.name = "record",
	.summary = "write a replayable snapshot of this machine",
	.usage = usage,
	.run = run_record,
};
