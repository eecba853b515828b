/*
 * doctor_slurm.c: `gpuvet doctor --slurm` (doctor_slurm.h): doctor in a child under a time
 * limit, its verdict turned into a drain reason, the node's state read with `scontrol show
 * node -o`, then drain, resume or nothing (fleet/slurm.c decides), each scontrol under its own
 * limit. Prints one short report (or JSON) for slurmd's log and the admin.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fleet/slurm.h"
#include "../util/quote.h"
#include "../util/util.h"
#include "cmd.h"
#include "doctor_slurm.h"

/* scontrol's own limit: long enough for a busy slurmctld, short next to slurmd's 60 s */
#define SCONTROL_TIMEOUT_MS 10000

struct outcome {
	char node[128];
	struct slurm_health h;
	enum severity worst;
	bool drain;
	char reason[SLURM_REASON_MAX + 1];
	bool have_node; /* scontrol show node answered */
	struct slurm_node sn;
	enum slurm_action action;
	const char *why;
	char *command[8]; /* the scontrol update run (or printed), NULL-terminated */
	bool done;        /* it ran and succeeded */
	char error[600];  /* what went wrong with scontrol; "" nothing */
};

static void node_name(const struct doctor_slurm_opts *o, char *out, size_t n)
{
	const char *env = getenv("SLURMD_NODENAME");
	char host[256];

	if (o->node && *o->node) {
		str_copy(out, o->node, n);
	} else if (env && *env) {
		str_copy(out, env, n);
	} else if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0'; /* hostname -s */
		str_copy(out, host, n);
	} else {
		str_copy(out, "localhost", n);
	}
}

static const char *scontrol_path(void)
{
	const char *p = getenv("GPUVET_SCONTROL");

	return p && *p ? p : "scontrol";
}

static int scontrol_timeout_ms(void)
{
	const char *s = getenv("GPUVET_SCONTROL_TIMEOUT_MS");
	int64_t v;

	if (s && parse_i64(s, &v) == 0 && v > 0 && v <= 600000)
		return (int)v;
	return SCONTROL_TIMEOUT_MS;
}

static const char *sev_word(enum severity s)
{
	return s == SEV_FAIL ? "fail" : s == SEV_WARN ? "warn" : "ok";
}

/* Read the node's state; false (o->error set) when scontrol cannot tell. */
static bool read_node(struct outcome *oc)
{
	char *argv[] = {(char *)scontrol_path(), "show", "node", "-o", oc->node, NULL};
	struct strbuf out;
	struct err e;
	bool timed_out;

	err_clear(&e);
	sb_init(&out);
	if (slurm_exec(argv, scontrol_timeout_ms(), &out, &timed_out, &e) != 0 ||
	    slurm_node_parse(out.buf, &oc->sn, &e) != 0) {
		str_fmt(oc->error, sizeof(oc->error), "cannot read node %s's state: %s", oc->node,
			e.msg);
		sb_release(&out);
		return false;
	}
	sb_release(&out);
	return true;
}

static void build_command(struct outcome *oc)
{
	int i = 0;

	oc->command[i++] = xstrdup(scontrol_path());
	oc->command[i++] = xstrdup("update");
	oc->command[i++] = xasprintf("NodeName=%s", oc->node);
	if (oc->action == SLURM_DRAIN) {
		oc->command[i++] = xstrdup("State=DRAIN");
		oc->command[i++] = xasprintf("Reason=%s", oc->reason);
	} else {
		oc->command[i++] = xstrdup("State=RESUME");
	}
	oc->command[i] = NULL;
}

static char *command_line(char *const *argv)
{
	struct strbuf sb;
	int i;

	sb_init(&sb);
	for (i = 0; argv[i]; i++) {
		if (i)
			sb_addc(&sb, ' ');
		quote_shell_add(&sb, argv[i]);
	}
	return sb_detach(&sb);
}

static void print_text(const struct doctor_slurm_opts *o, const struct outcome *oc)
{
	size_t i;
	char *line;

	printf("gpuvet doctor --slurm: node %s: %s", oc->node, sev_word(oc->worst));
	if (oc->h.timed_out)
		printf(": doctor did not finish within %d s", oc->h.timeout_s);
	putchar('\n');
	for (i = 0; i < oc->h.n; i++) {
		const struct slurm_problem *p = &oc->h.v[i];
		char *s = quote_visible(p->summary);

		if (p->gpu >= 0)
			printf("  %s  GPU %d%s%s%s %s: %s%s\n", sev_word(p->sev), p->gpu,
			       p->bus_id[0] ? " (" : "", p->bus_id, p->bus_id[0] ? ")" : "", p->id,
			       s, p->echo ? " (an echo)" : "");
		else
			printf("  %s  node %s: %s%s\n", sev_word(p->sev), p->id, s,
			       p->echo ? " (an echo)" : "");
		free(s);
	}
	if (oc->h.ignored)
		printf(
		    "  ignored: %zu finding(s) about toolkits, frameworks or the environment (the "
		    "jobs' software, not the node)\n",
		    oc->h.ignored);
	if (oc->have_node) {
		char *st = quote_visible(oc->sn.state), *rs = quote_visible(oc->sn.reason);

		printf("slurm: node %s is %s%s%s%s\n", oc->node, st, rs[0] ? ", reason \"" : "", rs,
		       rs[0] ? "\"" : "");
		free(st);
		free(rs);
	}
	if (oc->why)
		printf("slurm: %s: %s\n", slurm_action_name(oc->action), oc->why);
	if (oc->command[0]) {
		line = command_line(oc->command);
		printf("slurm: %s: %s\n",
		       o->dry_run ? "dry run, not run"
		       : oc->done ? "ran"
				  : "failed",
		       line);
		free(line);
	}
}

static void print_json(const struct doctor_slurm_opts *o, const struct outcome *oc, int rc)
{
	json_t *root = json_object(), *probs = json_array(), *cmd = json_null(),
	       *slurm = json_null();
	size_t i;
	char *s;

	json_object_set_new(root, "node", json_string(oc->node));
	json_object_set_new(root, "result", json_string(sev_word(oc->worst)));
	json_object_set_new(root, "exit_code", json_integer(rc));
	json_object_set_new(root, "timed_out", json_boolean(oc->h.timed_out));
	json_object_set_new(root, "timeout_s", json_integer(o->timeout_s));
	json_object_set_new(root, "drain_on",
			    json_string(o->drain_at == SEV_WARN ? "warning" : "failure"));
	for (i = 0; i < oc->h.n; i++) {
		const struct slurm_problem *p = &oc->h.v[i];
		json_t *x = json_object();

		json_object_set_new(x, "id", json_string(p->id));
		json_object_set_new(x, "severity", json_string(sev_word(p->sev)));
		json_object_set_new(x, "layer", json_string(layer_name(p->layer)));
		json_object_set_new(x, "gpu", p->gpu >= 0 ? json_integer(p->gpu) : json_null());
		json_object_set_new(x, "bus_id",
				    p->bus_id[0] ? json_string(p->bus_id) : json_null());
		json_object_set_new(x, "echo", json_boolean(p->echo));
		json_object_set_new(x, "summary", json_string(p->summary));
		json_array_append_new(probs, x);
	}
	json_object_set_new(root, "problems", probs);
	json_object_set_new(root, "ignored", json_integer((json_int_t)oc->h.ignored));
	json_object_set_new(root, "reason", oc->drain ? json_string(oc->reason) : json_null());
	if (oc->have_node) {
		slurm = json_object();
		json_object_set_new(slurm, "state", json_string(oc->sn.state));
		json_object_set_new(slurm, "reason",
				    oc->sn.reason[0] ? json_string(oc->sn.reason) : json_null());
	}
	json_object_set_new(root, "slurm_node", slurm);
	json_object_set_new(root, "action",
			    oc->why ? json_string(slurm_action_name(oc->action)) : json_null());
	json_object_set_new(root, "why", oc->why ? json_string(oc->why) : json_null());
	if (oc->command[0]) {
		cmd = json_array();
		for (i = 0; oc->command[i]; i++)
			json_array_append_new(cmd, json_string(oc->command[i]));
	}
	json_object_set_new(root, "command", cmd);
	json_object_set_new(root, "dry_run", json_boolean(o->dry_run));
	json_object_set_new(root, "done", json_boolean(oc->done));
	json_object_set_new(root, "error", oc->error[0] ? json_string(oc->error) : json_null());
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	puts(s);
	free(s);
	json_decref(root);
}

int doctor_slurm(const struct doctor_slurm_opts *o)
{
	struct outcome *oc = xcalloc(1, sizeof(*oc));
	struct err e;
	int rc, i;

	err_clear(&e);
	node_name(o, oc->node, sizeof(oc->node));
	fflush(stdout);
	if (slurm_doctor_run(o->probe_flags, o->timeout_s * 1000, &oc->h, &e) != 0) {
		/* gpuvet failed, not the node: nothing is drained for it */
		rc = cmd_report_error(&e);
		slurm_health_free(&oc->h);
		free(oc);
		return rc;
	}
	oc->worst = slurm_health_worst(&oc->h);
	oc->drain = slurm_reason(&oc->h, o->drain_at, oc->reason, sizeof(oc->reason));
	if (read_node(oc)) {
		oc->have_node = true;
		oc->action = slurm_decide(&oc->sn, oc->drain ? oc->reason : NULL, &oc->why);
		if (oc->action == SLURM_DRAIN || oc->action == SLURM_RESUME) {
			build_command(oc);
			if (!o->dry_run) {
				struct strbuf out;
				bool timed_out;

				sb_init(&out);
				if (slurm_exec(oc->command, scontrol_timeout_ms(), &out, &timed_out,
					       &e) == 0)
					oc->done = true;
				else
					str_fmt(oc->error, sizeof(oc->error),
						"cannot %s node %s: %s",
						slurm_action_name(oc->action), oc->node, e.msg);
				sb_release(&out);
			}
		}
	}
	rc = oc->worst == SEV_FAIL ? EXIT_FAIL : oc->worst == SEV_WARN ? EXIT_WARN : EXIT_OK;
	/* a failure found says more than scontrol's trouble; otherwise that trouble is gpuvet's */
	if (oc->error[0] && rc != EXIT_FAIL)
		rc = EXIT_ERROR;
	if (o->json)
		print_json(o, oc, rc);
	else
		print_text(o, oc);
	fflush(stdout);
	if (oc->error[0]) {
		fprintf(stderr, "gpuvet: error: %s\n", oc->error);
		fprintf(stderr, "gpuvet: hint: %s\n",
			!oc->have_node
			    ? "is slurmd registered with slurmctld? the next run tries again"
			    : "the next run tries again; check slurmctld and scontrol's rights");
	}
	for (i = 0; oc->command[i]; i++)
		free(oc->command[i]);
	slurm_health_free(&oc->h);
	free(oc);
	return rc;
}
