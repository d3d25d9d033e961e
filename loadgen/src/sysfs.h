/* sysfs: reading what the kernel says of block devices in sysfs, shared by the
 * target probe and the safety checks' fact gathering.
 *
 * Ownership: nothing is allocated; buffers belong to the caller.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* snprintf into a path buffer; truncation is -ENAMETOOLONG. Returns 0 or -errno. */
int lg_sysfs_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Read up to size-1 bytes of a file into buf, terminated. Returns the byte
 * count read, or -errno. */
ssize_t lg_sysfs_read_file(const char *path, char *buf, size_t size);

/* The attribute dir/name as a trimmed string (up to the first NUL: vendor
 * strings may be padded with them). Returns 0 or -errno (-ENOENT when it does
 * not exist, -ENODATA when it is empty). */
int lg_sysfs_attr(const char *dir, const char *name, char *buf, size_t size);

/* The attribute dir/name as a decimal integer. Returns 0, -errno or -EINVAL. */
int lg_sysfs_attr_u64(const char *dir, const char *name, uint64_t *ret_value);

/* Parse "MAJ:MIN" as sysfs dev files and mountinfo write it. Returns 0 or -EINVAL. */
int lg_sysfs_parse_devnum(const char *s, dev_t *ret_dev);

/* The sysfs directory of a block device number (/sys/dev/block/MAJ:MIN resolved). */
int lg_sysfs_block_dir(dev_t dev, char *ret_dir, size_t size);

/* Whether the sysfs directory dir is a partition's. */
bool lg_sysfs_is_partition(const char *dir);

/* The directory of the whole disk of dir: dir itself, or its parent for a partition. */
int lg_sysfs_whole_disk_dir(const char *dir, char *ret_dir, size_t size);
