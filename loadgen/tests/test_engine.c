#define _GNU_SOURCE
/* Every engine writes a file block by block in random order at queue depth 16,
 * reads it back at queue depth 8, and the data must be what was written. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "rng.h"
#include "test_common.h"

#define BS 4096u
#define NBLOCKS 2048u

/* Submit the I/Os of blocks order[0..n) through the engine at depth qd. */
static int run_ios(const struct lg_engine_ops *ops, int fd, uint32_t qd, bool write,
		   unsigned char *area, const uint32_t *order, uint32_t n)
{
	struct lg_engine *e = NULL;
	struct lg_io *ios = calloc(qd, sizeof(*ios));
	struct lg_io **free_ios = calloc(qd, sizeof(*free_ios));
	struct lg_io **done = calloc(qd, sizeof(*done));
	uint32_t nfree = 0, next = 0, inflight = 0;
	int r;

	if (!ios || !free_ios || !done) {
		r = -ENOMEM;
		goto out;
	}
	r = lg_engine_create(ops, fd, qd, area, (size_t)NBLOCKS * BS, &e);
	if (r < 0)
		goto out;
	for (uint32_t i = 0; i < qd; i++)
		free_ios[nfree++] = &ios[i];
	while (next < n || inflight > 0) {
		struct lg_io *batch[64];
		uint32_t nb = 0, nd = 0;

		while (next < n && nfree > 0 && nb < 64) {
			struct lg_io *io = free_ios[--nfree];
			uint32_t blk = order[next++];

			io->offset = (uint64_t)blk * BS;
			io->buf = area + (size_t)blk * BS;
			io->length = BS;
			io->write = write;
			io->result = 12345;
			batch[nb++] = io;
		}
		if (nb) {
			r = e->ops->submit(e, batch, nb);
			if (r < 0)
				goto out;
			inflight += nb;
		}
		r = e->ops->reap(e, 1, done, qd, &nd);
		if (r < 0)
			goto out;
		for (uint32_t i = 0; i < nd; i++) {
			if (done[i]->result != (int32_t)BS) {
				fprintf(stderr, "%s: I/O at %llu returned %d\n", ops->name,
					(unsigned long long)done[i]->offset, done[i]->result);
				r = done[i]->result < 0 ? done[i]->result : -EIO;
			}
			free_ios[nfree++] = done[i];
		}
		inflight -= nd;
		if (r < 0)
			break;
	}
out:
	while (e && inflight > 0) {
		uint32_t nd = 0;

		if (e->ops->reap(e, 1, done, qd, &nd) < 0)
			break;
		inflight -= nd;
	}
	lg_engine_destroy(e);
	free(ios);
	free(free_ios);
	free(done);
	return r;
}

static void test_engine(const struct lg_engine_ops *ops)
{
	char path[] = "engine-test-XXXXXX";
	unsigned char *src = NULL, *dst = NULL;
	uint32_t *order = malloc(NBLOCKS * sizeof(*order));
	struct lg_rng rng;
	int fd = mkstemp(path);

	if (fd < 0 || !order || posix_memalign((void **)&src, 4096, (size_t)NBLOCKS * BS) ||
	    posix_memalign((void **)&dst, 4096, (size_t)NBLOCKS * BS)) {
		CHECK(!"setup");
		goto out;
	}
	unlink(path);
	/* O_DIRECT when the file system allows it */
	char fdpath[64];
	int dfd;

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	dfd = open(fdpath, O_RDWR | O_DIRECT);
	if (dfd >= 0) {
		close(fd);
		fd = dfd;
	}
	lg_rng_seed(&rng, 77);
	lg_rng_fill(&rng, src, (size_t)NBLOCKS * BS);
	for (uint32_t i = 0; i < NBLOCKS; i++) {
		memcpy(src + (size_t)i * BS, &i, sizeof(i)); /* stamp the block number */
		order[i] = i;
	}
	for (uint32_t i = NBLOCKS - 1; i > 0; i--) { /* Fisher-Yates */
		uint32_t j = (uint32_t)lg_rng_below(&rng, i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	CHECKF(run_ios(ops, fd, 16, true, src, order, NBLOCKS) == 0, "%s write", ops->name);
	for (uint32_t i = NBLOCKS - 1; i > 0; i--) {
		uint32_t j = (uint32_t)lg_rng_below(&rng, i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	memset(dst, 0xa5, (size_t)NBLOCKS * BS);
	CHECKF(run_ios(ops, fd, 8, false, dst, order, NBLOCKS) == 0, "%s read", ops->name);
	CHECKF(memcmp(src, dst, (size_t)NBLOCKS * BS) == 0, "%s: data read back differs",
	       ops->name);

	/* errors come back as -errno in the result */
	int rofd = open(fdpath, O_RDONLY);

	if (rofd >= 0) {
		CHECKF(run_ios(ops, rofd, 2, true, src, order, 4) == -EBADF,
		       "%s: write on a read-only fd", ops->name);
		close(rofd);
	}
	printf("%s: %u blocks written and read back%s\n", ops->name, NBLOCKS,
	       dfd >= 0 ? " (O_DIRECT)" : "");
out:
	if (fd >= 0)
		close(fd);
	free(src);
	free(dst);
	free(order);
}

/* wait() with its time already passed does not wait, but still makes visible to reap()
 * what has completed: a read on an empty pipe completes, once data arrives, through
 * task work, which a ring with deferred task work (IORING_SETUP_DEFER_TASKRUN) runs
 * only when its task asks for events. A paced job polling in the last microseconds
 * before a due time counts on it to reap its completions as they come. */
static void test_wait_passed(const struct lg_engine_ops *ops)
{
	struct lg_engine *e = NULL;
	void *buf = NULL;
	struct lg_io io = {.offset = 0, .length = 1, .write = false, .result = 12345};
	struct lg_io *ios[1] = {&io}, *done[1] = {NULL};
	uint32_t n = 0;
	int fds[2];

	if (pipe(fds) < 0 || posix_memalign(&buf, 4096, 4096)) {
		CHECK(!"setup");
		return;
	}
	io.buf = buf;
	CHECK(lg_engine_create(ops, fds[0], 1, buf, 4096, &e) == 0);
	if (e) {
		CHECK(e->ops->submit(e, ios, 1) == 0);
		/* started: nothing to read yet */
		CHECK(e->ops->reap(e, 0, NULL, 0, &n) == 0 && n == 0);
		CHECK(write(fds[1], "x", 1) == 1);
		CHECK(e->ops->wait(e, 0) == 0); /* until_ns long passed: no wait */
		CHECK(e->ops->reap(e, 0, done, 1, &n) == 0);
		CHECKF(n == 1 && done[0] == &io && io.result == 1,
		       "%s: wait() past its time left the completion unposted (%u reaped)",
		       ops->name, n);
		if (n == 0) /* collect it before the engine goes */
			CHECK(e->ops->reap(e, 1, done, 1, &n) == 0);
		lg_engine_destroy(e);
	}
	close(fds[0]);
	close(fds[1]);
	free(buf);
}

int main(void)
{
	const struct lg_engine_ops *ops;

	CHECK(lg_engine_find("psync", &ops) == 0);
	test_engine(ops);
	CHECK(lg_engine_find("nope", &ops) == -ENOENT);
#if LG_HAVE_IO_URING
	CHECK(lg_engine_find("io_uring", &ops) == 0);
	if (ops->probe() == 0) {
		test_engine(ops);
		test_wait_passed(ops);
	} else
		printf("io_uring not available on this kernel: only psync tested\n");
#endif
	CHECK(lg_engine_default() != NULL);
	lg_engine_destroy(NULL);
	return test_result("engine");
}
