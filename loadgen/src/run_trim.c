/* TRIM validation (run.h): 128KB sequential writes on a clean span, after a torture
 * of 4KB random writes, and after a TRIM of the whole span. */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

#define QUICK_TORTURE_S 5.0
#define SEQWRITE_128K_ID "seqwrite-128k-qd1"

/* One sequential-write measurement of the TRIM validation. */
static enum run_step trim_seqwrite(struct run *run, const struct lg_test_def *t, uint64_t span,
				   const char *when, double *ret_bps)
{
	const struct lg_test_def *seq;
	struct lg_job_result res;
	uint32_t seconds = lg_suite_find_test(SEQWRITE_128K_ID, &seq) == 0 ? seq->duration_s : 60;
	struct lg_job_spec spec = {
		.name = t->id,
		.write = true,
		.random = false,
		.block_size = t->block_size,
		.queue_depth = t->queue_depth,
		.span_bytes = span,
		.duration_ns = run_phase_ns(run, seconds, QUICK_PHASE_S),
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
	};
	enum run_step s;

	run_phase(run, t->id, "128KB sequential write, %s, %.3g s", when,
		  (double)spec.duration_ns / 1e9);
	s = run_job_step(run, t->id, &spec, run->wfd, &res);
	if (s == STEP_OK)
		*ret_bps = (double)res.bytes * 1e9 / (double)res.elapsed_ns;
	return s;
}

static enum run_step discard(struct run *run, const struct lg_test_def *t, uint64_t span,
			     char *method, size_t method_len)
{
	const char *m = NULL;
	int r;

	run_phase(run, t->id, "discarding the whole span");
	r = lg_target_discard(run->wfd, &run->info, 0, span, &m);
	if (r == -EOPNOTSUPP)
		return run_failed(run, t->id, EOPNOTSUPP, "%s: %s cannot discard (no TRIM support)",
				  t->id, run->info.path);
	if (r < 0)
		return run_failed(run, t->id, -r, "%s: discard failed: %s", t->id, strerror(-r));
	snprintf(method, method_len, "%s", m ? m : "");
	return STEP_OK;
}

enum run_step run_trim(struct run *run, const struct lg_test_def *t)
{
	struct lg_trim trim;
	uint64_t span = run_test_span(run, t->id, 0, t->block_size);
	uint64_t torture = run_phase_ns(run, t->duration_s, QUICK_TORTURE_S);
	struct lg_job_result res;
	char size[32];
	enum run_step s;

	if (span < t->block_size)
		return run_failed(run, t->id, 0, "%s: the target is too small", t->id);
	memset(&trim, 0, sizeof(trim));
	snprintf(trim.test, sizeof(trim.test), "%s", t->id);
	trim.pattern = LG_PATTERN_INCOMPRESSIBLE;
	trim.span_bytes = span;
	trim.torture_seconds = (double)torture / 1e9;

	/* Clean: as clean as a discard of the span can make it. */
	s = discard(run, t, span, trim.discard_method, sizeof(trim.discard_method));
	if (s == STEP_OK)
		s = trim_seqwrite(run, t, span, "clean", &trim.clean_bytes_per_second);
	if (s == STEP_OK)
		s = run_fill(run, t->id, span, LG_PATTERN_INCOMPRESSIBLE);
	if (s == STEP_OK) {
		struct lg_job_spec spec = {
			.name = t->id,
			.write = true,
			.random = true,
			.block_size = 4096,
			.queue_depth = 32,
			.span_bytes = run_align_down(span, 4096),
			.duration_ns = torture,
			.pattern = LG_PATTERN_INCOMPRESSIBLE,
		};

		lg_format_size_human(span, size, sizeof(size));
		run_phase(run, t->id,
			  "torture: 4KB random write QD32 over %s, %.3g s, incompressible", size,
			  (double)torture / 1e9);
		s = run_job_step(run, t->id, &spec, run->wfd, &res);
	}
	if (s == STEP_OK)
		s = trim_seqwrite(run, t, span, "after torture",
				  &trim.after_torture_bytes_per_second);
	if (s == STEP_OK)
		s = discard(run, t, span, trim.discard_method, sizeof(trim.discard_method));
	if (s == STEP_OK)
		s = trim_seqwrite(run, t, span, "after TRIM", &trim.after_trim_bytes_per_second);
	if (s != STEP_OK)
		return s;
	if (lg_report_add_trim(run->rep, &trim) < 0)
		return run_failed(run, t->id, ENOMEM, "out of memory");
	if (run->obs->trim)
		run->obs->trim(run->obs->ctx, &trim);
	return STEP_OK;
}
