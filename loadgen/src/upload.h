/* upload: sending result documents to a Bench site (POST URL/api/v1/runs/, the API of
 * README.md's reviewer path) and reading its answer: the run's page on 201 (uploaded)
 * or 200 (the same document was uploaded before) with what the site warns of (a loadgen
 * older than the run's suite needs), the problems on 400. Before a run that
 * uploads, one check that the site accepts the token (GET URL/api/v1/me/runs/?limit=1).
 *
 *   token            "Authorization: Token ..." (from BENCH_TOKEN or a file; main.c)
 *   Idempotency-Key  the SHA-256 of the document's bytes: a retry of a request whose
 *                    answer was lost is the same request, and the site answers it once;
 *                    a later upload of the same bytes gets that first answer again,
 *                    marked "Idempotent-Replayed: true" (reply.replayed)
 *   retries          on a connection error, a 5xx or a 429, waiting 1, 2, 4... s (or what
 *                    Retry-After says, in seconds), until retry_for_s have passed
 *
 * HTTP is libcurl's; a build without it has lg_upload_available() false and every
 * upload -ENOTSUP.
 *
 * Ownership: the caller's request strings and reply struct; nothing kept.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define LG_UPLOAD_MAX_ERRORS 20
#define LG_UPLOAD_MAX_WARNINGS 8

struct lg_upload_request {
	const char *url;   /* the site: "https://bench.example.org" */
	const char *token; /* the API token */
	const char *body;  /* the document's bytes */
	size_t len;
	double retry_for_s; /* give up retrying once this much time has passed */
};

struct lg_upload_reply {
	long status;         /* the last answer's HTTP status; 0: none came */
	bool replayed;       /* Idempotent-Replayed: the site gave its first answer again */
	unsigned attempts;   /* requests sent */
	char transport[256]; /* why the last request got no answer; empty when it did */
	char page[1024];     /* the body's run.page: the run's permalink */
	char run_url[1024];  /* run.url */
	char run_status[32]; /* run.status ("published", "held") */
	char detail[1024];   /* the body's detail (errors, refusals) */
	struct {
		char pointer[256];
		char message[512];
	} errors[LG_UPLOAD_MAX_ERRORS];
	size_t nerrors, more_errors;                 /* the body's errors: listed, and not listed */
	char warnings[LG_UPLOAD_MAX_WARNINGS][1024]; /* the body's warnings, each a sentence */
	size_t nwarnings, more_warnings;             /* listed, and not listed */
};

/* Called before each retry: what went wrong and how long the wait is. */
typedef void (*lg_upload_retry_fn)(void *ctx, const char *what, double wait_s);

/* Whether this loadgen was built with libcurl. */
bool lg_upload_available(void);

/* The endpoint of a site's URL: its path with "/api/v1/runs/" appended (one slash
 * between). Returns 0, or -ENAMETOOLONG, -EINVAL (not http:// or https://). */
int lg_upload_endpoint(const char *url, char *out, size_t size);

/* The address of the token's check: the site's URL with "/api/v1/me/runs/?limit=1"
 * appended, as lg_upload_endpoint does. Returns 0, -ENAMETOOLONG or -EINVAL. */
int lg_upload_check_endpoint(const char *url, char *out, size_t size);

/* The Idempotency-Key of a document: its SHA-256, hex. */
void lg_upload_key(const char *body, size_t len, char out[65]);

/* POST the document, retrying as above; fill *ret_reply. Returns 0 when an answer that
 * is not retried came (any status: 201, 200, 400, 401...), -ETIMEDOUT when retries ran
 * out (ret_reply says the last failure), -ENOTSUP without libcurl, -EINVAL, -ENOMEM. */
int lg_upload_post(const struct lg_upload_request *request, lg_upload_retry_fn on_retry, void *ctx,
		   struct lg_upload_reply *ret_reply);

/* One authenticated GET of the check's address, bounded (10 s to connect, 30 s in all), not
 * retried; *ret_reply gets its status and detail, or in transport why no answer came.
 * Returns 0 when the site accepts the token (2xx), -EACCES when it refuses it (401, 403),
 * -EPROTO for another answer (a 404 from a URL that is no Bench site, a 5xx),
 * -EHOSTUNREACH when no answer came, -EINVAL (a URL that is not http(s), a token with a
 * line break), -ENOTSUP without libcurl, -ENOMEM. */
int lg_upload_check_token(const char *url, const char *token, struct lg_upload_reply *ret_reply);

/* What an answer's JSON body says, added to *reply: run.page, run.url, run.status, detail,
 * errors (pointer and message each) and warnings (strings), each cut to its field's size,
 * beyond LG_UPLOAD_MAX_* counted in more_*. Returns 0, or -EINVAL when the body is not
 * JSON (reply untouched), -ENOMEM. Pure; exposed for tests. */
int lg_upload_read_answer(const char *body, size_t len, struct lg_upload_reply *reply);

/* The seconds a Retry-After header's value asks for: delta-seconds only (an HTTP date
 * is -1, so the backoff decides). Pure; exposed for tests. */
double lg_upload_retry_after(const char *value);
