/* util: clocks, sizes and times as text, shared by the other modules.
 *
 * Ownership: nothing is allocated; output buffers belong to the caller.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define LG_NSEC_PER_SEC UINT64_C(1000000000)

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t lg_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * LG_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Parse a size: a plain byte count or a number with a binary suffix
 * (k, K, KiB, M, MiB, G, GiB, T, TiB; case-insensitive; "B" alone allowed).
 * Returns 0, -EINVAL for a malformed size, -ERANGE on overflow. */
int lg_parse_size(const char *text, uint64_t *ret_bytes);

/* Parse a non-negative decimal integer that fits in uint64_t. 0 or -EINVAL/-ERANGE. */
int lg_parse_u64(const char *text, uint64_t *ret_value);

/* Parse a finite positive decimal number. Returns 0 or -EINVAL. */
int lg_parse_positive_double(const char *text, double *ret_value);

/* The shortest exact binary form of a size in lower case: 4096 -> "4k",
 * 2097152 -> "2m", 1000 -> "1000". Returns 0 or -ENOSPC when buf is too small. */
int lg_format_size_id(uint64_t bytes, char *buf, size_t len);

/* A size for people: "8.0 GiB", "512 B". */
void lg_format_size_human(uint64_t bytes, char *buf, size_t len);

/* RFC 3339 UTC time of a CLOCK_REALTIME instant: "2025-01-31T12:00:00Z". */
void lg_format_rfc3339(const struct timespec *ts, char *buf, size_t len);
