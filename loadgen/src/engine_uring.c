#define _GNU_SOURCE
/* The io_uring engine through raw syscalls: no liburing needed.
 *
 * Lean on purpose: SQEs are written straight into the shared ring, the whole
 * batch is flushed by the io_uring_enter() that also waits for completions,
 * and completions are harvested from the CQ ring without a syscall each. The
 * file and the buffer area are registered when the kernel allows it, which
 * saves a file lookup and page pinning per I/O. */
#include "engine.h"
#include "lg_config.h"
#include "util.h"

#include <errno.h>
#include <linux/io_uring.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_io_uring_enter
#define __NR_io_uring_enter 426
#endif
#ifndef __NR_io_uring_register
#define __NR_io_uring_register 427
#endif

struct uring_engine {
	struct lg_engine base;
	int ring_fd;
	int target_fd;
	bool fixed_file;
	bool fixed_buffers;
	bool ext_arg; /* io_uring_enter takes a timeout (IORING_FEAT_EXT_ARG, Linux 5.11) */
	uint32_t depth;

	/* submission ring */
	void *sq_map;
	size_t sq_map_len;
	unsigned *sq_khead, *sq_ktail, *sq_kmask, *sq_karray;
	struct io_uring_sqe *sqes;
	size_t sqes_len;
	unsigned sq_tail; /* local tail, published on flush */
	unsigned sq_mask;

	/* completion ring */
	void *cq_map;
	size_t cq_map_len;
	unsigned *cq_khead, *cq_ktail;
	struct io_uring_cqe *cqes;
	unsigned cq_mask;
};

static int sys_setup(unsigned entries, struct io_uring_params *p)
{
	return (int)syscall(__NR_io_uring_setup, entries, p);
}

static int sys_enter(int fd, unsigned to_submit, unsigned min_complete, unsigned flags)
{
	return (int)syscall(__NR_io_uring_enter, fd, to_submit, min_complete, flags, NULL, 0);
}

static int sys_register(int fd, unsigned opcode, const void *arg, unsigned nr_args)
{
	return (int)syscall(__NR_io_uring_register, fd, opcode, arg, nr_args);
}

static int uring_probe(void)
{
	static int cached = 1;
	struct io_uring_params p;
	int fd;

	if (cached != 1)
		return cached;
	memset(&p, 0, sizeof(p));
	fd = sys_setup(2, &p);
	if (fd < 0) {
		cached = -errno;
		return cached;
	}
	close(fd);
	cached = 0;
	return 0;
}

/* Set up a ring with the cheapest task-work mode the kernel accepts: deferred
 * task work (6.1+) runs completions only when we wait for them, cooperative
 * (5.19+) avoids inter-processor interrupts; plain setup otherwise. */
static int setup_ring(unsigned entries, struct io_uring_params *ret_params)
{
	static const unsigned flag_sets[] = {
#if defined(IORING_SETUP_DEFER_TASKRUN) && defined(IORING_SETUP_SINGLE_ISSUER)
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
#endif
#ifdef IORING_SETUP_COOP_TASKRUN
		IORING_SETUP_COOP_TASKRUN,
#endif
		0,
	};
	int fd = -1;

	for (size_t i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++) {
		memset(ret_params, 0, sizeof(*ret_params));
		ret_params->flags = flag_sets[i];
		fd = sys_setup(entries, ret_params);
		if (fd >= 0)
			return fd;
		if (errno != EINVAL)
			return -errno;
	}
	return -errno;
}

static void uring_destroy(struct lg_engine *base)
{
	struct uring_engine *e = (struct uring_engine *)base;

	if (!e)
		return;
	/* The kernel tears a closed ring down asynchronously, holding its registered
	 * files meanwhile: unregister the target now, so that closing it releases it
	 * (and the exclusive claim on a block device) at once. */
	if (e->fixed_file)
		(void)sys_register(e->ring_fd, IORING_UNREGISTER_FILES, NULL, 0);
	if (e->sqes && e->sqes != MAP_FAILED)
		munmap(e->sqes, e->sqes_len);
	if (e->cq_map && e->cq_map != MAP_FAILED && e->cq_map != e->sq_map)
		munmap(e->cq_map, e->cq_map_len);
	if (e->sq_map && e->sq_map != MAP_FAILED)
		munmap(e->sq_map, e->sq_map_len);
	if (e->ring_fd >= 0)
		close(e->ring_fd);
	free(e);
}

static int uring_create(int fd, uint32_t depth, void *buf_base, size_t buf_len,
			struct lg_engine **ret_engine)
{
	struct uring_engine *e;
	struct io_uring_params p;
	unsigned entries = 1;
	int r;

	if (depth == 0 || depth > 4096)
		return -EINVAL;
	while (entries < depth)
		entries <<= 1;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->base.ops = &lg_engine_uring;
	e->ring_fd = -1;
	e->target_fd = fd;
	e->depth = depth;

	r = setup_ring(entries, &p);
	if (r < 0)
		goto fail;
	e->ring_fd = r;
	e->ext_arg = (p.features & IORING_FEAT_EXT_ARG) != 0;

	e->sq_map_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	e->cq_map_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (e->cq_map_len > e->sq_map_len)
			e->sq_map_len = e->cq_map_len;
		e->cq_map_len = e->sq_map_len;
	}
	e->sq_map = mmap(NULL, e->sq_map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 e->ring_fd, IORING_OFF_SQ_RING);
	if (e->sq_map == MAP_FAILED) {
		r = -errno;
		goto fail;
	}
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		e->cq_map = e->sq_map;
	} else {
		e->cq_map = mmap(NULL, e->cq_map_len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_POPULATE, e->ring_fd, IORING_OFF_CQ_RING);
		if (e->cq_map == MAP_FAILED) {
			r = -errno;
			goto fail;
		}
	}
	e->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	e->sqes = mmap(NULL, e->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       e->ring_fd, IORING_OFF_SQES);
	if (e->sqes == MAP_FAILED) {
		r = -errno;
		goto fail;
	}

	char *sq = e->sq_map, *cq = e->cq_map;

	e->sq_khead = (unsigned *)(sq + p.sq_off.head);
	e->sq_ktail = (unsigned *)(sq + p.sq_off.tail);
	e->sq_kmask = (unsigned *)(sq + p.sq_off.ring_mask);
	e->sq_karray = (unsigned *)(sq + p.sq_off.array);
	e->sq_mask = *e->sq_kmask;
	e->sq_tail = *e->sq_ktail;
	/* SQE i always sits in slot i: the indirection array is set once. */
	for (unsigned i = 0; i < p.sq_entries; i++)
		e->sq_karray[i] = i;
	e->cq_khead = (unsigned *)(cq + p.cq_off.head);
	e->cq_ktail = (unsigned *)(cq + p.cq_off.tail);
	e->cq_mask = *(unsigned *)(cq + p.cq_off.ring_mask);
	e->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);

	/* Optional speed-ups; the engine works without them (for example when
	 * RLIMIT_MEMLOCK forbids pinning the buffers). */
	if (sys_register(e->ring_fd, IORING_REGISTER_FILES, &fd, 1) == 0)
		e->fixed_file = true;
	if (buf_base && buf_len > 0 && buf_len <= (size_t)1 << 30) {
		struct iovec iov = {.iov_base = buf_base, .iov_len = buf_len};

		if (sys_register(e->ring_fd, IORING_REGISTER_BUFFERS, &iov, 1) == 0)
			e->fixed_buffers = true;
	}
	*ret_engine = &e->base;
	return 0;
fail:
	uring_destroy(&e->base);
	return r;
}

static int uring_submit(struct lg_engine *base, struct lg_io *const *ios, uint32_t n)
{
	struct uring_engine *e = (struct uring_engine *)base;
	unsigned head = __atomic_load_n(e->sq_khead, __ATOMIC_ACQUIRE);

	if (e->sq_tail - head + n > e->sq_mask + 1)
		return -EBUSY;
	for (uint32_t i = 0; i < n; i++) {
		struct lg_io *io = ios[i];
		struct io_uring_sqe *sqe = &e->sqes[e->sq_tail & e->sq_mask];

		memset(sqe, 0, sizeof(*sqe));
		if (e->fixed_buffers) {
			sqe->opcode = io->write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED;
			sqe->buf_index = 0;
		} else {
			sqe->opcode = io->write ? IORING_OP_WRITE : IORING_OP_READ;
		}
		if (e->fixed_file) {
			sqe->fd = 0;
			sqe->flags = IOSQE_FIXED_FILE;
		} else {
			sqe->fd = e->target_fd;
		}
		sqe->off = io->offset;
		sqe->addr = (uint64_t)(uintptr_t)io->buf;
		sqe->len = io->length;
		sqe->user_data = (uint64_t)(uintptr_t)io;
		e->sq_tail++;
	}
	/* Publish the new tail; the kernel reads SQEs only after seeing it. */
	__atomic_store_n(e->sq_ktail, e->sq_tail, __ATOMIC_RELEASE);
	return 0;
}

static int uring_reap(struct lg_engine *base, uint32_t min, struct lg_io **done, uint32_t max,
		      uint32_t *ret_n)
{
	struct uring_engine *e = (struct uring_engine *)base;
	unsigned to_submit = e->sq_tail - __atomic_load_n(e->sq_khead, __ATOMIC_ACQUIRE);
	unsigned head = *e->cq_khead;
	unsigned tail = __atomic_load_n(e->cq_ktail, __ATOMIC_ACQUIRE);
	uint32_t n = 0;

	if (to_submit > 0 || tail - head < min) {
		int r = sys_enter(e->ring_fd, to_submit, min, min ? IORING_ENTER_GETEVENTS : 0);

		if (r < 0 && errno != EINTR && errno != EAGAIN && errno != EBUSY)
			return -errno;
		tail = __atomic_load_n(e->cq_ktail, __ATOMIC_ACQUIRE);
	}
	while (head != tail && n < max) {
		struct io_uring_cqe *cqe = &e->cqes[head & e->cq_mask];
		struct lg_io *io = (struct lg_io *)(uintptr_t)cqe->user_data;

		io->result = cqe->res;
		done[n++] = io;
		head++;
	}
	__atomic_store_n(e->cq_khead, head, __ATOMIC_RELEASE);
	*ret_n = n;
	return 0;
}

static int uring_wait(struct lg_engine *base, uint64_t until_ns)
{
	struct uring_engine *e = (struct uring_engine *)base;
	unsigned to_submit = e->sq_tail - __atomic_load_n(e->sq_khead, __ATOMIC_ACQUIRE);
	unsigned head = *e->cq_khead;
	uint64_t now = lg_now_ns();
	struct __kernel_timespec ts;
	struct io_uring_getevents_arg arg;
	int r;

	if (!e->ext_arg)
		return -EOPNOTSUPP;
	if (__atomic_load_n(e->cq_ktail, __ATOMIC_ACQUIRE) != head)
		return 0;
	if (now >= until_ns) {
		/* No wait, but GETEVENTS: with IORING_SETUP_DEFER_TASKRUN the kernel
		 * posts the completions it holds only when the ring's task asks for
		 * events; without it they would wait, unreaped and their latency
		 * growing, until the queue is full. */
		r = sys_enter(e->ring_fd, to_submit, 0, IORING_ENTER_GETEVENTS);
		if (r < 0 && errno != EINTR && errno != EAGAIN && errno != EBUSY)
			return -errno;
		return 0;
	}
	/* The timeout is relative: what is left until until_ns. */
	now = until_ns - now;
	ts.tv_sec = (long long)(now / LG_NSEC_PER_SEC);
	ts.tv_nsec = (long long)(now % LG_NSEC_PER_SEC);
	memset(&arg, 0, sizeof(arg));
	arg.ts = (uint64_t)(uintptr_t)&ts;
	r = (int)syscall(__NR_io_uring_enter, e->ring_fd, to_submit, 1,
			 IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg, sizeof(arg));
	if (r < 0 && errno != EINTR && errno != EAGAIN && errno != EBUSY && errno != ETIME)
		return -errno;
	return 0;
}

const struct lg_engine_ops lg_engine_uring = {
	.name = "io_uring",
	.probe = uring_probe,
	.create = uring_create,
	.submit = uring_submit,
	.reap = uring_reap,
	.wait = uring_wait,
	.destroy = uring_destroy,
};
