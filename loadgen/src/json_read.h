/* json_read: a small JSON reader for the few answers loadgen reads (the site's upload
 * response, a drive's figures for run --compare): the text parsed into a tree, then
 * members looked up by path. Strict RFC 8259 (no trailing commas, no comments); strings
 * unescaped to UTF-8 (\u escapes, surrogate pairs joined; a lone surrogate is an error);
 * numbers kept as doubles.
 *
 * Ownership: lg_jread_parse() returns a tree the caller frees with lg_jread_free();
 * every node and string returned by a lookup belongs to that tree.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum lg_jtype { LG_JNULL, LG_JBOOL, LG_JNUMBER, LG_JSTRING, LG_JARRAY, LG_JOBJECT };

struct lg_jnode {
	enum lg_jtype type;
	char *key;  /* the member's name inside an object; NULL in an array or at the top */
	char *text; /* a string's value */
	double number;
	bool boolean;
	struct lg_jnode *children; /* an array's items, an object's members, in order */
	size_t count;
};

/* Parse len bytes of text. Returns 0 and *ret_root, or -EINVAL (not JSON, or nested
 * deeper than 64), -ENOMEM. */
int lg_jread_parse(const char *text, size_t len, struct lg_jnode **ret_root);

/* Free a tree; NULL is fine. */
void lg_jread_free(struct lg_jnode *root);

/* The member at a dotted path of object keys ("run.page"), NULL when absent. */
const struct lg_jnode *lg_jread_get(const struct lg_jnode *node, const char *path);

/* The string at path, NULL when absent or not a string. */
const char *lg_jread_string(const struct lg_jnode *node, const char *path);

/* The number at path into *ret_value: true, or false (untouched) when absent, null or
 * not a number. */
bool lg_jread_number(const struct lg_jnode *node, const char *path, double *ret_value);
