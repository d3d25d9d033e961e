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

enum {
	OPT_TARGET = 256,
	OPT_SUITE,
	OPT_TESTS,
	OPT_QD_MAX,
	OPT_RW,
	OPT_BS,
	OPT_QD,
	OPT_SPAN,
	OPT_TIME,
	OPT_PATTERN,
	OPT_SCALE,
	OPT_ROUND,
	OPT_QUICK,
	OPT_REPEAT,
	OPT_SPARE,
	OPT_SEED,
	OPT_ENGINE,
	OPT_BUFFERED,
	OPT_SIZE,
	OPT_DESTROY,
	OPT_FORCE,
	OPT_DRIVE,
	OPT_FIRMWARE,
	OPT_BENCH,
	OPT_STATE,
	OPT_JOBS,
	OPT_RWMIX,
	OPT_PRECONDITION,
	OPT_OUTPUT,
	OPT_QUIET,
	OPT_UPLOAD,
	OPT_COMPARE,
	OPT_URL,
	OPT_TOKEN_FILE,
	OPT_TOKEN,
	OPT_RETRY_FOR,
	OPT_JSON,
	OPT_HELP,
};

/* An option with its --help text: the getopt tables and the help are both built
 * from these, so that they cannot drift apart. */
struct option_doc {
	const char *section; /* a heading printed before the option, or NULL */
	const char *name;
	int has_arg;
	int id;
	const char *arg;  /* how its value is written: " PATH", "=DEVICE"; NULL for none */
	const char *help; /* lines separated by \n */
};

static const struct option_doc run_docs[] = {
	{"run: test selection", "target", required_argument, OPT_TARGET, " PATH",
	 "file (created when missing, with --size) or block device"},
	{NULL, "suite", required_argument, OPT_SUITE, " NAME[:VERSION]",
	 "desktop-2010, desktop-2011, steady-state-2013, workloads-2026\n(latest version if omitted)"},
	{NULL, "tests", required_argument, OPT_TESTS, " ID[,ID...]",
	 "a subset of catalog tests, by id (see `loadgen list`)"},
	{NULL, "qd-max", required_argument, OPT_QD_MAX, " N",
	 "the deepest point of a queue-depth sweep (suite workloads-2026) to run,\n"
	 "1-1024 (default 32: QD1 to QD32; 128 runs QD64 and QD128 too); a sweep\n"
	 "test named in --tests deeper than N is refused"},
	{NULL, "rw", required_argument, OPT_RW, " randread|randwrite|read|write|randrw|rw",
	 "one ad-hoc test, id \"adhoc-<rw>-<bs>-qd<N>\" (parameters.ad_hoc=true), with:"},
	{NULL, "rwmixread", required_argument, OPT_RWMIX, " P",
	 "randrw and rw: each I/O a read with probability P%, else a write\n"
	 "(default 50; id \"adhoc-randrw<P>-...\"); reads and writes are\n"
	 "reported separately (read, write) beside their sum"},
	{NULL, "bs", required_argument, OPT_BS, " SIZE", "its block size (default 4k)"},
	{NULL, "qd", required_argument, OPT_QD, " N", "its queue depth (default 1)"},
	{NULL, "span", required_argument, OPT_SPAN, " SIZE", "its span (default the whole target)"},
	{NULL, "time", required_argument, OPT_TIME, " SECONDS",
	 "its duration (required); with --tests or --suite, the time cap of the\n"
	 "write saturation wsat-4k-qd32 (default 86400: 24 h)"},
	{"run: data and timing", "pattern", required_argument, OPT_PATTERN,
	 " compressible|incompressible|both",
	 "data of write tests (default both). compressible: each 4 KiB is 2 KiB\n"
	 "of fresh random bytes then 2 KiB of zeros (ratio 2.0); incompressible:\n"
	 "fresh random bytes for every write. Read tests read data written in\n"
	 "that pattern, so each pattern has its own read results. Consistency\n"
	 "and TRIM validation always write incompressible data."},
	{NULL, "duration-scale", required_argument, OPT_SCALE, " F",
	 "multiply every test's duration (and the TRIM torture) by F"},
	{NULL, "round", required_argument, OPT_ROUND, " SECONDS",
	 "the rounds of wsat-4k-qd32 in which IOPS are counted (default 60)"},
	{NULL, "quick", no_argument, OPT_QUICK, NULL,
	 "short smoke run: every timed phase 2 s (consistency 10 s, torture 5 s),\n"
	 "every span capped at 256 MiB; the real spans and times are recorded"},
	{NULL, "repeat", required_argument, OPT_REPEAT, " N",
	 "run the throughput tests N times (1-100), each pass a result of its own\n"
	 "(its \"repeat\": 1..N), so the run shows its own run-to-run spread. Each\n"
	 "pattern is preconditioned once, then its passes follow one another, every\n"
	 "pass the tests in the same order. Default 3 for a full-length suite or\n"
	 "--tests run, 1 with --quick, --duration-scale or --rw. Consistency, TRIM\n"
	 "validation and write saturation run once"},
	{NULL, "spare-area", required_argument, OPT_SPARE, " P[,P...]",
	 "consistency spare-area levels in percent, 0-90 (default 0,25: the test\n"
	 "is repeated on 100% and 75% of the target); before each level the\n"
	 "whole target is discarded, so that the part left out is really unused"},
	{NULL, "seed", required_argument, OPT_SEED, " N",
	 "random seed (default: from the clock; always recorded)"},
	{NULL, "precondition", required_argument, OPT_PRECONDITION, " fill|none",
	 "fill (default): before the throughput tests of each pattern, write the\n"
	 "span the read tests read with that pattern. none: read what is there\n"
	 "already, as a previous run left it (say so with --drive-state). Recorded\n"
	 "as parameters.precondition. A file this run creates is always filled."},
	{"run: I/O", "engine", required_argument, OPT_ENGINE, " io_uring|psync",
	 "(default io_uring when the kernel offers it, else psync)"},
	{NULL, "jobs", required_argument, OPT_JOBS, " N",
	 "throughput tests: N workers (threads, 1-64), each with its own engine,\n"
	 "buffers and queue of the test's depth, like fio's numjobs with\n"
	 "group_reporting: random ones over the whole span, sequential ones each\n"
	 "on its 1/N of it; IOPS and bytes summed, latencies merged (default 1)"},
	{NULL, "buffered", no_argument, OPT_BUFFERED, NULL,
	 "allow buffered I/O (default O_DIRECT; a target that cannot do it is an error,\n"
	 "and so is a file on tmpfs or ramfs, whose data lives in memory)"},
	{NULL, "size", required_argument, OPT_SIZE, " SIZE",
	 "size of a file target (needed when the file does not exist yet)"},
	{"run: safety", "destroy-data", required_argument, OPT_DESTROY, "=DEVICE",
	 "required to write to a block device; must name the target device.\n"
	 "Even then a device that is mounted, has a mounted or in-use partition,\n"
	 "has holders (LVM, RAID, dm), is swap or cannot be opened exclusively is\n"
	 "refused. Read-only runs (read tests only) need no confirmation."},
	{NULL, "force", no_argument, OPT_FORCE, NULL,
	 "allow overwriting an existing file that loadgen did not create"},
	{"run: provenance (copied into the document)", "drive", required_argument, OPT_DRIVE,
	 " KEY=VALUE[,KEY=VALUE...]",
	 "manufacturer, model, capacity (SIZE), part_number, hardware_revision,\n"
	 "slug (the site's slug of the catalog drive: names it exactly),\n"
	 "kind (ssd|hdd|virtual: a VM's virtual disk or a RAM disk; default: virtual for\n"
	 "virtual devices and files on them or in RAM, else the rotational flag of a block\n"
	 "device; left out for a file on a real disk),\n"
	 "interface (sata-1.5g|sata-3g|sata-6g|pcie-nvme|pata|other)"},
	{NULL, "firmware", required_argument, OPT_FIRMWARE, " REV",
	 "drive firmware (default: the target's reported revision)"},
	{NULL, "bench", required_argument, OPT_BENCH, " KEY=VALUE[,...]",
	 "name, cpu, motherboard, chipset, memory, os, storage_driver, interface\n"
	 "(--drive, --bench and --firmware values are trimmed of spaces; a blank,\n"
	 "too long (200 bytes; 100 for part_number, hardware_revision, firmware),\n"
	 "non-UTF-8 or control-character value is refused)"},
	{NULL, "drive-state", required_argument, OPT_STATE, " fresh|preconditioned|used|unknown",
	 "the drive's state before the run (default unknown)"},
	{"run: output", "output", required_argument, OPT_OUTPUT, " FILE",
	 "result document path (default: loadgen-YYYYMMDD-HHMMSS.json), written\n"
	 "atomically (temporary file, fsync, rename); the temporary file is\n"
	 "created before the run, so an output that cannot be written stops\n"
	 "it before any I/O (exit 2)"},
	{NULL, "quiet", no_argument, OPT_QUIET, NULL, "no table on stdout, no progress line"},
	{NULL, "upload", required_argument, OPT_UPLOAD, " URL",
	 "once the document is written, upload it to the Bench site at URL\n"
	 "(as loadgen upload does; --token-file and --retry-for apply). Before\n"
	 "any I/O to the target, one GET URL/api/v1/me/runs/?limit=1 with the\n"
	 "token (30 s at most, not retried) checks that the site accepts it: a\n"
	 "missing or refused token (401, 403), another answer or a site that\n"
	 "cannot be reached stops the run (exit 2), saying which"},
	{NULL, "compare", required_argument, OPT_COMPARE, " URL",
	 "a drive's page on a Bench site (https://HOST/drives/SLUG/): its figures\n"
	 "are fetched before the run (5 s at most), and each throughput test's\n"
	 "result is printed beside the site's figure for that test and pattern\n"
	 "(the mean of the drive's runs, as its pages show) with the difference\n"
	 "in %, or \"not tested\". When the site cannot be read, the run goes on\n"
	 "and says it compares with nothing. Needs libcurl, as --upload does"},
	{NULL, "help", no_argument, OPT_HELP, NULL, "this text"},
};

/* The upload's own options, shared by `upload` and `run --upload`. */
static const struct option_doc upload_docs[] = {
	{"upload (and run --upload)", "url", required_argument, OPT_URL, " URL",
	 "the Bench site (https://bench.example.org): POST URL/api/v1/runs/"},
	{NULL, "token-file", required_argument, OPT_TOKEN_FILE, " FILE",
	 "the API token: the file's first line (default: $BENCH_TOKEN)"},
	{NULL, "token", required_argument, OPT_TOKEN, " TOKEN",
	 "refused: a token on the command line is seen by every user of the\n"
	 "machine (ps, shell history); give it in BENCH_TOKEN or --token-file"},
	{NULL, "retry-for", required_argument, OPT_RETRY_FOR, " SECONDS",
	 "retry a failed connection, a 5xx or a 429 (honouring Retry-After), waiting\n"
	 "1, 2, 4... s, until SECONDS have passed (default 120)"},
};

static const struct option_doc simple_docs[] = {
	{"list and info", "json", no_argument, OPT_JSON, NULL,
	 "print JSON: list, {\"tests\", \"suites\"} with the fields of\n"
	 "results/schema/catalog.json; info, what it shows as one object"},
	{NULL, "help", no_argument, OPT_HELP, NULL, "this text"},
};

static const char usage_head[] =
	"Usage:\n"
	"  loadgen list [--json]\n"
	"  loadgen info TARGET [--json]\n"
	"  loadgen run --target PATH (--suite NAME[:VERSION] | --tests ID[,ID...] | --rw ...) [options]\n"
	"  loadgen upload --url URL [--token-file FILE] DOCUMENT.json...\n"
	"  loadgen --help | --version\n"
	"\n"
	"Runs the standard SSD tests (4KB random read/write, 128KB and 2MB sequential\n"
	"read/write, performance consistency, TRIM validation) against a file or a block\n"
	"device and writes one result document (JSON, results/schema/result-document.schema.json).\n"
	"\n"
	"list                        suites and tests built in\n"
	"info TARGET                 kind, vendor, model, the serial's salted hash (never the\n"
	"                            serial), firmware, capacity, rotational, drive kind,\n"
	"                            interface and negotiated link, logical and physical block\n"
	"                            size, discard support, mounted/holders/swap, health (NVMe\n"
	"                            SMART log, ATA SMART attributes)\n"
	"upload DOCUMENT...          send result documents to a Bench site; prints each run's page\n";

static const char usage_tail[] =
	"\n"
	"SIZE is a byte count or a number with a binary suffix: 4k = 4K = 4KiB = 4096, M/MiB, G/GiB, T/TiB.\n"
	"Rates: MB/s = 10^6 bytes per second. Latency (CLOCK_MONOTONIC) runs from just before the call\n"
	"that hands the I/O to the kernel (io_uring: writing its submission before the io_uring_enter;\n"
	"psync: queueing it for a worker thread) to the reaping of its completion: fio's total latency\n"
	"(lat), what Iometer reports. Its completion part, from the return of that call to the reaping\n"
	"(fio's clat), is recorded beside it (clat_ns), the clock read once per reaped completion.\n"
	"\n"
	"Exit status: 0 complete; 1 the run failed (document written with status \"failed\");\n"
	"2 usage error; 3 refused for safety (nothing written); 130 interrupted by SIGINT/SIGTERM\n"
	"(document written with status \"incomplete\", the test interrupted keeping what it measured\n"
	"until then, marked partial; more signals within 2 s of the first are ignored, a later one\n"
	"leaves at once without the document).\n";

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define HELP_COLUMN 28
/* The characters of a catalog drive's slug (the site's core.links.SLUG). */
#define SLUG_CHARS "-_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

/* The getopt table of docs, terminated. */
static void option_table(const struct option_doc *docs, size_t n, struct option *ret)
{
	for (size_t i = 0; i < n; i++)
		ret[i] = (struct option){docs[i].name, docs[i].has_arg, NULL, docs[i].id};
	ret[n] = (struct option){NULL, 0, NULL, 0};
}

struct text {
	char buf[12000];
	size_t len;
};

/* Append to t, silently cut at its capacity (a test checks the help is whole). */
__attribute__((format(printf, 2, 3))) static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len >= sizeof(t->buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n < sizeof(t->buf) - t->len ? (size_t)n
							      : sizeof(t->buf) - 1 - t->len;
}

/* The help of docs: each option, then its text from column HELP_COLUMN, on the
 * option's line when it fits there. */
static void describe(struct text *t, const struct option_doc *docs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct option_doc *d = &docs[i];
		const char *line = d->help;
		size_t before;

		if (d->section)
			put(t, "%s\n", d->section);
		before = t->len;
		put(t, "  --%s%s", d->name, d->arg ? d->arg : "");
		if (t->len - before >= HELP_COLUMN)
			put(t, "\n%*s", HELP_COLUMN, "");
		else
			put(t, "%*s", (int)(HELP_COLUMN - (t->len - before)), "");
		for (;;) {
			size_t l = strcspn(line, "\n");

			put(t, "%.*s\n", (int)l, line);
			if (!line[l] || !line[l + 1])
				break;
			line += l + 1;
			put(t, "%*s", HELP_COLUMN, "");
		}
	}
}

const char *lg_cli_usage(void)
{
	static struct text t;

	if (t.len)
		return t.buf;
	put(&t, "%s\n", usage_head);
	describe(&t, run_docs, COUNT(run_docs));
	describe(&t, upload_docs, COUNT(upload_docs));
	describe(&t, simple_docs, COUNT(simple_docs));
	put(&t, "%s", usage_tail);
	return t.buf;
}

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

static int upload_option(int c, struct lg_upload_options *u, char *err, size_t err_len);

static int parse_run(int argc, char **argv, struct lg_cli *cli, char *err, size_t err_len)
{
	struct lg_run_options *o = &cli->run;
	const char *rw = NULL, *tests = NULL, *suite = NULL;
	uint64_t bs = 4096, qd = 1, span = 0, rwmix = 50, jobs = 1, repeat = 0;
	bool have_rwmix = false;
	bool have_bs = false, have_qd = false, have_span = false, have_time = false;
	uint64_t qd_max = LG_DEFAULT_QD_MAX;
	bool have_qd_max = false;
	const char *firmware = NULL;
	struct option run_options[COUNT(run_docs) + COUNT(upload_docs) + 1];
	struct option_doc docs[COUNT(run_docs) + COUNT(upload_docs)];
	int c, r;

	o->duration_scale = 1.0;
	o->upload.retry_for_s = LG_DEFAULT_RETRY_FOR_S;
	o->want_compressible = o->want_incompressible = true;
	o->spare[0] = 0;
	o->spare[1] = 25;
	o->nspare = 2;
	memcpy(docs, run_docs, sizeof(run_docs));
	memcpy(docs + COUNT(run_docs), upload_docs, sizeof(upload_docs));
	option_table(docs, COUNT(docs), run_options);
	while ((c = getopt_long(argc, argv, "", run_options, NULL)) != -1) {
		if ((r = upload_option(c, &o->upload, err, err_len)) <= 0) {
			if (r < 0)
				return r;
			continue;
		}
		switch (c) {
		case OPT_TARGET:
			o->target = optarg;
			break;
		case OPT_SUITE:
			suite = optarg;
			break;
		case OPT_TESTS:
			tests = optarg;
			break;
		case OPT_RW:
			rw = optarg;
			break;
		case OPT_BS:
			if (lg_parse_size(optarg, &bs) < 0 || bs < 512 || bs % 512 ||
			    bs > 64u * 1024 * 1024)
				return fail(err, err_len,
					    "--bs: \"%s\" is not a multiple of 512 from 512 to 64M",
					    optarg);
			have_bs = true;
			break;
		case OPT_QD:
			if (lg_parse_u64(optarg, &qd) < 0 || qd < 1 || qd > 1024)
				return fail(err, err_len,
					    "--qd: \"%s\" is not a queue depth from 1 to 1024",
					    optarg);
			have_qd = true;
			break;
		case OPT_QD_MAX:
			if (lg_parse_u64(optarg, &qd_max) < 0 || qd_max < 1 || qd_max > 1024)
				return fail(err, err_len,
					    "--qd-max: \"%s\" is not a queue depth from 1 to 1024",
					    optarg);
			have_qd_max = true;
			break;
		case OPT_SPAN:
			if (lg_parse_size(optarg, &span) < 0 || span == 0)
				return fail(err, err_len, "--span: \"%s\" is not a size", optarg);
			have_span = true;
			break;
		case OPT_TIME:
			if (lg_parse_positive_double(optarg, &o->adhoc_time_s) < 0 ||
			    o->adhoc_time_s > 1e6)
				return fail(err, err_len,
					    "--time: \"%s\" is not a positive number of seconds",
					    optarg);
			have_time = true;
			break;
		case OPT_ROUND:
			if (lg_parse_positive_double(optarg, &o->round_s) < 0 ||
			    o->round_s < 0.01 || o->round_s > 3600)
				return fail(err, err_len,
					    "--round: \"%s\" is not a number of seconds from 0.01 "
					    "to 3600",
					    optarg);
			break;
		case OPT_PATTERN:
			if (strcmp(optarg, "both") == 0) {
				o->want_compressible = o->want_incompressible = true;
			} else if (strcmp(optarg, "compressible") == 0) {
				o->want_compressible = true;
				o->want_incompressible = false;
			} else if (strcmp(optarg, "incompressible") == 0) {
				o->want_compressible = false;
				o->want_incompressible = true;
			} else {
				return fail(
					err, err_len,
					"--pattern must be compressible, incompressible or both");
			}
			break;
		case OPT_SCALE:
			if (lg_parse_positive_double(optarg, &o->duration_scale) < 0 ||
			    o->duration_scale > 1000)
				return fail(
					err, err_len,
					"--duration-scale: \"%s\" is not a positive number up to 1000",
					optarg);
			break;
		case OPT_QUICK:
			o->quick = true;
			break;
		case OPT_SPARE:
			r = parse_spare(optarg, o, err, err_len);
			if (r < 0)
				return r;
			break;
		case OPT_SEED:
			if (lg_parse_u64(optarg, &o->seed) < 0 || o->seed > (UINT64_C(1) << 53) - 1)
				return fail(err, err_len,
					    "--seed: \"%s\" is not an integer from 0 to 2^53-1",
					    optarg);
			o->seed_given = true;
			break;
		case OPT_ENGINE: {
			const struct lg_engine_ops *ops;

			if (lg_engine_find(optarg, &ops) < 0)
				return fail(err, err_len,
					    "--engine: \"%s\" is not built in (io_uring, psync)",
					    optarg);
			o->engine = optarg;
			break;
		}
		case OPT_BUFFERED:
			o->buffered = true;
			break;
		case OPT_SIZE:
			if (lg_parse_size(optarg, &o->size) < 0 || o->size == 0)
				return fail(err, err_len, "--size: \"%s\" is not a size", optarg);
			o->size_given = true;
			break;
		case OPT_DESTROY:
			o->destroy_data = optarg;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_DRIVE:
			r = parse_drive(optarg, &o->drive, err, err_len);
			if (r < 0)
				return r;
			break;
		case OPT_FIRMWARE:
			firmware = optarg;
			break;
		case OPT_BENCH:
			r = parse_bench(optarg, &o->bench, err, err_len);
			if (r < 0)
				return r;
			break;
		case OPT_REPEAT:
			if (lg_parse_u64(optarg, &repeat) < 0 || repeat < 1 || repeat > 100)
				return fail(
					err, err_len,
					"--repeat: \"%s\" is not a number of passes from 1 to 100",
					optarg);
			break;
		case OPT_JOBS:
			if (lg_parse_u64(optarg, &jobs) < 0 || jobs < 1 || jobs > 64)
				return fail(err, err_len,
					    "--jobs: \"%s\" is not a number of jobs from 1 to 64",
					    optarg);
			break;
		case OPT_RWMIX:
			if (lg_parse_u64(optarg, &rwmix) < 0 || rwmix > 100)
				return fail(err, err_len,
					    "--rwmixread: \"%s\" is not a percentage from 0 to 100",
					    optarg);
			have_rwmix = true;
			break;
		case OPT_PRECONDITION:
			if (strcmp(optarg, "fill") != 0 && strcmp(optarg, "none") != 0)
				return fail(err, err_len, "--precondition must be fill or none");
			o->precondition_none = strcmp(optarg, "none") == 0;
			break;
		case OPT_STATE: {
			static const char *const states[] = {"fresh", "preconditioned", "used",
							     "unknown", NULL};

			if (!in_list(optarg, states))
				return fail(
					err, err_len,
					"--drive-state must be fresh, preconditioned, used or unknown");
			snprintf(o->drive_state, sizeof(o->drive_state), "%s", optarg);
			break;
		}
		case OPT_OUTPUT:
			o->output = optarg;
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_UPLOAD:
			o->upload.url = optarg;
			break;
		case OPT_COMPARE:
			if (!lg_compare_available())
				return fail(
					err, err_len,
					"--compare is not built in: this loadgen was built without "
					"libcurl (install libcurl4-openssl-dev and rebuild)");
			o->compare_url = optarg;
			break;
		case OPT_HELP:
			cli->command = LG_CMD_HELP;
			return 0;
		default:
			return bad_option("run", argc, argv, run_options, err, err_len);
		}
	}
	if (optind < argc)
		return fail(err, err_len, "unexpected argument \"%s\"", argv[optind]);
	if (!o->target || !o->target[0])
		return fail(err, err_len, "run needs --target PATH");
	if (firmware) {
		r = copy_field(o->drive.firmware, sizeof(o->drive.firmware), "--firmware", firmware,
			       err, err_len);
		if (r < 0)
			return r;
	}

	int selections = (suite != NULL) + (tests != NULL) + (rw != NULL);

	if (selections == 0)
		return fail(err, err_len,
			    "run needs --suite, --tests or --rw (see loadgen --help)");
	if (selections > 1)
		return fail(err, err_len, "--suite, --tests and --rw exclude each other");
	if (!rw && (have_bs || have_qd || have_span || have_rwmix))
		return fail(err, err_len, "--bs, --qd, --span and --rwmixread go with --rw");
	if (rw && o->round_s > 0)
		return fail(err, err_len, "--round goes with the write saturation wsat-4k-qd32");
	if (rw && have_qd_max)
		return fail(err, err_len, "--qd-max goes with --suite or --tests");
	o->qd_max = (uint32_t)qd_max;
	o->jobs = (uint32_t)jobs;
	/* A full-length run measures its own spread; a shortened one is a smoke run. */
	if (repeat == 0)
		repeat = o->quick || o->duration_scale != 1.0 || rw ? 1 : LG_DEFAULT_REPEAT;
	o->repeat = (uint32_t)repeat;
	if (suite) {
		r = lg_suite_find(suite, &o->suite);
		if (r == -EINVAL)
			return fail(err, err_len, "--suite: malformed version in \"%s\"", suite);
		if (r < 0)
			return fail(err, err_len, "unknown suite \"%s\" (see `loadgen list`)",
				    suite);
		for (const char *const *id = o->suite->tests; *id; id++) {
			const struct lg_test_def *t;

			/* A sweep's depths beyond --qd-max are left out of the suite. */
			if (lg_suite_find_test(*id, &t) == 0 &&
			    !(t->family && t->queue_depth > o->qd_max)) {
				r = add_test(o, t, err, err_len);
				if (r < 0)
					return r;
			}
		}
	}
	if (tests) {
		r = parse_tests(tests, o, err, err_len);
		if (r < 0)
			return r;
	}
	if (!rw && (have_time || o->round_s > 0)) {
		bool wsat = false;

		for (size_t i = 0; i < o->ntests; i++)
			wsat |= o->tests[i]->kind == LG_KIND_SATURATION && o->tests[i]->random;
		if (!wsat)
			return fail(err, err_len,
				    "--time and --round go with --rw or the write saturation "
				    "wsat-4k-qd32");
		if (have_time)
			o->time_cap_s = o->adhoc_time_s;
	}
	if (rw) {
		struct lg_test_def *t = &o->adhoc;
		char bs_id[32], mix[8] = "", jobs_id[8] = "";

		if (parse_rw(rw, t) < 0)
			return fail(err, err_len,
				    "--rw must be randread, randwrite, read, write, randrw or rw");
		if (have_rwmix && !t->mixed)
			return fail(err, err_len, "--rwmixread goes with --rw randrw or rw");
		t->read_percent = t->mixed ? (uint32_t)rwmix : 0;
		if (!have_time)
			return fail(err, err_len, "--rw needs --time SECONDS");
		if (have_span && span < bs)
			return fail(err, err_len, "--span is smaller than --bs");
		lg_format_size_id(bs, bs_id, sizeof(bs_id));
		if (t->mixed)
			snprintf(mix, sizeof(mix), "%u", t->read_percent);
		if (jobs > 1)
			snprintf(jobs_id, sizeof(jobs_id), "-j%u", (unsigned)jobs);
		snprintf(o->adhoc_id, sizeof(o->adhoc_id), "adhoc-%s%s-%s-qd%u%s", rw, mix, bs_id,
			 (unsigned)qd, jobs_id);
		t->id = o->adhoc_id;
		t->name = o->adhoc_id;
		t->kind = LG_KIND_THROUGHPUT;
		t->block_size = (uint32_t)bs;
		t->queue_depth = (uint32_t)qd;
		t->span_bytes = span;
		t->duration_s = 0; /* adhoc_time_s holds the time */
		t->unit = "bytes/s";
		t->higher_is_better = true;
		o->ad_hoc = true;
		o->tests[0] = t;
		o->ntests = 1;
	}
	return 0;
}

/* An option of upload_docs into *u: 0 when c was one, 1 when it was not, -EINVAL. */
static int upload_option(int c, struct lg_upload_options *u, char *err, size_t err_len)
{
	double seconds;
	switch (c) {
	case OPT_URL:
		u->url = optarg;
		return 0;
	case OPT_TOKEN_FILE:
		u->token_file = optarg;
		return 0;
	case OPT_TOKEN:
		return fail(err, err_len,
			    "--token is refused: a token on the command line is seen by every user "
			    "of the machine (ps, shell history); give it in BENCH_TOKEN or "
			    "--token-file FILE");
	case OPT_RETRY_FOR:
		if (lg_parse_positive_double(optarg, &seconds) < 0 || seconds > 86400)
			return fail(
				err, err_len,
				"--retry-for needs a number of seconds above 0 and at most 86400");
		u->retry_for_s = seconds;
		return 0;
	default:
		return 1;
	}
}

static int parse_upload(int argc, char **argv, struct lg_cli *cli, char *err, size_t err_len)
{
	struct lg_upload_options *u = &cli->upload;
	struct option options[COUNT(upload_docs) + COUNT(simple_docs) + 1];
	struct option_doc docs[COUNT(upload_docs) + COUNT(simple_docs)];
	int c, r;

	u->retry_for_s = LG_DEFAULT_RETRY_FOR_S;
	memcpy(docs, upload_docs, sizeof(upload_docs));
	memcpy(docs + COUNT(upload_docs), simple_docs, sizeof(simple_docs));
	option_table(docs, COUNT(docs), options);
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if ((r = upload_option(c, u, err, err_len)) < 0)
			return r;
		if (r == 0)
			continue;
		if (c == OPT_HELP) {
			cli->command = LG_CMD_HELP;
			return 0;
		}
		return bad_option("upload", argc, argv, options, err, err_len);
	}
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

int lg_cli_parse(int argc, char **argv, struct lg_cli *ret_cli, char *err, size_t err_len)
{
	struct lg_cli *cli = ret_cli;
	const char *cmd;
	struct option simple_options[COUNT(simple_docs) + 1];
	int c, r;

	memset(cli, 0, sizeof(*cli));
	err[0] = '\0';
	join_command_line(argc, argv, cli->command_line, sizeof(cli->command_line));
	if (argc < 2)
		return fail(err, err_len,
			    "no command given (list, info, run, upload; see loadgen --help)");
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
	if (strcmp(cmd, "run") == 0) {
		cli->command = LG_CMD_RUN;
		return parse_run(argc - 1, argv + 1, cli, err, err_len);
	}
	if (strcmp(cmd, "upload") == 0) {
		cli->command = LG_CMD_UPLOAD;
		return parse_upload(argc - 1, argv + 1, cli, err, err_len);
	}
	if (strcmp(cmd, "list") == 0 || strcmp(cmd, "info") == 0) {
		cli->command = strcmp(cmd, "list") == 0 ? LG_CMD_LIST : LG_CMD_INFO;
		option_table(simple_docs, COUNT(simple_docs), simple_options);
		while ((c = getopt_long(argc - 1, argv + 1, "", simple_options, NULL)) != -1) {
			if (c == OPT_JSON) {
				cli->json = true;
			} else if (c == OPT_HELP) {
				cli->command = LG_CMD_HELP;
				return 0;
			} else {
				return bad_option(cmd, argc - 1, argv + 1, simple_options, err,
						  err_len);
			}
		}
		int rest = argc - 1 - optind;

		if (cli->command == LG_CMD_LIST) {
			r = rest == 0 ? 0 : fail(err, err_len, "list takes no argument");
			return r;
		}
		if (rest != 1)
			return fail(err, err_len, "info needs exactly one TARGET");
		cli->info_target = argv[1 + optind];
		return 0;
	}
	return fail(err, err_len,
		    "unknown command \"%s\" (list, info, run, upload; see loadgen --help)", cmd);
}
