#define _GNU_SOURCE
#include "pattern.h"

#include <errno.h>
#include <string.h>

#define UNIT 4096u

const char *lg_pattern_name(enum lg_pattern pattern)
{
	switch (pattern) {
	case LG_PATTERN_COMPRESSIBLE:
		return "compressible";
	case LG_PATTERN_INCOMPRESSIBLE:
		return "incompressible";
	case LG_PATTERN_UNSPECIFIED:
		break;
	}
	return "unspecified";
}

int lg_pattern_parse(const char *name, enum lg_pattern *ret_pattern)
{
	if (strcmp(name, "compressible") == 0) {
		*ret_pattern = LG_PATTERN_COMPRESSIBLE;
		return 0;
	}
	if (strcmp(name, "incompressible") == 0) {
		*ret_pattern = LG_PATTERN_INCOMPRESSIBLE;
		return 0;
	}
	return -EINVAL;
}

void lg_pattern_init(enum lg_pattern pattern, void *buf, size_t len)
{
	(void)pattern;
	memset(buf, 0, len);
}

void lg_pattern_fill(enum lg_pattern pattern, struct lg_rng *rng, void *buf, size_t len)
{
	unsigned char *p = buf;

	switch (pattern) {
	case LG_PATTERN_INCOMPRESSIBLE:
		lg_rng_fill(rng, buf, len);
		return;
	case LG_PATTERN_COMPRESSIBLE:
		if (len < UNIT) {
			lg_rng_fill(rng, p, len / 2);
			return;
		}
		for (size_t off = 0; off + UNIT <= len; off += UNIT)
			lg_rng_fill(rng, p + off, UNIT / 2);
		return;
	case LG_PATTERN_UNSPECIFIED:
		break;
	}
}
