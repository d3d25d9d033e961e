/* upload's reading of the site's answers (lg_upload_read_answer): the answer to an upload
 * measured by a loadgen older than its suite needs, captured from the site
 * (fixtures/upload-older-loadgen.json: POST /api/v1/runs/ of a desktop-2011 document whose
 * tool.version is 0.0.9, as tests/api/test_upload_loadgen_version.py makes it), with its
 * warning; more warnings than are kept, warnings that are no text; a refusal's errors; an
 * answer that is no JSON. And the addresses and the Retry-After a request is made with. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "test_common.h"
#include "upload.h"

static struct lg_upload_reply reply;

static int read_answer(const char *text)
{
	memset(&reply, 0, sizeof(reply));
	return lg_upload_read_answer(text, strlen(text), &reply);
}

static void test_the_sites_warning(const char *dir)
{
	static char body[1 << 16];
	long n = fixture_text(dir, "upload-older-loadgen.json", body, sizeof(body));

	CHECK(n > 0 && read_answer(body) == 0);
	CHECK(strcmp(reply.page, "http://testserver/bench/runs/1/") == 0);
	CHECK(strcmp(reply.run_url, "http://testserver/api/v1/runs/1/") == 0);
	CHECK(strcmp(reply.run_status, "published") == 0);
	CHECK(reply.nerrors == 0 && reply.detail[0] == '\0');
	CHECK(reply.nwarnings == 1 && reply.more_warnings == 0);
	static const char older[] =
		"loadgen 0.0.9 is older than suite desktop-2011 version 1 needs (loadgen ";
	CHECKF(strncmp(reply.warnings[0], older, sizeof(older) - 1) == 0, "%s", reply.warnings[0]);
	CHECK(strstr(reply.warnings[0], "(/bench/loadgen/).") != NULL);

	/* none to tell: an empty list, or none at all */
	CHECK(read_answer("{\"created\": true, \"warnings\": [], \"run\": {\"page\": \"p\"}}") ==
	      0);
	CHECK(reply.nwarnings == 0 && strcmp(reply.page, "p") == 0);
	CHECK(read_answer("{\"run\": {\"page\": \"p\"}}") == 0 && reply.nwarnings == 0);
}

static void test_warnings_beyond_what_is_kept(void)
{
	char text[8192] = "{\"warnings\": [";
	char *at = text + strlen(text);
	for (int i = 0; i < LG_UPLOAD_MAX_WARNINGS + 3; i++)
		at += sprintf(at, "%s\"w%d\"", i ? ", " : "", i);
	/* no text: not a warning loadgen can say */
	strcpy(at, ", 7, null, {\"w\": 1}]}");
	CHECK(read_answer(text) == 0);
	CHECK(reply.nwarnings == LG_UPLOAD_MAX_WARNINGS && reply.more_warnings == 3);
	CHECK(strcmp(reply.warnings[0], "w0") == 0);
	CHECK(strcmp(reply.warnings[LG_UPLOAD_MAX_WARNINGS - 1], "w7") == 0);
	/* not a list: nothing */
	CHECK(read_answer("{\"warnings\": \"one\"}") == 0 && reply.nwarnings == 0);

	/* a warning longer than its field: cut, still a string */
	size_t size = sizeof(reply.warnings[0]) * 2;
	char *long_text = malloc(size + 32);
	CHECK(long_text != NULL);
	if (long_text) {
		strcpy(long_text, "{\"warnings\": [\"");
		size_t head = strlen(long_text);
		memset(long_text + head, 'x', size);
		strcpy(long_text + head + size, "\"]}");
		CHECK(read_answer(long_text) == 0 && reply.nwarnings == 1);
		CHECK(strlen(reply.warnings[0]) == sizeof(reply.warnings[0]) - 1);
		free(long_text);
	}
}

static void test_a_refusal(void)
{
	CHECK(read_answer("{\"detail\": \"2 problems\", \"errors\": ["
			  "{\"pointer\": \"/status\", \"message\": \"must be one of\"},"
			  "{\"pointer\": \"\", \"message\": \"no source\"}]}") == 0);
	CHECK(strcmp(reply.detail, "2 problems") == 0 && reply.nerrors == 2);
	CHECK(strcmp(reply.errors[0].pointer, "/status") == 0);
	CHECK(strcmp(reply.errors[1].message, "no source") == 0 && reply.nwarnings == 0);
}

static void test_no_json(void)
{
	memset(&reply, 0, sizeof(reply));
	strcpy(reply.page, "kept");
	const char *html = "<html>502 Bad Gateway</html>";
	CHECK(lg_upload_read_answer(html, strlen(html), &reply) == -EINVAL);
	CHECK(strcmp(reply.page, "kept") == 0 && reply.nwarnings == 0);
	const char *trailing = "{\"warnings\": [\"a\",]}";
	CHECK(lg_upload_read_answer(trailing, strlen(trailing), &reply) == -EINVAL);
}

static void test_addresses(void)
{
	char out[256];

	CHECK(lg_upload_endpoint("https://bench.example.org/", out, sizeof(out)) == 0);
	CHECK(strcmp(out, "https://bench.example.org/api/v1/runs/") == 0);
	CHECK(lg_upload_check_endpoint("http://127.0.0.1:8000", out, sizeof(out)) == 0);
	CHECK(strcmp(out, "http://127.0.0.1:8000/api/v1/me/runs/?limit=1") == 0);
	CHECK(lg_upload_endpoint("ftp://h", out, sizeof(out)) == -EINVAL);
	CHECK(lg_upload_endpoint("https://h", out, 8) == -ENAMETOOLONG);
	CHECK(lg_upload_retry_after(" 3") == 3.0);
	CHECK(lg_upload_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == -1);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "fixtures";

	test_the_sites_warning(dir);
	test_warnings_beyond_what_is_kept();
	test_a_refusal();
	test_no_json();
	test_addresses();
	return test_result("upload");
}
