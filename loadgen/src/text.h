/* text: the one place that trims text and reads UTF-8, for the command line,
 * sysfs attributes, /etc/os-release and the JSON writer.
 *
 * Ownership: nothing is allocated; strings belong to the caller.
 */
#pragma once

#include <stddef.h>

/* Strip leading and trailing whitespace from s in place: ASCII whitespace and
 * the Unicode spaces that a JSON Schema "\\S" (ECMA-262) does not match either,
 * so that a value of spaces alone ends up empty. The text is moved to the start
 * of s; returns s. */
char *lg_trim(char *s);

/* Byte length of the whitespace character at s (ASCII or a Unicode space as
 * above), 0 when s does not start with one. */
size_t lg_space_length(const char *s);

/* Length of the valid UTF-8 sequence starting at s (1-4), or 0 when invalid
 * (bad lead byte, truncated, overlong, surrogate or above U+10FFFF); s[0] != 0. */
size_t lg_utf8_sequence_length(const char *s);

/* Copy src into dst of size bytes (> 0), truncating; dst is always terminated. */
void lg_copy_string(char *dst, size_t size, const char *src);
