/* mon_json.c: see mon_json.h. */
#define _GNU_SOURCE
#include "mon_json.h"

#include <math.h>
#include <string.h>

#include "../util/util.h"

const char *mon_json_state(const struct mon_gpu *mg)
{
	return mg->lost ? "lost" : mg->hung ? "hung" : mg->problem[0] ? "error" : "ok";
}

void mon_json_column(json_t *o, const struct column *col, const struct mon_snapshot *s,
		     const struct mon_gpu *mg)
{
	char text[160];
	double num;
	bool is_num;

	if (!column_value(col, s, mg, text, sizeof(text), &num, &is_num))
		return; /* n/a: absent, never 0 */
	if (col->kind == COL_REASONS) {
		json_t *arr = json_array();
		char *tok, *save = NULL;

		if (strcmp(text, "none") != 0)
			for (tok = strtok_r(text, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save))
				json_array_append_new(arr, json_string(str_trim(tok)));
		json_object_set_new(o, col->key, arr);
	} else if (!is_num) {
		json_object_set_new(o, col->key, json_string(text));
	} else if (col->json_div != 1) {
		json_object_set_new(o, col->key, json_real(num));
	} else {
		json_object_set_new(o, col->key, json_integer((json_int_t)llround(num)));
	}
}

void mon_json_process(json_t *o, const struct mon_proc *p)
{
	char type[2] = {p->type, 0};

	json_object_set_new(o, "gpu", json_integer(p->gpu));
	json_object_set_new(o, "pid", json_integer(p->nvml_pid));
	json_object_set_new(o, "type", json_string(type));
	if (p->gpu_mem_bytes >= 0)
		json_object_set_new(o, "gpu_mem_bytes", json_integer(p->gpu_mem_bytes));
	if (p->sm_pct >= 0) {
		json_object_set_new(o, "sm_pct", json_integer(p->sm_pct));
		json_object_set_new(o, "mem_pct", json_integer(p->mem_pct));
		json_object_set_new(o, "enc_pct", json_integer(p->enc_pct));
		json_object_set_new(o, "dec_pct", json_integer(p->dec_pct));
	}
	json_object_set_new(o, "visible", json_boolean(p->mapped != 0));
	if (!p->mapped)
		return;
	json_object_set_new(o, "local_pid", json_integer(p->host.pid));
	if (p->mapped == 'f')
		json_object_set_new(o, "matched_by", json_string("device files"));
	json_object_set_new(o, "user", json_string(p->host.user));
	if (p->host.container[0])
		json_object_set_new(o, "container", json_string(p->host.container));
	if (p->host.inner_pid != p->host.pid)
		json_object_set_new(o, "container_pid", json_integer(p->host.inner_pid));
	json_object_set_new(o, "command", json_string(p->host.cmd));
	if (p->host.cpu_pct >= 0)
		json_object_set_new(o, "cpu_pct", json_real(round(p->host.cpu_pct * 10) / 10));
	if (p->host.tree_cpu_pct >= 0)
		json_object_set_new(o, "tree_cpu_pct",
				    json_real(round(p->host.tree_cpu_pct * 10) / 10));
	json_object_set_new(o, "tree_procs", json_integer(p->host.tree_nprocs));
	json_object_set_new(o, "host_rss_bytes", json_integer(p->host.rss_bytes));
	json_object_set_new(o, "tree_rss_bytes", json_integer(p->host.tree_rss_bytes));
}
