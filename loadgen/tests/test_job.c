#define _GNU_SOURCE
/* The job runner on a small file: timed and sized jobs, the queue depth, the
 * histogram and timeline it feeds, interruption, and I/O errors. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "job.h"
#include "test_common.h"
#include "util.h"

#define MIB (1u << 20)

static int temp_file(uint64_t size)
{
	char path[] = "job-test-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (ftruncate(fd, (off_t)size) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int progress_calls;

static void on_progress(void *ctx, const struct lg_job_progress *p)
{
	(void)ctx;
	if (p->elapsed_ns > 0 && p->name)
		progress_calls++;
}

static void test_timed(const struct lg_engine_ops *ops)
{
	int fd = temp_file(16 * MIB);
	struct lg_histogram *h = NULL;
	struct lg_timeline *tl = NULL;
	struct lg_job_result res;
	struct lg_job_hooks hooks = {.progress = on_progress};

	if (fd < 0 || lg_histogram_new(&h) < 0 ||
	    lg_timeline_new(LG_NSEC_PER_SEC / 10, 100, &tl) < 0) {
		CHECK(!"setup");
		goto out;
	}
	struct lg_job_spec spec = {
		.name = "timed",
		.write = true,
		.random = true,
		.block_size = 4096,
		.queue_depth = 8,
		.span_bytes = 16 * MIB,
		.duration_ns = LG_NSEC_PER_SEC * 3 / 4,
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.seed = 1,
		.hist = h,
		.timeline = tl,
	};

	progress_calls = 0;
	CHECK(lg_job_run(&spec, ops, fd, &hooks, &res) == 0);
	CHECK(!res.interrupted && res.error == 0);
	CHECK(res.ios > 0 && res.bytes == res.ios * 4096);
	CHECKF(res.elapsed_ns >= spec.duration_ns &&
		       res.elapsed_ns < spec.duration_ns + LG_NSEC_PER_SEC,
	       "%s elapsed %lu", ops->name, (unsigned long)res.elapsed_ns);
	CHECK(h->count == res.ios);
	CHECK(h->min > 0 && h->max >= h->min);
	CHECK(progress_calls >= 1);

	size_t len;
	const uint64_t *c = lg_timeline_counts(tl, &len);
	uint64_t in_series = 0;

	for (size_t i = 0; i < len; i++)
		in_series += c[i];
	/* 0.75 s in 0.1 s intervals: 8 intervals begun; all but the drained I/Os counted */
	CHECKF(len == 8, "%s timeline length %zu", ops->name, len);
	CHECK(in_series <= res.ios && in_series + 8 >= res.ios);

	/* the same seed writes the same offsets: data stays within the span */
	struct stat st;

	CHECK(fstat(fd, &st) == 0 && st.st_size == 16 * MIB);
out:
	lg_histogram_free(h);
	lg_timeline_free(tl);
	if (fd >= 0)
		close(fd);
}

static void test_sized_fill(const struct lg_engine_ops *ops)
{
	const uint64_t total = 5 * MIB + 8192; /* the last I/O is short */
	int fd = temp_file(0);
	struct lg_job_result res;
	unsigned char *buf = malloc(total);

	if (fd < 0 || !buf) {
		CHECK(!"setup");
		goto out;
	}
	struct lg_job_spec spec = {
		.name = "fill",
		.write = true,
		.random = false,
		.block_size = MIB,
		.queue_depth = 4,
		.span_bytes = total,
		.total_bytes = total,
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.seed = 2,
	};

	CHECK(lg_job_run(&spec, ops, fd, NULL, &res) == 0);
	CHECK(res.error == 0 && res.bytes == total && res.ios == 6);

	struct stat st;

	CHECK(fstat(fd, &st) == 0 && (uint64_t)st.st_size == total);
	CHECK(pread(fd, buf, total, 0) == (ssize_t)total);
	/* every 4 KiB of incompressible data was written: no zero block */
	bool all_written = true;

	for (uint64_t off = 0; off < total; off += 4096) {
		static const unsigned char zero[4096];

		if (memcmp(buf + off, zero, 4096) == 0)
			all_written = false;
	}
	CHECK(all_written);

	/* compressible: each 4 KiB ends with 2 KiB of zeros, begins with data */
	spec.pattern = LG_PATTERN_COMPRESSIBLE;
	CHECK(lg_job_run(&spec, ops, fd, NULL, &res) == 0 && res.bytes == total);
	CHECK(pread(fd, buf, total, 0) == (ssize_t)total);
	bool shaped = true;

	for (uint64_t off = 0; off < total; off += 4096) {
		static const unsigned char zero[2048];

		if (memcmp(buf + off + 2048, zero, 2048) != 0 || memcmp(buf + off, zero, 2048) == 0)
			shaped = false;
	}
	CHECK(shaped);
out:
	free(buf);
	if (fd >= 0)
		close(fd);
}

static void test_sequential_wraps(const struct lg_engine_ops *ops)
{
	int fd = temp_file(MIB);
	struct lg_job_result res;
	struct lg_job_spec spec = {
		.name = "seq",
		.write = false,
		.random = false,
		.block_size = 128 * 1024,
		.queue_depth = 1,
		.span_bytes = MIB,
		.duration_ns = LG_NSEC_PER_SEC / 5,
		.seed = 3,
	};

	if (fd < 0) {
		CHECK(!"setup");
		return;
	}
	CHECK(lg_job_run(&spec, ops, fd, NULL, &res) == 0);
	CHECK(res.error == 0 && res.ios > 8); /* more than one pass over 1 MiB */
	close(fd);
}

static void test_short_io(const struct lg_engine_ops *ops)
{
	int fd = temp_file(MIB);
	struct lg_job_result res;
	/* the span goes past the end of the file: a read there is short */
	struct lg_job_spec spec = {
		.name = "short",
		.write = false,
		.random = false,
		.block_size = 64 * 1024,
		.queue_depth = 2,
		.span_bytes = 2 * MIB,
		.duration_ns = 5 * LG_NSEC_PER_SEC,
		.seed = 4,
	};

	if (fd < 0) {
		CHECK(!"setup");
		return;
	}
	uint64_t t0 = lg_now_ns();

	CHECK(lg_job_run(&spec, ops, fd, NULL, &res) == 0);
	CHECK(res.error == -EIO && res.short_io && !res.write_failed);
	CHECK(res.error_offset == MIB && res.error_transferred == 0);
	CHECK(res.bytes == MIB);
	CHECK(lg_now_ns() - t0 < LG_NSEC_PER_SEC); /* stopped at once */

	/* a write on a read-only descriptor fails with EBADF */
	char fdpath[64];

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	int rofd = open(fdpath, O_RDONLY);

	spec.write = true;
	spec.span_bytes = MIB;
	spec.pattern = LG_PATTERN_INCOMPRESSIBLE;
	CHECK(rofd >= 0 && lg_job_run(&spec, ops, rofd, NULL, &res) == 0);
	CHECK(res.error == -EBADF && !res.short_io && res.write_failed);
	if (rofd >= 0)
		close(rofd);
	close(fd);
}

/* Reads running past the end of a 1 MiB file, at every queue depth, block size
 * and worker count: whatever order the I/Os in flight complete in, one worker
 * reports the failure at the lowest offset, the block that holds the file's end.
 * Several workers: the first to fail stops the others, maybe before they reach
 * their own failing block, so the report is the lowest failure that happened: a
 * block on the grid (a worker's slice is a whole number of blocks) at or past
 * the end, with what it did transfer. A write on a read-only descriptor fails
 * where a worker's slice begins, at 0 for one worker. */
static void test_failure_reported_is_the_lowest(const struct lg_engine_ops *ops)
{
	static const uint32_t depths[] = {1, 2, 8, 64};
	static const uint32_t blocks[] = {4096, 12288, 65536, 98304, 196608};
	static const uint32_t jobs[] = {1, 2, 4};
	int fd = temp_file(0);
	int rofd = -1;
	char fdpath[64];
	static unsigned char data[MIB];

	/* data on the disk, out of the page cache before each run and with no
	 * read-ahead: the read of the block that holds the end waits for the disk
	 * while the reads past the end complete at once, the order that used to
	 * report one of those instead */
	memset(data, 0xa5, sizeof(data));
	if (fd < 0 || pwrite(fd, data, MIB, 0) != MIB || fsync(fd) < 0) {
		CHECK(!"setup");
		if (fd >= 0)
			close(fd);
		return;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	rofd = open(fdpath, O_RDONLY);
	CHECK(rofd >= 0);
	for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++)
		for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++)
			for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
				uint32_t bs = blocks[b];
				struct lg_job_spec spec = {
					.name = "lowest",
					.block_size = bs,
					.queue_depth = depths[d],
					.jobs = jobs[j],
					.span_bytes = 2 * MIB,
					.duration_ns = 5 * LG_NSEC_PER_SEC,
					.pattern = LG_PATTERN_INCOMPRESSIBLE,
					.seed = 7,
				};
				uint64_t end_block = MIB / bs * bs;
				struct lg_job_result res;

				posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
				CHECK(lg_job_run(&spec, ops, fd, NULL, &res) == 0);
				uint64_t off = res.error_offset;
				bool where = jobs[j] == 1 ? off == end_block
							  : off >= end_block && off % bs == 0;
				int32_t transferred = off < MIB ? (int32_t)(MIB - off) : 0;

				CHECKF(res.error == -EIO && res.short_io && where &&
					       res.error_length == bs &&
					       res.error_transferred == transferred,
				       "%s qd %u bs %u jobs %u: error %d at %lu, %d of %u",
				       ops->name, depths[d], bs, jobs[j], res.error,
				       (unsigned long)off, res.error_transferred, res.error_length);

				spec.write = true;
				spec.span_bytes = MIB;
				uint64_t part = spec.span_bytes / jobs[j] / bs * bs;

				if (rofd < 0)
					continue;
				CHECK(lg_job_run(&spec, ops, rofd, NULL, &res) == 0);
				CHECKF(res.error == -EBADF && res.write_failed &&
					       res.error_offset % part == 0 &&
					       res.error_offset < jobs[j] * part,
				       "%s qd %u bs %u jobs %u: write error %d at %lu", ops->name,
				       depths[d], bs, jobs[j], res.error,
				       (unsigned long)res.error_offset);
			}
	if (rofd >= 0)
		close(rofd);
	close(fd);
}

static void test_interrupted(const struct lg_engine_ops *ops)
{
	int fd = temp_file(MIB);
	static volatile sig_atomic_t stop = 1;
	struct lg_job_hooks hooks = {.stop = &stop};
	struct lg_job_result res;
	struct lg_job_spec spec = {
		.name = "stop",
		.write = false,
		.random = true,
		.block_size = 4096,
		.queue_depth = 4,
		.span_bytes = MIB,
		.duration_ns = 10 * LG_NSEC_PER_SEC,
		.seed = 5,
	};

	if (fd < 0) {
		CHECK(!"setup");
		return;
	}
	CHECK(lg_job_run(&spec, ops, fd, &hooks, &res) == 0);
	CHECK(res.interrupted && res.ios == 0);
	close(fd);
}

/* Two workers: the sums, the merged histograms, each sequential worker in its own
 * half of the span. */
static void test_jobs(const struct lg_engine_ops *ops)
{
	int fd = temp_file(4 * MIB);
	struct lg_histogram *h = NULL, *ch = NULL;
	struct lg_job_result res;
	struct lg_job_hooks hooks = {.progress = on_progress};
	unsigned char *buf = malloc(4 * MIB);

	if (fd < 0 || !buf || lg_histogram_new(&h) < 0 || lg_histogram_new(&ch) < 0) {
		CHECK(!"setup");
		goto out;
	}
	struct lg_job_spec spec = {
		.name = "jobs",
		.write = true,
		.random = false,
		.block_size = 64 * 1024,
		.queue_depth = 2,
		.jobs = 2,
		.span_bytes = 4 * MIB,
		.duration_ns = LG_NSEC_PER_SEC / 4,
		.pattern = LG_PATTERN_INCOMPRESSIBLE,
		.seed = 11,
		.hist = h,
		.clat_hist = ch,
	};

	progress_calls = 0;
	CHECK(lg_job_run(&spec, ops, fd, &hooks, &res) == 0);
	CHECK(res.error == 0 && !res.interrupted && res.ios > 0);
	CHECK(res.bytes == res.ios * 64 * 1024 && res.dir_ios[LG_DIR_WRITE] == res.ios);
	CHECK(h->count == res.ios && ch->count == res.ios);
	CHECK(res.elapsed_ns >= spec.duration_ns);
	/* both halves were written from their start */
	CHECK(pread(fd, buf, 4 * MIB, 0) == 4 * MIB);
	static const unsigned char zero[4096];

	CHECK(memcmp(buf, zero, sizeof(zero)) != 0);
	CHECK(memcmp(buf + 2 * MIB, zero, sizeof(zero)) != 0);

	/* a sized job, a series or too small a span is one worker's */
	struct lg_job_spec bad = spec;

	bad.duration_ns = 0;
	bad.total_bytes = MIB;
	CHECK(lg_job_run(&bad, ops, fd, NULL, &res) == -EINVAL);
	bad = spec;
	bad.span_bytes = 64 * 1024;
	CHECK(lg_job_run(&bad, ops, fd, NULL, &res) == -EINVAL);
	bad = spec;
	bad.jobs = 1000;
	CHECK(lg_job_run(&bad, ops, fd, NULL, &res) == -EINVAL);
out:
	free(buf);
	lg_histogram_free(h);
	lg_histogram_free(ch);
	if (fd >= 0)
		close(fd);
}

/* The first worker's progress hook, which stalls the job: it sleeps STALL_NS at the
 * first report (the worker can issue nothing meanwhile), once. */
#define STALL_NS (LG_NSEC_PER_SEC / 5)
static int stalls;

static void stall_once(void *ctx, const struct lg_job_progress *p)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)STALL_NS};

	(void)ctx;
	(void)p;
	if (stalls++ == 0)
		nanosleep(&ts, NULL);
}

/* Paced jobs (rate_iops) on a file in the page cache: the schedule's I/Os at its rate
 * within 1%, each worker its share; latency from the due time, which shows a stall of
 * the issuing thread that the completion part (from the issue) does not. */
static void test_paced(const struct lg_engine_ops *ops)
{
	int fd = temp_file(4 * MIB);
	struct lg_histogram *h = NULL, *ch = NULL;
	struct lg_job_result res;
	struct lg_job_hooks hooks = {.progress = stall_once};

	if (fd < 0 || lg_histogram_new(&h) < 0 || lg_histogram_new(&ch) < 0) {
		CHECK(!"setup");
		goto out;
	}
	struct lg_job_spec spec = {
		.name = "paced",
		.random = true,
		.block_size = 4096,
		.queue_depth = 4,
		.span_bytes = 4 * MIB,
		.duration_ns = 2 * LG_NSEC_PER_SEC,
		.rate_iops = 4000,
		.seed = 5,
		.hist = h,
		.clat_hist = ch,
	};

	for (uint32_t jobs = 1; jobs <= 2; jobs++) {
		double rate;

		spec.jobs = jobs;
		lg_histogram_reset(h);
		lg_histogram_reset(ch);
		CHECK(lg_job_run(&spec, ops, fd, NULL, &res) == 0 && res.error == 0);
		rate = (double)res.ios * 1e9 / (double)res.elapsed_ns;
		CHECKF(res.ios <= 8000 && res.ios >= 7920,
		       "%u jobs: %lu I/Os, the schedule holds 8000", jobs, (unsigned long)res.ios);
		/* Within 2%: the elapsed time holds the job's start and the last I/Os' drain,
		 * tens of ms under the sanitizers on a loaded machine (CI: 8000 I/Os in 2.023 s);
		 * paced.py and make bench-qos hold the plain build's rate to 1%. */
		CHECKF(rate >= 3920 && rate <= 4080,
		       "%u jobs: %.1f IOPS for a rate of 4000 (%lu I/Os in %lu ns)", jobs, rate,
		       (unsigned long)res.ios, (unsigned long)res.elapsed_ns);
		CHECK(h->count == res.ios && ch->count == res.ios);
	}
	/* The stall: 0.2 s without issuing, at 4000 I/Os a second: 800 I/Os (a tenth) due
	 * meanwhile wait, the first of them about 0.2 s. */
	spec.jobs = 1;
	lg_histogram_reset(h);
	lg_histogram_reset(ch);
	stalls = 0;
	CHECK(lg_job_run(&spec, ops, fd, &hooks, &res) == 0 && res.error == 0 && stalls > 0);
	CHECKF(h->max >= STALL_NS * 9 / 10, "max latency %lu ns hides a %lu ns stall",
	       (unsigned long)h->max, (unsigned long)STALL_NS);
	/* the 5% of the I/Os most delayed waited 0.1 s to 0.2 s */
	CHECKF(lg_histogram_percentile(h, 95) >= STALL_NS / 4, "p95 %lu ns: no stall",
	       (unsigned long)lg_histogram_percentile(h, 95));
	CHECKF(lg_histogram_percentile(ch, 95) < STALL_NS / 20, "clat p95 %lu ns",
	       (unsigned long)lg_histogram_percentile(ch, 95));
	CHECKF(res.ios >= 7920, "%lu I/Os after the stall", (unsigned long)res.ios);

	/* A paced job is timed */
	struct lg_job_spec bad = spec;

	bad.duration_ns = 0;
	bad.total_bytes = MIB;
	bad.random = false;
	CHECK(lg_job_run(&bad, ops, fd, NULL, &res) == -EINVAL);
out:
	lg_histogram_free(h);
	lg_histogram_free(ch);
	if (fd >= 0)
		close(fd);
}

/* Mixed reads and writes: the share of reads, and the figures of each direction. */
static void test_mixed(const struct lg_engine_ops *ops)
{
	int fd = temp_file(4 * MIB);
	struct lg_histogram *h[2] = {NULL, NULL}, *all = NULL;
	struct lg_job_result res;

	if (fd < 0 || lg_histogram_new(&h[0]) < 0 || lg_histogram_new(&h[1]) < 0 ||
	    lg_histogram_new(&all) < 0) {
		CHECK(!"setup");
		goto out;
	}
	struct lg_job_spec spec = {
		.name = "mixed",
		.mixed = true,
		.read_percent = 70,
		.random = true,
		.block_size = 4096,
		.queue_depth = 4,
		.jobs = 2,
		.span_bytes = 4 * MIB,
		.duration_ns = LG_NSEC_PER_SEC / 2,
		.pattern = LG_PATTERN_COMPRESSIBLE,
		.seed = 12,
		.hist = all,
		.dir_hist = {h[0], h[1]},
	};

	CHECK(lg_job_run(&spec, ops, fd, NULL, &res) == 0);
	CHECK(res.error == 0 && res.ios > 200);
	CHECK(res.dir_ios[0] + res.dir_ios[1] == res.ios);
	CHECK(res.dir_bytes[0] == res.dir_ios[0] * 4096 &&
	      res.dir_bytes[1] == res.dir_ios[1] * 4096);
	CHECK(h[0]->count == res.dir_ios[0] && h[1]->count == res.dir_ios[1] &&
	      all->count == res.ios);
	double share = (double)res.dir_ios[0] / (double)res.ios;

	CHECKF(share > 0.62 && share < 0.78, "%s: read share %.3f of %lu", ops->name, share,
	       (unsigned long)res.ios);
	spec.read_percent = 100;
	spec.jobs = 1;
	CHECK(lg_job_run(&spec, ops, fd, NULL, &res) == 0 && res.dir_ios[1] == 0 && res.ios > 0);
	spec.read_percent = 0;
	CHECK(lg_job_run(&spec, ops, fd, NULL, &res) == 0 && res.dir_ios[0] == 0 && res.ios > 0);
	spec.read_percent = 101;
	CHECK(lg_job_run(&spec, ops, fd, NULL, &res) == -EINVAL);
out:
	lg_histogram_free(h[0]);
	lg_histogram_free(h[1]);
	lg_histogram_free(all);
	if (fd >= 0)
		close(fd);
}

static void test_bad_specs(const struct lg_engine_ops *ops)
{
	struct lg_job_result res;
	struct lg_job_spec spec = {
		.block_size = 4096,
		.queue_depth = 1,
		.span_bytes = MIB,
		.duration_ns = 1,
	};
	struct lg_job_spec bad;

	bad = spec;
	bad.block_size = 1000;
	CHECK(lg_job_run(&bad, ops, -1, NULL, &res) == -EINVAL);
	bad = spec;
	bad.queue_depth = 0;
	CHECK(lg_job_run(&bad, ops, -1, NULL, &res) == -EINVAL);
	bad = spec;
	bad.total_bytes = MIB; /* both timed and sized */
	CHECK(lg_job_run(&bad, ops, -1, NULL, &res) == -EINVAL);
	bad = spec;
	bad.span_bytes = 512;
	CHECK(lg_job_run(&bad, ops, -1, NULL, &res) == -EINVAL);
}

int main(void)
{
	const char *const *names = lg_engine_names();

	for (; *names; names++) {
		const struct lg_engine_ops *ops;

		if (lg_engine_find(*names, &ops) < 0 || ops->probe() < 0)
			continue;
		test_timed(ops);
		test_sized_fill(ops);
		test_sequential_wraps(ops);
		test_short_io(ops);
		test_failure_reported_is_the_lowest(ops);
		test_interrupted(ops);
		test_bad_specs(ops);
		test_jobs(ops);
		test_mixed(ops);
		test_paced(ops);
		printf("job: %s engine checked\n", ops->name);
	}
	return test_result("job");
}
