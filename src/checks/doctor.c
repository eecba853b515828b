/*
 * doctor.c: collect, check, fold (see doctor.h).
 *
 * Folding follows the catalog's first lesson: the lowest broken layer is the cause and what
 * fails above it is usually its echo. A finding whose catalog entry is marked `symptom` (NVML
 * cannot initialise, cuInit fails, CUDA sees fewer GPUs, ...) is attached to the lowest
 * failing finding below its layer, and shown under it rather than as a problem of its own.
 */
#include "doctor.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "../gpu/probe.h"
#include "../util/util.h"
#include "catalog.h"

void facts_collect(struct host_facts *f)
{
	memset(f, 0, sizeof(*f));
	platform_collect(&f->platform, &f->env);
	pci_collect(&f->pci);
	module_collect(&f->module, &f->platform);
	devnodes_collect(&f->devnodes);
	kmsg_collect(&f->kmsg);
	libs_collect(&f->libs, &f->env);
	toolkit_collect(&f->toolkit, &f->env);
	python_collect(&f->python, &f->env);
	procs_collect(&f->procs);
	amd_collect(&f->amd, &f->pci, &f->python);
	/* other vendors' stacks: nothing is read unless pci found such a device */
	oneapi_collect(&f->oneapi, &f->pci, &f->python);
	ascend_collect(&f->ascend, &f->pci, &f->python);
	stalls_collect(&f->stalls, &f->pci);
}

static void *cl_thread_run(void *arg)
{
	cl_collect_guarded(arg);
	return NULL;
}

int doctor_collect(struct doctor_input *in, unsigned probe_flags, struct err *e)
{
	int64_t t0 = now_ns();
	struct err pe;
	pthread_t cl_tid;
	bool cl_thread = false;

	memset(in, 0, sizeof(*in));
	err_clear(&pe);
	/* files first: the libraries can load modules and create device nodes */
	facts_collect(&in->facts);
	in->facts_ns = now_ns() - t0;
	t0 = now_ns();
	/* OpenCL beside the probe, each with its own time limit: loading the ICDs (PoCL's start-up,
	 * NVIDIA's driver) would otherwise add its time to doctor's (50-60 ms on the H200) */
	if (probe_flags & PROBE_OPENCL)
		cl_thread = pthread_create(&cl_tid, NULL, cl_thread_run, &in->cl) == 0;
	if (probe_run(&in->sys, probe_flags, &pe) != 0 && !in->sys.hung) {
		/* a garbage answer (an implausible count): a finding, not the end of doctor */
		str_copy(in->sys.hang_msg, pe.msg, sizeof(in->sys.hang_msg));
	}
	if (cl_thread)
		pthread_join(cl_tid, NULL);
	else if (probe_flags & PROBE_OPENCL)
		cl_collect_guarded(&in->cl);
	in->probe_ns = now_ns() - t0;
	/* the probe reads sysfs too (topology, NUMA): its stalls count */
	stalls_collect(&in->facts.stalls, &in->facts.pci);
	(void)e;
	return 0;
}

const char *fact_num(const struct num *n, char *buf, size_t len)
{
	if (!num_ok(n))
		return "n/a";
	str_fmt(buf, len, "%lld", (long long)n->v);
	return buf;
}

void doctor_input_free(struct doctor_input *in)
{
	if (!in->sys.hung)
		gpu_system_free(&in->sys);
}

/* Is f about a single GPU other than gpu (-1: the machine, which any GPU's fault may explain)? */
static bool other_gpu(const struct finding *f, int gpu)
{
	return gpu >= 0 && f->one_device && f->gpu != gpu;
}

/* The failure a symptom at `layer` is an echo of: the lowest failure below it, preferring a
 * cause to another symptom at the same layer. A failure that is itself an echo still counts:
 * the chain is followed to its root afterwards. A symptom of GPU `gpu` (-1: the machine) is
 * never put under the fault of another single GPU. */
static const struct finding *cause_below(const struct findings *fs, enum layer layer, int gpu)
{
	const struct finding *best = NULL;
	size_t i;

	for (i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];

		/* a cause may sit in the same layer (module.missing_for_kernel under which
		 * module.not_loaded is an echo), but a symptom is never the cause of another
		 * symptom of its own layer */
		if (f->sev != SEV_FAIL || f->def->layer > layer)
			continue;
		if (f->def->layer == layer && f->def->symptom)
			continue;
		/* one GPU's fault explains nothing about another GPU */
		if (other_gpu(f, gpu))
			continue;
		if (!best || f->def->layer < best->def->layer ||
		    (f->def->layer == best->def->layer && best->def->symptom && !f->def->symptom))
			best = f;
	}
	return best;
}

/* The finding a check named as the cause (any severity from warn up, any layer). */
static const struct finding *named_cause(const struct findings *fs, const struct finding *echo)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];

		if (f != echo && f->sev >= SEV_WARN && strcmp(f->def->id, echo->cause_id) == 0)
			return f;
	}
	return NULL;
}

/* A machine of other vendors' GPUs that never had NVIDIA's: no NVIDIA GPU on the bus, no
 * NVIDIA module (loaded, or built for the running kernel) and no NVIDIA driver library. There,
 * "no NVIDIA GPU" and what follows from it are facts, not faults: their layers say so as info
 * and the machine is judged by its own vendor's layer. */
bool doctor_other_vendor_only(const struct host_facts *h)
{
	const struct module_facts *m = &h->module;

	return h->pci.ngpus == 0 && h->pci.naccel > 0 && !m->loaded_nvidia && !m->proc_version &&
	       !m->running_has_module && h->libs.libnvml.n == 0 && h->libs.libcuda.n == 0;
}

void doctor_check(const struct doctor_input *in, struct findings *out)
{
	size_t i;

	for (i = 0; i < doctor_nchecks; i++)
		doctor_checks[i]->run(in, out);
	/* fold, bottom up, so a chain (module -> nvml -> cuda) points at its root */
	for (i = 0; i < out->n; i++) {
		struct finding *f = &out->v[i];

		if (f->sev < SEV_WARN)
			continue;
		if (f->cause_id)
			f->cause = named_cause(out, f);
		if (!f->cause && f->def->symptom)
			f->cause = cause_below(out, f->def->layer, f->gpu);
	}
	for (i = 0; i < out->n; i++) {
		struct finding *f = &out->v[i];
		size_t hops = 0;

		/* to the root, but never onto another GPU's fault; a cycle (two checks naming
		 * each other) stops at out->n hops */
		while (f->cause && f->cause->cause && f->cause->cause != f && ++hops < out->n &&
		       !other_gpu(f->cause->cause, f->gpu))
			f->cause = f->cause->cause;
		if (f->cause == f || (f->cause && f->cause->cause == f))
			f->cause = NULL;
	}
	/* no NVIDIA GPU where none was meant to be: the finding and its echoes are information */
	if (doctor_other_vendor_only(&in->facts))
		for (i = 0; i < out->n; i++) {
			struct finding *f = &out->v[i];

			if (!strcmp(f->def->id, "pci.no_gpu") ||
			    (f->cause && !strcmp(f->cause->def->id, "pci.no_gpu")))
				f->sev = SEV_INFO;
		}
	/* a cause is as severe as what it breaks: vfio-pci holding every GPU is a warning on its
	 * own, a failure once it is why nothing above can run */
	for (i = 0; i < out->n; i++) {
		const struct finding *f = &out->v[i];

		if (f->cause && f->sev > f->cause->sev)
			out->v[f->cause - out->v].sev = f->sev;
	}
}
