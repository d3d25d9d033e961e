#define _GNU_SOURCE
#include "report_json.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void lg_report_init(struct lg_report *report)
{
	memset(report, 0, sizeof(*report));
	report->status = LG_STATUS_COMPLETE;
}

void lg_report_fini(struct lg_report *report)
{
	if (!report)
		return;
	for (size_t i = 0; i < report->nconsistency; i++)
		free(report->consistency[i].iops);
	for (size_t i = 0; i < report->nresults; i++) {
		lg_hist_buckets_free(&report->results[i].latency_buckets);
		for (int d = 0; d < 2; d++)
			lg_hist_buckets_free(&report->results[i].dir[d].latency_buckets);
	}
	free(report->results);
	free(report->consistency);
	free(report->trims);
	for (size_t i = 0; i < report->nsaturation; i++)
		free(report->saturation[i].bytes);
	free(report->saturation);
	report->saturation = NULL;
	report->nsaturation = report->saturation_cap = 0;
	report->results = NULL;
	report->consistency = NULL;
	report->trims = NULL;
	report->nresults = report->nconsistency = report->ntrims = 0;
	report->results_cap = report->consistency_cap = report->trims_cap = 0;
}

static int grow(void **items, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 8;
	void *p = realloc(*items, ncap * size);

	if (!p)
		return -ENOMEM;
	*items = p;
	*cap = ncap;
	return 0;
}

int lg_report_add_result(struct lg_report *report, struct lg_result *result)
{
	int r = grow((void **)&report->results, &report->results_cap, report->nresults,
		     sizeof(*result));

	if (r < 0)
		return r;
	report->results[report->nresults++] = *result;
	result->latency_buckets = (struct lg_hist_buckets){0};
	for (int d = 0; d < 2; d++)
		result->dir[d].latency_buckets = (struct lg_hist_buckets){0};
	return 0;
}

int lg_report_add_consistency(struct lg_report *report, struct lg_consistency *series)
{
	int r = grow((void **)&report->consistency, &report->consistency_cap, report->nconsistency,
		     sizeof(*series));

	if (r < 0)
		return r;
	report->consistency[report->nconsistency++] = *series;
	series->iops = NULL;
	series->len = 0;
	return 0;
}

int lg_report_add_saturation(struct lg_report *report, struct lg_saturation *sat)
{
	int r = grow((void **)&report->saturation, &report->saturation_cap, report->nsaturation,
		     sizeof(*sat));

	if (r < 0)
		return r;
	report->saturation[report->nsaturation++] = *sat;
	sat->bytes = NULL;
	sat->len = 0;
	return 0;
}

int lg_report_add_trim(struct lg_report *report, const struct lg_trim *trim)
{
	int r = grow((void **)&report->trims, &report->trims_cap, report->ntrims, sizeof(*trim));

	if (r < 0)
		return r;
	report->trims[report->ntrims++] = *trim;
	return 0;
}

const char *lg_status_name(enum lg_status status)
{
	switch (status) {
	case LG_STATUS_COMPLETE:
		return "complete";
	case LG_STATUS_INCOMPLETE:
		return "incomplete";
	case LG_STATUS_FAILED:
		return "failed";
	}
	return "failed";
}

static void opt_string(struct lg_json *w, const char *key, const char *value)
{
	if (value && value[0]) {
		lg_json_key(w, key);
		lg_json_string(w, value);
	}
}

static void opt_uint(struct lg_json *w, const char *key, uint64_t value)
{
	if (value) {
		lg_json_key(w, key);
		lg_json_uint(w, value);
	}
}

/* A setting written only when not 0, exactly as given. */
static void opt_number(struct lg_json *w, const char *key, double value)
{
	if (value > 0) {
		lg_json_key(w, key);
		lg_json_number(w, value);
	}
}

/* A flag written only when set. */
static void opt_true(struct lg_json *w, const char *key, bool value)
{
	if (value) {
		lg_json_key(w, key);
		lg_json_bool(w, true);
	}
}

/* Empty buckets a run of the histogram's encoding holds as zeros rather than starting
 * a new run: a zero costs 2 bytes, a new run's key about 10. */
#define HIST_RUN_GAP 4

/* The histogram's buckets as the document writes them (results/schema/README.md,
 * "Latency histograms"): runs of consecutive buckets, each keyed by its first
 * bucket's index, empty buckets inside a run written 0. */
static void write_histogram(struct lg_json *w, const struct lg_hist_buckets *b)
{
	bool pretty = w->pretty;
	char key[16];

	lg_json_begin_object(w);
	lg_json_key(w, "sub_bucket_bits");
	lg_json_uint(w, LG_HIST_SUB_BITS);
	lg_json_key(w, "unit");
	lg_json_string(w, "ns");
	lg_json_key(w, "buckets");
	lg_json_begin_object(w);
	for (size_t i = 0; i < b->n;) {
		snprintf(key, sizeof(key), "%u", b->index[i]);
		lg_json_key(w, key);
		/* One line a run keeps the document readable. */
		lg_json_begin_array(w);
		w->pretty = false;
		lg_json_uint(w, b->count[i]);
		for (i++; i < b->n && b->index[i] - b->index[i - 1] <= HIST_RUN_GAP + 1; i++) {
			for (uint32_t gap = b->index[i - 1] + 1; gap < b->index[i]; gap++)
				lg_json_uint(w, 0);
			lg_json_uint(w, b->count[i]);
		}
		lg_json_end_array(w);
		w->pretty = pretty;
	}
	lg_json_end_object(w);
	lg_json_end_object(w);
}

static void write_latency(struct lg_json *w, const struct lg_latency_summary *l,
			  const struct lg_hist_buckets *buckets)
{
	lg_json_begin_object(w);
	lg_json_key(w, "mean");
	lg_json_double(w, l->mean, 1);
	lg_json_key(w, "stddev");
	lg_json_double(w, l->stddev, 1);
	lg_json_key(w, "min");
	lg_json_uint(w, l->min);
	lg_json_key(w, "max");
	lg_json_uint(w, l->max);
	lg_json_key(w, "percentiles");
	lg_json_begin_object(w);
	for (int i = 0; i < LG_PERCENTILE_COUNT; i++) {
		lg_json_key(w, lg_percentile_names[i]);
		lg_json_uint(w, l->percentiles[i]);
	}
	lg_json_end_object(w);
	if (buckets && buckets->n > 0) {
		lg_json_key(w, "histogram");
		write_histogram(w, buckets);
	}
	lg_json_end_object(w);
}

static void write_rates(struct lg_json *w, double bytes_per_second, double iops)
{
	if (bytes_per_second > 0) {
		lg_json_key(w, "bytes_per_second");
		lg_json_double(w, bytes_per_second, 1);
	}
	if (iops > 0) {
		lg_json_key(w, "iops");
		lg_json_double(w, iops, 3);
	}
}

static void write_latencies(struct lg_json *w, bool has_latency,
			    const struct lg_latency_summary *latency,
			    const struct lg_hist_buckets *buckets, bool has_clat,
			    const struct lg_latency_summary *clat)
{
	if (has_latency) {
		lg_json_key(w, "latency_ns");
		write_latency(w, latency, buckets);
	}
	if (has_clat) {
		lg_json_key(w, "clat_ns");
		write_latency(w, clat, NULL);
	}
}

static void write_direction(struct lg_json *w, const char *key, const struct lg_direction *d)
{
	lg_json_key(w, key);
	lg_json_begin_object(w);
	lg_json_key(w, "io_count");
	lg_json_uint(w, d->io_count);
	lg_json_key(w, "bytes");
	lg_json_uint(w, d->bytes);
	write_rates(w, d->bytes_per_second, d->iops);
	write_latencies(w, d->has_latency, &d->latency, &d->latency_buckets, d->has_clat, &d->clat);
	lg_json_end_object(w);
}

static void write_result(struct lg_json *w, const struct lg_result *r)
{
	lg_json_begin_object(w);
	lg_json_key(w, "test");
	lg_json_string(w, r->test);
	lg_json_key(w, "pattern");
	lg_json_string(w, lg_pattern_name(r->pattern));
	opt_uint(w, "block_size", r->block_size);
	opt_uint(w, "queue_depth", r->queue_depth);
	opt_uint(w, "span_bytes", r->span_bytes);
	opt_uint(w, "duration_ns", r->duration_ns);
	lg_json_key(w, "io_count");
	lg_json_uint(w, r->io_count);
	lg_json_key(w, "bytes");
	lg_json_uint(w, r->bytes);
	write_rates(w, r->bytes_per_second, r->iops);
	if (r->has_iops_spread) {
		lg_json_key(w, "iops_stddev");
		lg_json_double(w, r->iops_stddev, 3);
		lg_json_key(w, "iops_min");
		lg_json_double(w, r->iops_min, 3);
	}
	write_latencies(w, r->has_latency, &r->latency, &r->latency_buckets, r->has_clat, &r->clat);
	opt_uint(w, "rate_iops", r->rate_iops);
	opt_uint(w, "load_percent", r->load_percent);
	opt_uint(w, "jobs", r->jobs);
	opt_uint(w, "repeat", r->repeat);
	if (r->mixed) {
		lg_json_key(w, "rwmixread");
		lg_json_uint(w, r->read_percent);
		write_direction(w, "read", &r->dir[0]);
		write_direction(w, "write", &r->dir[1]);
	}
	opt_true(w, "partial", r->partial);
	lg_json_end_object(w);
}

static void write_consistency(struct lg_json *w, const struct lg_consistency *c)
{
	lg_json_begin_object(w);
	lg_json_key(w, "test");
	lg_json_string(w, c->test);
	if (c->pattern != LG_PATTERN_UNSPECIFIED) {
		lg_json_key(w, "pattern");
		lg_json_string(w, lg_pattern_name(c->pattern));
	}
	lg_json_key(w, "spare_area_percent");
	lg_json_uint(w, c->spare_area_percent);
	opt_uint(w, "span_bytes", c->span_bytes);
	opt_uint(w, "block_size", c->block_size);
	opt_uint(w, "queue_depth", c->queue_depth);
	opt_uint(w, "interval_ns", c->interval_ns);
	opt_string(w, "discard_method", c->discard_method);
	opt_true(w, "partial", c->partial);
	lg_json_key(w, "iops");
	/* One line for the whole series keeps 2,000 points readable. */
	bool pretty = w->pretty;

	lg_json_begin_array(w);
	w->pretty = false;
	for (size_t i = 0; i < c->len; i++)
		lg_json_uint(w, c->iops[i]);
	lg_json_end_array(w);
	w->pretty = pretty;
	lg_json_end_object(w);
}

static void write_saturation(struct lg_json *w, const struct lg_saturation *s)
{
	const struct lg_saturation_summary *m = &s->summary;
	bool pretty = w->pretty;

	lg_json_begin_object(w);
	lg_json_key(w, "test");
	lg_json_string(w, s->test);
	lg_json_key(w, "pattern");
	lg_json_string(w, lg_pattern_name(s->pattern));
	opt_uint(w, "span_bytes", s->span_bytes);
	opt_uint(w, "block_size", s->block_size);
	opt_uint(w, "queue_depth", s->queue_depth);
	opt_uint(w, "interval_ns", s->interval_ns);
	opt_uint(w, "duration_ns", s->duration_ns);
	opt_string(w, "discard_method", s->discard_method);
	opt_true(w, "partial", s->partial);
	lg_json_key(w, "bytes_written");
	lg_json_uint(w, m->bytes);
	if (m->mean_bytes_per_second > 0) {
		lg_json_key(w, "mean_bytes_per_second");
		lg_json_double(w, m->mean_bytes_per_second, 1);
	}
	if (m->initial_bytes_per_second > 0) {
		lg_json_key(w, "initial_bytes_per_second");
		lg_json_double(w, m->initial_bytes_per_second, 1);
	}
	lg_json_key(w, "threshold_fraction");
	lg_json_double(w, LG_SATURATION_THRESHOLD, 3);
	lg_json_key(w, "exhausted");
	lg_json_bool(w, m->exhausted);
	if (m->exhausted) {
		lg_json_key(w, "exhausted_at_s");
		lg_json_double(w, m->exhausted_at_s, 3);
		lg_json_key(w, "bytes_before_exhausted");
		lg_json_uint(w, m->bytes_before);
		lg_json_key(w, "bytes_per_second_before");
		lg_json_double(w, m->bytes_per_second_before, 1);
		lg_json_key(w, "bytes_per_second_after");
		lg_json_double(w, m->bytes_per_second_after, 1);
	}
	if (s->wsat) {
		static const char *const stops[] = {"bytes", "time", "interrupted"};

		opt_uint(w, "target_bytes", s->target_bytes);
		opt_uint(w, "time_cap_ns", s->time_cap_ns);
		lg_json_key(w, "stopped_by");
		lg_json_string(w, stops[s->stopped_by]);
		if (s->halved) {
			lg_json_key(w, "halved_at_s");
			lg_json_double(w, s->halved_at_s, 3);
			lg_json_key(w, "bytes_before_halved");
			lg_json_uint(w, s->bytes_before_halved);
		}
	}
	lg_json_key(w, "bytes_per_interval");
	/* One line for the whole series, as for consistency. */
	lg_json_begin_array(w);
	w->pretty = false;
	for (size_t i = 0; i < s->len; i++)
		lg_json_uint(w, s->bytes[i]);
	lg_json_end_array(w);
	w->pretty = pretty;
	lg_json_end_object(w);
}

static void write_trim(struct lg_json *w, const struct lg_trim *t)
{
	lg_json_begin_object(w);
	lg_json_key(w, "test");
	lg_json_string(w, t->test);
	lg_json_key(w, "pattern");
	lg_json_string(w, lg_pattern_name(t->pattern));
	opt_uint(w, "span_bytes", t->span_bytes);
	if (t->torture_seconds > 0) {
		lg_json_key(w, "torture_seconds");
		lg_json_double(w, t->torture_seconds, 3);
	}
	opt_string(w, "discard_method", t->discard_method);
	lg_json_key(w, "clean_bytes_per_second");
	lg_json_double(w, t->clean_bytes_per_second, 1);
	lg_json_key(w, "after_torture_bytes_per_second");
	lg_json_double(w, t->after_torture_bytes_per_second, 1);
	lg_json_key(w, "after_trim_bytes_per_second");
	lg_json_double(w, t->after_trim_bytes_per_second, 1);
	lg_json_end_object(w);
}

static void write_parameters(struct lg_json *w, const struct lg_parameters *p)
{
	lg_json_begin_object(w);
	if (p->suite_name[0]) {
		lg_json_key(w, "suite");
		lg_json_begin_object(w);
		lg_json_key(w, "name");
		lg_json_string(w, p->suite_name);
		lg_json_key(w, "version");
		lg_json_int(w, p->suite_version);
		lg_json_end_object(w);
	}
	lg_json_key(w, "tests");
	lg_json_begin_array(w);
	for (size_t i = 0; i < p->ntests; i++)
		lg_json_string(w, p->tests[i]);
	lg_json_end_array(w);
	lg_json_key(w, "seed");
	lg_json_uint(w, p->seed);
	opt_string(w, "engine", p->engine);
	lg_json_key(w, "direct");
	lg_json_bool(w, p->direct);
	lg_json_key(w, "duration_scale");
	lg_json_number(w, p->duration_scale > 0 ? p->duration_scale : 1.0);
	lg_json_key(w, "quick");
	lg_json_bool(w, p->quick);
	lg_json_key(w, "patterns");
	lg_json_begin_array(w);
	for (size_t i = 0; i < p->npatterns; i++)
		lg_json_string(w, lg_pattern_name(p->patterns[i]));
	lg_json_end_array(w);
	lg_json_key(w, "compressible_ratio");
	lg_json_double(w, p->compressible_ratio, 3);
	lg_json_key(w, "spare_area_percent");
	lg_json_begin_array(w);
	for (size_t i = 0; i < p->nspare; i++)
		lg_json_uint(w, p->spare_area_percent[i]);
	lg_json_end_array(w);
	opt_uint(w, "target_size_bytes", p->target_size_bytes);
	lg_json_key(w, "ad_hoc");
	lg_json_bool(w, p->ad_hoc);
	opt_uint(w, "jobs", p->jobs);
	opt_uint(w, "repeat", p->repeat);
	opt_string(w, "precondition", p->precondition);
	opt_uint(w, "qd_max", p->qd_max);
	opt_number(w, "round_s", p->round_s);
	opt_uint(w, "rate_iops", p->rate_iops);
	if (p->nloads) {
		lg_json_key(w, "load_percent");
		lg_json_begin_array(w);
		for (size_t i = 0; i < p->nloads; i++)
			lg_json_uint(w, p->load_percent[i]);
		lg_json_end_array(w);
	}
	opt_number(w, "time_s", p->time_s);
	opt_string(w, "rw", p->rw);
	if (p->has_rwmixread) {
		lg_json_key(w, "rwmixread");
		lg_json_uint(w, p->rwmixread);
	}
	opt_uint(w, "block_size", p->block_size);
	opt_uint(w, "queue_depth", p->queue_depth);
	opt_uint(w, "span_bytes", p->span_bytes);
	lg_json_end_object(w);
}

static void write_tool(struct lg_json *w, const struct lg_report *report)
{
	lg_json_key(w, "tool");
	lg_json_begin_object(w);
	lg_json_key(w, "name");
	lg_json_string(w, "loadgen");
	lg_json_key(w, "version");
	lg_json_string(w, report->tool_version);
	opt_string(w, "engine", report->engine);
	opt_string(w, "command_line", report->command_line);
	lg_json_end_object(w);
}

static void write_target(struct lg_json *w, const struct lg_target_info *t)
{
	lg_json_begin_object(w);
	lg_json_key(w, "path");
	lg_json_string(w, t->path[0] ? t->path : "?");
	lg_json_key(w, "kind");
	lg_json_string(w, t->kind == LG_TARGET_BLOCK ? "block" : "file");
	opt_string(w, "vendor", t->vendor);
	opt_string(w, "model", t->model);
	opt_string(w, "serial_hash", t->serial_hash);
	opt_string(w, "firmware", t->firmware);
	opt_string(w, "identified_by", t->identified_by);
	lg_json_key(w, "capacity_bytes");
	lg_json_uint(w, t->capacity_bytes);
	if (t->rotational >= 0) {
		lg_json_key(w, "rotational");
		lg_json_bool(w, t->rotational == 1);
	}
	opt_uint(w, "logical_block_size", t->logical_block_size);
	opt_uint(w, "physical_block_size", t->physical_block_size);
	opt_string(w, "interface", t->interface);
	opt_string(w, "link", t->link);
	lg_json_end_object(w);
}

/* A health figure, written when the device reported it. */
static void figure(struct lg_json *w, const struct lg_health_snapshot *s, unsigned bit,
		   const char *key, uint64_t value)
{
	if (s->present & bit) {
		lg_json_key(w, key);
		lg_json_uint(w, value);
	}
}

static void write_snapshot(struct lg_json *w, const char *taken_at,
			   const struct lg_health_snapshot *s)
{
	lg_json_begin_object(w);
	lg_json_key(w, "taken_at");
	lg_json_string(w, taken_at);
	if (s->present & LG_HEALTH_TEMPERATURE) {
		lg_json_key(w, "temperature_celsius");
		lg_json_int(w, s->temperature_celsius);
	}
	figure(w, s, LG_HEALTH_CRITICAL_WARNING, "critical_warning", s->critical_warning);
	figure(w, s, LG_HEALTH_AVAILABLE_SPARE, "available_spare_percent",
	       s->available_spare_percent);
	figure(w, s, LG_HEALTH_SPARE_THRESHOLD, "available_spare_threshold_percent",
	       s->spare_threshold_percent);
	figure(w, s, LG_HEALTH_PERCENTAGE_USED, "percentage_used", s->percentage_used);
	figure(w, s, LG_HEALTH_DATA_READ, "data_read_bytes", s->data_read_bytes);
	figure(w, s, LG_HEALTH_DATA_WRITTEN, "data_written_bytes", s->data_written_bytes);
	figure(w, s, LG_HEALTH_POWER_ON_HOURS, "power_on_hours", s->power_on_hours);
	figure(w, s, LG_HEALTH_POWER_CYCLES, "power_cycles", s->power_cycles);
	figure(w, s, LG_HEALTH_UNSAFE_SHUTDOWNS, "unsafe_shutdowns", s->unsafe_shutdowns);
	figure(w, s, LG_HEALTH_MEDIA_ERRORS, "media_errors", s->media_errors);
	figure(w, s, LG_HEALTH_REALLOCATED, "reallocated_sectors", s->reallocated_sectors);
	figure(w, s, LG_HEALTH_PENDING, "pending_sectors", s->pending_sectors);
	figure(w, s, LG_HEALTH_LBAS_WRITTEN, "lbas_written", s->lbas_written);
	lg_json_end_object(w);
}

void lg_report_health_json(struct lg_json *w, const struct lg_health *h)
{
	lg_json_begin_object(w);
	lg_json_key(w, "source");
	lg_json_string(w, lg_health_source_name(h->source));
	if (h->source == LG_HEALTH_NONE || h->reason[0]) {
		lg_json_key(w, "reason");
		lg_json_string(w, h->reason[0] ? h->reason : "not read");
	}
	if (h->source != LG_HEALTH_NONE && h->has_before) {
		lg_json_key(w, "before");
		write_snapshot(w, h->before_at, &h->before);
	}
	if (h->source != LG_HEALTH_NONE && h->has_after) {
		lg_json_key(w, "after");
		write_snapshot(w, h->after_at, &h->after);
	}
	lg_json_end_object(w);
}

void lg_report_json(const struct lg_report *report, struct lg_json *w)
{
	const struct lg_drive *d = &report->drive;
	const struct lg_bench *b = &report->bench;

	lg_json_begin_object(w);
	lg_json_key(w, "schema_version");
	lg_json_int(w, LG_SCHEMA_VERSION);
	lg_json_key(w, "status");
	lg_json_string(w, lg_status_name(report->status));
	if (report->status == LG_STATUS_FAILED) {
		lg_json_key(w, "failure");
		lg_json_begin_object(w);
		lg_json_key(w, "message");
		lg_json_string(w, report->failure_message[0] ? report->failure_message : "failed");
		if (report->failure_errno > 0) {
			lg_json_key(w, "errno");
			lg_json_int(w, report->failure_errno);
		}
		opt_string(w, "test", report->failure_test);
		lg_json_end_object(w);
	}
	lg_json_key(w, "source");
	lg_json_begin_object(w);
	lg_json_key(w, "kind");
	lg_json_string(w, "measured");
	lg_json_end_object(w);

	write_tool(w, report);
	lg_json_key(w, "started_at");
	lg_json_string(w, report->started_at);
	lg_json_key(w, "finished_at");
	lg_json_string(w, report->finished_at);

	lg_json_key(w, "drive");
	lg_json_begin_object(w);
	lg_json_key(w, "manufacturer");
	lg_json_string(w, d->manufacturer[0] ? d->manufacturer : "unknown");
	lg_json_key(w, "model");
	lg_json_string(w, d->model[0] ? d->model : "unknown");
	opt_uint(w, "capacity_bytes", d->capacity_bytes);
	opt_string(w, "part_number", d->part_number);
	opt_string(w, "hardware_revision", d->hardware_revision);
	opt_string(w, "slug", d->slug);
	opt_string(w, "firmware", d->firmware);
	opt_string(w, "kind", d->kind);
	opt_string(w, "interface", d->interface);
	lg_json_end_object(w);
	opt_string(w, "drive_state", report->drive_state);

	if (b->name[0] || b->cpu[0] || b->motherboard[0] || b->chipset[0] || b->memory[0] ||
	    b->os[0] || b->storage_driver[0] || b->interface[0]) {
		lg_json_key(w, "bench");
		lg_json_begin_object(w);
		opt_string(w, "name", b->name);
		opt_string(w, "cpu", b->cpu);
		opt_string(w, "motherboard", b->motherboard);
		opt_string(w, "chipset", b->chipset);
		opt_string(w, "memory", b->memory);
		opt_string(w, "os", b->os);
		opt_string(w, "storage_driver", b->storage_driver);
		opt_string(w, "interface", b->interface);
		lg_json_end_object(w);
	}
	if (report->has_host) {
		const struct lg_host *h = &report->host;

		lg_json_key(w, "host");
		lg_json_begin_object(w);
		opt_string(w, "hostname", h->hostname);
		opt_string(w, "os", h->os);
		opt_string(w, "kernel", h->kernel);
		opt_string(w, "cpu", h->cpu);
		opt_uint(w, "cpu_count", h->cpu_count);
		opt_uint(w, "memory_bytes", h->memory_bytes);
		lg_json_end_object(w);
	}
	if (report->has_target) {
		lg_json_key(w, "target");
		write_target(w, &report->target);
	}
	if (report->has_health) {
		lg_json_key(w, "health");
		lg_report_health_json(w, &report->health);
	}
	if (report->has_parameters) {
		lg_json_key(w, "parameters");
		write_parameters(w, &report->parameters);
	}
	lg_json_key(w, "results");
	lg_json_begin_array(w);
	for (size_t i = 0; i < report->nresults; i++)
		write_result(w, &report->results[i]);
	lg_json_end_array(w);
	if (report->nconsistency) {
		lg_json_key(w, "consistency");
		lg_json_begin_array(w);
		for (size_t i = 0; i < report->nconsistency; i++)
			write_consistency(w, &report->consistency[i]);
		lg_json_end_array(w);
	}
	if (report->nsaturation) {
		lg_json_key(w, "saturation");
		lg_json_begin_array(w);
		for (size_t i = 0; i < report->nsaturation; i++)
			write_saturation(w, &report->saturation[i]);
		lg_json_end_array(w);
	}
	if (report->ntrims) {
		lg_json_key(w, "trim");
		lg_json_begin_array(w);
		for (size_t i = 0; i < report->ntrims; i++)
			write_trim(w, &report->trims[i]);
		lg_json_end_array(w);
	}
	lg_json_end_object(w);
}

static int write_all(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

struct lg_output {
	char *path;
	char *tmp; /* NULL once renamed over path */
	int fd;
};

void lg_output_free(struct lg_output *output)
{
	if (!output)
		return;
	if (output->fd >= 0)
		close(output->fd);
	if (output->tmp)
		unlink(output->tmp);
	free(output->tmp);
	free(output->path);
	free(output);
}

int lg_output_open(const char *path, struct lg_output **ret_output)
{
	struct lg_output *out = NULL;
	struct stat st;
	int r;

	if (!path || !path[0] || !ret_output)
		return -EINVAL;
	/* The rename at the end replaces whatever path names: only a regular
	 * file (or nothing) may be there. */
	if (lstat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode))
			return -EEXIST;
	} else if (errno != ENOENT) {
		return -errno;
	}
	out = calloc(1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	out->fd = -1;
	out->path = strdup(path);
	if (!out->path || asprintf(&out->tmp, "%s.tmp.XXXXXX", path) < 0) {
		out->tmp = NULL;
		r = -ENOMEM;
		goto fail;
	}
	out->fd = mkostemp(out->tmp, O_CLOEXEC);
	if (out->fd < 0) {
		r = -errno;
		free(out->tmp);
		out->tmp = NULL;
		goto fail;
	}
	*ret_output = out;
	return 0;
fail:
	lg_output_free(out);
	return r;
}

const char *lg_output_temp_path(const struct lg_output *output)
{
	return output ? output->tmp : NULL;
}

int lg_output_commit(struct lg_output *output, const char *text, size_t len)
{
	char *dir_copy = NULL;
	int dir_fd = -1;
	int r;

	if (!output || output->fd < 0 || !output->tmp)
		return -EINVAL;
	r = write_all(output->fd, text, len);
	if (r < 0)
		goto out;
	if (fchmod(output->fd, 0644) < 0 || fsync(output->fd) < 0) {
		r = -errno;
		goto out;
	}
	r = close(output->fd) < 0 ? -errno : 0;
	output->fd = -1;
	if (r < 0)
		goto out;
	if (rename(output->tmp, output->path) < 0) {
		r = -errno;
		goto out;
	}
	free(output->tmp);
	output->tmp = NULL;
	/* Make the rename itself durable. */
	dir_copy = strdup(output->path);
	if (dir_copy) {
		dir_fd = open(dirname(dir_copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dir_fd >= 0)
			(void)fsync(dir_fd);
	}
	r = 0;
out:
	if (r < 0 && output->tmp) {
		/* Nothing half-written stays: the temporary file goes now. */
		if (output->fd >= 0)
			close(output->fd);
		output->fd = -1;
		unlink(output->tmp);
		free(output->tmp);
		output->tmp = NULL;
	}
	if (dir_fd >= 0)
		close(dir_fd);
	free(dir_copy);
	return r;
}

int lg_write_file_atomic(const char *path, const char *text, size_t len)
{
	struct lg_output *out = NULL;
	int r = lg_output_open(path, &out);

	if (r == 0)
		r = lg_output_commit(out, text, len);
	lg_output_free(out);
	return r;
}

int lg_report_write(const struct lg_report *report, struct lg_output *output)
{
	struct lg_json w;
	size_t len;
	int r;

	lg_json_init(&w, true);
	lg_report_json(report, &w);
	r = lg_json_error(&w);
	if (r == 0) {
		const char *text = lg_json_text(&w, &len);
		char *with_newline = malloc(len + 1);

		if (!with_newline) {
			r = -ENOMEM;
		} else {
			memcpy(with_newline, text, len);
			with_newline[len] = '\n';
			r = lg_output_commit(output, with_newline, len + 1);
			free(with_newline);
		}
	}
	lg_json_fini(&w);
	return r;
}

int lg_report_write_file(const struct lg_report *report, const char *path)
{
	struct lg_output *out = NULL;
	int r = lg_output_open(path, &out);

	if (r == 0)
		r = lg_report_write(report, out);
	lg_output_free(out);
	return r;
}

void lg_report_plan_json(const struct lg_report *report, struct lg_json *w)
{
	lg_json_begin_object(w);
	write_tool(w, report);
	if (report->has_target) {
		lg_json_key(w, "target");
		write_target(w, &report->target);
	}
	lg_json_key(w, "parameters");
	write_parameters(w, &report->parameters);
	lg_json_end_object(w);
}
