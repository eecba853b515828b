/*
 * python_int.h: what the two halves of the Python reader (facts.h, python_collect) share:
 * python.c finds the environments, python_site.c reads what the frameworks' builds left in a
 * site-packages. Nothing else includes it.
 */
#ifndef GPUVET_PYTHON_INT_H
#define GPUVET_PYTHON_INT_H

#include <stddef.h>

#include "facts.h"

#define SMALL_FILE_MAX_BYTES (64u << 10) /* version.py, build_info.py, pyvenv.cfg */
#define METADATA_MAX_BYTES (256u << 10)	 /* headers come first; the long description after */
#define SITE_MAX_NAMES 20000		 /* a site-packages with more is not walked further */
#define NVIDIA_MAX_DIRS 64
#define CONDA_MAX_ENVS 32

/* out = a/b, without doubling the slash of "/" (python.c) */
void join(char *out, size_t n, const char *a, const char *b);
/* The frameworks and NVIDIA wheels installed in e's site-packages (python_site.c). */
void scan_site(struct python_env *e);

#endif
