#define _GNU_SOURCE
#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "test_common.h"

static int parse(struct lg_cli *cli, char *err, size_t len, int argc, ...)
{
	char *argv[64];
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	return lg_cli_parse(argc, argv, cli, err, len);
}

#define P(...)                                                                                 \
	parse(&cli, err, sizeof(err), (int)(sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)), \
	      __VA_ARGS__)

int main(void)
{
	static struct lg_cli cli;
	char err[512];

	CHECK(P("loadgen", "--help") == 0 && cli.command == LG_CMD_HELP);
	CHECK(P("loadgen", "--version") == 0 && cli.command == LG_CMD_VERSION);
	CHECK(P("loadgen", "list") == 0 && cli.command == LG_CMD_LIST && !cli.json);
	CHECK(P("loadgen", "list", "--json") == 0 && cli.json);
	CHECK(P("loadgen", "list", "extra") < 0);
	CHECK(P("loadgen", "info", "/dev/null") == 0 && cli.command == LG_CMD_INFO &&
	      strcmp(cli.info_target, "/dev/null") == 0);
	CHECK(P("loadgen", "info") < 0);
	CHECK(P("loadgen") < 0);
	CHECK(P("loadgen", "frobnicate") < 0);

	/* a suite */
	CHECK(P("loadgen", "run", "--suite", "desktop-2011", "--target", "f") == 0);
	CHECK(cli.command == LG_CMD_RUN && cli.run.suite && cli.run.ntests == 5);
	CHECK(strcmp(cli.run.tests[0]->id, "randread-4k-qd3") == 0);
	CHECK(cli.run.want_compressible && cli.run.want_incompressible);
	CHECK(cli.run.duration_scale == 1.0 && !cli.run.quick);
	CHECK(cli.run.nspare == 2 && cli.run.spare[0] == 0 && cli.run.spare[1] == 25);
	CHECK(!cli.run.buffered && !cli.run.seed_given);
	CHECK(strcmp(cli.command_line, "loadgen run --suite desktop-2011 --target f") == 0);

	CHECK(P("loadgen", "run", "--suite", "desktop-2010:1", "--target", "f") == 0 &&
	      cli.run.ntests == 4);
	CHECK(P("loadgen", "run", "--suite", "nope", "--target", "f") < 0);
	CHECK(strstr(err, "unknown suite") != NULL);
	CHECK(P("loadgen", "run", "--suite", "desktop-2011") < 0); /* no target */
	CHECK(P("loadgen", "run", "--target", "f") < 0);           /* no selection */
	CHECK(P("loadgen", "run", "--suite", "desktop-2011", "--tests", "randread-4k-qd3",
		"--target", "f") < 0);

	/* tests */
	CHECK(P("loadgen", "run", "--tests", "trim-validation,randread-4k-qd3", "--target", "f",
		"--pattern", "incompressible", "--quick", "--spare-area", "0,10,25", "--seed", "99",
		"--buffered", "--size", "1G", "--force", "--output", "o.json", "--quiet") == 0);
	CHECK(cli.run.ntests == 2 && strcmp(cli.run.tests[0]->id, "trim-validation") == 0);
	CHECK(!cli.run.want_compressible && cli.run.want_incompressible);
	CHECK(cli.run.quick && cli.run.nspare == 3 && cli.run.spare[1] == 10);
	CHECK(cli.run.seed_given && cli.run.seed == 99);
	CHECK(cli.run.buffered && cli.run.size_given && cli.run.size == (UINT64_C(1) << 30));
	CHECK(cli.run.force && cli.run.quiet && strcmp(cli.run.output, "o.json") == 0);
	CHECK(P("loadgen", "run", "--tests", "bogus", "--target", "f") < 0);
	CHECK(P("loadgen", "run", "--tests", "randread-4k-qd3", "--target", "f", "--spare-area",
		"95") < 0);
	CHECK(P("loadgen", "run", "--tests", "randread-4k-qd3", "--target", "f", "--pattern",
		"zeros") < 0);
	CHECK(P("loadgen", "run", "--tests", "randread-4k-qd3", "--target", "f", "--duration-scale",
		"0") < 0);
	CHECK(P("loadgen", "run", "--tests", "randread-4k-qd3", "--target", "f", "--duration-scale",
		"0.01") == 0);
	CHECK(cli.run.duration_scale == 0.01);
	CHECK(P("loadgen", "run", "--tests", "randread-4k-qd3", "--target", "f", "--engine",
		"psync") == 0);
	CHECK(strcmp(cli.run.engine, "psync") == 0);
	CHECK(P("loadgen", "run", "--tests", "randread-4k-qd3", "--target", "f", "--engine",
		"aio") < 0);

	/* ad hoc */
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randwrite", "--bs", "4k", "--qd", "32",
		"--span", "8G", "--time", "180") == 0);
	CHECK(cli.run.ad_hoc && cli.run.ntests == 1);
	CHECKF(strcmp(cli.run.tests[0]->id, "adhoc-randwrite-4k-qd32") == 0, "%s",
	       cli.run.tests[0]->id);
	CHECK(cli.run.adhoc.block_size == 4096 && cli.run.adhoc.queue_depth == 32);
	CHECK(cli.run.adhoc.span_bytes == UINT64_C(8589934592) && cli.run.adhoc_time_s == 180);
	CHECK(cli.run.adhoc.write && cli.run.adhoc.random);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "read", "--bs", "128k", "--time",
		"1.5") == 0);
	CHECK(strcmp(cli.run.tests[0]->id, "adhoc-read-128k-qd1") == 0);
	CHECK(!cli.run.adhoc.write && !cli.run.adhoc.random);
	CHECK(cli.run.jobs == 1 && !cli.run.precondition_none);

	/* several jobs, mixed workloads, preconditioning */
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randrw", "--time", "1") == 0);
	CHECKF(strcmp(cli.run.tests[0]->id, "adhoc-randrw50-4k-qd1") == 0, "%s",
	       cli.run.tests[0]->id);
	CHECK(cli.run.adhoc.mixed && cli.run.adhoc.write && cli.run.adhoc.random &&
	      cli.run.adhoc.read_percent == 50);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "rw", "--rwmixread", "70", "--jobs", "2",
		"--qd", "8", "--time", "1") == 0);
	CHECKF(strcmp(cli.run.tests[0]->id, "adhoc-rw70-4k-qd8-j2") == 0, "%s",
	       cli.run.tests[0]->id);
	CHECK(cli.run.adhoc.mixed && !cli.run.adhoc.random && cli.run.adhoc.read_percent == 70);
	CHECK(cli.run.jobs == 2);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "rw", "--rwmixread", "0", "--time",
		"1") == 0);
	CHECK(cli.run.adhoc.read_percent == 0);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "rw", "--rwmixread", "101", "--time",
		"1") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread", "--rwmixread", "70",
		"--time", "1") < 0);
	CHECKF(strstr(err, "randrw"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--rwmixread", "70") <
	      0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--jobs", "4") == 0);
	CHECK(cli.run.jobs == 4);

	/* paced: --rate, or --load's fractions, of the ad-hoc test only */
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread", "--time", "1", "--rate",
		"2500") == 0);
	CHECK(cli.run.rate_iops == 2500 && cli.run.nloads == 0);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread", "--time", "1", "--load",
		"10,25,50,75,90,100") == 0);
	CHECK(cli.run.nloads == 6 && cli.run.load_percent[0] == 10 &&
	      cli.run.load_percent[5] == 100 && cli.run.rate_iops == 0);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread", "--time", "1", "--rate",
		"0") < 0);
	CHECKF(strstr(err, "a rate from 1"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread", "--time", "1", "--rate",
		"1.5") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread", "--time", "1", "--load",
		"0,50") < 0);
	CHECKF(strstr(err, "\"0\" is not a percentage from 1 to 100"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread", "--time", "1", "--load",
		"50,101") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread", "--time", "1", "--load",
		"50,50") < 0);
	CHECKF(strstr(err, "given twice"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread", "--time", "1", "--load",
		",") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread", "--time", "1", "--load",
		"50", "--rate", "100") < 0);
	CHECKF(strstr(err, "exclude each other"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--rate", "100") < 0);
	CHECKF(strstr(err, "go with --rw"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--tests", "randread-4k-qd3", "--load", "50") <
	      0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--jobs", "0") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--jobs", "65") < 0);
	/* queue-depth sweeps: QD1 to --qd-max (default 32) of each, the mixed test always */
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "workloads-2026") == 0);
	CHECKF(cli.run.ntests == 13, "%zu tests", cli.run.ntests);
	for (size_t i = 0; i < cli.run.ntests; i++)
		CHECKF(cli.run.tests[i]->queue_depth <= 32, "%s", cli.run.tests[i]->id);
	CHECK(strcmp(cli.run.tests[12]->id, "randrw70-4k-qd32-8g") == 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "workloads-2026", "--qd-max",
		"128") == 0);
	CHECK(cli.run.ntests == 17 && cli.run.tests[7]->queue_depth == 128);
	CHECK(P("loadgen", "run", "--target", "f", "--qd-max", "4", "--suite", "workloads-2026") ==
	      0);
	CHECK(cli.run.ntests == 7 && cli.run.tests[2]->queue_depth == 4 &&
	      cli.run.tests[3]->queue_depth == 1 && cli.run.tests[3]->write);
	CHECK(P("loadgen", "run", "--target", "f", "--tests", "randread-4k-qd64-sweep") < 0);
	CHECKF(strstr(err, "--qd-max 64"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--tests", "randread-4k-qd64-sweep", "--qd-max",
		"64") == 0);
	CHECK(cli.run.ntests == 1);
	/* a test that is no sweep's point is run at its depth whatever --qd-max says */
	CHECK(P("loadgen", "run", "--target", "f", "--tests", "randwrite-4k-qd32-8g", "--qd-max",
		"1") == 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "workloads-2026", "--qd-max", "0") <
	      0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "workloads-2026", "--qd-max",
		"1025") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread", "--time", "1", "--qd-max",
		"8") < 0);
	CHECKF(strstr(err, "--qd-max goes with"), "%s", err);
	/* passes: a full-length run repeats its throughput tests, a shortened one does not */
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011") == 0);
	CHECK(cli.run.repeat == LG_DEFAULT_REPEAT && LG_DEFAULT_REPEAT == 3);
	CHECK(P("loadgen", "run", "--target", "f", "--tests", "randread-4k-qd3") == 0);
	CHECK(cli.run.repeat == 3);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--quick") == 0);
	CHECK(cli.run.repeat == 1);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--duration-scale",
		"0.5") == 0);
	CHECK(cli.run.repeat == 1);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "read", "--time", "1") == 0);
	CHECK(cli.run.repeat == 1);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--quick", "--repeat",
		"5") == 0);
	CHECK(cli.run.repeat == 5);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--repeat", "1") ==
	      0);
	CHECK(cli.run.repeat == 1);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--repeat", "0") < 0);
	CHECKF(strstr(err, "--repeat"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--repeat", "101") <
	      0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--repeat", "two") <
	      0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--precondition",
		"none") == 0);
	CHECK(cli.run.precondition_none);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--precondition",
		"fill") == 0);
	CHECK(!cli.run.precondition_none);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--precondition",
		"trim") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randread") < 0); /* no --time */
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randtrim", "--time", "1") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "read", "--bs", "1000", "--time", "1") <
	      0);
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "read", "--qd", "0", "--time", "1") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--bs", "4k") < 0);

	/* safety options */
	CHECK(P("loadgen", "run", "--target", "/dev/loop0", "--suite", "desktop-2011",
		"--destroy-data=/dev/loop0") == 0);
	CHECK(strcmp(cli.run.destroy_data, "/dev/loop0") == 0);

	/* provenance */
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"manufacturer=Intel,model=SSD 530,capacity=240G,kind=ssd,interface=sata-6g,part_number=SSDSC2BW240A4",
		"--firmware", "DC12", "--bench", "cpu=Core i7,os=Linux", "--drive-state",
		"fresh") == 0);
	CHECK(strcmp(cli.run.drive.manufacturer, "Intel") == 0 &&
	      strcmp(cli.run.drive.model, "SSD 530") == 0);
	CHECK(cli.run.drive.capacity_bytes == UINT64_C(240) << 30);
	CHECK(strcmp(cli.run.drive.kind, "ssd") == 0 &&
	      strcmp(cli.run.drive.interface, "sata-6g") == 0);
	CHECK(strcmp(cli.run.drive.part_number, "SSDSC2BW240A4") == 0);
	CHECK(strcmp(cli.run.drive.firmware, "DC12") == 0);
	CHECK(strcmp(cli.run.bench.cpu, "Core i7") == 0 && strcmp(cli.run.bench.os, "Linux") == 0);
	CHECK(cli.run.drive_state && strcmp(cli.run.drive_state, "fresh") == 0);
	CHECK(strstr(cli.command_line, "'manufacturer=Intel,model=SSD 530,") != NULL);
	/* provenance values are trimmed; blank ones are refused, as the schema would */
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"manufacturer= ") < 0);
	CHECKF(strstr(err, "--drive manufacturer") && strstr(err, "blank"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"model=\t \xc2\xa0\xe3\x80\x80") < 0);
	CHECKF(strstr(err, "--drive model") && strstr(err, "blank"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"manufacturer=") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"capacity= ") < 0);
	CHECKF(strstr(err, "capacity") && strstr(err, "blank"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		" = Intel") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		" manufacturer = Intel , model =\xc2\xa0SSD 530 , kind= ssd,interface =sata-6g ,capacity= 240G") ==
	      0);
	CHECKF(strcmp(cli.run.drive.manufacturer, "Intel") == 0, "\"%s\"",
	       cli.run.drive.manufacturer);
	CHECKF(strcmp(cli.run.drive.model, "SSD 530") == 0, "\"%s\"", cli.run.drive.model);
	CHECK(strcmp(cli.run.drive.kind, "ssd") == 0 &&
	      strcmp(cli.run.drive.interface, "sata-6g") == 0);
	CHECK(cli.run.drive.capacity_bytes == UINT64_C(240) << 30);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--bench", "cpu=  ") <
	      0);
	CHECKF(strstr(err, "--bench cpu") && strstr(err, "blank"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--bench",
		" os = Linux 6.1 ,name=rig") == 0);
	CHECK(strcmp(cli.run.bench.os, "Linux 6.1") == 0 && strcmp(cli.run.bench.name, "rig") == 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--firmware", " ") <
	      0);
	CHECKF(strstr(err, "--firmware") && strstr(err, "blank"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--firmware",
		" DC12 ") == 0);
	CHECK(strcmp(cli.run.drive.firmware, "DC12") == 0);
	/* and within the schema's other limits: length, UTF-8, no control characters */
	{
		static char v200[300], v201[300], b201[300];

		snprintf(v200, sizeof(v200), "model=%0200d", 0);
		snprintf(v201, sizeof(v201), "model=%0201d", 0);
		snprintf(b201, sizeof(b201), "cpu=%0201d", 0);
		CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
			v200) == 0);
		CHECK(strlen(cli.run.drive.model) == 200);
		CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
			v201) < 0);
		CHECKF(strstr(err, "too long"), "%s", err);
		CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--bench",
			b201) < 0);
		CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
			"part_number=x", "--firmware",
			"0123456789012345678901234567890123456789012345678901234567890123456789"
			"0123456789012345678901234567890") < 0);
	}
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"model=\xff\xfe") < 0);
	CHECKF(strstr(err, "UTF-8"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"model=a\tb") < 0);
	CHECKF(strstr(err, "control"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"model=a\xc2\x85") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"model=Crucial\xc2\xaeMX") == 0);
	/* a catalog drive's slug: its characters only */
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"manufacturer=Intel,model=X25-M,slug=intel-x25-m_80gb") == 0);
	CHECK(strcmp(cli.run.drive.slug, "intel-x25-m_80gb") == 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"slug=intel x25-m") < 0);
	CHECKF(strstr(err, "--drive slug"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive", "slug=") <
	      0);
	{
		static char s255[300], s256[300];

		snprintf(s255, sizeof(s255), "slug=%0255d", 0);
		snprintf(s256, sizeof(s256), "slug=%0256d", 0);
		CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
			s255) == 0);
		CHECK(strlen(cli.run.drive.slug) == 255);
		CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
			s256) < 0);
	}
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"colour=red") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"kind=tape") < 0);
	CHECKF(strstr(err, "ssd, hdd or virtual"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"kind=virtual") == 0);
	CHECK(strcmp(cli.run.drive.kind, "virtual") == 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive",
		"interface=usb") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive", "model") <
	      0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--bench", "gpu=x") <
	      0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--drive-state",
		"new") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--unknown") < 0);
	/* a bad option is named in the error */
	CHECKF(strstr(err, "--unknown"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--frobnicate=3", "--suite", "desktop-2011") <
	      0);
	CHECKF(strstr(err, "--frobnicate"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "-x") < 0);
	CHECKF(strstr(err, "-x"), "%s", err);
	CHECK(P("loadgen", "run", "--suite", "desktop-2011", "--target") < 0);
	CHECKF(strstr(err, "--target") && strstr(err, "value"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--quick=yes") < 0);
	CHECKF(strstr(err, "--quick") && strstr(err, "no value"), "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--s", "1") < 0);
	CHECKF(strstr(err, "--s") && strstr(err, "ambiguous"), "%s", err);
	CHECK(P("loadgen", "list", "--verbose") < 0);
	CHECKF(strstr(err, "--verbose"), "%s", err);
	CHECK(P("loadgen", "info", "/dev/null", "--jsn") < 0);
	CHECKF(strstr(err, "--jsn"), "%s", err);
	CHECK(P("loadgen", "run", "--targ", "f", "--suite", "desktop-2011") ==
	      0); /* abbreviations work */
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "stray") < 0);
	/* --compare: a drive's page, read when the run starts (a bad one does not stop it);
	 * a loadgen without libcurl refuses it here, before anything runs */
	if (lg_compare_available()) {
		CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--compare",
			"https://h/drives/x/") == 0);
		CHECK(cli.run.compare_url &&
		      strcmp(cli.run.compare_url, "https://h/drives/x/") == 0);
		CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--compare",
			"not a url") == 0);
	} else {
		CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--compare",
			"https://h/drives/x/") < 0);
		CHECKF(strstr(err, "--compare is not built in") && strstr(err, "libcurl"), "%s",
		       err);
	}
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011") == 0 &&
	      cli.run.compare_url == NULL);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--compare") < 0);
	CHECK(strstr(lg_cli_usage(), "--compare URL") && strstr(lg_cli_usage(), "not tested"));
	CHECK(strlen(lg_cli_usage()) > 1000);
	/* the help says what the latency is: issue to completion (fio's lat), and clat beside it */
	CHECK(strstr(lg_cli_usage(), "(lat)") && strstr(lg_cli_usage(), "io_uring_enter") &&
	      strstr(lg_cli_usage(), "reaping of its completion") &&
	      strstr(lg_cli_usage(), "clat_ns"));

	/* the table: every row whole, and in --help and the man page */
	{
		const struct lg_option *options = lg_cli_options();
		const char *man = lg_cli_man_page();

		CHECK(strncmp(man, ".\\\"", 3) == 0 && strstr(man, ".TH LOADGEN 1") &&
		      strstr(man, ".SH OPTIONS") && strstr(man, ".SH EXIT STATUS"));
		for (size_t id = 0; id < LG_OPT_COUNT; id++) {
			const struct lg_option *o = &options[id];
			char in_help[64], in_man[128], *m = in_man;

			CHECKF(o->name && o->help && o->help[0] && o->commands, "row %zu", id);
			CHECKF((o->type == LG_VAL_FLAG) == (o->arg == NULL), "--%s", o->name);
			CHECKF(o->type == LG_VAL_CUSTOM ? o->parse != NULL
							: o->size > 0 || id == LG_OPT_HELP,
			       "--%s", o->name);
			CHECKF(o->type != LG_VAL_CHOICE || o->choices, "--%s", o->name);
			CHECKF(!(o->type == LG_VAL_UINT || o->type == LG_VAL_SIZE ||
				 o->type == LG_VAL_NUMBER) ||
				       (o->invalid && o->max > 0),
			       "--%s", o->name);
			CHECKF((o->param == NULL) == (o->record == LG_REC_NONE), "--%s", o->name);
			snprintf(in_help, sizeof(in_help), "\n  --%s%s", o->name,
				 !o->arg           ? ""
				 : o->arg_attached ? "="
						   : " ");
			CHECKF(strstr(lg_cli_usage(), in_help), "--%s not in --help", o->name);
			m += sprintf(m, "\n\\fB\\-\\-");
			for (const char *c = o->name; *c; c++)
				m += sprintf(m, *c == '-' ? "\\-" : "%c", *c);
			CHECKF(strstr(man, in_man), "--%s not in the man page", o->name);
		}
	}
	/* run -h is help too; options needs --json or --man */
	CHECK(P("loadgen", "run", "-h") == 0 && cli.command == LG_CMD_HELP);
	CHECK(P("loadgen", "options", "--json") == 0 && cli.command == LG_CMD_OPTIONS && cli.json);
	CHECK(P("loadgen", "options", "--man") == 0 && cli.man && !cli.json);
	CHECK(P("loadgen", "options") < 0);
	CHECKF(strstr(err, "--json or --man"), "%s", err);
	CHECK(P("loadgen", "options", "--json", "--man") < 0);
	CHECK(P("loadgen", "list", "--man") < 0);
	/* what the table stores where: the ad-hoc test's values, --time, --round, --plan */
	CHECK(P("loadgen", "run", "--target", "f", "--rw", "randrw", "--rwmixread", "30", "--bs",
		"8k", "--qd", "16", "--span", "1G", "--time", "2.5", "--plan") == 0);
	CHECK(cli.run.plan && strcmp(cli.run.rw, "randrw") == 0 && cli.run.rwmixread == 30);
	CHECK(cli.run.adhoc.block_size == 8192 && cli.run.adhoc.queue_depth == 16 &&
	      cli.run.adhoc.span_bytes == UINT64_C(1) << 30 && cli.run.adhoc.read_percent == 30);
	CHECK(cli.run.time_s == 2.5 && cli.run.adhoc_time_s == 2.5 && cli.run.time_cap_s == 0);
	CHECK(cli.given[LG_OPT_BS] && !cli.given[LG_OPT_SEED]);
	CHECK(P("loadgen", "run", "--target", "f", "--tests", "wsat-4k-qd32", "--time", "30",
		"--round", "0.5") == 0);
	CHECK(cli.run.time_cap_s == 30 && cli.run.round_s == 0.5 && cli.run.adhoc_time_s == 0);
	CHECK(P("loadgen", "run", "--target", "f", "--tests", "wsat-4k-qd32", "--round", "0.001") <
	      0);
	CHECKF(strstr(err, "--round: \"0.001\" is not a number of seconds from 0.01 to 3600"), "%s",
	       err);
	/* --pattern both, one, or both as a list (as results/reproduce.py writes it) */
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--pattern",
		"compressible,incompressible") == 0);
	CHECK(cli.run.want_compressible && cli.run.want_incompressible);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--pattern",
		"compressible") == 0);
	CHECK(cli.run.want_compressible && !cli.run.want_incompressible);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--pattern",
		"compressible,zeros") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--pattern", ",") <
	      0);
	/* a choice's error names its choices */
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--precondition",
		"trim") < 0);
	CHECKF(strcmp(err, "--precondition must be fill or none") == 0, "%s", err);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--seed",
		"9007199254740992") < 0);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--seed",
		"9007199254740991") == 0);
	CHECK(cli.run.seed == UINT64_C(9007199254740991) && cli.run.seed_given);
	CHECK(P("loadgen", "upload", "--url", "http://h", "--retry-for", "0", "d.json") < 0);
	CHECK(P("loadgen", "upload", "--url", "http://h", "--retry-for", "5", "d.json") == 0);
	CHECK(cli.upload.retry_for_s == 5 && cli.upload.ndocuments == 1);
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--upload",
		"http://h", "--token-file", "t") == 0);
	CHECK(strcmp(cli.upload.url, "http://h") == 0 && strcmp(cli.upload.token_file, "t") == 0 &&
	      cli.upload.retry_for_s == 120); /* the table's default, as the help says */
	CHECK(P("loadgen", "run", "--target", "f", "--suite", "desktop-2011", "--token", "x") < 0);
	CHECKF(strstr(err, "--token is refused"), "%s", err);
	return test_result("cli");
}
