/* Performance consistency (run.h): for each spare-area level, the whole target
 * discarded, the level's span filled, then 4KB random writes at QD32 over it with the
 * completions of every second counted. */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "util.h"

#define QUICK_CONSISTENCY_S 10.0

/* The series of one spare-area level from its job's timeline into the report.
 * Returns STEP_INTERRUPTED for a partial one, after keeping it. */
static enum run_step add_series(struct run *run, const struct lg_test_def *t,
				const struct lg_job_spec *spec, uint32_t spare,
				const char *discard_method, bool partial)
{
	struct lg_consistency series;

	memset(&series, 0, sizeof(series));
	snprintf(series.test, sizeof(series.test), "%s", t->id);
	series.pattern = LG_PATTERN_INCOMPRESSIBLE;
	series.spare_area_percent = spare;
	series.span_bytes = spec->span_bytes;
	series.block_size = t->block_size;
	series.queue_depth = t->queue_depth;
	series.interval_ns = spec->timeline->interval_ns;
	series.partial = partial;
	snprintf(series.discard_method, sizeof(series.discard_method), "%s", discard_method);
	if (lg_timeline_copy(spec->timeline, &series.iops, &series.len) < 0)
		return run_failed(run, t->id, ENOMEM, "out of memory");
	if (run->obs->consistency)
		run->obs->consistency(run->obs->ctx, &series);
	if (lg_report_add_consistency(run->rep, &series) < 0) {
		free(series.iops);
		return run_failed(run, t->id, ENOMEM, "out of memory");
	}
	return partial ? STEP_INTERRUPTED : STEP_OK;
}

enum run_step run_consistency(struct run *run, const struct lg_test_def *t)
{
	uint64_t duration = run_phase_ns(run, t->duration_s, QUICK_CONSISTENCY_S);
	uint64_t intervals = (duration + LG_NSEC_PER_SEC - 1) / LG_NSEC_PER_SEC;

	if (intervals > MAX_INTERVALS)
		return run_failed(run, t->id, 0,
				  "%s: %" PRIu64 " s is longer than the %d seconds a series holds",
				  t->id, intervals, MAX_INTERVALS);
	for (size_t i = 0; i < run->o->nspare; i++) {
		uint32_t spare = run->o->spare[i];
		uint64_t whole = run_test_span(run, t->id, 0, t->block_size);
		uint64_t span = run_align_down(whole / 100 * (100 - spare) +
						       whole % 100 * (100 - spare) / 100,
					       t->block_size);
		struct lg_timeline *tl = NULL;
		struct lg_job_result res;
		char size[32], discard_method[16];
		enum run_step s;
		int r;

		if (span < t->block_size)
			return run_failed(run, t->id, 0, "%s: the target is too small", t->id);
		char why[64];

		snprintf(why, sizeof(why), "so that the %u%% spare area is unused", spare);
		s = run_discard_target(
			run, t, why,
			"the spare area of each level is only left unwritten by that level, "
			"not freed, and still holds the data written there before",
			discard_method, sizeof(discard_method));
		if (s != STEP_OK)
			return s;
		s = run_fill(run, t->id, span, LG_PATTERN_INCOMPRESSIBLE);
		if (s != STEP_OK)
			return s;
		r = lg_timeline_new(LG_NSEC_PER_SEC, (size_t)intervals, &tl);
		if (r < 0)
			return run_failed(run, t->id, -r, "out of memory");

		struct lg_job_spec spec = {
			.name = t->id,
			.write = true,
			.random = true,
			.block_size = t->block_size,
			.queue_depth = t->queue_depth,
			.span_bytes = span,
			.duration_ns = duration,
			.pattern = LG_PATTERN_INCOMPRESSIBLE,
			.timeline = tl,
		};

		lg_format_size_human(span, size, sizeof(size));
		run_phase(run, t->id,
			  "4KB random write QD%u over %s (%u%% spare area), %.3g s, incompressible",
			  t->queue_depth, size, spare, (double)duration / 1e9);
		memset(&res, 0, sizeof(res));
		s = run_job_step(run, t->id, &spec, run->wfd, &res);
		/* An interrupted level keeps its series up to the interrupt, marked partial. */
		if (s == STEP_OK || (s == STEP_INTERRUPTED && res.ios > 0))
			s = add_series(run, t, &spec, spare, discard_method, s == STEP_INTERRUPTED);
		lg_timeline_free(tl);
		if (s != STEP_OK)
			return s;
	}
	return STEP_OK;
}
