/* test_visible.c: CUDA_VISIBLE_DEVICES read as the CUDA driver reads it (gpu/visible.c), for
 * `top --only-visible`. */
#include <stdbool.h>

#include "gpu/visible.h"
#include "test.h"
#include "util/util.h"

/* Four GPUs: two UUIDs share "GPU-94c2", GPU 2 has MIG on, GPU 3 told no UUID. */
static const struct visible_gpu gpus[] = {
    {0, "GPU-94c2b804-9965-e84c-8ddc-92edaaffde49", false},
    {1, "GPU-94c2ffff-0000-1111-2222-333344445555", false},
    {2, "GPU-78dab136-d5bd-de36-96a3-76356cd9be7d", true},
    {3, NULL, false},
};

static char note[300];

/* The visible GPUs as "0,2" ("" none), the note in `note`. */
static const char *shown(const char *value)
{
	static char out[64];
	bool vis[ARRAY_SIZE(gpus)];
	unsigned n, i, k = 0;

	out[0] = '\0';
	n = visible_parse(value, gpus, ARRAY_SIZE(gpus), vis, note, sizeof(note));
	for (i = 0; i < ARRAY_SIZE(gpus); i++)
		if (vis[i]) {
			char one[8];

			str_fmt(one, sizeof(one), "%s%u", k++ ? "," : "", gpus[i].index);
			str_append(out, one, sizeof(out));
		}
	return k == n ? out : "count differs";
}

static void unset_shows_all(void)
{
	CHECK_STR(shown(NULL), "0,1,2,3");
	CHECK_STR(note, "");
}

static void empty_shows_none_and_says_so(void)
{
	CHECK_STR(shown(""), "");
	CHECK(strstr(note, "empty: CUDA sees no GPU") != NULL);
	CHECK_STR(shown("  "), "");
	CHECK(strstr(note, "empty") != NULL);
}

static void indexes(void)
{
	CHECK_STR(shown("2,0"), "0,2");
	CHECK_STR(note, "");
	CHECK_STR(shown(" 3 "), "3");
}

static void uuids_and_their_starts(void)
{
	CHECK_STR(shown("GPU-78dab136-d5bd-de36-96a3-76356cd9be7d"), "2");
	CHECK_STR(shown("GPU-94c2f"), "1");
	CHECK_STR(shown("gpu-94C2B"), "0");
	CHECK_STR(shown("1,GPU-78da"), "1,2");
}

/* CUDA stops at the first entry that names no device: the rest is ignored. */
static void a_bad_entry_stops_the_list(void)
{
	CHECK_STR(shown("1,7,0"), "1");
	CHECK(strstr(note, "'7' is no GPU here") != NULL);
	CHECK_STR(shown("GPU-94c2,0"), ""); /* ambiguous start */
	CHECK(strstr(note, "'GPU-94c2'") != NULL);
	CHECK_STR(shown("-1"), "");
	CHECK_STR(shown("NoDevFiles"), "");
	CHECK_STR(shown("0,,1"), "0");
	CHECK(strstr(note, "(empty)") != NULL);
	CHECK_STR(shown("GPU-"), "");
}

static void mig_instances(void)
{
	CHECK_STR(shown("MIG-GPU-78dab136-d5bd-de36-96a3-76356cd9be7d/1/0"), "2");
	CHECK_STR(note, "");
	/* a GPU without MIG holds no instance */
	CHECK_STR(shown("MIG-GPU-94c2b804-9965-e84c-8ddc-92edaaffde49/1/0"), "");
	CHECK_STR(shown("MIG-a1b2c3d4-1111-2222-3333-444455556666"), "2");
	CHECK(strstr(note, "MIG instance") != NULL);
}

int main(void)
{
	RUN(unset_shows_all);
	RUN(empty_shows_none_and_says_so);
	RUN(indexes);
	RUN(uuids_and_their_starts);
	RUN(a_bad_entry_stops_the_list);
	RUN(mig_instances);
	return TEST_DONE();
}
