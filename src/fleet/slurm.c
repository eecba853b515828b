/*
 * slurm.c: the pure parts of `gpuvet doctor --slurm` (slurm.h): which of doctor's findings
 * count for a node, the drain reason, the parse of `scontrol show node -o` and the decision.
 * The processes (scontrol, the doctor child) are slurm_exec.c's; the command cmd/doctor_slurm.c.
 *
 * The rules follow NHC's node-mark-offline and node-mark-online (health-anchors.md, section 3)
 * and fix what its users hit: a node drained by someone else, or waiting for a reboot, is never
 * resumed (NHC #134), and the reason names the GPU and the finding, not "script failed".
 */
#include "slurm.h"

#include <stdlib.h>
#include <string.h>

#include "../checks/catalog.h"
#include "../checks/doctor.h"
#include "../util/util.h"

/* The id --slurm reports when doctor itself did not finish: a verdict of its own, listed by
 * doctor --list-findings and documented in docs/findings.md, never raised by a doctor check. */
static const struct finding_def defs[] = {
    {SLURM_TIMEOUT_ID, LAYER_NVML, "doctor did not finish within doctor --slurm's time limit",
     false},
};

const struct check check_slurm = {
    .name = "slurm",
    .layer = LAYER_NVML,
    .run = NULL,
    .defs = defs,
    .ndefs = ARRAY_SIZE(defs),
};

/* Copy s into dst with control characters (a tab, a newline from a recording) made spaces:
 * the text goes into one line of the pipe protocol and into Slurm's reason. */
static void copy_line(char *dst, const char *s, size_t n)
{
	size_t i;

	str_copy(dst, s ? s : "", n);
	for (i = 0; dst[i]; i++)
		if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
			dst[i] = ' ';
}

void slurm_health_add(struct slurm_health *h, const struct slurm_problem *p)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 8;
		h->v = xrealloc(h->v, h->cap * sizeof(*h->v));
	}
	h->v[h->n++] = *p;
}

void slurm_health_from(struct slurm_health *h, const struct doctor_input *in,
		       const struct findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];
		struct slurm_problem p;

		if (f->sev < SEV_WARN)
			continue;
		/* cuInit failing because CUDA_VISIBLE_DEVICES hides every GPU is an echo of the
		 * environment, not of the node */
		if (f->def->layer > LAYER_FABRIC ||
		    (f->cause && f->cause->def->layer > LAYER_FABRIC)) {
			h->ignored++;
			continue;
		}
		memset(&p, 0, sizeof(p));
		str_copy(p.id, f->def->id, sizeof(p.id));
		p.sev = f->sev;
		p.layer = f->def->layer;
		p.gpu = f->gpu;
		p.echo = f->cause != NULL;
		copy_line(p.summary, f->summary, sizeof(p.summary));
		if (f->gpu >= 0 && !in->sys.hung && (unsigned)f->gpu < in->sys.ngpus &&
		    text_ok(&in->sys.gpus[f->gpu].st.bus_id))
			copy_line(p.bus_id, in->sys.gpus[f->gpu].st.bus_id.s, sizeof(p.bus_id));
		slurm_health_add(h, &p);
	}
}

void slurm_health_free(struct slurm_health *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}

enum severity slurm_health_worst(const struct slurm_health *h)
{
	enum severity w = SEV_OK;
	size_t i;

	if (h->timed_out)
		return SEV_FAIL;
	for (i = 0; i < h->n; i++)
		if (h->v[i].sev > w)
			w = h->v[i].sev;
	return w;
}

/*
 * The pipe protocol, one record a line, fields separated by tabs (copy_line took them out of
 * the text fields):
 *   p <sev> <layer> <gpu> <echo> <id> <bus_id or -> <summary>
 *   ignored <n>
 *   end
 */
char *slurm_health_encode(const struct slurm_health *h)
{
	struct strbuf sb;
	size_t i;

	sb_init(&sb);
	for (i = 0; i < h->n; i++) {
		const struct slurm_problem *p = &h->v[i];

		sb_addf(&sb, "p\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", (int)p->sev, (int)p->layer, p->gpu,
			p->echo ? 1 : 0, p->id, p->bus_id[0] ? p->bus_id : "-", p->summary);
	}
	sb_addf(&sb, "ignored\t%zu\nend\n", h->ignored);
	return sb_detach(&sb);
}

/* The next tab-separated field of *s (cut in place); NULL when there is none. */
static char *field(char **s)
{
	char *f = *s, *tab;

	if (!f)
		return NULL;
	tab = strchr(f, '\t');
	if (tab) {
		*tab = '\0';
		*s = tab + 1;
	} else {
		*s = NULL;
	}
	return f;
}

static int decode_int(const char *s, long lo, long hi, long *out)
{
	int64_t v;

	if (!s || parse_i64(s, &v) != 0 || v < lo || v > hi)
		return -1;
	*out = (long)v;
	return 0;
}

static int decode_problem(char *rest, struct slurm_problem *p)
{
	char *sev = field(&rest), *layer = field(&rest), *gpu = field(&rest), *echo = field(&rest),
	     *id = field(&rest), *bus = field(&rest), *summary = rest;
	long v[4];

	memset(p, 0, sizeof(*p));
	if (decode_int(sev, SEV_OK, SEV_FAIL, &v[0]) ||
	    decode_int(layer, 0, LAYER_COUNT - 1, &v[1]) || decode_int(gpu, -1, 1 << 20, &v[2]) ||
	    decode_int(echo, 0, 1, &v[3]) || !id || !bus || !summary)
		return -1;
	p->sev = (enum severity)v[0];
	p->layer = (enum layer)v[1];
	p->gpu = (int)v[2];
	p->echo = v[3] != 0;
	copy_line(p->id, id, sizeof(p->id));
	copy_line(p->bus_id, strcmp(bus, "-") ? bus : "", sizeof(p->bus_id));
	copy_line(p->summary, summary, sizeof(p->summary));
	return 0;
}

int slurm_health_decode(const char *text, struct slurm_health *h, struct err *e)
{
	char *copy = xstrdup(text), *line = copy, *next;
	bool ended = false;
	int rc = -1;

	for (; line && *line && !ended; line = next) {
		char *rest;
		const char *kind;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		rest = line;
		kind = field(&rest);
		if (!strcmp(kind, "end") && !rest) {
			ended = true;
		} else if (!strcmp(kind, "ignored")) {
			long v;

			if (decode_int(rest, 0, 1 << 20, &v) != 0)
				goto bad;
			h->ignored = (size_t)v;
		} else if (!strcmp(kind, "p")) {
			struct slurm_problem p;

			if (decode_problem(rest, &p) != 0)
				goto bad;
			slurm_health_add(h, &p);
		} else {
			goto bad;
		}
	}
	if (!ended) {
		err_set(e, EXIT_ERROR, "doctor's child ended before its verdict was complete");
		goto out;
	}
	rc = 0;
	goto out;
bad:
	err_set(e, EXIT_ERROR, "doctor's child sent a line gpuvet does not know");
out:
	free(copy);
	return rc;
}

/* Is a named before b: worse first, a cause before an echo, lower layers, then the lower GPU
 * (the node, -1, before any GPU). */
static bool named_before(const struct slurm_problem *a, const struct slurm_problem *b)
{
	if (a->sev != b->sev)
		return a->sev > b->sev;
	if (a->echo != b->echo)
		return !a->echo;
	if (a->layer != b->layer)
		return a->layer < b->layer;
	return a->gpu < b->gpu;
}

/* Cut s to at most max bytes without splitting a UTF-8 character. */
static void cut_utf8(char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	s[max] = '\0';
}

bool slurm_reason(const struct slurm_health *h, enum severity drain_at, char *buf, size_t n)
{
	const struct slurm_problem *best = NULL;
	char head[160], more[32] = "", summary[sizeof(h->v[0].summary)];
	size_t i, others = 0, room, cap = n - 1 < SLURM_REASON_MAX ? n - 1 : SLURM_REASON_MAX;

	buf[0] = '\0';
	if (h->timed_out) {
		str_fmt(buf, n,
			"%s node %s: doctor did not finish within %d s (a driver call hung?)",
			SLURM_LEADER, SLURM_TIMEOUT_ID, h->timeout_s);
		cut_utf8(buf, cap);
		return true;
	}
	for (i = 0; i < h->n; i++) {
		const struct slurm_problem *p = &h->v[i];

		if (p->sev < drain_at)
			continue;
		if (!best || named_before(p, best))
			best = p;
	}
	if (!best)
		return false;
	for (i = 0; i < h->n; i++)
		if (&h->v[i] != best && h->v[i].sev >= drain_at && !h->v[i].echo)
			others++;
	if (best->gpu < 0)
		str_fmt(head, sizeof(head), "%s node %s: ", SLURM_LEADER, best->id);
	else if (best->bus_id[0])
		str_fmt(head, sizeof(head), "%s GPU %d (%s) %s: ", SLURM_LEADER, best->gpu,
			best->bus_id, best->id);
	else
		str_fmt(head, sizeof(head), "%s GPU %d %s: ", SLURM_LEADER, best->gpu, best->id);
	if (others)
		str_fmt(more, sizeof(more), " (+%zu more)", others);
	str_copy(summary, best->summary, sizeof(summary));
	room = strlen(head) + strlen(more) < cap ? cap - strlen(head) - strlen(more) : 0;
	cut_utf8(summary, room);
	str_fmt(buf, n, "%s%s%s", head, summary, more);
	cut_utf8(buf, cap);
	return true;
}

/* The value of " Key=" in line up to the next space (or end), into out; false when absent. The
 * key must start the line or follow a space, so "NodeName=" does not match "Name=". */
static bool word_value(const char *line, const char *key, char *out, size_t n)
{
	size_t klen = strlen(key);
	const char *p = line;

	for (; (p = strstr(p, key)) != NULL; p += klen) {
		if (p == line || p[-1] == ' ') {
			size_t len = strcspn(p + klen, " \n");

			if (len >= n)
				len = n - 1;
			memcpy(out, p + klen, len);
			out[len] = '\0';
			return true;
		}
	}
	return false;
}

/*
 * Reason= runs to Slurm's " [user@2024-05-01T10:00:00]" tail, which can be followed by more
 * fields (Comment=, Extra=) in later versions. The reason itself may hold spaces, brackets and
 * '=': the tail is the last " [" whose bracket holds an '@' and closes before the next space.
 */
static void reason_value(const char *line, char *out, size_t n)
{
	const char *p = line, *start = NULL, *end = NULL, *q;
	size_t len;

	out[0] = '\0';
	while ((p = strstr(p, "Reason=")) != NULL) {
		if (p == line || p[-1] == ' ') {
			start = p + strlen("Reason=");
			break;
		}
		p++;
	}
	if (!start)
		return;
	for (q = start; (q = strstr(q, " [")) != NULL; q++) {
		const char *close = strchr(q + 2, ']'), *at = strchr(q + 2, '@'),
			   *sp = strchr(q + 2, ' ');

		if (close && at && at < close && (!sp || close < sp))
			end = q;
	}
	if (!end)
		end = start + strcspn(start, "\n");
	len = (size_t)(end - start);
	if (len >= n)
		len = n - 1;
	memcpy(out, start, len);
	out[len] = '\0';
	if (!strcmp(out, "(null)") || !strcmp(out, "none"))
		out[0] = '\0';
}

int slurm_node_parse(const char *text, struct slurm_node *n, struct err *e)
{
	const char *line = text;

	memset(n, 0, sizeof(*n));
	/* scontrol may print a warning line first */
	while (line && strncmp(line, "NodeName=", 9) != 0) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!line || !word_value(line, "NodeName=", n->name, sizeof(n->name)) ||
	    !word_value(line, "State=", n->state, sizeof(n->state)))
		return err_set(e, EXIT_ERROR,
			       "scontrol show node: no NodeName= and State= in '%.80s'", text);
	reason_value(line, n->reason, sizeof(n->reason));
	return 0;
}

bool slurm_state_has(const char *state, const char *word)
{
	size_t wlen = strlen(word);
	const char *p = state;

	while (*p) {
		size_t len = strcspn(p, "+");
		size_t core = len;

		while (core > 0 && strchr("*~#!%$@^-", p[core - 1]))
			core--;
		if (core == wlen && !strncmp(p, word, wlen))
			return true;
		p += len;
		if (*p == '+')
			p++;
	}
	return false;
}

/* States that someone else (an admin, slurmctld's reboot or power saving) owns. */
static bool held_by_other(const char *state)
{
	static const char *const words[] = {
	    "REBOOT_REQUESTED", "REBOOT_ISSUED", "REBOOT",        "MAINTENANCE", "MAINT",
	    "POWERED_DOWN",     "POWER_DOWN",    "POWERING_DOWN", "POWERING_UP", "FAIL",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (slurm_state_has(state, words[i]))
			return true;
	return false;
}

static bool drained(const char *state)
{
	return slurm_state_has(state, "DRAIN") || slurm_state_has(state, "DRAINED") ||
	       slurm_state_has(state, "DRAINING");
}

enum slurm_action slurm_decide(const struct slurm_node *n, const char *reason, const char **why)
{
	bool ours = str_starts(n->reason, SLURM_LEADER);
	bool down = slurm_state_has(n->state, "DOWN");

	if (held_by_other(n->state)) {
		*why = "held by a reboot, maintenance or power-saving state: left alone";
		return SLURM_LEAVE;
	}
	if (reason) {
		if (ours && drained(n->state) && !strcmp(n->reason, reason)) {
			*why = "already drained by gpuvet for this reason";
			return SLURM_NONE;
		}
		if ((drained(n->state) || down) && n->reason[0] && !ours) {
			*why = "drained or down for someone else's reason: left alone";
			return SLURM_LEAVE;
		}
		*why = ours && drained(n->state)
			   ? "drained by gpuvet for another reason: reason updated"
			   : "unhealthy: drained";
		return SLURM_DRAIN;
	}
	if (!drained(n->state)) {
		*why = "healthy and not drained";
		return SLURM_NONE;
	}
	if (!ours) {
		*why = "drained for someone else's reason: left alone";
		return SLURM_LEAVE;
	}
	if (down) {
		*why = "down as well as drained: left for slurmctld and the admin";
		return SLURM_LEAVE;
	}
	*why = "healthy again: gpuvet's drain resumed";
	return SLURM_RESUME;
}

const char *slurm_action_name(enum slurm_action a)
{
	switch (a) {
	case SLURM_DRAIN: return "drain";
	case SLURM_RESUME: return "resume";
	case SLURM_LEAVE: return "leave";
	case SLURM_NONE: break;
	}
	return "none";
}
