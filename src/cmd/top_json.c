/* top_json.c: see top_json.h. The GPU values are watch's columns (tui/columns.c), under the
 * same keys and in the same units as `watch --json`, so one parser reads both. */
#define _GNU_SOURCE
#include "top_json.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tui/columns.h"
#include "../util/util.h"
#include "mon_json.h"

/* The values of a GPU, in this order: what the panel shows, and the limits it shows them
 * against. */
static const char *const gpu_keys[] = {
	"pstate",	     "util_gpu_pct",	  "util_mem_pct",      "mem_used_bytes",
	"mem_total_bytes",   "temp_c",		  "temp_margin_c",     "mem_temp_c",
	"power_mw",	     "power_enforced_mw", "energy_avg_mw",     "clock_sm_mhz",
	"clock_max_sm_mhz",  "clock_mem_mhz",	  "clock_max_mem_mhz", "fan_pct",
	"pcie_gen",	     "pcie_width",	  "pcie_rx_bytes_s",   "pcie_tx_bytes_s",
	"nvlink_rx_bytes_s", "nvlink_tx_bytes_s", "ecc_vol_corrected", "ecc_vol_uncorrected",
	"sm_active_pct",     "sm_occupancy_pct",  "tensor_active_pct", "dram_active_pct",
	"power_capped_pct",  "thermal_capped_pct", "processes",	       "clock_event_reasons",
};

static void set_text(json_t *o, const char *key, const struct text *t)
{
	if (text_ok(t))
		json_object_set_new(o, key, json_string(t->s));
}

static json_t *mig_json(const struct gpu *g)
{
	json_t *m;

	if (!num_ok(&g->st.mig_current))
		return NULL;
	m = json_object();
	json_object_set_new(m, "mode", json_string(g->st.mig_current.v ? "on" : "off"));
	if (num_ok(&g->st.mig_pending))
		json_object_set_new(m, "pending", json_string(g->st.mig_pending.v ? "on" : "off"));
	if (g->st.mig_current.v && num_ok(&g->st.mig_instances))
		json_object_set_new(m, "instances", json_integer(g->st.mig_instances.v));
	return m;
}

static void gpu_values(json_t *o, const struct mon_snapshot *s, const struct mon_gpu *mg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpu_keys); i++) {
		struct column col;

		if (column_find(gpu_keys[i], &col))
			mon_json_column(o, &col, s, mg);
	}
	if (mg->nvlink_up)
		json_object_set_new(o, "nvlink_links_up", json_integer(mg->nvlink_up));
}

static json_t *gpu_json(const struct mon_snapshot *s, const struct mon_gpu *mg)
{
	const struct gpu *g = &mg->g;
	json_t *o = json_object(), *mig;
	char hold[256];

	json_object_set_new(o, "index", json_integer(g->index));
	set_text(o, "name", &g->st.name);
	set_text(o, "uuid", &g->st.uuid);
	set_text(o, "bus_id", &g->st.bus_id);
	json_object_set_new(o, "state",
			    json_string(mon_json_state(mg)));
	if (mg->problem[0])
		json_object_set_new(o, "problem", json_string(mg->problem));
	if ((mig = mig_json(g)))
		json_object_set_new(o, "mig", mig);
	if (mg->lost || mg->hung)
		return o; /* no longer sampled: its old values would read as current */
	frame_hold_back(s, mg, hold, sizeof(hold));
	if (hold[0])
		json_object_set_new(o, "held_back", json_string(hold));
	gpu_values(o, s, mg);
	return o;
}

static json_t *proc_json(const struct mon_proc *p)
{
	json_t *o = json_object();

	mon_json_process(o, p);
	return o;
}

void top_json_print(const struct mon_snapshot *s, const struct top_view *v, const char *source,
		    FILE *f)
{
	json_t *root = json_object(), *gpus = json_array(), *procs = json_array(), *notes = json_array();
	size_t *idx, n, k;
	unsigned i;
	char *out;

	json_object_set_new(root, "time", json_real(round(s->wall * 1000.0) / 1000.0));
	if (v->host[0])
		json_object_set_new(root, "host", json_string(v->host));
	json_object_set_new(root, "source", json_string(source));
	if (s->driver_version[0])
		json_object_set_new(root, "driver_version", json_string(s->driver_version));
	if (s->cuda_driver_version)
		json_object_set_new(root, "cuda_driver_version",
				    json_sprintf("%d.%d", s->cuda_driver_version / 1000,
						 s->cuda_driver_version % 1000 / 10));
	/* the window the differences (SM %, CPU %) and the rates cover */
	json_object_set_new(root, "interval_s", json_real((double)s->fast_ns / 1e9));
	json_object_set_new(root, "gpu_count", json_integer(s->ngpus));
	if (v->visible) {
		const char *cvd = getenv("CUDA_VISIBLE_DEVICES");

		json_object_set_new(root, "cuda_visible_devices", cvd ? json_string(cvd) : json_null());
	}
	for (i = 0; i < s->ngpus; i++)
		if (s->gpus[i].selected)
			json_array_append_new(gpus, gpu_json(s, &s->gpus[i]));
	json_object_set_new(root, "gpus", gpus);
	n = frame_rows(s, v, &idx);
	for (k = 0; k < n; k++)
		json_array_append_new(procs, proc_json(&s->procs[idx[k]]));
	free(idx);
	json_object_set_new(root, "processes", procs);
	if (s->note[0])
		json_array_append_new(notes, json_string(s->note));
	if (v->visible_note[0])
		json_array_append_new(notes, json_string(v->visible_note));
	if (s->stalled)
		json_array_append_new(notes, json_sprintf("NVML stopped answering: %s", s->stall_msg));
	json_object_set_new(root, "notes", notes);
	out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	if (out) {
		fputs(out, f);
		fputc('\n', f);
		free(out);
	}
	json_decref(root);
}
