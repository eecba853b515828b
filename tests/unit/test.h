/*
 * test.h: the unit-test harness. Each tests/unit/test_*.c is one program; every TEST runs
 * and prints "PASS name" or "FAIL name: file:line: expression", which tests/run.sh counts;
 * main ends with `return TEST_DONE();`, which declares how many it printed.
 */
#ifndef GPUVET_TEST_H
#define GPUVET_TEST_H

#include <stdio.h>
#include <string.h>

static int test_failed_now;
static int test_pass_count, test_fail_count;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL %s: %s:%d: %s\n", test_current, __FILE__, __LINE__, #cond);   \
			test_failed_now = 1;                                                       \
			return;                                                                    \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                           \
			printf("FAIL %s: %s:%d: \"%s\" != \"%s\"\n", test_current, __FILE__, __LINE__, \
			       a_ ? a_ : "(null)", b_ ? b_ : "(null)");                            \
			test_failed_now = 1;                                                       \
			return;                                                                    \
		}                                                                                  \
	} while (0)

static const char *test_current = "";

#define RUN(fn)                                                                                    \
	do {                                                                                       \
		test_current = #fn;                                                                \
		test_failed_now = 0;                                                               \
		fn();                                                                              \
		if (test_failed_now)                                                               \
			test_fail_count++;                                                         \
		else {                                                                             \
			test_pass_count++;                                                         \
			printf("PASS %s\n", #fn);                                                  \
		}                                                                                  \
	} while (0)

/* main's last word: "DONE N results", N the PASS and FAIL lines printed. tests/run.sh fails a
 * program that ends without it (an exit or a crash part-way: with stdout in a file, a crash also
 * loses what was buffered) or whose N differs from the lines it printed. The exit status is 1
 * when a test failed. */
static inline int test_done(void)
{
	printf("DONE %d results\n", test_pass_count + test_fail_count);
	fflush(stdout);
	return test_fail_count ? 1 : 0;
}
#define TEST_DONE() test_done()

#endif
