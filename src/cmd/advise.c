/*
 * advise.c: `gpuvet advise`: why a running job underuses its GPU, seen from outside the
 * process. It finds the job (PIDs named, the calling user's GPU processes, or a command it
 * starts after --), samples it every tick (advise/sample.c), diagnoses the timeline
 * (advise/diagnose.h) and prints the bottlenecks ranked, with evidence and fixes
 * (advise_report.c). --record saves the timeline, --from diagnoses a saved one
 * (advise/timeline_json.c). docs/cmd/advise.md describes it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../advise/diagnose.h"
#include "../advise/sample.h"
#include "../advise/timeline_json.h"
#include "../gpu/select.h"
#include "../host/proctree.h"
#include "../util/file.h"
#include "../util/util.h"
#include "advise_report.h"
#include "cmd.h"

static const char usage[] =
    "usage: gpuvet advise [PID...] [-i IDS] [--duration SEC] [--interval MS] [--json]\n"
    "                     [--html FILE] [--record FILE]\n"
    "       gpuvet advise [options] -- COMMAND [ARG...]\n"
    "       gpuvet advise --from FILE [--json] [--html FILE]\n"
    "\n"
    "Why a job underuses its GPU, from outside the process: samples the GPU (utilisation,\n"
    "GPM's SM activity, PCIe and NVLink traffic, clocks, memory) and the job's host side\n"
    "(CPU of its main process, busiest thread and data-loader workers, I/O, pressure,\n"
    "cgroup throttling) every tick, then prints the bottlenecks it found, worst first, each\n"
    "with the measured evidence and the fix. Without PID: the GPU processes of the calling\n"
    "user (every user's for root). With -- COMMAND: starts it (it keeps the terminal),\n"
    "waits until it holds a GPU, samples, reports, waits for it to end and exits with its\n"
    "status.\n"
    "\n"
    "options:\n"
    "  -i, --id IDS        only these GPUs: index, UUID or PCI bus id (comma-separated)\n"
    "  -d, --duration SEC  how long to sample (default 30, 1 to 3600)\n"
    "      --interval MS   the tick (default 100, 50 to 1000)\n"
    "      --wait SEC      with -- COMMAND: how long to wait for its first GPU context\n"
    "                      (default 300)\n"
    "  -j, --json          print the report as JSON\n"
    "      --html FILE     also write a page with the timelines the verdict rests on\n"
    "      --record FILE   also save the sampled timeline (JSON), for --from\n"
    "      --from FILE     diagnose a saved timeline; nothing is sampled\n"
    "  -h, --help          this help\n"
    "\n"
    "Exit status: 0 nothing holds the job back, 1 a bottleneck was found, 2 a severe one,\n"
    "3 a file cannot be read or written, 4 bad command line, 5 no GPU process to advise on.\n"
    "With -- COMMAND: the command's own exit status. Ctrl-C stops the sampling and reports\n"
    "what was sampled (the command gets Ctrl-C too).\n";

struct advise_opts {
	unsigned pids[ADV_MAX_PROCS];
	size_t npids;
	char **cmd; /* after --, NULL none */
	const char *ids, *html, *record, *from;
	int64_t duration_ns, tick_ns, wait_ns;
	bool json;
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* The started command, watched from the sampler's progress calls. */
struct child {
	pid_t pid;
	bool ended;
	int status;
};

struct progress {
	struct child *child;
	bool tty;
	int64_t duration_ns;
};

static bool child_ended(struct child *ch)
{
	if (!ch || !ch->pid || ch->ended)
		return ch && ch->ended;
	if (waitpid(ch->pid, &ch->status, WNOHANG) == ch->pid)
		ch->ended = true;
	return ch->ended;
}

static bool on_progress(void *arg, const struct adv_timeline *tl, int64_t left_ns)
{
	struct progress *p = arg;

	if (stop_signal || child_ended(p->child))
		return false;
	if (p->tty) {
		if (tl->nticks == 0) {
			fprintf(stderr, "\radvise: waiting for the job's GPU context...   ");
		} else {
			const struct adv_tick *t = &tl->ticks[tl->nticks - 1];
			int g;

			fprintf(stderr, "\radvise: PID %u, %lld s left", tl->pid,
				(long long)((left_ns > 0 ? left_ns : 0) / 1000000000LL));
			for (g = 0; g < tl->ngpus; g++)
				if (tl->gpus[g].job_holds && num_ok(&t->g[g].util_pct)) {
					fprintf(stderr, ", GPU %d util %3lld%%", tl->gpus[g].index,
						(long long)t->g[g].util_pct.v);
					break;
				}
			fprintf(stderr, "   ");
		}
		fflush(stderr);
	}
	return true;
}

static int parse_opts(int argc, char **argv, struct advise_opts *o)
{
	static const struct option opts[] = {
	    {"id", required_argument, NULL, 'i'},       {"duration", required_argument, NULL, 'd'},
	    {"interval", required_argument, NULL, 'I'}, {"wait", required_argument, NULL, 'W'},
	    {"json", no_argument, NULL, 'j'},           {"html", required_argument, NULL, 'H'},
	    {"record", required_argument, NULL, 'R'},   {"from", required_argument, NULL, 'F'},
	    {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
	};
	struct err e;
	int opt, i, nopt = argc;
	int64_t v;

	memset(o, 0, sizeof(*o));
	o->duration_ns = 30000000000LL;
	o->tick_ns = ADV_TICK_DEFAULT_NS;
	o->wait_ns = 300000000000LL;
	err_clear(&e);
	/* what follows "--" is the command to start: getopt never sees it */
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			nopt = i;
			o->cmd = &argv[i + 1];
			break;
		}
	while ((opt = cmd_getopt(&cmd_advise, nopt, argv, "i:d:jh", opts)) != -1) {
		switch (opt) {
		case 'i':
			if (select_parse(optarg, NULL, &e) != 0)
				return cmd_report_error(&e);
			o->ids = optarg;
			break;
		case 'd': {
			char *end = NULL;
			double sec = strtod(optarg, &end);

			if (!end || *end || !(sec >= 1) || sec > 3600)
				return cmd_usage_error(
				    &cmd_advise, "--duration takes 1 to 3600 seconds, not '%s'",
				    optarg);
			o->duration_ns = (int64_t)(sec * 1e9);
			break;
		}
		case 'I':
			if (parse_i64(optarg, &v) != 0 || v < 50 || v > 1000)
				return cmd_usage_error(&cmd_advise,
						       "--interval takes 50 to 1000 ms, not '%s'",
						       optarg);
			o->tick_ns = v * 1000000;
			break;
		case 'W':
			if (parse_i64(optarg, &v) != 0 || v < 1 || v > 86400)
				return cmd_usage_error(&cmd_advise,
						       "--wait takes 1 to 86400 seconds, not '%s'",
						       optarg);
			o->wait_ns = v * 1000000000LL;
			break;
		case 'j': o->json = true; break;
		case 'H': o->html = optarg; break;
		case 'R': o->record = optarg; break;
		case 'F': o->from = optarg; break;
		case 'h': cmd_print_usage(&cmd_advise); return EXIT_OK;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	for (i = optind; i < nopt; i++) {
		if (parse_i64(argv[i], &v) != 0 || v <= 0 || v > 4194304)
			return cmd_usage_error(&cmd_advise, "'%s' is not a PID", argv[i]);
		if (o->npids == ADV_MAX_PROCS)
			return cmd_usage_error(&cmd_advise, "at most %d PIDs", ADV_MAX_PROCS);
		o->pids[o->npids++] = (unsigned)v;
	}
	if (o->cmd && !o->cmd[0])
		return cmd_usage_error(&cmd_advise, "no command after '--'");
	if (o->cmd && o->npids)
		return cmd_usage_error(&cmd_advise, "PIDs and -- COMMAND do not go together");
	if (o->from && (o->cmd || o->npids || o->record || o->ids))
		return cmd_usage_error(&cmd_advise, "--from reads a saved timeline: no PID, "
						    "-- COMMAND, -i or --record with it");
	if (o->cmd && gopts.replay)
		return cmd_usage_error(&cmd_advise,
				       "-- COMMAND starts a real job: not with --replay");
	return -1;
}

/* Start the command, inheriting the terminal. Reports a failed exec through a pipe closed on
 * exec, so "not found" is an error of advise, not a silent child exit. */
static int start_child(char **cmdv, struct child *ch, struct err *e)
{
	int fds[2], code = 0;
	ssize_t got;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return err_set(e, EXIT_ERROR, "cannot start '%s': %s", cmdv[0], strerror(errno));
	ch->pid = fork();
	if (ch->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_set(e, EXIT_ERROR, "cannot start '%s': %s", cmdv[0], strerror(errno));
	}
	if (ch->pid == 0) {
		int err;

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execvp(cmdv[0], cmdv);
		err = errno;
		if (write(fds[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	do
		got = read(fds[0], &code, sizeof(code));
	while (got < 0 && errno == EINTR);
	close(fds[0]);
	if (got == (ssize_t)sizeof(code)) {
		waitpid(ch->pid, &ch->status, 0);
		ch->pid = 0;
		err_set(e, EXIT_UNAVAILABLE, "cannot run '%s': %s", cmdv[0], strerror(code));
		err_hint(e, "check the command's name and PATH");
		return -1;
	}
	return 0;
}

/* The exit code of the started command, as a shell gives it. */
static int child_exit(struct child *ch)
{
	while (!ch->ended) {
		if (waitpid(ch->pid, &ch->status, 0) == ch->pid)
			ch->ended = true;
		else if (errno != EINTR)
			return EXIT_ERROR;
	}
	if (WIFEXITED(ch->status))
		return WEXITSTATUS(ch->status);
	if (WIFSIGNALED(ch->status))
		return 128 + WTERMSIG(ch->status);
	return EXIT_ERROR;
}

static int report(const struct adv_timeline *tl, const struct advise_opts *o, struct err *e)
{
	struct findings fs = {0};
	enum severity worst;
	int rc;

	advise_diagnose(tl, &fs);
	worst = findings_worst(&fs);
	if (o->json)
		advise_print_json(tl, &fs, stdout);
	else
		advise_print_text(tl, &fs, stdout);
	fflush(stdout);
	rc = worst == SEV_FAIL ? EXIT_FAIL : worst == SEV_WARN ? EXIT_WARN : EXIT_OK;
	if (o->html && advise_write_html(tl, &fs, o->html, e) != 0)
		rc = -1;
	findings_free(&fs);
	return rc;
}

static int save(const struct adv_timeline *tl, const char *path, struct err *e)
{
	char *text = adv_timeline_to_json(tl);
	int rc;

	if (!text)
		return err_set(e, EXIT_ERROR, "cannot write '%s': out of memory", path);
	rc = file_replace(path, text, strlen(text), 0644, e);
	free(text);
	return rc;
}

/* What the timeline does not hold: the other GPU jobs found when none was named (advise
 * watches one, never their sum), as notes on stderr, before the report. */
static void say_notes(const struct adv_timeline *tl, const struct adv_job_notes *n)
{
	int i, g;

	if (n->refused[0]) {
		char user[64];

		proctree_user_name(n->owner_uid, user, sizeof(user));
		fprintf(stderr,
			"gpuvet: note: PID %u is %s's: the kernel refuses %s to other users: n/a "
			"in the report, not 0\n",
			tl->pid, user, n->refused);
		fprintf(stderr, "gpuvet: hint: run advise as %s, or as root, to read them\n", user);
	}
	if (n->nothers == 0)
		return;
	fprintf(stderr,
		"gpuvet: note: %d GPU jobs are running; advising on PID %u (the most GPU memory), "
		"alone\n",
		n->njobs, tl->pid);
	for (i = 0; i < n->nothers; i++) {
		const struct adv_other_job *o = &n->others[i];

		fprintf(stderr, "gpuvet: note: also running: PID %u on GPU", o->pid);
		for (g = 0; g < o->ngpus; g++)
			fprintf(stderr, "%s%d", g ? "," : " ", o->gpus[g]);
		fprintf(stderr, " (%s): gpuvet advise %u\n", o->cmd[0] ? o->cmd : "?", o->pid);
	}
}

static int run_advise(int argc, char **argv)
{
	struct advise_opts o;
	struct adv_sample_opts so;
	struct adv_job_notes notes;
	struct adv_timeline tl;
	struct child ch = {0};
	struct progress pr;
	struct sigaction sa;
	struct err e;
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	err_clear(&e);
	if (o.from) {
		if (adv_timeline_load(o.from, &tl, &e) != 0)
			return cmd_report_error(&e);
		if (o.html && file_check_writable(o.html, &e) != 0) {
			adv_timeline_free(&tl);
			return cmd_report_error(&e);
		}
		rc = report(&tl, &o, &e);
		adv_timeline_free(&tl);
		return rc < 0 ? cmd_report_error(&e) : rc;
	}
	/* an unwritable output fails now, not after the sampling */
	if ((o.record && file_check_writable(o.record, &e) != 0) ||
	    (o.html && file_check_writable(o.html, &e) != 0))
		return cmd_report_error(&e);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o.cmd && start_child(o.cmd, &ch, &e) != 0)
		return cmd_report_error(&e);

	memset(&pr, 0, sizeof(pr));
	pr.child = o.cmd ? &ch : NULL;
	pr.tty = isatty(STDERR_FILENO);
	pr.duration_ns = o.duration_ns;
	memset(&so, 0, sizeof(so));
	so.pids = o.pids;
	so.npids = o.npids;
	so.launched = o.cmd ? (unsigned)ch.pid : 0;
	so.ids = o.ids;
	so.tick_ns = o.tick_ns;
	so.duration_ns = o.duration_ns;
	so.wait_ns = o.wait_ns;
	so.progress = on_progress;
	so.arg = &pr;
	so.notes = &notes;
	rc = adv_sample(&so, &tl, &e);
	if (pr.tty)
		fprintf(stderr, "\r%*s\r", 60, "");
	if (rc != 0) {
		rc = cmd_report_error(&e);
		if (o.cmd && !ch.ended && rc != EXIT_INTERRUPTED)
			fprintf(stderr, "gpuvet: note: waiting for the command to end\n");
		return o.cmd ? child_exit(&ch) : rc;
	}
	if (ch.ended)
		tl.ended = true;
	say_notes(&tl, &notes);
	if (o.record && save(&tl, o.record, &e) != 0)
		cmd_report_error(&e);
	rc = report(&tl, &o, &e);
	if (rc < 0)
		rc = cmd_report_error(&e);
	adv_timeline_free(&tl);
	if (o.cmd)
		return child_exit(&ch);
	if (stop_signal && rc == EXIT_OK)
		rc = EXIT_INTERRUPTED;
	return rc;
}

const struct cmd cmd_advise = {
    .name = "advise",
    .summary = "why a running job underuses its GPU, and what to change",
    .usage = usage,
    .run = run_advise,
};
