/* test_select.c: GPU id lists as -i takes them, parsed and matched (gpu/select.c). */
#include <stdbool.h>
#include <stdlib.h>

#include "gpu/select.h"
#include "test.h"
#include "util/util.h"

/* Four GPUs as a probe could report them: two UUIDs share "GPU-94c2", GPU 3 told nothing. */
static const struct select_gpu gpus[] = {
    {0, "GPU-94c2b804-9965-e84c-8ddc-92edaaffde49", "00000000:18:00.0"},
    {1, "GPU-94c2ffff-0000-1111-2222-333344445555", "00000000:2A:00.0"},
    {2, "GPU-78dab136-d5bd-de36-96a3-76356cd9be7d", "0001:c1:1f.0"},
    {3, NULL, NULL},
};

/* Parse and match ids; the picks as indexes ("2,0"), or "error: MSG | HINT". */
static const char *pick(const char *ids)
{
	static char out[640];
	struct select_list l;
	struct err e;
	size_t picks[16], k;

	err_clear(&e);
	out[0] = '\0';
	if (select_parse(ids, &l, &e) != 0) {
		str_fmt(out, sizeof(out), "error: %s | %s", e.msg, e.hint);
		return out;
	}
	if (select_match(&l, gpus, ARRAY_SIZE(gpus), picks, &e) != 0)
		str_fmt(out, sizeof(out), "error: %s | %s", e.msg, e.hint);
	else
		for (k = 0; k < l.n; k++) {
			char one[16];

			str_fmt(one, sizeof(one), "%s%u", k ? "," : "", gpus[picks[k]].index);
			str_append(out, one, sizeof(out));
		}
	select_list_free(&l);
	return out;
}

static bool is_error(const char *ids, const char *msg_start)
{
	const char *got = pick(ids);
	bool ok =
	    strncmp(got, "error: ", 7) == 0 && strncmp(got + 7, msg_start, strlen(msg_start)) == 0;

	if (!ok)
		printf("  -i '%s' gave \"%s\", wanted an error \"%s...\"\n", ids, got, msg_start);
	return ok;
}

static void indexes_in_the_order_given(void)
{
	CHECK_STR(pick("1"), "1");
	CHECK_STR(pick("2,0"), "2,0");
	CHECK_STR(pick(" 3 , 1 "), "3,1");
	CHECK_STR(pick("00"), "0");
}

static void uuids_whole_or_a_unique_start(void)
{
	CHECK_STR(pick("GPU-78dab136-d5bd-de36-96a3-76356cd9be7d"), "2");
	CHECK_STR(pick("GPU-78"), "2");
	CHECK_STR(pick("gpu-94C2B"), "0"); /* case does not matter */
	CHECK_STR(pick("GPU-94c2f"), "1");
	CHECK_STR(pick("GPU-94c2b804-9965"), "0");
}

static void bus_ids_full_or_short(void)
{
	CHECK_STR(pick("00000000:18:00.0"), "0");
	CHECK_STR(pick("0000:18:00.0"), "0");
	CHECK_STR(pick("18:00.0"), "0");
	CHECK_STR(pick("2a:00.0"), "1"); /* NVML writes upper case */
	CHECK_STR(pick("0001:C1:1F.0"), "2");
	CHECK_STR(pick("18:0.0"), "0");
	CHECK_STR(pick("1:c1:1f.0"), "2");
	CHECK_STR(pick("0,2a:00.0,GPU-78"), "0,1,2");
}

static void ids_that_name_no_gpu(void)
{
	CHECK(is_error("4", "no GPU matches '4' (4 GPUs present)"));
	CHECK(is_error("c1:1f.0", "no GPU matches 'c1:1f.0'")); /* domain 0, not 1 */
	CHECK(is_error("18:00.1", "no GPU matches '18:00.1'"));
	CHECK(is_error("GPU-78dab136-d5bd-de36-96a3-76356cd9be7d0", "no GPU matches"));
	CHECK(is_error("GPU-ff", "no GPU matches 'GPU-ff'"));
	CHECK(is_error("99999999999", "no GPU matches"));
	CHECK(is_error("007", "no GPU matches '007'"));
	CHECK_STR(strstr(pick("9"), "| ") + 2,
		  "'gpuvet status --query index,uuid,pci.bus_id --format csv' lists the GPUs");
}

static void a_start_shared_by_two_gpus_is_ambiguous(void)
{
	CHECK(is_error("GPU-94c2", "'GPU-94c2' matches more than one GPU (0 and 1)"));
	CHECK(is_error("GPU-9", "'GPU-9' matches more than one GPU (0 and 1)"));
	CHECK(strstr(pick("GPU-94c2"), "| give more of the UUID") != NULL);
}

static void a_gpu_named_twice(void)
{
	CHECK(is_error("1,1", "GPU 1 is named twice ('1' and '1')"));
	CHECK(is_error("0,18:00.0", "GPU 0 is named twice ('0' and '18:00.0')"));
	CHECK(is_error("GPU-78,2", "GPU 2 is named twice ('GPU-78' and '2')"));
}

static void empty_lists_and_entries(void)
{
	CHECK(is_error("", "no GPU id given"));
	CHECK(is_error("  ", "no GPU id given"));
	CHECK(is_error(",", "empty GPU id in ','"));
	CHECK(is_error("0,", "empty GPU id in '0,'"));
	CHECK(is_error("0,,1", "empty GPU id in '0,,1'"));
	CHECK(is_error(" ,1", "empty GPU id"));
}

static void malformed_entries(void)
{
	static const char *const bad[] = {
	    "foo",       "-1",       "+1",
	    "1.5",       "0x1",      "GPU-",
	    "GPU-xyz",   "MIG-1234", "1 2",
	    "18:00",     "18:00.",   "18:00.8",
	    "18:20.0",   "123:00.0", "000000000:18:00.0",
	    "18:00.0 x", ":18:00.0", "0000:18:00.0:1",
	    "g8:00.0",   "18:00.00",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(is_error(bad[i], "'"));
	CHECK(is_error("foo", "'foo' is not a GPU index, UUID or PCI bus id"));
	CHECK(strstr(pick("foo"), "| give indexes, UUIDs") != NULL);
	CHECK(is_error("GPU-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef01234",
		       "GPU id 'GPU-0123456789abcdef0123...' is too long"));
}

static void parse_without_keeping(void)
{
	struct err e;

	err_clear(&e);
	CHECK(select_parse("0,GPU-1,18:00.0", NULL, &e) == 0);
	CHECK(select_parse("0,,1", NULL, &e) == -1);
	CHECK(e.code == EXIT_USAGE);
}

static void against_a_probed_system(void)
{
	struct gpu g[3];
	struct gpu_system sys;
	bool sel[3];
	struct err e;
	unsigned i;

	memset(g, 0, sizeof(g));
	memset(&sys, 0, sizeof(sys));
	err_clear(&e);
	for (i = 0; i < 3; i++) {
		g[i].index = i;
		g[i].st.bus_id.st = VAL_OK;
		str_fmt(g[i].st.bus_id.s, sizeof(g[i].st.bus_id.s), "00000000:%02X:00.0", 0x18 + i);
	}
	/* GPU 1 failed to give its UUID: the others are still found by theirs */
	g[0].st.uuid.st = VAL_OK;
	str_copy(g[0].st.uuid.s, "GPU-aaaa", sizeof(g[0].st.uuid.s));
	g[2].st.uuid.st = VAL_OK;
	str_copy(g[2].st.uuid.s, "GPU-abcd", sizeof(g[2].st.uuid.s));
	sys.gpus = g;
	sys.ngpus = 3;
	CHECK(select_system(NULL, &sys, sel, &e) == 0);
	CHECK(sel[0] && sel[1] && sel[2]);
	CHECK(select_system("GPU-ab,19:00.0", &sys, sel, &e) == 0);
	CHECK(!sel[0] && sel[1] && sel[2]);
	CHECK(select_system("GPU-a", &sys, sel, &e) == -1);
	CHECK_STR(e.msg, "'GPU-a' matches more than one GPU (0 and 2)");
	CHECK(e.code == EXIT_USAGE);
	sys.ngpus = 0;
	CHECK(select_system("0", &sys, sel, &e) == -1);
	CHECK_STR(e.msg, "no GPU matches '0' (0 GPUs present)");
}

int main(void)
{
	RUN(indexes_in_the_order_given);
	RUN(uuids_whole_or_a_unique_start);
	RUN(bus_ids_full_or_short);
	RUN(ids_that_name_no_gpu);
	RUN(a_start_shared_by_two_gpus_is_ambiguous);
	RUN(a_gpu_named_twice);
	RUN(empty_lists_and_entries);
	RUN(malformed_entries);
	RUN(parse_without_keeping);
	RUN(against_a_probed_system);
	return TEST_DONE();
}
