#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "test_common.h"
#include "timeline.h"
#include "util.h"

#define S LG_NSEC_PER_SEC

int main(void)
{
	struct lg_timeline *tl;
	const uint64_t *c;
	size_t len;

	CHECK(lg_timeline_new(0, 10, &tl) == -EINVAL);
	CHECK(lg_timeline_new(S, 0, &tl) == -EINVAL);
	CHECK(lg_timeline_new(S, 10, &tl) == 0);

	c = lg_timeline_counts(tl, &len);
	CHECK(len == 0);

	/* completions in seconds 0 and 3 only: seconds 1, 2 and 4 are zeros */
	lg_timeline_add(tl, S / 2, 5);
	lg_timeline_add(tl, S / 2 + 1, 1);
	lg_timeline_add(tl, 3 * S + 200, 7);
	lg_timeline_reach(tl, 4 * S + S / 10);
	c = lg_timeline_counts(tl, &len);
	CHECKF(len == 5, "len %zu", len);
	CHECK(c[0] == 6 && c[1] == 0 && c[2] == 0 && c[3] == 7 && c[4] == 0);

	/* a whole silent stretch is kept */
	lg_timeline_reach(tl, 8 * S);
	c = lg_timeline_counts(tl, &len);
	CHECK(len == 9);
	CHECK(c[5] == 0 && c[6] == 0 && c[7] == 0 && c[8] == 0);

	/* beyond the planned duration: neither counted nor grown */
	lg_timeline_add(tl, 10 * S, 3);
	lg_timeline_add(tl, 25 * S, 3);
	lg_timeline_reach(tl, 30 * S);
	c = lg_timeline_counts(tl, &len);
	CHECK(len == 10);
	uint64_t total = 0;

	for (size_t i = 0; i < len; i++)
		total += c[i];
	CHECK(total == 13);

	/* the boundary belongs to the next interval */
	lg_timeline_add(tl, 9 * S, 2);
	c = lg_timeline_counts(tl, &len);
	CHECK(c[9] == 2 && c[8] == 0);
	lg_timeline_free(tl);
	lg_timeline_free(NULL);

	/* other interval lengths */
	CHECK(lg_timeline_new(S / 10, 100, &tl) == 0);
	lg_timeline_add(tl, S, 1);
	c = lg_timeline_counts(tl, &len);
	CHECK(len == 11 && c[10] == 1 && c[0] == 0);
	/* a copy the caller owns, of the intervals reached only */
	uint64_t *copy = NULL;

	CHECK(lg_timeline_copy(tl, &copy, &len) == 0 && len == 11 && copy[10] == 1);
	free(copy);
	lg_timeline_free(tl);
	CHECK(lg_timeline_new(S, 5, &tl) == 0);
	CHECK(lg_timeline_copy(tl, &copy, &len) == 0 && len == 0 && copy != NULL);
	free(copy);
	lg_timeline_free(tl);
	return test_result("timeline");
}
