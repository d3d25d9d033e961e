#define _GNU_SOURCE
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

void lg_json_init(struct lg_json *w, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->pretty = pretty;
}

void lg_json_fini(struct lg_json *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

int lg_json_error(const struct lg_json *w)
{
	if (w->error)
		return w->error;
	if (w->depth != 0 || w->after_key)
		return -EINVAL;
	return 0;
}

const char *lg_json_text(const struct lg_json *w, size_t *ret_len)
{
	if (ret_len)
		*ret_len = w->len;
	return w->buf ? w->buf : "";
}

static void put(struct lg_json *w, const char *s, size_t n)
{
	if (w->error)
		return;
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;

		while (w->len + n + 1 > cap)
			cap *= 2;
		char *nb = realloc(w->buf, cap);

		if (!nb) {
			w->error = -ENOMEM;
			return;
		}
		w->buf = nb;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static void puts_(struct lg_json *w, const char *s)
{
	put(w, s, strlen(s));
}

static void newline_indent(struct lg_json *w)
{
	if (!w->pretty)
		return;
	put(w, "\n", 1);
	for (int i = 0; i < w->depth; i++)
		put(w, "  ", 2);
}

/* Everything a value needs before it: a comma and indentation inside arrays,
 * nothing right after a key; a value where a key is needed is misuse. */
static bool before_value(struct lg_json *w)
{
	if (w->error)
		return false;
	if (w->after_key) {
		w->after_key = false;
		return true;
	}
	if (w->depth > 0 && w->container[w->depth - 1] == '{') {
		w->error = -EINVAL;
		return false;
	}
	if (w->depth > 0) {
		if (w->need_comma[w->depth - 1])
			put(w, ",", 1);
		w->need_comma[w->depth - 1] = true;
		newline_indent(w);
	} else if (w->len > 0) {
		w->error = -EINVAL; /* a second top-level value */
		return false;
	}
	return true;
}

static void begin(struct lg_json *w, char open)
{
	if (!before_value(w))
		return;
	if (w->depth >= LG_JSON_MAX_DEPTH) {
		w->error = -EINVAL;
		return;
	}
	put(w, &open, 1);
	w->container[w->depth] = open;
	w->need_comma[w->depth] = false;
	w->depth++;
}

static void end(struct lg_json *w, char open, char close)
{
	if (w->error)
		return;
	if (w->depth == 0 || w->container[w->depth - 1] != open || w->after_key) {
		w->error = -EINVAL;
		return;
	}
	bool had_members = w->need_comma[w->depth - 1];

	w->depth--;
	if (had_members)
		newline_indent(w);
	put(w, &close, 1);
}

void lg_json_begin_object(struct lg_json *w)
{
	begin(w, '{');
}

void lg_json_end_object(struct lg_json *w)
{
	end(w, '{', '}');
}

void lg_json_begin_array(struct lg_json *w)
{
	begin(w, '[');
}

void lg_json_end_array(struct lg_json *w)
{
	end(w, '[', ']');
}

void lg_json_key(struct lg_json *w, const char *key)
{
	if (w->error)
		return;
	if (w->depth == 0 || w->container[w->depth - 1] != '{' || w->after_key) {
		w->error = -EINVAL;
		return;
	}
	if (w->need_comma[w->depth - 1])
		put(w, ",", 1);
	w->need_comma[w->depth - 1] = true;
	newline_indent(w);
	lg_json_escape(w, key);
	put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
	w->after_key = true;
}

void lg_json_escape(struct lg_json *w, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	char esc[8];

	put(w, "\"", 1);
	while (*s) {
		const unsigned char *run = s;

		/* Copy the longest run of bytes that need no escaping at once. */
		while (*s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\')
			s++;
		if (s > run)
			put(w, (const char *)run, (size_t)(s - run));
		if (!*s)
			break;
		switch (*s) {
		case '"':
			puts_(w, "\\\"");
			s++;
			continue;
		case '\\':
			puts_(w, "\\\\");
			s++;
			continue;
		case '\b':
			puts_(w, "\\b");
			s++;
			continue;
		case '\f':
			puts_(w, "\\f");
			s++;
			continue;
		case '\n':
			puts_(w, "\\n");
			s++;
			continue;
		case '\r':
			puts_(w, "\\r");
			s++;
			continue;
		case '\t':
			puts_(w, "\\t");
			s++;
			continue;
		default:
			break;
		}
		if (*s < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", *s);
			puts_(w, esc);
			s++;
			continue;
		}
		size_t n = lg_utf8_sequence_length((const char *)s);

		if (n == 0) {
			puts_(w, "\xef\xbf\xbd"); /* U+FFFD REPLACEMENT CHARACTER */
			s++;
			continue;
		}
		put(w, (const char *)s, n);
		s += n;
	}
	put(w, "\"", 1);
}

void lg_json_string(struct lg_json *w, const char *s)
{
	if (before_value(w))
		lg_json_escape(w, s ? s : "");
}

void lg_json_uint(struct lg_json *w, uint64_t v)
{
	char num[32];

	if (!before_value(w))
		return;
	snprintf(num, sizeof(num), "%" PRIu64, v);
	puts_(w, num);
}

void lg_json_int(struct lg_json *w, int64_t v)
{
	char num[32];

	if (!before_value(w))
		return;
	snprintf(num, sizeof(num), "%" PRId64, v);
	puts_(w, num);
}

void lg_json_bool(struct lg_json *w, bool v)
{
	if (before_value(w))
		puts_(w, v ? "true" : "false");
}

void lg_json_null(struct lg_json *w)
{
	if (before_value(w))
		puts_(w, "null");
}

void lg_json_double(struct lg_json *w, double v, int decimals)
{
	char num[64];

	if (!before_value(w))
		return;
	if (!isfinite(v)) {
		puts_(w, "null");
		return;
	}
	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	if (fabs(v) >= 1e15) {
		snprintf(num, sizeof(num), "%.17g", v);
		puts_(w, num);
		return;
	}
	snprintf(num, sizeof(num), "%.*f", decimals, v);
	if (strchr(num, '.')) {
		size_t n = strlen(num);

		while (n > 0 && num[n - 1] == '0')
			num[--n] = '\0';
		if (n > 0 && num[n - 1] == '.')
			num[--n] = '\0';
	}
	if (strcmp(num, "-0") == 0)
		strcpy(num, "0");
	puts_(w, num);
}

void lg_json_number(struct lg_json *w, double v)
{
	char num[64];

	if (!before_value(w))
		return;
	if (!isfinite(v)) {
		puts_(w, "null");
		return;
	}
	/* A whole number as one; else the fewest significant digits that read back as v. */
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(num, sizeof(num), "%.0f", v);
		puts_(w, strcmp(num, "-0") == 0 ? "0" : num);
		return;
	}
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(num, sizeof(num), "%.*g", digits, v);
		if (strtod(num, NULL) == v)
			break;
	}
	puts_(w, num);
}

void lg_json_raw(struct lg_json *w, const char *json)
{
	if (before_value(w))
		puts_(w, json);
}
