#define _GNU_SOURCE
#include "suite.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KIB 1024u
#define MIB (1024u * KIB)
#define GIB (UINT64_C(1024) * MIB)

static const char *const throughput_metrics[] = {"bytes_per_second", "iops", "latency", NULL};
static const char *const consistency_metrics[] = {"iops_per_second", NULL};
static const char *const saturation_metrics[] = {
	"bytes_per_second_series",
	"bytes_before_exhausted",
	"bytes_per_second_before",
	"bytes_per_second_after",
	NULL,
};
static const char *const wsat_metrics[] = {
	"iops_per_round",
	"halved_at_s",
	"bytes_before_halved",
	NULL,
};
static const char *const trim_metrics[] = {
	"clean_bytes_per_second",
	"after_torture_bytes_per_second",
	"after_trim_bytes_per_second",
	NULL,
};

/* Each depth of a queue-depth sweep: SNIA PTS's IOPS test and its demand-intensity
 * curve (docs/methodology.md), one short fixed-duration point per depth after the
 * run's one preconditioning. */
#define SWEEP_POINT_S 60
#define SWEEP(op, is_write, span, span_id, depth)                                               \
	{                                                                                       \
		.id = "rand" op "-4k-qd" #depth span_id "-sweep",                               \
		.name = "4KB random " op " QD" #depth " (queue-depth sweep)",                   \
		.family = "rand" op "-4k" span_id "-sweep", .kind = LG_KIND_THROUGHPUT,         \
		.write = is_write, .random = true, .block_size = 4 * KIB, .queue_depth = depth, \
		.span_bytes = span, .duration_s = SWEEP_POINT_S, .metrics = throughput_metrics, \
		.unit = "bytes/s", .higher_is_better = true,                                    \
	}
#define READ_SWEEP(depth) SWEEP("read", false, 0, "", depth)
#define WRITE_SWEEP(depth) SWEEP("write", true, 8 * GIB, "-8g", depth)

/* SNIA PTS's latency test (LAT): one I/O outstanding (QD1, one worker), random over the
 * whole target, at each block size and read/write mix, each a 60 s point after the run's
 * one preconditioning; its figures are each result's mean and maximum latency. */
#define LAT_POINT_S 60
#define LAT(op_id, op_name, is_write, is_mixed, percent, bs, bs_id, bs_name)                      \
	{                                                                                         \
		.id = "rand" op_id "-" bs_id "-qd1-lat",                                          \
		.name = bs_name " random " op_name " QD1 (latency test)",                         \
		.kind = LG_KIND_THROUGHPUT, .write = is_write, .random = true, .mixed = is_mixed, \
		.read_percent = percent, .block_size = bs, .queue_depth = 1, .span_bytes = 0,     \
		.duration_s = LAT_POINT_S, .metrics = throughput_metrics, .unit = "bytes/s",      \
		.higher_is_better = true,                                                         \
	}
#define LAT_SIZE(bs, bs_id, bs_name)                                                     \
	LAT("read", "read", false, false, 0, bs, bs_id, bs_name),                        \
		LAT("rw65", "65% read / 35% write", true, true, 65, bs, bs_id, bs_name), \
		LAT("write", "write", true, false, 0, bs, bs_id, bs_name)

/* The response time against throughput (SPEC SFS's curve; issue 46): a 4KB random test at
 * QD32 run unpaced, its maximum, then paced at each fraction of the IOPS it reached
 * (open loop, latency from each I/O's due time), a 60 s point each. */
#define CURVE_POINT_S 60
#define CURVE_TEST(op_id, op_name, is_write, is_mixed, percent, span, span_id, suffix, what, load) \
	{                                                                                          \
		.id = "rand" op_id "-4k-qd32" span_id "-curve" suffix,                             \
		.name = "4KB random " op_name " QD32 " what " (response-time curve)",              \
		.curve = "rand" op_id "-4k-qd32" span_id "-curve", .load_percent = load,           \
		.kind = LG_KIND_THROUGHPUT, .write = is_write, .random = true, .mixed = is_mixed,  \
		.read_percent = percent, .block_size = 4 * KIB, .queue_depth = 32,                 \
		.span_bytes = span, .duration_s = CURVE_POINT_S, .metrics = throughput_metrics,    \
		.unit = "bytes/s", .higher_is_better = true,                                       \
	}
#define CURVE(op_id, op_name, is_write, is_mixed, percent, span, span_id)                          \
	CURVE_TEST(op_id, op_name, is_write, is_mixed, percent, span, span_id, "",                 \
		   "unpaced, its maximum", 0),                                                     \
		CURVE_TEST(op_id, op_name, is_write, is_mixed, percent, span, span_id, "-load10",  \
			   "at 10% of its maximum", 10),                                           \
		CURVE_TEST(op_id, op_name, is_write, is_mixed, percent, span, span_id, "-load25",  \
			   "at 25% of its maximum", 25),                                           \
		CURVE_TEST(op_id, op_name, is_write, is_mixed, percent, span, span_id, "-load50",  \
			   "at 50% of its maximum", 50),                                           \
		CURVE_TEST(op_id, op_name, is_write, is_mixed, percent, span, span_id, "-load75",  \
			   "at 75% of its maximum", 75),                                           \
		CURVE_TEST(op_id, op_name, is_write, is_mixed, percent, span, span_id, "-load90",  \
			   "at 90% of its maximum", 90),                                           \
		CURVE_TEST(op_id, op_name, is_write, is_mixed, percent, span, span_id, "-load100", \
			   "at 100% of its maximum", 100)

static const struct lg_test_def tests[] = {
	{
		.id = "randread-4k-qd3",
		.name = "4KB random read",
		.kind = LG_KIND_THROUGHPUT,
		.write = false,
		.random = true,
		.block_size = 4 * KIB,
		.queue_depth = 3,
		.span_bytes = 0,
		.duration_s = 180,
		.metrics = throughput_metrics,
		.unit = "bytes/s",
		.higher_is_better = true,
	},
	{
		.id = "randwrite-4k-qd3-8g",
		.name = "4KB random write, 8GB LBA span",
		.kind = LG_KIND_THROUGHPUT,
		.write = true,
		.random = true,
		.block_size = 4 * KIB,
		.queue_depth = 3,
		.span_bytes = 8 * GIB,
		.duration_s = 180,
		.metrics = throughput_metrics,
		.unit = "bytes/s",
		.higher_is_better = true,
	},
	{
		.id = "randwrite-4k-qd32-8g",
		.name = "4KB random write QD32, 8GB LBA span",
		.kind = LG_KIND_THROUGHPUT,
		.write = true,
		.random = true,
		.block_size = 4 * KIB,
		.queue_depth = 32,
		.span_bytes = 8 * GIB,
		.duration_s = 180,
		.metrics = throughput_metrics,
		.unit = "bytes/s",
		.higher_is_better = true,
	},
	{
		.id = "seqread-128k-qd1",
		.name = "128KB sequential read",
		.kind = LG_KIND_THROUGHPUT,
		.write = false,
		.random = false,
		.block_size = 128 * KIB,
		.queue_depth = 1,
		.span_bytes = 0,
		.duration_s = 60,
		.metrics = throughput_metrics,
		.unit = "bytes/s",
		.higher_is_better = true,
	},
	{
		.id = "seqwrite-128k-qd1",
		.name = "128KB sequential write",
		.kind = LG_KIND_THROUGHPUT,
		.write = true,
		.random = false,
		.block_size = 128 * KIB,
		.queue_depth = 1,
		.span_bytes = 0,
		.duration_s = 60,
		.metrics = throughput_metrics,
		.unit = "bytes/s",
		.higher_is_better = true,
	},
	{
		.id = "seqread-2m-qd1",
		.name = "2MB sequential read",
		.kind = LG_KIND_THROUGHPUT,
		.write = false,
		.random = false,
		.block_size = 2 * MIB,
		.queue_depth = 1,
		.span_bytes = 0,
		.duration_s = 60,
		.metrics = throughput_metrics,
		.unit = "bytes/s",
		.higher_is_better = true,
	},
	{
		.id = "seqwrite-2m-qd1",
		.name = "2MB sequential write",
		.kind = LG_KIND_THROUGHPUT,
		.write = true,
		.random = false,
		.block_size = 2 * MIB,
		.queue_depth = 1,
		.span_bytes = 0,
		.duration_s = 60,
		.metrics = throughput_metrics,
		.unit = "bytes/s",
		.higher_is_better = true,
	},
	{
		.id = "consistency-4k-qd32",
		.name = "Performance consistency (4KB random write QD32, incompressible)",
		.kind = LG_KIND_CONSISTENCY,
		.write = true,
		.random = true,
		.block_size = 4 * KIB,
		.queue_depth = 32,
		.span_bytes = 0,
		.duration_s = 2000,
		.metrics = consistency_metrics,
		.unit = "IOPS",
		.higher_is_better = true,
	},
	{
		.id = "trim-validation",
		.name = "TRIM validation (128KB sequential write: clean, after torture, after TRIM)",
		.kind = LG_KIND_TRIM,
		.write = true,
		.random = false,
		.block_size = 128 * KIB,
		.queue_depth = 1,
		.span_bytes = 0,
		.duration_s = 3600,
		.metrics = trim_metrics,
		.unit = "bytes/s",
		.higher_is_better = true,
	},
	{
		.id = "write-saturation-128k-qd32",
		.name = "Write saturation (128KB sequential write QD32 of the whole drive, "
			"incompressible)",
		.kind = LG_KIND_SATURATION,
		.write = true,
		.random = false,
		.block_size = 128 * KIB,
		.queue_depth = 32,
		.span_bytes = 0,
		.duration_s = 0, /* as long as writing the whole span once takes */
		.metrics = saturation_metrics,
		.unit = "bytes/s",
		.higher_is_better = true,
	},
	{
		/* SNIA PTS's write saturation (WSAT): random, from a purged state, until
		 * four times the target is written or the time cap (duration_s) ends. */
		.id = "wsat-4k-qd32",
		.name = "Write saturation (4KB random write QD32 of the whole drive from purged, "
			"to 4x its capacity, incompressible)",
		.kind = LG_KIND_SATURATION,
		.write = true,
		.random = true,
		.block_size = 4 * KIB,
		.queue_depth = 32,
		.span_bytes = 0,
		.duration_s =
			86400, /* the time cap; four times the capacity usually ends it first */
		.metrics = wsat_metrics,
		.unit = "IOPS",
		.higher_is_better = true,
	},
	READ_SWEEP(1),
	READ_SWEEP(2),
	READ_SWEEP(4),
	READ_SWEEP(8),
	READ_SWEEP(16),
	READ_SWEEP(32),
	READ_SWEEP(64),
	READ_SWEEP(128),
	WRITE_SWEEP(1),
	WRITE_SWEEP(2),
	WRITE_SWEEP(4),
	WRITE_SWEEP(8),
	WRITE_SWEEP(16),
	WRITE_SWEEP(32),
	WRITE_SWEEP(64),
	WRITE_SWEEP(128),
	{
		.id = "randrw70-4k-qd32-8g",
		.name = "4KB random 70% read / 30% write QD32, 8GB LBA span",
		.kind = LG_KIND_THROUGHPUT,
		.write = true,
		.random = true,
		.mixed = true,
		.read_percent = 70,
		.block_size = 4 * KIB,
		.queue_depth = 32,
		.span_bytes = 8 * GIB,
		.duration_s = 180,
		.metrics = throughput_metrics,
		.unit = "bytes/s",
		.higher_is_better = true,
	},
	LAT_SIZE(512, "512", "0.5KB"),
	LAT_SIZE(4 * KIB, "4k", "4KB"),
	LAT_SIZE(8 * KIB, "8k", "8KB"),
	CURVE("read", "read", false, false, 0, 0, ""),
	CURVE("write", "write", true, false, 0, 8 * GIB, "-8g"),
	CURVE("rw70", "70% read / 30% write", true, true, 70, 8 * GIB, "-8g"),
};

static const char *const desktop_2010[] = {
	"randread-4k-qd3", "randwrite-4k-qd3-8g", "seqread-2m-qd1", "seqwrite-2m-qd1", NULL,
};
static const char *const desktop_2011[] = {
	"randread-4k-qd3",  "randwrite-4k-qd3-8g", "randwrite-4k-qd32-8g",
	"seqread-128k-qd1", "seqwrite-128k-qd1",   NULL,
};
static const char *const steady_state_2013[] = {"consistency-4k-qd32", "trim-validation", NULL};
static const char *const steady_state_2013_v2[] = {
	"consistency-4k-qd32",
	"trim-validation",
	"write-saturation-128k-qd32",
	NULL,
};
static const char *const workloads_2026[] = {
	"randread-4k-qd1-sweep",       "randread-4k-qd2-sweep",      "randread-4k-qd4-sweep",
	"randread-4k-qd8-sweep",       "randread-4k-qd16-sweep",     "randread-4k-qd32-sweep",
	"randread-4k-qd64-sweep",      "randread-4k-qd128-sweep",    "randwrite-4k-qd1-8g-sweep",
	"randwrite-4k-qd2-8g-sweep",   "randwrite-4k-qd4-8g-sweep",  "randwrite-4k-qd8-8g-sweep",
	"randwrite-4k-qd16-8g-sweep",  "randwrite-4k-qd32-8g-sweep", "randwrite-4k-qd64-8g-sweep",
	"randwrite-4k-qd128-8g-sweep", "randrw70-4k-qd32-8g",        NULL,
};

static const char *const wsat_2026[] = {"wsat-4k-qd32", NULL};
static const char *const lat_2026[] = {
	"randread-512-qd1-lat",  "randrw65-512-qd1-lat",
	"randwrite-512-qd1-lat", "randread-4k-qd1-lat",
	"randrw65-4k-qd1-lat",   "randwrite-4k-qd1-lat",
	"randread-8k-qd1-lat",   "randrw65-8k-qd1-lat",
	"randwrite-8k-qd1-lat",  NULL,
};

#define CURVE_IDS(base)                                                                       \
	base, base "-load10", base "-load25", base "-load50", base "-load75", base "-load90", \
		base "-load100"
static const char *const curve_2026[] = {
	CURVE_IDS("randread-4k-qd32-curve"),
	CURVE_IDS("randwrite-4k-qd32-8g-curve"),
	CURVE_IDS("randrw70-4k-qd32-8g-curve"),
	NULL,
};

static const struct lg_suite_def suites[] = {
	{
		.name = "desktop-2010",
		.version = 1,
		.title = "Desktop Iometer suite (2010): four corners with 2MB sequential transfers",
		.tests = desktop_2010,
	},
	{
		.name = "desktop-2011",
		.version = 1,
		.title = "Desktop Iometer suite (2011): four corners with 128KB sequential transfers "
			 "and QD32 random write",
		.tests = desktop_2011,
	},
	{
		.name = "steady-state-2013",
		.version = 1,
		.title = "Performance consistency and TRIM validation (2013)",
		.tests = steady_state_2013,
	},
	{
		.name = "steady-state-2013",
		.version = 2,
		.title = "Performance consistency and TRIM validation (2013), with the write saturation "
			 "of current reviews",
		.tests = steady_state_2013_v2,
	},
	{
		.name = "workloads-2026",
		.version = 1,
		.title = "Queue-depth scaling (4KB random read and write at QD1 to QD128) and the "
			 "mixed 70/30 workload",
		.tests = workloads_2026,
	},
	{
		.name = "wsat-2026",
		.version = 1,
		.title = "Write saturation (SNIA PTS WSAT): 4KB random write QD32 from purged to 4x "
			 "the capacity, IOPS per round",
		.tests = wsat_2026,
	},
	{
		.name = "lat-2026",
		.version = 1,
		.title = "Latency (SNIA PTS LAT): 0.5KB, 4KB and 8KB random reads, 65/35 mixes and "
			 "writes at QD1, mean and maximum response time",
		.tests = lat_2026,
	},
	{
		.name = "curve-2026",
		.version = 1,
		.title = "Response time against throughput: 4KB random read, write and 70/30 at "
			 "QD32, unpaced, then paced at 10, 25, 50, 75, 90 and 100% of that maximum",
		.tests = curve_2026,
	},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const struct lg_test_def *lg_suite_tests(size_t *ret_count)
{
	*ret_count = COUNT(tests);
	return tests;
}

const struct lg_suite_def *lg_suite_suites(size_t *ret_count)
{
	*ret_count = COUNT(suites);
	return suites;
}

const char *lg_test_kind_name(enum lg_test_kind kind)
{
	switch (kind) {
	case LG_KIND_THROUGHPUT:
		return "throughput";
	case LG_KIND_CONSISTENCY:
		return "consistency";
	case LG_KIND_TRIM:
		return "trim";
	case LG_KIND_SATURATION:
		return "saturation";
	}
	return "unknown";
}

int lg_suite_find_test(const char *id, const struct lg_test_def **ret_test)
{
	for (size_t i = 0; i < COUNT(tests); i++) {
		if (strcmp(tests[i].id, id) == 0) {
			*ret_test = &tests[i];
			return 0;
		}
	}
	return -ENOENT;
}

int lg_suite_find(const char *spec, const struct lg_suite_def **ret_suite)
{
	const char *colon = strchr(spec, ':');
	size_t name_len = colon ? (size_t)(colon - spec) : strlen(spec);
	long version = 0;
	const struct lg_suite_def *best = NULL;

	if (colon) {
		char *end;

		if (!colon[1])
			return -EINVAL;
		version = strtol(colon + 1, &end, 10);
		if (*end || version < 1)
			return -EINVAL;
	}
	for (size_t i = 0; i < COUNT(suites); i++) {
		const struct lg_suite_def *s = &suites[i];

		if (strlen(s->name) != name_len || strncmp(s->name, spec, name_len) != 0)
			continue;
		if (version && s->version != version)
			continue;
		if (!best || s->version > best->version)
			best = s;
	}
	if (!best)
		return -ENOENT;
	*ret_suite = best;
	return 0;
}

void lg_suite_catalog_json(struct lg_json *w)
{
	lg_json_begin_object(w);
	lg_json_key(w, "tests");
	lg_json_begin_array(w);
	for (size_t i = 0; i < COUNT(tests); i++) {
		const struct lg_test_def *t = &tests[i];

		lg_json_begin_object(w);
		lg_json_key(w, "id");
		lg_json_string(w, t->id);
		lg_json_key(w, "name");
		lg_json_string(w, t->name);
		if (t->family) {
			lg_json_key(w, "family");
			lg_json_string(w, t->family);
		}
		if (t->curve) {
			lg_json_key(w, "curve");
			lg_json_string(w, t->curve);
			if (t->load_percent) {
				lg_json_key(w, "load_percent");
				lg_json_uint(w, t->load_percent);
			}
		}
		lg_json_key(w, "kind");
		lg_json_string(w, lg_test_kind_name(t->kind));
		lg_json_key(w, "operation");
		lg_json_string(w, t->mixed ? "mixed" : t->write ? "write" : "read");
		if (t->mixed) {
			lg_json_key(w, "rwmixread");
			lg_json_uint(w, t->read_percent);
		}
		lg_json_key(w, "access");
		lg_json_string(w, t->random ? "random" : "sequential");
		lg_json_key(w, "block_size");
		lg_json_uint(w, t->block_size);
		lg_json_key(w, "queue_depth");
		lg_json_uint(w, t->queue_depth);
		lg_json_key(w, "span");
		lg_json_string(w, t->span_bytes ? "fixed" : "whole");
		lg_json_key(w, "span_bytes");
		if (t->span_bytes)
			lg_json_uint(w, t->span_bytes);
		else
			lg_json_null(w);
		lg_json_key(w, "duration_s");
		lg_json_uint(w, t->duration_s);
		lg_json_key(w, "metrics");
		lg_json_begin_array(w);
		for (const char *const *m = t->metrics; *m; m++)
			lg_json_string(w, *m);
		lg_json_end_array(w);
		lg_json_key(w, "unit");
		lg_json_string(w, t->unit);
		lg_json_key(w, "higher_is_better");
		lg_json_bool(w, t->higher_is_better);
		lg_json_end_object(w);
	}
	lg_json_end_array(w);
	lg_json_key(w, "suites");
	lg_json_begin_array(w);
	for (size_t i = 0; i < COUNT(suites); i++) {
		const struct lg_suite_def *s = &suites[i];

		lg_json_begin_object(w);
		lg_json_key(w, "name");
		lg_json_string(w, s->name);
		lg_json_key(w, "version");
		lg_json_int(w, s->version);
		lg_json_key(w, "title");
		lg_json_string(w, s->title);
		lg_json_key(w, "tests");
		lg_json_begin_array(w);
		for (const char *const *id = s->tests; *id; id++)
			lg_json_string(w, *id);
		lg_json_end_array(w);
		lg_json_end_object(w);
	}
	lg_json_end_array(w);
	lg_json_end_object(w);
}
