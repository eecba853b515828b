/*
 * replay_table.h: the recorded answers a fake vendor library serves back.
 *
 * gpuvet --replay (src/replay/replay.c) makes one table per library from the recording in its
 * memory and hands it over through gpuvet_fake_answers() when the library is opened; each line
 * is "scope key time rc value..." separated by tabs, scope "sys" or a
 * device index, time "-" or seconds since the table was opened (a timeline), rc a number or
 * "hang", and values "i:<int>", "s:<percent-escaped text>" or "r:<int>,<int>,..." (a row).
 */
#ifndef GPUVET_REPLAY_TABLE_H
#define GPUVET_REPLAY_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rt_value {
	char kind; /* 'i', 's', 'r' */
	int64_t i;
	char *s;
	int64_t *row;
	int rowlen;
};

struct rt_answer {
	int scope; /* -1 for "sys" */
	char *key;
	double t; /* -1 when not part of a timeline */
	int rc;
	bool hang;
	int nvals;
	struct rt_value *vals;
};

/* gpuvet hands the table over (exported; called once per load). */
int gpuvet_fake_answers(const char *text, size_t len);
/* 0 once the table was handed over (starts the replay clock), -1 before. */
int rt_load(const char *lib);
/* The answer for (scope, key) at the current replay time, or NULL. Hangs for ever when the
 * answer says so. */
const struct rt_answer *rt_get(int scope, const char *key);
int64_t rt_int(const struct rt_answer *a, int idx);
const char *rt_str(const struct rt_answer *a, int idx);

#endif
