#define _GNU_SOURCE
#include "timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int lg_timeline_new(uint64_t interval_ns, size_t capacity, struct lg_timeline **ret_timeline)
{
	struct lg_timeline *timeline;

	if (interval_ns == 0 || capacity == 0)
		return -EINVAL;
	timeline = calloc(1, sizeof(*timeline));
	if (!timeline)
		return -ENOMEM;
	timeline->counts = calloc(capacity, sizeof(*timeline->counts));
	if (!timeline->counts) {
		free(timeline);
		return -ENOMEM;
	}
	timeline->interval_ns = interval_ns;
	timeline->capacity = capacity;
	*ret_timeline = timeline;
	return 0;
}

void lg_timeline_free(struct lg_timeline *timeline)
{
	if (!timeline)
		return;
	free(timeline->counts);
	free(timeline);
}

void lg_timeline_reach(struct lg_timeline *timeline, uint64_t t_ns)
{
	/* An interval belongs to the series once it has begun. */
	uint64_t begun = t_ns / timeline->interval_ns + 1;

	if (begun > timeline->capacity)
		begun = timeline->capacity;
	if (begun > timeline->used)
		timeline->used = (size_t)begun;
}

const uint64_t *lg_timeline_counts(const struct lg_timeline *timeline, size_t *ret_len)
{
	*ret_len = timeline->used;
	return timeline->counts;
}

int lg_timeline_copy(const struct lg_timeline *timeline, uint64_t **ret_counts, size_t *ret_len)
{
	uint64_t *copy = malloc((timeline->used ? timeline->used : 1) * sizeof(uint64_t));

	if (!copy)
		return -ENOMEM;
	memcpy(copy, timeline->counts, timeline->used * sizeof(uint64_t));
	*ret_counts = copy;
	*ret_len = timeline->used;
	return 0;
}
