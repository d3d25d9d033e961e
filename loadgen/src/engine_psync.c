#define _GNU_SOURCE
/* The portable engine: depth worker threads doing pread()/pwrite(), fed through
 * a shared submission ring and answering through a completion ring. Every
 * thread blocks SIGINT and SIGTERM so that signals reach the main thread. */
#include "engine.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

struct psync_engine {
	struct lg_engine base;
	int fd;
	uint32_t depth;
	uint32_t nthreads;
	pthread_t *threads;
	pthread_mutex_t lock;
	pthread_cond_t work_cv;
	pthread_cond_t done_cv;
	bool stopping;
	/* rings of depth entries each; counters only grow */
	struct lg_io **sub;
	struct lg_io **comp;
	uint64_t sub_head, sub_tail;
	uint64_t comp_head, comp_tail;
	uint32_t waiting_for; /* completions the reaper waits for; 0 when not waiting */
};

static int psync_probe(void)
{
	return 0;
}

static int32_t do_io(int fd, struct lg_io *io)
{
	ssize_t r;

	do {
		if (io->write)
			r = pwrite(fd, io->buf, io->length, (off_t)io->offset);
		else
			r = pread(fd, io->buf, io->length, (off_t)io->offset);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : (int32_t)r;
}

static void *worker(void *arg)
{
	struct psync_engine *e = arg;

	pthread_mutex_lock(&e->lock);
	for (;;) {
		while (e->sub_head == e->sub_tail && !e->stopping)
			pthread_cond_wait(&e->work_cv, &e->lock);
		if (e->stopping)
			break;
		struct lg_io *io = e->sub[e->sub_head++ % e->depth];

		pthread_mutex_unlock(&e->lock);
		io->result = do_io(e->fd, io);
		pthread_mutex_lock(&e->lock);
		e->comp[e->comp_tail++ % e->depth] = io;
		if (e->waiting_for && e->comp_tail - e->comp_head >= e->waiting_for)
			pthread_cond_signal(&e->done_cv);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

static void psync_destroy(struct lg_engine *base)
{
	struct psync_engine *e = (struct psync_engine *)base;

	if (!e)
		return;
	if (e->threads) {
		pthread_mutex_lock(&e->lock);
		e->stopping = true;
		pthread_cond_broadcast(&e->work_cv);
		pthread_mutex_unlock(&e->lock);
		for (uint32_t i = 0; i < e->nthreads; i++)
			pthread_join(e->threads[i], NULL);
	}
	pthread_cond_destroy(&e->work_cv);
	pthread_cond_destroy(&e->done_cv);
	pthread_mutex_destroy(&e->lock);
	free(e->threads);
	free(e->sub);
	free(e->comp);
	free(e);
}

static int psync_create(int fd, uint32_t depth, void *buf_base, size_t buf_len,
			struct lg_engine **ret_engine)
{
	struct psync_engine *e;
	pthread_condattr_t attr;
	sigset_t block, old;
	int r = 0;

	(void)buf_base;
	(void)buf_len;
	if (depth == 0 || depth > 4096)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->base.ops = &lg_engine_psync;
	e->fd = fd;
	e->depth = depth;
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->work_cv, NULL);
	/* done_cv's timed waits (psync_wait) count on the clock of lg_now_ns(). */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&e->done_cv, &attr);
	pthread_condattr_destroy(&attr);
	e->threads = calloc(depth, sizeof(*e->threads));
	e->sub = calloc(depth, sizeof(*e->sub));
	e->comp = calloc(depth, sizeof(*e->comp));
	if (!e->threads || !e->sub || !e->comp) {
		psync_destroy(&e->base);
		return -ENOMEM;
	}

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (uint32_t i = 0; i < depth; i++) {
		r = -pthread_create(&e->threads[i], NULL, worker, e);
		if (r < 0)
			break;
		e->nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		psync_destroy(&e->base);
		return r;
	}
	*ret_engine = &e->base;
	return 0;
}

static int psync_submit(struct lg_engine *base, struct lg_io *const *ios, uint32_t n)
{
	struct psync_engine *e = (struct psync_engine *)base;

	pthread_mutex_lock(&e->lock);
	if (e->sub_tail - e->sub_head + n > e->depth) {
		pthread_mutex_unlock(&e->lock);
		return -EBUSY;
	}
	for (uint32_t i = 0; i < n; i++)
		e->sub[e->sub_tail++ % e->depth] = ios[i];
	if (n == 1)
		pthread_cond_signal(&e->work_cv);
	else if (n > 1)
		pthread_cond_broadcast(&e->work_cv);
	pthread_mutex_unlock(&e->lock);
	return 0;
}

static int psync_reap(struct lg_engine *base, uint32_t min, struct lg_io **done, uint32_t max,
		      uint32_t *ret_n)
{
	struct psync_engine *e = (struct psync_engine *)base;
	uint32_t n = 0;

	pthread_mutex_lock(&e->lock);
	if (min > 0 && e->comp_tail - e->comp_head < min) {
		e->waiting_for = min;
		while (e->comp_tail - e->comp_head < min)
			pthread_cond_wait(&e->done_cv, &e->lock);
		e->waiting_for = 0;
	}
	while (e->comp_head != e->comp_tail && n < max)
		done[n++] = e->comp[e->comp_head++ % e->depth];
	pthread_mutex_unlock(&e->lock);
	*ret_n = n;
	return 0;
}

static int psync_wait(struct lg_engine *base, uint64_t until_ns)
{
	struct psync_engine *e = (struct psync_engine *)base;
	struct timespec until = {
		.tv_sec = (time_t)(until_ns / LG_NSEC_PER_SEC),
		.tv_nsec = (long)(until_ns % LG_NSEC_PER_SEC),
	};
	int r = 0;

	pthread_mutex_lock(&e->lock);
	e->waiting_for = 1;
	while (e->comp_tail == e->comp_head && r == 0)
		r = pthread_cond_timedwait(&e->done_cv, &e->lock, &until);
	e->waiting_for = 0;
	pthread_mutex_unlock(&e->lock);
	return r == 0 || r == ETIMEDOUT ? 0 : -r;
}

const struct lg_engine_ops lg_engine_psync = {
	.name = "psync",
	.probe = psync_probe,
	.create = psync_create,
	.submit = psync_submit,
	.reap = psync_reap,
	.wait = psync_wait,
	.destroy = psync_destroy,
};
