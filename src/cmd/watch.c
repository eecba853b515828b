/*
 * watch.c: `gpuvet watch`, a line per GPU per interval, like `nvidia-smi dmon` but for any
 * number of GPUs, with the fields chosen on the command line (dmon's short names, the
 * collector's values, or any `gpuvet status --query` field), as text, CSV or JSON lines;
 * `--processes` adds the processes like `nvidia-smi pmon` (without its 4-GPU limit).
 *
 * The collector (gpu/collector.c) reads only what the chosen columns need, so
 * `watch -f sm,fb,gtemp,pwr,pclk,reasons --self-cost` measures the collector on exactly those
 * fields (tests/gpu/monitor-h200.sh compares it with raw NVML and nvidia-smi).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../gpu/collector.h"
#include "../gpu/select.h"
#include "../tui/columns.h"
#include "../tui/fmt.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "../history/record.h"
#include "cmd.h"
#include "history_hook.h"
#include "mon_json.h"
#include "mon_source.h"

#define MAX_COLS 64

static const char usage[] =
	"usage: gpuvet watch [-d SEC] [-c N] [-s GROUPS] [-f FIELDS] [-i IDS] [-o D|T|DT]\n"
	"                    [--csv | --json] [--processes] [--time] [--no-header] [--self-cost]\n"
	"                    [--history[=DB]]\n"
	"\n"
	"A line per GPU per interval, like 'nvidia-smi dmon', for any number of GPUs. Values that\n"
	"a GPU does not support print '-' (absent in JSON). Rates (PCIe, NVLink, energy) come from\n"
	"counters and appear from the second interval on. A GPU that stops answering says so in\n"
	"its row on time; the others go on.\n"
	"\n"
	"options:\n"
	"  -d, --delay SEC     seconds between lines (default 1; fractions allowed, min 0.001);\n"
	"                      --interval is the same\n"
	"  -c, --count N       stop after N intervals (default: until interrupted)\n"
	"  -s, --select GROUPS dmon's metric groups, in dmon's column order (default puc):\n"
	"                      p power and temperatures, u utilisation (sm mem enc dec jpg ofa),\n"
	"                      c clocks, v power and thermal violations, m FB and BAR1 memory,\n"
	"                      e ECC errors and PCIe replays, t PCIe rx and tx\n"
	"  -f, --fields LIST   columns, comma-separated (after the groups' with -s): dmon's names\n"
	"                      (gpu pwr gtemp mtemp sm mem enc dec jpg ofa mclk pclk pviol tviol\n"
	"                      fb bar1 sbecc dbecc pci rxpci txpci), gpuvet's (smact smocc tensor\n"
	"                      dram nvrx nvtx epwr tmarg procs reasons state) or any field of\n"
	"                      'gpuvet status --help-query'\n"
	"  -i, --id IDS        only these GPUs: index, UUID or PCI bus id (comma-separated)\n"
	"  -o, --options D|T|DT  the date (YYYYMMDD) and/or the time (HH:MM:SS) in front of text\n"
	"                      lines, as dmon\n"
	"      --csv           comma-separated values with a header line\n"
	"      --json          one JSON object per line (kind \"gpu\" or \"process\")\n"
	"      --processes     also the GPU processes: PID, type, SM %, GPU memory, the CPU %\n"
	"                      of the whole process tree, command (with --csv: processes only)\n"
	"  -t, --time          the same as -o T\n"
	"      --no-header     no header lines\n"
	"      --self-cost     at the end, print the collector's own CPU time to stderr\n"
	"      --history[=DB]  also store what happens in the history database (the default one,\n"
	"                      or DB; GPUVET_HISTORY=1 does the same): Xid, ECC and remap\n"
	"                      changes, throttle episodes, GPUs lost or hung, cards that moved\n"
	"      --no-agent      read NVML even when 'gpuvet serve' runs (also GPUVET_NO_AGENT=1)\n"
	"      --help-fields   list the column names\n"
	"  -h, --help          this help\n"
	"\n"
	"When 'gpuvet serve' runs and samples what the columns need at this interval (or a\n"
	"divisor of it), watch reads serve's samples through its agent instead of NVML; JSON\n"
	"lines say which in \"source\", and 'gpuvet -v watch' says why not (docs/cmd/watch.md).\n"
	"\n"
	"Ctrl-C or SIGTERM ends it with exit status 130; a reader that goes away, with 141.\n";

enum out_fmt { OUT_TEXT, OUT_CSV, OUT_JSON };

struct watch_opts {
	double interval;
	long count;
	const char *fields, *ids, *groups;
	enum out_fmt fmt;
	bool procs, date, time, no_header, self_cost, no_agent;
	struct cmd_history hist;
};

static volatile sig_atomic_t interrupted;
static const char *source = "nvml"; /* of the snapshot printed: "agent" or "nvml" */

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void print_field_name(const char *name, const char *unit, const char *what)
{
	printf("  %-8s %-5s %s\n", name, unit, what);
}

static int help_fields(void)
{
	puts("watch's own column names:");
	column_list(print_field_name);
	puts("\nand every field of 'gpuvet status --help-query' (nvidia-smi --query-gpu names).");
	return EXIT_OK;
}

/* The columns of list, after the *n already in cols (a column named twice is shown once). */
static int parse_fields(const char *list, struct column *cols, size_t *n)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	size_t i;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		str_trim(tok);
		if (!*tok)
			continue;
		if (*n >= MAX_COLS) {
			free(copy);
			return cmd_usage_error(&cmd_watch, "at most %d fields", MAX_COLS);
		}
		if (!column_find(tok, &cols[*n])) {
			fprintf(stderr, "gpuvet: error: unknown field '%s'\n", tok);
			fputs("gpuvet: hint: 'gpuvet watch --help-fields' lists them\n", stderr);
			free(copy);
			return EXIT_USAGE;
		}
		for (i = 0; i < *n && strcmp(cols[i].key, cols[*n].key) != 0; i++)
			;
		if (i == *n)
			(*n)++;
	}
	free(copy);
	if (!*n)
		return cmd_usage_error(&cmd_watch, "--fields needs at least one field");
	return 0;
}

/* ---- text and CSV ---------------------------------------------------------------------------- */

static void header(const struct watch_opts *o, const struct column *cols, size_t n)
{
	size_t i;

	if (o->no_header)
		return;
	if (o->fmt == OUT_CSV) {
		if (o->procs) {
			puts("time,gpu,pid,type,sm_pct,mem_pct,gpu_mem_mib,tree_cpu_pct,tree_procs,"
			     "user,container,command");
			return;
		}
		fputs("time", stdout);
		for (i = 0; i < n; i++) {
			if (cols[i].unit[0])
				printf(",%s [%s]", cols[i].name, cols[i].unit);
			else
				printf(",%s", cols[i].name);
		}
		putchar('\n');
		return;
	}
	/* dmon's -o DT headers; the '#' stands where a row has its first space */
	fputs("#", stdout);
	if (o->date)
		printf("%-8s ", "Date");
	if (o->time)
		printf("%-8s ", "Time");
	for (i = 0; i < n; i++)
		printf("%s%*s", i ? " " : "", cols[i].width, cols[i].name);
	fputs("\n#", stdout);
	if (o->date)
		printf("%-8s ", "YYYYMMDD");
	if (o->time)
		printf("%-8s ", "HH:MM:SS");
	for (i = 0; i < n; i++)
		printf("%s%*s", i ? " " : "", cols[i].width, cols[i].unit);
	putchar('\n');
}

static void csv_text(const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_gpu_text(const struct watch_opts *o, const struct mon_snapshot *s,
			   const struct mon_gpu *mg, const struct column *cols, size_t n)
{
	size_t i;
	char t[16], v[160];
	double num;
	bool isnum;

	putchar(' ');
	if (o->date || o->time) {
		time_t now = (time_t)s->wall;
		struct tm tm;

		localtime_r(&now, &tm);
		if (o->date) {
			strftime(t, sizeof(t), "%Y%m%d", &tm);
			printf("%-8s ", t);
		}
		if (o->time) {
			strftime(t, sizeof(t), "%H:%M:%S", &tm);
			printf("%-8s ", t);
		}
	}
	for (i = 0; i < n; i++) {
		if ((mg->lost || mg->hung) && cols[i].kind != COL_INDEX) {
			printf(" %s", mg->problem[0] ? mg->problem : mg->lost ? "GPU is lost" : "GPU hung");
			break;
		}
		column_value(&cols[i], s, mg, v, sizeof(v), &num, &isnum);
		printf("%s%*s", i ? " " : "", cols[i].width, v);
	}
	putchar('\n');
}

static void print_gpu_csv(const struct mon_snapshot *s, const struct mon_gpu *mg,
			  const struct column *cols, size_t n)
{
	char v[160], t[32];
	size_t i;
	double num;
	bool isnum;

	fputs(fmt_clock(t, sizeof(t), s->wall), stdout);
	for (i = 0; i < n; i++) {
		putchar(',');
		if ((mg->lost || mg->hung) && cols[i].kind != COL_INDEX) {
			fputs(mg->lost ? "[GPU is lost]" : "[GPU hung]", stdout);
			continue;
		}
		if (!column_value(&cols[i], s, mg, v, sizeof(v), &num, &isnum))
			fputs("[N/A]", stdout);
		else
			csv_text(v);
	}
	putchar('\n');
}

static void proc_text_header(void)
{
	puts("# gpu      pid type   sm  mem  enc  dec   fb MiB  tree cpu%  procs  user      "
	     "container     command");
}

static void print_procs_text(const struct mon_snapshot *s)
{
	unsigned gi;
	size_t i;

	for (gi = 0; gi < s->ngpus; gi++) {
		bool any = false;

		if (!s->gpus[gi].selected)
			continue;
		for (i = 0; i < s->nprocs; i++) {
			const struct mon_proc *p = &s->procs[i];
			char sm[8], mem[8], enc[8], dec[8], fb[16], cpu[16], np[8], cmd[100];

			if (p->gpu != gi)
				continue;
			any = true;
			str_fmt(sm, sizeof(sm), p->sm_pct < 0 ? "-" : "%d", p->sm_pct);
			str_fmt(mem, sizeof(mem), p->mem_pct < 0 ? "-" : "%d", p->mem_pct);
			str_fmt(enc, sizeof(enc), p->enc_pct < 0 ? "-" : "%d", p->enc_pct);
			str_fmt(dec, sizeof(dec), p->dec_pct < 0 ? "-" : "%d", p->dec_pct);
			if (p->gpu_mem_bytes >= 0)
				str_fmt(fb, sizeof(fb), "%lld", (long long)(p->gpu_mem_bytes / (1024 * 1024)));
			else
				str_copy(fb, "-", sizeof(fb));
			if (p->mapped && p->host.tree_cpu_pct >= 0)
				str_fmt(cpu, sizeof(cpu), "%.1f", p->host.tree_cpu_pct);
			else
				str_copy(cpu, "-", sizeof(cpu));
			if (p->mapped)
				str_fmt(np, sizeof(np), "%u", p->host.tree_nprocs);
			else
				str_copy(np, "-", sizeof(np));
			fmt_fit(cmd, sizeof(cmd), p->mapped ? p->host.cmd : "(not visible here)", 60);
			printf(" %4u %8u %4c %4s %4s %4s %4s %8s %10s %6s  %-9.9s %-12.12s  %s\n", gi,
			       p->nvml_pid, p->type == 'B' ? 'B' : p->type, sm, mem, enc, dec, fb, cpu,
			       np, p->mapped ? p->host.user : "-",
			       p->mapped && p->host.container[0] ? p->host.container : "-", cmd);
		}
		if (!any && !s->gpus[gi].lost && !s->gpus[gi].hung)
			printf(" %4u %8s %4s %4s %4s %4s %4s %8s %10s %6s  %-9s %-12s  %s\n", gi, "-",
			       "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-");
	}
}

static void print_procs_csv(const struct mon_snapshot *s)
{
	size_t i;
	char t[32];

	fmt_clock(t, sizeof(t), s->wall);
	for (i = 0; i < s->nprocs; i++) {
		const struct mon_proc *p = &s->procs[i];

		if (!s->gpus[p->gpu].selected)
			continue;
		printf("%s,%u,%u,%c,", t, p->gpu, p->nvml_pid, p->type);
		if (p->sm_pct >= 0)
			printf("%d,%d,", p->sm_pct, p->mem_pct);
		else
			fputs("[N/A],[N/A],", stdout);
		if (p->gpu_mem_bytes >= 0)
			printf("%lld,", (long long)(p->gpu_mem_bytes / (1024 * 1024)));
		else
			fputs("[N/A],", stdout);
		if (p->mapped && p->host.tree_cpu_pct >= 0)
			printf("%.1f,%u,", p->host.tree_cpu_pct, p->host.tree_nprocs);
		else if (p->mapped)
			printf("[N/A],%u,", p->host.tree_nprocs);
		else
			fputs("[N/A],[N/A],", stdout);
		csv_text(p->mapped ? p->host.user : "");
		putchar(',');
		csv_text(p->mapped ? p->host.container : "");
		putchar(',');
		csv_text(p->mapped ? p->host.cmd : "");
		putchar('\n');
	}
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static void put_json(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));

	puts(s);
	free(s);
	json_decref(o);
}

static void print_gpu_json(const struct mon_snapshot *s, const struct mon_gpu *mg,
			   const struct column *cols, size_t n)
{
	json_t *o = json_object();
	size_t i;

	json_object_set_new(o, "kind", json_string("gpu"));
	json_object_set_new(o, "time", json_real(round(s->wall * 1000.0) / 1000.0));
	json_object_set_new(o, "gpu", json_integer(mg->g.index));
	json_object_set_new(o, "source", json_string(source));
	json_object_set_new(o, "state",
			    json_string(mon_json_state(mg)));
	if (mg->problem[0])
		json_object_set_new(o, "problem", json_string(mg->problem));
	for (i = 0; i < n && !mg->lost && !mg->hung; i++)
		if (cols[i].kind != COL_INDEX && cols[i].kind != COL_STATE)
			mon_json_column(o, &cols[i], s, mg);
	put_json(o);
}

static void print_procs_json(const struct mon_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nprocs; i++) {
		const struct mon_proc *p = &s->procs[i];
		json_t *o;

		if (!s->gpus[p->gpu].selected)
			continue;
		o = json_object();
		json_object_set_new(o, "kind", json_string("process"));
		json_object_set_new(o, "time", json_real(round(s->wall * 1000.0) / 1000.0));
		mon_json_process(o, p);
		put_json(o);
	}
}

/* ---- the loop -------------------------------------------------------------------------------- */

static void self_cost(const struct mon_snapshot *s, double self_cpu_s, uint64_t ticks, bool json)
{
	const struct mon_cost *c = &s->cost;
	double per = c->gpu_samples ? 1.0 / (double)c->gpu_samples : 0;
	double ticks_d = c->fast_ticks ? (double)c->fast_ticks : 1;
	unsigned sel = 0, i;

	for (i = 0; i < s->ngpus; i++)
		sel += s->gpus[i].selected && !s->gpus[i].lost && !s->gpus[i].hung;
	if (json) {
		json_t *o = json_object();

		json_object_set_new(o, "kind", json_string("self_cost"));
		json_object_set_new(o, "fast_ticks", json_integer((json_int_t)c->fast_ticks));
		json_object_set_new(o, "gpus", json_integer(sel));
		json_object_set_new(o, "collector_us_per_tick_per_gpu",
				    json_real(c->fast_cpu_ns * per / 1000.0));
		json_object_set_new(o, "fast_fields_us_per_tick_per_gpu",
				    json_real(c->fast_nvml_cpu_ns * per / 1000.0));
		json_object_set_new(o, "process_lists_us_per_tick_per_gpu",
				    json_real(c->procs_nvml_cpu_ns * per / 1000.0));
		json_object_set_new(o, "gpm_us_per_tick_per_gpu", json_real(c->gpm_cpu_ns * per / 1000.0));
		json_object_set_new(o, "proc_reads_us_per_tick", json_real(c->host_cpu_ns / ticks_d / 1000.0));
		json_object_set_new(o, "slow_ms_per_tick",
				    json_real(c->slow_ticks ? c->slow_cpu_ns / 1e6 / (double)c->slow_ticks : 0));
		json_object_set_new(o, "process_us_per_tick_per_gpu",
				    json_real(ticks && sel ? self_cpu_s * 1e6 / (double)ticks / sel : 0));
		{
			char *str = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

			fprintf(stderr, "%s\n", str);
			free(str);
		}
		json_decref(o);
		return;
	}
	fprintf(stderr,
		"# self-cost: %llu fast ticks on %u GPU%s: collector %.1f us CPU per tick per GPU "
		"(fields %.1f, process lists %.1f, GPM %.1f; /proc %.1f us per tick); slow tier %.2f ms "
		"per tick; whole gpuvet %.1f us per tick per GPU\n",
		(unsigned long long)c->fast_ticks, sel, sel == 1 ? "" : "s", c->fast_cpu_ns * per / 1000.0,
		c->fast_nvml_cpu_ns * per / 1000.0, c->procs_nvml_cpu_ns * per / 1000.0,
		c->gpm_cpu_ns * per / 1000.0, c->host_cpu_ns / ticks_d / 1000.0,
		c->slow_ticks ? c->slow_cpu_ns / 1e6 / (double)c->slow_ticks : 0.0,
		ticks && sel ? self_cpu_s * 1e6 / (double)ticks / sel : 0.0);
}

static double process_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* Wait for a snapshot newer than *seq, in short slices so that Ctrl-C ends even a long
 * interval at once: -1 when interrupted; 0 with *seq the newer one, or 0 when none came within
 * 30 s past the interval (the loop reports it). */
static int wait_tick(struct collector *c, uint64_t *seq, double interval)
{
	int64_t give_up = now_ns() + (int64_t)((interval + 30.0) * 1e9);

	while (!interrupted) {
		uint64_t next = collector_wait(c, *seq, 100);

		if (next != *seq) {
			*seq = next;
			return 0;
		}
		if (now_ns() >= give_up) {
			*seq = 0;
			return 0;
		}
	}
	return -1;
}

/* --history: the database opens before sampling starts (a bad path is said at once, exit 3);
 * a failed write later is a warning, once until a write succeeds again, and watch goes on. */
static bool history_failing;

static int history_open(const struct watch_opts *o, struct hist_live **hl)
{
	char path[4096], host[128];
	struct err e;

	err_clear(&e);
	cmd_history_host(host, sizeof(host));
	if (hist_path(o->hist.db, path, sizeof(path), &e) != 0 ||
	    hist_live_open(hl, path, host, &e) != 0)
		return cmd_report_error(&e);
	return 0;
}

static void history_tick(struct hist_live *hl, const struct mon_snapshot *prev,
			 const struct mon_snapshot *cur)
{
	struct err e;

	if (!hl)
		return;
	err_clear(&e);
	if (hist_live_tick(hl, prev, cur, NULL, &e) == 0) {
		history_failing = false;
		return;
	}
	if (history_failing)
		return;
	history_failing = true;
	fprintf(stderr, "gpuvet: warning: history not stored: %s\n", e.msg);
	if (e.hint[0])
		fprintf(stderr, "gpuvet: hint: %s (events are kept and tried again)\n", e.hint);
}

static int run_loop(const struct watch_opts *o, struct column *cols, size_t ncols, bool user_fields)
{
	struct mon_opts mo;
	struct collector *c = NULL;
	struct mon_snapshot s, prev;
	struct hist_live *hl = NULL;
	struct err e;
	uint64_t seq = 0, first_seq = 0;
	long printed = 0;
	double cpu_first = 0;
	size_t i;
	bool need_slow = false, need_gpm = false;
	unsigned need = 0;
	int rc = EXIT_OK;

	memset(&mo, 0, sizeof(mo));
	memset(&s, 0, sizeof(s));
	memset(&prev, 0, sizeof(prev));
	err_clear(&e);
	mo.fast_ns = (int64_t)(o->interval * 1e9);
	mo.procs = o->procs;
	mo.ids = o->ids;
	if (!user_fields)
		ncols = column_defaults(cols, MAX_COLS, true);
	/* ask the collector for what the columns need, and nothing else */
	for (i = 0; i < ncols; i++) {
		need |= cols[i].need_fast;
		need_slow |= cols[i].need_slow;
		need_gpm |= cols[i].need_gpm;
		mo.procs |= cols[i].need_procs;
	}
	mo.fast_mask = need ? need : PF_UTIL;
	mo.gpm = need_gpm;
	if (cmd_history_wanted(&o->hist)) {
		/* the events need the clock-event reasons and the slow tier's counters */
		mo.fast_mask |= PF_CLOCK_EVENTS;
		need_slow = true;
	}
	mo.slow_ns = need_slow ? (mo.fast_ns > 1000000000LL ? mo.fast_ns : 1000000000LL) : -1;
	if (cmd_history_wanted(&o->hist) && (rc = history_open(o, &hl)) != 0)
		return rc;
	/* --self-cost measures a collector of its own: never the agent's */
	if (mon_source_open(&c, &mo, mo.fast_ns, o->no_agent || o->self_cost, gopts.verbose, &e) !=
	    0) {
		hist_live_close(hl);
		return cmd_report_error(&e);
	}
	if (wait_tick(c, &seq, 0) != 0)
		goto out;
	collector_copy(c, &s);
	source = collector_source_name(c);
	if (gopts.verbose && strcmp(source, "agent") == 0)
		fputs("gpuvet: note: reading gpuvet serve's samples through its agent\n", stderr);
	history_tick(hl, NULL, &s);
	if (s.ngpus == 0) {
		printf("no NVIDIA GPU found by NVML (driver %s)\n",
		       s.driver_version[0] ? s.driver_version : "n/a");
		goto out;
	}
	if (!user_fields) {
		bool any_gpm = false;

		for (i = 0; i < s.ngpus; i++)
			if (num_ok(&s.gpus[i].gpm_supported) && s.gpus[i].gpm_supported.v)
				any_gpm = true;
		ncols = column_defaults(cols, MAX_COLS, any_gpm);
	}
	if (o->fmt != OUT_JSON)
		header(o, cols, ncols);
	if (o->fmt == OUT_TEXT && o->procs && !o->no_header)
		proc_text_header();
	first_seq = seq;
	cpu_first = process_cpu_s();
	while (!interrupted) {
		unsigned gi;

		if (!seq) {
			fputs("gpuvet: error: the collector produced nothing within 30 s\n", stderr);
			rc = EXIT_ERROR;
			break;
		}
		for (gi = 0; gi < s.ngpus; gi++) {
			const struct mon_gpu *mg = &s.gpus[gi];

			if (!mg->selected)
				continue;
			if (o->fmt == OUT_JSON)
				print_gpu_json(&s, mg, cols, ncols);
			else if (o->fmt == OUT_CSV && !o->procs)
				print_gpu_csv(&s, mg, cols, ncols);
			else if (o->fmt == OUT_TEXT)
				print_gpu_text(o, &s, mg, cols, ncols);
		}
		if (o->procs) {
			if (o->fmt == OUT_JSON)
				print_procs_json(&s);
			else if (o->fmt == OUT_CSV)
				print_procs_csv(&s);
			else
				print_procs_text(&s);
		}
		if (s.note[0] && o->fmt == OUT_TEXT && printed == 0)
			printf("# note: %s\n", s.note);
		if (s.stalled) {
			fprintf(stderr, "gpuvet: error: NVML stopped answering: %s\n", s.stall_msg);
			rc = EXIT_FAIL;
			break;
		}
		/* SIGPIPE is ignored (the collector's threads must not die of it): a write error
		 * says the reader went away, `watch | head -1`; stop as a SIGPIPE would */
		if (fflush(stdout) != 0 || ferror(stdout)) {
			rc = EXIT_PIPE;
			break;
		}
		if (++printed >= o->count && o->count > 0)
			break;
		if (wait_tick(c, &seq, o->interval) != 0)
			break; /* interrupted; or seq 0 says the collector went quiet */
		if (hl) {
			mon_snapshot_free(&prev);
			prev = s; /* the snapshot's buffers move; the next copy allocates anew */
			memset(&s, 0, sizeof(s));
		}
		collector_copy(c, &s);
		mon_source_note(c);
		source = collector_source_name(c);
		history_tick(hl, &prev, &s);
	}
	if (o->self_cost)
		self_cost(&s, process_cpu_s() - cpu_first, s.cost.fast_ticks - (first_seq ? 1 : 0),
			  o->fmt == OUT_JSON);
out:
	fflush(stdout);
	mon_snapshot_free(&s);
	mon_snapshot_free(&prev);
	collector_close(c);
	hist_live_close(hl);
	return interrupted ? EXIT_INTERRUPTED : rc;
}

static int parse_interval(const char *arg, double *out)
{
	char *end = NULL;

	*out = strtod(arg, &end);
	if (!end || end == arg || *end || !(*out >= 0.001) || *out > 86400)
		return cmd_usage_error(&cmd_watch, "--delay takes seconds from 0.001 to 86400, not '%s'",
				       arg);
	return 0;
}

/* dmon's -o: D the date, T the time, in either order */
static int parse_options(const char *arg, struct watch_opts *o)
{
	const char *p;

	for (p = arg; *p; p++) {
		if (*p == 'D' || *p == 'd')
			o->date = true;
		else if (*p == 'T' || *p == 't')
			o->time = true;
		else
			break;
	}
	if (!*arg || *p)
		return cmd_usage_error(&cmd_watch, "-o takes D, T or DT, not '%s'", arg);
	return 0;
}

static int run_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{"delay", required_argument, NULL, 'd'},
		{"interval", required_argument, NULL, 'd'},
		{"count", required_argument, NULL, 'c'},
		{"select", required_argument, NULL, 's'},
		{"fields", required_argument, NULL, 'f'},
		{"id", required_argument, NULL, 'i'},
		{"options", required_argument, NULL, 'o'},
		{"csv", no_argument, NULL, 'C'},
		{"json", no_argument, NULL, 'J'},
		{"processes", no_argument, NULL, 'p'},
		{"time", no_argument, NULL, 't'},
		{"no-header", no_argument, NULL, 'N'},
		{"self-cost", no_argument, NULL, 'S'},
		{"help-fields", no_argument, NULL, 'H'},
		{"no-agent", no_argument, NULL, 'A'},
		CMD_HISTORY_OPTION,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct watch_opts o;
	struct column cols[MAX_COLS];
	size_t ncols = 0;
	struct err e;
	int opt, rc, bad;

	memset(&o, 0, sizeof(o));
	err_clear(&e);
	o.interval = 1.0;
	/* -g: the GPU before -i took dmon's meaning; kept, no longer shown */
	while ((opt = cmd_getopt(&cmd_watch, argc, argv, "d:c:s:f:i:g:o:pth", opts)) != -1) {
		switch (opt) {
		case 'd':
			if ((rc = parse_interval(optarg, &o.interval)) != 0)
				return rc;
			break;
		case 'c': {
			int64_t v;

			if (parse_i64(optarg, &v) != 0 || v < 1)
				return cmd_usage_error(&cmd_watch, "--count takes a positive number, not '%s'",
						       optarg);
			o.count = (long)v;
			break;
		}
		case 's': o.groups = optarg; break;
		case 'f': o.fields = optarg; break;
		case 'i':
		case 'g':
			/* a malformed list is a usage error before NVML is asked */
			if (select_parse(optarg, NULL, &e) != 0)
				return cmd_report_error(&e);
			o.ids = optarg;
			break;
		case 'o':
			if ((rc = parse_options(optarg, &o)) != 0)
				return rc;
			break;
		case 'C': o.fmt = OUT_CSV; break;
		case 'J': o.fmt = OUT_JSON; break;
		case 'p': o.procs = true; break;
		case 't': o.time = true; break;
		case 'N': o.no_header = true; break;
		case 'S': o.self_cost = true; break;
		case 'H': return help_fields();
		case 'A': o.no_agent = true; break;
		case CMD_HISTORY_OPT: cmd_history_option(&o.hist, optarg); break;
		case 'h': cmd_print_usage(&cmd_watch); return EXIT_OK;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (optind < argc)
		return cmd_usage_error(&cmd_watch, "unexpected argument '%s'", argv[optind]);
	if (o.groups && (bad = column_groups(o.groups, cols, MAX_COLS, &ncols)) != 0)
		return cmd_usage_error(&cmd_watch,
				       "-s takes dmon's metric groups (p u c v m e t), not '%c'", bad);
	if (o.groups && !o.groups[0])
		return cmd_usage_error(&cmd_watch, "-s needs at least one group (p u c v m e t)");
	if (o.fields && (rc = parse_fields(o.fields, cols, &ncols)) != 0)
		return rc;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	return run_loop(&o, cols, ncols, o.fields != NULL || o.groups != NULL);
}

const struct cmd cmd_watch = {
	.name = "watch",
	.summary = "a line per GPU per interval (dmon for any number of GPUs)",
	.usage = usage,
	.run = run_watch,
};
