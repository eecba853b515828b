/*
 * status_view.c: one period of `gpuvet status` from a gpu_system (status_view.h): what the
 * output needs from the probe, the checks every period makes (NVML answered, the GPUs of -i
 * exist), and the choice of renderer. cmd/status.c calls it on its probe's system, serve's
 * agent on one built from the collector's snapshot (status_snap.c).
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "../gpu/libcheck.h"
#include "../gpu/probe.h"
#include "../gpu/select.h"
#include "../util/quote.h"
#include "../util/util.h"
#include "status_view.h"

unsigned status_probe_flags(const struct status_opts *o)
{
	if (o->query || o->apps)
		return status_query_probe(o);
	/* JSON has every field (the process count is two cheap calls); the table needs only
	 * the brief static facts and its own readings */
	if (o->json)
		return PROBE_NVML | PROBE_OTHER | PROBE_STATIC | PROBE_SAMPLE | PROBE_PROCS;
	return PROBE_NVML | PROBE_OTHER | PROBE_BRIEF | PROBE_TABLE | PROBE_ECC;
}

int status_render(const struct gpu_system *sys, struct status_opts *o, struct strbuf *out,
		  struct strbuf *errout)
{
	struct err e;
	unsigned i;
	int rc = EXIT_OK;

	err_clear(&e);
	o->selected = xcalloc(sys->ngpus ? sys->ngpus : 1, sizeof(*o->selected));
	if (libcheck_nvml(sys, &e) != 0 || select_system(o->ids, sys, o->selected, &e) != 0) {
		rc = err_format(&e, errout);
		goto out;
	}
	if (o->query)
		status_query_gpu(sys, o, out);
	else if (o->apps)
		status_query_apps(sys, o, out);
	else if (o->json)
		status_json(sys, o, out);
	else if (sys->ngpus == 0) {
		sb_adds(out, "no NVIDIA GPU found by NVML (driver ");
		quote_visible_add(out,
				  text_ok(&sys->driver_version) ? sys->driver_version.s : "n/a");
		sb_adds(out, ")\n");
	} else
		status_table(sys, o, out);
	/* every GPU is shown, but a script reading only the exit code must see a lost one */
	for (i = 0; i < sys->ngpus; i++)
		if (o->selected[i] && sys->gpus[i].s.lost)
			rc = EXIT_FAIL;
out:
	free(o->selected);
	o->selected = NULL;
	return rc;
}
