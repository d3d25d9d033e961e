/* run: the core the runner's test kinds share, internal to the runner
 * (runner.c and its run_*.c files; nothing else includes it).
 *
 * One file a concern: runner.c takes a run from the parsed command line to the
 * document's status; run.c holds what every kind of test needs (messages,
 * failure, durations, spans, one job, a fill, a discard of the whole target);
 * each kind of test is a file of its own:
 *   run_throughput.c   the throughput tests, queue-depth sweeps and mixed tests
 *                      included: each pattern's preconditioning, then its passes
 *   run_consistency.c  performance consistency, one series per spare-area level
 *   run_trim.c         TRIM validation: clean, after torture, after TRIM
 *   run_saturation.c   write saturation, 128KB sequential and its WSAT variant
 *
 * Return convention: a step returns STEP_OK, or STEP_FAILED once the report says
 * why (run_failed()), or STEP_INTERRUPTED after keeping what was measured.
 *
 * Ownership: struct run lives on lg_run()'s stack; it borrows the options, the
 * observer and the report, and owns the target's descriptor and the histograms.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "engine.h"
#include "histogram.h"
#include "job.h"
#include "report_json.h"
#include "runner.h"
#include "target.h"

#define MIB (UINT64_C(1) << 20)
#define QUICK_PHASE_S 2.0 /* a timed phase under --quick */
#define MAX_INTERVALS 100000

/* What a step of the run ended with. */
enum run_step {
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
	/* The last curve's unpaced test run in this pattern and pass (its id), and the IOPS
	 * it reached: its points are paced at fractions of it. */
	const char *curve_id;
	double curve_iops;
	bool said_no_discard; /* the warning that the target cannot discard was given */
	bool said_no_precondition;
	const char *clamp_said[LG_MAX_TESTS]; /* tests whose span clamp was said */
	size_t nclamp_said;
};

/* Messages, through the observer. */
__attribute__((format(printf, 2, 3))) void run_warn(struct run *run, const char *fmt, ...);
__attribute__((format(printf, 3, 4))) void run_phase(struct run *run, const char *test,
						     const char *fmt, ...);
/* Mark the report failed with a message (and errno when > 0) for test; STEP_FAILED. */
__attribute__((format(printf, 4, 5))) enum run_step run_failed(struct run *run, const char *test,
							       int err, const char *fmt, ...);

/* s seconds in nanoseconds, at least 1 ms. */
uint64_t run_seconds_ns(double s);
/* A timed phase of nominal_s seconds under --duration-scale, or quick_s under --quick. */
uint64_t run_phase_ns(const struct run *run, double nominal_s, double quick_s);
uint64_t run_align_down(uint64_t v, uint64_t a);
/* The span a test asks for (0: the whole target), clamped to the target and to
 * 256 MiB under --quick, aligned down to align. */
uint64_t run_clamped_span(const struct run *run, uint64_t requested, uint32_t align);
/* run_clamped_span(), with a warning when the target is smaller than asked (once a test). */
uint64_t run_test_span(struct run *run, const char *id, uint64_t requested, uint32_t bs);

/* One job of spec on fd, its histograms reset and its seed drawn from the run's;
 * *ret_result holds what completed, also when interrupted. */
enum run_step run_job_step(struct run *run, const char *test, struct lg_job_spec *spec, int fd,
			   struct lg_job_result *ret_result);
/* Write [0, span) once, sequentially, with the pattern. */
enum run_step run_fill(struct run *run, const char *test, uint64_t span, enum lg_pattern pattern);
/* A read-only descriptor of the target, for a read test. */
enum run_step run_open_read_fd(struct run *run, const char *test, int *ret_fd);
/* Discard the whole target before test t, which needs it unused; why goes into the
 * phase, without into the warning when it cannot discard; the method ("none" then)
 * into method. */
enum run_step run_discard_target(struct run *run, const struct lg_test_def *t, const char *why,
				 const char *without, char *method, size_t method_len);
/* Whether a selected test is of that kind (any: -1) and writes (any: -1). */
bool run_any_test(const struct lg_run_options *o, int kind, int write);

/* The kinds of test, each in its file. */
enum run_step run_throughput_tests(struct run *run);
enum run_step run_consistency(struct run *run, const struct lg_test_def *t);
enum run_step run_trim(struct run *run, const struct lg_test_def *t);
enum run_step run_saturation(struct run *run, const struct lg_test_def *t);
