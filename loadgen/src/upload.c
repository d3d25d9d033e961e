/* upload: POST a result document to a Bench site. See upload.h. */
#define _GNU_SOURCE
#include "upload.h"

#include "lg_config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "json_read.h"
#include "sha256.h"
#include "text.h"
#include "util.h"

#if LG_HAVE_CURL
#include <curl/curl.h>
#endif

#define ENDPOINT "/api/v1/runs/"
/* The check of a token: the signed-in user's uploads, at most one; it needs a token the site
 * accepts, and writes nothing (no throttle counts it, and knox renews no token that does
 * not expire). */
#define CHECK_ENDPOINT "/api/v1/me/runs/?limit=1"
#define CHECK_CONNECT_TIMEOUT_S 10L
#define CHECK_TIMEOUT_S 30L
#define FIRST_WAIT_S 1.0
#define LONGEST_WAIT_S 30.0
#define REQUEST_TIMEOUT_S 120L /* one request, the document's ingest included */
#define MAX_BODY (4u << 20)    /* an answer's bytes loadgen reads */

bool lg_upload_available(void)
{
	return LG_HAVE_CURL;
}

/* The site's url with path appended, one slash between. */
static int site_endpoint(const char *url, const char *path, char *out, size_t size)
{
	if (!url || (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0))
		return -EINVAL;
	size_t len = strlen(url);
	while (len > 0 && url[len - 1] == '/')
		len--;
	int n = snprintf(out, size, "%.*s%s", (int)len, url, path);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int lg_upload_endpoint(const char *url, char *out, size_t size)
{
	return site_endpoint(url, ENDPOINT, out, size);
}

int lg_upload_check_endpoint(const char *url, char *out, size_t size)
{
	return site_endpoint(url, CHECK_ENDPOINT, out, size);
}

/* The token's header line; -EINVAL for a token that would break the header. */
static int auth_header(const char *token, char *out, size_t size)
{
	if (!token || strpbrk(token, "\r\n"))
		return -EINVAL;
	int n = snprintf(out, size, "Authorization: Token %s", token);
	return n < 0 || (size_t)n >= size ? -EINVAL : 0;
}

void lg_upload_key(const char *body, size_t len, char out[65])
{
	lg_sha256_hex(body, len, out);
}

double lg_upload_retry_after(const char *value)
{
	char *end;
	if (!value)
		return -1;
	while (*value == ' ' || *value == '\t')
		value++;
	if (*value < '0' || *value > '9')
		return -1;
	double s = strtod(value, &end);
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	return *end ? -1 : s;
}

int lg_upload_read_answer(const char *body, size_t len, struct lg_upload_reply *reply)
{
	struct lg_jnode *root = NULL;
	const char *s;
	int r = lg_jread_parse(body, len, &root);
	if (r < 0)
		return r;
	if ((s = lg_jread_string(root, "run.page")))
		lg_copy_string(reply->page, sizeof(reply->page), s);
	if ((s = lg_jread_string(root, "run.url")))
		lg_copy_string(reply->run_url, sizeof(reply->run_url), s);
	if ((s = lg_jread_string(root, "run.status")))
		lg_copy_string(reply->run_status, sizeof(reply->run_status), s);
	if ((s = lg_jread_string(root, "detail")))
		lg_copy_string(reply->detail, sizeof(reply->detail), s);
	const struct lg_jnode *errors = lg_jread_get(root, "errors");
	for (size_t i = 0; errors && errors->type == LG_JARRAY && i < errors->count; i++) {
		if (reply->nerrors == LG_UPLOAD_MAX_ERRORS) {
			reply->more_errors++;
			continue;
		}
		const char *pointer = lg_jread_string(&errors->children[i], "pointer");
		const char *message = lg_jread_string(&errors->children[i], "message");
		lg_copy_string(reply->errors[reply->nerrors].pointer,
			       sizeof(reply->errors[0].pointer), pointer ? pointer : "");
		lg_copy_string(reply->errors[reply->nerrors].message,
			       sizeof(reply->errors[0].message), message ? message : "");
		reply->nerrors++;
	}
	const struct lg_jnode *warnings = lg_jread_get(root, "warnings");
	for (size_t i = 0; warnings && warnings->type == LG_JARRAY && i < warnings->count; i++) {
		const struct lg_jnode *warning = &warnings->children[i];
		if (warning->type != LG_JSTRING)
			continue;
		if (reply->nwarnings == LG_UPLOAD_MAX_WARNINGS) {
			reply->more_warnings++;
			continue;
		}
		lg_copy_string(reply->warnings[reply->nwarnings++], sizeof(reply->warnings[0]),
			       warning->text);
	}
	lg_jread_free(root);
	return 0;
}

#if LG_HAVE_CURL
struct buffer {
	char *data;
	size_t len;
	double retry_after; /* -1: none */
	bool replayed;
};

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct buffer *b = userdata;
	size_t n = size * nmemb;
	if (b->len + n > MAX_BODY)
		return 0; /* an answer this long is not the site's: stop reading */
	char *grown = realloc(b->data, b->len + n + 1);
	if (!grown)
		return 0;
	memcpy(grown + b->len, ptr, n);
	b->data = grown;
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct buffer *b = userdata;
	size_t n = size * nmemb;
	static const char name[] = "retry-after:", replayed[] = "idempotent-replayed: true";
	if (n >= sizeof(replayed) - 1 && strncasecmp(ptr, replayed, sizeof(replayed) - 1) == 0)
		b->replayed = true;
	if (n > sizeof(name) - 1 && strncasecmp(ptr, name, sizeof(name) - 1) == 0) {
		char value[64];
		size_t len = n - (sizeof(name) - 1);
		if (len >= sizeof(value))
			len = sizeof(value) - 1;
		memcpy(value, ptr + sizeof(name) - 1, len);
		value[len] = '\0';
		b->retry_after = lg_upload_retry_after(value);
	}
	return n;
}

static void sleep_s(double s)
{
	struct timespec ts = {.tv_sec = (time_t)s,
			      .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* What every request to the site shares: its address, headers, the answer's buffer, the
 * timeouts; no signals, no redirects. */
static void set_request(CURL *curl, const char *endpoint, struct curl_slist *headers,
			struct buffer *answer, long connect_s, long timeout_s)
{
	curl_easy_setopt(curl, CURLOPT_URL, endpoint);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, answer);
	curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(curl, CURLOPT_HEADERDATA, answer);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, connect_s);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, timeout_s);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "loadgen/" LG_VERSION);
	/* The token goes to the site named, never on to where a redirect points. */
	curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
}

int lg_upload_post(const struct lg_upload_request *request, lg_upload_retry_fn on_retry, void *ctx,
		   struct lg_upload_reply *ret_reply)
{
	char endpoint[2048], key[65], auth[1024], idem[128];
	struct lg_upload_reply *reply = ret_reply;
	int r;
	if (!request || !request->body || !request->token || !reply)
		return -EINVAL;
	memset(reply, 0, sizeof(*reply));
	if ((r = lg_upload_endpoint(request->url, endpoint, sizeof(endpoint))) < 0)
		return r;
	if ((r = auth_header(request->token, auth, sizeof(auth))) < 0)
		return r;
	lg_upload_key(request->body, request->len, key);
	snprintf(idem, sizeof(idem), "Idempotency-Key: %s", key);

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
		return -ENOMEM;
	CURL *curl = curl_easy_init();
	struct curl_slist *headers = NULL;
	struct curl_slist *more;
	const char *lines[] = {"Content-Type: application/json", "Accept: application/json", auth,
			       idem, "Expect:"};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (!(more = curl_slist_append(headers, lines[i]))) {
			r = -ENOMEM;
			goto out;
		}
		headers = more;
	}
	if (!curl) {
		r = -ENOMEM;
		goto out;
	}
	struct buffer answer = {0};
	set_request(curl, endpoint, headers, &answer, 15L, REQUEST_TIMEOUT_S);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request->body);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->len);

	uint64_t started = lg_now_ns();
	double wait = FIRST_WAIT_S;
	for (;;) {
		char what[256];
		free(answer.data);
		answer = (struct buffer){.retry_after = -1};
		reply->attempts++;
		reply->transport[0] = '\0';
		reply->status = 0;
		CURLcode code = curl_easy_perform(curl);
		if (code == CURLE_OK) {
			curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply->status);
			if (reply->status != 429 && reply->status < 500) {
				reply->replayed = answer.replayed;
				if (answer.data)
					lg_upload_read_answer(answer.data, answer.len, reply);
				r = 0;
				break;
			}
			snprintf(what, sizeof(what), "the site answered %ld", reply->status);
		} else {
			snprintf(reply->transport, sizeof(reply->transport), "%s",
				 curl_easy_strerror(code));
			snprintf(what, sizeof(what), "%s", reply->transport);
			/* Not a moment's trouble: the address is wrong, or TLS refuses it. */
			if (code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT ||
			    code == CURLE_PEER_FAILED_VERIFICATION ||
			    code == CURLE_SSL_CACERT_BADFILE) {
				r = -ETIMEDOUT;
				break;
			}
		}
		double this_wait = answer.retry_after >= 0 ? answer.retry_after : wait;
		if (this_wait > LONGEST_WAIT_S)
			this_wait = LONGEST_WAIT_S;
		double spent = (double)(lg_now_ns() - started) / 1e9;
		if (spent + this_wait > request->retry_for_s) {
			if (reply->status && answer.data) /* a 5xx or 429 may say why */
				lg_upload_read_answer(answer.data, answer.len, reply);
			r = -ETIMEDOUT;
			break;
		}
		if (on_retry)
			on_retry(ctx, what, this_wait);
		sleep_s(this_wait);
		wait = wait * 2 > LONGEST_WAIT_S ? LONGEST_WAIT_S : wait * 2;
	}
	free(answer.data);
out:
	curl_slist_free_all(headers);
	if (curl)
		curl_easy_cleanup(curl);
	curl_global_cleanup();
	explicit_bzero(auth, sizeof(auth));
	return r;
}

/* The one GET of a check: its status and detail into *reply, or why it got no answer. */
static int check_perform(const char *endpoint, const char *auth, struct lg_upload_reply *reply)
{
	struct curl_slist *headers = NULL, *more;
	struct buffer answer = {.retry_after = -1};
	int r = -ENOMEM;
	CURL *curl = curl_easy_init();
	if (!curl)
		return -ENOMEM;
	if (!(more = curl_slist_append(headers, "Accept: application/json")))
		goto out;
	headers = more;
	if (!(more = curl_slist_append(headers, auth)))
		goto out;
	headers = more;
	set_request(curl, endpoint, headers, &answer, CHECK_CONNECT_TIMEOUT_S, CHECK_TIMEOUT_S);
	curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
	reply->attempts = 1;
	CURLcode code = curl_easy_perform(curl);
	if (code != CURLE_OK) {
		snprintf(reply->transport, sizeof(reply->transport), "%s",
			 curl_easy_strerror(code));
		r = -EHOSTUNREACH;
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply->status);
	if (answer.data)
		lg_upload_read_answer(answer.data, answer.len, reply);
	if (reply->status >= 200 && reply->status < 300)
		r = 0;
	else if (reply->status == 401 || reply->status == 403)
		r = -EACCES;
	else
		r = -EPROTO;
out:
	free(answer.data);
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	return r;
}

int lg_upload_check_token(const char *url, const char *token, struct lg_upload_reply *ret_reply)
{
	char endpoint[2048], auth[1024];
	int r;
	if (!ret_reply)
		return -EINVAL;
	memset(ret_reply, 0, sizeof(*ret_reply));
	if ((r = lg_upload_check_endpoint(url, endpoint, sizeof(endpoint))) < 0)
		return r;
	if ((r = auth_header(token, auth, sizeof(auth))) < 0)
		return r;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
		r = -ENOMEM;
	else {
		r = check_perform(endpoint, auth, ret_reply);
		curl_global_cleanup();
	}
	explicit_bzero(auth, sizeof(auth));
	return r;
}
#else
int lg_upload_post(const struct lg_upload_request *request, lg_upload_retry_fn on_retry, void *ctx,
		   struct lg_upload_reply *ret_reply)
{
	(void)request;
	(void)on_retry;
	(void)ctx;
	(void)ret_reply;
	return -ENOTSUP;
}

int lg_upload_check_token(const char *url, const char *token, struct lg_upload_reply *ret_reply)
{
	(void)url;
	(void)token;
	(void)ret_reply;
	return -ENOTSUP;
}
#endif
