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
 * The write saturation of SNIA's PTS (WSAT: random writes from a purged state,
 * in rounds, until four times the capacity is written) marks a simpler point:
 * the start of the first whole round h >= 1 whose rate is below half the first
 * round's (lg_wsat_halved); the bytes of rounds 0..h-1 were written before it.
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

/* WSAT's half-rate point of len rounds of interval_ns (bytes[i] written in the
 * i-th) over duration_ns: true with *ret_at_s (the round's start, in seconds) and
 * *ret_bytes_before when a whole round after the first wrote less than half of
 * the first one's bytes; false when none did (or the first round is not whole). */
bool lg_wsat_halved(const uint64_t *bytes, size_t len, uint64_t interval_ns, uint64_t duration_ns,
		    double *ret_at_s, uint64_t *ret_bytes_before);
