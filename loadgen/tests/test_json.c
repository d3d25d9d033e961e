#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <string.h>

#include "json.h"
#include "test_common.h"

static void expect_escape(const char *in, const char *want)
{
	struct lg_json w;

	lg_json_init(&w, false);
	lg_json_string(&w, in);
	CHECKF(lg_json_error(&w) == 0, "error for %s", want);
	CHECKF(strcmp(lg_json_text(&w, NULL), want) == 0, "escape: got %s want %s",
	       lg_json_text(&w, NULL), want);
	lg_json_fini(&w);
}

static void expect_double(double v, int decimals, const char *want)
{
	struct lg_json w;

	lg_json_init(&w, false);
	lg_json_double(&w, v, decimals);
	CHECKF(strcmp(lg_json_text(&w, NULL), want) == 0, "double: got %s want %s",
	       lg_json_text(&w, NULL), want);
	lg_json_fini(&w);
}

int main(void)
{
	struct lg_json w;

	expect_escape("plain", "\"plain\"");
	expect_escape("", "\"\"");
	expect_escape("a\"b\\c", "\"a\\\"b\\\\c\"");
	expect_escape("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
	expect_escape("\x01\x1f", "\"\\u0001\\u001f\"");
	expect_escape("\x7f", "\"\x7f\""); /* DEL needs no escape */
	expect_escape("/", "\"/\"");
	expect_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		      "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* invalid UTF-8 becomes U+FFFD so the document stays valid */
	expect_escape("a\xff"
		      "b",
		      "\"a\xef\xbf\xbd"
		      "b\"");
	expect_escape("\xc3", "\"\xef\xbf\xbd\"");                                 /* truncated */
	expect_escape("\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"");                 /* overlong */
	expect_escape("\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""); /* surrogate */
	expect_escape("\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");

	expect_double(1.5, 3, "1.5");
	expect_double(2.0, 3, "2");
	expect_double(123456.789, 1, "123456.8");
	expect_double(-0.0001, 2, "0");
	expect_double(1e20, 1, "1e+20");
	expect_double(NAN, 1, "null");
	expect_double(INFINITY, 1, "null");

	/* structure, compact */
	lg_json_init(&w, false);
	lg_json_begin_object(&w);
	lg_json_key(&w, "a");
	lg_json_begin_array(&w);
	lg_json_uint(&w, UINT64_MAX);
	lg_json_int(&w, INT64_MIN);
	lg_json_bool(&w, true);
	lg_json_null(&w);
	lg_json_begin_object(&w);
	lg_json_end_object(&w);
	lg_json_begin_array(&w);
	lg_json_end_array(&w);
	lg_json_end_array(&w);
	lg_json_key(&w, "k\"ey");
	lg_json_string(&w, "v");
	lg_json_end_object(&w);
	CHECK(lg_json_error(&w) == 0);
	CHECKF(strcmp(lg_json_text(&w, NULL),
		      "{\"a\":[18446744073709551615,-9223372036854775808,true,null,{},[]],\"k\\\"ey\":\"v\"}") ==
		       0,
	       "%s", lg_json_text(&w, NULL));
	lg_json_fini(&w);

	/* pretty */
	lg_json_init(&w, true);
	lg_json_begin_object(&w);
	lg_json_key(&w, "x");
	lg_json_begin_array(&w);
	lg_json_uint(&w, 1);
	lg_json_uint(&w, 2);
	lg_json_end_array(&w);
	lg_json_key(&w, "e");
	lg_json_begin_object(&w);
	lg_json_end_object(&w);
	lg_json_end_object(&w);
	CHECKF(strcmp(lg_json_text(&w, NULL),
		      "{\n  \"x\": [\n    1,\n    2\n  ],\n  \"e\": {}\n}") == 0,
	       "%s", lg_json_text(&w, NULL));
	lg_json_fini(&w);

	/* misuse is reported, not written */
	lg_json_init(&w, false);
	lg_json_begin_object(&w);
	lg_json_uint(&w, 1); /* a value where a key is needed */
	CHECK(lg_json_error(&w) == -EINVAL);
	lg_json_fini(&w);

	lg_json_init(&w, false);
	lg_json_begin_array(&w);
	lg_json_end_object(&w);
	CHECK(lg_json_error(&w) == -EINVAL);
	lg_json_fini(&w);

	lg_json_init(&w, false);
	lg_json_begin_object(&w);
	CHECK(lg_json_error(&w) == -EINVAL); /* unbalanced */
	lg_json_key(&w, "k");
	lg_json_end_object(&w); /* key without value */
	CHECK(lg_json_error(&w) == -EINVAL);
	lg_json_fini(&w);

	lg_json_init(&w, false);
	lg_json_uint(&w, 1);
	lg_json_uint(&w, 2); /* two top-level values */
	CHECK(lg_json_error(&w) == -EINVAL);
	lg_json_fini(&w);

	lg_json_init(&w, false);
	for (int i = 0; i < LG_JSON_MAX_DEPTH + 1; i++)
		lg_json_begin_array(&w);
	CHECK(lg_json_error(&w) == -EINVAL);
	lg_json_fini(&w);

	/* a large document grows the buffer */
	lg_json_init(&w, false);
	lg_json_begin_array(&w);
	for (int i = 0; i < 100000; i++)
		lg_json_uint(&w, (uint64_t)i);
	lg_json_end_array(&w);
	size_t len;

	CHECK(lg_json_error(&w) == 0);
	lg_json_text(&w, &len);
	CHECK(len > 500000);
	lg_json_fini(&w);
	return test_result("json");
}
