/*
 * value.h: one reading with its three possible outcomes.
 *
 * Every field gpuvet shows is a value, "not supported" (shown n/a, exported as absent, never
 * as 0), or an error that names the vendor call and its return code. The call name is a string
 * literal; rc is the vendor's own code (NVML or CUDA), kept for evidence text, and reason is
 * what that code means in words every layer shares, decoded once by gpu/reason.c. Code above
 * gpu/ decides on reason and never compares rc with a vendor constant.
 */
#ifndef GPUVET_VALUE_H
#define GPUVET_VALUE_H

#include <stdbool.h>
#include <stdint.h>

enum val_state {
	VAL_UNSET = 0, /* not asked (yet) */
	VAL_OK,
	VAL_NA,	 /* not supported on this GPU or driver */
	VAL_ERR, /* the call failed */
};

enum val_lib { LIB_NONE = 0, LIB_NVML, LIB_CUDA, LIB_HOST };

/* Why a vendor call failed, whichever library answered. The codes each reason stands for are
 * listed in gpu/reason.c; doctor tells these apart (checks/nvml.c, cuda.c, libraries.c,
 * module.c, env.c, fabric.c). */
enum val_reason {
	REASON_NONE = 0,	   /* success (or no vendor call) */
	REASON_UNINITIALIZED,	   /* the library was not initialised */
	REASON_NOT_SUPPORTED,	   /* this GPU or driver lacks the call */
	REASON_NO_PERMISSION,	   /* this user may not */
	REASON_DRIVER_NOT_LOADED,  /* the kernel module is not loaded */
	REASON_VERSION_MISMATCH,   /* the library and the kernel module differ */
	REASON_GPU_LOST,	   /* the GPU fell off the bus or stopped answering */
	REASON_RESET_REQUIRED,	   /* the GPU needs a reset */
	REASON_INFOROM_CORRUPTED,  /* the GPU's InfoROM is corrupted */
	REASON_NOT_READY,	   /* the system is not ready yet (fabric registration) */
	REASON_NO_DEVICE,	   /* no usable GPU is visible */
	REASON_IN_USE,		   /* busy, or prohibited by its compute mode */
	REASON_TIMEOUT,		   /* the call timed out */
	REASON_INSUFFICIENT_POWER, /* an external power cable is missing */
	REASON_STUB_LIBRARY,	   /* the toolkit's stub library was loaded */
	REASON_COMPAT_UNSUPPORTED, /* a forward-compatibility library on a GPU without it */
	REASON_UNKNOWN,		   /* the library itself does not know (its "unknown error") */
	REASON_OTHER,		   /* any other failure: rc says which */
};

struct num {
	int64_t v;
	const char *call; /* the call that produced it, or failed */
	int rc;		  /* vendor return code when st is VAL_ERR or VAL_NA */
	unsigned char st; /* enum val_state */
	unsigned char lib; /* enum val_lib */
	unsigned char reason; /* enum val_reason: what rc means */
};

struct text {
	char s[96];
	const char *call;
	int rc;
	unsigned char st;
	unsigned char lib;
	unsigned char reason; /* enum val_reason */
};

static inline bool num_ok(const struct num *n)
{
	return n->st == VAL_OK;
}

static inline bool text_ok(const struct text *t)
{
	return t->st == VAL_OK;
}

/* A value: the call answered, so there is no failure reason. */
static inline void num_set(struct num *n, int64_t v)
{
	n->v = v;
	n->st = VAL_OK;
	n->reason = REASON_NONE;
}

#endif
