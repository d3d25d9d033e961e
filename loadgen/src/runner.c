#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "health.h"
#include "histogram.h"
#include "rng.h"
#include "target.h"
#include "timeline.h"
#include "util.h"

#define MIB (UINT64_C(1) << 20)
#define QUICK_SPAN_CAP (256 * MIB)
#define QUICK_PHASE_S 2.0
#define QUICK_CONSISTENCY_S 10.0
#define QUICK_TORTURE_S 5.0
#define QUICK_WSAT_S 10.0
#define WSAT_ROUND_S 60.0 /* SNIA PTS's round */
#define WSAT_CAPACITIES 4 /* written before it stops */
#define FILL_BLOCK (1 * MIB)
#define FILL_DEPTH 4
#define SEQWRITE_128K_ID "seqwrite-128k-qd1"
#define MAX_INTERVALS 100000

/* What a step of the run ended with. */
enum step {
	STEP_OK = 0,
	STEP_FAILED,
	STEP_INTERRUPTED,
};

struct run {
	const struct lg_run_options *o;
	const struct lg_run_observer *obs;
	const volatile sig_atomic_t *stop;
	struct lg_report *rep;
	const struct lg_engine_ops *engine;
	struct lg_target_info info;
	bool writable;
	bool created; /* this run created the file target */
	bool direct;
	int wfd;        /* read-write descriptor, -1 for a read-only run */
	uint64_t whole; /* usable bytes of the target */
	uint64_t seed_state;
	struct lg_histogram *hist;                           /* latency, issue to completion */
	struct lg_histogram *clat_hist;                      /* its completion part */
	struct lg_histogram *dir_hist[2], *dir_clat_hist[2]; /* the same of reads, writes */
	bool said_no_discard; /* the warning that the target cannot discard was given */
	bool said_no_precondition;
	const char *clamp_said[LG_MAX_TESTS]; /* tests whose span clamp was said */
	size_t nclamp_said;
};

__attribute__((format(printf, 2, 3))) static void warn(struct run *run, const char *fmt, ...)
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

__attribute__((format(printf, 3, 4))) static void phase(struct run *run, const char *test,
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
__attribute__((format(printf, 4, 5))) static enum step failed(struct run *run, const char *test,
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

static uint64_t seconds_ns(double s)
{
	double ns = s * 1e9;

	return ns < 1e6 ? UINT64_C(1000000) : (uint64_t)ns;
}

/* A timed phase of nominal_s seconds under --duration-scale or --quick. */
static uint64_t phase_ns(const struct run *run, double nominal_s, double quick_s)
{
	if (run->o->quick)
		return seconds_ns(quick_s);
	return seconds_ns(nominal_s * run->o->duration_scale);
}

static uint64_t align_down(uint64_t v, uint64_t a)
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
static uint64_t clamped_span(const struct run *run, uint64_t requested, uint32_t align)
{
	uint64_t span = requested && requested < run->whole ? requested : run->whole;

	if (run->o->quick && span > QUICK_SPAN_CAP)
		span = QUICK_SPAN_CAP;
	return align_down(span, align);
}

/* The span a test uses (clamped_span()), with a warning when the target is
 * smaller than asked: once per test however many patterns run it. */
static uint64_t test_span(struct run *run, const char *id, uint64_t requested, uint32_t bs)
{
	if (requested > run->whole && !clamp_said(run, id)) {
		char want[32], have[32];

		lg_format_size_human(requested, want, sizeof(want));
		lg_format_size_human(run->whole, have, sizeof(have));
		warn(run,
		     "%s: span %s is larger than the target (%s); clamped to the target, "
		     "the real span is recorded",
		     id, want, have);
	}
	return clamped_span(run, requested, bs);
}

static enum step job_step(struct run *run, const char *test, struct lg_job_spec *spec, int fd,
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
		return failed(run, test, -r, "%s: could not start I/O (%s engine): %s", test,
			      run->engine->name, strerror(-r));
	if (res.error) {
		const char *op = res.write_failed ? "write" : "read";

		if (res.short_io)
			return failed(run, test, EIO,
				      "%s: short %s at offset %" PRIu64
				      ": %d of %u bytes transferred",
				      test, op, res.error_offset, res.error_transferred,
				      res.error_length);
		return failed(run, test, -res.error,
			      "%s: %s of %u bytes at offset %" PRIu64 " failed: %s", test, op,
			      res.error_length, res.error_offset, strerror(-res.error));
	}
	*ret_result = res;
	/* Interrupted: what completed before is in *ret_result, for the caller to keep. */
	if (res.interrupted)
		return STEP_INTERRUPTED;
	if (res.ios == 0)
		return failed(run, test, 0, "%s: no I/O completed", test);
	return STEP_OK;
}

/* Write [0, span) once, sequentially, with the pattern. */
static enum step fill(struct run *run, const char *test, uint64_t span, enum lg_pattern pattern)
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
	phase(run, test, "sequential fill of %s, %s data", size, lg_pattern_name(pattern));
	return job_step(run, test, &spec, run->wfd, &res);
}

static enum step open_read_fd(struct run *run, const char *test, int *ret_fd)
{
	int flags = run->direct ? LG_OPEN_DIRECT : 0;
	int r = lg_target_open(&run->info, flags, 0, ret_fd);

	if (r < 0)
		return failed(run, test, -r, "%s: cannot open %s for reading: %s", test,
			      run->info.path, strerror(-r));
	return STEP_OK;
}

/* Rates and latencies of ios I/Os and bytes over elapsed_ns. */
static void to_direction(uint64_t ios, uint64_t bytes, uint64_t elapsed_ns,
			 const struct lg_histogram *hist, const struct lg_histogram *clat_hist,
			 struct lg_direction *ret)
{
	ret->io_count = ios;
	ret->bytes = bytes;
	ret->bytes_per_second = (double)bytes * 1e9 / (double)elapsed_ns;
	ret->iops = (double)ios * 1e9 / (double)elapsed_ns;
	ret->has_latency = hist && lg_histogram_summarize(hist, &ret->latency) == 0;
	ret->has_clat = clat_hist && lg_histogram_summarize(clat_hist, &ret->clat) == 0;
}

static void to_result(const char *test, const struct lg_job_spec *spec,
		      const struct lg_job_result *res, struct lg_result *ret)
{
	struct lg_direction all;

	memset(ret, 0, sizeof(*ret));
	snprintf(ret->test, sizeof(ret->test), "%s", test);
	ret->pattern = spec->pattern;
	ret->block_size = spec->block_size;
	ret->queue_depth = spec->queue_depth;
	ret->span_bytes = spec->span_bytes;
	ret->duration_ns = res->elapsed_ns;
	ret->jobs = spec->jobs ? spec->jobs : 1;
	to_direction(res->ios, res->bytes, res->elapsed_ns, spec->hist, spec->clat_hist, &all);
	ret->io_count = all.io_count;
	ret->bytes = all.bytes;
	ret->bytes_per_second = all.bytes_per_second;
	ret->iops = all.iops;
	ret->has_latency = all.has_latency;
	ret->latency = all.latency;
	ret->has_clat = all.has_clat;
	ret->clat = all.clat;
	ret->mixed = spec->mixed;
	ret->read_percent = spec->read_percent;
	for (int d = 0; d < 2 && spec->mixed; d++)
		to_direction(res->dir_ios[d], res->dir_bytes[d], res->elapsed_ns, spec->dir_hist[d],
			     spec->dir_clat_hist[d], &ret->dir[d]);
}

/* The spread of the IOPS of each whole second the job ran (the last, cut short,
 * left out), from its timeline: what fio reports as iops_stddev and iops_min.
 * None under two whole seconds. */
static void iops_spread(const struct lg_timeline *tl, uint64_t elapsed_ns, struct lg_result *ret)
{
	size_t n = tl ? (size_t)(elapsed_ns / LG_NSEC_PER_SEC) : 0;
	size_t len;
	const uint64_t *counts = tl ? lg_timeline_counts(tl, &len) : NULL;
	double sum = 0, squares = 0, min;

	if (n > len)
		n = len;
	if (n < 2)
		return;
	min = (double)counts[0];
	for (size_t i = 0; i < n; i++) {
		double c = (double)counts[i];

		sum += c;
		if (c < min)
			min = c;
	}
	for (size_t i = 0; i < n; i++) {
		double d = (double)counts[i] - sum / (double)n;

		squares += d * d;
	}
	ret->has_iops_spread = true;
	ret->iops_stddev = sqrt(squares / (double)(n - 1));
	ret->iops_min = min;
}

static enum step throughput_test(struct run *run, const struct lg_test_def *t,
				 enum lg_pattern pattern, uint32_t repeat)
{
	struct lg_job_result res;
	struct lg_result result;
	double nominal = run->o->ad_hoc ? run->o->adhoc_time_s : (double)t->duration_s;
	struct lg_job_spec spec = {
		.name = t->id,
		.write = t->write,
		.mixed = t->mixed,
		.read_percent = t->read_percent,
		.random = t->random,
		.block_size = t->block_size,
		.queue_depth = t->queue_depth,
		.jobs = run->o->jobs,
		.span_bytes = test_span(run, t->id, t->span_bytes, t->block_size),
		.duration_ns = phase_ns(run, nominal, QUICK_PHASE_S),
		.pattern = pattern,
		.hist = run->hist,
		.clat_hist = run->clat_hist,
		.dir_hist = {t->mixed ? run->dir_hist[0] : NULL,
			     t->mixed ? run->dir_hist[1] : NULL},
		.dir_clat_hist = {t->mixed ? run->dir_clat_hist[0] : NULL,
				  t->mixed ? run->dir_clat_hist[1] : NULL},
	};
	char span[32], pass[32] = "";
	int fd = run->wfd;
	struct lg_timeline *tl = NULL;
	enum step s;

	if (spec.span_bytes < t->block_size)
		return failed(run, t->id, 0, "%s: the target is smaller than one %u-byte block",
			      t->id, t->block_size);
	/* A timeline counts one worker's completions: the spread of several is not kept. */
	if (spec.jobs <= 1) {
		if (lg_timeline_new(LG_NSEC_PER_SEC,
				    (size_t)(spec.duration_ns / LG_NSEC_PER_SEC) + 2, &tl) < 0)
			return failed(run, t->id, ENOMEM, "out of memory");
		spec.timeline = tl;
	}
	lg_format_size_human(spec.span_bytes, span, sizeof(span));
	if (repeat)
		snprintf(pass, sizeof(pass), ", pass %u of %u", repeat, run->o->repeat);
	if (pattern == LG_PATTERN_UNSPECIFIED)
		phase(run, t->id, "%s, %s span, %.3g s, reading the data already there%s", t->name,
		      span, (double)spec.duration_ns / 1e9, pass);
	else
		phase(run, t->id, "%s, %s span, %.3g s, %s %s data, %u job%s%s", t->name, span,
		      (double)spec.duration_ns / 1e9,
		      t->mixed   ? "reading and writing"
		      : t->write ? "writing"
				 : "reading",
		      lg_pattern_name(pattern), spec.jobs, spec.jobs > 1 ? "s" : "", pass);
	if (!t->write) {
		/* Read tests open the target read-only. */
		s = open_read_fd(run, t->id, &fd);
		if (s != STEP_OK) {
			lg_timeline_free(tl);
			return s;
		}
	}
	memset(&res, 0, sizeof(res));
	s = job_step(run, t->id, &spec, fd, &res);
	if (!t->write)
		close(fd);
	/* An interrupted test keeps what it measured until then, marked partial. */
	if (s != STEP_OK && !(s == STEP_INTERRUPTED && res.ios > 0)) {
		lg_timeline_free(tl);
		return s;
	}
	to_result(t->id, &spec, &res, &result);
	iops_spread(tl, res.elapsed_ns, &result);
	lg_timeline_free(tl);
	result.partial = s == STEP_INTERRUPTED;
	result.repeat = repeat;
	if (lg_report_add_result(run->rep, &result) < 0)
		return failed(run, t->id, ENOMEM, "out of memory");
	if (run->obs->result)
		run->obs->result(run->obs->ctx, &result);
	return s;
}

/* Discard the whole target before a test that needs it unused: each spare-area
 * level of the consistency test (so that what the level leaves unwritten is
 * really free, as on a secure-erased drive of which a part is left unused: the
 * levels before have written every LBA of it), and the write saturation (so
 * that it starts as fresh as the target can be made). why says which, in the
 * phase and in the warning when the target cannot discard; the method ("none"
 * then) goes into *method. */
static enum step discard_target(struct run *run, const struct lg_test_def *t, const char *why,
				const char *without, char *method, size_t method_len)
{
	const char *m = NULL;
	char size[32];
	int r;

	lg_format_size_human(run->info.capacity_bytes, size, sizeof(size));
	phase(run, t->id, "discarding the whole target (%s) %s", size, why);
	r = lg_target_discard(run->wfd, &run->info, 0, run->info.capacity_bytes, &m);
	if (r == -EOPNOTSUPP) {
		if (!run->said_no_discard)
			warn(run, "%s: %s cannot discard: %s (recorded as discard_method \"none\")",
			     t->id, run->info.path, without);
		run->said_no_discard = true;
		snprintf(method, method_len, "none");
		return STEP_OK;
	}
	if (r < 0)
		return failed(run, t->id, -r, "%s: discard of the whole target failed: %s", t->id,
			      strerror(-r));
	snprintf(method, method_len, "%s", m ? m : "");
	return STEP_OK;
}

/* The series of one spare-area level from its job's timeline into the report.
 * Returns STEP_INTERRUPTED for a partial one, after keeping it. */
static enum step add_series(struct run *run, const struct lg_test_def *t,
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
		return failed(run, t->id, ENOMEM, "out of memory");
	if (run->obs->consistency)
		run->obs->consistency(run->obs->ctx, &series);
	if (lg_report_add_consistency(run->rep, &series) < 0) {
		free(series.iops);
		return failed(run, t->id, ENOMEM, "out of memory");
	}
	return partial ? STEP_INTERRUPTED : STEP_OK;
}

static enum step consistency_test(struct run *run, const struct lg_test_def *t)
{
	uint64_t duration = phase_ns(run, t->duration_s, QUICK_CONSISTENCY_S);
	uint64_t intervals = (duration + LG_NSEC_PER_SEC - 1) / LG_NSEC_PER_SEC;

	if (intervals > MAX_INTERVALS)
		return failed(run, t->id, 0,
			      "%s: %" PRIu64 " s is longer than the %d seconds a series holds",
			      t->id, intervals, MAX_INTERVALS);
	for (size_t i = 0; i < run->o->nspare; i++) {
		uint32_t spare = run->o->spare[i];
		uint64_t whole = test_span(run, t->id, 0, t->block_size);
		uint64_t span = align_down(whole / 100 * (100 - spare) +
						   whole % 100 * (100 - spare) / 100,
					   t->block_size);
		struct lg_timeline *tl = NULL;
		struct lg_job_result res;
		char size[32], discard_method[16];
		enum step s;
		int r;

		if (span < t->block_size)
			return failed(run, t->id, 0, "%s: the target is too small", t->id);
		char why[64];

		snprintf(why, sizeof(why), "so that the %u%% spare area is unused", spare);
		s = discard_target(
			run, t, why,
			"the spare area of each level is only left unwritten by that level, "
			"not freed, and still holds the data written there before",
			discard_method, sizeof(discard_method));
		if (s != STEP_OK)
			return s;
		s = fill(run, t->id, span, LG_PATTERN_INCOMPRESSIBLE);
		if (s != STEP_OK)
			return s;
		r = lg_timeline_new(LG_NSEC_PER_SEC, (size_t)intervals, &tl);
		if (r < 0)
			return failed(run, t->id, -r, "out of memory");

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
		phase(run, t->id,
		      "4KB random write QD%u over %s (%u%% spare area), %.3g s, incompressible",
		      t->queue_depth, size, spare, (double)duration / 1e9);
		memset(&res, 0, sizeof(res));
		s = job_step(run, t->id, &spec, run->wfd, &res);
		/* An interrupted level keeps its series up to the interrupt, marked partial. */
		if (s == STEP_OK || (s == STEP_INTERRUPTED && res.ios > 0))
			s = add_series(run, t, &spec, spare, discard_method, s == STEP_INTERRUPTED);
		lg_timeline_free(tl);
		if (s != STEP_OK)
			return s;
	}
	return STEP_OK;
}

/* A saturation write's series, read from its timeline (which is freed) and summarized, a
 * WSAT's half-rate point too, then shown and added to the report; s, the write's step,
 * is passed on. */
static enum step saturation_keep(struct run *run, const struct lg_test_def *t,
				 struct lg_timeline *tl, struct lg_saturation *sat, enum step s)
{
	int r = lg_timeline_copy(tl, &sat->bytes, &sat->len);

	lg_timeline_free(tl);
	if (r < 0)
		return failed(run, t->id, ENOMEM, "out of memory");
	lg_saturation_summarize(sat->bytes, sat->len, sat->interval_ns, sat->duration_ns,
				&sat->summary);
	if (sat->wsat)
		sat->halved = lg_wsat_halved(sat->bytes, sat->len, sat->interval_ns,
					     sat->duration_ns, &sat->halved_at_s,
					     &sat->bytes_before_halved);
	if (run->obs->saturation)
		run->obs->saturation(run->obs->ctx, sat);
	if (lg_report_add_saturation(run->rep, sat) < 0) {
		free(sat->bytes);
		return failed(run, t->id, ENOMEM, "out of memory");
	}
	return s;
}

/* Write saturation: the whole span written once, sequentially, with fresh random
 * data, the bytes of every second counted; where the cache runs out is read from
 * them (saturation.h). */
static enum step saturation_test(struct run *run, const struct lg_test_def *t)
{
	struct lg_saturation sat;
	struct lg_timeline *tl = NULL;
	struct lg_job_result res;
	uint64_t span = test_span(run, t->id, 0, t->block_size);
	char size[32];
	enum step s;
	int r;

	if (span < t->block_size)
		return failed(run, t->id, 0, "%s: the target is too small", t->id);
	memset(&sat, 0, sizeof(sat));
	s = discard_target(run, t, "so that the write starts on a drive as fresh as it can be made",
			   "the write starts on a drive that holds the data written before",
			   sat.discard_method, sizeof(sat.discard_method));
	if (s != STEP_OK)
		return s;
	r = lg_timeline_new(LG_NSEC_PER_SEC, MAX_INTERVALS, &tl);
	if (r < 0)
		return failed(run, t->id, -r, "out of memory");

	struct lg_job_spec spec = {
		.name = t->id,
		.write = true,
		.random = false,
		.block_size = t->block_size,
		.queue_depth = t->queue_depth,
		.span_bytes = span,
		.total_bytes = span,
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.byte_timeline = tl,
	};

	lg_format_size_human(span, size, sizeof(size));
	phase(run, t->id, "128KB sequential write QD%u of %s, incompressible, MB/s every second",
	      t->queue_depth, size);
	memset(&res, 0, sizeof(res));
	s = job_step(run, t->id, &spec, run->wfd, &res);
	/* An interrupted write keeps its series up to the interrupt, marked partial. */
	if (s != STEP_OK && !(s == STEP_INTERRUPTED && res.ios > 0)) {
		lg_timeline_free(tl);
		return s;
	}
	snprintf(sat.test, sizeof(sat.test), "%s", t->id);
	sat.pattern = LG_PATTERN_INCOMPRESSIBLE;
	sat.span_bytes = span;
	sat.block_size = t->block_size;
	sat.queue_depth = t->queue_depth;
	sat.interval_ns = LG_NSEC_PER_SEC;
	sat.duration_ns = res.elapsed_ns;
	sat.partial = s == STEP_INTERRUPTED;
	return saturation_keep(run, t, tl, &sat, s);
}

/* WSAT (SNIA PTS write saturation): the whole target discarded (purged), then 4KB
 * random writes over all of it, the bytes of every round counted, until four times
 * its capacity is written or the time cap ends; where the rate first falls below
 * half the first round's is read from the rounds (saturation.h). */
static enum step wsat_test(struct run *run, const struct lg_test_def *t)
{
	struct lg_saturation sat;
	struct lg_timeline *tl = NULL;
	struct lg_job_result res;
	uint64_t span = test_span(run, t->id, 0, t->block_size);
	uint64_t round = seconds_ns(run->o->round_s > 0 ? run->o->round_s : WSAT_ROUND_S);
	uint64_t cap = run->o->time_cap_s > 0 ? seconds_ns(run->o->time_cap_s)
					      : phase_ns(run, t->duration_s, QUICK_WSAT_S);
	uint64_t rounds = cap / round + 2;
	char size[32], total[32];
	enum step s;
	int r;

	if (span < t->block_size)
		return failed(run, t->id, 0, "%s: the target is too small", t->id);
	if (rounds > MAX_INTERVALS)
		return failed(run, t->id, 0,
			      "%s: a time cap of %.3g s is more than the %d rounds of %.3g s a "
			      "series holds",
			      t->id, (double)cap / 1e9, MAX_INTERVALS, (double)round / 1e9);
	memset(&sat, 0, sizeof(sat));
	s = discard_target(run, t, "to purge it before the write saturation",
			   "the writes start on a drive that holds the data written before",
			   sat.discard_method, sizeof(sat.discard_method));
	if (s != STEP_OK)
		return s;
	r = lg_timeline_new(round, (size_t)rounds, &tl);
	if (r < 0)
		return failed(run, t->id, -r, "out of memory");

	struct lg_job_spec spec = {
		.name = t->id,
		.write = true,
		.random = true,
		.block_size = t->block_size,
		.queue_depth = t->queue_depth,
		.span_bytes = span,
		.duration_ns = cap,
		.max_bytes = WSAT_CAPACITIES * span,
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.byte_timeline = tl,
	};

	lg_format_size_human(span, size, sizeof(size));
	lg_format_size_human(spec.max_bytes, total, sizeof(total));
	phase(run, t->id,
	      "4KB random write QD%u over %s until %s written or %.3g s, incompressible, "
	      "IOPS every %.3g s",
	      t->queue_depth, size, total, (double)cap / 1e9, (double)round / 1e9);
	memset(&res, 0, sizeof(res));
	s = job_step(run, t->id, &spec, run->wfd, &res);
	/* An interrupted run keeps the rounds done until then, marked partial. */
	if (s != STEP_OK && !(s == STEP_INTERRUPTED && res.ios > 0)) {
		lg_timeline_free(tl);
		return s;
	}
	snprintf(sat.test, sizeof(sat.test), "%s", t->id);
	sat.pattern = LG_PATTERN_INCOMPRESSIBLE;
	sat.span_bytes = span;
	sat.block_size = t->block_size;
	sat.queue_depth = t->queue_depth;
	sat.interval_ns = round;
	sat.duration_ns = res.elapsed_ns;
	sat.partial = s == STEP_INTERRUPTED;
	sat.wsat = true;
	sat.target_bytes = spec.max_bytes;
	sat.time_cap_ns = cap;
	sat.stopped_by = sat.partial                   ? LG_WSAT_STOP_INTERRUPTED
			 : res.bytes >= spec.max_bytes ? LG_WSAT_STOP_BYTES
						       : LG_WSAT_STOP_TIME;
	return saturation_keep(run, t, tl, &sat, s);
}

/* One sequential-write measurement of the TRIM validation. */
static enum step trim_seqwrite(struct run *run, const struct lg_test_def *t, uint64_t span,
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
		.duration_ns = phase_ns(run, seconds, QUICK_PHASE_S),
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
	};
	enum step s;

	phase(run, t->id, "128KB sequential write, %s, %.3g s", when,
	      (double)spec.duration_ns / 1e9);
	s = job_step(run, t->id, &spec, run->wfd, &res);
	if (s == STEP_OK)
		*ret_bps = (double)res.bytes * 1e9 / (double)res.elapsed_ns;
	return s;
}

static enum step discard(struct run *run, const struct lg_test_def *t, uint64_t span, char *method,
			 size_t method_len)
{
	const char *m = NULL;
	int r;

	phase(run, t->id, "discarding the whole span");
	r = lg_target_discard(run->wfd, &run->info, 0, span, &m);
	if (r == -EOPNOTSUPP)
		return failed(run, t->id, EOPNOTSUPP, "%s: %s cannot discard (no TRIM support)",
			      t->id, run->info.path);
	if (r < 0)
		return failed(run, t->id, -r, "%s: discard failed: %s", t->id, strerror(-r));
	snprintf(method, method_len, "%s", m ? m : "");
	return STEP_OK;
}

static enum step trim_test(struct run *run, const struct lg_test_def *t)
{
	struct lg_trim trim;
	uint64_t span = test_span(run, t->id, 0, t->block_size);
	uint64_t torture = phase_ns(run, t->duration_s, QUICK_TORTURE_S);
	struct lg_job_result res;
	char size[32];
	enum step s;

	if (span < t->block_size)
		return failed(run, t->id, 0, "%s: the target is too small", t->id);
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
		s = fill(run, t->id, span, LG_PATTERN_INCOMPRESSIBLE);
	if (s == STEP_OK) {
		struct lg_job_spec spec = {
			.name = t->id,
			.write = true,
			.random = true,
			.block_size = 4096,
			.queue_depth = 32,
			.span_bytes = align_down(span, 4096),
			.duration_ns = torture,
			.pattern = LG_PATTERN_INCOMPRESSIBLE,
		};

		lg_format_size_human(span, size, sizeof(size));
		phase(run, t->id, "torture: 4KB random write QD32 over %s, %.3g s, incompressible",
		      size, (double)torture / 1e9);
		s = job_step(run, t->id, &spec, run->wfd, &res);
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
		return failed(run, t->id, ENOMEM, "out of memory");
	if (run->obs->trim)
		run->obs->trim(run->obs->ctx, &trim);
	return STEP_OK;
}

static void now_rfc3339(char *buf, size_t len)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	lg_format_rfc3339(&ts, buf, len);
}

static uint64_t default_seed(void)
{
	struct timespec ts;
	uint64_t s;

	clock_gettime(CLOCK_REALTIME, &ts);
	s = (uint64_t)ts.tv_sec * LG_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
	s ^= (uint64_t)getpid() << 32;
	return lg_splitmix64(&s) & ((UINT64_C(1) << 53) - 1);
}

static void fill_drive(struct run *run)
{
	struct lg_drive *d = &run->rep->drive;
	const struct lg_target_info *ti = &run->info;

	bool model_reported;

	*d = run->o->drive;
	/* What --drive gives wins; the rest is what the device says of itself. */
	if (!d->manufacturer[0] && ti->vendor[0])
		snprintf(d->manufacturer, sizeof(d->manufacturer), "%s", ti->vendor);
	model_reported = !d->model[0] && ti->model[0];
	if (model_reported)
		snprintf(d->model, sizeof(d->model), "%s", ti->model);
	if (!d->firmware[0] && ti->firmware[0])
		snprintf(d->firmware, sizeof(d->firmware), "%s", ti->firmware);
	if (ti->kind == LG_TARGET_BLOCK) {
		if (!d->capacity_bytes)
			d->capacity_bytes = ti->capacity_bytes;
	}
	/* --drive kind=... wins; else what the target tells (drivekind.h), else nothing. */
	if (!d->kind[0] && ti->drive_kind[0])
		snprintf(d->kind, sizeof(d->kind), "%s", ti->drive_kind);
	if (!d->manufacturer[0] && !d->model[0])
		warn(run, "the drive is not named: its manufacturer and model are recorded as "
			  "\"unknown\" (name it with --drive manufacturer=...,model=...)");
	else if (!d->manufacturer[0])
		warn(run,
		     "the drive's manufacturer is not given: its manufacturer is recorded as "
		     "\"unknown\", its model as \"%s\"%s (give --drive manufacturer=...)",
		     d->model, model_reported ? ", as the target reports it" : "");
	else if (!d->model[0])
		warn(run,
		     "the drive's model is not given and the target reports none: its model is "
		     "recorded as \"unknown\" (give --drive model=...)");
}

static void fill_parameters(struct run *run)
{
	const struct lg_run_options *o = run->o;
	struct lg_parameters *p = &run->rep->parameters;

	run->rep->has_parameters = true;
	if (o->suite) {
		snprintf(p->suite_name, sizeof(p->suite_name), "%s", o->suite->name);
		p->suite_version = o->suite->version;
	}
	for (size_t i = 0; i < o->ntests; i++)
		snprintf(p->tests[p->ntests++], LG_ID_MAX, "%s", o->tests[i]->id);
	p->seed = o->seed_given ? o->seed : default_seed();
	snprintf(p->engine, sizeof(p->engine), "%s", run->engine->name);
	p->direct = !o->buffered;
	p->duration_scale = o->duration_scale;
	p->quick = o->quick;
	if (o->want_compressible)
		p->patterns[p->npatterns++] = LG_PATTERN_COMPRESSIBLE;
	if (o->want_incompressible)
		p->patterns[p->npatterns++] = LG_PATTERN_INCOMPRESSIBLE;
	p->compressible_ratio = LG_COMPRESSIBLE_RATIO;
	for (size_t i = 0; i < o->nspare; i++)
		p->spare_area_percent[p->nspare++] = o->spare[i];
	p->ad_hoc = o->ad_hoc;
	p->jobs = o->jobs ? o->jobs : 1;
	p->repeat = o->repeat ? o->repeat : 1;
	snprintf(p->precondition, sizeof(p->precondition), "%s",
		 o->precondition_none ? "none" : "fill");
}

/* "a" or "an" before a signature's name, by its sound: "an ext4 superblock",
 * "an MBR partition table", "a GPT partition table". An initialism is read
 * letter by letter, except those said as words. */
static const char *article(const char *noun)
{
	static const char *const said_as_words[] = {"LUKS", "FAT", NULL};
	char c = noun[0];
	bool initialism = c >= 'A' && c <= 'Z' && noun[1] >= 'A' && noun[1] <= 'Z';

	for (const char *const *w = said_as_words; *w && initialism; w++) {
		size_t n = strlen(*w);

		if (strncmp(noun, *w, n) == 0 && (noun[n] == ' ' || noun[n] == '\0'))
			initialism = false;
	}
	if (initialism)
		return strchr("AEFHILMNORSX", c) ? "an" : "a";
	return strchr("aeiouAEIOU", c) && c != '\0' ? "an" : "a";
}

/* Decide whether the run may write, and open the target. */
static enum lg_run_outcome prepare_target(struct run *run, bool any_write, char *message,
					  size_t message_len)
{
	const struct lg_run_options *o = run->o;
	struct lg_target_check check;
	uint64_t size = 0;
	int r;

	if (run->info.kind == LG_TARGET_FILE && !run->info.exists && !o->size_given) {
		snprintf(message, message_len, "%s does not exist: give --size to create it",
			 o->target);
		return LG_RUN_USAGE;
	}
	memset(&check, 0, sizeof(check));
	r = lg_target_check_writable(&run->info, o->destroy_data, o->force, &check);
	if (r == -EPERM) {
		if (any_write) {
			snprintf(message, message_len, "refusing to write to %s (%s): %s",
				 o->target, lg_target_refusal_name(check.refusal), check.detail);
			return LG_RUN_REFUSED;
		}
		warn(run,
		     "%s may not be written (%s: %s): read tests run read-only on the data "
		     "already there, without preconditioning (pattern \"unspecified\")",
		     o->target, lg_target_refusal_name(check.refusal), check.detail);
		run->writable = false;
	} else if (r < 0) {
		failed(run, NULL, -r, "cannot check whether %s may be written: %s", o->target,
		       strerror(-r));
		return LG_RUN_FAILED;
	} else {
		run->writable = true;
	}
	if (check.signature[0])
		warn(run, "%s holds %s %s; its data will be %s", o->target,
		     article(check.signature), check.signature,
		     run->writable ? "destroyed" : "read");

	if (run->writable) {
		int flags = LG_OPEN_WRITE | (run->direct ? LG_OPEN_DIRECT : 0) |
			    (run->info.kind == LG_TARGET_BLOCK ? LG_OPEN_EXCL : 0);

		run->created = run->info.kind == LG_TARGET_FILE && !run->info.exists;
		r = lg_target_open(&run->info, flags, o->size_given ? o->size : 0, &run->wfd);
	} else {
		int fd = -1;

		r = lg_target_open(&run->info, run->direct ? LG_OPEN_DIRECT : 0, 0, &fd);
		if (r == 0)
			close(fd);
	}
	if (r == -EINVAL && run->direct) {
		failed(run, NULL, EINVAL,
		       "%s cannot do direct I/O (O_DIRECT); run again with "
		       "--buffered to measure through the page cache (recorded as direct=false)",
		       o->target);
		return LG_RUN_FAILED;
	}
	if (r < 0) {
		failed(run, NULL, -r, "cannot open %s: %s", o->target, strerror(-r));
		return LG_RUN_FAILED;
	}
	if (run->info.kind == LG_TARGET_FILE && run->wfd >= 0) {
		struct stat st;

		if (fstat(run->wfd, &st) == 0)
			size = (uint64_t)st.st_size;
	} else {
		size = run->info.capacity_bytes;
	}
	if (run->info.kind == LG_TARGET_FILE && size > run->info.capacity_bytes)
		run->info.capacity_bytes = size;
	size = run->info.capacity_bytes;
	uint64_t align = run->info.logical_block_size > 4096 ? run->info.logical_block_size : 4096;

	run->whole = align_down(size, align);
	if (run->whole == 0) {
		failed(run, NULL, 0, "%s is empty", o->target);
		return LG_RUN_FAILED;
	}
	return LG_RUN_COMPLETE;
}

static enum lg_run_outcome finish(struct run *run, enum step s, char *message, size_t message_len)
{
	struct lg_report *rep = run->rep;

	rep->target = run->info;
	rep->has_target = true;
	rep->parameters.target_size_bytes = run->info.capacity_bytes;
	now_rfc3339(rep->finished_at, sizeof(rep->finished_at));
	if (s == STEP_FAILED) {
		rep->status = LG_STATUS_FAILED;
		snprintf(message, message_len, "%s", rep->failure_message);
		return LG_RUN_FAILED;
	}
	if (s == STEP_INTERRUPTED) {
		rep->status = LG_STATUS_INCOMPLETE;
		snprintf(message, message_len,
			 "interrupted: the document holds the tests completed before, and what the "
			 "interrupted one measured until then, marked partial");
		return LG_RUN_INTERRUPTED;
	}
	rep->status = LG_STATUS_COMPLETE;
	return LG_RUN_COMPLETE;
}

/* The report's header: times, tool, command line, provenance, host, engine and
 * every parameter, the seed included. */
static void start_report(struct run *run, const struct lg_cli *cli)
{
	const struct lg_run_options *o = run->o;
	struct lg_report *report = run->rep;

	now_rfc3339(report->started_at, sizeof(report->started_at));
	snprintf(report->tool_version, sizeof(report->tool_version), "%s", LG_VERSION);
	snprintf(report->command_line, sizeof(report->command_line), "%s", cli->command_line);
	snprintf(report->drive_state, sizeof(report->drive_state), "%s",
		 o->drive_state[0] ? o->drive_state : "unknown");
	report->bench = o->bench;
	report->has_host = lg_host_probe(&report->host) == 0;
	if (!o->engine || lg_engine_find(o->engine, &run->engine) < 0)
		run->engine = lg_engine_default();
	snprintf(report->engine, sizeof(report->engine), "%s", run->engine->name);
	fill_parameters(run);
	run->seed_state = report->parameters.seed;
}

/* What must hold of the target before anything is opened: it is a file or a
 * block device, not memory when O_DIRECT is asked, and its logical block size
 * divides every block size. LG_RUN_COMPLETE when it does. */
static enum lg_run_outcome examine_target(struct run *run, char *message, size_t message_len)
{
	const struct lg_run_options *o = run->o;
	int r = lg_target_probe(o->target, &run->info);

	if (r < 0) {
		snprintf(run->info.path, sizeof(run->info.path), "%s", o->target);
		if (r == -ENOTSUP) {
			snprintf(message, message_len,
				 "%s is neither a regular file nor a block device", o->target);
			return LG_RUN_USAGE;
		}
		failed(run, NULL, -r, "cannot examine %s: %s", o->target, strerror(-r));
		now_rfc3339(run->rep->finished_at, sizeof(run->rep->finished_at));
		snprintf(message, message_len, "%s", run->rep->failure_message);
		return LG_RUN_FAILED;
	}
	if (run->info.kind == LG_TARGET_FILE && run->info.memory_fs[0] && run->direct) {
		snprintf(message, message_len,
			 "%s is on %s, which keeps its data in memory: the run "
			 "would measure RAM, not a drive. Put the target on a disk (or use a block "
			 "device); --buffered runs it anyway (recorded as direct=false)",
			 o->target, run->info.memory_fs);
		return LG_RUN_USAGE;
	}
	/* O_DIRECT I/O must be a multiple of the logical block size; the kernel says
	 * so only with EINVAL in the middle of a run. */
	for (size_t i = 0; i < o->ntests && run->direct; i++) {
		const struct lg_test_def *t = o->tests[i];
		uint32_t lbs = run->info.logical_block_size;
		char bs[32], need[32];

		if (lbs == 0 || t->block_size % lbs == 0)
			continue;
		lg_format_size_id(t->block_size, bs, sizeof(bs));
		lg_format_size_id(lbs, need, sizeof(need));
		if (o->ad_hoc)
			snprintf(message, message_len,
				 "--bs %s is not a multiple of the logical "
				 "block size of %s (%u bytes), which direct I/O (O_DIRECT) needs: "
				 "use a multiple of %s, or --buffered",
				 bs, o->target, lbs, need);
		else
			snprintf(message, message_len,
				 "%s: its %s blocks are not a multiple of "
				 "the logical block size of %s (%u bytes), which direct I/O "
				 "(O_DIRECT) needs: leave the test out, or give --buffered",
				 t->id, bs, o->target, lbs);
		return LG_RUN_USAGE;
	}
	return LG_RUN_COMPLETE;
}

/* Whether a selected test is of that kind (any: -1) and writes (any: -1). */
static bool any_test(const struct lg_run_options *o, int kind, int write)
{
	for (size_t i = 0; i < o->ntests; i++) {
		const struct lg_test_def *t = o->tests[i];

		if ((kind < 0 || (int)t->kind == kind) && (write < 0 || (int)t->write == write))
			return true;
	}
	return false;
}

/* Whether a test reads: a read test or a mixed one. */
static bool test_reads(const struct lg_test_def *t)
{
	return !t->write || t->mixed;
}

/* Before the throughput tests of one pattern: write the span the read tests
 * use with that pattern, so that they read data really written in it (unless
 * --precondition none, which is said); a file this run created is written
 * whole before anything is measured. */
static enum step precondition(struct run *run, enum lg_pattern pattern)
{
	const struct lg_run_options *o = run->o;
	bool created = run->created;
	const char *first = NULL;
	uint64_t span = 0;

	run->created = false;
	if (!run->writable)
		return STEP_OK;
	for (size_t i = 0; i < o->ntests; i++) {
		const struct lg_test_def *t = o->tests[i];
		uint64_t ts = clamped_span(run, t->span_bytes, 4096);

		if (t->kind != LG_KIND_THROUGHPUT || !(created || test_reads(t)))
			continue;
		if (ts > span)
			span = ts;
		if (!first)
			first = t->id;
	}
	if (span == 0)
		return STEP_OK;
	if (o->precondition_none && created) {
		warn(run,
		     "--precondition none: %s was just created and holds no data to read; it is "
		     "filled anyway (recorded as precondition \"fill\")",
		     o->target);
		snprintf(run->rep->parameters.precondition,
			 sizeof(run->rep->parameters.precondition), "fill");
	} else if (o->precondition_none) {
		if (!run->said_no_precondition)
			warn(run,
			     "no preconditioning (--precondition none): the read tests read the data "
			     "already on the target, as %s",
			     strcmp(run->rep->drive_state, "unknown") == 0
				     ? "an earlier run left it (drive state unknown: say it with "
				       "--drive-state)"
				     : "the drive state recorded says");
		run->said_no_precondition = true;
		return STEP_OK;
	}
	return fill(run, first, span, pattern);
}

/* The throughput tests, pattern by pattern: each pattern's preconditioning, then
 * its passes (--repeat), each pass every test in order. A pass is numbered in its
 * results only when the run has several. */
static enum step throughput_tests(struct run *run)
{
	const struct lg_run_options *o = run->o;
	enum lg_pattern patterns[2];
	size_t npatterns = 0;
	enum step s = STEP_OK;

	if (!any_test(o, LG_KIND_THROUGHPUT, -1))
		return STEP_OK;
	if (!run->writable) {
		patterns[npatterns++] = LG_PATTERN_UNSPECIFIED;
	} else {
		if (o->want_compressible)
			patterns[npatterns++] = LG_PATTERN_COMPRESSIBLE;
		if (o->want_incompressible)
			patterns[npatterns++] = LG_PATTERN_INCOMPRESSIBLE;
	}
	for (size_t p = 0; p < npatterns && s == STEP_OK; p++) {
		uint32_t passes = o->repeat ? o->repeat : 1;

		s = precondition(run, patterns[p]);
		for (uint32_t pass = 1; pass <= passes && s == STEP_OK; pass++)
			for (size_t i = 0; i < o->ntests && s == STEP_OK; i++)
				if (o->tests[i]->kind == LG_KIND_THROUGHPUT)
					s = throughput_test(run, o->tests[i], patterns[p],
							    passes > 1 ? pass : 0);
	}
	return s;
}

/* The long tests, after the throughput tests: consistency, TRIM validation and
 * write saturation. */
static enum step long_tests(struct run *run)
{
	enum step s = STEP_OK;

	for (size_t i = 0; i < run->o->ntests && s == STEP_OK; i++) {
		const struct lg_test_def *t = run->o->tests[i];

		if (t->kind == LG_KIND_CONSISTENCY)
			s = consistency_test(run, t);
		else if (t->kind == LG_KIND_TRIM)
			s = trim_test(run, t);
		else if (t->kind == LG_KIND_SATURATION && t->random)
			s = wsat_test(run, t);
		else if (t->kind == LG_KIND_SATURATION)
			s = saturation_test(run, t);
	}
	return s;
}

/* Make what was written durable and close the target. */
static enum step close_target(struct run *run, enum step s)
{
	if (run->wfd < 0)
		return s;
	if (fsync(run->wfd) < 0 && s == STEP_OK && errno != EINVAL)
		s = failed(run, NULL, errno, "fsync of %s failed: %s", run->o->target,
			   strerror(errno));
	close(run->wfd);
	run->wfd = -1;
	return s;
}

static int histograms_new(struct run *run)
{
	int r = lg_histogram_new(&run->hist);

	if (r == 0)
		r = lg_histogram_new(&run->clat_hist);
	for (int d = 0; d < 2 && r == 0; d++) {
		r = lg_histogram_new(&run->dir_hist[d]);
		if (r == 0)
			r = lg_histogram_new(&run->dir_clat_hist[d]);
	}
	return r;
}

static void histograms_free(struct run *run)
{
	lg_histogram_free(run->hist);
	lg_histogram_free(run->clat_hist);
	for (int d = 0; d < 2; d++) {
		lg_histogram_free(run->dir_hist[d]);
		lg_histogram_free(run->dir_clat_hist[d]);
	}
}

enum lg_run_outcome lg_run(const struct lg_cli *cli, const struct lg_run_observer *observer,
			   const volatile sig_atomic_t *stop, struct lg_report *report,
			   char *message, size_t message_len)
{
	struct run run = {
		.o = &cli->run,
		.obs = observer,
		.stop = stop,
		.rep = report,
		.wfd = -1,
		.direct = !cli->run.buffered,
	};
	enum lg_run_outcome outcome;
	enum step s = STEP_OK;
	int r;

	message[0] = '\0';
	start_report(&run, cli);
	outcome = examine_target(&run, message, message_len);
	if (outcome != LG_RUN_COMPLETE)
		return outcome;
	fill_drive(&run);
	if (run.o->engine && (r = run.engine->probe()) < 0) {
		failed(&run, NULL, -r,
		       "the %s engine is not available on this kernel: %s (try --engine psync)",
		       run.engine->name, strerror(-r));
		return finish(&run, STEP_FAILED, message, message_len);
	}
	outcome = prepare_target(&run, any_test(run.o, -1, 1), message, message_len);
	if (outcome == LG_RUN_USAGE || outcome == LG_RUN_REFUSED)
		return outcome;
	if (outcome == LG_RUN_FAILED)
		return finish(&run, STEP_FAILED, message, message_len);
	if (!run.writable)
		report->parameters.npatterns = 0;
	if (run.o->jobs > 1 &&
	    (any_test(run.o, LG_KIND_CONSISTENCY, -1) || any_test(run.o, LG_KIND_TRIM, -1) ||
	     any_test(run.o, LG_KIND_SATURATION, -1)))
		warn(&run,
		     "--jobs %u applies to the throughput tests; consistency, TRIM validation and "
		     "write saturation run one job, as their method says",
		     run.o->jobs);

	/* The drive's own account of its health, before the first I/O and after the last. */
	report->has_health = true;
	lg_health_snapshot_take(&run.info, false, &report->health);
	if (histograms_new(&run) < 0)
		s = failed(&run, NULL, ENOMEM, "out of memory");
	if (s == STEP_OK)
		s = throughput_tests(&run);
	if (s == STEP_OK)
		s = long_tests(&run);
	s = close_target(&run, s);
	lg_health_snapshot_take(&run.info, true, &report->health);
	histograms_free(&run);
	return finish(&run, s, message, message_len);
}
