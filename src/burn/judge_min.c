/*
 * judge_min.c: a stand-in for burn's verdict (judge.h) until judge.c is merged: weak, so the
 * real burn_judge replaces it at link time. Fails a GPU on its own counters only (wrong
 * results, NaN/Inf, memory errors, hung, lost); telemetry is not judged here. Adds a finding
 * only where the catalog has its id, so it never aborts on an unknown one.
 */
#include "judge.h"

__attribute__((weak)) enum severity burn_judge(const struct burn_gpu_run *gpus, size_t n,
					       struct findings *out)
{
	enum severity worst = SEV_OK;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct burn_counts *c = &gpus[i].c;
		bool bad = c->compare_errors || c->reference_errors || c->nan_inf ||
			   c->mem_errors || c->hung || c->lost;
		const char *id = bad ? "burn.wrong_results" : "burn.pass";
		struct finding *f;

		if (bad)
			worst = SEV_FAIL;
		if (!finding_def_find(id))
			continue;
		f = finding_add(out, id, bad ? SEV_FAIL : SEV_OK, gpus[i].index,
				bad ? "wrong results under load" : "no error under load");
		finding_evidence(f,
				 "%llu products: %llu compare errors, %llu reference errors, %llu "
				 "NaN/Inf",
				 (unsigned long long)c->products,
				 (unsigned long long)c->compare_errors,
				 (unsigned long long)c->reference_errors,
				 (unsigned long long)c->nan_inf);
		if (bad)
			finding_fix(f, FIX_SERVICE,
				    "run again; if it fails again, have the GPU replaced (RMA)");
	}
	return worst;
}
