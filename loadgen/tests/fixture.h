/* The tests' fixtures (fixtures/): captured device pages for the parser tests, stored as
 * hex text (written by the VM test: vm/ident_in_vm.py --capture), and answers captured from
 * the site, as text. */
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* dir/name opened for reading; NULL (and why, on stderr) when it cannot be. */
static inline FILE *fixture_open(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		perror(path);
	return f;
}

/* Read dir/name, a text, into out (up to size - 1 bytes, then a NUL). Returns its length,
 * or -1 when the file cannot be read or does not fit. */
static inline long fixture_text(const char *dir, const char *name, char *out, size_t size)
{
	FILE *f = fixture_open(dir, name);
	if (!f)
		return -1;
	size_t n = fread(out, 1, size - 1, f);
	fclose(f);
	out[n] = '\0';
	return n < size - 1 ? (long)n : -1;
}

/* Read dir/name, hex digits with any white space between them, into out (up to size
 * bytes). Returns the byte count, or -1 when the file cannot be read or is not hex. */
static inline long fixture_read(const char *dir, const char *name, uint8_t *out, size_t size)
{
	FILE *f = fixture_open(dir, name);
	if (!f)
		return -1;
	long n = 0;
	int c, high = -1;
	while ((c = fgetc(f)) != EOF) {
		const char *digits = "0123456789abcdef", *at;
		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if (!(at = strchr(digits, c | 0x20)) || c == 0 || (size_t)n >= size) {
			fclose(f);
			return -1;
		}
		if (high < 0) {
			high = (int)(at - digits);
		} else {
			out[n++] = (uint8_t)(high << 4 | (int)(at - digits));
			high = -1;
		}
	}
	fclose(f);
	return high < 0 ? n : -1;
}
