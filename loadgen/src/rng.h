/* rng: a fast seeded pseudo-random generator (xoshiro256**, seeded through
 * splitmix64) for offsets and data.
 *
 * Ownership: struct lg_rng is plain state owned by the caller; nothing is
 * allocated. One generator per thread: it is not safe to share.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct lg_rng {
	uint64_t s[4];
};

/* Seed the generator; every seed (0 included) gives a valid, distinct state. */
void lg_rng_seed(struct lg_rng *rng, uint64_t seed);

/* One step of splitmix64 on *state: used for seeding and deriving sub-seeds. */
uint64_t lg_splitmix64(uint64_t *state);

static inline uint64_t lg_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Next 64 uniformly distributed bits. */
static inline uint64_t lg_rng_next(struct lg_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = lg_rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = lg_rng_rotl(s[3], 45);
	return result;
}

/* Uniform integer in [0, bound), without modulo bias (Lemire's multiply and
 * reject). bound must be > 0. */
static inline uint64_t lg_rng_below(struct lg_rng *rng, uint64_t bound)
{
	unsigned __int128 m = (unsigned __int128)lg_rng_next(rng) * bound;
	uint64_t low = (uint64_t)m;

	if (low < bound) {
		uint64_t threshold = -bound % bound;

		while (low < threshold) {
			m = (unsigned __int128)lg_rng_next(rng) * bound;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* A block-aligned offset uniform over nblocks blocks of block_size bytes from
 * base: base + k * block_size with k uniform in [0, nblocks). */
static inline uint64_t lg_rng_offset(struct lg_rng *rng, uint64_t base, uint64_t nblocks,
				     uint32_t block_size)
{
	return base + lg_rng_below(rng, nblocks) * block_size;
}

/* Fill len bytes at buf with random bytes. buf must be 8-byte aligned and len a
 * multiple of 8. Uses four interleaved xoshiro256+ lanes derived from rng, which
 * is advanced, so that successive calls never repeat data. */
void lg_rng_fill(struct lg_rng *rng, void *buf, size_t len);
