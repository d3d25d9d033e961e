/* saturation: where a drive's write cache runs out, read from the bytes written
 * in each interval of one sequential write of the whole target.
 *
 * The rule, with r[i] the rate of the i-th whole interval (a last, shorter
 * interval counts in the totals, not in the rule):
 *   - the initial rate R0 is the median of the first LG_SATURATION_INITIAL
 *     intervals' rates (all of them when there are fewer);
 *   - the cache runs out at the start of interval k, the first k >= 1 such that
 *     every interval from k to the last whole one is below
 *     LG_SATURATION_THRESHOLD x R0, and at least LG_SATURATION_MIN_AFTER of them
 *     are: the rate falls and stays below the threshold. A dip at the very end,
 *     or a fall the rate recovers from, is not the cache running out;
 *   - before: the bytes of intervals 0..k-1 and their rate; after: the bytes
 *     from interval k to the end and their rate.
 * A write whose rate never falls so has no such point (exhausted false).
 *
 * Ownership: plain data; the series belongs to the caller.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LG_SATURATION_INITIAL 5
#define LG_SATURATION_THRESHOLD 0.7
#define LG_SATURATION_MIN_AFTER 3

struct lg_saturation_summary {
	uint64_t bytes;                  /* in the whole series */
	double mean_bytes_per_second;    /* over duration_ns */
	double initial_bytes_per_second; /* R0; 0 without a whole interval */
	bool exhausted;                  /* the cache ran out: the fields below are set */
	double exhausted_at_s;           /* k x the interval, in seconds from the start */
	uint64_t bytes_before;
	double bytes_per_second_before;
	double bytes_per_second_after;
};

/* Summarize len intervals of interval_ns (bytes[i] written in the i-th) over
 * duration_ns, which may end inside the last interval. */
void lg_saturation_summarize(const uint64_t *bytes, size_t len, uint64_t interval_ns,
			     uint64_t duration_ns, struct lg_saturation_summary *ret);
