/*
 * slurm.h: what `gpuvet doctor --slurm` needs below cmd/: doctor's verdict reduced to the
 * problems that say something about the node, the drain reason built from them, the node's
 * state as `scontrol show node -o` prints it, the decision (drain, resume, leave alone) and a
 * runner that gives scontrol, or doctor itself, a hard time limit.
 *
 * slurm.c holds the pure parts (unit tested in tests/unit/test_slurm.c); slurm_exec.c the
 * processes. The command, its output and its exit code are cmd/doctor_slurm.c's; the Slurm
 * side (slurm.conf, prolog, epilog) is contrib/slurm/ and docs/slurm.md.
 */
#ifndef GPUVET_SLURM_H
#define GPUVET_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "../checks/finding.h"
#include "../util/err.h"
#include "../util/strbuf.h"

/* Slurm stores a longer reason, but sinfo -R and most dashboards cut it: the brief's limit. */
#define SLURM_REASON_MAX 255
/* Every reason gpuvet sets starts with this; only such a drain is ever resumed by gpuvet. */
#define SLURM_LEADER "gpuvet:"
/* The finding id of a doctor that did not finish in time (defined in slurm.c). */
#define SLURM_TIMEOUT_ID "slurm.doctor_timeout"

/* One warning or failure of doctor about the node's own stack (layers up to the fabric). */
struct slurm_problem {
	char id[64];       /* "gpu.fallen_off_bus" */
	enum severity sev; /* SEV_WARN or SEV_FAIL */
	enum layer layer;
	int gpu;           /* NVML index; -1 for the whole node */
	char bus_id[32];   /* "00000000:18:00.0"; "" unknown */
	bool echo;         /* folded under a lower cause: named only when nothing else is */
	char summary[192]; /* one line, control characters replaced */
};

/* doctor's verdict as --slurm judges it. */
struct slurm_health {
	struct slurm_problem *v;
	size_t n, cap;
	size_t ignored; /* warnings and failures above the fabric layer (the user's software) */
	bool timed_out; /* doctor did not finish within timeout_s */
	int timeout_s;
};

struct doctor_input;
struct findings;

/* Keep the findings of fs (warn and fail) that are about the node: layers up to LAYER_FABRIC.
 * Toolkits, Python frameworks and environment variables belong to the user's jobs, and so does
 * an echo of them (cuInit failing because CUDA_VISIBLE_DEVICES hides every GPU): counted in
 * h->ignored, never a reason to drain. */
void slurm_health_from(struct slurm_health *h, const struct doctor_input *in,
		       const struct findings *fs);
void slurm_health_add(struct slurm_health *h, const struct slurm_problem *p);
void slurm_health_free(struct slurm_health *h);
/* The worst severity kept (SEV_FAIL when doctor timed out; SEV_OK when nothing was kept). */
enum severity slurm_health_worst(const struct slurm_health *h);

/* h as text lines, for the doctor child to hand to its parent through a pipe, and back. The
 * text ends with "end\n": decode fails (-1, e filled) on text without it (a child that died
 * part-way) or a line it does not know. */
char *slurm_health_encode(const struct slurm_health *h);
int slurm_health_decode(const char *text, struct slurm_health *h, struct err *e);

/*
 * The drain reason for h: "gpuvet: GPU 1 (00000000:18:00.0) gpu.fallen_off_bus: <summary>",
 * naming the worst problem at or above drain_at (a cause before an echo, lower layers first,
 * then the lower GPU), then " (+N more)" when there are others at that level. At most
 * SLURM_REASON_MAX bytes (the summary is cut, at a character boundary, to fit). Returns true,
 * with buf filled, when the node should be drained; false (buf "") when nothing reaches drain_at.
 */
bool slurm_reason(const struct slurm_health *h, enum severity drain_at, char *buf, size_t n);

/* A node as `scontrol show node -o NAME` prints it (one line of Key=Value fields; OS= and
 * Reason= hold spaces). */
struct slurm_node {
	char name[128];
	char state[128];  /* "IDLE+DRAIN", "MIXED+DRAIN+REBOOT_REQUESTED", "DOWN*" */
	char reason[512]; /* the text without Slurm's " [user@time]" tail; "" none */
};

/* Parse the line (or the first line naming NodeName=); -1 with e filled when it has no
 * NodeName= or State= field. */
int slurm_node_parse(const char *text, struct slurm_node *n, struct err *e);
/* Does the state carry this word ("DRAIN", "REBOOT_REQUESTED")? Words are split at '+', and a
 * trailing '*' (not responding), '~', '#', '!', '%' or '$' is ignored. */
bool slurm_state_has(const char *state, const char *word);

enum slurm_action {
	SLURM_NONE,   /* nothing to do: healthy and not drained by gpuvet, or already drained so */
	SLURM_DRAIN,  /* scontrol update State=DRAIN Reason=... */
	SLURM_RESUME, /* scontrol update State=RESUME */
	SLURM_LEAVE,  /* something else holds the node (an admin's drain, a reboot): left alone */
};

/*
 * What to do with node n given the verdict: drain (reason set: the node should be drained) or
 * not (reason NULL). A drain, or a down node, or a reboot or maintenance state that someone else
 * set is never touched; only a drain whose reason starts with SLURM_LEADER is resumed, and only
 * when nothing else (reboot, maintenance, power saving, DOWN) holds the node. *why says why, in
 * a few words for the log.
 */
enum slurm_action slurm_decide(const struct slurm_node *n, const char *reason, const char **why);
const char *slurm_action_name(enum slurm_action a);

/*
 * Run argv (argv[0] looked up in PATH) with stdin from /dev/null and its stdout and stderr
 * captured into out (at most 64 KiB), in a process group of its own that is killed when it runs
 * past timeout_ms. Returns 0 when it exited 0; -1 with e filled when it could not start, timed
 * out (*timed_out set), was killed, or exited non-zero (the message holds its first line of
 * output).
 */
int slurm_exec(char *const argv[], int timeout_ms, struct strbuf *out, bool *timed_out,
	       struct err *e);

/*
 * Run doctor (collect with probe_flags, check) in a child process and read its verdict into h
 * within timeout_ms. A child that has not answered by then is killed (SIGKILL; one stuck in the
 * driver is left to the kernel) and h->timed_out is set: a hang is a failure of the node, not
 * of gpuvet. Returns -1 (e filled) only when the child could not start or died without an
 * answer (a crash of gpuvet itself).
 */
int slurm_doctor_run(unsigned probe_flags, int timeout_ms, struct slurm_health *h, struct err *e);

#endif
