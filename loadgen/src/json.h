/* json: a small streaming JSON writer into a growable memory buffer, with
 * correct string escaping (RFC 8259: quote, backslash and every control
 * character escaped; invalid UTF-8 replaced by U+FFFD so the output is always
 * valid) and pretty printing with two-space indentation.
 *
 * Usage: lg_json_init(), then begin/end object and array calls with keys and
 * values in between (the writer inserts commas and newlines), then take the text
 * with lg_json_text(). Errors (out of memory, nesting mistakes) are sticky:
 * the calls become no-ops and lg_json_error() tells the first one.
 *
 * Ownership: struct lg_json owns its buffer; lg_json_fini() frees it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LG_JSON_MAX_DEPTH 32

struct lg_json {
	char *buf;
	size_t len, cap;
	int error; /* 0 or the first -errno */
	int depth;
	bool pretty;
	bool need_comma[LG_JSON_MAX_DEPTH];
	bool after_key;
	char container[LG_JSON_MAX_DEPTH]; /* '{' or '[' */
};

/* Start an empty writer; pretty selects indentation and newlines. */
void lg_json_init(struct lg_json *w, bool pretty);

/* Free the buffer; the writer may be initialized again. */
void lg_json_fini(struct lg_json *w);

/* 0, or the first error (-ENOMEM, -EINVAL for misuse such as a value where a key
 * is needed or an unbalanced end). */
int lg_json_error(const struct lg_json *w);

/* The text so far, NUL-terminated (owned by the writer); *ret_len its length. */
const char *lg_json_text(const struct lg_json *w, size_t *ret_len);

void lg_json_begin_object(struct lg_json *w);
void lg_json_end_object(struct lg_json *w);
void lg_json_begin_array(struct lg_json *w);
void lg_json_end_array(struct lg_json *w);

/* A member name inside an object; the next call writes its value. */
void lg_json_key(struct lg_json *w, const char *key);

void lg_json_string(struct lg_json *w, const char *s);
void lg_json_uint(struct lg_json *w, uint64_t v);
void lg_json_int(struct lg_json *w, int64_t v);
void lg_json_bool(struct lg_json *w, bool v);
void lg_json_null(struct lg_json *w);
/* A number with `decimals` digits after the point, trailing zeros removed;
 * NaN and infinities (not representable in JSON) are written as null. */
void lg_json_double(struct lg_json *w, double v, int decimals);
/* A number in the fewest significant digits that read back (strtod) as exactly v:
 * a setting, which must survive being written and read again. */
void lg_json_number(struct lg_json *w, double v);
/* A value already written as JSON (the caller's text is trusted, not checked). */
void lg_json_raw(struct lg_json *w, const char *json);

/* Append s escaped as a JSON string (with quotes) to w; exposed for tests.
 * Invalid UTF-8 is written as U+FFFD. */
void lg_json_escape(struct lg_json *w, const char *s);
