#define _GNU_SOURCE
#include "sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "text.h"

int lg_sysfs_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

ssize_t lg_sysfs_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t total = 0;
	ssize_t r = 0;

	if (fd < 0)
		return -errno;
	while (total < size - 1) {
		r = read(fd, buf + total, size - 1 - total);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (r == 0)
			break;
		total += (size_t)r;
	}
	close(fd);
	if (r < 0)
		return r;
	buf[total] = '\0';
	return (ssize_t)total;
}

int lg_sysfs_attr(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	ssize_t n;
	int r = lg_sysfs_path(path, sizeof(path), "%s/%s", dir, name);

	if (r < 0)
		return r;
	n = lg_sysfs_read_file(path, tmp, sizeof(tmp));
	if (n < 0)
		return (int)n;
	lg_trim(tmp); /* stops at the first NUL of a padded value */
	if (tmp[0] == '\0')
		return -ENODATA;
	lg_copy_string(buf, size, tmp);
	return 0;
}

int lg_sysfs_attr_u64(const char *dir, const char *name, uint64_t *ret_value)
{
	char buf[64], *end;
	unsigned long long v;
	int r = lg_sysfs_attr(dir, name, buf, sizeof(buf));

	if (r < 0)
		return r;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno != 0 || end == buf || *end != '\0')
		return -EINVAL;
	*ret_value = v;
	return 0;
}

int lg_sysfs_parse_devnum(const char *s, dev_t *ret_dev)
{
	unsigned int maj, min;
	char tail;

	if (sscanf(s, "%u:%u%c", &maj, &min, &tail) != 2)
		return -EINVAL;
	*ret_dev = makedev(maj, min);
	return 0;
}

/* realpath() of path into ret (size bytes). */
static int resolve(const char *path, char *ret, size_t size)
{
	char resolved[PATH_MAX];

	if (!realpath(path, resolved))
		return -errno;
	if (strlen(resolved) >= size)
		return -ENAMETOOLONG;
	lg_copy_string(ret, size, resolved);
	return 0;
}

int lg_sysfs_block_dir(dev_t dev, char *ret_dir, size_t size)
{
	char link[64];
	int r = lg_sysfs_path(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));

	return r < 0 ? r : resolve(link, ret_dir, size);
}

bool lg_sysfs_is_partition(const char *dir)
{
	char path[PATH_MAX];

	return lg_sysfs_path(path, sizeof(path), "%s/partition", dir) == 0 &&
	       access(path, F_OK) == 0;
}

int lg_sysfs_whole_disk_dir(const char *dir, char *ret_dir, size_t size)
{
	char parent[PATH_MAX];
	int r;

	if (!lg_sysfs_is_partition(dir)) {
		if (strlen(dir) >= size)
			return -ENAMETOOLONG;
		lg_copy_string(ret_dir, size, dir);
		return 0;
	}
	r = lg_sysfs_path(parent, sizeof(parent), "%s/..", dir);
	return r < 0 ? r : resolve(parent, ret_dir, size);
}
