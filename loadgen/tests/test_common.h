/* Tiny assertion helpers shared by the unit tests: CHECK() records a failure
 * and goes on, so one run reports every broken expectation. */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int test_failures;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			test_failures++;                                                         \
		}                                                                                \
	} while (0)

#define CHECKF(cond, ...)                                                                        \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                            \
			fputc('\n', stderr);                                                     \
			test_failures++;                                                         \
		}                                                                                \
	} while (0)

static inline int test_result(const char *name)
{
	if (test_failures) {
		fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
		return 1;
	}
	printf("%s: all checks passed\n", name);
	return 0;
}
