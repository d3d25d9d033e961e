#define _GNU_SOURCE
/* loadgen's entry point: parses the command line, runs the command and is the
 * only module that prints (the table on stdout; progress, phases, warnings and
 * errors on stderr). */
#include "lg_config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "engine.h"
#include "health.h"
#include "json.h"
#include "report_json.h"
#include "runner.h"
#include "suite.h"
#include "target.h"
#include "text.h"
#include "upload.h"
#include "util.h"

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_REFUSED = 3,
	EXIT_INTERRUPTED = 130,
};

/* After the first SIGINT or SIGTERM the run stops and writes its document.
 * Signals within this grace period repeat the first (a terminal's Ctrl-C and
 * `timeout -s INT` deliver two at once) and are ignored; a later one means the
 * user wants out now, document or not. */
#define SIGNAL_GRACE_NS (2 * LG_NSEC_PER_SEC)

static volatile sig_atomic_t stop_requested;
static struct timespec first_signal_at; /* only the handler touches it */
/* The result document's temporary file, which a forced exit removes (a copy:
 * the handler must not read memory the main program may free meanwhile; once
 * the document is in place, the name is gone and unlinking it does nothing). */
static char output_temp[4200];
static volatile sig_atomic_t output_temp_set;

static void on_signal(int sig)
{
	static const char forced[] =
		"\nloadgen: signal received again: leaving at once, without the result document\n";
	struct timespec now;
	int saved_errno = errno;

	(void)sig;
	clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe */
	if (!stop_requested) {
		first_signal_at = now;
		stop_requested = 1;
	} else {
		int64_t since = (int64_t)(now.tv_sec - first_signal_at.tv_sec) *
					(int64_t)LG_NSEC_PER_SEC +
				(now.tv_nsec - first_signal_at.tv_nsec);

		if (since >= (int64_t)SIGNAL_GRACE_NS) {
			if (output_temp_set)
				unlink(output_temp);
			(void)!write(STDERR_FILENO, forced, sizeof(forced) - 1);
			_exit(EXIT_INTERRUPTED);
		}
	}
	errno = saved_errno;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time */
	sigaddset(&sa.sa_mask, SIGTERM);
	sa.sa_flags = 0; /* no SA_RESTART: a blocking wait returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

struct ui {
	bool quiet;
	bool live;       /* progress line on stderr */
	bool line_shown; /* a progress line is on screen */
	bool header_done;
	const struct lg_compare_reference *reference; /* --compare's figures; NULL: none */
};

static void clear_progress(struct ui *ui)
{
	if (ui->line_shown) {
		fputs("\r\033[K", stderr);
		ui->line_shown = false;
	}
}

static void ui_warning(void *ctx, const char *message)
{
	struct ui *ui = ctx;

	clear_progress(ui);
	fprintf(stderr, "loadgen: warning: %s\n", message);
}

static void ui_phase(void *ctx, const char *test, const char *what)
{
	struct ui *ui = ctx;

	if (ui->quiet)
		return;
	clear_progress(ui);
	fprintf(stderr, "==> %s%s%s\n", test && test[0] ? test : "", test && test[0] ? ": " : "",
		what);
}

static void format_duration(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / LG_NSEC_PER_SEC;

	if (s >= 3600)
		snprintf(buf, len, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, s / 3600, s / 60 % 60,
			 s % 60);
	else
		snprintf(buf, len, "%" PRIu64 ":%02" PRIu64, s / 60, s % 60);
}

static void ui_progress(void *ctx, const struct lg_job_progress *p)
{
	struct ui *ui = ctx;
	char elapsed[32], remaining[32];

	if (!ui->live)
		return;
	format_duration(p->elapsed_ns, elapsed, sizeof(elapsed));
	format_duration(p->remaining_ns, remaining, sizeof(remaining));
	fprintf(stderr, "\r\033[K%s  %s elapsed, %s left  %.0f IOPS  %.1f MB/s", p->name, elapsed,
		remaining, p->iops_now, p->bytes_per_second_now / 1e6);
	fflush(stderr);
	ui->line_shown = true;
}

static void table_header(struct ui *ui)
{
	if (ui->header_done)
		return;
	ui->header_done = true;
	printf("%-24s %-14s %10s %10s %10s %10s %10s %10s\n", "test", "pattern", "MB/s", "IOPS",
	       "mean us", "p50 us", "p99 us", "max us");
}

/* The result beside the site's figure for its test and pattern, under its row. */
static void print_comparison(const struct lg_compare_reference *ref, const struct lg_result *r)
{
	const struct lg_compare_figure *f = lg_compare_find(ref, r->test,
							    lg_pattern_name(r->pattern));
	char about[256], runs[32] = "";
	const char *unstated;

	printf("  vs %s: ", ref->drive);
	if (!f) {
		printf("not tested\n");
		return;
	}
	if (!f->has_rate || f->bytes_per_second <= 0) {
		printf("this run %.1f MB/s, the site no MB/s (it has only latency)\n",
		       r->bytes_per_second / 1e6);
		return;
	}
	unstated = strcmp(f->pattern, LG_COMPARE_UNSTATED) == 0 ? "data pattern not stated" : "";
	/* How the site's figure was obtained: "loadgen, full length, mean of 3 runs". */
	if (f->runs == 1)
		snprintf(runs, sizeof(runs), "one run");
	else if (f->runs > 1)
		snprintf(runs, sizeof(runs), "mean of %u runs", f->runs);
	snprintf(about, sizeof(about), "%s%s%s%s%s", f->how, f->how[0] && runs[0] ? ", " : "", runs,
		 (f->how[0] || runs[0]) && unstated[0] ? "; " : "", unstated);
	printf("this run %.1f MB/s, the site %.1f MB/s%s%s%s: %+.1f%%\n", r->bytes_per_second / 1e6,
	       f->bytes_per_second / 1e6, about[0] ? " (" : "", about, about[0] ? ")" : "",
	       lg_compare_percent(r->bytes_per_second, f->bytes_per_second));
}

static void ui_result(void *ctx, const struct lg_result *r)
{
	struct ui *ui = ctx;
	char pass[24] = "";

	clear_progress(ui);
	if (ui->quiet)
		return;
	table_header(ui);
	if (r->repeat)
		snprintf(pass, sizeof(pass), "  pass %u", r->repeat);
	printf("%-24s %-14s %10.1f %10.0f %10.1f %10.1f %10.1f %10.1f%s%s\n", r->test,
	       lg_pattern_name(r->pattern), r->bytes_per_second / 1e6, r->iops,
	       r->latency.mean / 1e3, (double)r->latency.percentiles[4] / 1e3,
	       (double)r->latency.percentiles[8] / 1e3, (double)r->latency.max / 1e3, pass,
	       r->partial ? "  (partial: interrupted)" : "");
	if (ui->reference)
		print_comparison(ui->reference, r);
	fflush(stdout);
}

static void ui_consistency(void *ctx, const struct lg_consistency *c)
{
	struct ui *ui = ctx;
	uint64_t sum = 0, min = UINT64_MAX, max = 0, tail_sum = 0;
	size_t tail_from = c->len - c->len / 4, tail_n = 0;

	clear_progress(ui);
	if (ui->quiet || c->len == 0)
		return;
	for (size_t i = 0; i < c->len; i++) {
		sum += c->iops[i];
		if (c->iops[i] < min)
			min = c->iops[i];
		if (c->iops[i] > max)
			max = c->iops[i];
		if (i >= tail_from) {
			tail_sum += c->iops[i];
			tail_n++;
		}
	}
	table_header(ui);
	printf("%-24s spare %2u%%: %zu s, IOPS per second mean %.0f, min %" PRIu64 ", max %" PRIu64
	       ", last quarter mean %.0f%s\n",
	       c->test, c->spare_area_percent, c->len, (double)sum / (double)c->len, min, max,
	       tail_n ? (double)tail_sum / (double)tail_n : 0.0,
	       c->partial ? " (partial: interrupted)" : "");
	fflush(stdout);
}

static void ui_trim(void *ctx, const struct lg_trim *t)
{
	struct ui *ui = ctx;

	clear_progress(ui);
	if (ui->quiet)
		return;
	table_header(ui);
	printf("%-24s 128KB sequential write MB/s: clean %.1f, after torture %.1f, after TRIM %.1f (%s)\n",
	       t->test, t->clean_bytes_per_second / 1e6, t->after_torture_bytes_per_second / 1e6,
	       t->after_trim_bytes_per_second / 1e6, t->discard_method);
	fflush(stdout);
}

static void ui_saturation(void *ctx, const struct lg_saturation *s)
{
	struct ui *ui = ctx;
	const struct lg_saturation_summary *m = &s->summary;

	clear_progress(ui);
	if (ui->quiet)
		return;
	table_header(ui);
	if (s->wsat) {
		static const char *const why[] = {"4x the capacity written", "time cap reached",
						  "interrupted"};
		double round_s = (double)s->interval_ns / 1e9;
		double first = s->len ? (double)s->bytes[0] / s->block_size / round_s : 0;

		printf("%-24s %.1f GB in %.0f s (%s), %zu rounds of %.3g s, first %.0f IOPS",
		       s->test, (double)m->bytes / 1e9, (double)s->duration_ns / 1e9,
		       why[s->stopped_by], s->len, round_s, first);
		if (s->halved)
			printf("; below half of it from %.0f s, after %.1f GB\n", s->halved_at_s,
			       (double)s->bytes_before_halved / 1e9);
		else
			printf("; never below half of it\n");
		fflush(stdout);
		return;
	}
	printf("%-24s %.1f GB in %.0f s, mean %.1f MB/s, initially %.1f MB/s", s->test,
	       (double)m->bytes / 1e9, (double)s->duration_ns / 1e9, m->mean_bytes_per_second / 1e6,
	       m->initial_bytes_per_second / 1e6);
	if (m->initial_bytes_per_second == 0)
		printf("; too short to tell where a cache runs out");
	else if (m->exhausted)
		printf("; cache ran out after %.0f s and %.1f GB: %.1f MB/s before, %.1f MB/s after",
		       m->exhausted_at_s, (double)m->bytes_before / 1e9,
		       m->bytes_per_second_before / 1e6, m->bytes_per_second_after / 1e6);
	else
		printf("; the rate did not fall below %.0f%% of it and stay there",
		       LG_SATURATION_THRESHOLD * 100);
	printf("%s\n", s->partial ? " (partial: interrupted)" : "");
	fflush(stdout);
}

static int print_json(void (*build)(struct lg_json *w, const void *arg), const void *arg)
{
	struct lg_json w;
	int r;

	lg_json_init(&w, true);
	build(&w, arg);
	r = lg_json_error(&w);
	if (r == 0)
		printf("%s\n", lg_json_text(&w, NULL));
	lg_json_fini(&w);
	return r;
}

static void build_catalog(struct lg_json *w, const void *arg)
{
	(void)arg;
	lg_suite_catalog_json(w);
}

static void build_options(struct lg_json *w, const void *arg)
{
	(void)arg;
	lg_cli_options_json(w);
}

/* options --json: the option table; options --man: the man page written from it. */
static int cmd_options(bool json)
{
	if (!json) {
		fputs(lg_cli_man_page(), stdout);
		return EXIT_OK;
	}
	if (print_json(build_options, NULL) < 0) {
		fprintf(stderr, "loadgen: cannot write the options\n");
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

static int cmd_list(bool json)
{
	size_t ntests, nsuites;
	const struct lg_test_def *tests = lg_suite_tests(&ntests);
	const struct lg_suite_def *suites = lg_suite_suites(&nsuites);

	if (json) {
		if (print_json(build_catalog, NULL) < 0) {
			fprintf(stderr, "loadgen: cannot write the catalog\n");
			return EXIT_FAILED;
		}
		return EXIT_OK;
	}
	printf("Suites:\n");
	for (size_t i = 0; i < nsuites; i++) {
		printf("  %s:%d  %s\n   ", suites[i].name, suites[i].version, suites[i].title);
		for (const char *const *id = suites[i].tests; *id; id++)
			printf(" %s", *id);
		printf("\n");
	}
	printf("\nTests:\n");
	printf("  %-26s %-6s %-10s %8s %4s %8s %7s  %s\n", "id", "op", "access", "block", "QD",
	       "span", "time", "name");
	for (size_t i = 0; i < ntests; i++) {
		const struct lg_test_def *t = &tests[i];
		char bs[32], span[32], time[32];

		lg_format_size_id(t->block_size, bs, sizeof(bs));
		if (t->duration_s)
			snprintf(time, sizeof(time), "%us", t->duration_s);
		else
			snprintf(time, sizeof(time), "once"); /* until the span is written once */
		if (t->span_bytes)
			lg_format_size_id(t->span_bytes, span, sizeof(span));
		else
			snprintf(span, sizeof(span), "whole");
		printf("  %-26s %-6s %-10s %8s %4u %8s %7s  %s\n", t->id,
		       t->write ? "write" : "read", t->random ? "random" : "sequential", bs,
		       t->queue_depth, span, time, t->name);
	}
	printf("\nEngines:");
	for (const char *const *n = lg_engine_names(); *n; n++)
		printf(" %s", *n);
	printf(" (default %s)\n", lg_engine_default()->name);
	return EXIT_OK;
}

struct info_view {
	const struct lg_target_info *info;
	const struct lg_target_check *check;
	int check_result;
	const struct lg_health *health;
};

/* Why a target has no identity of its own, or NULL when it has one. */
static const char *no_identity(const struct lg_target_info *t)
{
	if (t->kind == LG_TARGET_FILE)
		return "a file: the disk holding it is not what a run measures alone";
	if (strcmp(t->interface, "virtual") == 0)
		return "a virtual device the kernel makes up (loop, zram, device-mapper...)";
	if (!t->identified_by[0])
		return "the device reports no identity";
	return NULL;
}

static void build_info(struct lg_json *w, const void *arg)
{
	const struct info_view *v = arg;
	const struct lg_target_info *t = v->info;

	lg_json_begin_object(w);
	lg_json_key(w, "path");
	lg_json_string(w, t->path);
	lg_json_key(w, "real_path");
	lg_json_string(w, t->real_path);
	lg_json_key(w, "kind");
	lg_json_string(w, t->kind == LG_TARGET_BLOCK ? "block" : "file");
	lg_json_key(w, "exists");
	lg_json_bool(w, t->exists);
	if (t->kind == LG_TARGET_BLOCK) {
		lg_json_key(w, "devname");
		lg_json_string(w, t->devname);
		lg_json_key(w, "dev");
		char dev[32];

		snprintf(dev, sizeof(dev), "%u:%u", t->dev_major, t->dev_minor);
		lg_json_string(w, dev);
	} else {
		lg_json_key(w, "created_by_loadgen");
		lg_json_bool(w, t->created_by_loadgen);
	}
	lg_json_key(w, "vendor");
	lg_json_string(w, t->vendor);
	lg_json_key(w, "model");
	lg_json_string(w, t->model);
	lg_json_key(w, "serial_hash");
	lg_json_string(w, t->serial_hash);
	lg_json_key(w, "firmware");
	lg_json_string(w, t->firmware);
	lg_json_key(w, "identified_by");
	if (t->identified_by[0])
		lg_json_string(w, t->identified_by);
	else
		lg_json_null(w);
	const char *unidentified = no_identity(t);
	if (unidentified) {
		lg_json_key(w, "no_identity");
		lg_json_string(w, unidentified);
	}
	lg_json_key(w, "capacity_bytes");
	lg_json_uint(w, t->capacity_bytes);
	lg_json_key(w, "rotational");
	if (t->rotational < 0)
		lg_json_null(w);
	else
		lg_json_bool(w, t->rotational == 1);
	lg_json_key(w, "drive_kind");
	if (t->drive_kind[0])
		lg_json_string(w, t->drive_kind);
	else
		lg_json_null(w);
	lg_json_key(w, "interface");
	if (t->interface[0])
		lg_json_string(w, t->interface);
	else
		lg_json_null(w);
	lg_json_key(w, "link");
	if (t->link[0])
		lg_json_string(w, t->link);
	else
		lg_json_null(w);
	lg_json_key(w, "logical_block_size");
	lg_json_uint(w, t->logical_block_size);
	lg_json_key(w, "physical_block_size");
	lg_json_uint(w, t->physical_block_size);
	lg_json_key(w, "supports_discard");
	lg_json_bool(w, t->supports_discard);
	if (t->kind == LG_TARGET_BLOCK) {
		lg_json_key(w, "writable");
		if (v->check_result == 0 || v->check_result == -EPERM)
			lg_json_bool(w, v->check_result == 0);
		else
			lg_json_null(w);
		if (v->check_result == -EPERM) {
			lg_json_key(w, "refusal");
			lg_json_string(w, lg_target_refusal_name(v->check->refusal));
			lg_json_key(w, "refusal_detail");
			lg_json_string(w, v->check->detail);
		}
		lg_json_key(w, "signature");
		lg_json_string(w, v->check->signature);
	}
	lg_json_key(w, "health");
	lg_report_health_json(w, v->health);
	lg_json_end_object(w);
}

static void print_health(const struct lg_health *h)
{
	const struct lg_health_snapshot *s = &h->before;
	char bytes[32];

	if (h->source == LG_HEALTH_NONE) {
		printf("health:              none: %s\n", h->reason);
		return;
	}
	printf("health:              %s\n",
	       h->source == LG_HEALTH_NVME ? "NVMe SMART / Health log" : "ATA SMART attributes");
	if (s->present & LG_HEALTH_TEMPERATURE)
		printf("  temperature:       %d C\n", s->temperature_celsius);
	if (s->present & LG_HEALTH_PERCENTAGE_USED)
		printf("  percentage used:   %u%%\n", s->percentage_used);
	if (s->present & LG_HEALTH_AVAILABLE_SPARE)
		printf("  available spare:   %u%% (warns below %u%%)\n", s->available_spare_percent,
		       s->spare_threshold_percent);
	if (s->present & LG_HEALTH_CRITICAL_WARNING)
		printf("  critical warning:  0x%02x%s\n", s->critical_warning,
		       s->critical_warning ? "" : " (none)");
	if (s->present & LG_HEALTH_DATA_WRITTEN) {
		lg_format_size_human(s->data_written_bytes, bytes, sizeof(bytes));
		printf("  data written:      %" PRIu64 " bytes (%s)\n", s->data_written_bytes,
		       bytes);
	}
	if (s->present & LG_HEALTH_DATA_READ) {
		lg_format_size_human(s->data_read_bytes, bytes, sizeof(bytes));
		printf("  data read:         %" PRIu64 " bytes (%s)\n", s->data_read_bytes, bytes);
	}
	if (s->present & LG_HEALTH_MEDIA_ERRORS)
		printf("  media errors:      %" PRIu64 "\n", s->media_errors);
	if (s->present & LG_HEALTH_REALLOCATED)
		printf("  reallocated:       %" PRIu64 " sectors\n", s->reallocated_sectors);
	if (s->present & LG_HEALTH_PENDING)
		printf("  pending:           %" PRIu64 " sectors\n", s->pending_sectors);
	if (s->present & LG_HEALTH_LBAS_WRITTEN)
		printf("  LBAs written:      %" PRIu64 " (raw, the maker's unit)\n",
		       s->lbas_written);
	if (s->present & LG_HEALTH_POWER_ON_HOURS)
		printf("  power-on hours:    %" PRIu64 "\n", s->power_on_hours);
	if (s->present & LG_HEALTH_POWER_CYCLES)
		printf("  power cycles:      %" PRIu64 "\n", s->power_cycles);
	if (s->present & LG_HEALTH_UNSAFE_SHUTDOWNS)
		printf("  unsafe shutdowns:  %" PRIu64 "\n", s->unsafe_shutdowns);
}

static int cmd_info(const char *path, bool json)
{
	struct lg_target_info info;
	struct lg_target_check check;
	struct lg_health health = {0};
	struct info_view view = {.info = &info,
				 .check = &check,
				 .check_result = 0,
				 .health = &health};
	char cap[32];
	int r;

	r = lg_target_probe(path, &info);
	if (r < 0) {
		fprintf(stderr, "loadgen: %s: %s\n", path,
			r == -ENOTSUP ? "neither a regular file nor a block device" : strerror(-r));
		return r == -ENOTSUP ? EXIT_USAGE : EXIT_FAILED;
	}
	memset(&check, 0, sizeof(check));
	if (info.kind == LG_TARGET_BLOCK) {
		/* As if --destroy-data named this device: what else would refuse it. */
		view.check_result = lg_target_check_writable(&info,
							     info.real_path[0] ? info.real_path
									       : path,
							     false, &check);
	}
	lg_health_snapshot_take(&info, false, &health);
	if (json)
		return print_json(build_info, &view) < 0 ? EXIT_FAILED : EXIT_OK;

	lg_format_size_human(info.capacity_bytes, cap, sizeof(cap));
	printf("path:                %s\n", info.path);
	if (strcmp(info.real_path, info.path) != 0)
		printf("real path:           %s\n", info.real_path);
	printf("kind:                %s%s\n",
	       info.kind == LG_TARGET_BLOCK ? "block device" : "file",
	       info.exists ? "" : " (does not exist yet)");
	if (info.kind == LG_TARGET_BLOCK)
		printf("device:              %s (%u:%u)\n", info.devname, info.dev_major,
		       info.dev_minor);
	else if (info.exists)
		printf("created by loadgen:  %s\n", info.created_by_loadgen ? "yes" : "no");
	const char *unidentified = no_identity(&info);
	printf("identity:            %s\n",
	       !unidentified ? (strcmp(info.identified_by, "nvme-identify") == 0
					? "from the controller's Identify data"
					: "from sysfs")
			     : unidentified);
	printf("vendor:              %s\n", info.vendor[0] ? info.vendor : "(unknown)");
	printf("model:               %s\n", info.model[0] ? info.model : "(unknown)");
	printf("serial hash:         %s\n",
	       info.serial_hash[0] ? info.serial_hash : "(none reported)");
	printf("firmware revision:   %s\n", info.firmware[0] ? info.firmware : "(unknown)");
	printf("capacity:            %" PRIu64 " bytes (%s)\n", info.capacity_bytes, cap);
	printf("rotational:          %s%s\n",
	       info.rotational < 0 ? "unknown"
	       : info.rotational   ? "yes"
				   : "no",
	       info.kind == LG_TARGET_FILE ? " (backing device)" : "");
	printf("drive kind:          %s\n",
	       info.drive_kind[0] ? info.drive_kind : "cannot be told (give --drive kind=...)");
	printf("interface:           %s%s\n", info.interface[0] ? info.interface : "(not told)",
	       info.kind == LG_TARGET_FILE && info.interface[0] ? " (backing device)" : "");
	printf("link:                %s\n",
	       info.link[0] ? info.link : "(not reported by the kernel)");
	printf("logical block size:  %u\n", info.logical_block_size);
	printf("physical block size: %u\n", info.physical_block_size);
	printf("discard:             %s\n", info.supports_discard ? "supported" : "not supported");
	if (info.kind == LG_TARGET_BLOCK) {
		if (view.check_result == 0)
			printf("in use:              no (mounted, holders, swap: none)\n");
		else if (view.check_result == -EPERM)
			printf("in use:              yes: %s: %s\n",
			       lg_target_refusal_name(check.refusal), check.detail);
		else
			printf("in use:              cannot tell: %s\n",
			       strerror(-view.check_result));
		if (check.signature[0])
			printf("signature:           %s\n", check.signature);
	}
	print_health(&health);
	return EXIT_OK;
}

/* ---- upload ------------------------------------------------------------------ */

#define MAX_UPLOAD_BYTES (64u << 20) /* far above what the site takes: it says so itself */

/* The API token into out: the first line of --token-file, else $BENCH_TOKEN. Returns 0,
 * or -1 having said why. */
static int read_token(const struct lg_upload_options *u, char *out, size_t size)
{
	if (u->token_file) {
		FILE *f = fopen(u->token_file, "r");
		if (!f) {
			fprintf(stderr, "loadgen: --token-file %s: %s\n", u->token_file,
				strerror(errno));
			return -1;
		}
		if (!fgets(out, (int)size, f))
			out[0] = '\0';
		fclose(f);
	} else {
		const char *env = getenv("BENCH_TOKEN");
		lg_copy_string(out, size, env ? env : "");
	}
	out[strcspn(out, "\r\n")] = '\0';
	lg_trim(out);
	if (!out[0]) {
		fprintf(stderr,
			"loadgen: no API token: set BENCH_TOKEN or give --token-file FILE%s\n",
			u->token_file ? " (the file is empty)" : "");
		return -1;
	}
	return 0;
}

/* Whether an upload can be made at all: built in, a token. Says why not. */
static int upload_ready(const struct lg_upload_options *u, char *token, size_t size)
{
	if (!lg_upload_available()) {
		fprintf(stderr,
			"loadgen: upload is not built in: this loadgen was built without "
			"libcurl (install libcurl4-openssl-dev and rebuild); upload the document "
			"with curl as README.md shows\n");
		return -1;
	}
	return read_token(u, token, size);
}

/* Before a run: whether the site at u->url accepts the token, by one request. Says which
 * of "refused", "cannot be reached" or "answered otherwise" it is. Returns 0 or -1. */
static int upload_check_token(const struct lg_upload_options *u, const char *token, bool quiet)
{
	struct lg_upload_reply *reply = calloc(1, sizeof(*reply));
	char endpoint[2048] = "";
	int r;

	if (!reply) {
		fprintf(stderr, "loadgen: out of memory\n");
		return -1;
	}
	lg_upload_check_endpoint(u->url, endpoint, sizeof(endpoint));
	r = lg_upload_check_token(u->url, token, reply);
	switch (r) {
	case 0:
		if (!quiet)
			fprintf(stderr, "loadgen: --upload: %s accepts the token (GET %s: %ld)\n",
				u->url, endpoint, reply->status);
		break;
	case -EACCES:
		fprintf(stderr,
			"loadgen: --upload: %s refused the token (GET %s: %ld%s%s); staff make a new "
			"one (make reviewer NAME=...); put it in BENCH_TOKEN or the --token-file\n",
			u->url, endpoint, reply->status, reply->detail[0] ? ": " : "",
			reply->detail);
		break;
	case -EHOSTUNREACH:
		fprintf(stderr, "loadgen: --upload: cannot reach %s (GET %s: %s)\n", u->url,
			endpoint, reply->transport);
		break;
	case -EPROTO:
		fprintf(stderr,
			"loadgen: --upload: %s did not accept the token: GET %s answered %ld%s%s "
			"(a Bench site answers 200)\n",
			u->url, endpoint, reply->status, reply->detail[0] ? ": " : "",
			reply->detail);
		break;
	case -EINVAL:
		fprintf(stderr,
			"loadgen: --upload %s: not an http:// or https:// address, or the token "
			"holds a line break\n",
			u->url);
		break;
	default:
		fprintf(stderr, "loadgen: --upload: cannot check the token: %s\n", strerror(-r));
		break;
	}
	free(reply);
	return r < 0 ? -1 : 0;
}

static void on_upload_retry(void *ctx, const char *what, double wait_s)
{
	const char *path = ctx;
	fprintf(stderr, "loadgen: upload of %s: %s; retrying in %.0f s\n", path, what, wait_s);
}

static int read_document(const char *path, char **ret_text, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int r = 0;
	if (!f)
		return -errno;
	for (;;) {
		if (len == cap) {
			if (cap >= MAX_UPLOAD_BYTES) {
				r = -EFBIG;
				break;
			}
			cap = cap ? cap * 2 : 1 << 16;
			char *grown = realloc(text, cap);
			if (!grown) {
				r = -ENOMEM;
				break;
			}
			text = grown;
		}
		size_t n = fread(text + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f))
				r = -EIO;
			break;
		}
	}
	fclose(f);
	if (r < 0) {
		free(text);
		return r;
	}
	*ret_text = text;
	*ret_len = len;
	return 0;
}

/* What the site warns of beside a stored run (a loadgen older than its suite needs), on
 * stderr as loadgen's own warnings: the run is stored all the same. */
static void print_upload_warnings(const struct lg_upload_reply *reply)
{
	for (size_t i = 0; i < reply->nwarnings; i++)
		fprintf(stderr, "loadgen: the site warns: %s\n", reply->warnings[i]);
	if (reply->more_warnings)
		fprintf(stderr, "loadgen: the site warns of %zu more\n", reply->more_warnings);
}

/* Upload one document and say what became of it. Returns EXIT_OK or EXIT_FAILED. */
static int upload_one(const struct lg_upload_options *u, const char *token, const char *path)
{
	struct lg_upload_reply *reply = calloc(1, sizeof(*reply));
	char *text = NULL;
	size_t len = 0;
	int code = EXIT_FAILED, r;

	if (!reply) {
		fprintf(stderr, "loadgen: out of memory\n");
		return EXIT_FAILED;
	}
	r = read_document(path, &text, &len);
	if (r < 0) {
		fprintf(stderr, "loadgen: cannot read %s: %s\n", path, strerror(-r));
		goto out;
	}
	struct lg_upload_request request = {
		.url = u->url,
		.token = token,
		.body = text,
		.len = len,
		.retry_for_s = u->retry_for_s,
	};
	r = lg_upload_post(&request, on_upload_retry, (void *)path, reply);
	if (r == -EINVAL) {
		fprintf(stderr, "loadgen: --url %s is not an http:// or https:// address\n",
			u->url);
		goto out;
	}
	if (r == -ETIMEDOUT) {
		fprintf(stderr,
			"loadgen: %s was not uploaded: %s after %u attempt%s over %.0f s. The document "
			"is kept; upload it later with: loadgen upload --url %s %s\n",
			path, reply->transport[0] ? reply->transport : "the site kept failing",
			reply->attempts, reply->attempts == 1 ? "" : "s", u->retry_for_s, u->url,
			path);
		if (reply->status)
			fprintf(stderr, "loadgen: the last answer was %ld%s%s\n", reply->status,
				reply->detail[0] ? ": " : "", reply->detail);
		goto out;
	}
	if (r < 0) {
		fprintf(stderr, "loadgen: %s was not uploaded: %s\n", path, strerror(-r));
		goto out;
	}
	if (reply->status == 201 || reply->status == 200) {
		bool before = reply->status == 200 || reply->replayed;
		printf("%s %s: %s%s\n", before ? "already uploaded" : "uploaded", path,
		       reply->page[0] ? reply->page : reply->run_url,
		       strcmp(reply->run_status, "held") == 0 ? " (held for review)" : "");
		print_upload_warnings(reply);
		code = EXIT_OK;
	} else if (reply->status == 400) {
		/* The detail repeats the problems when they are listed. */
		bool listed = reply->nerrors > 0;
		fprintf(stderr, "loadgen: %s was refused (400)%s%s\n", path,
			listed             ? "; the site says:"
			: reply->detail[0] ? ": "
					   : "",
			listed ? "" : reply->detail);
		for (size_t i = 0; i < reply->nerrors; i++)
			fprintf(stderr, "  %s: %s\n",
				reply->errors[i].pointer[0] ? reply->errors[i].pointer
							    : "(document)",
				reply->errors[i].message);
		if (reply->more_errors)
			fprintf(stderr, "  ... and %zu more\n", reply->more_errors);
	} else {
		fprintf(stderr, "loadgen: %s was not uploaded: the site answered %ld%s%s\n", path,
			reply->status, reply->detail[0] ? ": " : "", reply->detail);
	}
out:
	free(text);
	free(reply);
	return code;
}

static int cmd_upload(const struct lg_upload_options *u)
{
	char token[512];
	int code = EXIT_OK;

	if (upload_ready(u, token, sizeof(token)) < 0)
		return EXIT_USAGE;
	for (size_t i = 0; i < u->ndocuments; i++)
		if (upload_one(u, token, u->documents[i]) != EXIT_OK)
			code = EXIT_FAILED;
	explicit_bzero(token, sizeof(token));
	return code;
}

/* Why the result document cannot be written where asked (a usage error). */
static void print_output_error(const char *output, bool given, int err)
{
	const char *opt = given ? "--output " : "the result document ";
	const char *slash = strrchr(output, '/');
	int dir_len = slash ? (slash == output ? 1 : (int)(slash - output)) : 1;
	const char *dir = slash ? output : ".";

	switch (err) {
	case -EISDIR:
		fprintf(stderr, "loadgen: %s%s is a directory; name a file\n", opt, output);
		break;
	case -EEXIST:
		fprintf(stderr,
			"loadgen: %s%s exists and is not a regular file; the document is "
			"written beside it and renamed over it, so name a file\n",
			opt, output);
		break;
	case -ENOENT:
		fprintf(stderr, "loadgen: %s%s: the directory %.*s does not exist\n", opt, output,
			dir_len, dir);
		break;
	default:
		fprintf(stderr, "loadgen: %s%s: cannot create a file in %.*s: %s\n", opt, output,
			dir_len, dir, strerror(-err));
		break;
	}
	fprintf(stderr, "loadgen: nothing was run%s.\n", given ? "" : " (give --output FILE)");
}

/* --compare: the site's figures for the drive whose page url is, into *ref; NULL when
 * there are none, having said once that the run compares with nothing. */
static const struct lg_compare_reference *fetch_reference(const char *url, bool quiet,
							  struct lg_compare_reference *ref)
{
	char why[1024];
	size_t tests = 0;

	if (lg_compare_fetch(url, ref, why, sizeof(why)) < 0) {
		fprintf(stderr,
			"loadgen: --compare: %s; the run goes on and compares with nothing\n", why);
		return NULL;
	}
	for (size_t i = 0; i < ref->count; i++)
		if (i == 0 || strcmp(ref->figures[i].test, ref->figures[i - 1].test) != 0)
			tests++;
	if (!quiet)
		fprintf(stderr,
			"loadgen: comparing with %s (%s/drives/%s/): %zu figure%s in %zu test%s\n",
			ref->drive, ref->site, ref->slug, ref->count, ref->count == 1 ? "" : "s",
			tests, tests == 1 ? "" : "s");
	return ref;
}

static void build_plan(struct lg_json *w, const void *arg)
{
	lg_report_plan_json(arg, w);
}

/* run --plan: what the run would record as its tool, target and parameters, on stdout;
 * no I/O to the target, no document. */
static int cmd_plan(const struct lg_cli *cli, struct lg_report *report,
		    const struct lg_run_observer *obs)
{
	char message[1024];
	enum lg_run_outcome outcome = lg_run_plan(cli, obs, report, message, sizeof(message));
	int code = EXIT_OK;

	if (outcome != LG_RUN_COMPLETE) {
		fprintf(stderr, "loadgen: %s%s\n", outcome == LG_RUN_FAILED ? "error: " : "",
			message);
		code = outcome == LG_RUN_REFUSED ? EXIT_REFUSED
		       : outcome == LG_RUN_USAGE ? EXIT_USAGE
						 : EXIT_FAILED;
	} else if (print_json(build_plan, report) < 0) {
		fprintf(stderr, "loadgen: cannot write the plan\n");
		code = EXIT_FAILED;
	}
	lg_report_fini(report);
	free(report);
	return code;
}

static int cmd_run(const struct lg_cli *cli)
{
	const struct lg_run_options *o = &cli->run;
	const struct lg_upload_options *upload = &cli->upload;
	struct lg_report *report = malloc(sizeof(*report));
	struct ui ui = {
		.quiet = o->quiet,
		.live = !o->quiet && isatty(STDERR_FILENO),
	};
	struct lg_run_observer obs = {
		.ctx = &ui,
		.warning = ui_warning,
		.phase = ui_phase,
		.progress = ui_progress,
		.result = ui_result,
		.consistency = ui_consistency,
		.trim = ui_trim,
		.saturation = ui_saturation,
	};
	char message[1024];
	char token[512] = "";
	char default_output[64];
	const char *output = o->output;
	struct lg_output *out = NULL;
	struct lg_compare_reference reference = {0};
	enum lg_run_outcome outcome;
	int code, r;

	if (!report) {
		fprintf(stderr, "loadgen: out of memory\n");
		return EXIT_FAILED;
	}
	lg_report_init(report);
	if (o->plan)
		return cmd_plan(cli, report, &obs);
	/* An upload that cannot be made is found before the run, not after it: before any I/O
	 * to the target, the site is asked once whether it accepts the token. */
	if (upload->url && (upload_ready(upload, token, sizeof(token)) < 0 ||
			    upload_check_token(upload, token, o->quiet) < 0)) {
		fprintf(stderr, "loadgen: nothing was run.\n");
		code = EXIT_USAGE;
		goto out;
	}
	if (!output) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(default_output, sizeof(default_output), "loadgen-%Y%m%d-%H%M%S.json", &tm);
		output = default_output;
	}
	/* Before any I/O: a run whose document cannot be written is not started. */
	r = lg_output_open(output, &out);
	if (r < 0) {
		print_output_error(output, o->output != NULL, r);
		code = EXIT_USAGE;
		goto out;
	}
	snprintf(output_temp, sizeof(output_temp), "%s", lg_output_temp_path(out));
	output_temp_set = 1;
	install_signals();
	if (o->compare_url)
		ui.reference = fetch_reference(o->compare_url, o->quiet, &reference);
	outcome = lg_run(cli, &obs, &stop_requested, report, message, sizeof(message));
	clear_progress(&ui);

	switch (outcome) {
	case LG_RUN_USAGE:
		fprintf(stderr, "loadgen: %s\n", message);
		code = EXIT_USAGE;
		goto out;
	case LG_RUN_REFUSED:
		fprintf(stderr, "loadgen: %s\nloadgen: nothing was written.\n", message);
		code = EXIT_REFUSED;
		goto out;
	case LG_RUN_FAILED:
		fprintf(stderr, "loadgen: error: %s\n", message);
		code = EXIT_FAILED;
		break;
	case LG_RUN_INTERRUPTED:
		fprintf(stderr, "loadgen: %s\n", message);
		code = EXIT_INTERRUPTED;
		break;
	case LG_RUN_COMPLETE:
	default:
		code = EXIT_OK;
		break;
	}
	r = lg_report_write(report, out);
	if (r < 0) {
		fprintf(stderr, "loadgen: cannot write the result document %s: %s\n", output,
			strerror(-r));
		code = code == EXIT_OK ? EXIT_FAILED : code;
		goto out;
	}
	if (!o->quiet)
		fprintf(stderr, "loadgen: result document (%s): %s\n",
			lg_status_name(report->status), output);
	/* The document is on disk first: an upload that fails loses nothing. A failed or
	 * interrupted run is not uploaded (the site publishes complete runs). */
	if (upload->url) {
		if (report->status == LG_STATUS_COMPLETE) {
			if (upload_one(upload, token, output) != EXIT_OK && code == EXIT_OK)
				code = EXIT_FAILED;
		} else {
			fprintf(stderr,
				"loadgen: the run is %s: not uploaded (loadgen upload sends it if it should be)\n",
				lg_status_name(report->status));
		}
	}
out:
	explicit_bzero(token, sizeof(token));
	lg_compare_fini(&reference);
	lg_output_free(out);
	output_temp_set = 0;
	lg_report_fini(report);
	free(report);
	return code;
}

int main(int argc, char **argv)
{
	struct lg_cli *cli = malloc(sizeof(*cli));
	char err[512];
	int code;

	if (!cli) {
		fprintf(stderr, "loadgen: out of memory\n");
		return EXIT_FAILED;
	}
	if (lg_cli_parse(argc, argv, cli, err, sizeof(err)) < 0) {
		fprintf(stderr, "loadgen: %s\n", err);
		free(cli);
		return EXIT_USAGE;
	}
	switch (cli->command) {
	case LG_CMD_HELP:
		fputs(lg_cli_usage(), stdout);
		code = EXIT_OK;
		break;
	case LG_CMD_VERSION:
		printf("loadgen %s\n", LG_VERSION);
		code = EXIT_OK;
		break;
	case LG_CMD_LIST:
		code = cmd_list(cli->json);
		break;
	case LG_CMD_INFO:
		code = cmd_info(cli->info_target, cli->json);
		break;
	case LG_CMD_UPLOAD:
		code = cmd_upload(&cli->upload);
		break;
	case LG_CMD_OPTIONS:
		code = cmd_options(cli->json);
		break;
	case LG_CMD_RUN:
	default:
		code = cmd_run(cli);
		break;
	}
	free(cli);
	return code;
}
