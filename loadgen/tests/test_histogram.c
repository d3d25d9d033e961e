#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "rng.h"
#include "test_common.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Exact nearest-rank percentile of sorted values. */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static void check_distribution(const char *name, uint64_t *values, size_t n)
{
	struct lg_histogram *h;
	struct lg_latency_summary s;
	long double sum = 0, sum_sq = 0;

	if (lg_histogram_new(&h) < 0) {
		CHECK(!"allocation");
		return;
	}
	for (size_t i = 0; i < n; i++)
		lg_histogram_add(h, values[i]);
	qsort(values, n, sizeof(*values), cmp_u64);
	CHECK(lg_histogram_summarize(h, &s) == 0);
	CHECKF(s.count == n, "%s count", name);
	CHECKF(s.min == values[0], "%s min %lu != %lu", name, (unsigned long)s.min,
	       (unsigned long)values[0]);
	CHECKF(s.max == values[n - 1], "%s max", name);
	for (size_t i = 0; i < n; i++) {
		sum += values[i];
		sum_sq += (long double)values[i] * values[i];
	}
	long double mean = sum / n, var = sum_sq / n - mean * mean;
	double stddev = var > 0 ? (double)sqrtl(var) : 0;

	CHECKF(fabs(s.mean - (double)mean) <= 1e-9 * (double)mean + 1e-9, "%s mean %.3f != %.3f",
	       name, s.mean, (double)mean);
	CHECKF(fabs(s.stddev - stddev) <= 1e-6 * stddev + 1e-6, "%s stddev %.6f != %.6f", name,
	       s.stddev, stddev);
	for (int i = 0; i < LG_PERCENTILE_COUNT; i++) {
		uint64_t want = exact_percentile(values, n, lg_percentiles[i]);
		uint64_t got = s.percentiles[i];
		double err = want ? fabs((double)got - (double)want) / (double)want : (double)got;

		CHECKF(err <= 0.01, "%s p%s: %lu vs exact %lu (%.3f%%)", name,
		       lg_percentile_names[i], (unsigned long)got, (unsigned long)want, err * 100);
	}
	/* more percentiles than the report's, all within 1% */
	for (double p = 0.5; p <= 100.0; p += 0.5) {
		uint64_t want = exact_percentile(values, n, p);
		uint64_t got = lg_histogram_percentile(h, p);
		double err = want ? fabs((double)got - (double)want) / (double)want : (double)got;

		CHECKF(err <= 0.01, "%s p%.1f: %lu vs %lu", name, p, (unsigned long)got,
		       (unsigned long)want);
	}
	lg_histogram_free(h);
}

int main(void)
{
	enum { N = 200000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct lg_rng rng;

	if (!v)
		return 1;
	lg_rng_seed(&rng, 2024);

	/* uniform over a wide range */
	for (size_t i = 0; i < N; i++)
		v[i] = 1000 + lg_rng_below(&rng, 10000000);
	check_distribution("uniform", v, N);

	/* log-uniform across seven decades: SSD to HDD latencies */
	for (size_t i = 0; i < N; i++) {
		double u = (double)lg_rng_next(&rng) / 18446744073709551616.0;

		v[i] = (uint64_t)pow(10.0, 2.0 + 7.0 * u);
	}
	check_distribution("log-uniform", v, N);

	/* small exact values (below 256 every value has its own bucket) */
	for (size_t i = 0; i < N; i++)
		v[i] = lg_rng_below(&rng, 300);
	check_distribution("small", v, N);

	/* bimodal with a long tail */
	for (size_t i = 0; i < N; i++) {
		uint64_t r = lg_rng_below(&rng, 1000);

		v[i] = r < 900   ? 80000 + lg_rng_below(&rng, 5000)
		       : r < 999 ? 2000000 + lg_rng_below(&rng, 1000000)
				 : 500000000;
	}
	check_distribution("bimodal", v, N);

	/* constant */
	for (size_t i = 0; i < N; i++)
		v[i] = 123456;
	check_distribution("constant", v, N);

	/* a single huge value */
	v[0] = UINT64_C(1) << 62;
	check_distribution("single", v, 1);

	/* empty histogram */
	struct lg_histogram *h, *h2;
	struct lg_latency_summary s;

	CHECK(lg_histogram_new(&h) == 0);
	CHECK(lg_histogram_summarize(h, &s) < 0);
	CHECK(lg_histogram_percentile(h, 50) == 0);

	/* merge equals adding everything into one */
	CHECK(lg_histogram_new(&h2) == 0);
	for (uint64_t i = 1; i <= 1000; i++)
		lg_histogram_add(i % 2 ? h : h2, i * 1000);
	lg_histogram_merge(h, h2);
	CHECK(h->count == 1000 && h->min == 1000 && h->max == 1000000);
	CHECK(lg_histogram_summarize(h, &s) == 0);
	CHECK(fabs(s.mean - 500500.0) < 1e-6);

	/* the buckets the document keeps: every non-empty one, by index, none lost */
	struct lg_hist_buckets b;
	uint64_t total = 0;

	CHECK(lg_histogram_buckets(h, &b) == 0 && b.n > 0 && b.n <= 1000);
	for (size_t i = 0; i < b.n; i++) {
		total += b.count[i];
		CHECK(b.count[i] > 0 && b.count[i] == h->buckets[b.index[i]]);
		CHECK(i == 0 || b.index[i] > b.index[i - 1]);
	}
	CHECKF(total == h->count, "buckets hold %lu of %lu", (unsigned long)total,
	       (unsigned long)h->count);
	/* each value's bucket holds it: [(i - 128 s) << s, + 2^s) with s = i / 128 - 1 */
	for (uint64_t value = 1; value < (UINT64_C(1) << 63); value = value * 3 + 1) {
		uint32_t i = lg_histogram_index(value);
		uint32_t shift = i < 2 * LG_HIST_SUB_COUNT ? 0 : i / LG_HIST_SUB_COUNT - 1;
		uint64_t low = i < 2 * LG_HIST_SUB_COUNT
				       ? i
				       : (uint64_t)(i - shift * LG_HIST_SUB_COUNT) << shift;

		CHECKF(low <= value && value - low < (UINT64_C(1) << shift) && i < LG_HIST_BUCKETS,
		       "value %lu in bucket %u", (unsigned long)value, i);
	}
	lg_hist_buckets_free(&b);
	CHECK(b.n == 0 && b.index == NULL && b.count == NULL);
	lg_hist_buckets_free(NULL);
	lg_histogram_reset(h2);
	CHECK(lg_histogram_buckets(h2, &b) == 0 && b.n == 0 && b.index == NULL);

	/* memory is fixed whatever the run length */
	CHECK(sizeof(struct lg_histogram) < 64 * 1024);
	lg_histogram_reset(h);
	CHECK(h->count == 0 && h->min == UINT64_MAX);
	lg_histogram_free(h);
	lg_histogram_free(h2);
	lg_histogram_free(NULL);
	free(v);
	return test_result("histogram");
}
