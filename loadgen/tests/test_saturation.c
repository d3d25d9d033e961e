#define _GNU_SOURCE
/* The write-saturation rule: a cliff is found where it starts, with the bytes and
 * rates before and after it; a steady write, a fall the rate recovers from, a dip
 * in the last seconds, noise around the threshold and a last, shorter interval
 * are not a cache running out. */
#include <math.h>
#include <string.h>

#include "saturation.h"
#include "test_common.h"

#define S 1000000000ull

static struct lg_saturation_summary summarize(const uint64_t *b, size_t len, uint64_t dur)
{
	struct lg_saturation_summary s;

	memset(&s, 0xab, sizeof(s));
	lg_saturation_summarize(b, len, S, dur, &s);
	return s;
}

int main(void)
{
	uint64_t b[64];
	struct lg_saturation_summary s;

	/* a cliff after 10 s: 1000 B/s, then 300 B/s for 20 s */
	for (int i = 0; i < 30; i++)
		b[i] = i < 10 ? 1000 : 300;
	s = summarize(b, 30, 30 * S);
	CHECK(s.exhausted && s.exhausted_at_s == 10);
	CHECK(s.bytes == 16000 && s.bytes_before == 10000);
	CHECK(s.initial_bytes_per_second == 1000);
	CHECK(fabs(s.bytes_per_second_before - 1000) < 1e-9 &&
	      fabs(s.bytes_per_second_after - 300) < 1e-9);
	CHECK(fabs(s.mean_bytes_per_second - 16000.0 / 30) < 1e-9);

	/* the same ending in a shorter interval: it counts in the totals, not in the rule */
	b[30] = 10;
	s = summarize(b, 31, 30 * S + S / 10);
	CHECK(s.exhausted && s.exhausted_at_s == 10 && s.bytes == 16010);
	CHECK(fabs(s.bytes_per_second_after - 6010 / 20.1) < 1e-6);
	/* a high last, shorter interval does not undo the fall either */
	b[30] = 900;
	s = summarize(b, 31, 30 * S + S / 2);
	CHECK(s.exhausted && s.exhausted_at_s == 10);

	/* the rate recovers: not the cache running out */
	for (int i = 20; i < 30; i++)
		b[i] = 1000;
	s = summarize(b, 30, 30 * S);
	CHECK(!s.exhausted && s.bytes_before == 0);

	/* a dip in the last two seconds only */
	for (int i = 0; i < 30; i++)
		b[i] = i < 28 ? 1000 : 100;
	s = summarize(b, 30, 30 * S);
	CHECK(!s.exhausted);
	b[27] = 100; /* three seconds: it is */
	s = summarize(b, 30, 30 * S);
	CHECK(s.exhausted && s.exhausted_at_s == 27);

	/* noise around the threshold (70% of 1000) never stays below it */
	for (int i = 0; i < 40; i++)
		b[i] = i < 5 ? 1000 : (i % 2 ? 650 : 720);
	s = summarize(b, 40, 40 * S);
	CHECK(!s.exhausted);
	/* a steady write */
	for (int i = 0; i < 40; i++)
		b[i] = 1000 + (uint64_t)(i % 3) * 10;
	s = summarize(b, 40, 40 * S);
	CHECK(!s.exhausted && s.initial_bytes_per_second == 1010);

	/* the initial rate is a median: a slow first second (the ramp-up) does not lower it */
	for (int i = 0; i < 20; i++)
		b[i] = i == 0 ? 100 : i < 8 ? 1000 : 500;
	s = summarize(b, 20, 20 * S);
	CHECK(s.initial_bytes_per_second == 1000 && s.exhausted && s.exhausted_at_s == 8);

	/* too short to say, and empty */
	s = summarize(b, 3, 3 * S);
	CHECK(!s.exhausted && s.bytes == 2100);
	s = summarize(b, 0, 0);
	CHECK(!s.exhausted && s.bytes == 0 && s.initial_bytes_per_second == 0 &&
	      s.mean_bytes_per_second == 0);
	s = summarize(b, 1, S / 2); /* one interval, not whole */
	CHECK(!s.exhausted && s.bytes == 100 && s.initial_bytes_per_second == 0);
	/* WSAT's half-rate point: the first whole round after the first below half of it */
	{
		uint64_t r[] = {1000, 900, 600, 500, 499, 300, 100};
		uint64_t before = 0;
		double at = -1;

		CHECK(lg_wsat_halved(r, 7, S, 7 * S, &at, &before));
		CHECK(at == 4 && before == 3000); /* exactly half (500) is not below it */
		/* 2 s rounds: the point is the round's start in seconds */
		CHECK(lg_wsat_halved(r, 7, 2 * S, 14 * S, &at, &before) && at == 8);
		/* a last, shorter round is not in the rule */
		CHECK(!lg_wsat_halved(r, 5, S, 4 * S + S / 2, &at, &before));
		CHECK(lg_wsat_halved(r, 5, S, 5 * S, &at, &before) && at == 4);
		/* none below half; too short for a whole round */
		CHECK(!lg_wsat_halved(r, 4, S, 4 * S, &at, &before));
		CHECK(!lg_wsat_halved(r, 1, S, S / 2, &at, &before));
		CHECK(!lg_wsat_halved(r, 0, S, 0, &at, &before));
	}
	return test_result("saturation");
}
