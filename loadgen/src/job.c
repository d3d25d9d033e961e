#define _GNU_SOURCE
#include "job.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "util.h"

#define BUF_ALIGN 4096u
#define PROGRESS_INTERVAL_NS (LG_NSEC_PER_SEC / 2)
/* Writes keep a second set of buffers: while the device works on one set, the
 * data of the other is refreshed, so that a completed slot is refilled at once
 * with fresh bytes instead of waiting for them to be generated. */
#define WRITE_BUFFER_SETS 2

struct job_state {
	const struct lg_job_spec *spec;
	struct lg_rng off_rng, data_rng;
	uint64_t nblocks; /* random: span / block_size */
	uint64_t seq_pos; /* sequential: next position in the span */
	uint64_t submitted_bytes;
	unsigned char *buf_area;
	size_t buf_area_len;
	uint32_t nbufs;
	unsigned char **fresh; /* buffers ready for the next write (or any for reads) */
	uint32_t nfresh;
	unsigned char **stale; /* written buffers whose data must be refreshed */
	uint32_t nstale;
	struct lg_io *ios;
	struct lg_io **free_ios;
	uint32_t nfree;
	struct lg_io **done;
};

static int validate(const struct lg_job_spec *s)
{
	if (s->block_size == 0 || s->block_size % 512 || s->queue_depth == 0 ||
	    s->queue_depth > 4096)
		return -EINVAL;
	if (s->span_bytes < s->block_size && s->total_bytes == 0)
		return -EINVAL;
	if ((s->duration_ns == 0) == (s->total_bytes == 0))
		return -EINVAL; /* exactly one of timed or sized */
	if (s->total_bytes && (s->random || s->total_bytes % 512))
		return -EINVAL;
	if (s->span_offset % 512)
		return -EINVAL;
	return 0;
}

static void state_free(struct job_state *st)
{
	free(st->buf_area);
	free(st->fresh);
	free(st->stale);
	free(st->ios);
	free(st->free_ios);
	free(st->done);
}

static int state_init(struct job_state *st, const struct lg_job_spec *spec)
{
	uint32_t qd = spec->queue_depth;
	uint64_t seed_state = spec->seed;

	memset(st, 0, sizeof(*st));
	st->spec = spec;
	lg_rng_seed(&st->off_rng, lg_splitmix64(&seed_state));
	lg_rng_seed(&st->data_rng, lg_splitmix64(&seed_state));
	st->nblocks = spec->span_bytes / spec->block_size;
	st->nbufs = spec->write ? qd * WRITE_BUFFER_SETS : qd;
	st->buf_area_len = (size_t)st->nbufs * spec->block_size;
	if (posix_memalign((void **)&st->buf_area, BUF_ALIGN, st->buf_area_len) != 0) {
		st->buf_area = NULL;
		return -ENOMEM;
	}
	st->fresh = calloc(st->nbufs, sizeof(*st->fresh));
	st->stale = calloc(st->nbufs, sizeof(*st->stale));
	st->ios = calloc(qd, sizeof(*st->ios));
	st->free_ios = calloc(qd, sizeof(*st->free_ios));
	st->done = calloc(qd, sizeof(*st->done));
	if (!st->fresh || !st->stale || !st->ios || !st->free_ios || !st->done)
		return -ENOMEM;

	/* Touch every buffer now so that page faults do not land in the timing. */
	for (uint32_t i = 0; i < st->nbufs; i++) {
		unsigned char *b = st->buf_area + (size_t)i * spec->block_size;

		lg_pattern_init(spec->pattern, b, spec->block_size);
		if (spec->write)
			lg_pattern_fill(spec->pattern, &st->data_rng, b, spec->block_size);
		st->fresh[st->nfresh++] = b;
	}
	for (uint32_t i = 0; i < qd; i++) {
		st->ios[i].slot = i;
		st->ios[i].write = spec->write;
		st->free_ios[st->nfree++] = &st->ios[i];
	}
	return 0;
}

/* Offset and length of the next I/O; false when a sized job is complete. */
static inline bool next_io(struct job_state *st, uint64_t *ret_offset, uint32_t *ret_length)
{
	const struct lg_job_spec *s = st->spec;

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

static inline unsigned char *take_buffer(struct job_state *st)
{
	if (st->nfresh)
		return st->fresh[--st->nfresh];
	/* Only writes run out of fresh buffers: refresh a stale one now. */
	unsigned char *b = st->stale[--st->nstale];

	lg_pattern_fill(st->spec->pattern, &st->data_rng, b, st->spec->block_size);
	return b;
}

static void refresh_stale(struct job_state *st)
{
	while (st->nstale) {
		unsigned char *b = st->stale[--st->nstale];

		lg_pattern_fill(st->spec->pattern, &st->data_rng, b, st->spec->block_size);
		st->fresh[st->nfresh++] = b;
	}
}

int lg_job_run(const struct lg_job_spec *spec, const struct lg_engine_ops *ops, int fd,
	       const struct lg_job_hooks *hooks, struct lg_job_result *ret_result)
{
	struct job_state st;
	struct lg_engine *engine = NULL;
	struct lg_job_result res = {0};
	uint32_t qd = spec->queue_depth;
	uint32_t inflight = 0;
	bool submitting = true;
	uint64_t t0, now, deadline, next_progress;
	uint64_t last_ios = 0, last_bytes = 0, last_t;
	int r;

	r = validate(spec);
	if (r < 0)
		return r;
	r = state_init(&st, spec);
	if (r < 0)
		goto out;
	r = lg_engine_create(ops, fd, qd, st.buf_area, st.buf_area_len, &engine);
	if (r < 0)
		goto out;

	t0 = lg_now_ns();
	now = t0;
	last_t = t0;
	deadline = spec->duration_ns ? t0 + spec->duration_ns : UINT64_MAX;
	next_progress = t0 + PROGRESS_INTERVAL_NS;

	while (submitting || inflight > 0) {
		if (submitting && hooks && hooks->stop && *hooks->stop) {
			submitting = false;
			res.interrupted = true;
		}
		if (submitting && now >= deadline)
			submitting = false;
		/* Refill the queue one I/O at a time, each handed to the kernel as soon
		 * as it is ready (as fio does by default): batching the refill delays the
		 * first I/Os of a batch behind the preparation of the others, and on
		 * virtio disks measurably lowers the IOPS reached at QD32. */
		while (submitting && inflight < qd) {
			uint64_t offset;
			uint32_t length, none;

			if (!next_io(&st, &offset, &length)) {
				submitting = false;
				break;
			}
			struct lg_io *io = st.free_ios[--st.nfree];

			io->buf = take_buffer(&st);
			io->offset = offset;
			io->length = length;
			st.submitted_bytes += length;
			/* Latency starts before the I/O is handed over (fio's lat); its
			 * completion part once the kernel has it (fio's clat). */
			io->start_ns = lg_now_ns();
			r = engine->ops->submit(engine, &io, 1);
			if (r < 0)
				goto out;
			inflight++; /* queued: the drain below must wait for it even if
				     * handing it to the kernel fails now */
			r = engine->ops->reap(engine, 0, NULL, 0,
					      &none); /* start it, harvest nothing */
			if (r < 0)
				goto out;
			io->issue_ns = lg_now_ns();
		}
		if (inflight == 0)
			break;

		uint32_t ndone = 0;

		/* Prepare the next write data while the device works. */
		if (st.nstale > 0)
			refresh_stale(&st);
		/* Take one completion at a time and refill its slot at once, as fio
		 * does by default. Taking a whole burst first (virtio disks complete
		 * in bursts of ~16 at QD32) would leave the burst's slots idle while
		 * the others are resubmitted one by one: the queue would not be full,
		 * and the idle time would fall outside every I/O's measured latency
		 * (4KB random writes at QD32: p50 ~8% below fio's at the same IOPS). */
		r = engine->ops->reap(engine, 1, st.done, 1, &ndone);
		if (r < 0)
			goto out;
		now = lg_now_ns();

		uint64_t ok = 0;

		for (uint32_t i = 0; i < ndone; i++) {
			struct lg_io *io = st.done[i];

			if (io->result == (int32_t)io->length) {
				ok++;
				res.bytes += io->length;
				if (spec->hist)
					lg_histogram_add(spec->hist, now - io->start_ns);
				if (spec->clat_hist)
					lg_histogram_add(spec->clat_hist, now - io->issue_ns);
			} else if (res.error == 0) {
				res.error = io->result < 0 ? io->result : -EIO;
				res.short_io = io->result >= 0;
				res.write_failed = io->write;
				res.error_offset = io->offset;
				res.error_length = io->length;
				res.error_transferred = io->result >= 0 ? io->result : 0;
				submitting = false;
			}
			if (spec->write)
				st.stale[st.nstale++] = io->buf;
			else
				st.fresh[st.nfresh++] = io->buf;
			st.free_ios[st.nfree++] = io;
		}
		inflight -= ndone;
		res.ios += ok;
		if (spec->timeline) {
			if (ok)
				lg_timeline_add(spec->timeline, now - t0, ok);
			lg_timeline_reach(spec->timeline, now - t0);
		}
		if (now >= next_progress && hooks && hooks->progress) {
			struct lg_job_progress p = {
				.name = spec->name,
				.elapsed_ns = now - t0,
				.ios = res.ios,
				.bytes = res.bytes,
			};
			double dt = (double)(now - last_t) / 1e9;

			p.iops_now = (double)(res.ios - last_ios) / dt;
			p.bytes_per_second_now = (double)(res.bytes - last_bytes) / dt;
			if (spec->duration_ns) {
				p.remaining_ns = now - t0 < spec->duration_ns
							 ? spec->duration_ns - (now - t0)
							 : 0;
			} else if (res.bytes > 0) {
				double rate = (double)res.bytes / (double)(now - t0);

				p.remaining_ns =
					(uint64_t)((double)(spec->total_bytes - res.bytes) / rate);
			}
			hooks->progress(hooks->ctx, &p);
			last_t = now;
			last_ios = res.ios;
			last_bytes = res.bytes;
			next_progress = now + PROGRESS_INTERVAL_NS;
		}
	}
	res.elapsed_ns = now - t0;
	if (res.elapsed_ns == 0)
		res.elapsed_ns = 1;
	*ret_result = res;
	r = 0;
out:
	if (r < 0 && engine && inflight > 0) {
		/* Never free buffers the kernel may still use. */
		uint32_t ndone;

		while (inflight > 0 && engine->ops->reap(engine, 1, st.done, qd, &ndone) == 0)
			inflight -= ndone;
	}
	lg_engine_destroy(engine);
	state_free(&st);
	return r;
}
