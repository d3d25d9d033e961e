/* cli: the command line of docs/loadgen-cli.md parsed into a struct, with every
 * value checked (sizes, names, test ids, provenance keys and lengths), so
 * that the runner never sees an invalid option.
 *
 * Ownership: struct lg_cli is plain data owned by the caller; its const char *
 * members point into argv, which must outlive it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_json.h"
#include "suite.h"

enum lg_command {
	LG_CMD_HELP,
	LG_CMD_VERSION,
	LG_CMD_LIST,
	LG_CMD_INFO,
	LG_CMD_RUN,
	LG_CMD_UPLOAD,
};

/* Where documents go once written: `loadgen upload` and `run --upload`. */
#define LG_MAX_UPLOADS 64
#define LG_DEFAULT_RETRY_FOR_S 120.0
struct lg_upload_options {
	const char *url;        /* NULL: no upload */
	const char *token_file; /* NULL: the token is $BENCH_TOKEN */
	double retry_for_s;     /* --retry-for */
	const char *documents[LG_MAX_UPLOADS];
	size_t ndocuments;
};

/* Passes over the throughput tests of a full-length run when --repeat is not given. */
#define LG_DEFAULT_REPEAT 3

struct lg_run_options {
	const char *target;
	const struct lg_suite_def *suite;              /* NULL unless --suite */
	const struct lg_test_def *tests[LG_MAX_TESTS]; /* in run order */
	size_t ntests;
	uint32_t qd_max; /* the deepest queue-depth sweep test run (--qd-max) */
	bool ad_hoc;
	struct lg_test_def adhoc; /* the ad-hoc test, when ad_hoc */
	char adhoc_id[LG_ID_MAX];
	double adhoc_time_s;
	bool want_compressible, want_incompressible;
	double duration_scale; /* 1 unless --duration-scale */
	double time_cap_s;     /* --time with a WSAT test: its time cap; 0: the catalog's */
	double round_s;        /* --round: a WSAT round; 0: 60 s */
	bool quick;
	uint32_t spare[LG_MAX_SPARE];
	size_t nspare;
	uint32_t jobs;          /* --jobs, 1 unless given */
	uint32_t repeat;        /* passes over the throughput tests (--repeat; see lg_cli_parse) */
	bool precondition_none; /* --precondition none */
	bool seed_given;
	uint64_t seed;
	const char *engine; /* NULL: default */
	bool buffered;
	bool size_given;
	uint64_t size;
	const char *destroy_data;
	bool force;
	struct lg_drive drive; /* from --drive and --firmware */
	struct lg_bench bench;
	char drive_state[16];
	const char *output; /* NULL: default name */
	bool quiet;
	struct lg_upload_options upload; /* --upload URL: the document, once written */
	const char *compare_url;         /* --compare URL: a drive's page; NULL: none */
};

struct lg_cli {
	enum lg_command command;
	bool json; /* list --json, info --json */
	const char *info_target;
	struct lg_run_options run;
	struct lg_upload_options upload; /* the upload command */
	char command_line[4001];         /* argv joined, shell-quoted where needed */
};

/* Parse argv. Returns 0 and *ret_cli, or -EINVAL with a one-line reason in err. */
int lg_cli_parse(int argc, char **argv, struct lg_cli *ret_cli, char *err, size_t err_len);

/* The full --help text. */
const char *lg_cli_usage(void);
