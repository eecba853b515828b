/*
 * timeline.c: growing and freeing a struct adv_timeline (timeline.h): the sampler
 * (advise/sample.c) and the reader of saved timelines (advise/timeline_json.c) append ticks
 * and NVML utilisation samples here; the diagnosis (advise/diagnose.c) only reads them.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "timeline.h"

/* Every reading of a fresh tick is "not read" (VAL_NA), so a field the sampler could not fill
 * is never taken for a measured 0. */
static void num_na(struct num *n)
{
	memset(n, 0, sizeof(*n));
	n->st = VAL_NA;
}

static void tick_init(struct adv_tick *t, int64_t t_ns)
{
	struct num *p, *end;

	memset(t, 0, sizeof(*t));
	t->t_ns = t_ns;
	/* both structs hold nothing but struct num fields (a static check below keeps it so) */
	p = (struct num *)(void *)&t->h;
	end = p + sizeof(t->h) / sizeof(struct num);
	for (; p < end; p++)
		num_na(p);
	p = (struct num *)(void *)t->g;
	end = p + sizeof(t->g) / (sizeof(struct num));
	for (; p < end; p++)
		num_na(p);
}

_Static_assert(sizeof(struct adv_host_tick) % sizeof(struct num) == 0,
	       "adv_host_tick holds only struct num fields");
_Static_assert(sizeof(struct adv_gpu_tick) % sizeof(struct num) == 0,
	       "adv_gpu_tick holds only struct num fields");

struct adv_tick *adv_tick_add(struct adv_timeline *tl, int64_t t_ns)
{
	struct adv_tick *t;

	if (tl->nticks == tl->cap_ticks) {
		tl->cap_ticks = tl->cap_ticks ? tl->cap_ticks * 2 : 64;
		tl->ticks = xrealloc(tl->ticks, tl->cap_ticks * sizeof(*tl->ticks));
	}
	t = &tl->ticks[tl->nticks++];
	tick_init(t, t_ns);
	return t;
}

void adv_util_add(struct adv_timeline *tl, int64_t t_ns, int gpu, int pct)
{
	struct adv_util_sample *u;

	if (tl->nutil == tl->cap_util) {
		tl->cap_util = tl->cap_util ? tl->cap_util * 2 : 256;
		tl->util = xrealloc(tl->util, tl->cap_util * sizeof(*tl->util));
	}
	u = &tl->util[tl->nutil++];
	u->t_ns = t_ns;
	u->gpu = gpu;
	u->pct = pct;
}

void adv_timeline_free(struct adv_timeline *tl)
{
	free(tl->ticks);
	free(tl->util);
	tl->ticks = NULL;
	tl->util = NULL;
	tl->nticks = tl->cap_ticks = tl->nutil = tl->cap_util = 0;
}
