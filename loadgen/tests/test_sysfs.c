#define _GNU_SOURCE
/* sysfs: attributes read from a directory laid out as sysfs lays them out
 * (trimmed, NUL padding, empty, missing, numbers), device numbers, and the
 * directories of a real block device when the machine has one. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sysfs.h"
#include "test_common.h"

static char dir[] = "/tmp/loadgen-test-sysfs-XXXXXX";

static void put(const char *name, const void *data, size_t len)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, data, len) == (ssize_t)len);
	if (fd >= 0)
		close(fd);
}

static void test_attributes(void)
{
	char buf[64];
	uint64_t v;

	put("model", "Samsung SSD 860  \n", 18);
	put("vendor", "ATA\0\0\0\0\0", 8);
	put("empty", "  \n", 3);
	put("size", "468862128\n", 10);
	put("bad", "12x\n", 4);
	CHECK(lg_sysfs_attr(dir, "model", buf, sizeof(buf)) == 0 &&
	      strcmp(buf, "Samsung SSD 860") == 0);
	CHECK(lg_sysfs_attr(dir, "vendor", buf, sizeof(buf)) == 0 && strcmp(buf, "ATA") == 0);
	CHECK(lg_sysfs_attr(dir, "empty", buf, sizeof(buf)) == -ENODATA);
	CHECK(lg_sysfs_attr(dir, "missing", buf, sizeof(buf)) == -ENOENT);
	CHECK(lg_sysfs_attr(dir, "model", buf, 8) == 0 &&
	      strcmp(buf, "Samsung") == 0); /* truncated */
	CHECK(lg_sysfs_attr_u64(dir, "size", &v) == 0 && v == UINT64_C(468862128));
	CHECK(lg_sysfs_attr_u64(dir, "bad", &v) == -EINVAL);
	CHECK(lg_sysfs_attr_u64(dir, "model", &v) == -EINVAL);
	CHECK(lg_sysfs_is_partition(dir) == false);
	put("partition", "1\n", 2);
	CHECK(lg_sysfs_is_partition(dir) == true);

	char path[8];

	CHECK(lg_sysfs_path(path, sizeof(path), "%s", "1234567") == 0);
	CHECK(lg_sysfs_path(path, sizeof(path), "%s", "12345678") == -ENAMETOOLONG);
}

static void test_devnum(void)
{
	dev_t d;

	CHECK(lg_sysfs_parse_devnum("8:16", &d) == 0 && d == makedev(8, 16));
	CHECK(lg_sysfs_parse_devnum("259:0\n", &d) == -EINVAL); /* trimmed before */
	CHECK(lg_sysfs_parse_devnum("8:", &d) == -EINVAL);
	CHECK(lg_sysfs_parse_devnum("x:1", &d) == -EINVAL);
	CHECK(lg_sysfs_parse_devnum("8:1 ", &d) == -EINVAL);
}

/* The disk of the filesystem this test runs on, when it is a block device. */
static void test_real_device(void)
{
	struct stat st;
	char bdir[PATH_MAX], disk[PATH_MAX];

	if (stat(".", &st) < 0 || major(st.st_dev) == 0 ||
	    lg_sysfs_block_dir(st.st_dev, bdir, sizeof(bdir)) < 0) {
		printf("sysfs: no block device under the working directory; real-device case skipped\n");
		return;
	}
	CHECK(strncmp(bdir, "/sys/devices/", 13) == 0);
	CHECK(lg_sysfs_whole_disk_dir(bdir, disk, sizeof(disk)) == 0);
	CHECK(!lg_sysfs_is_partition(disk));
	CHECK(lg_sysfs_whole_disk_dir(bdir, disk, 4) == -ENAMETOOLONG);
}

int main(void)
{
	char path[PATH_MAX];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_attributes();
	test_devnum();
	test_real_device();
	for (const char *const *n = (const char *const[]){"model", "vendor", "empty", "size", "bad",
							  "partition", NULL};
	     *n; n++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *n);
		unlink(path);
	}
	rmdir(dir);
	return test_result("sysfs");
}
