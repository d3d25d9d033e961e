/* The core the runner's test kinds share (run.h). */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rng.h"
#include "util.h"

#define QUICK_SPAN_CAP (256 * MIB)
#define FILL_BLOCK (1 * MIB)
#define FILL_DEPTH 4

__attribute__((format(printf, 2, 3))) void run_warn(struct run *run, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!run->obs->warning)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	run->obs->warning(run->obs->ctx, msg);
}

__attribute__((format(printf, 3, 4))) void run_phase(struct run *run, const char *test,
						     const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!run->obs->phase)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	run->obs->phase(run->obs->ctx, test, msg);
}

/* Mark the report failed with a message (and errno when > 0) for test. */
__attribute__((format(printf, 4, 5))) enum run_step run_failed(struct run *run, const char *test,
							       int err, const char *fmt, ...)
{
	va_list ap;

	run->rep->status = LG_STATUS_FAILED;
	va_start(ap, fmt);
	vsnprintf(run->rep->failure_message, sizeof(run->rep->failure_message), fmt, ap);
	va_end(ap);
	run->rep->failure_errno = err > 0 ? err : 0;
	snprintf(run->rep->failure_test, sizeof(run->rep->failure_test), "%s", test ? test : "");
	return STEP_FAILED;
}

uint64_t run_seconds_ns(double s)
{
	double ns = s * 1e9;

	return ns < 1e6 ? UINT64_C(1000000) : (uint64_t)ns;
}

/* A timed phase of nominal_s seconds under --duration-scale or --quick. */
uint64_t run_phase_ns(const struct run *run, double nominal_s, double quick_s)
{
	if (run->o->quick)
		return run_seconds_ns(quick_s);
	return run_seconds_ns(nominal_s * run->o->duration_scale);
}

uint64_t run_align_down(uint64_t v, uint64_t a)
{
	return v - v % a;
}

/* Whether the span clamp of test id was said already; notes it when not. */
static bool clamp_said(struct run *run, const char *id)
{
	for (size_t i = 0; i < run->nclamp_said; i++)
		if (strcmp(run->clamp_said[i], id) == 0)
			return true;
	if (run->nclamp_said < LG_MAX_TESTS)
		run->clamp_said[run->nclamp_said++] = id;
	return false;
}

/* The span a test asks for (0: the whole target), clamped to the target and to
 * 256 MiB under --quick, aligned down to align. */
uint64_t run_clamped_span(const struct run *run, uint64_t requested, uint32_t align)
{
	uint64_t span = requested && requested < run->whole ? requested : run->whole;

	if (run->o->quick && span > QUICK_SPAN_CAP)
		span = QUICK_SPAN_CAP;
	return run_align_down(span, align);
}

/* The span a test uses (run_clamped_span()), with a warning when the target is
 * smaller than asked: once per test however many patterns run it. */
uint64_t run_test_span(struct run *run, const char *id, uint64_t requested, uint32_t bs)
{
	if (requested > run->whole && !clamp_said(run, id)) {
		char want[32], have[32];

		lg_format_size_human(requested, want, sizeof(want));
		lg_format_size_human(run->whole, have, sizeof(have));
		run_warn(run,
			 "%s: span %s is larger than the target (%s); clamped to the target, "
			 "the real span is recorded",
			 id, want, have);
	}
	return run_clamped_span(run, requested, bs);
}

enum run_step run_job_step(struct run *run, const char *test, struct lg_job_spec *spec, int fd,
			   struct lg_job_result *ret_result)
{
	struct lg_job_hooks hooks = {
		.progress = run->obs->progress,
		.ctx = run->obs->ctx,
		.stop = run->stop,
	};
	struct lg_job_result res;
	int r;

	spec->seed = lg_splitmix64(&run->seed_state);
	struct lg_histogram *hists[] = {spec->hist,
					spec->clat_hist,
					spec->dir_hist[0],
					spec->dir_hist[1],
					spec->dir_clat_hist[0],
					spec->dir_clat_hist[1]};

	for (size_t i = 0; i < sizeof(hists) / sizeof(hists[0]); i++)
		if (hists[i])
			lg_histogram_reset(hists[i]);
	r = lg_job_run(spec, run->engine, fd, &hooks, &res);
	if (r < 0)
		return run_failed(run, test, -r, "%s: could not start I/O (%s engine): %s", test,
				  run->engine->name, strerror(-r));
	if (res.error) {
		const char *op = res.write_failed ? "write" : "read";

		if (res.short_io)
			return run_failed(run, test, EIO,
					  "%s: short %s at offset %" PRIu64
					  ": %d of %u bytes transferred",
					  test, op, res.error_offset, res.error_transferred,
					  res.error_length);
		return run_failed(run, test, -res.error,
				  "%s: %s of %u bytes at offset %" PRIu64 " failed: %s", test, op,
				  res.error_length, res.error_offset, strerror(-res.error));
	}
	*ret_result = res;
	/* Interrupted: what completed before is in *ret_result, for the caller to keep. */
	if (res.interrupted)
		return STEP_INTERRUPTED;
	if (res.ios == 0)
		return run_failed(run, test, 0, "%s: no I/O completed", test);
	return STEP_OK;
}

/* Write [0, span) once, sequentially, with the pattern. */
enum run_step run_fill(struct run *run, const char *test, uint64_t span, enum lg_pattern pattern)
{
	char size[32];
	struct lg_job_result res;
	struct lg_job_spec spec = {
		.name = "fill",
		.write = true,
		.random = false,
		.block_size = FILL_BLOCK,
		.queue_depth = FILL_DEPTH,
		.span_offset = 0,
		.span_bytes = span,
		.total_bytes = span,
		.pattern = pattern,
	};

	lg_format_size_human(span, size, sizeof(size));
	run_phase(run, test, "sequential fill of %s, %s data", size, lg_pattern_name(pattern));
	return run_job_step(run, test, &spec, run->wfd, &res);
}

enum run_step run_open_read_fd(struct run *run, const char *test, int *ret_fd)
{
	int flags = run->direct ? LG_OPEN_DIRECT : 0;
	int r = lg_target_open(&run->info, flags, 0, ret_fd);

	if (r < 0)
		return run_failed(run, test, -r, "%s: cannot open %s for reading: %s", test,
				  run->info.path, strerror(-r));
	return STEP_OK;
}

/* Discard the whole target before a test that needs it unused: each spare-area
 * level of the consistency test (so that what the level leaves unwritten is
 * really free, as on a secure-erased drive of which a part is left unused: the
 * levels before have written every LBA of it), and the write saturation (so
 * that it starts as fresh as the target can be made). why says which, in the
 * phase and in the warning when the target cannot discard; the method ("none"
 * then) goes into *method. */
enum run_step run_discard_target(struct run *run, const struct lg_test_def *t, const char *why,
				 const char *without, char *method, size_t method_len)
{
	const char *m = NULL;
	char size[32];
	int r;

	lg_format_size_human(run->info.capacity_bytes, size, sizeof(size));
	run_phase(run, t->id, "discarding the whole target (%s) %s", size, why);
	r = lg_target_discard(run->wfd, &run->info, 0, run->info.capacity_bytes, &m);
	if (r == -EOPNOTSUPP) {
		if (!run->said_no_discard)
			run_warn(run,
				 "%s: %s cannot discard: %s (recorded as discard_method \"none\")",
				 t->id, run->info.path, without);
		run->said_no_discard = true;
		snprintf(method, method_len, "none");
		return STEP_OK;
	}
	if (r < 0)
		return run_failed(run, t->id, -r, "%s: discard of the whole target failed: %s",
				  t->id, strerror(-r));
	snprintf(method, method_len, "%s", m ? m : "");
	return STEP_OK;
}

/* Whether a selected test is of that kind (any: -1) and writes (any: -1). */
bool run_any_test(const struct lg_run_options *o, int kind, int write)
{
	for (size_t i = 0; i < o->ntests; i++) {
		const struct lg_test_def *t = o->tests[i];

		if ((kind < 0 || (int)t->kind == kind) && (write < 0 || (int)t->write == write))
			return true;
	}
	return false;
}
