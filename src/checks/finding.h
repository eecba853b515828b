/*
 * finding.h: what doctor reports: findings with a stable id, a severity, evidence and a fix.
 *
 * Every id is defined once, with its layer and title, by the check that reports it
 * (checks/<name>.c; catalog.c's table joins them); docs/findings.md documents each one and a
 * test keeps the two in step. A finding's summary never names its GPU: the output groups
 * identical findings and says "GPU 3 of 8" or "GPUs 0-7". Checks only add findings; folding
 * echoes under their cause and printing are done by doctor.c and cmd/doctor_report.c.
 */
#ifndef GPUVET_FINDING_H
#define GPUVET_FINDING_H

#include <stdbool.h>
#include <stddef.h>

enum severity { SEV_OK = 0, SEV_INFO, SEV_WARN, SEV_FAIL };

/* The stack, bottom up: the lowest failing layer is the cause of what fails above it. */
enum layer {
	LAYER_PLATFORM = 0, /* OS, container, WSL, VM */
	LAYER_PCI,	    /* the GPUs on the bus and the driver bound to them */
	LAYER_MODULE,	    /* the kernel module, its files, Secure Boot, blacklists */
	LAYER_DEVICES,	    /* /dev/nvidia* and permissions */
	LAYER_LIBRARIES,    /* libnvidia-ml and libcuda: which files, which versions */
	LAYER_NVML,	    /* NVML init and per-GPU errors */
	LAYER_CUDA,	    /* cuInit, device count, the driver's CUDA version */
	LAYER_HEALTH,	    /* per-GPU health: ECC, PCIe, clocks, power, heat, Xids */
	LAYER_FABRIC,	    /* NVSwitch, Fabric Manager, NVLink, P2P */
	LAYER_TOOLKIT,	    /* CUDA toolkits and nvcc */
	LAYER_FRAMEWORK,    /* PyTorch, TensorFlow, JAX builds */
	LAYER_ENV,	    /* environment variables */
	/* other vendors' stacks, each from its bus up (issue 14) */
	LAYER_AMD,	    /* AMD: amdgpu bound, /dev/kfd and render nodes, ROCm, HIP builds */
	LAYER_INTEL,	    /* Intel: i915/xe, render nodes, Level Zero and the compute runtime */
	LAYER_ASCEND,	    /* Huawei Ascend: the NPU driver, its version, npu-smi */
	LAYER_COUNT
};

/* What running the fix involves. */
enum {
	FIX_ROOT = 1 << 0,	/* needs sudo */
	FIX_REBOOT = 1 << 1,	/* reboots the machine */
	FIX_INTERRUPTS = 1 << 2, /* stops GPU work (module reload, GPU reset, drain) */
	FIX_SERVICE = 1 << 3,	/* hardware service: the fix is not a command */
};

struct finding_def {
	const char *id;	   /* "module.missing_for_kernel" */
	enum layer layer;
	const char *title; /* "no NVIDIA module for the running kernel" */
	bool symptom;	   /* an echo of a lower cause when one fails below it */
};

/* an ok line's facts can run to one per GPU node or per Python environment */
#define FINDING_MAX_EVIDENCE 16

struct finding {
	const struct finding_def *def;
	enum severity sev;
	int gpu;	 /* NVML index, or -1 for the whole machine */
	char *summary;	 /* one line */
	char *evidence[FINDING_MAX_EVIDENCE]; /* "file or call: value seen" */
	int nevidence;
	char *fix;	 /* the exact command(s) or action; NULL when there is nothing to do */
	unsigned fix_flags;
	const struct finding *cause; /* set when folded as an echo of a lower failure */
	const char *cause_id;	     /* set by a check that knows the cause: fold under it */
	bool one_device;	     /* about one GPU, even where NVML has no index for it */
};

struct findings {
	struct finding *v;
	size_t n, cap;
};

/* The catalog entry for id, or NULL. */
const struct finding_def *finding_def_find(const char *id);
const struct finding_def *finding_defs(size_t *n);
const char *layer_name(enum layer l);
const char *severity_name(enum severity s);

/* Add a finding; the id must be in the catalog (an unknown id aborts: a programming error).
 * The returned pointer is valid until the next finding_add. */
struct finding *finding_add(struct findings *fs, const char *id, enum severity sev, int gpu,
			    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void finding_evidence(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void finding_fix(struct finding *f, unsigned flags, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void findings_free(struct findings *fs);
/* The worst severity present (SEV_OK when empty). */
enum severity findings_worst(const struct findings *fs);
/* The worst severity among the findings added since fs->n was start. */
enum severity findings_worst_since(const struct findings *fs, size_t start);
/* Move the last finding to position pos: a layer's summary line is added last, once the layer
 * is known healthy, and shown first. */
void findings_move_last_to(struct findings *fs, size_t pos);
/* Does a finding with this id exist (any GPU)? */
bool findings_has(const struct findings *fs, const char *id);
/* Fold every finding with id `echo` under the finding with id `cause` (when both are raised):
 * for a cause the check knows, which may sit above the echo's layer (CUDA_VISIBLE_DEVICES
 * hiding every GPU is why cuInit says 100). */
void findings_fold(struct findings *fs, const char *echo, const char *cause);

#endif
