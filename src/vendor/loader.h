/*
 * loader.h: loading a vendor library with dlopen, and binding its symbols through a table.
 *
 * Each vendor module (nvml.c, cuda.c, later cublaslt.c and nccl.c) declares the functions it
 * uses in its own struct of function pointers and a table of struct vsym saying, for each, the
 * names to try (newest first: "_v3", "_v2", plain), whether it is required, and which capability
 * a missing optional symbol turns off. vlib_open reports the file actually loaded (its real path
 * and the version in its name), because "the wrong file was loaded" is the commonest library
 * failure (stubs, compat packages, stale copies).
 *
 * Overrides: the environment variable named by the caller (GPUVET_NVML_LIBRARY, ...) replaces
 * the soname. During a replay (vlib_set_replay, called by replay/replay.c) the library is
 * gpuvet's fake one, fed the recorded answers from memory, and reports the recorded path,
 * version, load error and missing symbols.
 */
#ifndef GPUVET_LOADER_H
#define GPUVET_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"

#define VLIB_MAX_MISSING 32

struct vsym {
	const char *names[3]; /* tried in order; NULL-terminated when fewer */
	size_t offset;	      /* where the pointer goes in the caller's table */
	bool required;
};

struct vlib {
	const char *what;   /* "NVML", "CUDA driver" */
	const char *key;    /* "nvml", "cuda": names the library in recordings */
	const char *soname; /* "libnvidia-ml.so.1" */
	void *handle;
	char path[4096];   /* real path of the loaded file */
	char version[64];  /* version from the file name ("580.159.04"), "" if none */
	char error[512];   /* why loading failed */
	bool from_override; /* the user named the file through the environment */
	const char *missing[VLIB_MAX_MISSING]; /* optional symbols not found (first name tried) */
	size_t nmissing;
};

/* Open the library; on failure fill l->error and e, and return -1. */
int vlib_open(struct vlib *l, const char *what, const char *key, const char *soname,
	      const char *env_var, struct err *e);
/*
 * Open the first of several candidates (sonames searched the usual way, or absolute paths),
 * in order; the environment variable, when set, replaces the whole list. On failure l->error
 * and e list every candidate with its reason, so the user sees where gpuvet looked.
 */
int vlib_open_any(struct vlib *l, const char *what, const char *key, const char *const *candidates,
		  size_t ncandidates, const char *env_var, struct err *e);
/* Resolve syms into table; -1 if a required symbol is missing (named in e). */
int vlib_bind(struct vlib *l, const struct vsym *syms, size_t n, void *table, struct err *e);
void vlib_close(struct vlib *l);
/* True when the optional symbol (first name) was not found. */
bool vlib_is_missing(const struct vlib *l, const char *name);

/* A vendor library as a replay serves it. */
struct vlib_replay {
	const char *key;	   /* "nvml", "cuda" */
	const char *fake_path;	   /* gpuvet's fake library to load */
	const char *path;	   /* the recorded machine's file, NULL when not recorded */
	const char *version;	   /* its version, NULL when not recorded */
	const char *error;	   /* the recorded load error: opening fails with it */
	const char *const *missing; /* optional symbols the recorded library lacked */
	size_t nmissing;
	const char *answers; /* the answer table handed to the fake (gpuvet_fake_answers) */
	size_t answers_len;
};
/* From now on every vendor library comes from the replay: those in libs (kept alive by the
 * caller) as described, any other fails to load as not recorded. NULL, 0 ends the replay. */
void vlib_set_replay(const struct vlib_replay *libs, size_t n);
/* During a replay, the libraries named in keys (NULL-terminated, kept alive by the caller) load
 * as they would without one (their override variable, else the soname): burn computes on a CUDA
 * library that can next to a replayed NVML. NULL puts every library back under the replay. */
void vlib_set_live(const char *const *keys);

#endif
