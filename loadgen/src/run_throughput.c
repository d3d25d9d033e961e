/* The throughput tests (run.h): the catalog's four corners, the queue-depth sweeps and
 * the mixed tests, and an ad-hoc --rw test. For each data pattern the span the read
 * tests read is written first, then the pattern's passes (--repeat) follow, each pass
 * every throughput test in order. */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "timeline.h"
#include "util.h"

/* Rates and latencies of ios I/Os and bytes over elapsed_ns, the latency's histogram
 * buckets with them. Returns 0 or -ENOMEM. */
static int to_direction(uint64_t ios, uint64_t bytes, uint64_t elapsed_ns,
			const struct lg_histogram *hist, const struct lg_histogram *clat_hist,
			struct lg_direction *ret)
{
	ret->io_count = ios;
	ret->bytes = bytes;
	ret->bytes_per_second = (double)bytes * 1e9 / (double)elapsed_ns;
	ret->iops = (double)ios * 1e9 / (double)elapsed_ns;
	ret->has_latency = hist && lg_histogram_summarize(hist, &ret->latency) == 0;
	ret->has_clat = clat_hist && lg_histogram_summarize(clat_hist, &ret->clat) == 0;
	return ret->has_latency ? lg_histogram_buckets(hist, &ret->latency_buckets) : 0;
}

/* The result of a job; on failure (-ENOMEM) it owns no histogram buckets. */
static int to_result(const char *test, const struct lg_job_spec *spec,
		     const struct lg_job_result *res, struct lg_result *ret)
{
	struct lg_direction all = {0};
	int r;

	memset(ret, 0, sizeof(*ret));
	snprintf(ret->test, sizeof(ret->test), "%s", test);
	ret->pattern = spec->pattern;
	ret->block_size = spec->block_size;
	ret->queue_depth = spec->queue_depth;
	ret->span_bytes = spec->span_bytes;
	ret->duration_ns = res->elapsed_ns;
	ret->jobs = spec->jobs ? spec->jobs : 1;
	r = to_direction(res->ios, res->bytes, res->elapsed_ns, spec->hist, spec->clat_hist, &all);
	ret->latency_buckets = all.latency_buckets;
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
	ret->rate_iops = spec->rate_iops;
	for (int d = 0; d < 2 && spec->mixed && r == 0; d++)
		r = to_direction(res->dir_ios[d], res->dir_bytes[d], res->elapsed_ns,
				 spec->dir_hist[d], spec->dir_clat_hist[d], &ret->dir[d]);
	if (r < 0) {
		lg_hist_buckets_free(&ret->latency_buckets);
		for (int d = 0; d < 2; d++)
			lg_hist_buckets_free(&ret->dir[d].latency_buckets);
	}
	return r;
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

/* One run of test t in pattern, recorded as test id: unpaced (rate 0) or paced at rate
 * I/Os a second, load_percent of the unpaced run's IOPS when not 0. *ret_iops: the IOPS
 * it reached (0 when it recorded nothing). */
static enum run_step throughput_run(struct run *run, const struct lg_test_def *t, const char *id,
				    enum lg_pattern pattern, uint32_t repeat, uint64_t rate,
				    uint32_t load_percent, double *ret_iops)
{
	struct lg_job_result res;
	struct lg_result result;
	double nominal = run->o->ad_hoc ? run->o->adhoc_time_s : (double)t->duration_s;
	struct lg_job_spec spec = {
		.name = id,
		.write = t->write,
		.mixed = t->mixed,
		.read_percent = t->read_percent,
		.random = t->random,
		.block_size = t->block_size,
		.queue_depth = t->queue_depth,
		.jobs = run->o->jobs,
		.span_bytes = run_test_span(run, t->id, t->span_bytes, t->block_size),
		.duration_ns = run_phase_ns(run, nominal, QUICK_PHASE_S),
		.pattern = pattern,
		.rate_iops = rate,
		.hist = run->hist,
		.clat_hist = run->clat_hist,
		.dir_hist = {t->mixed ? run->dir_hist[0] : NULL,
			     t->mixed ? run->dir_hist[1] : NULL},
		.dir_clat_hist = {t->mixed ? run->dir_clat_hist[0] : NULL,
				  t->mixed ? run->dir_clat_hist[1] : NULL},
	};
	char span[32], pass[32] = "", paced[96] = "";
	int fd = run->wfd;
	struct lg_timeline *tl = NULL;
	enum run_step s;

	*ret_iops = 0;
	if (spec.span_bytes < t->block_size)
		return run_failed(run, t->id, 0, "%s: the target is smaller than one %u-byte block",
				  t->id, t->block_size);
	/* A timeline counts one worker's completions: the spread of several is not kept. */
	if (spec.jobs <= 1) {
		if (lg_timeline_new(LG_NSEC_PER_SEC,
				    (size_t)(spec.duration_ns / LG_NSEC_PER_SEC) + 2, &tl) < 0)
			return run_failed(run, t->id, ENOMEM, "out of memory");
		spec.timeline = tl;
	}
	lg_format_size_human(spec.span_bytes, span, sizeof(span));
	if (repeat)
		snprintf(pass, sizeof(pass), ", pass %u of %u", repeat, run->o->repeat);
	if (rate && load_percent)
		snprintf(paced, sizeof(paced), ", paced at %" PRIu64 " IOPS (%u%% of its maximum)",
			 rate, load_percent);
	else if (rate)
		snprintf(paced, sizeof(paced), ", paced at %" PRIu64 " IOPS", rate);
	if (pattern == LG_PATTERN_UNSPECIFIED)
		run_phase(run, id, "%s, %s span, %.3g s, reading the data already there%s%s",
			  t->name, span, (double)spec.duration_ns / 1e9, paced, pass);
	else
		run_phase(run, id, "%s, %s span, %.3g s, %s %s data, %u job%s%s%s", t->name, span,
			  (double)spec.duration_ns / 1e9,
			  t->mixed   ? "reading and writing"
			  : t->write ? "writing"
				     : "reading",
			  lg_pattern_name(pattern), spec.jobs, spec.jobs > 1 ? "s" : "", paced,
			  pass);
	if (!t->write) {
		/* Read tests open the target read-only. */
		s = run_open_read_fd(run, t->id, &fd);
		if (s != STEP_OK) {
			lg_timeline_free(tl);
			return s;
		}
	}
	memset(&res, 0, sizeof(res));
	s = run_job_step(run, t->id, &spec, fd, &res);
	if (!t->write)
		close(fd);
	/* An interrupted test keeps what it measured until then, marked partial. */
	if (s != STEP_OK && !(s == STEP_INTERRUPTED && res.ios > 0)) {
		lg_timeline_free(tl);
		return s;
	}
	if (to_result(id, &spec, &res, &result) < 0) {
		lg_timeline_free(tl);
		return run_failed(run, id, ENOMEM, "out of memory");
	}
	iops_spread(tl, res.elapsed_ns, &result);
	lg_timeline_free(tl);
	result.partial = s == STEP_INTERRUPTED;
	result.repeat = repeat;
	result.load_percent = load_percent;
	*ret_iops = result.iops;
	if (lg_report_add_result(run->rep, &result) < 0) {
		lg_hist_buckets_free(&result.latency_buckets);
		for (int d = 0; d < 2; d++)
			lg_hist_buckets_free(&result.dir[d].latency_buckets);
		return run_failed(run, id, ENOMEM, "out of memory");
	}
	if (run->obs->result)
		run->obs->result(run->obs->ctx, &result);
	return s;
}

/* Test t in pattern: once as fast as its queue allows, or paced at --rate; with --load,
 * then again at each fraction of the IOPS that first run reached, each a result of its
 * own ("<id>-load<P>"). */
static enum run_step throughput_test(struct run *run, const struct lg_test_def *t,
				     enum lg_pattern pattern, uint32_t repeat)
{
	const struct lg_run_options *o = run->o;
	double maximum = 0, iops;
	enum run_step s;
	char id[LG_ID_MAX];

	if (t->curve && t->load_percent) {
		/* A point of a curve: paced at its fraction of the curve's maximum, measured
		 * just before in this pattern and pass (cli.c puts that test first). */
		uint64_t rate;

		if (!run->curve_id || strcmp(run->curve_id, t->curve) != 0 || run->curve_iops <= 0)
			return run_failed(run, t->id, 0,
					  "%s: its curve's maximum (%s) was not measured before it",
					  t->id, t->curve);
		rate = (uint64_t)llround(run->curve_iops * t->load_percent / 100.0);
		if (rate == 0)
			return run_failed(run, t->id, 0,
					  "%s: %u%% of the %.3g IOPS %s reached is under one I/O a "
					  "second",
					  t->id, t->load_percent, run->curve_iops, t->curve);
		return throughput_run(run, t, t->id, pattern, repeat, rate, t->load_percent, &iops);
	}
	s = throughput_run(run, t, t->id, pattern, repeat, o->rate_iops, 0, &maximum);
	if (t->curve) {
		run->curve_id = t->id;
		run->curve_iops = maximum;
	}
	for (size_t i = 0; i < o->nloads && s == STEP_OK; i++) {
		uint64_t rate = (uint64_t)llround(maximum * o->load_percent[i] / 100.0);

		snprintf(id, sizeof(id), "%s-load%u", t->id, o->load_percent[i]);
		if (rate == 0)
			return run_failed(run, id, 0,
					  "%s: %u%% of the %.3g IOPS the unpaced run reached is "
					  "under one I/O a second",
					  id, o->load_percent[i], maximum);
		s = throughput_run(run, t, id, pattern, repeat, rate, o->load_percent[i], &iops);
	}
	return s;
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
static enum run_step precondition(struct run *run, enum lg_pattern pattern)
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
		uint64_t ts = run_clamped_span(run, t->span_bytes, 4096);

		if (t->kind != LG_KIND_THROUGHPUT || !(created || test_reads(t)))
			continue;
		if (ts > span)
			span = ts;
		if (!first)
			first = t->id;
	}
	if (span == 0)
		return STEP_OK;
	/* A file just created is filled anyway: the runner said so (and recorded it). */
	if (o->precondition_none && !created) {
		if (!run->said_no_precondition)
			run_warn(run,
				 "no preconditioning (--precondition none): the read tests read the data "
				 "already on the target, as %s",
				 strcmp(run->rep->drive_state, "unknown") == 0
					 ? "an earlier run left it (drive state unknown: say it with "
					   "--drive-state)"
					 : "the drive state recorded says");
		run->said_no_precondition = true;
		return STEP_OK;
	}
	return run_fill(run, first, span, pattern);
}

/* The throughput tests, pattern by pattern: each pattern's preconditioning, then
 * its passes (--repeat), each pass every test in order. A pass is numbered in its
 * results only when the run has several. */
enum run_step run_throughput_tests(struct run *run)
{
	const struct lg_run_options *o = run->o;
	enum lg_pattern patterns[2];
	size_t npatterns = 0;
	enum run_step s = STEP_OK;

	if (!run_any_test(o, LG_KIND_THROUGHPUT, -1))
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
		for (uint32_t pass = 1; pass <= passes && s == STEP_OK; pass++) {
			run->curve_id = NULL; /* a curve's points follow its maximum's pass */
			for (size_t i = 0; i < o->ntests && s == STEP_OK; i++)
				if (o->tests[i]->kind == LG_KIND_THROUGHPUT)
					s = throughput_test(run, o->tests[i], patterns[p],
							    passes > 1 ? pass : 0);
		}
	}
	return s;
}
