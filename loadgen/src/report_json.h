/* report_json: the result document (results/schema/result-document.schema.json,
 * version 5: each latency's histogram (its buckets, merged by the site), and a paced
 * test's target rate; version 4: WSAT; version 3: the drive's identity in target (its
 * serial only as a salted hash) and its health before and after the run; from
 * version 2, latency from issue to completion, its completion part beside it)
 * as C data, its JSON form, and writing it atomically.
 *
 * Ownership: struct lg_report owns its result arrays (and each consistency
 * series, and each result's histogram buckets); lg_report_init() prepares one,
 * lg_report_fini() frees what it owns.
 * Strings are fixed-size arrays inside the structs; an empty string means
 * "absent" and the member is left out of the document.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "health.h"
#include "histogram.h"
#include "host.h"
#include "json.h"
#include "pattern.h"
#include "saturation.h"
#include "target.h"

#define LG_ID_MAX 64
#define LG_MAX_TESTS 64
#define LG_MAX_SPARE 8
#define LG_MAX_LOADS 16
/* The schema version loadgen writes. */
#define LG_SCHEMA_VERSION 5

enum lg_status {
	LG_STATUS_COMPLETE,
	LG_STATUS_INCOMPLETE,
	LG_STATUS_FAILED,
};

/* What the reads or the writes of a mixed test did. */
struct lg_direction {
	uint64_t io_count;
	uint64_t bytes;
	double bytes_per_second;
	double iops;
	bool has_latency;
	struct lg_latency_summary latency;
	bool has_clat;
	struct lg_latency_summary clat;
	struct lg_hist_buckets latency_buckets; /* latency's histogram; n 0: none written */
};

struct lg_result {
	char test[LG_ID_MAX];
	enum lg_pattern pattern;
	uint32_t block_size;
	uint32_t queue_depth;
	uint64_t span_bytes;
	uint64_t duration_ns;
	uint64_t io_count;
	uint64_t bytes;
	double bytes_per_second;
	double iops;
	/* The spread of the IOPS of each whole second of the test (one worker only):
	 * their sample standard deviation and the slowest second's. */
	bool has_iops_spread;
	double iops_stddev;
	double iops_min;
	bool has_latency;
	struct lg_latency_summary latency; /* issue to completion (fio's lat) */
	bool has_clat;
	struct lg_latency_summary clat;         /* its completion part (fio's clat) */
	struct lg_hist_buckets latency_buckets; /* latency's histogram; n 0: none written */
	/* A paced test (--rate, --load): the rate it issued at, I/Os a second (latency then
	 * runs from each I/O's scheduled issue time), and that rate as a percentage of the
	 * unpaced run's IOPS when it is one of --load's fractions. 0: absent. */
	uint64_t rate_iops;
	uint32_t load_percent;
	bool partial;    /* interrupted: the figures up to the interrupt */
	uint32_t jobs;   /* workers whose figures are summed; 0: absent */
	uint32_t repeat; /* which pass (--repeat) it is, from 1; 0: absent */
	bool mixed;      /* reads and writes: read_percent, and each in dir[] */
	uint32_t read_percent;
	struct lg_direction dir[2]; /* by enum lg_dir: read, write */
};

struct lg_consistency {
	char test[LG_ID_MAX];
	enum lg_pattern pattern;
	uint32_t spare_area_percent;
	uint64_t span_bytes;
	uint32_t block_size;
	uint32_t queue_depth;
	uint64_t interval_ns;
	char discard_method[16]; /* how the target was discarded before the fill:
	                          * "blkdiscard", "punch-hole", "none"; empty: absent */
	uint64_t *iops;          /* owned; len entries */
	size_t len;
	bool partial; /* interrupted: the series up to the interrupt */
};

struct lg_trim {
	char test[LG_ID_MAX];
	enum lg_pattern pattern;
	uint64_t span_bytes;
	double torture_seconds;
	char discard_method[16];
	double clean_bytes_per_second;
	double after_torture_bytes_per_second;
	double after_trim_bytes_per_second;
};

/* Why a WSAT run ended: four times the target written, its time cap, Ctrl-C. */
enum lg_wsat_stop {
	LG_WSAT_STOP_BYTES,
	LG_WSAT_STOP_TIME,
	LG_WSAT_STOP_INTERRUPTED,
};

/* The write saturation: bytes written in each interval of one sequential write
 * of the span, and where the cache ran out (saturation.h); or, for WSAT (wsat),
 * of random writes in rounds until target_bytes or time_cap_ns, and where the
 * rate first fell below half the first round's. */
struct lg_saturation {
	char test[LG_ID_MAX];
	enum lg_pattern pattern;
	uint64_t span_bytes;
	uint32_t block_size;
	uint32_t queue_depth;
	uint64_t interval_ns;
	uint64_t duration_ns;
	char discard_method[16];
	uint64_t *bytes; /* owned; len entries */
	size_t len;
	struct lg_saturation_summary summary;
	bool partial;
	bool wsat; /* the members below are set (schema version 4) */
	uint64_t target_bytes;
	uint64_t time_cap_ns;
	enum lg_wsat_stop stopped_by;
	bool halved; /* halved_at_s and bytes_before_halved are set */
	double halved_at_s;
	uint64_t bytes_before_halved;
};

struct lg_drive {
	char manufacturer[201];
	char model[201];
	uint64_t capacity_bytes; /* 0: absent */
	char part_number[101];
	char hardware_revision[101];
	char slug[256]; /* the catalog drive's slug, naming it exactly; empty: absent */
	char firmware[101];
	char kind[8];       /* "ssd", "hdd", "virtual" or empty */
	char interface[16]; /* schema enum or empty */
};

struct lg_bench {
	char name[201], cpu[201], motherboard[201], chipset[201], memory[201], os[201],
		storage_driver[201], interface[201];
};

struct lg_parameters {
	char suite_name[LG_ID_MAX]; /* empty: no suite */
	int suite_version;
	char tests[LG_MAX_TESTS][LG_ID_MAX];
	size_t ntests;
	uint64_t seed;
	char engine[51];
	bool direct;
	double duration_scale;
	bool quick;
	enum lg_pattern patterns[2];
	size_t npatterns;
	double compressible_ratio;
	uint32_t spare_area_percent[LG_MAX_SPARE];
	size_t nspare;
	uint64_t target_size_bytes; /* 0: absent */
	bool ad_hoc;
	uint32_t jobs;                       /* --jobs; 0: absent */
	uint32_t repeat;                     /* --repeat; 0: absent */
	char precondition[8];                /* "fill" or "none"; empty: absent */
	uint32_t qd_max;                     /* --qd-max of a catalog run; 0: absent */
	double round_s;                      /* --round; 0: absent */
	uint64_t rate_iops;                  /* --rate; 0: absent */
	uint32_t load_percent[LG_MAX_LOADS]; /* --load's fractions, in order */
	size_t nloads;
	double time_s; /* --time; 0: absent */
	/* The ad-hoc test's --rw (empty: absent), --rwmixread (of a mixed one), --bs, --qd
	 * and --span (0: absent, the whole target). */
	char rw[16];
	bool has_rwmixread;
	uint32_t rwmixread;
	uint32_t block_size, queue_depth;
	uint64_t span_bytes;
};

struct lg_report {
	enum lg_status status;
	char failure_message[1024];
	int failure_errno; /* 0: absent */
	char failure_test[LG_ID_MAX];
	char tool_version[101];
	char engine[51];
	char command_line[4001];
	char started_at[32];
	char finished_at[32];
	struct lg_drive drive;
	char drive_state[16]; /* empty: absent */
	struct lg_bench bench;
	bool has_host;
	struct lg_host host;
	bool has_target;
	struct lg_target_info target;
	bool has_health;
	struct lg_health health;
	bool has_parameters;
	struct lg_parameters parameters;

	struct lg_result *results;
	size_t nresults, results_cap;
	struct lg_consistency *consistency;
	size_t nconsistency, consistency_cap;
	struct lg_trim *trims;
	size_t ntrims, trims_cap;
	struct lg_saturation *saturation;
	size_t nsaturation, saturation_cap;
};

/* An empty report (status complete, no results). */
void lg_report_init(struct lg_report *report);

/* Free what the report owns; the struct may be initialized again. NULL is fine. */
void lg_report_fini(struct lg_report *report);

/* Append a copy of *result; the report takes ownership of its histogram buckets
 * (the whole's and each direction's) on success. Returns 0 or -ENOMEM. */
int lg_report_add_result(struct lg_report *report, struct lg_result *result);

/* Append a series; the report takes ownership of series->iops on success.
 * Returns 0 or -ENOMEM. */
int lg_report_add_consistency(struct lg_report *report, struct lg_consistency *series);

/* Append a write saturation; the report takes ownership of sat->bytes on
 * success. Returns 0 or -ENOMEM. */
int lg_report_add_saturation(struct lg_report *report, struct lg_saturation *sat);

/* Append a copy of *trim. Returns 0 or -ENOMEM. */
int lg_report_add_trim(struct lg_report *report, const struct lg_trim *trim);

/* Name of a status as the document writes it. */
const char *lg_status_name(enum lg_status status);

/* The document's health member: its source, the reason when none, the snapshots. */
void lg_report_health_json(struct lg_json *w, const struct lg_health *health);

/* Write the document into w (pretty-printed). */
void lg_report_json(const struct lg_report *report, struct lg_json *w);

/* What run --plan prints of the document it would write: its tool, target and parameters. */
void lg_report_plan_json(const struct lg_report *report, struct lg_json *w);

/* The file a document goes to, written atomically: a temporary file in the
 * same directory, created by lg_output_open() before the run so that an output
 * that cannot be written is found before any I/O; lg_output_commit() fills it,
 * fsyncs it, renames it over the path and fsyncs the directory. */
struct lg_output;

/* Create the temporary file beside path. Returns 0 and *ret_output, or -errno:
 * -ENOENT (no such directory), -EACCES, -EROFS, ..., -EISDIR (path is a
 * directory), -EEXIST (path exists and is not a regular file, which the rename
 * would replace). */
int lg_output_open(const char *path, struct lg_output **ret_output);

/* The temporary file's path, or NULL once committed: what an exit that cannot
 * call lg_output_free() (a signal handler) must unlink. */
const char *lg_output_temp_path(const struct lg_output *output);

/* Write text to the temporary file and put it in place as above. Once only.
 * Returns 0 or -errno; on failure the path is untouched. */
int lg_output_commit(struct lg_output *output, const char *text, size_t len);

/* Write the document (pretty-printed, newline-terminated) through output. */
int lg_report_write(const struct lg_report *report, struct lg_output *output);

/* Remove the temporary file unless committed, and free. NULL is fine. */
void lg_output_free(struct lg_output *output);

/* Write the document to path atomically (open, write, free). Returns 0 or
 * -errno; on failure path is untouched and no temporary file is left. */
int lg_report_write_file(const struct lg_report *report, const char *path);

/* Write text to path atomically (as above). Returns 0 or -errno. */
int lg_write_file_atomic(const char *path, const char *text, size_t len);
