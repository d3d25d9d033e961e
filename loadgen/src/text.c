#define _GNU_SOURCE
#include "text.h"

#include <string.h>

size_t lg_space_length(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		return 1;
	if (s[0] == 0xc2 && s[1] == 0xa0)
		return 2; /* U+00A0 no-break space */
	if (s[0] == 0xe1 && s[1] == 0x9a && s[2] == 0x80)
		return 3; /* U+1680 */
	if (s[0] == 0xe2 && s[1] == 0x80 &&
	    ((s[2] >= 0x80 && s[2] <= 0x8a) || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf))
		return 3; /* U+2000-U+200A, U+2028, U+2029, U+202F */
	if (s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0x9f)
		return 3; /* U+205F */
	if (s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80)
		return 3; /* U+3000 */
	if (s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
		return 3; /* U+FEFF */
	return 0;
}

char *lg_trim(char *s)
{
	char *p = s, *q, *end;
	size_t n;

	while ((n = lg_space_length(p)) > 0)
		p += n;
	for (q = end = p; *q;) {
		n = lg_space_length(q);
		if (n > 0) {
			q += n;
			continue;
		}
		n = lg_utf8_sequence_length(q);
		q += n ? n : 1;
		end = q;
	}
	memmove(s, p, (size_t)(end - p));
	s[end - p] = '\0';
	return s;
}

size_t lg_utf8_sequence_length(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0; /* overlong */
		if (c == 0xed && s[1] >= 0xa0)
			return 0; /* surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0; /* overlong */
		if (c == 0xf4 && s[1] >= 0x90)
			return 0; /* above U+10FFFF */
		return 4;
	}
	return 0;
}

void lg_copy_string(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n > size - 1)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}
