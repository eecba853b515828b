/*
 * status_query.c: nvidia-smi's queries in `gpuvet status` (status_view.h): the CSV or JSON of
 * --query-gpu (gpuvet's --query) and --query-compute-apps. Their field lists are checked, and
 * --help-query printed, in cmd/status.c.
 *
 * The field names are nvidia-smi's (gpu/fields.c), so a script can swap `nvidia-smi
 * --query-gpu=A,B --format=csv` for `gpuvet status --query A,B --format csv`, and the output
 * is nvidia-smi's: a header with units in brackets, values with units, "[N/A]" for a value
 * that cannot be read, "[<error> (<code>)]" for a failed call. Process names come from the
 * examined machine's /proc (host/), as nvidia-smi's come from the driver's view of it.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/fields.h"
#include "../gpu/probe.h"
#include "../gpu/tier.h"
#include "../host/host.h"
#include "../host/proctree.h"
#include "../util/quote.h"
#include "../util/util.h"
#include "status_view.h"

static void csv_value(struct strbuf *sb, const char *unit, const struct field_out *o, bool nounits)
{
	char eb[96];

	if (o->st == VAL_OK) {
		quote_visible_add(sb, o->text); /* names and versions come from the driver */
		if (unit && !nounits)
			sb_addf(sb, " %s", unit);
	} else if (o->st == VAL_ERR) {
		sb_addf(sb, "[%s]", field_error_text(o->lib, o->rc, eb, sizeof(eb)));
	} else {
		sb_adds(sb, "[N/A]");
	}
}

static json_t *json_value(const struct field_out *fo, int decimals)
{
	if (fo->st != VAL_OK)
		return json_null();
	if (fo->is_text)
		return json_string(fo->text);
	if (decimals)
		return json_real(fo->num);
	return json_integer((json_int_t)fo->num);
}

/* One JSON array per period: indented when run once, one line when looping. */
static void json_out(json_t *arr, const struct status_opts *o, struct strbuf *out)
{
	char *s =
	    json_dumps(arr, JSON_PRESERVE_ORDER | (o->loop_ms ? JSON_COMPACT : JSON_INDENT(2)));

	sb_adds(out, s);
	sb_addc(out, '\n');
	free(s);
	json_decref(arr);
}

/* Is f filled by the status table's probe (PROBE_BRIEF | PROBE_TABLE | PROBE_ECC)? On the
 * H200s the first call of each other query costs 1-4 ms per GPU, so a --query of only these
 * readings costs what the table costs, not what the full probe does. */
static bool table_reading(const struct field *f)
{
	const struct tier_member *m;

	switch (f->kind) {
	case FK_INDEX:
	case FK_VENDOR:
	case FK_TIMESTAMP:
	case FK_SYS_TEXT:
	case FK_SYS_NUM: return true; /* NVML's session, the clock, the vendor */
	case FK_CC: return false;
	default: break;
	}
	m = tier_find(f->off);
	return m && m->table;
}

unsigned status_query_probe(const struct status_opts *o)
{
	unsigned flags = PROBE_NVML | PROBE_OTHER | PROBE_BRIEF | PROBE_TABLE | PROBE_ECC;

	if (o->query) {
		struct field_list fl;
		unsigned extra = 0;
		size_t i;

		field_list_parse(o->query, &fl); /* status_query_check has accepted it */
		for (i = 0; i < fl.n; i++) {
			if (!table_reading(fl.v[i]))
				flags = PROBE_NVML | PROBE_OTHER | PROBE_STATIC | PROBE_SAMPLE;
			extra |= field_probe_flags(fl.v[i]);
		}
		field_list_free(&fl);
		return flags | extra;
	}
	/* the processes and what names their GPU; the serial only when asked */
	flags = PROBE_NVML | PROBE_OTHER | PROBE_BRIEF | PROBE_PROCS;
	if (o->apps) {
		struct app_field_list al;
		size_t i;

		app_field_list_parse(o->apps, &al);
		for (i = 0; i < al.n; i++)
			if (al.v[i]->kind == AF_GPU_SERIAL)
				flags |= PROBE_STATIC;
		app_field_list_free(&al);
	}
	return flags;
}

void status_query_gpu(const struct gpu_system *sys, const struct status_opts *o, struct strbuf *out)
{
	struct field_list fl;
	unsigned gi;
	size_t i;

	field_list_parse(o->query, &fl);
	if (o->json) {
		json_t *arr = json_array();

		for (gi = 0; gi < sys->ngpus; gi++) {
			json_t *obj;

			if (!o->selected[gi])
				continue;
			obj = json_object();
			for (i = 0; i < fl.n; i++) {
				struct field_out fo;

				field_get(fl.v[i], sys, &sys->gpus[gi], &fo);
				json_object_set_new(obj, fl.names[i],
						    json_value(&fo, fl.v[i]->decimals));
			}
			json_array_append_new(arr, obj);
		}
		json_out(arr, o, out);
		field_list_free(&fl);
		return;
	}
	if (o->header) {
		for (i = 0; i < fl.n; i++) {
			sb_addf(out, "%s%s", i ? ", " : "", fl.names[i]);
			if (fl.v[i]->unit && !o->nounits)
				sb_addf(out, " [%s]", fl.v[i]->unit);
		}
		sb_addc(out, '\n');
	}
	for (gi = 0; gi < sys->ngpus; gi++) {
		if (!o->selected[gi])
			continue;
		for (i = 0; i < fl.n; i++) {
			struct field_out fo;

			field_get(fl.v[i], sys, &sys->gpus[gi], &fo);
			if (i)
				sb_adds(out, ", ");
			csv_value(out, fl.v[i]->unit, &fo, o->nounits);
		}
		sb_addc(out, '\n');
	}
	field_list_free(&fl);
}

/* The process's name as nvidia-smi gives it: the first word of its command line (argv[0]),
 * else its kernel name. False when it cannot be told: the process is gone, or gpuvet runs in
 * a PID namespace of its own (a container without --pid=host), where NVML's PIDs are the
 * host's and the same number here is another process. */
static bool process_name(unsigned pid, bool other_ns, char *out, size_t n)
{
	char path[64];
	size_t len = 0;
	int err = 0;
	char *text;

	out[0] = '\0';
	if (other_ns)
		return false;
	str_fmt(path, sizeof(path), "/proc/%u/cmdline", pid);
	text = host_read(path, 4096, &len, &err);
	if (text && len > 0)
		str_copy(out, text, n); /* up to the first NUL: argv[0] */
	free(text);
	if (!out[0]) {
		struct proc_stat st;

		if (proctree_read_stat(pid, &st) != 0)
			return false;
		str_copy(out, st.comm, n);
	}
	return out[0] != '\0';
}

void status_query_apps(const struct gpu_system *sys, const struct status_opts *o,
		       struct strbuf *out)
{
	struct app_field_list al;
	json_t *arr = o->json ? json_array() : NULL;
	bool other_ns = proctree_pidns() == PIDNS_CHILD;
	unsigned gi;
	size_t i, k;

	app_field_list_parse(o->apps, &al);
	if (o->header && !o->json) {
		/* nvidia-smi heads each column with the field's own name, not the alias typed */
		for (i = 0; i < al.n; i++) {
			sb_addf(out, "%s%s", i ? ", " : "", al.v[i]->smi);
			if (al.v[i]->unit && !o->nounits)
				sb_addf(out, " [%s]", al.v[i]->unit);
		}
		sb_addc(out, '\n');
	}
	for (gi = 0; gi < sys->ngpus; gi++) {
		const struct gpu *g = &sys->gpus[gi];

		if (!o->selected[gi])
			continue;
		for (k = 0; k < g->s.procs_len; k++) {
			const struct gpu_proc *p = &g->s.procs[k];
			char name[256];
			bool have_name;
			json_t *obj = NULL;

			if (p->type != 'C') /* graphics clients are not compute apps */
				continue;
			have_name = process_name(p->pid, other_ns, name, sizeof(name));
			if (arr)
				obj = json_object();
			for (i = 0; i < al.n; i++) {
				struct field_out fo;

				app_field_get(al.v[i], g, p, have_name ? name : NULL, &fo);
				if (obj) {
					json_object_set_new(obj, al.v[i]->smi, json_value(&fo, 0));
					continue;
				}
				if (i)
					sb_adds(out, ", ");
				csv_value(out, al.v[i]->unit, &fo, o->nounits);
			}
			if (obj)
				json_array_append_new(arr, obj);
			else
				sb_addc(out, '\n');
		}
	}
	if (arr)
		json_out(arr, o, out);
	app_field_list_free(&al);
}
