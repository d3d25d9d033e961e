/* compare: a Bench site's figures for one drive, which `run --compare URL` prints
 * beside its own as each throughput test finishes.
 *
 *   URL        the drive's page on the site, as a browser shows it:
 *              https://bench.example.org/drives/<slug>/ (the site is what comes
 *              before /drives/, so a site under a path prefix works too)
 *   the read   GET <site>/api/v1/compare/<slug>/<slug>/, the site's head to head of
 *              the drive with itself: its side "a" holds, for each test and data
 *              pattern, the figure the site's pages show, the mean of the drive's
 *              group of results (results/spread.py), with how it was obtained and
 *              how many results it is the mean of
 *   bounded    one request, no retry, LG_COMPARE_TIMEOUT_S at most: a run never
 *              waits on the site longer than that, and goes on without figures
 *
 * HTTP is libcurl's, as for upload; without it lg_compare_available() is false
 * and lg_compare_fetch() -ENOTSUP.
 *
 * Ownership: a struct lg_compare_reference owns its figures; lg_compare_fini()
 * frees them. Lookups return pointers into it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "report_json.h"

#define LG_COMPARE_TIMEOUT_S 5.0
/* A published figure whose article does not say its data pattern (the site's word). */
#define LG_COMPARE_UNSTATED "unspecified"

struct lg_compare_figure {
	char test[LG_ID_MAX];
	char pattern[16];        /* compressible, incompressible, unspecified */
	bool has_rate;           /* false: the site has only latency for it */
	double bytes_per_second; /* the group's mean */
	double iops;
	unsigned runs; /* how many results the mean is of; 0: not said */
	char how[128]; /* the site's method_label: "loadgen, full length", "published, Iometer" */
};

struct lg_compare_reference {
	char drive[256]; /* the drive's name on the site */
	char slug[256];
	char site[2048]; /* the site's root, without a trailing slash */
	struct lg_compare_figure *figures;
	size_t count;
};

/* Whether this loadgen was built with libcurl. */
bool lg_compare_available(void);

/* Split a drive page's URL into the site's root (no trailing slash) and the drive's
 * slug; a query or fragment is ignored. Returns 0, or -EINVAL (not http:// or https://,
 * no host, no /drives/<slug>/ at the end, a slug with other characters than letters,
 * digits, '-' and '_'), -ENAMETOOLONG. */
int lg_compare_parse_url(const char *url, char *ret_site, size_t site_size, char *ret_slug,
			 size_t slug_size);

/* The API read of a site and slug: <site>/api/v1/compare/<slug>/<slug>/. Returns 0 or
 * -ENAMETOOLONG. */
int lg_compare_endpoint(const char *site, const char *slug, char *out, size_t size);

/* Read the site's answer (the compare read's JSON) into *ret_ref's drive and figures
 * (its site and slug are left as they are). Returns 0, -EINVAL (not JSON, or not a
 * comparison: no a.drive.name, no tests list), -ENOMEM; *ret_ref untouched on failure. */
int lg_compare_read(const char *body, size_t len, struct lg_compare_reference *ret_ref);

/* Fetch the figures of the drive whose page is url into *ret_ref (its site and slug
 * are set once the URL is read, whatever follows). Returns 0, or a
 * negative errno with why (a sentence, for "comparing with nothing: ...") in why:
 * -EINVAL (a URL that is no drive page; an answer that is no comparison), -ENOENT (the
 * site has no such drive: 404), -EIO (no answer: the connection, a timeout; or an
 * HTTP error), -ENOTSUP (no libcurl), -ENOMEM. */
int lg_compare_fetch(const char *url, struct lg_compare_reference *ret_ref, char *why,
		     size_t why_len);

/* The figure to compare a result of test in pattern with: the site's in that pattern,
 * else its figure without a stated pattern when that is its only one in the test (as
 * the site's compare page pairs them); NULL: the site has none (not tested). */
const struct lg_compare_figure *lg_compare_find(const struct lg_compare_reference *ref,
						const char *test, const char *pattern);

/* How much mine differs from the reference, in % of it: (mine / reference - 1) * 100. */
double lg_compare_percent(double mine, double reference);

/* Free the figures; the struct may be reused. NULL is fine. */
void lg_compare_fini(struct lg_compare_reference *ref);
