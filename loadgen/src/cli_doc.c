/* What the option table says (cli.h), written for people and programs: --help, the man
 * page loadgen(1) and `loadgen options --json`. Everything about an option comes from its
 * row; the prose around the options is here, once, for both the help and the man page. */
#include "lg_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json.h"

#define HELP_COLUMN 28

/* The commands, as the synopsis writes them. */
static const char *const synopsis[] = {
	"list [--json]",
	"info TARGET [--json]",
	"run --target PATH (--suite NAME[:VERSION] | --tests ID[,ID...] | --rw ...) [options]",
	"upload --url URL [--token-file FILE] DOCUMENT.json...",
	"options --json | --man",
	"--help | --version",
};

static const char description[] =
	"Runs the standard SSD tests (4KB random read/write, 128KB and 2MB sequential\n"
	"read/write, performance consistency, TRIM validation) against a file or a block\n"
	"device and writes one result document (JSON, results/schema/result-document.schema.json).";

/* What each command does (run's options say what a run does). */
static const struct {
	const char *command;
	const char *what;
} command_help[] = {
	{"list", "suites and tests built in"},
	{"info TARGET", "kind, vendor, model, the serial's salted hash (never the\n"
			"serial), firmware, capacity, rotational, drive kind,\n"
			"interface and negotiated link, logical and physical block\n"
			"size, discard support, mounted/holders/swap, health (NVMe\n"
			"SMART log, ATA SMART attributes)"},
	{"upload DOCUMENT...", "send result documents to a Bench site; prints each run's page"},
	{"options", "every option below: as JSON (--json), with how the\n"
		    "result document's parameters record it, or as the man page (--man)"},
};

/* After the options: the man page's sections, one paragraph of the help each. */
static const struct {
	const char *title;
	const char *text;
} notes[] = {
	{"SIZES AND UNITS",
	 "SIZE is a byte count or a number with a binary suffix: 4k = 4K = 4KiB = 4096, M/MiB, G/GiB, T/TiB.\n"
	 "Rates: MB/s = 10^6 bytes per second. Latency (CLOCK_MONOTONIC) runs from just before the call\n"
	 "that hands the I/O to the kernel (io_uring: writing its submission before the io_uring_enter;\n"
	 "psync: queueing it for a worker thread) to the reaping of its completion: fio's total latency\n"
	 "(lat), what Iometer reports. Its completion part, from the return of that call to the reaping\n"
	 "(fio's clat), is recorded beside it (clat_ns), the clock read once per reaped completion."},
	{"EXIT STATUS",
	 "Exit status: 0 complete; 1 the run failed (document written with status \"failed\");\n"
	 "2 usage error; 3 refused for safety (nothing written); 130 interrupted by SIGINT/SIGTERM\n"
	 "(document written with status \"incomplete\", the test interrupted keeping what it measured\n"
	 "until then, marked partial; more signals within 2 s of the first are ignored, a later one\n"
	 "leaves at once without the document)."},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct text {
	char buf[16000];
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

/* head, then text from column HELP_COLUMN (on head's line when it fits), line by line. */
static void column(struct text *t, const char *head, const char *text)
{
	size_t before = t->len;

	put(t, "%s", head);
	if (t->len - before >= HELP_COLUMN)
		put(t, "\n%*s", HELP_COLUMN, "");
	else
		put(t, "%*s", (int)(HELP_COLUMN - (t->len - before)), "");
	for (;;) {
		size_t l = strcspn(text, "\n");

		put(t, "%.*s\n", (int)l, text);
		if (!text[l] || !text[l + 1])
			break;
		text += l + 1;
		put(t, "%*s", HELP_COLUMN, "");
	}
}

const char *lg_cli_usage(void)
{
	static struct text t;
	const struct lg_option *options = lg_cli_options();

	if (t.len)
		return t.buf;
	put(&t, "Usage:\n");
	for (size_t i = 0; i < COUNT(synopsis); i++)
		put(&t, "  loadgen %s\n", synopsis[i]);
	put(&t, "\n%s\n\n", description);
	for (size_t i = 0; i < COUNT(command_help); i++)
		column(&t, command_help[i].command, command_help[i].what);
	put(&t, "\n");
	for (size_t id = 0; id < LG_OPT_COUNT; id++) {
		const struct lg_option *o = &options[id];
		char head[128];

		if (o->section)
			put(&t, "%s\n", o->section);
		snprintf(head, sizeof(head), "  --%s%s%s", o->name,
			 !o->arg           ? ""
			 : o->arg_attached ? "="
					   : " ",
			 o->arg ? o->arg : "");
		column(&t, head, o->help);
	}
	for (size_t i = 0; i < COUNT(notes); i++)
		put(&t, "\n%s\n", notes[i].text);
	return t.buf;
}

/* text for troff: a backslash is \e, a minus \-, a line that would begin with a
 * control character starts with \&; line breaks become spaces when join. */
static void troff(struct text *t, const char *text, bool join)
{
	bool line_start = true;

	for (const char *p = text; *p; p++) {
		if (line_start && (*p == '.' || *p == '\''))
			put(t, "\\&");
		line_start = false;
		if (*p == '\\')
			put(t, "\\e");
		else if (*p == '-')
			put(t, "\\-");
		else if (*p == '\n' && join)
			put(t, " ");
		else
			put(t, "%c", *p);
		line_start = *p == '\n';
	}
}

const char *lg_cli_man_page(void)
{
	static struct text t;
	const struct lg_option *options = lg_cli_options();

	if (t.len)
		return t.buf;
	put(&t,
	    ".\\\" Written by `loadgen options --man` from loadgen's option table: do not edit.\n");
	put(&t, ".TH LOADGEN 1 \"\" \"loadgen %s\" \"Bench\"\n", LG_VERSION);
	put(&t, ".SH NAME\nloadgen \\- the standard SSD tests of Bench, run against a file or a "
		"block device\n");
	put(&t, ".SH SYNOPSIS\n");
	for (size_t i = 0; i < COUNT(synopsis); i++) {
		put(&t, "%s\\fBloadgen\\fR ", i ? ".br\n" : "");
		troff(&t, synopsis[i], true);
		put(&t, "\n");
	}
	put(&t, ".SH DESCRIPTION\n");
	troff(&t, description, false);
	put(&t, "\n");
	for (size_t i = 0; i < COUNT(command_help); i++) {
		put(&t, ".TP\n\\fB");
		troff(&t, command_help[i].command, true);
		put(&t, "\\fR\n");
		troff(&t, command_help[i].what, false);
		put(&t, "\n");
	}
	put(&t, ".SH OPTIONS\n");
	for (size_t id = 0; id < LG_OPT_COUNT; id++) {
		const struct lg_option *o = &options[id];

		if (o->section) {
			put(&t, ".SS \"");
			troff(&t, o->section, true);
			put(&t, "\"\n");
		}
		put(&t, ".TP\n\\fB\\-\\-");
		troff(&t, o->name, true);
		put(&t, "\\fR");
		if (o->arg) {
			put(&t, "%s\\fI", o->arg_attached ? "=" : " ");
			troff(&t, o->arg, true);
			put(&t, "\\fR");
		}
		put(&t, "\n");
		troff(&t, o->help, false);
		put(&t, "\n");
	}
	for (size_t i = 0; i < COUNT(notes); i++) {
		put(&t, ".SH %s\n", notes[i].title);
		troff(&t, notes[i].text, false);
		put(&t, "\n");
	}
	put(&t, ".SH SEE ALSO\n\\fBfio\\fR(1); docs/loadgen\\-cli.md and "
		"results/schema/result\\-document.schema.json in Bench's sources\n");
	return t.buf;
}

static const char *const type_names[] = {
	[LG_VAL_FLAG] = "flag",     [LG_VAL_STRING] = "string", [LG_VAL_UINT] = "integer",
	[LG_VAL_SIZE] = "size",     [LG_VAL_NUMBER] = "number", [LG_VAL_CHOICE] = "choice",
	[LG_VAL_CUSTOM] = "custom",
};

static const char *const record_names[] = {
	[LG_REC_NONE] = NULL,     [LG_REC_VALUE] = "value", [LG_REC_SIZE] = "size",
	[LG_REC_LIST] = "list",   [LG_REC_TRUE] = "true",   [LG_REC_FALSE] = "false",
	[LG_REC_SUITE] = "suite",
};

static const char *const command_names[] = {"run", "upload", "list", "info", "options"};

/* The keys of follows ("suite ad_hoc") as an array. */
static void words(struct lg_json *w, const char *text)
{
	lg_json_begin_array(w);
	while (text && *text) {
		size_t n = strcspn(text, " ");
		char word[64];

		snprintf(word, sizeof(word), "%.*s", (int)n, text);
		lg_json_string(w, word);
		text += n + (text[n] == ' ');
	}
	lg_json_end_array(w);
}

static void option_json(struct lg_json *w, const struct lg_option *o)
{
	lg_json_begin_object(w);
	lg_json_key(w, "name");
	lg_json_string(w, o->name);
	if (o->short_name) {
		char s[2] = {o->short_name, '\0'};

		lg_json_key(w, "short");
		lg_json_string(w, s);
	}
	lg_json_key(w, "commands");
	lg_json_begin_array(w);
	for (size_t i = 0; i < COUNT(command_names); i++)
		if (o->commands & (1u << i))
			lg_json_string(w, command_names[i]);
	lg_json_end_array(w);
	lg_json_key(w, "type");
	lg_json_string(w, type_names[o->type]);
	if (o->arg) {
		lg_json_key(w, "argument");
		lg_json_string(w, o->arg);
		lg_json_key(w, "attached");
		lg_json_bool(w, o->arg_attached);
	}
	if (o->type == LG_VAL_UINT || o->type == LG_VAL_SIZE || o->type == LG_VAL_NUMBER) {
		lg_json_key(w, o->type == LG_VAL_NUMBER && o->min == 0 ? "exclusive_minimum"
								       : "minimum");
		lg_json_number(w, o->min);
		lg_json_key(w, "maximum");
		lg_json_number(w, o->max);
	}
	if (o->multiple) {
		lg_json_key(w, "multiple_of");
		lg_json_uint(w, o->multiple);
	}
	if (o->choices) {
		lg_json_key(w, "choices");
		lg_json_begin_array(w);
		for (const char *const *c = o->choices; *c; c++)
			lg_json_string(w, *c);
		lg_json_end_array(w);
	}
	if (o->default_value) {
		lg_json_key(w, "default");
		lg_json_string(w, o->default_value);
	}
	if (o->section) {
		lg_json_key(w, "section");
		lg_json_string(w, o->section);
	}
	lg_json_key(w, "help");
	lg_json_string(w, o->help);
	if (o->param) {
		lg_json_key(w, "parameter");
		lg_json_string(w, o->param);
		lg_json_key(w, "record");
		lg_json_string(w, record_names[o->record]);
		if (o->param_default) {
			lg_json_key(w, "recorded_default");
			lg_json_raw(w, o->param_default);
		}
		lg_json_key(w, "follows");
		words(w, o->follows);
	}
	lg_json_end_object(w);
}

void lg_cli_options_json(struct lg_json *w)
{
	const struct lg_option *options = lg_cli_options();

	lg_json_begin_object(w);
	lg_json_key(w, "description");
	lg_json_string(w, "loadgen's options (loadgen options --json): for each, the commands that "
			  "take it, its value, its default (as it would be given) and help, and, "
			  "for an option the result document's parameters record, the key "
			  "(parameter), how its recorded value is written back as an argument "
			  "(record: value, size, list, true, false, suite), the value recorded "
			  "without it (recorded_default) and the keys whose presence makes it "
			  "follow from them (follows)");
	lg_json_key(w, "options");
	lg_json_begin_array(w);
	for (size_t id = 0; id < LG_OPT_COUNT; id++)
		option_json(w, &options[id]);
	lg_json_end_array(w);
	lg_json_end_object(w);
}
