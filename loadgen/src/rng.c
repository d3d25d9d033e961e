#define _GNU_SOURCE
#include "rng.h"

#include <string.h>

uint64_t lg_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void lg_rng_seed(struct lg_rng *rng, uint64_t seed)
{
	uint64_t sm = seed;

	for (int i = 0; i < 4; i++)
		rng->s[i] = lg_splitmix64(&sm);
}

/* The data filler keeps four xoshiro256+ states in structure-of-arrays form so
 * that the compiler can keep several lanes in vector registers: it only uses
 * shifts, xors and adds. Its lanes are reseeded from the main generator on
 * every call, so the data stream is as fresh as the main generator's. */
#define LANES 4

void lg_rng_fill(struct lg_rng *rng, void *buf, size_t len)
{
	uint64_t s0[LANES], s1[LANES], s2[LANES], s3[LANES];
	uint64_t *out = buf;
	size_t words = len / 8;
	size_t i = 0;

	for (int l = 0; l < LANES; l++) {
		s0[l] = lg_rng_next(rng);
		s1[l] = lg_rng_next(rng);
		s2[l] = lg_rng_next(rng);
		s3[l] = lg_rng_next(rng) | 1; /* never the all-zero state */
	}

	for (; i + LANES <= words; i += LANES) {
		for (int l = 0; l < LANES; l++) {
			uint64_t result = s0[l] + s3[l];
			uint64_t t = s1[l] << 17;

			s2[l] ^= s0[l];
			s3[l] ^= s1[l];
			s1[l] ^= s2[l];
			s0[l] ^= s3[l];
			s2[l] ^= t;
			s3[l] = (s3[l] << 45) | (s3[l] >> 19);
			out[i + l] = result;
		}
	}
	for (; i < words; i++)
		out[i] = lg_rng_next(rng);
}
