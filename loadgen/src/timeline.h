/* timeline: completions counted in each wall-clock interval (one second by
 * default) from a start instant, for the performance consistency series. The
 * series has one slot for every interval of the planned duration from the
 * start: an interval in which nothing completed stays 0 and is never dropped.
 *
 * Ownership: lg_timeline_new() allocates; lg_timeline_free() releases (NULL is
 * fine). lg_timeline_counts() points into the timeline.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct lg_timeline {
	uint64_t interval_ns;
	size_t capacity; /* slots allocated: the planned duration in intervals */
	size_t used;     /* slots up to the latest interval reached */
	uint64_t *counts;
};

/* A timeline of `capacity` intervals of interval_ns each. Returns 0, -EINVAL for
 * a zero interval or capacity, or -ENOMEM. */
int lg_timeline_new(uint64_t interval_ns, size_t capacity, struct lg_timeline **ret_timeline);

/* Release a timeline; NULL is a no-op. */
void lg_timeline_free(struct lg_timeline *timeline);

/* Count n completions at t_ns after the start. Completions past the last
 * interval are not counted in the series. */
static inline void lg_timeline_add(struct lg_timeline *timeline, uint64_t t_ns, uint64_t n)
{
	size_t slot = (size_t)(t_ns / timeline->interval_ns);

	if (slot >= timeline->capacity)
		return;
	timeline->counts[slot] += n;
	if (slot + 1 > timeline->used)
		timeline->used = slot + 1;
}

/* Mark that the clock reached t_ns after the start, so the intervals up to it
 * belong to the series even when they saw no completion. */
void lg_timeline_reach(struct lg_timeline *timeline, uint64_t t_ns);

/* The series: *ret_len intervals, each a completion count; zeros included. */
const uint64_t *lg_timeline_counts(const struct lg_timeline *timeline, size_t *ret_len);

/* A copy of the series that the caller owns (free()): *ret_len intervals, at least
 * one slot allocated. Returns 0 or -ENOMEM. */
int lg_timeline_copy(const struct lg_timeline *timeline, uint64_t **ret_counts, size_t *ret_len);
