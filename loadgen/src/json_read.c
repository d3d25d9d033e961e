/* json_read: parse JSON into a tree; look members up. See json_read.h. */
#include "json_read.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

struct reader {
	const char *p, *end;
	int depth;
};

static void skip_space(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static bool literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
		return false;
	r->p += n;
	return true;
}

static int hex4(struct reader *r, unsigned *ret)
{
	unsigned v = 0;
	if (r->end - r->p < 4)
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		char c = *r->p++;
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v |= (unsigned)((c | 0x20) - 'a' + 10);
		else
			return -EINVAL;
	}
	*ret = v;
	return 0;
}

static size_t utf8(unsigned cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at r->p (after its opening quote), unescaped into a new buffer. */
static int string(struct reader *r, char **ret)
{
	/* Escapes never make text longer than it is written. */
	char *out = malloc((size_t)(r->end - r->p) + 1);
	size_t n = 0;
	if (!out)
		return -ENOMEM;
	while (r->p < r->end && *r->p != '"') {
		unsigned char c = (unsigned char)*r->p++;
		if (c < 0x20)
			goto bad;
		if (c != '\\') {
			out[n++] = (char)c;
			continue;
		}
		if (r->p >= r->end)
			goto bad;
		char e = *r->p++;
		const char *plain = strchr("\"\\/bfnrt", e);
		if (e && plain) {
			out[n++] = "\"\\/\b\f\n\r\t"[plain - "\"\\/bfnrt"];
			continue;
		}
		unsigned cp, low;
		if (e != 'u' || hex4(r, &cp) < 0)
			goto bad;
		if (cp >= 0xdc00 && cp <= 0xdfff)
			goto bad;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (!literal(r, "\\u") || hex4(r, &low) < 0 || low < 0xdc00 || low > 0xdfff)
				goto bad;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
		}
		n += utf8(cp, out + n);
	}
	if (r->p >= r->end)
		goto bad;
	r->p++; /* the closing quote */
	out[n] = '\0';
	*ret = out;
	return 0;
bad:
	free(out);
	return -EINVAL;
}

static void free_node(struct lg_jnode *node)
{
	for (size_t i = 0; i < node->count; i++)
		free_node(&node->children[i]);
	free(node->children);
	free(node->key);
	free(node->text);
}

static int value(struct reader *r, struct lg_jnode *node);

/* The items of an array or members of an object, r->p after its opening bracket. */
static int container(struct reader *r, struct lg_jnode *node, char close)
{
	size_t cap = 0;
	skip_space(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		if (node->count == cap) {
			size_t ncap = cap ? 2 * cap : 4;
			struct lg_jnode *grown = realloc(node->children, ncap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			node->children = grown;
			cap = ncap;
		}
		struct lg_jnode *child = &node->children[node->count];
		memset(child, 0, sizeof(*child));
		node->count++;
		skip_space(r);
		if (close == '}') {
			int e;
			if (r->p >= r->end || *r->p++ != '"')
				return -EINVAL;
			if ((e = string(r, &child->key)) < 0)
				return e;
			skip_space(r);
			if (r->p >= r->end || *r->p++ != ':')
				return -EINVAL;
		}
		int e = value(r, child);
		if (e < 0)
			return e;
		skip_space(r);
		if (r->p >= r->end)
			return -EINVAL;
		char c = *r->p++;
		if (c == close)
			return 0;
		if (c != ',')
			return -EINVAL;
	}
}

static int value(struct reader *r, struct lg_jnode *node)
{
	skip_space(r);
	if (r->p >= r->end)
		return -EINVAL;
	char c = *r->p;
	if (c == '{' || c == '[') {
		if (++r->depth > MAX_DEPTH)
			return -EINVAL;
		r->p++;
		node->type = c == '{' ? LG_JOBJECT : LG_JARRAY;
		int e = container(r, node, c == '{' ? '}' : ']');
		r->depth--;
		return e;
	}
	if (c == '"') {
		r->p++;
		node->type = LG_JSTRING;
		return string(r, &node->text);
	}
	if (literal(r, "true") || literal(r, "false")) {
		node->type = LG_JBOOL;
		node->boolean = r->p[-1] == 'e' && r->p[-2] == 'u';
		return 0;
	}
	if (literal(r, "null")) {
		node->type = LG_JNULL;
		return 0;
	}
	/* A number: the JSON grammar, then strtod on a terminated copy. */
	const char *start = r->p;
	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p >= r->end || *r->p < '0' || *r->p > '9')
		return -EINVAL;
	if (*r->p == '0')
		r->p++;
	else
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		if (r->p >= r->end || *r->p < '0' || *r->p > '9')
			return -EINVAL;
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	}
	if (r->p < r->end && (*r->p | 0x20) == 'e') {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (r->p >= r->end || *r->p < '0' || *r->p > '9')
			return -EINVAL;
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	}
	char digits[64];
	size_t n = (size_t)(r->p - start);
	if (n >= sizeof(digits))
		n = sizeof(digits) - 1; /* beyond a double's precision anyway */
	memcpy(digits, start, n);
	digits[n] = '\0';
	node->type = LG_JNUMBER;
	node->number = strtod(digits, NULL);
	return 0;
}

int lg_jread_parse(const char *text, size_t len, struct lg_jnode **ret_root)
{
	struct reader r = {.p = text, .end = text + len};
	struct lg_jnode *root = calloc(1, sizeof(*root));
	if (!text || !ret_root)
		return free(root), -EINVAL;
	if (!root)
		return -ENOMEM;
	int e = value(&r, root);
	skip_space(&r);
	if (e == 0 && r.p != r.end)
		e = -EINVAL;
	if (e < 0) {
		lg_jread_free(root);
		return e;
	}
	*ret_root = root;
	return 0;
}

void lg_jread_free(struct lg_jnode *root)
{
	if (!root)
		return;
	free_node(root);
	free(root);
}

const struct lg_jnode *lg_jread_get(const struct lg_jnode *node, const char *path)
{
	while (node && path && *path) {
		size_t len = strcspn(path, ".");
		const struct lg_jnode *found = NULL;
		for (size_t i = 0; node->type == LG_JOBJECT && i < node->count && !found; i++)
			if (strlen(node->children[i].key) == len &&
			    memcmp(node->children[i].key, path, len) == 0)
				found = &node->children[i];
		node = found;
		path += len + (path[len] == '.');
	}
	return node;
}

const char *lg_jread_string(const struct lg_jnode *node, const char *path)
{
	const struct lg_jnode *found = lg_jread_get(node, path);
	return found && found->type == LG_JSTRING ? found->text : NULL;
}

bool lg_jread_number(const struct lg_jnode *node, const char *path, double *ret_value)
{
	const struct lg_jnode *found = lg_jread_get(node, path);
	if (!found || found->type != LG_JNUMBER)
		return false;
	*ret_value = found->number;
	return true;
}
