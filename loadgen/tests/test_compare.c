/* run --compare's reading: a drive page's URL split into the site and the slug, and the
 * site's answers read into figures, on answers captured from the site's compare read
 * (fixtures/compare-*.json: the demo catalog's drives, GET /api/v1/compare/<slug>/<slug>/)
 * and on answers that are no comparison. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "compare.h"
#include "fixture.h"
#include "rng.h"
#include "test_common.h"

static char site[2048], slug[256];

static int split(const char *url)
{
	site[0] = slug[0] = '\0';
	return lg_compare_parse_url(url, site, sizeof(site), slug, sizeof(slug));
}

static void test_urls(void)
{
	char endpoint[4096], tiny[8];

	CHECK(split("https://bench.example.org/drives/intel-x25-m/") == 0);
	CHECK(strcmp(site, "https://bench.example.org") == 0 && strcmp(slug, "intel-x25-m") == 0);
	CHECK(split("http://127.0.0.1:8000/drives/a_b-9") == 0); /* no trailing slash */
	CHECK(strcmp(site, "http://127.0.0.1:8000") == 0 && strcmp(slug, "a_b-9") == 0);
	/* what a browser's address bar may hold beyond the page */
	CHECK(split("HTTPS://h/drives/x/?run=3#results") == 0);
	CHECK(strcmp(site, "HTTPS://h") == 0 && strcmp(slug, "x") == 0);
	/* a site under a path prefix, even one named drives */
	CHECK(split("https://h/tools/drives/bench/drives/x/") == 0);
	CHECK(strcmp(site, "https://h/tools/drives/bench") == 0 && strcmp(slug, "x") == 0);

	CHECK(split("ftp://h/drives/x/") == -EINVAL);
	CHECK(split("h/drives/x/") == -EINVAL);
	CHECK(split("http:///drives/x/") == -EINVAL);        /* no host */
	CHECK(split("https://h/") == -EINVAL);               /* the site, no drive */
	CHECK(split("https://h/drives/") == -EINVAL);        /* no slug */
	CHECK(split("https://h/drives//") == -EINVAL);       /* no slug */
	CHECK(split("https://h/drives/x/runs/") == -EINVAL); /* not the drive's page */
	CHECK(split("https://h/drives/x%20y/") == -EINVAL);  /* not a slug */
	CHECK(split("https://h/compare/?a=x&b=y") == -EINVAL);
	CHECK(split("https://h?next=/drives/x/") == -EINVAL); /* in the query, not the path */
	CHECK(split(NULL) == -EINVAL);
	CHECK(lg_compare_parse_url("https://h/drives/x/", tiny, 3, slug, sizeof(slug)) ==
	      -ENAMETOOLONG);

	CHECK(lg_compare_endpoint("https://h/p", "x-1", endpoint, sizeof(endpoint)) == 0);
	CHECK(strcmp(endpoint, "https://h/p/api/v1/compare/x-1/x-1/") == 0);
	CHECK(lg_compare_endpoint("https://h", "x", tiny, sizeof(tiny)) == -ENAMETOOLONG);
}

static char body[1 << 16];

static void test_loadgen_runs(const char *dir)
{
	struct lg_compare_reference ref = {0};
	long n = fixture_text(dir, "compare-loadgen-three-runs.json", body, sizeof(body));
	const struct lg_compare_figure *f;

	CHECK(n > 0 && lg_compare_read(body, (size_t)n, &ref) == 0);
	CHECK(strcmp(ref.drive, "Generic Virtio-blk virtual disk (16 GiB file on ext4) 17GB") == 0);
	/* five tests, both patterns each: the group means, as the site wrote them */
	CHECK(ref.count == 10);
	f = lg_compare_find(&ref, "randread-4k-qd3", "compressible");
	CHECK(f && f->has_rate && f->bytes_per_second == 144249189.63333333 &&
	      f->iops == 35217.087 && f->runs == 3 && strcmp(f->how, "loadgen, full length") == 0);
	f = lg_compare_find(&ref, "seqwrite-128k-qd1", "incompressible");
	CHECK(f && f->bytes_per_second == 372981229.3 && strcmp(f->pattern, "incompressible") == 0);
	/* a test the drive has no figure in */
	CHECK(lg_compare_find(&ref, "seqread-2m-qd1", "compressible") == NULL);
	CHECK(lg_compare_find(&ref, "adhoc-randread-4k-qd1", "incompressible") == NULL);
	/* a second read replaces the figures */
	CHECK(lg_compare_read(body, (size_t)n, &ref) == 0 && ref.count == 10);
	lg_compare_fini(&ref);
	CHECK(ref.figures == NULL && ref.count == 0);
	lg_compare_fini(&ref);
	lg_compare_fini(NULL);
}

static void test_published(const char *dir)
{
	struct lg_compare_reference ref = {0};
	long n = fixture_text(dir, "compare-published-unstated-pattern.json", body, sizeof(body));
	const struct lg_compare_figure *f, *g;

	CHECK(n > 0 && lg_compare_read(body, (size_t)n, &ref) == 0);
	CHECK(strcmp(ref.drive, "Intel X25-M") == 0 && ref.count == 1);
	/* the article did not say its data pattern: its only figure stands for both */
	f = lg_compare_find(&ref, "randwrite-4k-qd3-8g", "compressible");
	g = lg_compare_find(&ref, "randwrite-4k-qd3-8g", "incompressible");
	CHECK(f && f == g && strcmp(f->pattern, LG_COMPARE_UNSTATED) == 0);
	CHECK(f && f->bytes_per_second == 23100000.0 && f->runs == 1 &&
	      strcmp(f->how, "published, Iometer") == 0);
	lg_compare_fini(&ref);

	/* beside a stated pattern, the unstated one does not stand in for the other */
	static const char both[] =
		"{\"a\":{\"drive\":{\"name\":\"D\"}},\"tests\":[{\"test\":\"t\",\"patterns\":["
		"{\"pattern\":\"compressible\",\"a\":{\"bytes_per_second\":2.0,\"iops\":1.0}},"
		"{\"pattern\":\"unspecified\",\"a\":{\"bytes_per_second\":4.0,\"iops\":2.0}}]}]}";
	CHECK(lg_compare_read(both, strlen(both), &ref) == 0 && ref.count == 2);
	f = lg_compare_find(&ref, "t", "compressible");
	CHECK(f && f->bytes_per_second == 2.0 && f->runs == 0 && f->how[0] == '\0');
	CHECK(lg_compare_find(&ref, "t", "incompressible") == NULL);
	lg_compare_fini(&ref);
}

static void test_latency_only(const char *dir)
{
	struct lg_compare_reference ref = {0};
	long n = fixture_text(dir, "compare-latency-only.json", body, sizeof(body));
	const struct lg_compare_figure *f;

	CHECK(n > 0 && lg_compare_read(body, (size_t)n, &ref) == 0);
	CHECK(strcmp(ref.drive, "Crucial C300") == 0 && ref.count == 1);
	f = lg_compare_find(&ref, "randwrite-4k-qd3-8g", "compressible");
	CHECK(f && !f->has_rate);
	CHECK(lg_compare_find(&ref, "randwrite-4k-qd3-8g", "incompressible") == NULL);
	lg_compare_fini(&ref);
}

/* Answers that are no comparison leave the reference as it was. */
static void test_not_a_comparison(const char *dir)
{
	struct lg_compare_reference ref = {0};
	long n = fixture_text(dir, "compare-unknown-drive.json", body, sizeof(body));
	static const char *const others[] = {
		"",
		"<!doctype html><title>Not Found</title>",
		"[]",
		"{\"a\":{\"drive\":{\"name\":\"D\"}}}",
		"{\"tests\":[]}",
		"{\"a\":{\"drive\":{\"name\":7}},\"tests\":[]}",
		"{\"a\":{\"drive\":{\"name\":\"D\"}},\"tests\":{}}",
		"{\"a\":{\"drive\":{\"name\":\"D\"}},\"tests\":[]",
	};

	snprintf(ref.drive, sizeof(ref.drive), "before");
	CHECK(n > 0 && lg_compare_read(body, (size_t)n, &ref) == -EINVAL);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		CHECKF(lg_compare_read(others[i], strlen(others[i]), &ref) == -EINVAL, "%s",
		       others[i]);
	CHECK(strcmp(ref.drive, "before") == 0 && ref.figures == NULL && ref.count == 0);

	/* a comparison of a drive with no figures yet, and entries without a side a or a
	 * pattern, which are passed over */
	static const char empty[] = "{\"a\":{\"drive\":{\"name\":\"D\"}},\"tests\":[]}";
	CHECK(lg_compare_read(empty, strlen(empty), &ref) == 0 && ref.count == 0);
	CHECK(strcmp(ref.drive, "D") == 0 && lg_compare_find(&ref, "t", "compressible") == NULL);
	static const char odd[] =
		"{\"a\":{\"drive\":{\"name\":\"D\"}},\"tests\":[{\"test\":\"t\",\"patterns\":["
		"{\"pattern\":\"compressible\",\"a\":null},{\"a\":{\"bytes_per_second\":1}}]},"
		"{\"patterns\":[{\"pattern\":\"compressible\",\"a\":{}}]},7]}";
	CHECK(lg_compare_read(odd, strlen(odd), &ref) == 0 && ref.count == 0);
	lg_compare_fini(&ref);
}

/* The difference is the figures' ratio, for any pair of positive rates. */
static void test_percent(void)
{
	struct lg_rng rng;

	CHECK(lg_compare_percent(150.0, 100.0) == 50.0);
	CHECK(lg_compare_percent(50.0, 100.0) == -50.0);
	CHECK(lg_compare_percent(100.0, 100.0) == 0.0);
	lg_rng_seed(&rng, 42);
	for (int i = 0; i < 10000; i++) {
		double mine = 1.0 + (double)(lg_rng_next(&rng) % 10000000000ull);
		double ref = 1.0 + (double)(lg_rng_next(&rng) % 10000000000ull);
		double p = lg_compare_percent(mine, ref);
		CHECKF(fabs(ref * (1.0 + p / 100.0) - mine) <= 1e-9 * mine, "%g %g %g", mine, ref,
		       p);
		CHECK((p > 0) == (mine > ref) && (p < 0) == (mine < ref));
	}
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "fixtures";

	test_urls();
	test_loadgen_runs(dir);
	test_published(dir);
	test_latency_only(dir);
	test_not_a_comparison(dir);
	test_percent();
	return test_result("compare");
}
