/* job: one timed (or sized) stream of I/Os against an open target, keeping the
 * queue full at the stated depth, timed with the monotonic clock. It is the
 * hot loop of loadgen: no allocation per I/O; each freed slot refilled at once
 * (one submission call and two clock reads per I/O); one clock read per batch
 * of completions and two histogram inserts per completion; write data refreshed
 * while the device works, in a second set of buffers.
 *
 * Paced jobs (rate_iops): open loop. I/O k is due at start + k / rate_iops (each
 * worker of several at its share of the rate), issued when due if the queue has a
 * free slot, else as soon as one frees; the worker sleeps (or, the last
 * LG_PACE_SPIN_NS, spins) until the next is due, reaping what completes meanwhile.
 * Its latency runs from the time it was due, not from when it was issued: a device
 * that stalls delays every I/O due during the stall, and each of them shows it, as
 * it would to an application issuing at that rate (no coordinated omission). The
 * job issues every I/O due before the end of its duration, those issued late included,
 * unless it is still behind LG_PACE_GRACE_NS after the end: a device slower than the
 * rate ends it then, with fewer I/Os than the schedule held.
 *
 * Latency (hist): from just before the call that hands the I/O to the kernel (a
 * paced job: from the time the I/O was due) to the moment its completion is reaped: the whole life of the I/O as the
 * application sees it, fio's total latency (lat), Iometer's response time. Its
 * completion part (clat_hist) starts when that call has returned, fio's clat:
 * an I/O that completes during the handing-over call itself (a page-cache hit
 * with io_uring) shows there only the time it waits while the rest of the queue
 * is submitted.
 *
 * Offsets: random jobs pick block-aligned offsets uniformly over the span from a
 * generator seeded with spec.seed; sequential jobs walk the span and wrap.
 * Mixed jobs draw each I/O's direction from a generator of their own.
 *
 * Several jobs (spec.jobs, like fio's numjobs with group_reporting): one thread
 * each, with its own engine (ring), buffers and generators (seeds derived from
 * spec.seed), started together; the result sums their I/Os and bytes over the
 * time from the first start to the last completion, and their latencies are
 * merged into the spec's histograms.
 * A sized job (total_bytes) writes or reads [span_offset, +total_bytes) once,
 * sequentially, the last I/O possibly shorter than the block size.
 *
 * Ownership: the caller owns the spec, the histogram and timeline it points
 * to, and the result. The job allocates its buffers and engine and frees them
 * before returning.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "histogram.h"
#include "pattern.h"
#include "timeline.h"

/* Direction of an I/O, the index of per-direction figures. */
enum lg_dir {
	LG_DIR_READ = 0,
	LG_DIR_WRITE = 1,
};

struct lg_job_spec {
	const char *name; /* shown in progress reports */
	bool write;       /* every I/O a write (else a read), unless mixed */
	bool mixed;       /* each I/O a read with probability read_percent/100, else a write */
	uint32_t read_percent;
	bool random;
	uint32_t block_size; /* bytes, a multiple of 512 */
	uint32_t queue_depth;
	uint32_t jobs; /* workers, each with its own engine, buffers and generators:
				  * 0 or 1 runs one in the calling thread. Random jobs all cover
				  * the span; sequential job i walks the i-th of jobs equal parts */
	uint64_t span_offset;
	uint64_t span_bytes;     /* region the offsets fall in; >= block_size */
	uint64_t duration_ns;    /* time-based job; 0 for a sized job (one worker only) */
	uint64_t total_bytes;    /* sized job: bytes to transfer once; 0 for a timed job */
	uint64_t max_bytes;      /* timed job (one worker): also stops once it has submitted
				  * this many bytes, whole blocks only; 0: no limit */
	uint64_t rate_iops;      /* paced: I/Os a second, every worker together (timed jobs
				  * only); 0: each freed slot refilled at once */
	enum lg_pattern pattern; /* data of writes */
	uint64_t seed;
	struct lg_histogram *hist;        /* latencies, issue to completion; may be NULL */
	struct lg_histogram *clat_hist;   /* their completion part; may be NULL */
	struct lg_histogram *dir_hist[2]; /* the same by direction; may be NULL */
	struct lg_histogram *dir_clat_hist[2];
	struct lg_timeline *timeline;      /* completions per interval (one worker); may be NULL */
	struct lg_timeline *byte_timeline; /* bytes per interval (one worker); may be NULL */
};

/* A paced worker spins, rather than sleeps, this close to an I/O's due time: a wake-up
 * from a sleep comes some microseconds late. */
#define LG_PACE_SPIN_NS 20000
/* How far past its duration a paced job still issues the I/Os due before its end. */
#define LG_PACE_GRACE_NS UINT64_C(500000000)

struct lg_job_progress {
	const char *name;
	uint64_t elapsed_ns;
	uint64_t remaining_ns; /* time-based: exact; sized: estimated from the rate */
	uint64_t ios, bytes;   /* so far, every worker */
	double iops_now;       /* over the last report interval */
	double bytes_per_second_now;
};

struct lg_job_hooks {
	/* Called about twice a second from the first worker's thread; may be NULL. */
	void (*progress)(void *ctx, const struct lg_job_progress *progress);
	void *ctx;
	/* When it becomes non-zero the job stops submitting, waits for the I/Os in
	 * flight and returns with result.interrupted. May be NULL. */
	const volatile sig_atomic_t *stop;
};

struct lg_job_result {
	uint64_t ios; /* completed successfully, every worker */
	uint64_t bytes;
	uint64_t dir_ios[2]; /* the same by direction */
	uint64_t dir_bytes[2];
	uint64_t elapsed_ns; /* first submission to last completion */
	bool interrupted;
	/* The failure reported is the failed I/O at the lowest offset, of every
	 * worker: the I/Os in flight when the first one failed complete in no set
	 * order, and the lowest is where a device's end or bad range begins. (A
	 * failure stops the other workers, which may not reach their own.) */
	int error;         /* 0, or the reported failed I/O's -errno */
	bool short_io;     /* it was a short transfer (error is -EIO) */
	bool write_failed; /* it was a write */
	uint64_t error_offset;
	uint32_t error_length;
	int32_t error_transferred; /* bytes a short I/O did transfer */
};

/* Run the job on fd with the engine ops. Returns 0 when the job ran (an I/O
 * error or an interruption is reported in *ret_result, which is then filled
 * with what completed before; an error in one worker stops the others), or
 * -errno when it could not start (-EINVAL bad spec, -ENOMEM, engine setup
 * errors). */
int lg_job_run(const struct lg_job_spec *spec, const struct lg_engine_ops *ops, int fd,
	       const struct lg_job_hooks *hooks, struct lg_job_result *ret_result);
