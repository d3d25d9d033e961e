#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "rng.h"
#include "test_common.h"

/* Chi-square statistic of observed counts against a uniform expectation. */
static double chi_square(const uint64_t *counts, size_t bins, uint64_t total)
{
	double expected = (double)total / (double)bins, chi = 0;

	for (size_t i = 0; i < bins; i++) {
		double d = (double)counts[i] - expected;

		chi += d * d / expected;
	}
	return chi;
}

/* Upper critical value of chi-square with k degrees of freedom at p = 0.001
 * (Wilson-Hilferty approximation; z = 3.09). */
static double chi_critical(double k)
{
	double z = 3.09, t = 1 - 2 / (9 * k) + z * sqrt(2 / (9 * k));

	return k * t * t * t;
}

static void test_offsets(void)
{
	enum { BLOCKS = 1000, SAMPLES = 1000000 };
	static uint64_t counts[BLOCKS];
	struct lg_rng rng;
	const uint64_t base = 1 << 20;
	const uint32_t bs = 4096;
	bool aligned = true, inside = true;

	lg_rng_seed(&rng, 42);
	memset(counts, 0, sizeof(counts));
	for (int i = 0; i < SAMPLES; i++) {
		uint64_t off = lg_rng_offset(&rng, base, BLOCKS, bs);

		if (off % bs)
			aligned = false;
		if (off < base || off + bs > base + (uint64_t)BLOCKS * bs)
			inside = false;
		else
			counts[(off - base) / bs]++;
	}
	CHECK(aligned);
	CHECK(inside);
	double chi = chi_square(counts, BLOCKS, SAMPLES), crit = chi_critical(BLOCKS - 1);

	CHECKF(chi < crit, "offset chi-square %.1f >= %.1f", chi, crit);
	/* every block is reached */
	for (int i = 0; i < BLOCKS; i++)
		CHECK(counts[i] > 0);

	/* 512-byte blocks and an odd count */
	bool ok = true;

	for (int i = 0; i < 100000; i++) {
		uint64_t off = lg_rng_offset(&rng, 0, 7, 512);

		if (off % 512 || off >= 7 * 512)
			ok = false;
	}
	CHECK(ok);
}

static void test_no_modulo_bias(void)
{
	/* With bound = 2/3 of 2^64, "next % bound" puts 2/3 of the values in the
	 * lower half; an unbiased generator puts half. */
	struct lg_rng rng;
	uint64_t bound = (UINT64_MAX / 3) * 2, low = 0;
	const int n = 200000;

	lg_rng_seed(&rng, 7);
	for (int i = 0; i < n; i++)
		if (lg_rng_below(&rng, bound) < bound / 2)
			low++;
	double frac = (double)low / n;

	CHECKF(fabs(frac - 0.5) < 0.01, "lower-half fraction %.4f", frac);

	bool in_range = true;

	for (int i = 0; i < 100000; i++)
		if (lg_rng_below(&rng, 3) >= 3)
			in_range = false;
	CHECK(in_range);
	CHECK(lg_rng_below(&rng, 1) == 0);
}

static void test_determinism(void)
{
	struct lg_rng a, b, c;
	bool same = true, differs = false;

	lg_rng_seed(&a, 123);
	lg_rng_seed(&b, 123);
	lg_rng_seed(&c, 124);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = lg_rng_next(&a), y = lg_rng_next(&b), z = lg_rng_next(&c);

		if (x != y)
			same = false;
		if (x != z)
			differs = true;
	}
	CHECK(same);
	CHECK(differs);

	/* seed 0 is a valid seed */
	lg_rng_seed(&a, 0);
	CHECK(lg_rng_next(&a) != 0 || lg_rng_next(&a) != 0);
}

static void test_fill(void)
{
	enum { LEN = 1 << 20 };
	static uint64_t buf1[LEN / 8], buf2[LEN / 8];
	uint64_t counts[256] = {0};
	struct lg_rng rng;

	lg_rng_seed(&rng, 99);
	lg_rng_fill(&rng, buf1, LEN);
	lg_rng_fill(&rng, buf2, LEN);
	CHECK(memcmp(buf1, buf2, LEN) != 0);
	const unsigned char *p = (const unsigned char *)buf1;

	for (size_t i = 0; i < LEN; i++)
		counts[p[i]]++;
	double chi = chi_square(counts, 256, LEN), crit = chi_critical(255);

	CHECKF(chi < crit, "byte chi-square %.1f >= %.1f", chi, crit);

	/* odd word counts use the tail loop */
	uint64_t small[3] = {0, 0, 0};

	lg_rng_fill(&rng, small, sizeof(small));
	CHECK(small[0] || small[1] || small[2]);
}

int main(void)
{
	test_offsets();
	test_no_modulo_bias();
	test_determinism();
	test_fill();
	return test_result("rng");
}
