/*
 * doctor_report.c: doctor's output, for people (grouped by layer, 100 columns, colour on a
 * terminal) and for programs (JSON, documented in docs/cmd/doctor.md).
 *
 * Identical findings on several GPUs are one group: "GPUs 0-7" or "GPU 3 of 8" instead of the
 * same line eight times. Echoes (findings folded under a cause) are listed with their cause.
 * With -v every ok and info line is followed by its facts (the evidence the check recorded:
 * the file, call and value read), each GPU's where the members of a group differ.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/quote.h"
#include "../util/strbuf.h"
#include "../util/term.h"
#include "../util/util.h"
#include "doctor_report.h"
#include "../version.h"

struct group {
	const struct finding *f; /* the first member: summary, evidence, fix */
	int *gpus;
	int ngpus;
	const struct finding **members; /* every finding of the group, f first */
	int nmembers;
	bool system; /* a finding about the whole machine */
};

struct groups {
	struct group *v;
	size_t n;
};

static bool same_group(const struct finding *a, const struct finding *b)
{
	return a->def == b->def && a->sev == b->sev && str_eq(a->summary, b->summary) &&
	       str_eq(a->fix, b->fix) && a->cause == b->cause && (a->gpu < 0) == (b->gpu < 0);
}

static void group_findings(const struct findings *fs, struct groups *g)
{
	size_t i, j;

	memset(g, 0, sizeof(*g));
	g->v = xcalloc(fs->n + 1, sizeof(*g->v));
	for (i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];

		for (j = 0; j < g->n; j++)
			if (same_group(g->v[j].f, f))
				break;
		if (j == g->n) {
			g->v[j].f = f;
			g->v[j].gpus = xcalloc(fs->n + 1, sizeof(int));
			g->v[j].members = xcalloc(fs->n + 1, sizeof(*g->v[j].members));
			g->v[j].system = f->gpu < 0;
			g->n++;
		}
		g->v[j].members[g->v[j].nmembers++] = f;
		if (f->gpu >= 0)
			g->v[j].gpus[g->v[j].ngpus++] = f->gpu;
	}
}

static void groups_free(struct groups *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		free(g->v[i].gpus);
		free(g->v[i].members);
	}
	free(g->v);
}

static bool same_evidence(const struct finding *a, const struct finding *b)
{
	int k;

	if (a->nevidence != b->nevidence)
		return false;
	for (k = 0; k < a->nevidence; k++)
		if (strcmp(a->evidence[k], b->evidence[k]) != 0)
			return false;
	return true;
}

/* Do the members of a group differ in their evidence (a temperature per GPU)? Then each
 * GPU's facts are shown, not only the first member's. */
static bool evidence_differs(const struct group *gr)
{
	int m;

	for (m = 1; m < gr->nmembers; m++)
		if (!same_evidence(gr->f, gr->members[m]))
			return true;
	return false;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* "GPU 3 of 8", "GPUs 0-3 of 8", "all 8 GPUs" */
static void gpu_set_text(const struct group *g, unsigned total, char *out, size_t n)
{
	int i;
	struct strbuf sb;

	out[0] = '\0';
	if (g->system || g->ngpus == 0)
		return;
	qsort(g->gpus, (size_t)g->ngpus, sizeof(int), cmp_int);
	if (total > 1 && (unsigned)g->ngpus == total) {
		str_fmt(out, n, "all %u GPUs", total);
		return;
	}
	sb_init(&sb);
	sb_adds(&sb, g->ngpus == 1 ? "GPU " : "GPUs ");
	for (i = 0; i < g->ngpus; i++) {
		int start = g->gpus[i];

		while (i + 1 < g->ngpus && g->gpus[i + 1] == g->gpus[i] + 1)
			i++;
		if (sb.len > 5)
			sb_addc(&sb, ',');
		if (g->gpus[i] == start)
			sb_addf(&sb, "%d", start);
		else
			sb_addf(&sb, "%d-%d", start, g->gpus[i]);
	}
	if (total > 1)
		sb_addf(&sb, " of %u", total);
	str_copy(out, sb.buf, n);
	sb_release(&sb);
}

static const char *sev_color(enum severity s)
{
	switch (s) {
	case SEV_FAIL: return c_red();
	case SEV_WARN: return c_yellow();
	case SEV_OK: return c_green();
	default: return c_cyan();
	}
}

/* Print text wrapped to `width`, the first line after `first` columns already used, the
 * following lines indented by `indent`. Every line of the report goes through here, and most
 * carry machine strings (paths, versions, kernel log lines): control bytes are shown escaped,
 * never sent to the terminal. */
static void wrap(FILE *f, const char *raw, int first, int indent, int width)
{
	char *text = quote_visible(raw);
	int col = first;
	const char *p = text;

	while (*p) {
		const char *sp = p;
		int wl;

		while (*sp && *sp != ' ' && *sp != '\n')
			sp++;
		wl = (int)(sp - p);
		if (col > indent && col + 1 + wl > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > first || (col > indent && p != text)) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, (size_t)wl, f);
		col += wl;
		p = sp;
		if (*p == '\n') {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			p++;
		}
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
	free(text);
}

/* The facts under an ok or info line (doctor -v): one "- " line each, wrapped. */
static void print_facts(FILE *f, const struct group *gr, int width)
{
	bool per_gpu = evidence_differs(gr);
	int m, k;

	for (m = 0; m < (per_gpu ? gr->nmembers : 1); m++) {
		const struct finding *x = gr->members[m];

		for (k = 0; k < x->nevidence; k++) {
			char *line = per_gpu && x->gpu >= 0
					     ? xasprintf("GPU %d: %s", x->gpu, x->evidence[k])
					     : xstrdup(x->evidence[k]);

			fprintf(f, "%19s%s-%s ", "", c_dim(), c_reset());
			wrap(f, line, 21, 21, width);
			free(line);
		}
	}
	if (gr->f->nevidence == 0 && !per_gpu)
		fprintf(f, "%19s%s-%s (no facts recorded)\n", "", c_dim(), c_reset());
}

static void fix_flags_text(unsigned flags, char *out, size_t n)
{
	out[0] = '\0';
	if (flags & FIX_ROOT)
		str_append(out, "needs root", n);
	if (flags & FIX_REBOOT)
		str_append(out, out[0] ? ", reboots" : "reboots", n);
	else if (flags & FIX_INTERRUPTS)
		str_append(out, out[0] ? ", interrupts GPU work" : "interrupts GPU work", n);
	if (flags & FIX_SERVICE)
		str_append(out, out[0] ? ", hardware service" : "hardware service", n);
}

static void machine_line(FILE *f, const struct doctor_input *in, int width)
{
	const struct gpu_system *sys = &in->sys;
	const struct platform_facts *p = &in->facts.platform;
	struct strbuf sb;

	sb_init(&sb);
	sb_adds(&sb, "gpuvet doctor: ");
	if (sys->ngpus) {
		const char *name = text_ok(&sys->gpus[0].st.name) ? sys->gpus[0].st.name.s : "GPU";
		unsigned i, same = 1;

		for (i = 1; i < sys->ngpus; i++)
			same += text_ok(&sys->gpus[i].st.name) &&
				strcmp(sys->gpus[i].st.name.s, name) == 0;
		if (same == sys->ngpus)
			sb_addf(&sb, "%u x %s", sys->ngpus, name);
		else
			sb_addf(&sb, "%u GPUs", sys->ngpus);
	} else if (in->facts.pci.ngpus) {
		sb_addf(&sb, "%d NVIDIA GPU%s on PCI", in->facts.pci.ngpus,
			in->facts.pci.ngpus == 1 ? "" : "s");
	} else {
		sb_adds(&sb, "no NVIDIA GPU");
	}
	if (text_ok(&sys->driver_version))
		sb_addf(&sb, ", driver %s", sys->driver_version.s);
	else if (in->facts.module.version[0])
		sb_addf(&sb, ", module %s", in->facts.module.version);
	if (num_ok(&sys->cuda_version))
		sb_addf(&sb, ", CUDA %lld.%lld", (long long)sys->cuda_version.v / 1000,
			(long long)(sys->cuda_version.v % 1000) / 10);
	if (p->os_pretty[0])
		sb_addf(&sb, "; %s", p->os_pretty);
	if (p->un.release[0])
		sb_addf(&sb, ", kernel %s", p->un.release);
	fprintf(f, "%s", c_bold());
	wrap(f, sb.buf, 0, 2, width);
	fprintf(f, "%s", c_reset());
	sb_release(&sb);
}

void report_human(FILE *f, const struct doctor_input *in, const struct findings *fs,
		  const struct report_opts *o)
{
	struct groups g;
	int width = o && o->width > 40 ? o->width : 100;
	size_t i;
	int nfail = 0, nwarn = 0, nok = 0, ninfo = 0, necho = 0;
	unsigned total = in->sys.ngpus ? in->sys.ngpus : (unsigned)in->facts.pci.ngpus;
	enum severity worst = findings_worst(fs);

	group_findings(fs, &g);
	machine_line(f, in, width);
	fputc('\n', f);
	/* the layer table: every group, bottom of the stack first */
	for (i = 0; i < g.n; i++) {
		const struct group *gr = &g.v[i];
		const struct finding *x = gr->f;
		char gpus[128];
		struct strbuf line;

		if (x->cause)
			necho++;
		else if (x->sev == SEV_FAIL)
			nfail++;
		else if (x->sev == SEV_WARN)
			nwarn++;
		else if (x->sev == SEV_OK)
			nok++;
		else
			ninfo++;
		gpu_set_text(gr, total, gpus, sizeof(gpus));
		sb_init(&line);
		if (gpus[0])
			sb_addf(&line, "%s: ", gpus);
		sb_adds(&line, x->summary);
		if (x->cause)
			sb_addf(&line, " (an echo of %s)", x->cause->def->id);
		fprintf(f, "  %-10s %s%-4s%s  ", layer_name(x->def->layer), sev_color(x->sev),
			severity_name(x->sev), c_reset());
		wrap(f, line.buf, 19, 19, width);
		sb_release(&line);
		/* a problem's evidence comes with its fix below; -v shows the rest's facts here */
		if (o && o->verbose && x->sev <= SEV_INFO && !x->cause)
			print_facts(f, gr, width);
	}
	/* the problems, with evidence and the fix; echoes are listed under their cause */
	for (i = 0; i < g.n; i++) {
		const struct group *gr = &g.v[i];
		const struct finding *x = gr->f;
		char gpus[128], flags[96];
		struct strbuf line;
		size_t j;
		int k;

		if (x->sev < SEV_WARN || x->cause)
			continue;
		gpu_set_text(gr, total, gpus, sizeof(gpus));
		fputc('\n', f);
		sb_init(&line);
		sb_addf(&line, "%s", x->def->id);
		if (gpus[0])
			sb_addf(&line, " (%s)", gpus);
		sb_addf(&line, ": %s", x->summary);
		fprintf(f, "%s%s%s%s ", c_bold(), sev_color(x->sev), x->sev == SEV_FAIL ? "FAIL" : "WARN",
			c_reset());
		wrap(f, line.buf, 5, 5, width);
		sb_release(&line);
		for (k = 0; k < x->nevidence; k++) {
			fprintf(f, "  %s%s%s ", c_dim(), k ? "        " : "evidence", c_reset());
			wrap(f, x->evidence[k], 11, 11, width);
		}
		if (x->fix) {
			fix_flags_text(x->fix_flags, flags, sizeof(flags));
			fprintf(f, "  %sfix%s      ", c_bold(), c_reset());
			wrap(f, x->fix, 11, 11, width);
			if (flags[0])
				fprintf(f, "           (%s)\n", flags);
		}
		for (j = 0; j < fs->n; j++) {
			const struct finding *echo = &fs->v[j];

			if (echo->cause != x && !(gr->ngpus > 1 && echo->cause &&
						   same_group(echo->cause, x)))
				continue;
			sb_init(&line);
			sb_addf(&line, "%s: %s", echo->def->id, echo->summary);
			fprintf(f, "  %secho%s     ", c_dim(), c_reset());
			wrap(f, line.buf, 11, 11, width);
			sb_release(&line);
		}
	}
	fputc('\n', f);
	fprintf(f, "%s%s%s: %d failure%s, %d warning%s, %d echo%s, %d ok, %d info (exit %d) in %.2f s\n",
		sev_color(worst), worst == SEV_FAIL ? "FAIL" : worst == SEV_WARN ? "WARN" : "OK",
		c_reset(), nfail, nfail == 1 ? "" : "s", nwarn, nwarn == 1 ? "" : "s", necho,
		necho == 1 ? "" : "es", nok, ninfo,
		worst == SEV_FAIL ? EXIT_FAIL : worst == SEV_WARN ? EXIT_WARN : EXIT_OK,
		(double)(in->facts_ns + in->probe_ns) / 1e9);
	groups_free(&g);
}

static json_t *json_text_or_null(const struct text *t)
{
	return text_ok(t) ? json_string(t->s) : json_null();
}

void report_json(FILE *f, const struct doctor_input *in, const struct findings *fs)
{
	const struct gpu_system *sys = &in->sys;
	const struct platform_facts *p = &in->facts.platform;
	json_t *root = json_object(), *machine = json_object(), *gpus = json_array();
	json_t *list = json_array();
	enum severity worst = findings_worst(fs);
	struct groups g;
	unsigned i;
	size_t j;
	char *s;

	json_object_set_new(root, "gpuvet_version", json_string(GPUVET_VERSION));
	/* the verdict the text's last line gives, and the exit code: ok, warn or fail (an info
	 * finding is no problem) */
	json_object_set_new(root, "result", json_string(worst == SEV_FAIL   ? "fail"
							: worst == SEV_WARN ? "warn"
									    : "ok"));
	json_object_set_new(root, "exit_code", json_integer(worst == SEV_FAIL   ? EXIT_FAIL
							    : worst == SEV_WARN ? EXIT_WARN
										: EXIT_OK));
	json_object_set_new(machine, "kernel", json_string(p->un.release));
	json_object_set_new(machine, "os", json_string(p->os_pretty));
	json_object_set_new(machine, "container", json_boolean(p->container));
	json_object_set_new(machine, "wsl", json_boolean(p->wsl));
	json_object_set_new(machine, "vm", json_boolean(p->vm));
	json_object_set_new(machine, "pci_gpus", json_integer(in->facts.pci.ngpus));
	json_object_set_new(machine, "module_version", in->facts.module.version[0]
							       ? json_string(in->facts.module.version)
							       : json_null());
	json_object_set_new(machine, "driver_version", json_text_or_null(&sys->driver_version));
	if (num_ok(&sys->cuda_version))
		json_object_set_new(machine, "cuda_driver_version",
				    json_sprintf("%lld.%lld", (long long)sys->cuda_version.v / 1000,
						 (long long)(sys->cuda_version.v % 1000) / 10));
	else
		json_object_set_new(machine, "cuda_driver_version", json_null());
	json_object_set_new(machine, "nvml_library",
			    sys->nvml_lib.loaded ? json_string(sys->nvml_lib.path) : json_null());
	json_object_set_new(machine, "cuda_library",
			    sys->cuda_lib.loaded ? json_string(sys->cuda_lib.path) : json_null());
	for (i = 0; i < sys->ngpus; i++) {
		const struct gpu *gp = &sys->gpus[i];

		json_array_append_new(gpus, json_pack("{s:i, s:o, s:o, s:o}", "index", (json_int_t)i,
						      "name", json_text_or_null(&gp->st.name), "bus_id",
						      json_text_or_null(&gp->st.bus_id), "uuid",
						      json_text_or_null(&gp->st.uuid)));
	}
	json_object_set_new(machine, "gpus", gpus);
	json_object_set_new(root, "machine", machine);
	json_object_set_new(root, "timing_ms",
			    json_pack("{s:f, s:f}", "facts", in->facts_ns / 1e6, "probe",
				      in->probe_ns / 1e6));
	group_findings(fs, &g);
	for (j = 0; j < g.n; j++) {
		const struct finding *x = g.v[j].f;
		json_t *o = json_object(), *ev = json_array(), *gl = json_array();
		int k;

		qsort(g.v[j].gpus, (size_t)g.v[j].ngpus, sizeof(int), cmp_int);
		json_object_set_new(o, "id", json_string(x->def->id));
		json_object_set_new(o, "layer", json_string(layer_name(x->def->layer)));
		json_object_set_new(o, "severity", json_string(severity_name(x->sev)));
		for (k = 0; k < g.v[j].ngpus; k++)
			json_array_append_new(gl, json_integer(g.v[j].gpus[k]));
		json_object_set_new(o, "gpus", g.v[j].system ? json_null() : gl);
		if (g.v[j].system)
			json_decref(gl);
		json_object_set_new(o, "summary", json_string(x->summary));
		for (k = 0; k < x->nevidence; k++)
			json_array_append_new(ev, json_string(x->evidence[k]));
		json_object_set_new(o, "evidence", ev);
		if (evidence_differs(&g.v[j])) {
			json_t *per = json_array();
			int m;

			for (m = 0; m < g.v[j].nmembers; m++) {
				const struct finding *mf = g.v[j].members[m];
				json_t *mev = json_array();

				for (k = 0; k < mf->nevidence; k++)
					json_array_append_new(mev, json_string(mf->evidence[k]));
				json_array_append_new(per, json_pack("{s:i, s:o}", "gpu", mf->gpu,
								     "evidence", mev));
			}
			json_object_set_new(o, "evidence_per_gpu", per);
		}
		if (x->fix)
			json_object_set_new(o, "fix",
					    json_pack("{s:s, s:b, s:b, s:b, s:b}", "text", x->fix,
						      "needs_root", (x->fix_flags & FIX_ROOT) != 0,
						      "reboots", (x->fix_flags & FIX_REBOOT) != 0,
						      "interrupts_work",
						      (x->fix_flags & (FIX_INTERRUPTS | FIX_REBOOT)) != 0,
						      "hardware_service", (x->fix_flags & FIX_SERVICE) != 0));
		else
			json_object_set_new(o, "fix", json_null());
		json_object_set_new(o, "echo_of", x->cause ? json_string(x->cause->def->id) : json_null());
		json_array_append_new(list, o);
	}
	groups_free(&g);
	json_object_set_new(root, "findings", list);
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputs(s, f);
	fputc('\n', f);
	free(s);
	json_decref(root);
}
