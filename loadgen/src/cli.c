/* The command line of docs/loadgen-cli.md (cli.h): one table of options, from which the
 * getopt tables of each command, the parsing of every value, --help, the man page and
 * `loadgen options --json` are all made (cli_doc.c writes the last three). */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "engine.h"
#include "json.h"
#include "text.h"
#include "util.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* The characters of a catalog drive's slug (the site's core.links.SLUG). */
#define SLUG_CHARS "-_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
/* getopt_long's value of the option of row id (above every short option's character). */
#define OPT_VAL(id) (256 + (int)(id))

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A value that goes into the document as text, already trimmed: not blank (the
 * schema wants a non-space in names), at most max bytes, valid UTF-8 without
 * control characters (the document would not say what was given). */
static int check_text(const char *what, const char *value, size_t max, char *err, size_t err_len)
{
	if (!value[0])
		return fail(err, err_len, "%s is blank: give a value or leave it out", what);
	if (strlen(value) > max)
		return fail(err, err_len, "%s is too long (at most %zu bytes)", what, max);
	for (const char *p = value; *p;) {
		unsigned char c = (unsigned char)p[0];
		size_t n = lg_utf8_sequence_length(p);

		if (n == 0)
			return fail(err, err_len, "%s is not valid UTF-8", what);
		if (c < 0x20 || c == 0x7f || (c == 0xc2 && (unsigned char)p[1] < 0xa0))
			return fail(err, err_len, "%s contains a control character", what);
		p += n;
	}
	return 0;
}

/* Copy value, trimmed and checked, into dst (capacity cap, NUL included). */
static int copy_field(char *dst, size_t cap, const char *what, const char *value, char *err,
		      size_t err_len)
{
	char *copy = strdup(value);
	const char *v;
	int r;

	if (!copy)
		return fail(err, err_len, "out of memory");
	v = lg_trim(copy);
	r = check_text(what, v, cap - 1, err, err_len);
	if (r == 0)
		memcpy(dst, v, strlen(v) + 1);
	free(copy);
	return r;
}

static bool in_list(const char *value, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(value, *list) == 0)
			return true;
	return false;
}

/* Split item ("KEY=VALUE", modified in place) into its trimmed key and value. */
static int split_item(const char *opt, char *item, const char **ret_key, const char **ret_value,
		      char *err, size_t err_len)
{
	char *eq = strchr(item, '=');

	if (!eq)
		return fail(err, err_len, "%s: expected KEY=VALUE, got \"%s\"", opt, item);
	*eq = '\0';
	*ret_key = lg_trim(item);
	if (!(*ret_key)[0])
		return fail(err, err_len, "%s: expected KEY=VALUE, got \"=%s\"", opt, eq + 1);
	*ret_value = lg_trim(eq + 1);
	return 0;
}

static int parse_drive(const char *arg, struct lg_drive *d, char *err, size_t err_len)
{
	static const char *const kinds[] = {"ssd", "hdd", "virtual", NULL};
	static const char *const interfaces[] = {
		"sata-1.5g", "sata-3g", "sata-6g", "pcie-nvme", "pata", "other", NULL,
	};
	char *copy = strdup(arg), *save = NULL;
	int r = 0;

	if (!copy)
		return fail(err, err_len, "out of memory");
	for (char *item = strtok_r(copy, ",", &save); item && r == 0;
	     item = strtok_r(NULL, ",", &save)) {
		const char *key = NULL, *value = NULL;
		char what[96];

		r = split_item("--drive", item, &key, &value, err, err_len);
		if (r < 0)
			break;
		snprintf(what, sizeof(what), "--drive %.40s", key);
		if (strcmp(key, "manufacturer") == 0) {
			r = copy_field(d->manufacturer, sizeof(d->manufacturer), what, value, err,
				       err_len);
		} else if (strcmp(key, "model") == 0) {
			r = copy_field(d->model, sizeof(d->model), what, value, err, err_len);
		} else if (strcmp(key, "part_number") == 0) {
			r = copy_field(d->part_number, sizeof(d->part_number), what, value, err,
				       err_len);
		} else if (strcmp(key, "hardware_revision") == 0) {
			r = copy_field(d->hardware_revision, sizeof(d->hardware_revision), what,
				       value, err, err_len);
		} else if (strcmp(key, "slug") == 0) {
			if (!value[0] || strlen(value) >= sizeof(d->slug) ||
			    strspn(value, SLUG_CHARS) != strlen(value))
				r = fail(err, err_len,
					 "--drive slug must be a catalog drive's slug (up to 255 "
					 "letters, digits, '-' and '_'), not \"%.60s\"",
					 value);
			else
				snprintf(d->slug, sizeof(d->slug), "%s", value);
		} else if (strcmp(key, "capacity") == 0) {
			if (!value[0])
				r = fail(err, err_len, "%s is blank: give a size or leave it out",
					 what);
			else if (lg_parse_size(value, &d->capacity_bytes) < 0 ||
				 d->capacity_bytes == 0)
				r = fail(err, err_len, "--drive capacity: not a size: \"%s\"",
					 value);
		} else if (strcmp(key, "kind") == 0) {
			if (!in_list(value, kinds))
				r = fail(err, err_len,
					 "--drive kind must be ssd, hdd or virtual, not \"%s\"",
					 value);
			else
				snprintf(d->kind, sizeof(d->kind), "%s", value);
		} else if (strcmp(key, "interface") == 0) {
			if (!in_list(value, interfaces))
				r = fail(err, err_len,
					 "--drive interface must be one of sata-1.5g, sata-3g, sata-6g, pcie-nvme, pata, other; not \"%s\"",
					 value);
			else
				snprintf(d->interface, sizeof(d->interface), "%s", value);
		} else {
			r = fail(err, err_len, "--drive: unknown key \"%s\"", key);
		}
	}
	free(copy);
	return r;
}

static int parse_bench(const char *arg, struct lg_bench *b, char *err, size_t err_len)
{
	struct {
		const char *key;
		char *dst;
	} fields[] = {
		{"name", b->name},
		{"cpu", b->cpu},
		{"motherboard", b->motherboard},
		{"chipset", b->chipset},
		{"memory", b->memory},
		{"os", b->os},
		{"storage_driver", b->storage_driver},
		{"interface", b->interface},
	};
	char *copy = strdup(arg), *save = NULL;
	int r = 0;

	if (!copy)
		return fail(err, err_len, "out of memory");
	for (char *item = strtok_r(copy, ",", &save); item && r == 0;
	     item = strtok_r(NULL, ",", &save)) {
		const char *key = NULL, *value = NULL;
		bool found = false;

		r = split_item("--bench", item, &key, &value, err, err_len);
		if (r < 0)
			break;
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			if (strcmp(key, fields[i].key) == 0) {
				char what[64];

				snprintf(what, sizeof(what), "--bench %s", key);
				r = copy_field(fields[i].dst, sizeof(b->name), what, value, err,
					       err_len);
				found = true;
			}
		}
		if (!found)
			r = fail(err, err_len, "--bench: unknown key \"%s\"", key);
	}
	free(copy);
	return r;
}

static int add_test(struct lg_run_options *o, const struct lg_test_def *t, char *err,
		    size_t err_len)
{
	if (t->family && t->queue_depth > o->qd_max)
		return fail(err, err_len,
			    "%s is deeper than --qd-max %u: give --qd-max %u to run it", t->id,
			    o->qd_max, t->queue_depth);
	for (size_t i = 0; i < o->ntests; i++)
		if (o->tests[i] == t)
			return 0;
	/* A curve's point is paced at a fraction of its curve's maximum: that test first. */
	if (t->curve && t->load_percent) {
		const struct lg_test_def *maximum;
		int r = lg_suite_find_test(t->curve, &maximum);

		if (r < 0)
			return fail(err, err_len, "%s: its curve's test %s is unknown", t->id,
				    t->curve);
		r = add_test(o, maximum, err, err_len);
		if (r < 0)
			return r;
	}
	if (o->ntests >= LG_MAX_TESTS)
		return fail(err, err_len, "too many tests");
	o->tests[o->ntests++] = t;
	return 0;
}

static int parse_tests(const char *arg, struct lg_run_options *o, char *err, size_t err_len)
{
	char *copy = strdup(arg), *save = NULL;
	int r = 0;

	if (!copy)
		return fail(err, err_len, "out of memory");
	for (char *id = strtok_r(copy, ",", &save); id && r == 0; id = strtok_r(NULL, ",", &save)) {
		const struct lg_test_def *t;

		if (lg_suite_find_test(id, &t) < 0)
			r = fail(err, err_len, "unknown test \"%s\" (see `loadgen list`)", id);
		else
			r = add_test(o, t, err, err_len);
	}
	if (r == 0 && o->ntests == 0)
		r = fail(err, err_len, "--tests: no test given");
	free(copy);
	return r;
}

static int parse_spare(const char *arg, struct lg_run_options *o, char *err, size_t err_len)
{
	char *copy = strdup(arg), *save = NULL;
	int r = 0;

	if (!copy)
		return fail(err, err_len, "out of memory");
	o->nspare = 0;
	for (char *p = strtok_r(copy, ",", &save); p && r == 0; p = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (lg_parse_u64(p, &v) < 0 || v > 90)
			r = fail(err, err_len,
				 "--spare-area: \"%s\" is not a percentage from 0 to 90", p);
		else if (o->nspare >= LG_MAX_SPARE)
			r = fail(err, err_len, "--spare-area: at most %d levels", LG_MAX_SPARE);
		else
			o->spare[o->nspare++] = (uint32_t)v;
	}
	if (r == 0 && o->nspare == 0)
		r = fail(err, err_len, "--spare-area: no level given");
	free(copy);
	return r;
}

static void join_command_line(int argc, char **argv, char *out, size_t cap)
{
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool plain = a[0] != '\0';
		char piece[1024];

		for (const char *p = a; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@%",
				    *p))
				plain = false;
		if (plain) {
			snprintf(piece, sizeof(piece), "%s", a);
		} else {
			/* single quotes, each ' written as '\'' */
			size_t n = 0;

			piece[n++] = '\'';
			for (const char *p = a; *p && n + 6 < sizeof(piece); p++) {
				if (*p == '\'') {
					memcpy(piece + n, "'\\''", 4);
					n += 4;
				} else {
					piece[n++] = *p;
				}
			}
			piece[n++] = '\'';
			piece[n] = '\0';
		}
		size_t pl = strlen(piece);

		if (len + pl + 2 > cap)
			break;
		if (i > 0)
			out[len++] = ' ';
		memcpy(out + len, piece, pl + 1);
		len += pl;
	}
}

/* Why getopt_long() returned '?' for argv, as an error naming the option. */
static int bad_option(const char *cmd, int argc, char **argv, const struct option *options,
		      char *err, size_t err_len)
{
	const char *arg = optind >= 1 && optind <= argc ? argv[optind - 1] : "";
	size_t name_len, matches = 0;

	/* A known option: optopt is its value, given to an option that takes none
	 * (--quick=1) or missing from one that needs it (--target at the end). */
	for (const struct option *o = options; o->name && optopt != 0; o++) {
		if (o->val != optopt)
			continue;
		if (o->has_arg == no_argument)
			return fail(err, err_len, "--%s takes no value", o->name);
		return fail(err, err_len, "--%s needs a value", o->name);
	}
	if (optopt != 0)
		return fail(err, err_len, "unknown option -%c for %s (see loadgen --help)", optopt,
			    cmd);
	if (strncmp(arg, "--", 2) != 0)
		return fail(err, err_len, "unknown option \"%s\" for %s (see loadgen --help)", arg,
			    cmd);
	name_len = strcspn(arg + 2, "=");
	for (const struct option *o = options; o->name; o++)
		if (strncmp(o->name, arg + 2, name_len) == 0)
			matches++;
	if (matches > 1)
		return fail(err, err_len,
			    "option --%.*s is ambiguous: %zu options of %s begin with it "
			    "(see loadgen --help)",
			    (int)name_len, arg + 2, matches, cmd);
	return fail(err, err_len, "unknown option --%.*s for %s (see loadgen --help)",
		    (int)name_len, arg + 2, cmd);
}

static int parse_rw(const char *v, struct lg_test_def *t)
{
	t->mixed = strcmp(v, "randrw") == 0 || strcmp(v, "rw") == 0;
	if (t->mixed) {
		t->write = true; /* it writes: the target must be writable */
		t->random = v[0] == 'r' && v[1] == 'a';
	} else if (strcmp(v, "randread") == 0) {
		t->write = false;
		t->random = true;
	} else if (strcmp(v, "randwrite") == 0) {
		t->write = true;
		t->random = true;
	} else if (strcmp(v, "read") == 0) {
		t->write = false;
		t->random = false;
	} else if (strcmp(v, "write") == 0) {
		t->write = true;
		t->random = false;
	} else {
		return -EINVAL;
	}
	return 0;
}

/* The options read by a function of their own (LG_VAL_CUSTOM). */

static int read_pattern(struct lg_cli *cli, const char *value, char *err, size_t err_len)
{
	struct lg_run_options *o = &cli->run;
	char *copy, *save = NULL;
	int r = 0;

	if (strcmp(value, "both") == 0) {
		o->want_compressible = o->want_incompressible = true;
		return 0;
	}
	copy = strdup(value);
	if (!copy)
		return fail(err, err_len, "out of memory");
	o->want_compressible = o->want_incompressible = false;
	for (char *p = strtok_r(copy, ",", &save); p && r == 0; p = strtok_r(NULL, ",", &save)) {
		if (strcmp(p, "compressible") == 0)
			o->want_compressible = true;
		else if (strcmp(p, "incompressible") == 0)
			o->want_incompressible = true;
		else
			r = -EINVAL;
	}
	free(copy);
	if (r < 0 || !(o->want_compressible || o->want_incompressible))
		return fail(err, err_len,
			    "--pattern must be compressible, incompressible or both (or "
			    "compressible,incompressible)");
	return 0;
}

static int read_load(struct lg_cli *cli, const char *value, char *err, size_t err_len)
{
	struct lg_run_options *o = &cli->run;
	char *copy = strdup(value), *save = NULL;
	int r = 0;

	if (!copy)
		return fail(err, err_len, "out of memory");
	o->nloads = 0;
	for (char *p = strtok_r(copy, ",", &save); p && r == 0; p = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (lg_parse_u64(p, &v) < 0 || v < 1 || v > 100)
			r = fail(err, err_len, "--load: \"%s\" is not a percentage from 1 to 100",
				 p);
		else if (o->nloads >= LG_MAX_LOADS)
			r = fail(err, err_len, "--load: at most %d fractions", LG_MAX_LOADS);
		for (size_t i = 0; i < o->nloads && r == 0; i++)
			if (o->load_percent[i] == v)
				r = fail(err, err_len, "--load: %s%% is given twice", p);
		if (r == 0)
			o->load_percent[o->nloads++] = (uint32_t)v;
	}
	if (r == 0 && o->nloads == 0)
		r = fail(err, err_len, "--load: no fraction given");
	free(copy);
	return r;
}

static int read_spare_area(struct lg_cli *cli, const char *value, char *err, size_t err_len)
{
	return parse_spare(value, &cli->run, err, err_len);
}

static int read_engine(struct lg_cli *cli, const char *value, char *err, size_t err_len)
{
	const struct lg_engine_ops *ops;

	if (lg_engine_find(value, &ops) < 0)
		return fail(err, err_len, "--engine: \"%s\" is not built in (io_uring, psync)",
			    value);
	cli->run.engine = value;
	return 0;
}

static int read_drive(struct lg_cli *cli, const char *value, char *err, size_t err_len)
{
	return parse_drive(value, &cli->run.drive, err, err_len);
}

static int read_firmware(struct lg_cli *cli, const char *value, char *err, size_t err_len)
{
	return copy_field(cli->run.drive.firmware, sizeof(cli->run.drive.firmware), "--firmware",
			  value, err, err_len);
}

static int read_bench(struct lg_cli *cli, const char *value, char *err, size_t err_len)
{
	return parse_bench(value, &cli->run.bench, err, err_len);
}

static int read_compare(struct lg_cli *cli, const char *value, char *err, size_t err_len)
{
	if (!lg_compare_available())
		return fail(err, err_len,
			    "--compare is not built in: this loadgen was built without libcurl "
			    "(install libcurl4-openssl-dev and rebuild)");
	cli->run.compare_url = value;
	return 0;
}

static int refuse_token(struct lg_cli *cli, const char *value, char *err, size_t err_len)
{
	(void)cli;
	(void)value;
	return fail(err, err_len,
		    "--token is refused: a token on the command line is seen by every user of the "
		    "machine (ps, shell history); give it in BENCH_TOKEN or --token-file FILE");
}

static const char *const precondition_choices[] = {"fill", "none", NULL};
static const char *const drive_state_choices[] = {"fresh", "preconditioned", "used", "unknown",
						  NULL};

/* Where a row's value goes in struct lg_cli. */
#define AT(member) \
	.offset = offsetof(struct lg_cli, member), .size = sizeof(((struct lg_cli *)0)->member)

static const struct lg_option options[LG_OPT_COUNT] = {
	[LG_OPT_TARGET] =
		{
			.name = "target",
			.type = LG_VAL_STRING,
			.commands = LG_IN_RUN,
			.section = "run: test selection",
			.arg = "PATH",
			AT(run.target),
			.help = "file (created when missing, with --size) or block device",
		},
	[LG_OPT_SUITE] =
		{
			.name = "suite",
			.type = LG_VAL_STRING,
			.commands = LG_IN_RUN,
			.arg = "NAME[:VERSION]",
			AT(run.suite_arg),
			.help = "a built-in suite, by name (see `loadgen list`; latest version if\n"
				"omitted)",
			.param = "suite",
			.record = LG_REC_SUITE,
		},
	[LG_OPT_TESTS] =
		{
			.name = "tests",
			.type = LG_VAL_STRING,
			.commands = LG_IN_RUN,
			.arg = "ID[,ID...]",
			AT(run.tests_arg),
			.help = "a subset of catalog tests, by id (see `loadgen list`)",
			.param = "tests",
			.record = LG_REC_LIST,
			.follows = "suite ad_hoc",
		},
	[LG_OPT_QD_MAX] =
		{
			.name = "qd-max",
			.type = LG_VAL_UINT,
			.commands = LG_IN_RUN,
			.arg = "N",
			.default_value = "32",
			AT(run.qd_max),
			.min = 1,
			.max = 1024,
			.invalid = "a queue depth from 1 to 1024",
			.help = "the deepest point of a queue-depth sweep (suite workloads-2026) to run,\n"
				"1-1024 (default 32: QD1 to QD32; 128 runs QD64 and QD128 too); a sweep\n"
				"test named in --tests deeper than N is refused",
			.param = "qd_max",
			.record = LG_REC_VALUE,
			.param_default = "32",
		},
	[LG_OPT_RW] =
		{
			.name = "rw",
			.type = LG_VAL_STRING,
			.commands = LG_IN_RUN,
			.arg = "randread|randwrite|read|write|randrw|rw",
			AT(run.rw),
			.help = "one ad-hoc test, id \"adhoc-<rw>-<bs>-qd<N>\" (parameters.ad_hoc=true), with:",
			.param = "rw",
			.record = LG_REC_VALUE,
		},
	[LG_OPT_RWMIXREAD] =
		{
			.name = "rwmixread",
			.type = LG_VAL_UINT,
			.commands = LG_IN_RUN,
			.arg = "P",
			.default_value = "50",
			AT(run.rwmixread),
			.min = 0,
			.max = 100,
			.invalid = "a percentage from 0 to 100",
			.help = "randrw and rw: each I/O a read with probability P%, else a write\n"
				"(default 50; id \"adhoc-randrw<P>-...\"); reads and writes are\n"
				"reported separately (read, write) beside their sum",
			.param = "rwmixread",
			.record = LG_REC_VALUE,
		},
	[LG_OPT_BS] =
		{
			.name = "bs",
			.type = LG_VAL_SIZE,
			.commands = LG_IN_RUN,
			.arg = "SIZE",
			.default_value = "4k",
			AT(run.adhoc.block_size),
			.min = 512,
			.max = 64 * 1024 * 1024,
			.multiple = 512,
			.invalid = "a multiple of 512 from 512 to 64M",
			.help = "its block size (default 4k)",
			.param = "block_size",
			.record = LG_REC_SIZE,
			.param_default = "4096",
		},
	[LG_OPT_QD] =
		{
			.name = "qd",
			.type = LG_VAL_UINT,
			.commands = LG_IN_RUN,
			.arg = "N",
			.default_value = "1",
			AT(run.adhoc.queue_depth),
			.min = 1,
			.max = 1024,
			.invalid = "a queue depth from 1 to 1024",
			.help = "its queue depth (default 1)",
			.param = "queue_depth",
			.record = LG_REC_VALUE,
			.param_default = "1",
		},
	[LG_OPT_SPAN] =
		{
			.name = "span",
			.type = LG_VAL_SIZE,
			.commands = LG_IN_RUN,
			.arg = "SIZE",
			AT(run.adhoc.span_bytes),
			.min = 1,
			.max = 18446744073709551615.0,
			.invalid = "a size",
			.help = "its span (default the whole target)",
			.param = "span_bytes",
			.record = LG_REC_SIZE,
		},
	[LG_OPT_TIME] =
		{
			.name = "time",
			.type = LG_VAL_NUMBER,
			.commands = LG_IN_RUN,
			.arg = "SECONDS",
			AT(run.time_s),
			.max = 1e6,
			.invalid = "a positive number of seconds",
			.help = "its duration (required); with --tests or --suite, the time cap of the\n"
				"write saturation wsat-4k-qd32 (default 86400: 24 h)",
			.param = "time_s",
			.record = LG_REC_VALUE,
		},
	[LG_OPT_RATE] =
		{
			.name = "rate",
			.type = LG_VAL_UINT,
			.commands = LG_IN_RUN,
			.arg = "IOPS",
			AT(run.rate_iops),
			.min = 1,
			.max = 100000000,
			.invalid = "a rate from 1 to 100000000 I/Os a second",
			.help = "pace it: issue IOPS I/Os a second on a fixed schedule (open loop; with\n"
				"--jobs, shared among the workers), each I/O when it is due if the queue\n"
				"has room, else as soon as a slot frees; latency runs from the time each\n"
				"I/O was due, so a stall of the device shows in every I/O it delayed.\n"
				"Recorded as the result's rate_iops",
			.param = "rate_iops",
			.record = LG_REC_VALUE,
		},
	[LG_OPT_LOAD] =
		{
			.name = "load",
			.type = LG_VAL_CUSTOM,
			.commands = LG_IN_RUN,
			.arg = "P[,P...]",
			.parse = read_load,
			.help = "run it first unpaced (its maximum), then paced at each P% of the IOPS\n"
				"that run reached (1-100, e.g. 10,25,50,75,90,100), each a result of its own,\n"
				"id \"<id>-load<P>\", with its rate_iops and load_percent: the response time\n"
				"against throughput curve. Not with --rate",
			.param = "load_percent",
			.record = LG_REC_LIST,
		},
	[LG_OPT_PATTERN] =
		{
			.name = "pattern",
			.type = LG_VAL_CUSTOM,
			.commands = LG_IN_RUN,
			.section = "run: data and timing",
			.arg = "compressible|incompressible|both",
			.default_value = "both",
			.parse = read_pattern,
			.help = "data of write tests (default both, also written compressible,incompressible).\n"
				"compressible: each 4 KiB is 2 KiB of fresh random bytes then 2 KiB of\n"
				"zeros (ratio 2.0); incompressible: fresh random bytes for every write.\n"
				"Read tests read data written in that pattern, so each pattern has its\n"
				"own read results. Consistency and TRIM validation always write\n"
				"incompressible data.",
			.param = "patterns",
			.record = LG_REC_LIST,
			.param_default = "[\"compressible\", \"incompressible\"]",
		},
	[LG_OPT_DURATION_SCALE] =
		{
			.name = "duration-scale",
			.type = LG_VAL_NUMBER,
			.commands = LG_IN_RUN,
			.arg = "F",
			.default_value = "1",
			AT(run.duration_scale),
			.max = 1000,
			.invalid = "a positive number up to 1000",
			.help = "multiply every test's duration (and the TRIM torture) by F (default 1)",
			.param = "duration_scale",
			.record = LG_REC_VALUE,
			.param_default = "1",
		},
	[LG_OPT_ROUND] =
		{
			.name = "round",
			.type = LG_VAL_NUMBER,
			.commands = LG_IN_RUN,
			.arg = "SECONDS",
			AT(run.round_s),
			.min = 0.01,
			.max = 3600,
			.invalid = "a number of seconds from 0.01 to 3600",
			.help = "the rounds of wsat-4k-qd32 in which IOPS are counted (default 60)",
			.param = "round_s",
			.record = LG_REC_VALUE,
		},
	[LG_OPT_QUICK] =
		{
			.name = "quick",
			.type = LG_VAL_FLAG,
			.commands = LG_IN_RUN,
			AT(run.quick),
			.help = "short smoke run: every timed phase 2 s (consistency 10 s, torture 5 s),\n"
				"every span capped at 256 MiB; the real spans and times are recorded",
			.param = "quick",
			.record = LG_REC_TRUE,
		},
	[LG_OPT_REPEAT] =
		{
			.name = "repeat",
			.type = LG_VAL_UINT,
			.commands = LG_IN_RUN,
			.arg = "N",
			AT(run.repeat),
			.min = 1,
			.max = 100,
			.invalid = "a number of passes from 1 to 100",
			.help = "run the throughput tests N times (1-100), each pass a result of its own\n"
				"(its \"repeat\": 1..N), so the run shows its own run-to-run spread. Each\n"
				"pattern is preconditioned once, then its passes follow one another, every\n"
				"pass the tests in the same order. Default 3 for a full-length suite or\n"
				"--tests run, 1 with --quick, --duration-scale or --rw. Consistency, TRIM\n"
				"validation and write saturation run once",
			.param = "repeat",
			.record = LG_REC_VALUE,
		},
	[LG_OPT_SPARE_AREA] =
		{
			.name = "spare-area",
			.type = LG_VAL_CUSTOM,
			.commands = LG_IN_RUN,
			.arg = "P[,P...]",
			.default_value = "0,25",
			.parse = read_spare_area,
			.help = "consistency spare-area levels in percent, 0-90 (default 0,25: the test\n"
				"is repeated on 100% and 75% of the target); before each level the\n"
				"whole target is discarded, so that the part left out is really unused",
			.param = "spare_area_percent",
			.record = LG_REC_LIST,
			.param_default = "[0, 25]",
		},
	[LG_OPT_SEED] =
		{
			.name = "seed",
			.type = LG_VAL_UINT,
			.commands = LG_IN_RUN,
			.arg = "N",
			AT(run.seed),
			.min = 0,
			.max = 9007199254740991.0,
			.invalid = "an integer from 0 to 2^53-1",
			.help = "random seed (default: from the clock; always recorded)",
			.param = "seed",
			.record = LG_REC_VALUE,
		},
	[LG_OPT_PRECONDITION] =
		{
			.name = "precondition",
			.type = LG_VAL_CHOICE,
			.commands = LG_IN_RUN,
			.arg = "fill|none",
			.default_value = "fill",
			AT(run.precondition),
			.choices = precondition_choices,
			.help = "fill (default): before the throughput tests of each pattern, write the\n"
				"span the read tests read with that pattern. none: read what is there\n"
				"already, as a previous run left it (say so with --drive-state). Recorded\n"
				"as parameters.precondition. A file this run creates is always filled.",
			.param = "precondition",
			.record = LG_REC_VALUE,
			.param_default = "\"fill\"",
		},
	[LG_OPT_ENGINE] =
		{
			.name = "engine",
			.type = LG_VAL_CUSTOM,
			.commands = LG_IN_RUN,
			.section = "run: I/O",
			.arg = "io_uring|psync",
			.parse = read_engine,
			.help = "(default io_uring when the kernel offers it, else psync)",
			.param = "engine",
			.record = LG_REC_VALUE,
		},
	[LG_OPT_JOBS] =
		{
			.name = "jobs",
			.type = LG_VAL_UINT,
			.commands = LG_IN_RUN,
			.arg = "N",
			.default_value = "1",
			AT(run.jobs),
			.min = 1,
			.max = 64,
			.invalid = "a number of jobs from 1 to 64",
			.help = "throughput tests: N workers (threads, 1-64), each with its own engine,\n"
				"buffers and queue of the test's depth, like fio's numjobs with\n"
				"group_reporting: random ones over the whole span, sequential ones each\n"
				"on its 1/N of it; IOPS and bytes summed, latencies merged (default 1)",
			.param = "jobs",
			.record = LG_REC_VALUE,
			.param_default = "1",
		},
	[LG_OPT_BUFFERED] =
		{
			.name = "buffered",
			.type = LG_VAL_FLAG,
			.commands = LG_IN_RUN,
			AT(run.buffered),
			.help = "allow buffered I/O (default O_DIRECT; a target that cannot do it is an error,\n"
				"and so is a file on tmpfs or ramfs, whose data lives in memory)",
			.param = "direct",
			.record = LG_REC_FALSE,
		},
	[LG_OPT_SIZE] =
		{
			.name = "size",
			.type = LG_VAL_SIZE,
			.commands = LG_IN_RUN,
			.arg = "SIZE",
			AT(run.size),
			.min = 1,
			.max = 18446744073709551615.0,
			.invalid = "a size",
			.help = "size of a file target (needed when the file does not exist yet)",
			.param = "target_size_bytes",
			.record = LG_REC_SIZE,
		},
	[LG_OPT_DESTROY_DATA] =
		{
			.name = "destroy-data",
			.type = LG_VAL_STRING,
			.commands = LG_IN_RUN,
			.section = "run: safety",
			.arg = "DEVICE",
			.arg_attached = true,
			AT(run.destroy_data),
			.help = "required to write to a block device; must name the target device.\n"
				"Even then a device that is mounted, has a mounted or in-use partition,\n"
				"has holders (LVM, RAID, dm), is swap or cannot be opened exclusively is\n"
				"refused. Read-only runs (read tests only) need no confirmation.",
		},
	[LG_OPT_FORCE] =
		{
			.name = "force",
			.type = LG_VAL_FLAG,
			.commands = LG_IN_RUN,
			AT(run.force),
			.help = "allow overwriting an existing file that loadgen did not create",
		},
	[LG_OPT_DRIVE] =
		{
			.name = "drive",
			.type = LG_VAL_CUSTOM,
			.commands = LG_IN_RUN,
			.section = "run: provenance (copied into the document)",
			.arg = "KEY=VALUE[,KEY=VALUE...]",
			.parse = read_drive,
			.help = "manufacturer, model, capacity (SIZE), part_number, hardware_revision,\n"
				"slug (the site's slug of the catalog drive: names it exactly; the device's\n"
				"own vendor, model and capacity are then not copied into the drive block),\n"
				"kind (ssd|hdd|virtual: a VM's virtual disk or a RAM disk; default: virtual for\n"
				"virtual devices and files on them or in RAM, else the rotational flag of a block\n"
				"device; left out for a file on a real disk),\n"
				"interface (sata-1.5g|sata-3g|sata-6g|pcie-nvme|pata|other)",
		},
	[LG_OPT_FIRMWARE] =
		{
			.name = "firmware",
			.type = LG_VAL_CUSTOM,
			.commands = LG_IN_RUN,
			.arg = "REV",
			.parse = read_firmware,
			.help = "drive firmware (default: the target's reported revision)",
		},
	[LG_OPT_BENCH] =
		{
			.name = "bench",
			.type = LG_VAL_CUSTOM,
			.commands = LG_IN_RUN,
			.arg = "KEY=VALUE[,...]",
			.parse = read_bench,
			.help = "name, cpu, motherboard, chipset, memory, os, storage_driver, interface\n"
				"(--drive, --bench and --firmware values are trimmed of spaces; a blank,\n"
				"too long (200 bytes; 100 for part_number, hardware_revision, firmware),\n"
				"non-UTF-8 or control-character value is refused)",
		},
	[LG_OPT_DRIVE_STATE] =
		{
			.name = "drive-state",
			.type = LG_VAL_CHOICE,
			.commands = LG_IN_RUN,
			.arg = "fresh|preconditioned|used|unknown",
			AT(run.drive_state),
			.choices = drive_state_choices,
			.help = "the drive's state before the run (default unknown)",
		},
	[LG_OPT_OUTPUT] =
		{
			.name = "output",
			.type = LG_VAL_STRING,
			.commands = LG_IN_RUN,
			.section = "run: output",
			.arg = "FILE",
			AT(run.output),
			.help = "result document path (default: loadgen-YYYYMMDD-HHMMSS.json), written\n"
				"atomically (temporary file, fsync, rename); the temporary file is\n"
				"created before the run, so an output that cannot be written stops\n"
				"it before any I/O (exit 2)",
		},
	[LG_OPT_QUIET] =
		{
			.name = "quiet",
			.type = LG_VAL_FLAG,
			.commands = LG_IN_RUN,
			AT(run.quiet),
			.help = "no table on stdout, no progress line",
		},
	[LG_OPT_PLAN] =
		{
			.name = "plan",
			.type = LG_VAL_FLAG,
			.commands = LG_IN_RUN,
			AT(run.plan),
			.help = "print what the run would record as its document's tool, target and\n"
				"parameters (one JSON object on stdout) and stop: the target is examined\n"
				"and checked as the run would, but not opened, created or written, and\n"
				"no document is written or uploaded",
		},
	[LG_OPT_UPLOAD] =
		{
			.name = "upload",
			.type = LG_VAL_STRING,
			.commands = LG_IN_RUN,
			.arg = "URL",
			AT(upload.url),
			.help = "once the document is written, upload it to the Bench site at URL\n"
				"(as loadgen upload does; --token-file and --retry-for apply). Before\n"
				"any I/O to the target, one GET URL/api/v1/me/runs/?limit=1 with the\n"
				"token (30 s at most, not retried) checks that the site accepts it: a\n"
				"missing or refused token (401, 403), another answer or a site that\n"
				"cannot be reached stops the run (exit 2), saying which",
		},
	[LG_OPT_COMPARE] =
		{
			.name = "compare",
			.type = LG_VAL_CUSTOM,
			.commands = LG_IN_RUN,
			.arg = "URL",
			.parse = read_compare,
			.help = "a drive's page on a Bench site (https://HOST/drives/SLUG/): its figures\n"
				"are fetched before the run (5 s at most), and each throughput test's\n"
				"result is printed beside the site's figure for that test and pattern\n"
				"(the mean of the drive's runs, as its pages show) with the difference\n"
				"in %, or \"not tested\". When the site cannot be read, the run goes on\n"
				"and says it compares with nothing. Needs libcurl, as --upload does",
		},
	[LG_OPT_URL] =
		{
			.name = "url",
			.type = LG_VAL_STRING,
			.commands = LG_IN_UPLOAD | LG_IN_RUN,
			.section = "upload (and run --upload)",
			.arg = "URL",
			AT(upload.url),
			.help = "the Bench site (https://bench.example.org): POST URL/api/v1/runs/",
		},
	[LG_OPT_TOKEN_FILE] =
		{
			.name = "token-file",
			.type = LG_VAL_STRING,
			.commands = LG_IN_UPLOAD | LG_IN_RUN,
			.arg = "FILE",
			AT(upload.token_file),
			.help = "the API token: the file's first line (default: $BENCH_TOKEN)",
		},
	[LG_OPT_TOKEN] =
		{
			.name = "token",
			.type = LG_VAL_CUSTOM,
			.commands = LG_IN_UPLOAD | LG_IN_RUN,
			.arg = "TOKEN",
			.parse = refuse_token,
			.help = "refused: a token on the command line is seen by every user of the\n"
				"machine (ps, shell history); give it in BENCH_TOKEN or --token-file",
		},
	[LG_OPT_RETRY_FOR] =
		{
			.name = "retry-for",
			.type = LG_VAL_NUMBER,
			.commands = LG_IN_UPLOAD | LG_IN_RUN,
			.arg = "SECONDS",
			.default_value = "120",
			AT(upload.retry_for_s),
			.max = 86400,
			.invalid = "a number of seconds above 0 and at most 86400",
			.help = "retry a failed connection, a 5xx or a 429 (honouring Retry-After), waiting\n"
				"1, 2, 4... s, until SECONDS have passed (default 120)",
		},
	[LG_OPT_JSON] =
		{
			.name = "json",
			.type = LG_VAL_FLAG,
			.commands = LG_IN_LIST | LG_IN_INFO | LG_IN_OPTIONS,
			.section = "list, info and options",
			AT(json),
			.help = "print JSON: list, {\"tests\", \"suites\"} with the fields of\n"
				"results/schema/catalog.json; info, what it shows as one object;\n"
				"options, every option with its command, value, help and how the\n"
				"document's parameters record it (results/schema/loadgen-options.json)",
		},
	[LG_OPT_MAN] =
		{
			.name = "man",
			.type = LG_VAL_FLAG,
			.commands = LG_IN_OPTIONS,
			AT(man),
			.help = "options: print the man page, loadgen(1), in troff",
		},
	[LG_OPT_HELP] =
		{
			.name = "help",
			.short_name = 'h',
			.type = LG_VAL_FLAG,
			.commands = LG_IN_RUN | LG_IN_UPLOAD | LG_IN_LIST | LG_IN_INFO |
				    LG_IN_OPTIONS,
			.help = "this text",
		},
};

const struct lg_option *lg_cli_options(void)
{
	return options;
}

/* The error for a value of opt that is not what it should be. */
static int invalid(const struct lg_option *opt, const char *value, char *err, size_t err_len)
{
	char choices[256] = "";
	size_t len = 0;

	if (opt->type != LG_VAL_CHOICE)
		return fail(err, err_len, "--%s: \"%s\" is not %s", opt->name, value, opt->invalid);
	for (const char *const *c = opt->choices; *c && len < sizeof(choices); c++) {
		const char *sep = c == opt->choices ? "" : c[1] ? ", " : " or ";

		len += (size_t)snprintf(choices + len, sizeof(choices) - len, "%s%s", sep, *c);
	}
	return fail(err, err_len, "--%s must be %s", opt->name, choices);
}

/* Read value (NULL for a flag) as opt says, into where opt says in cli. */
static int store(const struct lg_option *opt, const char *value, struct lg_cli *cli, char *err,
		 size_t err_len)
{
	char *field = (char *)cli + opt->offset;
	uint64_t u = 0;
	double d = 0;
	int r;

	switch (opt->type) {
	case LG_VAL_FLAG:
		*(bool *)field = true;
		return 0;
	case LG_VAL_STRING:
		*(const char **)field = value;
		return 0;
	case LG_VAL_UINT:
	case LG_VAL_SIZE:
		r = opt->type == LG_VAL_UINT ? lg_parse_u64(value, &u) : lg_parse_size(value, &u);
		if (r < 0 || (double)u < opt->min || (double)u > opt->max ||
		    (opt->multiple && u % opt->multiple))
			return invalid(opt, value, err, err_len);
		if (opt->size == sizeof(uint32_t))
			*(uint32_t *)field = (uint32_t)u;
		else
			*(uint64_t *)field = u;
		return 0;
	case LG_VAL_NUMBER:
		if (lg_parse_positive_double(value, &d) < 0 || d < opt->min || d > opt->max)
			return invalid(opt, value, err, err_len);
		*(double *)field = d;
		return 0;
	case LG_VAL_CHOICE:
		for (const char *const *c = opt->choices; *c; c++) {
			if (strcmp(*c, value) == 0) {
				*(const char **)field = *c;
				return 0;
			}
		}
		return invalid(opt, value, err, err_len);
	case LG_VAL_CUSTOM:
	default:
		return opt->parse(cli, value, err, err_len);
	}
}

/* The options of command (LG_IN_*, named name) in argv, each stored and marked given.
 * Returns 0, 1 for --help (cli->command is LG_CMD_HELP then), or -EINVAL; optind is
 * at the first argument that is no option (getopt_long moves them to the end). */
static int parse_options(unsigned command, const char *name, int argc, char **argv,
			 struct lg_cli *cli, char *err, size_t err_len)
{
	struct option longopts[LG_OPT_COUNT + 1];
	char shorts[2 * LG_OPT_COUNT + 1];
	size_t n = 0, ns = 0;
	int c, r;

	for (size_t id = 0; id < LG_OPT_COUNT; id++) {
		const struct lg_option *opt = &options[id];
		int has_arg = opt->type == LG_VAL_FLAG ? no_argument : required_argument;

		if (!(opt->commands & command))
			continue;
		longopts[n++] = (struct option){opt->name, has_arg, NULL, OPT_VAL(id)};
		if (opt->short_name) {
			shorts[ns++] = opt->short_name;
			if (has_arg == required_argument)
				shorts[ns++] = ':';
		}
	}
	longopts[n] = (struct option){NULL, 0, NULL, 0};
	shorts[ns] = '\0';
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		size_t id = c >= OPT_VAL(0) ? (size_t)(c - OPT_VAL(0)) : LG_OPT_COUNT;

		for (size_t i = 0; i < LG_OPT_COUNT && id == LG_OPT_COUNT && c != '?'; i++)
			if (options[i].short_name == c && (options[i].commands & command))
				id = i;
		if (id >= LG_OPT_COUNT)
			return bad_option(name, argc, argv, longopts, err, err_len);
		if (id == LG_OPT_HELP) {
			cli->command = LG_CMD_HELP;
			return 1;
		}
		cli->given[id] = true;
		r = store(&options[id], optarg, cli, err, err_len);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Each option of command (LG_IN_*) that has a default_value takes it, read as a given
 * value is (before the command line's, which overwrite it). */
static int apply_defaults(unsigned command, struct lg_cli *cli, char *err, size_t err_len)
{
	for (size_t id = 0; id < LG_OPT_COUNT; id++) {
		const struct lg_option *opt = &options[id];
		int r;

		if (!(opt->commands & command) || !opt->default_value)
			continue;
		r = store(opt, opt->default_value, cli, err, err_len);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The tests of --suite (a sweep's depths beyond --qd-max left out) and of --tests. */
static int select_tests(struct lg_run_options *o, char *err, size_t err_len)
{
	int r;

	if (o->suite_arg) {
		r = lg_suite_find(o->suite_arg, &o->suite);
		if (r == -EINVAL)
			return fail(err, err_len, "--suite: malformed version in \"%s\"",
				    o->suite_arg);
		if (r < 0)
			return fail(err, err_len, "unknown suite \"%s\" (see `loadgen list`)",
				    o->suite_arg);
		for (const char *const *id = o->suite->tests; *id; id++) {
			const struct lg_test_def *t;

			if (lg_suite_find_test(*id, &t) == 0 &&
			    !(t->family && t->queue_depth > o->qd_max)) {
				r = add_test(o, t, err, err_len);
				if (r < 0)
					return r;
			}
		}
	}
	if (o->tests_arg)
		return parse_tests(o->tests_arg, o, err, err_len);
	return 0;
}

/* The ad-hoc test of --rw, --bs, --qd, --span, --rwmixread, --jobs and --time. */
static int adhoc_test(struct lg_cli *cli, char *err, size_t err_len)
{
	struct lg_run_options *o = &cli->run;
	struct lg_test_def *t = &o->adhoc;
	char bs_id[32], mix[16] = "", jobs_id[16] = "", id[128];

	if (parse_rw(o->rw, t) < 0)
		return fail(err, err_len,
			    "--rw must be randread, randwrite, read, write, randrw or rw");
	if (cli->given[LG_OPT_RWMIXREAD] && !t->mixed)
		return fail(err, err_len, "--rwmixread goes with --rw randrw or rw");
	t->read_percent = t->mixed ? o->rwmixread : 0;
	if (!cli->given[LG_OPT_TIME])
		return fail(err, err_len, "--rw needs --time SECONDS");
	if (cli->given[LG_OPT_SPAN] && t->span_bytes < t->block_size)
		return fail(err, err_len, "--span is smaller than --bs");
	lg_format_size_id(t->block_size, bs_id, sizeof(bs_id));
	if (t->mixed)
		snprintf(mix, sizeof(mix), "%u", t->read_percent);
	if (o->jobs > 1)
		snprintf(jobs_id, sizeof(jobs_id), "-j%u", o->jobs);
	snprintf(id, sizeof(id), "adhoc-%s%s-%s-qd%u%s", o->rw, mix, bs_id, t->queue_depth,
		 jobs_id);
	/* --load's results are "<id>-load<P>", P up to 100. */
	if (strlen(id) + (o->nloads ? strlen("-load100") : 0) >= sizeof(o->adhoc_id))
		return fail(err, err_len, "the ad-hoc test's id %s is too long", id);
	memcpy(o->adhoc_id, id, strlen(id) + 1);
	t->id = o->adhoc_id;
	t->name = o->adhoc_id;
	t->kind = LG_KIND_THROUGHPUT;
	t->duration_s = 0; /* adhoc_time_s holds the time */
	t->unit = "bytes/s";
	t->higher_is_better = true;
	o->adhoc_time_s = o->time_s;
	o->ad_hoc = true;
	o->tests[0] = t;
	o->ntests = 1;
	return 0;
}

static int parse_run(int argc, char **argv, struct lg_cli *cli, char *err, size_t err_len)
{
	struct lg_run_options *o = &cli->run;
	const bool *given = cli->given;
	int r;

	r = apply_defaults(LG_IN_RUN, cli, err, err_len);
	if (r < 0)
		return r;
	r = parse_options(LG_IN_RUN, "run", argc, argv, cli, err, err_len);
	if (r != 0)
		return r < 0 ? r : 0;
	if (optind < argc)
		return fail(err, err_len, "unexpected argument \"%s\"", argv[optind]);
	if (!o->target || !o->target[0])
		return fail(err, err_len, "run needs --target PATH");
	o->precondition_none = strcmp(o->precondition, "none") == 0;
	o->seed_given = given[LG_OPT_SEED];
	o->size_given = given[LG_OPT_SIZE];

	int selections = (o->suite_arg != NULL) + (o->tests_arg != NULL) + (o->rw != NULL);

	if (selections == 0)
		return fail(err, err_len,
			    "run needs --suite, --tests or --rw (see loadgen --help)");
	if (selections > 1)
		return fail(err, err_len, "--suite, --tests and --rw exclude each other");
	if (!o->rw &&
	    (given[LG_OPT_BS] || given[LG_OPT_QD] || given[LG_OPT_SPAN] || given[LG_OPT_RWMIXREAD]))
		return fail(err, err_len, "--bs, --qd, --span and --rwmixread go with --rw");
	if (!o->rw && (given[LG_OPT_RATE] || given[LG_OPT_LOAD]))
		return fail(err, err_len, "--rate and --load go with --rw");
	if (given[LG_OPT_RATE] && given[LG_OPT_LOAD])
		return fail(err, err_len,
			    "--rate and --load exclude each other: --load sets the rate of each "
			    "of its runs");
	if (o->rw && given[LG_OPT_ROUND])
		return fail(err, err_len, "--round goes with the write saturation wsat-4k-qd32");
	if (o->rw && given[LG_OPT_QD_MAX])
		return fail(err, err_len, "--qd-max goes with --suite or --tests");
	/* A full-length run measures its own spread; a shortened one is a smoke run. */
	if (!given[LG_OPT_REPEAT])
		o->repeat = o->quick || o->duration_scale != 1.0 || o->rw ? 1 : LG_DEFAULT_REPEAT;
	r = select_tests(o, err, err_len);
	if (r < 0)
		return r;
	if (!o->rw && (given[LG_OPT_TIME] || given[LG_OPT_ROUND])) {
		bool wsat = false;

		for (size_t i = 0; i < o->ntests; i++)
			wsat |= o->tests[i]->kind == LG_KIND_SATURATION && o->tests[i]->random;
		if (!wsat)
			return fail(err, err_len,
				    "--time and --round go with --rw or the write saturation "
				    "wsat-4k-qd32");
		if (given[LG_OPT_TIME])
			o->time_cap_s = o->time_s;
	}
	return o->rw ? adhoc_test(cli, err, err_len) : 0;
}

static int parse_upload(int argc, char **argv, struct lg_cli *cli, char *err, size_t err_len)
{
	struct lg_upload_options *u = &cli->upload;
	int r;

	r = apply_defaults(LG_IN_UPLOAD, cli, err, err_len);
	if (r < 0)
		return r;
	r = parse_options(LG_IN_UPLOAD, "upload", argc, argv, cli, err, err_len);
	if (r != 0)
		return r < 0 ? r : 0;
	if (!u->url)
		return fail(err, err_len, "upload needs --url URL (the Bench site)");
	if (optind >= argc)
		return fail(err, err_len, "upload needs at least one result document");
	for (; optind < argc; optind++) {
		if (u->ndocuments == LG_MAX_UPLOADS)
			return fail(err, err_len, "upload takes at most %d documents at once",
				    LG_MAX_UPLOADS);
		u->documents[u->ndocuments++] = argv[optind];
	}
	return 0;
}

/* list, info TARGET and options (--json or --man). */
static int parse_simple(const char *cmd, int argc, char **argv, struct lg_cli *cli, char *err,
			size_t err_len)
{
	unsigned in = cli->command == LG_CMD_LIST   ? LG_IN_LIST
		      : cli->command == LG_CMD_INFO ? LG_IN_INFO
						    : LG_IN_OPTIONS;
	int r = parse_options(in, cmd, argc, argv, cli, err, err_len);
	int rest = argc - optind;

	if (r != 0)
		return r < 0 ? r : 0;
	switch (cli->command) {
	case LG_CMD_LIST:
		return rest == 0 ? 0 : fail(err, err_len, "list takes no argument");
	case LG_CMD_INFO:
		if (rest != 1)
			return fail(err, err_len, "info needs exactly one TARGET");
		cli->info_target = argv[optind];
		return 0;
	default:
		if (rest != 0)
			return fail(err, err_len, "options takes no argument");
		if (cli->json == cli->man)
			return fail(err, err_len, "options needs --json or --man (one of them)");
		return 0;
	}
}

int lg_cli_parse(int argc, char **argv, struct lg_cli *ret_cli, char *err, size_t err_len)
{
	static const struct {
		const char *name;
		enum lg_command command;
	} commands[] = {
		{"run", LG_CMD_RUN},   {"upload", LG_CMD_UPLOAD},   {"list", LG_CMD_LIST},
		{"info", LG_CMD_INFO}, {"options", LG_CMD_OPTIONS},
	};
	struct lg_cli *cli = ret_cli;
	const char *cmd;

	memset(cli, 0, sizeof(*cli));
	err[0] = '\0';
	join_command_line(argc, argv, cli->command_line, sizeof(cli->command_line));
	if (argc < 2)
		return fail(
			err, err_len,
			"no command given (list, info, run, upload, options; see loadgen --help)");
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		cli->command = LG_CMD_HELP;
		return 0;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		cli->command = LG_CMD_VERSION;
		return 0;
	}
	/* getopt_long parses argv[1..] as if argv[1] were the program name. */
	optind = 1;
	opterr = 0;
	for (size_t i = 0; i < COUNT(commands); i++) {
		if (strcmp(cmd, commands[i].name) != 0)
			continue;
		cli->command = commands[i].command;
		if (cli->command == LG_CMD_RUN)
			return parse_run(argc - 1, argv + 1, cli, err, err_len);
		if (cli->command == LG_CMD_UPLOAD)
			return parse_upload(argc - 1, argv + 1, cli, err, err_len);
		return parse_simple(cmd, argc - 1, argv + 1, cli, err, err_len);
	}
	return fail(err, err_len,
		    "unknown command \"%s\" (list, info, run, upload, options; see loadgen --help)",
		    cmd);
}
