#define _GNU_SOURCE
/* The result document: a fixed report compared byte for byte with golden files
 * (mode "golden"), and generated documents checked against the JSON Schema by
 * the Python validator (mode "schema"), which also exercises the atomic write.
 *
 * usage: test_report_json golden GOLDEN_DIR
 *        test_report_json schema PYTHON VALIDATOR SCHEMA
 * LG_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ident.h"
#include "report_json.h"
#include "test_common.h"

extern char **environ;

static void base_report(struct lg_report *r)
{
	lg_report_init(r);
	snprintf(r->tool_version, sizeof(r->tool_version), "0.1.0");
	snprintf(r->engine, sizeof(r->engine), "io_uring");
	snprintf(r->command_line, sizeof(r->command_line),
		 "loadgen run --suite desktop-2011 --target /tmp/x --drive 'model=a \"b\"'");
	snprintf(r->started_at, sizeof(r->started_at), "2025-01-31T12:00:00Z");
	snprintf(r->finished_at, sizeof(r->finished_at), "2025-01-31T12:30:00Z");
	snprintf(r->drive.manufacturer, sizeof(r->drive.manufacturer), "Intel");
	/* quotes, a backslash, a tab, a control character, UTF-8 and invalid UTF-8 */
	snprintf(r->drive.model, sizeof(r->drive.model), "SSD \"530\" \\ \t\x01 caf\xc3\xa9 \xff");
	r->drive.capacity_bytes = UINT64_C(240057409536);
	snprintf(r->drive.firmware, sizeof(r->drive.firmware), "DC12");
	snprintf(r->drive.kind, sizeof(r->drive.kind), "ssd");
	snprintf(r->drive.interface, sizeof(r->drive.interface), "sata-6g");
	snprintf(r->drive_state, sizeof(r->drive_state), "preconditioned");
	snprintf(r->bench.cpu, sizeof(r->bench.cpu), "Intel Core i7 965");
	snprintf(r->bench.os, sizeof(r->bench.os), "Debian 12");
	r->has_host = true;
	snprintf(r->host.hostname, sizeof(r->host.hostname), "bench1");
	snprintf(r->host.os, sizeof(r->host.os), "Debian GNU/Linux 12 (bookworm)");
	snprintf(r->host.kernel, sizeof(r->host.kernel), "Linux 6.1.0-18-amd64");
	snprintf(r->host.cpu, sizeof(r->host.cpu), "Intel(R) Xeon(R) Processor");
	r->host.cpu_count = 2;
	r->host.memory_bytes = UINT64_C(25325199360);
	r->has_target = true;
	snprintf(r->target.path, sizeof(r->target.path), "/dev/sdb");
	r->target.kind = LG_TARGET_BLOCK;
	snprintf(r->target.vendor, sizeof(r->target.vendor), "Intel");
	snprintf(r->target.model, sizeof(r->target.model), "INTEL SSDSC2BW240A4");
	lg_ident_serial_hash("CVDA1234", r->target.serial_hash);
	snprintf(r->target.firmware, sizeof(r->target.firmware), "DC12");
	snprintf(r->target.identified_by, sizeof(r->target.identified_by), "sysfs");
	snprintf(r->target.interface, sizeof(r->target.interface), "sata");
	snprintf(r->target.link, sizeof(r->target.link), "SATA 6.0 Gb/s");
	r->has_health = true;
	r->health.source = LG_HEALTH_ATA;
	r->health.has_before = r->health.has_after = true;
	snprintf(r->health.before_at, sizeof(r->health.before_at), "2025-01-31T12:00:01Z");
	snprintf(r->health.after_at, sizeof(r->health.after_at), "2025-01-31T12:29:59Z");
	r->health.before = (struct lg_health_snapshot){
		.present = LG_HEALTH_TEMPERATURE | LG_HEALTH_POWER_ON_HOURS |
			   LG_HEALTH_POWER_CYCLES | LG_HEALTH_REALLOCATED | LG_HEALTH_PENDING |
			   LG_HEALTH_LBAS_WRITTEN | LG_HEALTH_PERCENTAGE_USED,
		.temperature_celsius = 31,
		.power_on_hours = 1234,
		.power_cycles = 56,
		.reallocated_sectors = 0,
		.pending_sectors = 0,
		.lbas_written = UINT64_C(98765432100),
		.percentage_used = 3,
	};
	r->health.after = r->health.before;
	r->health.after.temperature_celsius = 44;
	r->health.after.lbas_written += UINT64_C(43200000);
	r->target.capacity_bytes = UINT64_C(240057409536);
	r->target.rotational = 0;
	r->target.logical_block_size = 512;
	r->target.physical_block_size = 4096;
	r->has_parameters = true;
	struct lg_parameters *p = &r->parameters;

	snprintf(p->suite_name, sizeof(p->suite_name), "desktop-2011");
	p->suite_version = 1;
	snprintf(p->tests[0], LG_ID_MAX, "randread-4k-qd3");
	snprintf(p->tests[1], LG_ID_MAX, "consistency-4k-qd32");
	snprintf(p->tests[2], LG_ID_MAX, "trim-validation");
	p->ntests = 3;
	p->seed = 123456789;
	snprintf(p->engine, sizeof(p->engine), "io_uring");
	p->direct = true;
	p->duration_scale = 1;
	p->patterns[0] = LG_PATTERN_COMPRESSIBLE;
	p->patterns[1] = LG_PATTERN_INCOMPRESSIBLE;
	p->npatterns = 2;
	p->compressible_ratio = 2.0;
	p->spare_area_percent[0] = 0;
	p->spare_area_percent[1] = 25;
	p->nspare = 2;
	p->target_size_bytes = UINT64_C(240057409536);
	p->jobs = 1;
	snprintf(p->precondition, sizeof(p->precondition), "fill");
}

/* Histogram buckets as a run counts them: n buckets from first, counts[i] in first + i
 * (0: empty), to be owned by a result. */
static struct lg_hist_buckets buckets_of(uint32_t first, const uint64_t *counts, size_t n)
{
	struct lg_hist_buckets b = {0};

	b.index = malloc(n * sizeof(*b.index));
	b.count = malloc(n * sizeof(*b.count));
	CHECK(b.index && b.count);
	for (size_t i = 0; i < n && b.index && b.count; i++) {
		if (counts[i] == 0)
			continue;
		b.index[b.n] = first + (uint32_t)i;
		b.count[b.n++] = counts[i];
	}
	return b;
}

static void complete_report(struct lg_report *r)
{
	struct lg_result res = {
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.block_size = 4096,
		.queue_depth = 3,
		.span_bytes = UINT64_C(240057409536),
		.duration_ns = UINT64_C(180000123456),
		.io_count = 5400000,
		.bytes = UINT64_C(22118400000),
		.bytes_per_second = 122879998.4,
		.iops = 29999.99961,
		.has_iops_spread = true,
		.iops_stddev = 812.25,
		.iops_min = 27310,
		.has_latency = true,
		.latency =
			{
				.count = 5400000,
				.min = 25000,
				.max = 9000000,
				.mean = 99876.54,
				.stddev = 1234.5,
				.percentiles = {60000, 70000, 75000, 85000, 95000, 105000, 120000,
						140000, 250000, 900000, 4000000},
			},
		.has_clat = true,
		.clat =
			{
				.count = 5400000,
				.min = 21000,
				.max = 8990000,
				.mean = 97001.25,
				.stddev = 1230.5,
				.percentiles = {57000, 67000, 72000, 82000, 92000, 102000, 117000,
						137000, 247000, 897000, 3990000},
			},
	};
	struct lg_consistency c = {
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.spare_area_percent = 25,
		.span_bytes = UINT64_C(180043057152),
		.block_size = 4096,
		.queue_depth = 32,
		.interval_ns = 1000000000,
		.discard_method = "blkdiscard",
		.len = 6,
	};
	struct lg_trim t = {
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.span_bytes = UINT64_C(240057409536),
		.torture_seconds = 3600,
		.discard_method = "blkdiscard",
		.clean_bytes_per_second = 315100000,
		.after_torture_bytes_per_second = 183300000,
		.after_trim_bytes_per_second = 193300000,
	};
	static const uint64_t series[6] = {90000, 85000, 0, 0, 5000, 4800};

	base_report(r);
	snprintf(res.test, sizeof(res.test), "randread-4k-qd3");
	res.jobs = 1;
	CHECK(lg_report_add_result(r, &res) == 0);
	/* a mixed ad-hoc test of two jobs: reads and writes beside their sum */
	struct lg_result mixed = res;

	snprintf(mixed.test, sizeof(mixed.test), "adhoc-randrw70-4k-qd3-j2");
	mixed.jobs = 2;
	mixed.mixed = true;
	mixed.read_percent = 70;
	mixed.dir[0] = (struct lg_direction){
		.io_count = 3780000,
		.bytes = UINT64_C(15482880000),
		.bytes_per_second = 86015998.9,
		.iops = 20999.9997,
		.has_latency = true,
		.latency = res.latency,
		.has_clat = true,
		.clat = res.clat,
	};
	mixed.dir[1] = (struct lg_direction){
		.io_count = 1620000,
		.bytes = UINT64_C(6635520000),
		.bytes_per_second = 36863999.5,
		.iops = 8999.9999,
	};
	/* paced, with the histograms of its latency: a gap of 4 empty buckets stays in its
	 * run, one of 5 starts another */
	static const uint64_t whole[] = {0,      2000000, 3000000, 0, 0, 0, 0,
					 399000, 0,       0,       0, 0, 0, 1000};
	static const uint64_t reads[] = {1400000, 2100000, 0, 0, 0, 0, 279000, 0, 0, 0, 0, 0, 1000};

	mixed.rate_iops = 30000;
	mixed.latency_buckets = buckets_of(1999, whole, sizeof(whole) / sizeof(whole[0]));
	mixed.dir[0].latency_buckets = buckets_of(2000, reads, sizeof(reads) / sizeof(reads[0]));
	CHECK(lg_report_add_result(r, &mixed) == 0);
	CHECK(mixed.latency_buckets.n == 0 && mixed.dir[0].latency_buckets.index == NULL);
	c.iops = malloc(sizeof(series));
	if (c.iops)
		memcpy(c.iops, series, sizeof(series));
	snprintf(c.test, sizeof(c.test), "consistency-4k-qd32");
	CHECK(c.iops && lg_report_add_consistency(r, &c) == 0);
	CHECK(c.iops == NULL); /* the report took it */
	snprintf(t.test, sizeof(t.test), "trim-validation");
	CHECK(lg_report_add_trim(r, &t) == 0);

	/* a write saturation whose cache ran out after 3 s */
	static const uint64_t written[8] = {1000000000, 1100000000, 1050000000, 300000000,
					    310000000,  290000000,  305000000,  150000000};
	struct lg_saturation sat = {
		.test = "write-saturation-128k-qd32",
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.span_bytes = UINT64_C(4505000000),
		.block_size = 131072,
		.queue_depth = 32,
		.interval_ns = 1000000000,
		.duration_ns = UINT64_C(7500000000),
		.discard_method = "blkdiscard",
		.len = 8,
	};

	sat.bytes = malloc(sizeof(written));
	if (sat.bytes)
		memcpy(sat.bytes, written, sizeof(written));
	lg_saturation_summarize(written, 8, sat.interval_ns, sat.duration_ns, &sat.summary);
	CHECK(sat.summary.exhausted && sat.summary.exhausted_at_s == 3);
	CHECK(sat.bytes && lg_report_add_saturation(r, &sat) == 0 && sat.bytes == NULL);

	/* a WSAT stopped by 4x the span written, below half its first round's rate from 180 s */
	static const uint64_t rounds[5] = {1200000000, 1000000000, 700000000, 500000000, 400000000};
	struct lg_saturation wsat = {
		.test = "wsat-4k-qd32",
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.span_bytes = 950000000,
		.block_size = 4096,
		.queue_depth = 32,
		.interval_ns = UINT64_C(60000000000),
		.duration_ns = UINT64_C(290000000000),
		.discard_method = "blkdiscard",
		.len = 5,
		.wsat = true,
		.target_bytes = 3800000000,
		.time_cap_ns = UINT64_C(86400000000000),
		.stopped_by = LG_WSAT_STOP_BYTES,
	};

	wsat.bytes = malloc(sizeof(rounds));
	if (wsat.bytes)
		memcpy(wsat.bytes, rounds, sizeof(rounds));
	lg_saturation_summarize(rounds, 5, wsat.interval_ns, wsat.duration_ns, &wsat.summary);
	wsat.halved = lg_wsat_halved(rounds, 5, wsat.interval_ns, wsat.duration_ns,
				     &wsat.halved_at_s, &wsat.bytes_before_halved);
	CHECK(wsat.halved && wsat.halved_at_s == 180 && wsat.bytes_before_halved == 2900000000);
	CHECK(wsat.bytes && lg_report_add_saturation(r, &wsat) == 0);
}

static void failed_report(struct lg_report *r)
{
	base_report(r);
	r->status = LG_STATUS_FAILED;
	snprintf(
		r->failure_message, sizeof(r->failure_message),
		"randwrite-4k-qd3-8g: write of 4096 bytes at offset 8192 failed: No space left on device");
	r->failure_errno = ENOSPC;
	snprintf(r->failure_test, sizeof(r->failure_test), "randwrite-4k-qd3-8g");
	r->health.has_after = false; /* the device did not answer after the failure */
}

static void incomplete_report(struct lg_report *r)
{
	base_report(r);
	r->status = LG_STATUS_INCOMPLETE;
	r->has_target = false;
	r->parameters.suite_name[0] = '\0';
	r->parameters.ad_hoc = true;
	r->parameters.quick = true;
	r->parameters.direct = false;
	r->parameters.duration_scale = 0.25;
	r->parameters.load_percent[0] = 10;
	r->parameters.load_percent[1] = 50;
	r->parameters.nloads = 2;
	memset(&r->bench, 0, sizeof(r->bench));
	r->drive.manufacturer[0] = '\0'; /* falls back to "unknown" */
	r->health = (struct lg_health){.source = LG_HEALTH_NONE};
	snprintf(r->health.reason, sizeof(r->health.reason),
		 "a file: the health of the disk holding it is not the run's");
	/* the test interrupted keeps what it measured, marked partial */
	static const uint64_t series[3] = {5000, 4800, 1200};
	struct lg_consistency c = {
		.test = "consistency-4k-qd32",
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.interval_ns = 1000000000,
		.len = 3,
		.partial = true,
	};
	struct lg_result res = {
		.test = "randwrite-4k-qd3-8g",
		.pattern = LG_PATTERN_COMPRESSIBLE,
		.block_size = 4096,
		.queue_depth = 3,
		.duration_ns = 1500000000,
		.io_count = 3000,
		.bytes = 3000 * 4096,
		.bytes_per_second = 8192000,
		.iops = 2000,
		.partial = true,
	};

	CHECK(lg_report_add_result(r, &res) == 0);
	c.iops = malloc(sizeof(series));
	memcpy(c.iops, series, sizeof(series));
	CHECK(lg_report_add_consistency(r, &c) == 0);
	/* an interrupted write saturation: too short to tell */
	static const uint64_t written[1] = {123456789};
	struct lg_saturation sat = {
		.test = "write-saturation-128k-qd32",
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.interval_ns = 1000000000,
		.duration_ns = 400000000,
		.len = 1,
		.partial = true,
	};

	sat.bytes = malloc(sizeof(written));
	memcpy(sat.bytes, written, sizeof(written));
	lg_saturation_summarize(written, 1, sat.interval_ns, sat.duration_ns, &sat.summary);
	CHECK(lg_report_add_saturation(r, &sat) == 0);
	/* an interrupted WSAT: the rounds done, never below half, stopped by the interrupt */
	static const uint64_t rounds[2] = {40960000, 36864000};
	struct lg_saturation wsat = {
		.test = "wsat-4k-qd32",
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.span_bytes = 268435456,
		.block_size = 4096,
		.queue_depth = 32,
		.interval_ns = 1000000000,
		.duration_ns = 1700000000,
		.len = 2,
		.partial = true,
		.wsat = true,
		.target_bytes = 1073741824,
		.time_cap_ns = 10000000000,
		.stopped_by = LG_WSAT_STOP_INTERRUPTED,
	};

	wsat.bytes = malloc(sizeof(rounds));
	memcpy(wsat.bytes, rounds, sizeof(rounds));
	lg_saturation_summarize(rounds, 2, wsat.interval_ns, wsat.duration_ns, &wsat.summary);
	wsat.halved = lg_wsat_halved(rounds, 2, wsat.interval_ns, wsat.duration_ns,
				     &wsat.halved_at_s, &wsat.bytes_before_halved);
	CHECK(!wsat.halved);
	CHECK(lg_report_add_saturation(r, &wsat) == 0);
}

static char *render(struct lg_report *r)
{
	struct lg_json w;
	char *text;

	lg_json_init(&w, true);
	lg_report_json(r, &w);
	CHECK(lg_json_error(&w) == 0);
	text = strdup(lg_json_text(&w, NULL));
	lg_json_fini(&w);
	return text;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = '\0';
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static void golden(const char *dir, const char *name, void (*build)(struct lg_report *))
{
	struct lg_report r;
	char path[4096];
	char *text, *want;

	build(&r);
	text = render(&r);
	lg_report_fini(&r);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (getenv("LG_UPDATE_GOLDEN")) {
		size_t n = strlen(text);
		char *with_nl = malloc(n + 2);

		memcpy(with_nl, text, n);
		with_nl[n] = '\n';
		CHECK(lg_write_file_atomic(path, with_nl, n + 1) == 0);
		free(with_nl);
		free(text);
		return;
	}
	want = slurp(path);
	CHECKF(want != NULL, "cannot read %s", path);
	if (want) {
		size_t n = strlen(want);

		if (n && want[n - 1] == '\n')
			want[n - 1] = '\0';
		CHECKF(strcmp(text, want) == 0, "%s differs from the output:\n%s", path, text);
	}
	free(want);
	free(text);
}

static int run_validator(char **argv)
{
	pid_t pid;
	int status;

	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0)
		return -1;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int schema(const char *python, const char *validator, const char *schema_path)
{
	void (*builders[])(struct lg_report *) = {complete_report, failed_report,
						  incomplete_report};
	char dir[] = "report-test-XXXXXX";
	char paths[3][4200];
	char *argv[8];
	int argc = 0, code;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	argv[argc++] = (char *)python;
	argv[argc++] = (char *)validator;
	argv[argc++] = (char *)schema_path;
	for (int i = 0; i < 3; i++) {
		struct lg_report r;

		builders[i](&r);
		snprintf(paths[i], sizeof(paths[i]), "%s/doc%d.json", dir, i);
		CHECK(lg_report_write_file(&r, paths[i]) == 0);
		lg_report_fini(&r);
		argv[argc++] = paths[i];
	}
	argv[argc] = NULL;

	/* the atomic write leaves no temporary file behind */
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "ls %s | grep -c tmp >/dev/null", dir);
	CHECK(system(cmd) != 0);
	/* a failed write leaves the destination untouched */
	CHECK(lg_write_file_atomic("/nonexistent-dir/x.json", "{}", 2) == -ENOENT);

	code = run_validator(argv);
	for (int i = 0; i < 3; i++)
		unlink(paths[i]);
	rmdir(dir);
	if (code == 77)
		return 77;
	CHECKF(code == 0, "validator exit %d", code);
	return test_result("report_json schema");
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static bool file_is(const char *path, const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return f && strcmp(buf, text) == 0;
}

/* The output is opened before the run: what cannot be written is found then;
 * meanwhile a temporary file waits beside the path, gone after free. */
static int output(void)
{
	char dir[] = "report-output-XXXXXX";
	char path[128], link[128], tmp[256] = "";
	struct lg_output *out = NULL;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/doc.json", dir);
	snprintf(link, sizeof(link), "%s/link.json", dir);

	CHECK(lg_output_open("/nonexistent-dir/x.json", &out) == -ENOENT && out == NULL);
	CHECK(lg_output_open(dir, &out) == -EISDIR && out == NULL);
	CHECK(lg_output_open("/dev/null", &out) == -EEXIST && out == NULL);
	CHECK(symlink("doc.json", link) == 0);
	CHECK(lg_output_open(link, &out) == -EEXIST && out == NULL);
	CHECK(lg_output_open("", &out) == -EINVAL && out == NULL);

	/* opened, then abandoned (a refused run): nothing stays */
	CHECK(lg_output_open(path, &out) == 0 && out != NULL);
	if (lg_output_temp_path(out))
		snprintf(tmp, sizeof(tmp), "%s", lg_output_temp_path(out));
	CHECKF(strncmp(tmp, path, strlen(path)) == 0 && exists(tmp), "temporary file \"%s\"", tmp);
	CHECK(!exists(path));
	lg_output_free(out);
	out = NULL;
	CHECK(!exists(tmp) && !exists(path));

	/* opened, then committed: the text is at path, the temporary file gone */
	CHECK(lg_output_open(path, &out) == 0);
	if (lg_output_temp_path(out))
		snprintf(tmp, sizeof(tmp), "%s", lg_output_temp_path(out));
	CHECK(lg_output_commit(out, "{}\n", 3) == 0);
	CHECK(lg_output_temp_path(out) == NULL && !exists(tmp));
	CHECK(file_is(path, "{}\n"));
	CHECK(lg_output_commit(out, "{}\n", 3) == -EINVAL); /* once only */
	lg_output_free(out);
	CHECK(file_is(path, "{}\n"));

	/* an existing document is replaced */
	CHECK(lg_write_file_atomic(path, "[]\n", 3) == 0 && file_is(path, "[]\n"));
	lg_output_free(NULL);

	unlink(link);
	unlink(path);
	CHECK(rmdir(dir) == 0); /* nothing else was left in it */
	return test_result("report_json output");
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "golden") == 0) {
		golden(argv[2], "report-complete.json", complete_report);
		golden(argv[2], "report-failed.json", failed_report);
		golden(argv[2], "report-incomplete.json", incomplete_report);
		return test_result("report_json golden");
	}
	if (argc == 5 && strcmp(argv[1], "schema") == 0)
		return schema(argv[2], argv[3], argv[4]);
	if (argc == 2 && strcmp(argv[1], "output") == 0)
		return output();
	fprintf(stderr, "usage: %s golden DIR | schema PYTHON VALIDATOR SCHEMA | output\n",
		argv[0]);
	return 2;
}
