#define _GNU_SOURCE
#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "rng.h"
#include "util.h"

#define BUF_ALIGN 4096u
#define PROGRESS_INTERVAL_NS (LG_NSEC_PER_SEC / 2)
#define MAX_JOBS 64
/* Writes keep a second set of buffers: while the device works on one set, the
 * data of the other is refreshed, so that a completed slot is refilled at once
 * with fresh bytes instead of waiting for them to be generated. */
#define WRITE_BUFFER_SETS 2

/* Buffers of one direction. */
struct pool {
	unsigned char **fresh; /* ready: written data refreshed (writes), or any (reads) */
	uint32_t nfresh;
	unsigned char **stale; /* writes only: written, to be refreshed */
	uint32_t nstale;
};

/* What accounting needs of a completed I/O once its slot is refilled. */
struct finished {
	uint64_t lat, clat;
	uint32_t length;
	uint8_t dir;
	bool ok;
};

struct job_state {
	const struct lg_job_spec *spec;
	struct lg_rng off_rng, data_rng, mix_rng;
	uint64_t nblocks; /* random: span / block_size */
	uint64_t seq_pos; /* sequential: next position in the span */
	uint64_t submitted_bytes;
	unsigned char *buf_area;
	size_t buf_area_len;
	struct pool pool[2]; /* by enum lg_dir */
	struct lg_io *ios;
	struct lg_io **free_ios;
	uint32_t nfree;
	struct lg_io **done;
	struct finished *finished; /* the last reaped, to be accounted */
	uint32_t nfinished;
};

struct group;

/* One worker of a job: its own copy of the spec, state and engine, on cache lines
 * of its own (what one worker writes in its loop must not share a line with what
 * another reads in its). */
struct __attribute__((aligned(64))) worker {
	struct lg_job_spec spec;
	struct job_state st;
	struct lg_engine *engine;
	int fd; /* the group's, or its own open file of the same target */
	struct group *g;
	uint32_t index;
	int r; /* 0, or why it could not start */
	struct lg_job_result res;
	uint64_t t0, t_end;
	uint64_t ios_now, bytes_now; /* published for the progress report */
	pthread_t thread;
};

struct group {
	const struct lg_job_spec *spec;
	const struct lg_engine_ops *ops;
	int fd;
	const struct lg_job_hooks *hooks;
	uint32_t n;
	struct worker *w;
	/* The start gate: every worker set up, then all go at once. */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	uint32_t ready;
	bool go;
	int setup_failed; /* a worker could not start: none runs */
	int abort;        /* a worker failed: the others stop submitting */
};

static bool reads(const struct lg_job_spec *s)
{
	return s->mixed || !s->write;
}

static bool writes(const struct lg_job_spec *s)
{
	return s->mixed || s->write;
}

static int validate(const struct lg_job_spec *s)
{
	uint32_t jobs = s->jobs ? s->jobs : 1;

	if (s->block_size == 0 || s->block_size % 512 || s->queue_depth == 0 ||
	    s->queue_depth > 4096 || jobs > MAX_JOBS || (s->mixed && s->read_percent > 100))
		return -EINVAL;
	if (s->span_bytes < s->block_size && s->total_bytes == 0)
		return -EINVAL;
	if ((s->duration_ns == 0) == (s->total_bytes == 0))
		return -EINVAL; /* exactly one of timed or sized */
	if (s->total_bytes && (s->random || s->mixed || s->total_bytes % 512))
		return -EINVAL;
	if (s->span_offset % 512)
		return -EINVAL;
	if (s->max_bytes && (s->duration_ns == 0 || s->max_bytes < s->block_size))
		return -EINVAL; /* a byte limit bounds a timed job by at least one block */
	if (s->rate_iops && s->duration_ns == 0)
		return -EINVAL; /* a paced job is timed */
	if (jobs > 1 && (s->total_bytes || s->max_bytes || s->timeline || s->byte_timeline))
		return -EINVAL; /* sized jobs and series are one worker's */
	if (jobs > 1 && !s->random && s->span_bytes / jobs < s->block_size)
		return -EINVAL; /* each sequential worker needs a block of its own */
	return 0;
}

static void state_free(struct job_state *st)
{
	free(st->buf_area);
	for (int d = 0; d < 2; d++) {
		free(st->pool[d].fresh);
		free(st->pool[d].stale);
	}
	free(st->ios);
	free(st->free_ios);
	free(st->done);
	free(st->finished);
}

static int state_init(struct job_state *st, const struct lg_job_spec *spec)
{
	uint32_t qd = spec->queue_depth;
	uint32_t nbufs[2] = {reads(spec) ? qd : 0, writes(spec) ? qd * WRITE_BUFFER_SETS : 0};
	uint64_t seed_state = spec->seed;
	unsigned char *b;

	memset(st, 0, sizeof(*st));
	st->spec = spec;
	lg_rng_seed(&st->off_rng, lg_splitmix64(&seed_state));
	lg_rng_seed(&st->data_rng, lg_splitmix64(&seed_state));
	lg_rng_seed(&st->mix_rng, lg_splitmix64(&seed_state));
	st->nblocks = spec->span_bytes / spec->block_size;
	st->buf_area_len = (size_t)(nbufs[0] + nbufs[1]) * spec->block_size;
	if (posix_memalign((void **)&st->buf_area, BUF_ALIGN, st->buf_area_len) != 0) {
		st->buf_area = NULL;
		return -ENOMEM;
	}
	for (int d = 0; d < 2; d++) {
		st->pool[d].fresh = calloc(nbufs[d] ? nbufs[d] : 1, sizeof(unsigned char *));
		st->pool[d].stale = calloc(nbufs[d] ? nbufs[d] : 1, sizeof(unsigned char *));
		if (!st->pool[d].fresh || !st->pool[d].stale)
			return -ENOMEM;
	}
	st->ios = calloc(qd, sizeof(*st->ios));
	st->free_ios = calloc(qd, sizeof(*st->free_ios));
	st->done = calloc(qd, sizeof(*st->done));
	st->finished = calloc(qd, sizeof(*st->finished));
	if (!st->ios || !st->free_ios || !st->done || !st->finished)
		return -ENOMEM;

	/* Touch every buffer now so that page faults do not land in the timing. */
	b = st->buf_area;
	for (int d = 0; d < 2; d++) {
		for (uint32_t i = 0; i < nbufs[d]; i++, b += spec->block_size) {
			lg_pattern_init(spec->pattern, b, spec->block_size);
			if (d == LG_DIR_WRITE)
				lg_pattern_fill(spec->pattern, &st->data_rng, b, spec->block_size);
			st->pool[d].fresh[st->pool[d].nfresh++] = b;
		}
	}
	for (uint32_t i = 0; i < qd; i++) {
		st->ios[i].slot = i;
		st->free_ios[st->nfree++] = &st->ios[i];
	}
	return 0;
}

/* Offset and length of the next I/O; false when a sized job is complete or a
 * timed one has reached its byte limit. */
static inline bool next_io(struct job_state *st, uint64_t *ret_offset, uint32_t *ret_length)
{
	const struct lg_job_spec *s = st->spec;

	if (s->max_bytes && st->submitted_bytes + s->block_size > s->max_bytes)
		return false;
	if (s->random) {
		*ret_offset = lg_rng_offset(&st->off_rng, s->span_offset, st->nblocks,
					    s->block_size);
		*ret_length = s->block_size;
		return true;
	}
	if (s->total_bytes) {
		uint64_t left = s->total_bytes - st->submitted_bytes;

		if (left == 0)
			return false;
		*ret_offset = s->span_offset + st->submitted_bytes;
		*ret_length = left < s->block_size ? (uint32_t)left : s->block_size;
		return true;
	}
	if (st->seq_pos + s->block_size > s->span_bytes)
		st->seq_pos = 0;
	*ret_offset = s->span_offset + st->seq_pos;
	*ret_length = s->block_size;
	st->seq_pos += s->block_size;
	return true;
}

/* Whether the next I/O writes. */
static inline bool next_is_write(struct job_state *st)
{
	const struct lg_job_spec *s = st->spec;

	if (!s->mixed)
		return s->write;
	/* uniform over [0, 100) from the top 32 bits, without modulo bias worth the name */
	return ((lg_rng_next(&st->mix_rng) >> 32) * 100 >> 32) >= s->read_percent;
}

static inline unsigned char *take_buffer(struct job_state *st, int dir)
{
	struct pool *p = &st->pool[dir];

	if (p->nfresh)
		return p->fresh[--p->nfresh];
	/* Only writes run out of fresh buffers: refresh a stale one now. */
	unsigned char *b = p->stale[--p->nstale];

	lg_pattern_fill(st->spec->pattern, &st->data_rng, b, st->spec->block_size);
	return b;
}

static void refresh_stale(struct job_state *st)
{
	struct pool *p = &st->pool[LG_DIR_WRITE];

	while (p->nstale) {
		unsigned char *b = p->stale[--p->nstale];

		lg_pattern_fill(st->spec->pattern, &st->data_rng, b, st->spec->block_size);
		p->fresh[p->nfresh++] = b;
	}
}

static inline bool stop_requested(const struct worker *w)
{
	const struct lg_job_hooks *hooks = w->g->hooks;

	return hooks && hooks->stop && *hooks->stop;
}

/* The progress of every worker, reported by the first one. */
static void report_progress(struct worker *w, uint64_t now, uint64_t *last_t, uint64_t *last_ios,
			    uint64_t *last_bytes)
{
	const struct lg_job_spec *spec = w->g->spec;
	struct lg_job_progress p = {.name = spec->name, .elapsed_ns = now - w->t0};
	double dt = (double)(now - *last_t) / 1e9;

	for (uint32_t i = 0; i < w->g->n; i++) {
		p.ios += __atomic_load_n(&w->g->w[i].ios_now, __ATOMIC_RELAXED);
		p.bytes += __atomic_load_n(&w->g->w[i].bytes_now, __ATOMIC_RELAXED);
	}
	p.iops_now = (double)(p.ios - *last_ios) / dt;
	p.bytes_per_second_now = (double)(p.bytes - *last_bytes) / dt;
	if (spec->duration_ns) {
		p.remaining_ns = p.elapsed_ns < spec->duration_ns ? spec->duration_ns - p.elapsed_ns
								  : 0;
	} else if (p.bytes > 0) {
		double rate = (double)p.bytes / (double)p.elapsed_ns;

		p.remaining_ns = (uint64_t)((double)(spec->total_bytes - p.bytes) / rate);
	}
	w->g->hooks->progress(w->g->hooks->ctx, &p);
	*last_t = now;
	*last_ios = p.ios;
	*last_bytes = p.bytes;
}

/* Take back a completed I/O at now: its buffer and slot are free for the next one,
 * its figures kept in st->finished for account(). Returns false when it failed. */
static inline bool release(struct worker *w, struct lg_io *io, uint64_t now)
{
	struct lg_job_result *res = &w->res;
	struct job_state *st = &w->st;
	int dir = io->write ? LG_DIR_WRITE : LG_DIR_READ;
	bool ok = io->result == (int32_t)io->length;

	st->finished[st->nfinished++] = (struct finished){
		.lat = now - io->start_ns,
		.clat = now - io->issue_ns,
		.length = io->length,
		.dir = (uint8_t)dir,
		.ok = ok,
	};
	if (!ok && (res->error == 0 || io->offset < res->error_offset)) {
		/* of the failures, the one at the lowest offset: the same whatever
		 * order the in-flight I/Os complete in */
		res->error = io->result < 0 ? io->result : -EIO;
		res->short_io = io->result >= 0;
		res->write_failed = io->write;
		res->error_offset = io->offset;
		res->error_length = io->length;
		res->error_transferred = io->result >= 0 ? io->result : 0;
	}
	if (io->write)
		st->pool[dir].stale[st->pool[dir].nstale++] = io->buf;
	else
		st->pool[dir].fresh[st->pool[dir].nfresh++] = io->buf;
	st->free_ios[st->nfree++] = io;
	return ok;
}

/* Release the ndone I/Os of st->done reaped at now. A failed one ends the submitting
 * of every worker: *submitting becomes false. */
static void release_all(struct worker *w, uint32_t ndone, uint64_t now, bool *submitting)
{
	for (uint32_t i = 0; i < ndone; i++) {
		if (!release(w, w->st.done[i], now) && *submitting) {
			*submitting = false;
			__atomic_store_n(&w->g->abort, 1, __ATOMIC_RELAXED);
		}
	}
}

/* Count the I/Os released at `at` into the histograms, totals and series. */
static void account(struct worker *w, uint64_t at)
{
	const struct lg_job_spec *spec = &w->spec;
	struct lg_job_result *res = &w->res;
	struct job_state *st = &w->st;
	uint64_t ok = 0, bytes = 0;

	for (uint32_t i = 0; i < st->nfinished; i++) {
		const struct finished *f = &st->finished[i];

		if (!f->ok)
			continue;
		ok++;
		bytes += f->length;
		res->dir_ios[f->dir]++;
		res->dir_bytes[f->dir] += f->length;
		if (spec->hist)
			lg_histogram_add(spec->hist, f->lat);
		if (spec->clat_hist)
			lg_histogram_add(spec->clat_hist, f->clat);
		if (spec->dir_hist[f->dir])
			lg_histogram_add(spec->dir_hist[f->dir], f->lat);
		if (spec->dir_clat_hist[f->dir])
			lg_histogram_add(spec->dir_clat_hist[f->dir], f->clat);
	}
	st->nfinished = 0;
	res->ios += ok;
	res->bytes += bytes;
	__atomic_store_n(&w->ios_now, res->ios, __ATOMIC_RELAXED);
	__atomic_store_n(&w->bytes_now, res->bytes, __ATOMIC_RELAXED);
	if (spec->timeline) {
		if (ok)
			lg_timeline_add(spec->timeline, at - w->t0, ok);
		lg_timeline_reach(spec->timeline, at - w->t0);
	}
	if (spec->byte_timeline) {
		if (bytes)
			lg_timeline_add(spec->byte_timeline, at - w->t0, bytes);
		lg_timeline_reach(spec->byte_timeline, at - w->t0);
	}
}

/* A paced worker's schedule: its I/O k is due at t0 + offset + k x interval. The
 * workers of a job take turns, so that together they issue evenly at the job's rate. */
struct pace {
	bool on;
	double interval_ns;
	uint64_t offset_ns;
	uint64_t k;
	uint64_t due; /* the next I/O's due time */
};

static void pace_init(struct pace *p, const struct worker *w)
{
	double rate = (double)w->spec.rate_iops;

	memset(p, 0, sizeof(*p));
	p->on = rate > 0;
	if (!p->on)
		return;
	p->interval_ns = (double)w->g->n * 1e9 / rate;
	p->offset_ns = (uint64_t)((double)w->index * 1e9 / rate);
	p->due = w->t0 + p->offset_ns;
}

static void pace_next(struct pace *p, uint64_t t0)
{
	p->k++;
	p->due = t0 + p->offset_ns + (uint64_t)((double)p->k * p->interval_ns);
}

/* Until the next I/O is nearly due: a sleep when nothing is in flight, else the engine's
 * wait, which a completion ends sooner; in the last LG_PACE_SPIN_NS it returns at once,
 * and the caller polls. With I/Os in flight the engine is asked even then, so that what
 * completes while the caller polls is reaped at once (io_uring with deferred task work
 * posts completions only when asked: at high rates, where every I/O is due within
 * LG_PACE_SPIN_NS of the last, they would stay unreaped until the queue filled).
 * Returns 0 or the engine's -errno. */
static int pace_wait(struct worker *w, const struct pace *p, uint32_t inflight)
{
	uint64_t wake = p->due > LG_PACE_SPIN_NS ? p->due - LG_PACE_SPIN_NS : 0;
	struct timespec ts = {
		.tv_sec = (time_t)(wake / LG_NSEC_PER_SEC),
		.tv_nsec = (long)(wake % LG_NSEC_PER_SEC),
	};

	if (inflight > 0)
		return w->engine->ops->wait(w->engine, wake);
	if (lg_now_ns() >= wake)
		return 0;
	/* A signal ends it early: the loop sees the stop request. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return 0;
}

/* The hot loop of one worker; returns 0 or an engine's -errno. */
static int worker_loop(struct worker *w)
{
	const struct lg_job_spec *spec = &w->spec;
	struct lg_engine *engine = w->engine;
	struct job_state *st = &w->st;
	struct lg_job_result *res = &w->res;
	uint32_t qd = spec->queue_depth, inflight = 0;
	bool submitting = true;
	bool reporter = w->index == 0 && w->g->hooks && w->g->hooks->progress;
	uint64_t now, deadline, next_progress, last_ios = 0, last_bytes = 0, last_t;
	struct pace pace;
	int r = 0;

	w->t0 = now = last_t = lg_now_ns();
	deadline = spec->duration_ns ? w->t0 + spec->duration_ns : UINT64_MAX;
	next_progress = w->t0 + PROGRESS_INTERVAL_NS;
	pace_init(&pace, w);

	for (bool reaped = false;;) {
		if (submitting && stop_requested(w)) {
			submitting = false;
			res->interrupted = true;
		}
		/* A paced job issues every I/O due before its end, late ones too, unless
		 * it falls LG_PACE_GRACE_NS behind. */
		if (submitting &&
		    (pace.on ? pace.due >= deadline || now >= deadline + LG_PACE_GRACE_NS
			     : now >= deadline))
			submitting = false;
		if (submitting && __atomic_load_n(&w->g->abort, __ATOMIC_RELAXED))
			submitting = false;
		/* Refill the queue one I/O at a time, each handed to the kernel as soon
		 * as it is ready (as fio does by default): batching the refill delays the
		 * first I/Os of a batch behind the preparation of the others, and on
		 * virtio disks measurably lowers the IOPS reached at QD32. */
		while (submitting && inflight < qd) {
			uint64_t offset;
			uint32_t length, none;

			if (pace.on && pace.due > now && (now = lg_now_ns()) < pace.due)
				break; /* not due yet */
			if (!next_io(st, &offset, &length)) {
				submitting = false;
				break;
			}
			struct lg_io *io = st->free_ios[--st->nfree];

			io->write = next_is_write(st);
			io->buf = take_buffer(st, io->write ? LG_DIR_WRITE : LG_DIR_READ);
			io->offset = offset;
			io->length = length;
			st->submitted_bytes += length;
			/* Latency starts before the I/O is handed over (fio's lat), or for
			 * a paced job when it was due; its completion part once the kernel
			 * has it (fio's clat). */
			io->start_ns = pace.on ? pace.due : lg_now_ns();
			r = engine->ops->submit(engine, &io, 1);
			if (r < 0)
				return r;
			inflight++; /* queued: the drain must wait for it even if
				     * handing it to the kernel fails now */
			r = engine->ops->reap(engine, 0, NULL, 0, &none); /* start it */
			if (r < 0)
				return r;
			io->issue_ns = lg_now_ns();
			if (pace.on) {
				pace_next(&pace, w->t0);
				if (pace.due >= deadline)
					submitting = false;
			}
		}
		/* Account the last completions only now that their slots are refilled:
		 * the device works meanwhile, and at QD1 no bookkeeping stands between
		 * one I/O's completion and the next one's start. */
		if (reaped) {
			account(w, now);
			if (reporter && now >= next_progress) {
				report_progress(w, now, &last_t, &last_ios, &last_bytes);
				next_progress = now + PROGRESS_INTERVAL_NS;
			}
		}
		if (inflight == 0 && !(pace.on && submitting))
			break;

		uint32_t ndone = 0;

		/* Prepare the next write data while the device works. */
		if (st->pool[LG_DIR_WRITE].nstale > 0)
			refresh_stale(st);
		/* A paced job with a free slot waits for the next due time or a
		 * completion, whichever comes first. */
		if (pace.on && submitting && inflight < qd) {
			r = pace_wait(w, &pace, inflight);
			if (r == 0)
				r = engine->ops->reap(engine, 0, st->done, 1, &ndone);
			if (r < 0)
				return r;
			now = lg_now_ns();
			reaped = ndone > 0; /* a spin that took nothing has nothing to account */
			release_all(w, ndone, now, &submitting);
			inflight -= ndone;
			continue;
		}
		/* Take one completion at a time and refill its slot at once, as fio
		 * does by default. Taking a whole burst first (virtio disks complete
		 * in bursts of ~16 at QD32) would leave the burst's slots idle while
		 * the others are resubmitted one by one: the queue would not be full,
		 * and the idle time would fall outside every I/O's measured latency
		 * (4KB random writes at QD32: p50 ~8% below fio's at the same IOPS). */
		r = engine->ops->reap(engine, 1, st->done, 1, &ndone);
		if (r < 0)
			return r;
		now = lg_now_ns();
		reaped = true;
		release_all(w, ndone, now, &submitting);
		inflight -= ndone;
	}
	w->t_end = now;
	return 0;
}

/* Wait for every I/O still in flight: never free buffers the kernel may use. */
static void drain(struct worker *w)
{
	uint32_t inflight = w->spec.queue_depth - w->st.nfree, ndone;

	while (inflight > 0 &&
	       w->engine->ops->reap(w->engine, 1, w->st.done, w->spec.queue_depth, &ndone) == 0)
		inflight -= ndone;
}

/* An open file of its own on the target of fd, with the same access and O_DIRECT:
 * workers sharing one would all update its readahead state (struct file's f_ra)
 * on every buffered read, a cache line bouncing between their CPUs (page-cache
 * reads of 2 jobs ran slower than of 1). fd itself when it cannot be reopened. */
static int own_file(int fd)
{
	char path[64];
	int flags = fcntl(fd, F_GETFL), own;

	if (flags < 0)
		return fd;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	own = open(path, (flags & (O_ACCMODE | O_DIRECT)) | O_CLOEXEC);
	return own >= 0 ? own : fd;
}

static int worker_setup(struct worker *w)
{
	int r = state_init(&w->st, &w->spec);

	w->fd = w->g->n > 1 ? own_file(w->g->fd) : w->g->fd;
	if (r == 0)
		r = lg_engine_create(w->g->ops, w->fd, w->spec.queue_depth, w->st.buf_area,
				     w->st.buf_area_len, &w->engine);
	return r;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	struct group *g = w->g;

	w->r = worker_setup(w);
	if (w->r < 0)
		__atomic_store_n(&g->setup_failed, 1, __ATOMIC_RELAXED);
	if (g->n > 1) {
		pthread_mutex_lock(&g->lock);
		g->ready++;
		pthread_cond_broadcast(&g->cv);
		while (!g->go)
			pthread_cond_wait(&g->cv, &g->lock);
		pthread_mutex_unlock(&g->lock);
	}
	if (!__atomic_load_n(&g->setup_failed, __ATOMIC_RELAXED)) {
		/* A paced worker's sleeps end when asked, not up to the default 50 us
		 * later (the thread's timer slack, restored after). */
		int slack = w->spec.rate_iops ? prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) : -1;

		if (slack >= 0)
			prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
		w->r = worker_loop(w);
		if (slack >= 0)
			prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
		if (w->r < 0)
			__atomic_store_n(&w->g->abort, 1, __ATOMIC_RELAXED);
	}
	if (w->engine && w->r < 0)
		drain(w);
	lg_engine_destroy(w->engine);
	if (w->fd != g->fd)
		close(w->fd);
	state_free(&w->st);
	return NULL;
}

/* Worker i's spec: its seed, its part of a sequential span, its own histograms
 * when there are several workers (merged afterwards). */
static int worker_spec(const struct lg_job_spec *spec, uint32_t n, uint32_t i, uint64_t *seed_state,
		       struct lg_job_spec *ret)
{
	struct lg_histogram **hists[] = {&ret->hist,
					 &ret->clat_hist,
					 &ret->dir_hist[0],
					 &ret->dir_hist[1],
					 &ret->dir_clat_hist[0],
					 &ret->dir_clat_hist[1]};
	bool wanted[sizeof(hists) / sizeof(hists[0])];

	*ret = *spec;
	if (n == 1)
		return 0; /* the spec as it is, in the calling thread */
	ret->seed = lg_splitmix64(seed_state);
	if (!spec->random) {
		uint64_t part = spec->span_bytes / n / spec->block_size * spec->block_size;

		ret->span_offset = spec->span_offset + part * i;
		ret->span_bytes = part;
	}
	/* Histograms of its own, never the caller's (which worker_hists_free() would free). */
	for (size_t h = 0; h < sizeof(hists) / sizeof(hists[0]); h++) {
		wanted[h] = *hists[h] != NULL;
		*hists[h] = NULL;
	}
	for (size_t h = 0; h < sizeof(hists) / sizeof(hists[0]); h++)
		if (wanted[h] && lg_histogram_new(hists[h]) < 0)
			return -ENOMEM;
	return 0;
}

static void worker_hists_free(struct worker *w)
{
	lg_histogram_free(w->spec.hist);
	lg_histogram_free(w->spec.clat_hist);
	for (int d = 0; d < 2; d++) {
		lg_histogram_free(w->spec.dir_hist[d]);
		lg_histogram_free(w->spec.dir_clat_hist[d]);
	}
}

static void merge_hist(struct lg_histogram *dst, const struct lg_histogram *src)
{
	if (dst && src && dst != src)
		lg_histogram_merge(dst, src);
}

/* The group's result: sums over the workers, from the first start to the last
 * end, the failure at the lowest offset; their histograms merged into the spec's. */
static void merge(struct group *g, struct lg_job_result *ret)
{
	const struct lg_job_spec *spec = g->spec;
	struct lg_job_result res = {0};
	uint64_t t0 = UINT64_MAX, t_end = 0;

	for (uint32_t i = 0; i < g->n; i++) {
		const struct worker *w = &g->w[i];

		res.ios += w->res.ios;
		res.bytes += w->res.bytes;
		for (int d = 0; d < 2; d++) {
			res.dir_ios[d] += w->res.dir_ios[d];
			res.dir_bytes[d] += w->res.dir_bytes[d];
			merge_hist(spec->dir_hist[d], w->spec.dir_hist[d]);
			merge_hist(spec->dir_clat_hist[d], w->spec.dir_clat_hist[d]);
		}
		merge_hist(spec->hist, w->spec.hist);
		merge_hist(spec->clat_hist, w->spec.clat_hist);
		res.interrupted |= w->res.interrupted;
		if (w->res.error && (res.error == 0 || w->res.error_offset < res.error_offset)) {
			res.error = w->res.error;
			res.short_io = w->res.short_io;
			res.write_failed = w->res.write_failed;
			res.error_offset = w->res.error_offset;
			res.error_length = w->res.error_length;
			res.error_transferred = w->res.error_transferred;
		}
		if (w->t0 < t0)
			t0 = w->t0;
		if (w->t_end > t_end)
			t_end = w->t_end;
	}
	res.elapsed_ns = t_end > t0 ? t_end - t0 : 1;
	*ret = res;
}

int lg_job_run(const struct lg_job_spec *spec, const struct lg_engine_ops *ops, int fd,
	       const struct lg_job_hooks *hooks, struct lg_job_result *ret_result)
{
	struct group g = {.spec = spec, .ops = ops, .fd = fd, .hooks = hooks};
	uint64_t seed_state = spec->seed;
	uint32_t started = 0;
	int r = validate(spec);

	if (r < 0)
		return r;
	g.n = spec->jobs ? spec->jobs : 1;
	if (posix_memalign((void **)&g.w, 64, g.n * sizeof(*g.w)) != 0)
		return -ENOMEM;
	memset(g.w, 0, g.n * sizeof(*g.w));
	for (uint32_t i = 0; i < g.n && r == 0; i++) {
		g.w[i].g = &g;
		g.w[i].index = i;
		r = worker_spec(spec, g.n, i, &seed_state, &g.w[i].spec);
	}
	if (r == 0 && g.n == 1) {
		worker_main(&g.w[0]); /* in this thread: nothing to start, nothing to merge */
		started = 1;
	} else if (r == 0) {
		sigset_t block, old;

		pthread_mutex_init(&g.lock, NULL);
		pthread_cond_init(&g.cv, NULL);
		/* Signals go to the calling thread, whose handler sets hooks->stop. */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		for (; started < g.n; started++)
			if (pthread_create(&g.w[started].thread, NULL, worker_main,
					   &g.w[started]) != 0)
				break;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		for (uint32_t i = started; i < g.n; i++)
			g.w[i].r = -EAGAIN;
		/* Once every worker is set up, all start together (or none, after a failure). */
		pthread_mutex_lock(&g.lock);
		while (g.ready < started)
			pthread_cond_wait(&g.cv, &g.lock);
		if (started < g.n)
			__atomic_store_n(&g.setup_failed, 1, __ATOMIC_RELAXED);
		g.go = true;
		pthread_cond_broadcast(&g.cv);
		pthread_mutex_unlock(&g.lock);
		for (uint32_t i = 0; i < started; i++)
			pthread_join(g.w[i].thread, NULL);
		pthread_cond_destroy(&g.cv);
		pthread_mutex_destroy(&g.lock);
	}
	for (uint32_t i = 0; i < g.n && r == 0; i++)
		if (g.w[i].r < 0)
			r = g.w[i].r;
	if (r == 0)
		merge(&g, ret_result);
	for (uint32_t i = 0; g.n > 1 && i < g.n; i++)
		worker_hists_free(&g.w[i]);
	free(g.w);
	return r;
}
