/*
 * value.h: one reading with its three possible outcomes.
 *
 * Every field gpuvet shows is a value, "not supported" (shown n/a, exported as absent, never
 * as 0), or an error that names the vendor call and its return code. The call name is a string
 * literal; rc is the vendor's own code (NVML or CUDA), decoded by the backend that set it.
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

struct num {
	int64_t v;
	const char *call; /* the call that produced it, or failed */
	int rc;		  /* vendor return code when st is VAL_ERR or VAL_NA */
	unsigned char st; /* enum val_state */
	unsigned char lib; /* enum val_lib */
};

struct text {
	char s[96];
	const char *call;
	int rc;
	unsigned char st;
	unsigned char lib;
};

static inline bool num_ok(const struct num *n)
{
	return n->st == VAL_OK;
}

static inline bool text_ok(const struct text *t)
{
	return t->st == VAL_OK;
}

static inline void num_set(struct num *n, int64_t v)
{
	n->v = v;
	n->st = VAL_OK;
}

#endif
