#define _GNU_SOURCE
#include "histogram.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const double lg_percentiles[LG_PERCENTILE_COUNT] = {
	1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99,
};
const char *const lg_percentile_names[LG_PERCENTILE_COUNT] = {
	"1", "5", "10", "25", "50", "75", "90", "95", "99", "99.9", "99.99",
};

int lg_histogram_new(struct lg_histogram **ret_hist)
{
	struct lg_histogram *hist = malloc(sizeof(*hist));

	if (!hist)
		return -ENOMEM;
	lg_histogram_reset(hist);
	*ret_hist = hist;
	return 0;
}

void lg_histogram_free(struct lg_histogram *hist)
{
	free(hist);
}

void lg_histogram_reset(struct lg_histogram *hist)
{
	memset(hist, 0, sizeof(*hist));
	hist->min = UINT64_MAX;
}

void lg_histogram_merge(struct lg_histogram *dst, const struct lg_histogram *src)
{
	for (size_t i = 0; i < LG_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	if (src->count) {
		if (src->min < dst->min)
			dst->min = src->min;
		if (src->max > dst->max)
			dst->max = src->max;
	}
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sum_sq += src->sum_sq;
}

/* Lowest value and width of bucket i. */
static void bucket_range(uint32_t i, uint64_t *ret_low, uint64_t *ret_width)
{
	if (i < 2 * LG_HIST_SUB_COUNT) {
		*ret_low = i;
		*ret_width = 1;
		return;
	}
	uint32_t shift = i / LG_HIST_SUB_COUNT - 1;
	uint64_t mantissa = i - shift * LG_HIST_SUB_COUNT;

	*ret_low = mantissa << shift;
	*ret_width = UINT64_C(1) << shift;
}

uint64_t lg_histogram_percentile(const struct lg_histogram *hist, double p)
{
	if (hist->count == 0)
		return 0;
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)hist->count);

	if (rank < 1)
		rank = 1;
	if (rank > hist->count)
		rank = hist->count;

	uint64_t seen = 0;

	for (uint32_t i = 0; i < LG_HIST_BUCKETS; i++) {
		seen += hist->buckets[i];
		if (seen < rank)
			continue;
		uint64_t low, width;

		bucket_range(i, &low, &width);
		uint64_t value = low + (width - 1) / 2;

		if (value < hist->min)
			value = hist->min;
		if (value > hist->max)
			value = hist->max;
		return value;
	}
	return hist->max;
}

int lg_histogram_summarize(const struct lg_histogram *hist, struct lg_latency_summary *ret_summary)
{
	struct lg_latency_summary s = {0};

	if (hist->count == 0)
		return -ENODATA;
	s.count = hist->count;
	s.min = hist->min;
	s.max = hist->max;
	s.mean = (double)hist->sum / (double)hist->count;

	/* n*sum_sq - sum^2 is exact in 128 bits for any realistic run; the
	 * division happens last to keep the precision. */
	unsigned __int128 n = hist->count;
	unsigned __int128 sum = hist->sum;
	unsigned __int128 nss = n * hist->sum_sq;
	unsigned __int128 ss = sum * sum;
	long double var = nss > ss ? (long double)(nss - ss) / ((long double)n * (long double)n)
				   : 0.0L;

	s.stddev = (double)sqrtl(var);
	for (int i = 0; i < LG_PERCENTILE_COUNT; i++)
		s.percentiles[i] = lg_histogram_percentile(hist, lg_percentiles[i]);
	*ret_summary = s;
	return 0;
}

int lg_histogram_buckets(const struct lg_histogram *hist, struct lg_hist_buckets *ret_buckets)
{
	struct lg_hist_buckets b = {0};
	size_t n = 0;

	for (uint32_t i = 0; i < LG_HIST_BUCKETS; i++)
		n += hist->buckets[i] != 0;
	if (n > 0) {
		b.index = malloc(n * sizeof(*b.index));
		b.count = malloc(n * sizeof(*b.count));
		if (!b.index || !b.count) {
			lg_hist_buckets_free(&b);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < LG_HIST_BUCKETS; i++) {
			if (hist->buckets[i] == 0)
				continue;
			b.index[b.n] = i;
			b.count[b.n++] = hist->buckets[i];
		}
	}
	*ret_buckets = b;
	return 0;
}

void lg_hist_buckets_free(struct lg_hist_buckets *buckets)
{
	if (!buckets)
		return;
	free(buckets->index);
	free(buckets->count);
	buckets->index = NULL;
	buckets->count = NULL;
	buckets->n = 0;
}
