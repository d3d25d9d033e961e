#define _GNU_SOURCE
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

int lg_parse_u64(const char *text, uint64_t *ret_value)
{
	char *end;
	unsigned long long v;

	if (!text || !isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*ret_value = v;
	return 0;
}

int lg_parse_size(const char *text, uint64_t *ret_bytes)
{
	static const struct {
		const char *suffix;
		unsigned shift;
	} suffixes[] = {
		{"", 0},    {"b", 0},    {"k", 10},   {"kib", 10}, {"kb", 10},
		{"m", 20},  {"mib", 20}, {"mb", 20},  {"g", 30},   {"gib", 30},
		{"gb", 30}, {"t", 40},   {"tib", 40}, {"tb", 40},
	};
	char *end;
	unsigned long long v;

	if (!text || !isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if (strcasecmp(end, suffixes[i].suffix) != 0)
			continue;
		unsigned shift = suffixes[i].shift;

		if (shift && v > (UINT64_MAX >> shift))
			return -ERANGE;
		*ret_bytes = (uint64_t)v << shift;
		return 0;
	}
	return -EINVAL;
}

int lg_parse_positive_double(const char *text, double *ret_value)
{
	char *end;
	double v;

	if (!text || !*text)
		return -EINVAL;
	errno = 0;
	v = strtod(text, &end);
	if (errno || *end || !isfinite(v) || v <= 0)
		return -EINVAL;
	*ret_value = v;
	return 0;
}

int lg_format_size_id(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = {'t', 'g', 'm', 'k'};
	static const unsigned shifts[] = {40, 30, 20, 10};
	int n = -1;

	for (size_t i = 0; i < sizeof(units); i++) {
		uint64_t unit = UINT64_C(1) << shifts[i];

		if (bytes >= unit && bytes % unit == 0) {
			n = snprintf(buf, len, "%" PRIu64 "%c", bytes / unit, units[i]);
			break;
		}
	}
	if (n < 0)
		n = snprintf(buf, len, "%" PRIu64, bytes);
	return (n < 0 || (size_t)n >= len) ? -ENOSPC : 0;
}

void lg_format_size_human(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)bytes;
	int u = -1;

	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
}

void lg_format_rfc3339(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	time_t t = ts->tv_sec;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
