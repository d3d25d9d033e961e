/* compare: a Bench site's figures for one drive. See compare.h. */
#define _GNU_SOURCE
#include "compare.h"

#include "lg_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json_read.h"
#include "text.h"

#if LG_HAVE_CURL
#include <curl/curl.h>
#endif

#define DRIVES "/drives/"
#define ENDPOINT "/api/v1/compare/"
#define MAX_BODY (4u << 20) /* the answer's bytes read: a drive's comparison is tens of KB */
#define SLUG_CHARS "-_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

bool lg_compare_available(void)
{
	return LG_HAVE_CURL;
}

int lg_compare_parse_url(const char *url, char *ret_site, size_t site_size, char *ret_slug,
			 size_t slug_size)
{
	size_t scheme;
	if (!url)
		return -EINVAL;
	if (strncasecmp(url, "http://", 7) == 0)
		scheme = 7;
	else if (strncasecmp(url, "https://", 8) == 0)
		scheme = 8;
	else
		return -EINVAL;
	size_t len = strcspn(url, "?#");
	const char *host = url + scheme;
	size_t host_len = strcspn(host, "/?#");
	if (host_len == 0)
		return -EINVAL;
	/* The last /drives/ of the path: what follows it is the slug and a slash at most. */
	const char *drives = NULL;
	for (const char *p = host + host_len; p < url + len; p++)
		if (strncmp(p, DRIVES, strlen(DRIVES)) == 0 && p + strlen(DRIVES) <= url + len)
			drives = p;
	if (!drives)
		return -EINVAL;
	const char *slug = drives + strlen(DRIVES);
	size_t slug_len = (size_t)(url + len - slug);
	if (slug_len > 0 && slug[slug_len - 1] == '/')
		slug_len--;
	if (slug_len == 0 || strspn(slug, SLUG_CHARS) < slug_len)
		return -EINVAL;
	size_t site_len = (size_t)(drives - url);
	if (site_len >= site_size || slug_len >= slug_size)
		return -ENAMETOOLONG;
	memcpy(ret_site, url, site_len);
	ret_site[site_len] = '\0';
	memcpy(ret_slug, slug, slug_len);
	ret_slug[slug_len] = '\0';
	return 0;
}

int lg_compare_endpoint(const char *site, const char *slug, char *out, size_t size)
{
	int n = snprintf(out, size, "%s" ENDPOINT "%s/%s/", site, slug, slug);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* One pattern's figures of side a into *f; false when the side has none. */
static bool read_figure(const struct lg_jnode *pair, const char *test, struct lg_compare_figure *f)
{
	const struct lg_jnode *a = lg_jread_get(pair, "a");
	const char *pattern = lg_jread_string(pair, "pattern");
	const char *how = lg_jread_string(a, "method_label");
	double runs;

	if (!a || a->type != LG_JOBJECT || !pattern)
		return false;
	memset(f, 0, sizeof(*f));
	lg_copy_string(f->test, sizeof(f->test), test);
	lg_copy_string(f->pattern, sizeof(f->pattern), pattern);
	lg_copy_string(f->how, sizeof(f->how), how ? how : "");
	/* A figure with only latency has neither rate; one has both (the other derived). */
	f->has_rate = lg_jread_number(a, "bytes_per_second", &f->bytes_per_second) &&
		      lg_jread_number(a, "iops", &f->iops);
	if (lg_jread_number(a, "spread.n", &runs) && runs >= 1 && runs < 1e6)
		f->runs = (unsigned)runs;
	return true;
}

int lg_compare_read(const char *body, size_t len, struct lg_compare_reference *ret_ref)
{
	struct lg_jnode *root = NULL;
	struct lg_compare_figure *figures = NULL;
	size_t count = 0, cap = 0;
	int r;

	if ((r = lg_jread_parse(body, len, &root)) < 0)
		return r;
	const char *drive = lg_jread_string(root, "a.drive.name");
	const struct lg_jnode *tests = lg_jread_get(root, "tests");
	if (!drive || !tests || tests->type != LG_JARRAY) {
		r = -EINVAL;
		goto out;
	}
	for (size_t i = 0; i < tests->count; i++) {
		const char *test = lg_jread_string(&tests->children[i], "test");
		const struct lg_jnode *pairs = lg_jread_get(&tests->children[i], "patterns");
		for (size_t j = 0; test && pairs && pairs->type == LG_JARRAY && j < pairs->count;
		     j++) {
			if (count == cap) {
				size_t grown_cap = cap ? cap * 2 : 16;
				void *grown = realloc(figures, grown_cap * sizeof(*figures));
				if (!grown) {
					r = -ENOMEM;
					goto out;
				}
				figures = grown;
				cap = grown_cap;
			}
			if (read_figure(&pairs->children[j], test, &figures[count]))
				count++;
		}
	}
	lg_copy_string(ret_ref->drive, sizeof(ret_ref->drive), drive);
	free(ret_ref->figures);
	ret_ref->figures = figures;
	ret_ref->count = count;
	figures = NULL;
	r = 0;
out:
	free(figures);
	lg_jread_free(root);
	return r;
}

const struct lg_compare_figure *lg_compare_find(const struct lg_compare_reference *ref,
						const char *test, const char *pattern)
{
	const struct lg_compare_figure *unstated = NULL;
	size_t in_test = 0;

	for (size_t i = 0; ref && i < ref->count; i++) {
		const struct lg_compare_figure *f = &ref->figures[i];
		if (strcmp(f->test, test) != 0)
			continue;
		if (strcmp(f->pattern, pattern) == 0)
			return f;
		in_test++;
		if (strcmp(f->pattern, LG_COMPARE_UNSTATED) == 0)
			unstated = f;
	}
	return unstated && in_test == 1 ? unstated : NULL;
}

double lg_compare_percent(double mine, double reference)
{
	return (mine / reference - 1.0) * 100.0;
}

void lg_compare_fini(struct lg_compare_reference *ref)
{
	if (!ref)
		return;
	free(ref->figures);
	ref->figures = NULL;
	ref->count = 0;
}

#if LG_HAVE_CURL
struct buffer {
	char *data;
	size_t len;
};

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct buffer *b = userdata;
	size_t n = size * nmemb;
	if (b->len + n > MAX_BODY)
		return 0; /* an answer this long is not a drive's comparison: stop reading */
	char *grown = realloc(b->data, b->len + n + 1);
	if (!grown)
		return 0;
	memcpy(grown + b->len, ptr, n);
	b->data = grown;
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

int lg_compare_fetch(const char *url, struct lg_compare_reference *ret_ref, char *why,
		     size_t why_len)
{
	struct lg_compare_reference *ref = ret_ref;
	char endpoint[4096];
	struct buffer answer = {0};
	CURL *curl = NULL;
	long status = 0;
	int r;

	why[0] = '\0';
	r = lg_compare_parse_url(url, ref->site, sizeof(ref->site), ref->slug, sizeof(ref->slug));
	if (r == 0)
		r = lg_compare_endpoint(ref->site, ref->slug, endpoint, sizeof(endpoint));
	if (r < 0) {
		snprintf(why, why_len,
			 "%s is not a drive's page on a Bench site (https://HOST/drives/SLUG/)",
			 url);
		return -EINVAL;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 || !(curl = curl_easy_init())) {
		snprintf(why, why_len, "out of memory");
		r = -ENOMEM;
		goto out;
	}
	curl_easy_setopt(curl, CURLOPT_URL, endpoint);
	curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)(LG_COMPARE_TIMEOUT_S * 1000));
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "loadgen/" LG_VERSION);
	/* Nothing secret is sent: a redirect (http to https, a moved site) may be followed,
	 * to http or https only. */
	curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 3L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	CURLcode code = curl_easy_perform(curl);
	if (code != CURLE_OK) {
		snprintf(why, why_len, "%s: %s", endpoint, curl_easy_strerror(code));
		r = -EIO;
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	if (status == 404) {
		snprintf(why, why_len, "the site %s has no drive \"%s\" (404)", ref->site,
			 ref->slug);
		r = -ENOENT;
		goto out;
	}
	if (status != 200) {
		snprintf(why, why_len, "%s answered %ld", endpoint, status);
		r = -EIO;
		goto out;
	}
	r = answer.data ? lg_compare_read(answer.data, answer.len, ref) : -EINVAL;
	if (r == -EINVAL)
		snprintf(why, why_len, "the answer of %s is not a Bench site's comparison",
			 endpoint);
	else if (r < 0)
		snprintf(why, why_len, "out of memory");
out:
	free(answer.data);
	if (curl)
		curl_easy_cleanup(curl);
	curl_global_cleanup();
	return r;
}
#else
int lg_compare_fetch(const char *url, struct lg_compare_reference *ret_ref, char *why,
		     size_t why_len)
{
	(void)url;
	(void)ret_ref;
	snprintf(why, why_len, "this loadgen was built without libcurl");
	return -ENOTSUP;
}
#endif
