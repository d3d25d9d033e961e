#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"
#include "test_common.h"

#if LG_HAVE_ZLIB
#include <zlib.h>

/* Compression ratio (original / compressed) of buf with zlib at its best level. */
static double ratio(const void *buf, size_t len)
{
	uLongf out_len = compressBound(len);
	unsigned char *out = malloc(out_len);
	double r = 0;

	if (!out)
		return 0;
	if (compress2(out, &out_len, buf, len, Z_BEST_COMPRESSION) == Z_OK)
		r = (double)len / (double)out_len;
	free(out);
	return r;
}

static void check_pattern(enum lg_pattern pattern, size_t block, double lo, double hi)
{
	struct lg_rng rng;
	unsigned char *buf = NULL;
	unsigned char *prev = malloc(block);
	/* A stream of many writes, as a drive would see it. */
	size_t stream_len = 4u << 20;
	unsigned char *stream = malloc(stream_len);

	if (posix_memalign((void **)&buf, 4096, block) != 0)
		buf = NULL;
	if (!buf || !prev || !stream) {
		CHECK(!"allocation");
		goto out;
	}
	lg_rng_seed(&rng, 5);
	lg_pattern_init(pattern, buf, block);
	lg_pattern_fill(pattern, &rng, buf, block);
	memcpy(prev, buf, block);
	lg_pattern_fill(pattern, &rng, buf, block);
	/* fresh data for every write: never the same buffer twice */
	CHECKF(memcmp(prev, buf, block) != 0, "%s %zu: repeated data", lg_pattern_name(pattern),
	       block);

	double r = ratio(buf, block);

	CHECKF(r >= lo && r <= hi, "%s block %zu: ratio %.3f not in [%.2f, %.2f]",
	       lg_pattern_name(pattern), block, r, lo, hi);

	for (size_t off = 0; off + block <= stream_len; off += block) {
		lg_pattern_fill(pattern, &rng, buf, block);
		memcpy(stream + off, buf, block);
	}
	r = ratio(stream, stream_len - stream_len % block);
	CHECKF(r >= lo && r <= hi, "%s stream of %zu-byte writes: ratio %.3f not in [%.2f, %.2f]",
	       lg_pattern_name(pattern), block, r, lo, hi);
	printf("%-14s %8zu-byte writes: zlib ratio %.3f\n", lg_pattern_name(pattern), block, r);
out:
	free(buf);
	free(prev);
	free(stream);
}

int main(void)
{
	const size_t blocks[] = {4096, 131072, 2097152};

	for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		/* incompressible: zlib gains nothing (ratio <= 1, within 1%) */
		check_pattern(LG_PATTERN_INCOMPRESSIBLE, blocks[i], 0.98, 1.0);
		/* compressible: built for 2.0 (the zero half costs a few bytes) */
		check_pattern(LG_PATTERN_COMPRESSIBLE, blocks[i], 1.9, 2.05);
	}
	/* a block smaller than the 4 KiB unit keeps the half-and-half split */
	check_pattern(LG_PATTERN_COMPRESSIBLE, 2048, 1.8, 2.05);

	enum lg_pattern p;

	CHECK(lg_pattern_parse("compressible", &p) == 0 && p == LG_PATTERN_COMPRESSIBLE);
	CHECK(lg_pattern_parse("incompressible", &p) == 0 && p == LG_PATTERN_INCOMPRESSIBLE);
	CHECK(lg_pattern_parse("both", &p) < 0);
	CHECK(strcmp(lg_pattern_name(LG_PATTERN_UNSPECIFIED), "unspecified") == 0);
	CHECK(LG_COMPRESSIBLE_RATIO == 2.0);
	return test_result("pattern");
}
#else
int main(void)
{
	fprintf(stderr, "zlib not found at build time: skipping the compressibility test\n");
	return 77;
}
#endif
