/* histogram: a log-linear latency histogram of fixed size (about 58 KiB) whatever
 * the run length. Values below 256 are counted exactly; above, every power of two
 * is split into 128 equal buckets, so a bucket is at most 1/128 of its values wide
 * and the reported midpoint is within 0.4% of any value in it. Exact minimum,
 * maximum, mean and standard deviation are kept beside the buckets.
 *
 * The result document keeps the buckets themselves (lg_histogram_buckets(): the
 * non-empty ones, by index), so that histograms of several runs can be merged and
 * any percentile taken from the merge (results/schema/README.md, "Latency histograms"). Bucket i
 * holds the values v with lg_histogram_index(v) == i: for i < 256, v == i; above,
 * with s = i / 128 - 1, the values [(i - 128 s) << s, (i - 128 s + 1) << s).
 *
 * Ownership: lg_histogram_new() allocates; lg_histogram_free() releases (NULL is
 * fine). Summaries are plain data owned by the caller; a struct lg_hist_buckets owns
 * its arrays (lg_hist_buckets_free()).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define LG_HIST_SUB_BITS 7
#define LG_HIST_SUB_COUNT (1u << LG_HIST_SUB_BITS)
#define LG_HIST_BUCKETS ((64 - LG_HIST_SUB_BITS) * LG_HIST_SUB_COUNT + LG_HIST_SUB_COUNT)

struct lg_histogram {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	uint64_t sum;             /* wraps only after 584 years of latency */
	unsigned __int128 sum_sq; /* exact sum of squares */
	uint64_t buckets[LG_HIST_BUCKETS];
};

/* The percentiles every result reports, in this order. */
#define LG_PERCENTILE_COUNT 11
extern const double lg_percentiles[LG_PERCENTILE_COUNT];
/* Their names as the result document writes them ("1", "99.9", ...). */
extern const char *const lg_percentile_names[LG_PERCENTILE_COUNT];

struct lg_latency_summary {
	uint64_t count;
	uint64_t min, max;
	double mean, stddev;
	uint64_t percentiles[LG_PERCENTILE_COUNT]; /* matching lg_percentiles */
};

/* Allocate an empty histogram. Returns 0 or -ENOMEM. */
int lg_histogram_new(struct lg_histogram **ret_hist);

/* Release a histogram; NULL is a no-op. */
void lg_histogram_free(struct lg_histogram *hist);

/* Forget every value. */
void lg_histogram_reset(struct lg_histogram *hist);

/* Bucket index of a value. */
static inline uint32_t lg_histogram_index(uint64_t value)
{
	if (value < 2 * LG_HIST_SUB_COUNT)
		return (uint32_t)value;
	uint32_t shift = (uint32_t)(63 - __builtin_clzll(value)) - LG_HIST_SUB_BITS;

	return shift * LG_HIST_SUB_COUNT + (uint32_t)(value >> shift);
}

/* Record one value (nanoseconds). */
static inline void lg_histogram_add(struct lg_histogram *hist, uint64_t value)
{
	hist->buckets[lg_histogram_index(value)]++;
	if (value < hist->min)
		hist->min = value;
	if (value > hist->max)
		hist->max = value;
	hist->count++;
	hist->sum += value;
	hist->sum_sq += (unsigned __int128)value * value;
}

/* Add every value of src into dst. */
void lg_histogram_merge(struct lg_histogram *dst, const struct lg_histogram *src);

/* The value at percentile p (0 < p <= 100) by the nearest-rank rule, reported as
 * the midpoint of its bucket clamped to [min, max]. 0 when empty. */
uint64_t lg_histogram_percentile(const struct lg_histogram *hist, double p);

/* The non-empty buckets of a histogram, by increasing index. */
struct lg_hist_buckets {
	size_t n;
	uint32_t *index; /* owned; n entries */
	uint64_t *count; /* owned; n entries, none 0 */
};

/* The non-empty buckets of hist into *ret_buckets (n 0 and NULL arrays when it is
 * empty). Returns 0 or -ENOMEM (then *ret_buckets is untouched). */
int lg_histogram_buckets(const struct lg_histogram *hist, struct lg_hist_buckets *ret_buckets);

/* Free the arrays of buckets and empty it; NULL is fine. */
void lg_hist_buckets_free(struct lg_hist_buckets *buckets);

/* Fill *ret_summary. Returns 0, or -ENODATA when the histogram is empty. */
int lg_histogram_summarize(const struct lg_histogram *hist, struct lg_latency_summary *ret_summary);
