/* pattern: the data written by write tests.
 *
 * incompressible: every byte of every write is fresh output of the random
 *   generator (rng.h); no buffer content is ever written twice.
 * compressible: built to compress to half its size (ratio 2.0). Every 4 KiB
 *   unit is 2 KiB of fresh random bytes followed by 2 KiB of zero bytes; a
 *   compressor cannot shrink the random half and removes nearly all of the zero
 *   half, so a block-level compressor of any granularity down to 4 KiB sees
 *   ratio ~2. The random half changes on every write, so the data cannot be
 *   deduplicated either. Blocks smaller than 4 KiB use the same split at half
 *   their size.
 *
 * Ownership: nothing is allocated; buffers belong to the caller.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

enum lg_pattern {
	LG_PATTERN_COMPRESSIBLE = 0,
	LG_PATTERN_INCOMPRESSIBLE = 1,
	LG_PATTERN_UNSPECIFIED = 2, /* read tests on data loadgen did not write */
};

/* The compression ratio the compressible pattern is built to have. */
#define LG_COMPRESSIBLE_RATIO 2.0

/* Name as the result document writes it ("compressible", ...). */
const char *lg_pattern_name(enum lg_pattern pattern);

/* Parse a pattern name; "both" is not a pattern. Returns 0 or -EINVAL. */
int lg_pattern_parse(const char *name, enum lg_pattern *ret_pattern);

/* Prepare a buffer once before its first lg_pattern_fill() (zeroes the parts of
 * the compressible pattern that stay zero). len: multiple of 512. */
void lg_pattern_init(enum lg_pattern pattern, void *buf, size_t len);

/* Give buf (len bytes, 8-byte aligned, multiple of 512, prepared by
 * lg_pattern_init with the same pattern) fresh content for one write. */
void lg_pattern_fill(enum lg_pattern pattern, struct lg_rng *rng, void *buf, size_t len);
