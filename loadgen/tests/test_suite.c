#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "suite.h"
#include "test_common.h"

int main(void)
{
	size_t ntests, nsuites;
	const struct lg_test_def *tests = lg_suite_tests(&ntests);
	const struct lg_suite_def *suites = lg_suite_suites(&nsuites);
	const struct lg_test_def *t;
	const struct lg_suite_def *s;

	CHECK(ntests == 58);
	CHECK(nsuites == 8);
	CHECK(lg_suite_find_test("randwrite-4k-qd32-8g", &t) == 0);
	CHECK(t->block_size == 4096 && t->queue_depth == 32 && t->write && t->random);
	CHECK(t->span_bytes == UINT64_C(8589934592) && t->duration_s == 180);
	CHECK(lg_suite_find_test("seqread-128k-qd1", &t) == 0);
	CHECK(t->block_size == 131072 && t->queue_depth == 1 && !t->write && !t->random);
	CHECK(t->span_bytes == 0 && t->duration_s == 60);
	CHECK(lg_suite_find_test("consistency-4k-qd32", &t) == 0 && t->kind == LG_KIND_CONSISTENCY);
	CHECK(t->duration_s == 2000);
	CHECK(lg_suite_find_test("nope", &t) == -ENOENT);

	CHECK(lg_suite_find("desktop-2011", &s) == 0 && s->version == 1);
	CHECK(lg_suite_find("desktop-2011:1", &s) == 0);
	CHECK(lg_suite_find("desktop-2011:2", &s) == -ENOENT);
	CHECK(lg_suite_find("desktop-2011:", &s) == -EINVAL);
	CHECK(lg_suite_find("desktop-2011:x", &s) == -EINVAL);
	CHECK(lg_suite_find("desktop", &s) == -ENOENT);
	CHECK(lg_suite_find("steady-state-2013", &s) == 0 && s->version == 2);
	CHECK(strcmp(s->tests[2], "write-saturation-128k-qd32") == 0 && s->tests[3] == NULL);
	CHECK(lg_suite_find("steady-state-2013:1", &s) == 0 && s->version == 1 &&
	      s->tests[2] == NULL);
	CHECK(lg_suite_find_test("write-saturation-128k-qd32", &t) == 0 &&
	      t->kind == LG_KIND_SATURATION && t->write && !t->random && t->block_size == 131072 &&
	      t->queue_depth == 32 && t->span_bytes == 0 && t->duration_s == 0);
	CHECK(strcmp(lg_test_kind_name(LG_KIND_SATURATION), "saturation") == 0);
	CHECK(lg_suite_find_test("randrw70-4k-qd32-8g", &t) == 0 && t->mixed && t->write &&
	      t->random && t->read_percent == 70 && t->queue_depth == 32 &&
	      t->span_bytes == UINT64_C(8589934592) && !t->family);

	/* A sweep: the same test at QD1 to QD128, doubling, nothing else differing. */
	static const char *const families[] = {"randread-4k-sweep", "randwrite-4k-8g-sweep"};

	for (size_t f = 0; f < 2; f++) {
		const struct lg_test_def *first = NULL;
		uint32_t depth = 1;

		for (size_t i = 0; i < ntests; i++) {
			t = &tests[i];
			if (!t->family || strcmp(t->family, families[f]) != 0)
				continue;
			CHECKF(t->queue_depth == depth, "%s: QD%u, expected QD%u", t->id,
			       t->queue_depth, depth);
			depth *= 2;
			if (!first)
				first = t;
			CHECK(t->kind == first->kind && t->write == first->write &&
			      t->random == first->random && t->block_size == 4096 &&
			      t->span_bytes == first->span_bytes && t->duration_s == 60);
		}
		CHECKF(depth == 256, "%s ends at QD%u", families[f], depth / 2);
	}
	CHECK(lg_suite_find("workloads-2026", &s) == 0 && s->version == 1);

	/* SNIA PTS's latency test: every block size by every mix, QD1 over the whole target. */
	static const uint32_t lat_sizes[] = {512, 4096, 8192};
	static const uint32_t lat_reads[] = {100, 65, 0};

	CHECK(lg_suite_find("lat-2026", &s) == 0 && s->version == 1);
	for (size_t i = 0; i < 9; i++) {
		CHECKF(s->tests[i] && lg_suite_find_test(s->tests[i], &t) == 0, "lat-2026 test %zu",
		       i);
		uint32_t reads = t->mixed ? t->read_percent : t->write ? 0 : 100;

		CHECKF(t->kind == LG_KIND_THROUGHPUT && t->random && t->queue_depth == 1 &&
			       t->span_bytes == 0 && t->duration_s == 60 && !t->family &&
			       t->block_size == lat_sizes[i / 3] && reads == lat_reads[i % 3],
		       "%s", t->id);
		CHECKF(t->mixed == (reads == 65), "%s", t->id);
	}
	CHECK(s->tests[9] == NULL);
	CHECK(lg_suite_find_test("randread-512-qd1-lat", &t) == 0 && t->block_size == 512);

	/* The response-time curves: each its unpaced test (the maximum), then its points at
	 * 10 to 100% of it, the same test otherwise. */
	static const uint32_t loads[] = {0, 10, 25, 50, 75, 90, 100};

	CHECK(lg_suite_find("curve-2026", &s) == 0 && s->version == 1);
	for (size_t i = 0; i < 21; i++) {
		const struct lg_test_def *maximum;

		CHECKF(s->tests[i] && lg_suite_find_test(s->tests[i], &t) == 0, "curve test %zu",
		       i);
		CHECKF(t->curve && lg_suite_find_test(t->curve, &maximum) == 0 &&
			       t->load_percent == loads[i % 7] && maximum->load_percent == 0 &&
			       strcmp(maximum->id, s->tests[i - i % 7]) == 0,
		       "%s", t->id);
		CHECKF(t->kind == LG_KIND_THROUGHPUT && t->random && t->queue_depth == 32 &&
			       t->block_size == 4096 && t->duration_s == 60 && !t->family &&
			       t->write == maximum->write && t->mixed == maximum->mixed &&
			       t->span_bytes == maximum->span_bytes,
		       "%s", t->id);
	}
	CHECK(s->tests[21] == NULL);

	/* every test a suite names exists; every id is unique */
	for (size_t i = 0; i < nsuites; i++)
		for (const char *const *id = suites[i].tests; *id; id++)
			CHECKF(lg_suite_find_test(*id, &t) == 0, "%s", *id);
	for (size_t i = 0; i < ntests; i++)
		for (size_t j = i + 1; j < ntests; j++)
			CHECK(strcmp(tests[i].id, tests[j].id) != 0);

	struct lg_json w;

	lg_json_init(&w, true);
	lg_suite_catalog_json(&w);
	CHECK(lg_json_error(&w) == 0);
	CHECK(strstr(lg_json_text(&w, NULL), "\"span_bytes\": null") != NULL);
	lg_json_fini(&w);
	return test_result("suite");
}
