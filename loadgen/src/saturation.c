#define _GNU_SOURCE
#include "saturation.h"

#include <stdlib.h>
#include <string.h>

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void lg_saturation_summarize(const uint64_t *bytes, size_t len, uint64_t interval_ns,
			     uint64_t duration_ns, struct lg_saturation_summary *ret)
{
	struct lg_saturation_summary s = {0};
	double seconds = (double)interval_ns / 1e9;
	/* whole intervals: the last one only when the write lasted to its end */
	size_t whole = len;
	double first[LG_SATURATION_INITIAL];
	size_t nfirst;

	if (len > 0 && duration_ns < (uint64_t)len * interval_ns)
		whole = len - 1;
	for (size_t i = 0; i < len; i++)
		s.bytes += bytes[i];
	if (duration_ns > 0)
		s.mean_bytes_per_second = (double)s.bytes * 1e9 / (double)duration_ns;
	nfirst = whole < LG_SATURATION_INITIAL ? whole : LG_SATURATION_INITIAL;
	if (nfirst == 0) {
		*ret = s;
		return;
	}
	for (size_t i = 0; i < nfirst; i++)
		first[i] = (double)bytes[i] / seconds;
	qsort(first, nfirst, sizeof(first[0]), compare_double);
	s.initial_bytes_per_second = nfirst % 2 ? first[nfirst / 2]
						: (first[nfirst / 2 - 1] + first[nfirst / 2]) / 2;

	/* k: where the run of whole intervals below the threshold that ends the series
	 * begins. */
	double threshold = LG_SATURATION_THRESHOLD * s.initial_bytes_per_second;
	size_t k = whole;

	while (k > 1 && (double)bytes[k - 1] / seconds < threshold)
		k--;
	if (whole - k >= LG_SATURATION_MIN_AFTER) {
		uint64_t before_ns = (uint64_t)k * interval_ns;

		s.exhausted = true;
		s.exhausted_at_s = (double)before_ns / 1e9;
		for (size_t i = 0; i < k; i++)
			s.bytes_before += bytes[i];
		s.bytes_per_second_before = (double)s.bytes_before * 1e9 / (double)before_ns;
		s.bytes_per_second_after = (double)(s.bytes - s.bytes_before) * 1e9 /
					   (double)(duration_ns - before_ns);
	}
	*ret = s;
}

bool lg_wsat_halved(const uint64_t *bytes, size_t len, uint64_t interval_ns, uint64_t duration_ns,
		    double *ret_at_s, uint64_t *ret_bytes_before)
{
	size_t whole = len;
	uint64_t before = 0;

	if (len > 0 && duration_ns < (uint64_t)len * interval_ns)
		whole = len - 1;
	if (whole == 0)
		return false;
	before = bytes[0];
	for (size_t h = 1; h < whole; h++) {
		/* below half: 2 x bytes[h] < bytes[0], exact in integers */
		if (2 * bytes[h] < bytes[0]) {
			*ret_at_s = (double)((uint64_t)h * interval_ns) / 1e9;
			*ret_bytes_before = before;
			return true;
		}
		before += bytes[h];
	}
	return false;
}
