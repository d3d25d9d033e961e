/* runner: one `loadgen run` from a parsed command line to a filled result
 * document: the safety checks, opening the target, preconditioning, every
 * selected test (throughput, consistency at each spare-area level, TRIM
 * validation, write saturation) in order, and the document's status.
 *
 * Order of a run: for each data pattern, a sequential fill of the span the read
 * tests use (so that they read data really written in that pattern), then the
 * throughput tests in catalog order; then consistency and TRIM validation,
 * which write incompressible data. Each spare-area level of the consistency
 * test starts with a discard of the whole target, so that its spare area is
 * really unused. Spans larger than the target are clamped
 * (with a warning) and the real span is recorded. Each kind of test is a file
 * of its own beside a small shared core (run.h).
 *
 * Ownership: the caller owns the cli, the observer and the report; the runner
 * fills the report and closes everything it opened. Nothing here prints: the
 * observer's callbacks receive every message.
 */
#pragma once

#include <signal.h>
#include <stddef.h>

#include "cli.h"
#include "job.h"
#include "report_json.h"

enum lg_run_outcome {
	LG_RUN_COMPLETE = 0,      /* document status "complete" */
	LG_RUN_FAILED = 1,        /* document status "failed" */
	LG_RUN_USAGE = 2,         /* bad combination found late (no document) */
	LG_RUN_REFUSED = 3,       /* safety refusal: nothing written, no document */
	LG_RUN_INTERRUPTED = 130, /* document status "incomplete" */
};

struct lg_run_observer {
	void *ctx;
	void (*warning)(void *ctx, const char *message);
	/* A phase starts: test id ("" for preconditioning) and what it does. */
	void (*phase)(void *ctx, const char *test, const char *what);
	void (*progress)(void *ctx, const struct lg_job_progress *progress);
	void (*result)(void *ctx, const struct lg_result *result);
	void (*consistency)(void *ctx, const struct lg_consistency *series);
	void (*trim)(void *ctx, const struct lg_trim *trim);
	void (*saturation)(void *ctx, const struct lg_saturation *saturation);
};

/* Run what cli->run asks. stop is set by the signal handler. The report is
 * filled (status, failure, everything measured); message receives the reason
 * for LG_RUN_FAILED, LG_RUN_USAGE and LG_RUN_REFUSED. */
enum lg_run_outcome lg_run(const struct lg_cli *cli, const struct lg_run_observer *observer,
			   const volatile sig_atomic_t *stop, struct lg_report *report,
			   char *message, size_t message_len);

/* What lg_run() would record as the document's parameters (report->parameters), and
 * nothing else: the target is examined and checked as the run would, but not opened,
 * created or written. LG_RUN_COMPLETE when the run would start; else the outcome the run
 * would have before its first I/O, with message. */
enum lg_run_outcome lg_run_plan(const struct lg_cli *cli, const struct lg_run_observer *observer,
				struct lg_report *report, char *message, size_t message_len);
