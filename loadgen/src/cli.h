/* cli: the command line of docs/loadgen-cli.md parsed into a struct, with every
 * value checked (sizes, names, test ids, provenance keys and lengths), so
 * that the runner never sees an invalid option.
 *
 * One table (lg_cli_options(), a row per option, as fio's options[]) says each
 * option's name, commands, value and its range, where it is stored, its help and
 * how the result document's parameters record it; the parser reads it, and so do
 * --help, the man page and `loadgen options --json` (cli_doc.c). Rules between
 * options (--bs goes with --rw, ...) are checked after the table's parsing.
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
	LG_CMD_OPTIONS,
};

/* The commands an option belongs to (a set of them). */
enum {
	LG_IN_RUN = 1 << 0,
	LG_IN_UPLOAD = 1 << 1,
	LG_IN_LIST = 1 << 2,
	LG_IN_INFO = 1 << 3,
	LG_IN_OPTIONS = 1 << 4,
};

/* Every option, by its row in the table (lg_cli_options()), in --help's order. */
enum lg_opt_id {
	LG_OPT_TARGET,
	LG_OPT_SUITE,
	LG_OPT_TESTS,
	LG_OPT_QD_MAX,
	LG_OPT_RW,
	LG_OPT_RWMIXREAD,
	LG_OPT_BS,
	LG_OPT_QD,
	LG_OPT_SPAN,
	LG_OPT_TIME,
	LG_OPT_RATE,
	LG_OPT_LOAD,
	LG_OPT_PATTERN,
	LG_OPT_DURATION_SCALE,
	LG_OPT_ROUND,
	LG_OPT_QUICK,
	LG_OPT_REPEAT,
	LG_OPT_SPARE_AREA,
	LG_OPT_SEED,
	LG_OPT_PRECONDITION,
	LG_OPT_ENGINE,
	LG_OPT_JOBS,
	LG_OPT_BUFFERED,
	LG_OPT_SIZE,
	LG_OPT_DESTROY_DATA,
	LG_OPT_FORCE,
	LG_OPT_DRIVE,
	LG_OPT_FIRMWARE,
	LG_OPT_BENCH,
	LG_OPT_DRIVE_STATE,
	LG_OPT_OUTPUT,
	LG_OPT_QUIET,
	LG_OPT_PLAN,
	LG_OPT_UPLOAD,
	LG_OPT_COMPARE,
	LG_OPT_URL,
	LG_OPT_TOKEN_FILE,
	LG_OPT_TOKEN,
	LG_OPT_RETRY_FOR,
	LG_OPT_JSON,
	LG_OPT_MAN,
	LG_OPT_HELP,
	LG_OPT_COUNT
};

/* How an option's value is read. */
enum lg_opt_type {
	LG_VAL_FLAG,   /* no value: sets a bool */
	LG_VAL_STRING, /* kept as given (a pointer into argv) */
	LG_VAL_UINT,   /* an integer from min to max */
	LG_VAL_SIZE,   /* a size (SIZE) from min to max, a multiple of `multiple` */
	LG_VAL_NUMBER, /* a number above 0 (and at least min) up to max */
	LG_VAL_CHOICE, /* one of choices, kept as the table's own string */
	LG_VAL_CUSTOM, /* read by the row's parse function */
};

/* How the value is recorded in the result document's `parameters`, which says how
 * results/reproduce.py writes it back as an argument. */
enum lg_opt_record {
	LG_REC_NONE,  /* not recorded in parameters */
	LG_REC_VALUE, /* --name VALUE: the recorded number or string as it is */
	LG_REC_SIZE,  /* --name SIZE: the recorded bytes, with a binary suffix where whole */
	LG_REC_LIST,  /* --name A,B,...: the recorded array joined (nothing when empty) */
	LG_REC_TRUE,  /* --name when the recorded value is true */
	LG_REC_FALSE, /* --name when the recorded value is false */
	LG_REC_SUITE, /* --name NAME:VERSION of the recorded {name, version} */
};

struct lg_cli;

/* One option: what --help, the man page, `loadgen options --json` and the parser all
 * read (fio's options[]). A new option is one row. */
struct lg_option {
	const char *name;
	char short_name; /* 0: none */
	enum lg_opt_type type;
	unsigned commands;   /* LG_IN_* */
	const char *section; /* a heading before it in --help and the man page, or NULL */
	const char *arg;     /* its value as the help writes it ("N", "SIZE"); NULL: none */
	/* The value the command takes when the option is not given, written as it would be
	 * given ("4k", "0,25") and read by the same code; NULL: none, or a rule's (--repeat). */
	const char *default_value;
	bool arg_attached; /* written --name=VALUE */
	const char *help;  /* lines separated by \n */
	/* Where a value goes in struct lg_cli (FLAG, STRING, UINT, SIZE, NUMBER, CHOICE). */
	size_t offset, size;
	double min, max;            /* UINT, SIZE, NUMBER */
	uint64_t multiple;          /* SIZE: a multiple of it; 0: any */
	const char *const *choices; /* CHOICE: NULL-terminated */
	const char *invalid;        /* what a bad value is not: "a queue depth from 1 to 1024" */
	int (*parse)(struct lg_cli *cli, const char *value, char *err, size_t err_len); /* CUSTOM */
	/* The `parameters` key it is recorded as (NULL: none), how, the value recorded
	 * without it (JSON; NULL: none to leave out), and the keys whose presence makes
	 * the recorded value follow from theirs (space-separated; NULL: none). */
	const char *param;
	enum lg_opt_record record;
	const char *param_default;
	const char *follows;
};

/* The table, LG_OPT_COUNT rows indexed by enum lg_opt_id. */
const struct lg_option *lg_cli_options(void);

/* Where documents go once written: `loadgen upload` and `run --upload`. */
#define LG_MAX_UPLOADS 64
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
	const char *suite_arg;                         /* --suite as given */
	const char *tests_arg;                         /* --tests as given */
	const struct lg_suite_def *suite;              /* NULL unless --suite */
	const struct lg_test_def *tests[LG_MAX_TESTS]; /* in run order */
	size_t ntests;
	uint32_t qd_max; /* the deepest queue-depth sweep test run (--qd-max) */
	const char *rw;  /* --rw as given; NULL: no ad-hoc test */
	bool ad_hoc;
	struct lg_test_def adhoc; /* the ad-hoc test, when ad_hoc */
	char adhoc_id[LG_ID_MAX];
	uint32_t rwmixread; /* --rwmixread, 50 unless given */
	double time_s;      /* --time as given; 0: not given */
	uint64_t rate_iops; /* --rate: the ad-hoc test paced at this many I/Os a second; 0: not */
	uint32_t load_percent[LG_MAX_LOADS]; /* --load: fractions of its maximum, in order */
	size_t nloads;
	double adhoc_time_s;
	bool want_compressible, want_incompressible;
	double duration_scale; /* 1 unless --duration-scale */
	double time_cap_s;     /* --time with a WSAT test: its time cap; 0: the catalog's */
	double round_s;        /* --round: a WSAT round; 0: 60 s */
	bool quick;
	uint32_t spare[LG_MAX_SPARE];
	size_t nspare;
	uint32_t jobs;   /* --jobs, 1 unless given */
	uint32_t repeat; /* passes over the throughput tests (--repeat; see lg_cli_parse) */
	const char *precondition; /* --precondition: "fill" (default) or "none" */
	bool precondition_none;   /* it is "none" */
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
	const char *drive_state; /* NULL: unknown */
	const char *output;      /* NULL: default name */
	bool quiet;
	bool plan;               /* --plan: the parameters the run would record, no I/O */
	const char *compare_url; /* --compare URL: a drive's page; NULL: none */
};

struct lg_cli {
	enum lg_command command;
	bool json; /* list --json, info --json, options --json */
	bool man;  /* options --man */
	const char *info_target;
	struct lg_run_options run;
	/* The upload command's, and run's --upload URL with the same options. */
	struct lg_upload_options upload;
	bool given[LG_OPT_COUNT]; /* the options the command line gave */
	char command_line[4001];  /* argv joined, shell-quoted where needed */
};

/* Parse argv. Returns 0 and *ret_cli, or -EINVAL with a one-line reason in err. */
int lg_cli_parse(int argc, char **argv, struct lg_cli *ret_cli, char *err, size_t err_len);

/* What the table says, written from it (cli_doc.c). Each returns a static buffer. */
/* The full --help text. */
const char *lg_cli_usage(void);
/* The man page, loadgen(1), in troff. */
const char *lg_cli_man_page(void);
/* The table as `loadgen options --json` prints it: every option with its commands, its
 * value, its help and how `parameters` records it (results/schema/loadgen-options.json). */
void lg_cli_options_json(struct lg_json *w);
