/* Write saturation (run.h), in two variants of one test: the whole target discarded,
 * then written with incompressible data, the bytes of every interval counted.
 *   128KB sequential (write-saturation-128k-qd32): the span written once, sequentially,
 *     the bytes of every second; where the write cache runs out is read from them.
 *   WSAT (wsat-4k-qd32, SNIA PTS): 4KB random writes over the whole target until four
 *     times its capacity is written or the time cap ends, the bytes of every round
 *     (--round); where the rate first falls below half the first round's is read from
 *     them (saturation.h). */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saturation.h"
#include "timeline.h"
#include "util.h"

#define QUICK_WSAT_S 10.0
#define WSAT_ROUND_S 60.0 /* SNIA PTS's round */
#define WSAT_CAPACITIES 4 /* written before it stops */

/* What the variants differ in; the rest of the test is theirs alike. */
struct variant {
	bool wsat;
	uint64_t interval_ns; /* the bytes are counted in intervals of this */
	size_t intervals;     /* that the series holds */
	uint64_t time_cap_ns; /* WSAT: the write stops at this; 0: once the span is written */
	uint64_t max_bytes;   /* WSAT: or once this is written */
	const char *why;      /* the discard of the whole target before it, in its phase */
	const char *without;  /* and in the warning when the target cannot discard */
};

static void sequential_variant(struct variant *ret)
{
	*ret = (struct variant){
		.interval_ns = LG_NSEC_PER_SEC,
		.intervals = MAX_INTERVALS,
		.why = "so that the write starts on a drive as fresh as it can be made",
		.without = "the write starts on a drive that holds the data written before",
	};
}

/* WSAT's rounds (--round, else a minute) up to its time cap (--time, else the catalog's
 * duration under --duration-scale or --quick). */
static enum run_step wsat_variant(struct run *run, const struct lg_test_def *t, uint64_t span,
				  struct variant *ret)
{
	uint64_t round = run_seconds_ns(run->o->round_s > 0 ? run->o->round_s : WSAT_ROUND_S);
	uint64_t cap = run->o->time_cap_s > 0 ? run_seconds_ns(run->o->time_cap_s)
					      : run_phase_ns(run, t->duration_s, QUICK_WSAT_S);
	uint64_t rounds = cap / round + 2;

	if (rounds > MAX_INTERVALS)
		return run_failed(run, t->id, 0,
				  "%s: a time cap of %.3g s is more than the %d rounds of %.3g s a "
				  "series holds",
				  t->id, (double)cap / 1e9, MAX_INTERVALS, (double)round / 1e9);
	*ret = (struct variant){
		.wsat = true,
		.interval_ns = round,
		.intervals = (size_t)rounds,
		.time_cap_ns = cap,
		.max_bytes = WSAT_CAPACITIES * span,
		.why = "to purge it before the write saturation",
		.without = "the writes start on a drive that holds the data written before",
	};
	return STEP_OK;
}

static void say_phase(struct run *run, const struct lg_test_def *t, const struct variant *v,
		      uint64_t span)
{
	char size[32], total[32];

	lg_format_size_human(span, size, sizeof(size));
	if (!v->wsat) {
		run_phase(run, t->id,
			  "128KB sequential write QD%u of %s, incompressible, MB/s every second",
			  t->queue_depth, size);
		return;
	}
	lg_format_size_human(v->max_bytes, total, sizeof(total));
	run_phase(run, t->id,
		  "4KB random write QD%u over %s until %s written or %.3g s, incompressible, "
		  "IOPS every %.3g s",
		  t->queue_depth, size, total, (double)v->time_cap_ns / 1e9,
		  (double)v->interval_ns / 1e9);
}

/* The series, read from its timeline (which is freed) and summarized, a WSAT's
 * half-rate point too, then shown and added to the report; s, the write's step, is
 * passed on. */
static enum run_step keep(struct run *run, const struct lg_test_def *t, struct lg_timeline *tl,
			  struct lg_saturation *sat, enum run_step s)
{
	int r = lg_timeline_copy(tl, &sat->bytes, &sat->len);

	lg_timeline_free(tl);
	if (r < 0)
		return run_failed(run, t->id, ENOMEM, "out of memory");
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
		return run_failed(run, t->id, ENOMEM, "out of memory");
	}
	return s;
}

/* A random saturation test is WSAT, a sequential one the 128KB write. */
enum run_step run_saturation(struct run *run, const struct lg_test_def *t)
{
	struct lg_saturation sat;
	struct lg_timeline *tl = NULL;
	struct lg_job_result res;
	uint64_t span = run_test_span(run, t->id, 0, t->block_size);
	struct variant v = {0};
	enum run_step s;
	int r;

	if (span < t->block_size)
		return run_failed(run, t->id, 0, "%s: the target is too small", t->id);
	if (!t->random)
		sequential_variant(&v);
	else if ((s = wsat_variant(run, t, span, &v)) != STEP_OK)
		return s;
	memset(&sat, 0, sizeof(sat));
	s = run_discard_target(run, t, v.why, v.without, sat.discard_method,
			       sizeof(sat.discard_method));
	if (s != STEP_OK)
		return s;
	r = lg_timeline_new(v.interval_ns, v.intervals, &tl);
	if (r < 0)
		return run_failed(run, t->id, -r, "out of memory");

	struct lg_job_spec spec = {
		.name = t->id,
		.write = true,
		.random = v.wsat,
		.block_size = t->block_size,
		.queue_depth = t->queue_depth,
		.span_bytes = span,
		.total_bytes = v.wsat ? 0 : span,
		.duration_ns = v.time_cap_ns,
		.max_bytes = v.max_bytes,
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.byte_timeline = tl,
	};

	say_phase(run, t, &v, span);
	memset(&res, 0, sizeof(res));
	s = run_job_step(run, t->id, &spec, run->wfd, &res);
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
	sat.interval_ns = v.interval_ns;
	sat.duration_ns = res.elapsed_ns;
	sat.partial = s == STEP_INTERRUPTED;
	if (v.wsat) {
		sat.wsat = true;
		sat.target_bytes = v.max_bytes;
		sat.time_cap_ns = v.time_cap_ns;
		sat.stopped_by = sat.partial                ? LG_WSAT_STOP_INTERRUPTED
				 : res.bytes >= v.max_bytes ? LG_WSAT_STOP_BYTES
							    : LG_WSAT_STOP_TIME;
	}
	return keep(run, t, tl, &sat, s);
}
