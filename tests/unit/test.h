/*
 * test.h: the unit-test harness. Each tests/unit/test_*.c is one program; every TEST runs
 * and prints "PASS name" or "FAIL name: file:line: expression", which tests/run.sh counts.
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

#define TEST_DONE() (test_fail_count ? 1 : 0)

#endif
