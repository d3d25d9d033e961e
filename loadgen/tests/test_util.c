#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "test_common.h"
#include "util.h"

static uint64_t size_of(const char *s, int *ret)
{
	uint64_t v = 0;

	*ret = lg_parse_size(s, &v);
	return v;
}

int main(void)
{
	int r;
	char buf[32];

	CHECK(size_of("4096", &r) == 4096 && r == 0);
	CHECK(size_of("4k", &r) == 4096 && r == 0);
	CHECK(size_of("4K", &r) == 4096 && r == 0);
	CHECK(size_of("4KiB", &r) == 4096 && r == 0);
	CHECK(size_of("128k", &r) == 131072 && r == 0);
	CHECK(size_of("2M", &r) == 2097152 && r == 0);
	CHECK(size_of("2MiB", &r) == 2097152 && r == 0);
	CHECK(size_of("8G", &r) == UINT64_C(8589934592) && r == 0);
	CHECK(size_of("8gib", &r) == UINT64_C(8589934592) && r == 0);
	CHECK(size_of("1T", &r) == UINT64_C(1099511627776) && r == 0);
	size_of("", &r);
	CHECK(r == -EINVAL);
	size_of("4x", &r);
	CHECK(r == -EINVAL);
	size_of("-4k", &r);
	CHECK(r == -EINVAL);
	size_of("k", &r);
	CHECK(r == -EINVAL);
	size_of("99999999999T", &r);
	CHECK(r == -ERANGE);
	size_of("99999999999999999999999", &r);
	CHECK(r == -ERANGE);

	uint64_t v;

	CHECK(lg_parse_u64("32", &v) == 0 && v == 32);
	CHECK(lg_parse_u64("3 2", &v) == -EINVAL);
	CHECK(lg_parse_u64("+3", &v) == -EINVAL);

	double d;

	CHECK(lg_parse_positive_double("0.5", &d) == 0 && d == 0.5);
	CHECK(lg_parse_positive_double("0", &d) == -EINVAL);
	CHECK(lg_parse_positive_double("nan", &d) == -EINVAL);
	CHECK(lg_parse_positive_double("1e400", &d) == -EINVAL);

	CHECK(lg_format_size_id(4096, buf, sizeof(buf)) == 0 && strcmp(buf, "4k") == 0);
	CHECK(lg_format_size_id(131072, buf, sizeof(buf)) == 0 && strcmp(buf, "128k") == 0);
	CHECK(lg_format_size_id(2097152, buf, sizeof(buf)) == 0 && strcmp(buf, "2m") == 0);
	CHECK(lg_format_size_id(UINT64_C(8589934592), buf, sizeof(buf)) == 0 &&
	      strcmp(buf, "8g") == 0);
	CHECK(lg_format_size_id(512, buf, sizeof(buf)) == 0 && strcmp(buf, "512") == 0);
	CHECK(lg_format_size_id(6144, buf, sizeof(buf)) == 0 && strcmp(buf, "6k") == 0);
	CHECK(lg_format_size_id(4096, buf, 2) == -ENOSPC);

	lg_format_size_human(512, buf, sizeof(buf));
	CHECK(strcmp(buf, "512 B") == 0);
	lg_format_size_human(UINT64_C(8589934592), buf, sizeof(buf));
	CHECK(strcmp(buf, "8.0 GiB") == 0);

	struct timespec ts = {.tv_sec = 1700000000, .tv_nsec = 5};

	lg_format_rfc3339(&ts, buf, sizeof(buf));
	CHECKF(strcmp(buf, "2023-11-14T22:13:20Z") == 0, "%s", buf);

	uint64_t a = lg_now_ns(), b = lg_now_ns();

	CHECK(b >= a);
	return test_result("util");
}
