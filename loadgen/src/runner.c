/* One `loadgen run` (runner.h): the document's header, the target examined, checked
 * and opened, then each kind of test in its order (run.h), and the document's status. */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
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
#include "run.h"
#include "target.h"
#include "util.h"

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

	bool model_reported, by_slug;

	*d = run->o->drive;
	/* --drive slug=... names the catalog drive alone, and the site holds every other name
	 * the block gives to it: the device's own vendor, model and exact capacity ("ATA",
	 * 240057409536 bytes for a catalog's "240GB") stay in the target block, not here. */
	by_slug = d->slug[0] != '\0';
	/* What --drive gives wins; the rest is what the device says of itself. */
	if (!by_slug && !d->manufacturer[0] && ti->vendor[0])
		snprintf(d->manufacturer, sizeof(d->manufacturer), "%s", ti->vendor);
	model_reported = !by_slug && !d->model[0] && ti->model[0];
	if (model_reported)
		snprintf(d->model, sizeof(d->model), "%s", ti->model);
	if (!d->firmware[0] && ti->firmware[0])
		snprintf(d->firmware, sizeof(d->firmware), "%s", ti->firmware);
	if (ti->kind == LG_TARGET_BLOCK && !by_slug) {
		if (!d->capacity_bytes)
			d->capacity_bytes = ti->capacity_bytes;
	}
	/* --drive kind=... wins; else what the target tells (drivekind.h), else nothing. */
	if (!d->kind[0] && ti->drive_kind[0])
		snprintf(d->kind, sizeof(d->kind), "%s", ti->drive_kind);
	if (by_slug)
		return;
	if (!d->manufacturer[0] && !d->model[0])
		run_warn(run, "the drive is not named: its manufacturer and model are recorded as "
			      "\"unknown\" (name it with --drive manufacturer=...,model=...)");
	else if (!d->manufacturer[0])
		run_warn(run,
			 "the drive's manufacturer is not given: its manufacturer is recorded as "
			 "\"unknown\", its model as \"%s\"%s (give --drive manufacturer=...)",
			 d->model, model_reported ? ", as the target reports it" : "");
	else if (!d->model[0])
		run_warn(run,
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
	p->round_s = o->round_s;
	p->time_s = o->time_s;
	p->rate_iops = o->rate_iops;
	for (size_t i = 0; i < o->nloads; i++)
		p->load_percent[p->nloads++] = o->load_percent[i];
	if (!o->ad_hoc) {
		p->qd_max = o->qd_max;
		return;
	}
	snprintf(p->rw, sizeof(p->rw), "%s", o->rw);
	p->has_rwmixread = o->adhoc.mixed;
	p->rwmixread = o->adhoc.read_percent;
	p->block_size = o->adhoc.block_size;
	p->queue_depth = o->adhoc.queue_depth;
	p->span_bytes = o->adhoc.span_bytes;
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

/* Decide whether the run may write to the target (nothing opened yet). */
static enum lg_run_outcome check_target(struct run *run, bool any_write, char *message,
					size_t message_len)
{
	const struct lg_run_options *o = run->o;
	struct lg_target_check check;
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
		run_warn(run,
			 "%s may not be written (%s: %s): read tests run read-only on the data "
			 "already there, without preconditioning (pattern \"unspecified\")",
			 o->target, lg_target_refusal_name(check.refusal), check.detail);
		run->writable = false;
	} else if (r < 0) {
		run_failed(run, NULL, -r, "cannot check whether %s may be written: %s", o->target,
			   strerror(-r));
		return LG_RUN_FAILED;
	} else {
		run->writable = true;
	}
	if (check.signature[0])
		run_warn(run, "%s holds %s %s; its data will be %s", o->target,
			 article(check.signature), check.signature,
			 run->writable ? "destroyed" : "read");
	run->created = run->writable && run->info.kind == LG_TARGET_FILE && !run->info.exists;
	return LG_RUN_COMPLETE;
}

/* The target's usable bytes from its size, which a file's open may have grown. */
static enum lg_run_outcome set_whole(struct run *run, uint64_t size)
{
	uint64_t align = run->info.logical_block_size > 4096 ? run->info.logical_block_size : 4096;

	if (run->info.kind == LG_TARGET_FILE && size > run->info.capacity_bytes)
		run->info.capacity_bytes = size;
	run->whole = run_align_down(run->info.capacity_bytes, align);
	if (run->whole == 0) {
		run_failed(run, NULL, 0, "%s is empty", run->o->target);
		return LG_RUN_FAILED;
	}
	return LG_RUN_COMPLETE;
}

/* Open the target as check_target() decided: read-write, or read-only to see that it can be. */
static enum lg_run_outcome open_target(struct run *run)
{
	const struct lg_run_options *o = run->o;
	uint64_t size = 0;
	int r;

	if (run->writable) {
		int flags = LG_OPEN_WRITE | (run->direct ? LG_OPEN_DIRECT : 0) |
			    (run->info.kind == LG_TARGET_BLOCK ? LG_OPEN_EXCL : 0);

		r = lg_target_open(&run->info, flags, o->size_given ? o->size : 0, &run->wfd);
	} else {
		int fd = -1;

		r = lg_target_open(&run->info, run->direct ? LG_OPEN_DIRECT : 0, 0, &fd);
		if (r == 0)
			close(fd);
	}
	if (r == -EINVAL && run->direct) {
		run_failed(run, NULL, EINVAL,
			   "%s cannot do direct I/O (O_DIRECT); run again with "
			   "--buffered to measure through the page cache (recorded as direct=false)",
			   o->target);
		return LG_RUN_FAILED;
	}
	if (r < 0) {
		run_failed(run, NULL, -r, "cannot open %s: %s", o->target, strerror(-r));
		return LG_RUN_FAILED;
	}
	if (run->info.kind == LG_TARGET_FILE && run->wfd >= 0) {
		struct stat st;

		if (fstat(run->wfd, &st) == 0)
			size = (uint64_t)st.st_size;
	}
	return set_whole(run, size);
}

/* What the parameters record once the target is known: no pattern for a run that may
 * not write; preconditioning for a file the run creates, which is filled whatever
 * --precondition says (holes are not a measurement) when a throughput test runs. */
static void target_parameters(struct run *run)
{
	struct lg_parameters *p = &run->rep->parameters;

	if (!run->writable)
		p->npatterns = 0;
	if (run->o->precondition_none && run->created &&
	    run_any_test(run->o, LG_KIND_THROUGHPUT, -1)) {
		run_warn(run,
			 "--precondition none: %s was just created and holds no data to read; it "
			 "is filled anyway (recorded as precondition \"fill\")",
			 run->o->target);
		snprintf(p->precondition, sizeof(p->precondition), "fill");
	}
}

static enum lg_run_outcome finish(struct run *run, enum run_step s, char *message,
				  size_t message_len)
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
		 o->drive_state ? o->drive_state : "unknown");
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
		run_failed(run, NULL, -r, "cannot examine %s: %s", o->target, strerror(-r));
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

/* The long tests, which run after the throughput tests, one after another in the
 * order selected: each kind with its file's test. */
static const struct {
	enum lg_test_kind kind;
	enum run_step (*test)(struct run *run, const struct lg_test_def *t);
} long_kinds[] = {
	{LG_KIND_CONSISTENCY, run_consistency},
	{LG_KIND_TRIM, run_trim},
	{LG_KIND_SATURATION, run_saturation},
};

static enum run_step long_tests(struct run *run)
{
	enum run_step s = STEP_OK;

	for (size_t i = 0; i < run->o->ntests && s == STEP_OK; i++)
		for (size_t k = 0; k < sizeof(long_kinds) / sizeof(long_kinds[0]); k++)
			if (run->o->tests[i]->kind == long_kinds[k].kind)
				s = long_kinds[k].test(run, run->o->tests[i]);
	return s;
}

/* Make what was written durable and close the target. */
static enum run_step close_target(struct run *run, enum run_step s)
{
	if (run->wfd < 0)
		return s;
	if (fsync(run->wfd) < 0 && s == STEP_OK && errno != EINVAL)
		s = run_failed(run, NULL, errno, "fsync of %s failed: %s", run->o->target,
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

/* What a run and its plan do alike before any I/O: the report's header, the target
 * examined, the drive named, the engine asked for there, and whether the run may write. */
static enum lg_run_outcome begin(struct run *run, const struct lg_cli *cli, char *message,
				 size_t message_len)
{
	enum lg_run_outcome outcome;
	int r;

	message[0] = '\0';
	start_report(run, cli);
	outcome = examine_target(run, message, message_len);
	if (outcome != LG_RUN_COMPLETE)
		return outcome;
	fill_drive(run);
	if (run->o->engine && (r = run->engine->probe()) < 0) {
		run_failed(run, NULL, -r,
			   "the %s engine is not available on this kernel: %s (try --engine psync)",
			   run->engine->name, strerror(-r));
		return LG_RUN_FAILED;
	}
	return check_target(run, run_any_test(run->o, -1, 1), message, message_len);
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
	enum run_step s = STEP_OK;

	outcome = begin(&run, cli, message, message_len);
	if (outcome == LG_RUN_COMPLETE)
		outcome = open_target(&run);
	if (outcome == LG_RUN_USAGE || outcome == LG_RUN_REFUSED)
		return outcome;
	if (outcome == LG_RUN_FAILED)
		return finish(&run, STEP_FAILED, message, message_len);
	target_parameters(&run);
	if (run.o->jobs > 1 &&
	    (run_any_test(run.o, LG_KIND_CONSISTENCY, -1) ||
	     run_any_test(run.o, LG_KIND_TRIM, -1) || run_any_test(run.o, LG_KIND_SATURATION, -1)))
		run_warn(&run,
			 "--jobs %u applies to the throughput tests; consistency, TRIM validation and "
			 "write saturation run one job, as their method says",
			 run.o->jobs);

	/* The drive's own account of its health, before the first I/O and after the last. */
	report->has_health = true;
	lg_health_snapshot_take(&run.info, false, &report->health);
	if (histograms_new(&run) < 0)
		s = run_failed(&run, NULL, ENOMEM, "out of memory");
	if (s == STEP_OK)
		s = run_throughput_tests(&run);
	if (s == STEP_OK)
		s = long_tests(&run);
	s = close_target(&run, s);
	lg_health_snapshot_take(&run.info, true, &report->health);
	histograms_free(&run);
	return finish(&run, s, message, message_len);
}

enum lg_run_outcome lg_run_plan(const struct lg_cli *cli, const struct lg_run_observer *observer,
				struct lg_report *report, char *message, size_t message_len)
{
	static const volatile sig_atomic_t never = 0;
	struct run run = {
		.o = &cli->run,
		.obs = observer,
		.stop = &never,
		.rep = report,
		.wfd = -1,
		.direct = !cli->run.buffered,
	};
	enum lg_run_outcome outcome = begin(&run, cli, message, message_len);

	/* A file the run opens for writing grows to --size. */
	if (outcome == LG_RUN_COMPLETE)
		outcome = set_whole(&run, run.writable && cli->run.size_given ? cli->run.size : 0);
	if (outcome == LG_RUN_FAILED)
		snprintf(message, message_len, "%s", report->failure_message);
	if (outcome != LG_RUN_COMPLETE)
		return outcome;
	target_parameters(&run);
	report->target = run.info;
	report->has_target = true;
	report->parameters.target_size_bytes = run.info.capacity_bytes;
	return LG_RUN_COMPLETE;
}
