/* finding.c: adding findings and looking up the catalog (see finding.h). */
#define _GNU_SOURCE
#include "finding.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "catalog.h"

const struct finding_def *finding_def_find(const char *id)
{
	size_t n, i;
	const struct finding_def *d = finding_defs(&n);

	for (i = 0; i < n; i++)
		if (strcmp(d[i].id, id) == 0)
			return &d[i];
	return NULL;
}

const char *layer_name(enum layer l)
{
	static const char *const names[LAYER_COUNT] = {
		"platform",   "pci",	"module", "devices", "libraries", "nvml",
		"cuda",	      "health", "fabric", "toolkit", "framework", "env",
		"amd",	      "intel",	"ascend",
	};

	return l < LAYER_COUNT ? names[l] : "?";
}

const char *severity_name(enum severity s)
{
	static const char *const names[] = {"ok", "info", "warn", "fail"};

	return s <= SEV_FAIL ? names[s] : "?";
}

__attribute__((format(printf, 1, 0))) static char *vformat(const char *fmt, va_list ap)
{
	char *p = NULL;

	if (vasprintf(&p, fmt, ap) < 0) {
		fputs("gpuvet: error: out of memory\n", stderr);
		abort();
	}
	return p;
}

struct finding *finding_add(struct findings *fs, const char *id, enum severity sev, int gpu,
			    const char *fmt, ...)
{
	const struct finding_def *def = finding_def_find(id);
	struct finding *f;
	va_list ap;

	if (!def) {
		fprintf(stderr, "gpuvet: internal error: finding id '%s' is not in the catalog\n", id);
		abort();
	}
	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? fs->cap * 2 : 32;
		fs->v = xrealloc(fs->v, fs->cap * sizeof(*fs->v));
	}
	f = &fs->v[fs->n++];
	memset(f, 0, sizeof(*f));
	f->def = def;
	f->sev = sev;
	f->gpu = gpu;
	va_start(ap, fmt);
	f->summary = vformat(fmt, ap);
	va_end(ap);
	return f;
}

void finding_evidence(struct finding *f, const char *fmt, ...)
{
	va_list ap;

	if (f->nevidence >= FINDING_MAX_EVIDENCE)
		return;
	va_start(ap, fmt);
	f->evidence[f->nevidence++] = vformat(fmt, ap);
	va_end(ap);
}

void finding_fix(struct finding *f, unsigned flags, const char *fmt, ...)
{
	va_list ap;

	free(f->fix);
	va_start(ap, fmt);
	f->fix = vformat(fmt, ap);
	va_end(ap);
	f->fix_flags = flags;
}

void findings_free(struct findings *fs)
{
	size_t i;
	int j;

	for (i = 0; i < fs->n; i++) {
		free(fs->v[i].summary);
		free(fs->v[i].fix);
		for (j = 0; j < fs->v[i].nevidence; j++)
			free(fs->v[i].evidence[j]);
	}
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

enum severity findings_worst(const struct findings *fs)
{
	return findings_worst_since(fs, 0);
}

enum severity findings_worst_since(const struct findings *fs, size_t start)
{
	enum severity w = SEV_OK;
	size_t i;

	for (i = start; i < fs->n; i++)
		if (fs->v[i].sev > w)
			w = fs->v[i].sev;
	return w;
}

void findings_move_last_to(struct findings *fs, size_t pos)
{
	struct finding f = fs->v[fs->n - 1];

	memmove(&fs->v[pos + 1], &fs->v[pos], (fs->n - 1 - pos) * sizeof(f));
	fs->v[pos] = f;
}

void findings_fold(struct findings *fs, const char *echo, const char *cause)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (strcmp(fs->v[i].def->id, echo) == 0)
			fs->v[i].cause_id = cause;
}

bool findings_has(const struct findings *fs, const char *id)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (strcmp(fs->v[i].def->id, id) == 0)
			return true;
	return false;
}
