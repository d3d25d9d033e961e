#define _GNU_SOURCE
/* text: trimming (ASCII and Unicode spaces, in place, invalid UTF-8 kept),
 * UTF-8 sequence lengths and the truncating copy. */
#include <string.h>

#include "test_common.h"
#include "text.h"

static void expect_trim(const char *in, const char *out)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s", in);
	CHECKF(lg_trim(buf) == buf && strcmp(buf, out) == 0, "trim(\"%s\") = \"%s\"", in, buf);
}

int main(void)
{
	expect_trim("", "");
	expect_trim("   ", "");
	expect_trim("abc", "abc");
	expect_trim(" \t\n\v\f\rabc def \r\n", "abc def");
	expect_trim("\xc2\xa0Samsung\xe2\x80\x83", "Samsung"); /* U+00A0, U+2003 */
	expect_trim("\xe3\x80\x80\xef\xbb\xbf", "");           /* U+3000, U+FEFF */
	expect_trim("\xe2\x80\xa8x\xe2\x80\xaf y\xe2\x81\x9f", "x\xe2\x80\xaf y"); /* inner kept */
	expect_trim("caf\xc3\xa9 ", "caf\xc3\xa9");
	expect_trim(" \xff ", "\xff"); /* invalid UTF-8 is not a space */
	expect_trim("\xc2", "\xc2");   /* nor a truncated sequence */

	CHECK(lg_space_length(" x") == 1 && lg_space_length("x") == 0 && lg_space_length("") == 0);
	CHECK(lg_space_length("\xe1\x9a\x80") == 3 && lg_space_length("\xe2\x80\x8b") == 0);

	CHECK(lg_utf8_sequence_length("a") == 1);
	CHECK(lg_utf8_sequence_length("\xc3\xa9") == 2);
	CHECK(lg_utf8_sequence_length("\xe2\x82\xac") == 3);
	CHECK(lg_utf8_sequence_length("\xf0\x9f\x98\x80") == 4);
	CHECK(lg_utf8_sequence_length("\xc0\x80") == 0);         /* overlong */
	CHECK(lg_utf8_sequence_length("\xe0\x80\x80") == 0);     /* overlong */
	CHECK(lg_utf8_sequence_length("\xed\xa0\x80") == 0);     /* surrogate */
	CHECK(lg_utf8_sequence_length("\xf4\x90\x80\x80") == 0); /* above U+10FFFF */
	CHECK(lg_utf8_sequence_length("\xc3") == 0);             /* truncated */
	CHECK(lg_utf8_sequence_length("\x80") == 0);

	char small[4];

	lg_copy_string(small, sizeof(small), "abcdef");
	CHECK(strcmp(small, "abc") == 0);
	lg_copy_string(small, sizeof(small), "");
	CHECK(small[0] == '\0');
	return test_result("text");
}
