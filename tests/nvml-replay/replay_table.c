/* replay_table.c: loading and serving the fake libraries' answers (see replay_table.h). */
#define _GNU_SOURCE
#include "replay_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct rt_answer *answers;
static int nanswers;
static double t0 = -1;
static double speed = 1.0;

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '%' && s[1] && s[2]) {
			char hex[3] = {s[1], s[2], 0};

			*w++ = (char)strtol(hex, NULL, 16);
			s += 2;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

static void parse_line(char *line)
{
	char **fields;
	int n = 0, i, max = 1;
	char *save = NULL, *tok, *c;
	struct rt_answer a;

	/* as many values as the line has: a process list or a sample ring can be long (the
	 * H200's utilisation ring has 72 slots) */
	for (c = line; *c; c++)
		max += *c == '\t';
	fields = calloc((size_t)max + 1, sizeof(*fields));
	if (!fields)
		return;
	for (tok = strtok_r(line, "\t", &save); tok && n < max; tok = strtok_r(NULL, "\t", &save))
		fields[n++] = tok;
	if (n < 4) {
		free(fields);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.scope = strcmp(fields[0], "sys") == 0 ? -1 : atoi(fields[0]);
	unescape(fields[1]);
	a.key = strdup(fields[1]);
	a.t = strcmp(fields[2], "-") == 0 ? -1 : strtod(fields[2], NULL);
	if (strcmp(fields[3], "hang") == 0)
		a.hang = true;
	else
		a.rc = atoi(fields[3]);
	a.nvals = n - 4;
	a.vals = calloc((size_t)a.nvals + 1, sizeof(*a.vals));
	for (i = 0; i < a.nvals; i++) {
		char *f = fields[4 + i];
		struct rt_value *v = &a.vals[i];

		v->kind = f[0];
		if (f[0] == 'i') {
			v->i = strtoll(f + 2, NULL, 10);
		} else if (f[0] == 's') {
			unescape(f + 2);
			v->s = strdup(f + 2);
		} else if (f[0] == 'r') {
			char *p = f + 2, *end;

			v->row = calloc(strlen(p) + 1, sizeof(*v->row));
			while (*p) {
				v->row[v->rowlen++] = strtoll(p, &end, 10);
				if (end == p)
					break;
				p = *end == ',' ? end + 1 : end;
			}
		}
	}
	answers = realloc(answers, (size_t)(nanswers + 1) * sizeof(*answers));
	answers[nanswers++] = a;
	free(fields);
}

static bool fed;

/* Called by gpuvet's loader right after it opens this library during a replay: the answers
 * come from the recording in gpuvet's memory, never from a file. The text is parsed at once
 * (the caller keeps ownership). */
__attribute__((visibility("default"))) int gpuvet_fake_answers(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	char *line;

	if (fed)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		line = strndup(p, n);
		if (!line)
			return -1;
		if (n)
			parse_line(line);
		free(line);
		p += n + 1;
	}
	fed = true;
	return 0;
}

int rt_load(const char *lib)
{
	const char *sp = getenv("GPUVET_REPLAY_SPEED");

	(void)lib;
	if (!fed)
		return -1;
	if (t0 >= 0)
		return 0;
	if (sp && strtod(sp, NULL) > 0)
		speed = strtod(sp, NULL);
	t0 = mono();
	if (!answers)
		answers = calloc(1, sizeof(*answers));
	return 0;
}

const struct rt_answer *rt_get(int scope, const char *key)
{
	const struct rt_answer *best = NULL, *fixed = NULL, *first = NULL;
	double now = (mono() - t0) * speed;
	int i;

	for (i = 0; i < nanswers; i++) {
		const struct rt_answer *a = &answers[i];

		if (a->scope != scope || strcmp(a->key, key) != 0)
			continue;
		if (a->t < 0)
			fixed = a;
		else if (!first || a->t < first->t)
			first = a;
		if (a->t < 0)
			continue;
		if (a->t <= now && (!best || a->t >= best->t))
			best = a;
	}
	if (!best)
		best = fixed ? fixed : first;
	if (best && best->hang)
		for (;;)
			pause();
	return best;
}

int64_t rt_int(const struct rt_answer *a, int idx)
{
	if (!a || idx >= a->nvals || a->vals[idx].kind != 'i')
		return 0;
	return a->vals[idx].i;
}

const char *rt_str(const struct rt_answer *a, int idx)
{
	if (!a || idx >= a->nvals || a->vals[idx].kind != 's')
		return "";
	return a->vals[idx].s;
}

/* The fake library may be unloaded (NVML is, at nvmlShutdown's dlclose): give the table back
 * then, so leak checkers (make asan) see nothing left behind. */
__attribute__((destructor)) static void rt_unload(void)
{
	int i, j;

	for (i = 0; i < nanswers; i++) {
		for (j = 0; j < answers[i].nvals; j++) {
			free(answers[i].vals[j].s);
			free(answers[i].vals[j].row);
		}
		free(answers[i].vals);
		free(answers[i].key);
	}
	free(answers);
	answers = NULL;
	nanswers = 0;
	fed = false;
	t0 = -1;
}
