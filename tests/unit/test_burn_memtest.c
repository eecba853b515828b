/*
 * test_burn_memtest.c: the host half of burn's memory test (burn/memtest.c): failing words
 * placed into ranges. Words in one 4 KiB page or adjacent pages share a range, farther ones
 * get their own, at most BURN_MEM_RANGES; once every range is in use the nearest one grows,
 * so every failing word always lies in a range and the ranges count every read placed. The
 * GPU half runs in tests/cli/burn_memory.sh (fake GPUs) and on a real GPU.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "burn/memtest.h"
#include "test.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)

static struct burn_memtest m;

static void reset(void)
{
	memset(&m, 0, sizeof(m));
}

/* Sorted, apart by more than a page, and each range's words add up to n. */
static bool well_formed(uint64_t n)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < m.nbad; i++) {
		if (m.bad[i].first > m.bad[i].last || !m.bad[i].words)
			return false;
		if (i && (m.bad[i].first >> 12) <= (m.bad[i - 1].last >> 12) + 1)
			return false;
		sum += m.bad[i].words;
	}
	return m.nbad <= BURN_MEM_RANGES && sum == n;
}

static bool covered(uint64_t off)
{
	int i;

	for (i = 0; i < m.nbad; i++)
		if (m.bad[i].first <= off && off <= m.bad[i].last)
			return true;
	return false;
}

static void test_one_word_read_twice(void)
{
	reset();
	burn_memtest_note(&m, 0x9a00000);
	burn_memtest_note(&m, 0x9a00000);
	CHECK(m.nbad == 1 && m.bad[0].first == 0x9a00000 && m.bad[0].last == 0x9a00000);
	CHECK(m.bad[0].words == 2 && well_formed(2));
}

/* same page and the next page merge; two pages on, a range of its own */
static void test_pages_merge(void)
{
	reset();
	burn_memtest_note(&m, 8 * KIB + 16);
	burn_memtest_note(&m, 8 * KIB + 4000);
	CHECK(m.nbad == 1 && m.bad[0].first == 8 * KIB + 16 && m.bad[0].last == 8 * KIB + 4000);
	burn_memtest_note(&m, 12 * KIB + 8); /* the next page */
	CHECK(m.nbad == 1 && m.bad[0].last == 12 * KIB + 8);
	burn_memtest_note(&m, 4 * KIB); /* the page before */
	CHECK(m.nbad == 1 && m.bad[0].first == 4 * KIB && m.bad[0].words == 4);
	burn_memtest_note(&m, 20 * KIB); /* a page between: apart */
	CHECK(m.nbad == 2 && m.bad[1].first == 20 * KIB && well_formed(5));
	burn_memtest_note(&m, 0); /* the page before the first range: it grows down */
	CHECK(m.nbad == 2 && m.bad[0].first == 0);
	burn_memtest_note(&m, 128 * KIB);
	burn_memtest_note(&m, 64 * KIB);
	CHECK(m.nbad == 4 && m.bad[2].first == 64 * KIB && m.bad[3].first == 128 * KIB);
	CHECK(well_formed(8));
}

/* a word that fills the gap between two ranges joins them */
static void test_bridge(void)
{
	reset();
	burn_memtest_note(&m, 0);
	burn_memtest_note(&m, 8 * KIB);
	CHECK(m.nbad == 2);
	burn_memtest_note(&m, 4 * KIB);
	CHECK(m.nbad == 1 && m.bad[0].first == 0 && m.bad[0].last == 8 * KIB);
	CHECK(m.bad[0].words == 3 && well_formed(3));
}

/* every range in use: the nearest grows, nothing is lost */
static void test_full(void)
{
	uint64_t i;

	reset();
	for (i = 0; i < BURN_MEM_RANGES; i++)
		burn_memtest_note(&m, i * MIB);
	CHECK(m.nbad == BURN_MEM_RANGES && well_formed(BURN_MEM_RANGES));
	burn_memtest_note(&m, 5 * MIB + 300 * KIB); /* nearest: the range at 5 MiB */
	CHECK(m.nbad == BURN_MEM_RANGES && m.bad[5].last == 5 * MIB + 300 * KIB);
	burn_memtest_note(&m, 40 * MIB); /* past the last */
	CHECK(m.bad[BURN_MEM_RANGES - 1].last == 40 * MIB);
	burn_memtest_note(&m, 6 * MIB - 8); /* now nearer 6 MiB's */
	CHECK(m.bad[6].first == 6 * MIB - 8 && m.bad[6].words == 2);
	CHECK(well_formed(BURN_MEM_RANGES + 3));
}

/* many scattered words: the ranges stay well formed and cover every one */
static void test_scatter(void)
{
	uint64_t x = 0x2545F4914F6CDD1Dull, offs[2000];
	bool all = true;
	size_t i;

	reset();
	for (i = 0; i < 2000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		offs[i] = x % (64 * MIB) & ~7ull;
		burn_memtest_note(&m, offs[i]);
	}
	for (i = 0; i < 2000; i++)
		all = all && covered(offs[i]);
	CHECK(all && well_formed(2000));
}

static void test_pattern_names(void)
{
	CHECK_STR(burn_memtest_pattern_name(0), "walking-ones");
	CHECK_STR(burn_memtest_pattern_name(2), "moving-inversions");
	CHECK_STR(burn_memtest_pattern_name(BURN_MEM_PATTERNS - 1), "address");
	CHECK(!burn_memtest_pattern_name(BURN_MEM_PATTERNS) && !burn_memtest_pattern_name(-1));
}

int main(void)
{
	RUN(test_one_word_read_twice);
	RUN(test_pages_merge);
	RUN(test_bridge);
	RUN(test_full);
	RUN(test_scatter);
	RUN(test_pattern_names);
	return TEST_DONE();
}
