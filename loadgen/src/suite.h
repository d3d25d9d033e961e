/* suite: the built-in test catalog, identical to results/schema/catalog.json
 * (a meson test compares them): tests with their block size, queue depth, span
 * and duration, and the versioned suites that group them.
 *
 * Ownership: everything returned points into static, read-only tables.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"

enum lg_test_kind {
	LG_KIND_THROUGHPUT,
	LG_KIND_CONSISTENCY,
	LG_KIND_TRIM,
	LG_KIND_SATURATION,
};

struct lg_test_def {
	const char *id;
	const char *name;
	/* NULL, or the queue-depth sweep the test is one depth of: the sweep's tests
	 * differ only in their depth, and --qd-max bounds the depths a run makes. */
	const char *family;
	/* NULL, or the response-time curve the test is a point of (catalog.json's curve):
	 * the id of the curve's unpaced test, its maximum, which is run first; load_percent
	 * is the point's rate as a percentage of the IOPS that test reached in the same pass
	 * (0: the curve's unpaced test itself). */
	const char *curve;
	uint32_t load_percent;
	enum lg_test_kind kind;
	bool write;  /* operation: write (else read); a mixed test writes too */
	bool random; /* access: random (else sequential) */
	bool mixed;  /* operation "mixed": each I/O a read with probability read_percent/100 */
	uint32_t read_percent; /* catalog.json's rwmixread */
	uint32_t block_size;
	uint32_t queue_depth;
	uint64_t span_bytes; /* 0: the whole target */
	uint32_t duration_s;
	const char *const *metrics; /* NULL-terminated */
	const char *unit;
	bool higher_is_better;
};

struct lg_suite_def {
	const char *name;
	int version;
	const char *title;
	const char *const *tests; /* NULL-terminated test ids */
};

/* Every test / suite of the catalog, in catalog order. */
const struct lg_test_def *lg_suite_tests(size_t *ret_count);
const struct lg_suite_def *lg_suite_suites(size_t *ret_count);

/* Name of a test kind as catalog.json writes it ("throughput", ...). */
const char *lg_test_kind_name(enum lg_test_kind kind);

/* Find a test by id. Returns 0 and *ret_test, or -ENOENT. */
int lg_suite_find_test(const char *id, const struct lg_test_def **ret_test);

/* Find a suite by "NAME" (latest version) or "NAME:VERSION". Returns 0, -ENOENT,
 * or -EINVAL for a malformed version. */
int lg_suite_find(const char *spec, const struct lg_suite_def **ret_suite);

/* Write {"tests": [...], "suites": [...]} with catalog.json's fields. */
void lg_suite_catalog_json(struct lg_json *w);
