/* engine: how I/Os reach the kernel, behind one small vtable. The job runner
 * (job.h) queues I/Os with submit() and collects them with reap(); an engine
 * never allocates per I/O and never reads the clock.
 *
 * Engines: "io_uring" (raw io_uring_setup/io_uring_enter syscalls; submissions
 * are batched and flushed by the same io_uring_enter that waits for
 * completions) and "psync" (a pool of queue-depth threads doing pread/pwrite,
 * always built).
 *
 * Ownership: an engine is created by lg_engine_create() and released by
 * lg_engine_destroy() (NULL is fine). It does not own the file descriptor nor
 * the I/O buffers; struct lg_io objects belong to the caller and must stay put
 * while they are in flight.
 */
#pragma once

#include "lg_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lg_io {
	uint64_t offset;
	void *buf;
	uint32_t length;
	bool write;
	int32_t result;    /* set on completion: bytes transferred, or -errno */
	uint64_t start_ns; /* the caller's, untouched by engines */
	uint64_t issue_ns; /* the caller's, untouched by engines */
	uint32_t slot;     /* the caller's, untouched by engines */
};

struct lg_engine;

struct lg_engine_ops {
	const char *name;
	/* 0 when the engine can run on this kernel, else -errno (-ENOSYS, -EPERM). */
	int (*probe)(void);
	/* fd: the target; depth: most I/Os in flight; buffers [buf_base, +buf_len)
	 * hold every I/O buffer (an engine may register them with the kernel). */
	int (*create)(int fd, uint32_t depth, void *buf_base, size_t buf_len,
		      struct lg_engine **ret_engine);
	/* Queue n I/Os; they may start only at the next reap(). Never more than
	 * depth in flight. Returns 0 or -errno. */
	int (*submit)(struct lg_engine *e, struct lg_io *const *ios, uint32_t n);
	/* Start what submit() queued and wait until at least min I/Os completed
	 * (min 0: do not wait); store up to max completed I/Os in done[] (max 0:
	 * only start the queued I/Os; done may be NULL). A signal
	 * may end the wait early with *ret_n possibly 0 (returns 0).
	 * Returns 0 and *ret_n, or -errno. */
	int (*reap)(struct lg_engine *e, uint32_t min, struct lg_io **done, uint32_t max,
		    uint32_t *ret_n);
	/* Start what submit() queued and wait until an I/O has completed or the
	 * monotonic clock (lg_now_ns()) reaches until_ns, whichever comes first (a
	 * signal may end it sooner); reap() then collects what completed. A paced job's
	 * wait for its next I/O's due time. With until_ns already passed it does not
	 * wait, but still makes what has completed meanwhile visible to reap() (an
	 * io_uring ring with deferred task work posts completions only when asked):
	 * a paced job spinning to a due time takes its completions as they come.
	 * Returns 0, or -errno (-EOPNOTSUPP: this kernel's engine cannot wait with a
	 * timeout). */
	int (*wait)(struct lg_engine *e, uint64_t until_ns);
	void (*destroy)(struct lg_engine *e);
};

struct lg_engine {
	const struct lg_engine_ops *ops;
};

extern const struct lg_engine_ops lg_engine_psync;
#if LG_HAVE_IO_URING
extern const struct lg_engine_ops lg_engine_uring;
#endif

/* Find an engine by name ("io_uring", "psync"). Returns 0, or -ENOENT when not
 * built in. */
int lg_engine_find(const char *name, const struct lg_engine_ops **ret_ops);

/* The default engine: io_uring when built in and the kernel offers it, else psync. */
const struct lg_engine_ops *lg_engine_default(void);

/* Names of the engines built in, NULL-terminated. */
const char *const *lg_engine_names(void);

static inline int lg_engine_create(const struct lg_engine_ops *ops, int fd, uint32_t depth,
				   void *buf_base, size_t buf_len, struct lg_engine **ret_engine)
{
	return ops->create(fd, depth, buf_base, buf_len, ret_engine);
}

static inline void lg_engine_destroy(struct lg_engine *e)
{
	if (e)
		e->ops->destroy(e);
}
