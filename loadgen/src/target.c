/* target: probing a file or block device, the safety checks before writing to it,
 * opening it and discarding ranges of it. See target.h for the contract. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Marks a file that loadgen created, so that a later run may overwrite it. */
#define LG_CREATED_XATTR "user.loadgen.created"

/* Bytes read from the start of a device to look for signatures: enough for the btrfs
 * superblock at 64 KiB + 64 and a swap signature on pages up to 64 KiB. */
#define LG_SIGNATURE_BYTES (128 * 1024)

const char *lg_target_refusal_name(enum lg_target_refusal refusal)
{
	switch (refusal) {
	case LG_REFUSE_NONE:
		return "none";
	case LG_REFUSE_NO_CONFIRM:
		return "no-confirm";
	case LG_REFUSE_CONFIRM_MISMATCH:
		return "confirm-mismatch";
	case LG_REFUSE_MOUNTED:
		return "mounted";
	case LG_REFUSE_PARTITION_MOUNTED:
		return "partition-mounted";
	case LG_REFUSE_HOLDERS:
		return "holders";
	case LG_REFUSE_SWAP:
		return "swap";
	case LG_REFUSE_BUSY:
		return "busy";
	case LG_REFUSE_EXISTING_FILE:
		return "existing-file";
	case LG_REFUSE_NOT_SUPPORTED:
		return "not-supported";
	}
	return "unknown";
}

/* ---- small helpers ------------------------------------------------------------ */

/* snprintf that reports truncation as -ENAMETOOLONG. */
static int format_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int format_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* Copy src into dst (size bytes), truncating; dst is always terminated. */
static void copy_string(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);
	if (n > size - 1)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Trim leading and trailing whitespace in place. */
static void trim(char *s)
{
	size_t start = 0, len = strlen(s);
	while (start < len && (s[start] == ' ' || s[start] == '\t' || s[start] == '\n' ||
	                       s[start] == '\r'))
		start++;
	while (len > start && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' ||
	                       s[len - 1] == '\r' || s[len - 1] == '\0'))
		len--;
	memmove(s, s + start, len - start);
	s[len - start] = '\0';
}

/* Read up to size-1 bytes of a file into buf, terminated. Returns the byte count
 * read, or -errno. */
static ssize_t read_file_bytes(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t total = 0;
	ssize_t r = 0;
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

/* Read the sysfs attribute dir/name as a trimmed string. Returns 0 or -errno
 * (-ENOENT when the attribute does not exist, -ENODATA when it is empty). */
static int read_attr(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	int r = format_path(path, sizeof(path), "%s/%s", dir, name);
	if (r < 0)
		return r;
	char tmp[PATH_MAX];
	ssize_t n = read_file_bytes(path, tmp, sizeof(tmp));
	if (n < 0)
		return (int)n;
	/* Values such as vendor strings may hold NUL padding: stop at the first. */
	tmp[strnlen(tmp, (size_t)n)] = '\0';
	trim(tmp);
	if (tmp[0] == '\0')
		return -ENODATA;
	copy_string(buf, size, tmp);
	return 0;
}

static int read_attr_u64(const char *dir, const char *name, uint64_t *ret_value)
{
	char buf[64];
	int r = read_attr(dir, name, buf, sizeof(buf));
	if (r < 0)
		return r;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	if (errno != 0 || end == buf || *end != '\0')
		return -EINVAL;
	*ret_value = v;
	return 0;
}

/* Parse "MAJ:MIN" as found in sysfs dev files and in mountinfo. */
static int parse_devnum(const char *s, dev_t *ret_dev)
{
	unsigned int maj, min;
	char tail;
	if (sscanf(s, "%u:%u%c", &maj, &min, &tail) != 2)
		return -EINVAL;
	*ret_dev = makedev(maj, min);
	return 0;
}

/* The sysfs directory of a block device number (/sys/dev/block/MAJ:MIN resolved),
 * and, when it is a partition, the directory of its whole disk. */
static int sysfs_block_dir(dev_t dev, char *ret_dir, size_t size)
{
	char link[64];
	int r = format_path(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (r < 0)
		return r;
	char resolved[PATH_MAX];
	if (!realpath(link, resolved))
		return -errno;
	if (strlen(resolved) >= size)
		return -ENAMETOOLONG;
	copy_string(ret_dir, size, resolved);
	return 0;
}

static bool sysfs_is_partition(const char *dir)
{
	char path[PATH_MAX];
	if (format_path(path, sizeof(path), "%s/partition", dir) < 0)
		return false;
	return access(path, F_OK) == 0;
}

static int sysfs_whole_disk_dir(const char *dir, char *ret_dir, size_t size)
{
	if (!sysfs_is_partition(dir)) {
		if (strlen(dir) >= size)
			return -ENAMETOOLONG;
		copy_string(ret_dir, size, dir);
		return 0;
	}
	char parent[PATH_MAX];
	int r = format_path(parent, sizeof(parent), "%s/..", dir);
	if (r < 0)
		return r;
	char resolved[PATH_MAX];
	if (!realpath(parent, resolved))
		return -errno;
	if (strlen(resolved) >= size)
		return -ENAMETOOLONG;
	copy_string(ret_dir, size, resolved);
	return 0;
}

/* Rotational flag of the disk holding block device dev: 1, 0 or -1 when unknown. */
static int rotational_of(dev_t dev)
{
	if (major(dev) == 0)
		return -1; /* anonymous device: tmpfs, overlay, btrfs subvolume, NFS */
	char dir[PATH_MAX], disk[PATH_MAX];
	if (sysfs_block_dir(dev, dir, sizeof(dir)) < 0)
		return -1;
	if (sysfs_whole_disk_dir(dir, disk, sizeof(disk)) < 0)
		return -1;
	char queue[PATH_MAX];
	if (format_path(queue, sizeof(queue), "%s/queue", disk) < 0)
		return -1;
	uint64_t v;
	if (read_attr_u64(queue, "rotational", &v) < 0)
		return -1;
	return v ? 1 : 0;
}

/* Undo the octal escapes (\040 for a space, ...) of /proc/self/mountinfo and
 * /proc/swaps fields, in place. */
static void unescape_octal(char *s)
{
	char *out = s;
	for (char *in = s; *in; in++) {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
		    in[3] >= '0' && in[3] <= '7') {
			*out++ = (char)(((in[1] - '0') << 6) | ((in[2] - '0') << 3) | (in[3] - '0'));
			in += 3;
		} else {
			*out++ = *in;
		}
	}
	*out = '\0';
}

/* ---- probing ------------------------------------------------------------------ */

/* Model, serial and firmware of the disk whose sysfs directory is disk_dir. */
static void probe_identity(const char *disk_dir, struct lg_target_info *info)
{
	char device[PATH_MAX];
	if (format_path(device, sizeof(device), "%s/device", disk_dir) < 0)
		return;

	char model[128] = "", vendor[64] = "";
	(void)read_attr(device, "model", model, sizeof(model));
	/* SCSI and USB disks have a vendor beside the model; ATA disks report the
	 * placeholder "ATA", which names no manufacturer. */
	if (model[0] && read_attr(device, "vendor", vendor, sizeof(vendor)) == 0 &&
	    strcmp(vendor, "ATA") != 0 && strncmp(vendor, "0x", 2) != 0 &&
	    strncasecmp(model, vendor, strlen(vendor)) != 0) {
		char both[sizeof(model) + sizeof(vendor) + 1];
		snprintf(both, sizeof(both), "%s %s", vendor, model);
		copy_string(info->model, sizeof(info->model), both);
	} else {
		copy_string(info->model, sizeof(info->model), model);
	}

	/* NVMe controllers and subsystems have "serial"; virtio-blk has it on the disk;
	 * SCSI disks give the unit serial number VPD page (0x80): a 4-byte header, then
	 * the serial, its length in bytes 2-3. */
	if (read_attr(device, "serial", info->serial, sizeof(info->serial)) < 0 &&
	    read_attr(disk_dir, "serial", info->serial, sizeof(info->serial)) < 0) {
		char path[PATH_MAX];
		unsigned char page[256];
		if (format_path(path, sizeof(path), "%s/vpd_pg80", device) == 0) {
			ssize_t n = read_file_bytes(path, (char *)page, sizeof(page));
			if (n > 4 && page[1] == 0x80) {
				size_t len = ((size_t)page[2] << 8) | page[3];
				if (len > (size_t)n - 4)
					len = (size_t)n - 4;
				char serial[sizeof(info->serial)];
				size_t out = 0;
				for (size_t i = 0; i < len && out < sizeof(serial) - 1; i++) {
					if (page[4 + i] >= 0x20 && page[4 + i] < 0x7f)
						serial[out++] = (char)page[4 + i];
				}
				serial[out] = '\0';
				trim(serial);
				copy_string(info->serial, sizeof(info->serial), serial);
			}
		}
	}

	if (read_attr(device, "firmware_rev", info->firmware, sizeof(info->firmware)) < 0 &&
	    read_attr(device, "rev", info->firmware, sizeof(info->firmware)) < 0)
		(void)read_attr(device, "fwrev", info->firmware, sizeof(info->firmware)); /* MMC */

	/* MMC and SD cards name their product "name". */
	if (info->model[0] == '\0')
		(void)read_attr(device, "name", info->model, sizeof(info->model));

	/* Virtual devices have no hardware identity: say what they are. */
	char dm_dir[PATH_MAX], dm_name[128];
	if (info->model[0] == '\0' && format_path(dm_dir, sizeof(dm_dir), "%s/dm", disk_dir) == 0 &&
	    read_attr(dm_dir, "name", dm_name, sizeof(dm_name)) == 0) {
		char desc[sizeof(info->model) + sizeof(dm_name)];
		snprintf(desc, sizeof(desc), "device-mapper %s", dm_name);
		copy_string(info->model, sizeof(info->model), desc);
	}
	if (info->model[0] == '\0') {
		char backing[PATH_MAX];
		char loop_dir[PATH_MAX];
		if (format_path(loop_dir, sizeof(loop_dir), "%s/loop", disk_dir) == 0 &&
		    read_attr(loop_dir, "backing_file", backing, sizeof(backing)) == 0) {
			char desc[sizeof(info->model) + PATH_MAX];
			snprintf(desc, sizeof(desc), "loop device on %s", backing);
			copy_string(info->model, sizeof(info->model), desc);
		}
	}
}

static int probe_block(const struct stat *st, struct lg_target_info *info)
{
	dev_t dev = st->st_rdev;
	info->kind = LG_TARGET_BLOCK;
	info->dev_major = major(dev);
	info->dev_minor = minor(dev);

	char dir[PATH_MAX], disk[PATH_MAX];
	int r = sysfs_block_dir(dev, dir, sizeof(dir));
	if (r < 0)
		return r == -ENOENT ? -ENODEV : r;
	r = sysfs_whole_disk_dir(dir, disk, sizeof(disk));
	if (r < 0)
		return r;
	const char *name = strrchr(dir, '/');
	copy_string(info->devname, sizeof(info->devname), name ? name + 1 : dir);

	char queue[PATH_MAX];
	r = format_path(queue, sizeof(queue), "%s/queue", disk);
	if (r < 0)
		return r;

	/* sysfs first (readable without privileges), then the ioctls where the device
	 * can be opened: they are what the block layer itself uses. */
	uint64_t v;
	if (read_attr_u64(dir, "size", &v) == 0)
		info->capacity_bytes = v * 512; /* sysfs "size" is in 512-byte sectors */
	if (read_attr_u64(queue, "logical_block_size", &v) == 0 && v > 0 && v <= UINT32_MAX)
		info->logical_block_size = (uint32_t)v;
	if (read_attr_u64(queue, "physical_block_size", &v) == 0 && v > 0 && v <= UINT32_MAX)
		info->physical_block_size = (uint32_t)v;
	if (read_attr_u64(queue, "rotational", &v) == 0)
		info->rotational = v ? 1 : 0;
	if (read_attr_u64(queue, "discard_max_bytes", &v) == 0)
		info->supports_discard = v > 0;

	int fd = open(info->real_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		uint64_t bytes;
		int lbs, pbs;
		if (ioctl(fd, BLKGETSIZE64, &bytes) == 0)
			info->capacity_bytes = bytes;
		if (ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0)
			info->logical_block_size = (uint32_t)lbs;
		if (ioctl(fd, BLKPBSZGET, &pbs) == 0 && pbs > 0)
			info->physical_block_size = (uint32_t)pbs;
		close(fd);
	}

	probe_identity(disk, info);
	return 0;
}

/* Whether an open file carries loadgen's creation mark. A filesystem without
 * user xattrs never has it. */
static bool has_creation_mark(const char *path)
{
	return getxattr(path, LG_CREATED_XATTR, NULL, 0) >= 0;
}

/* The direct-I/O alignment the filesystem holding path asks for, from statx
 * (Linux 6.1+); 0 when it does not say. */
static uint32_t dio_alignment(const char *path)
{
#ifdef STATX_DIOALIGN
	struct statx stx;
	if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN))
		return stx.stx_dio_offset_align;
#else
	(void)path;
#endif
	return 0;
}

static void probe_file_backing(dev_t backing, const char *path, struct lg_target_info *info)
{
	info->rotational = rotational_of(backing);
	info->supports_discard = true; /* hole punching; lg_target_discard() says if not */

	char dir[PATH_MAX], disk[PATH_MAX], queue[PATH_MAX];
	uint64_t v;
	if (major(backing) != 0 && sysfs_block_dir(backing, dir, sizeof(dir)) == 0 &&
	    sysfs_whole_disk_dir(dir, disk, sizeof(disk)) == 0 &&
	    format_path(queue, sizeof(queue), "%s/queue", disk) == 0) {
		if (read_attr_u64(queue, "logical_block_size", &v) == 0 && v > 0 && v <= UINT32_MAX)
			info->logical_block_size = (uint32_t)v;
		if (read_attr_u64(queue, "physical_block_size", &v) == 0 && v > 0 && v <= UINT32_MAX)
			info->physical_block_size = (uint32_t)v;
	}
	/* The filesystem knows best what direct I/O on it needs. */
	uint32_t align = dio_alignment(path);
	if (align > 0)
		info->logical_block_size = align;

	/* tmpfs and ramfs keep a file's data in RAM, O_DIRECT or not. */
	struct statfs sfs;
	if (statfs(path, &sfs) == 0) {
		if (sfs.f_type == TMPFS_MAGIC)
			copy_string(info->memory_fs, sizeof(info->memory_fs), "tmpfs");
		else if (sfs.f_type == RAMFS_MAGIC)
			copy_string(info->memory_fs, sizeof(info->memory_fs), "ramfs");
	}
}

int lg_target_probe(const char *path, struct lg_target_info *ret_info)
{
	if (!path || !ret_info)
		return -EINVAL;
	if (path[0] == '\0')
		return -ENOENT;

	struct lg_target_info *info = calloc(1, sizeof(*info));
	if (!info)
		return -ENOMEM;
	int r;
	if (strlen(path) >= sizeof(info->path)) {
		r = -ENAMETOOLONG;
		goto cleanup;
	}
	copy_string(info->path, sizeof(info->path), path);
	copy_string(info->real_path, sizeof(info->real_path), path);
	info->rotational = -1;
	info->logical_block_size = 0;
	info->physical_block_size = 0;

	struct stat st;
	if (stat(path, &st) < 0) {
		if (errno != ENOENT) {
			r = -errno;
			goto cleanup;
		}
		/* A file to be created: its directory must exist. */
		char dir[4096];
		copy_string(dir, sizeof(dir), path);
		char *slash = strrchr(dir, '/');
		if (!slash)
			strcpy(dir, ".");
		else if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
		struct stat dst;
		if (stat(dir, &dst) < 0) {
			r = -errno;
			goto cleanup;
		}
		if (!S_ISDIR(dst.st_mode)) {
			r = -ENOTDIR;
			goto cleanup;
		}
		info->kind = LG_TARGET_FILE;
		info->exists = false;
		probe_file_backing(dst.st_dev, dir, info);
	} else if (S_ISBLK(st.st_mode)) {
		if (!realpath(path, info->real_path)) {
			r = -errno;
			goto cleanup;
		}
		info->exists = true;
		r = probe_block(&st, info);
		if (r < 0)
			goto cleanup;
	} else if (S_ISREG(st.st_mode)) {
		if (!realpath(path, info->real_path)) {
			r = -errno;
			goto cleanup;
		}
		info->kind = LG_TARGET_FILE;
		info->exists = true;
		info->capacity_bytes = (uint64_t)st.st_size;
		info->created_by_loadgen = has_creation_mark(info->real_path);
		probe_file_backing(st.st_dev, info->real_path, info);
	} else {
		r = -ENOTSUP;
		goto cleanup;
	}

	if (info->logical_block_size == 0)
		info->logical_block_size = 512;
	if (info->physical_block_size < info->logical_block_size)
		info->physical_block_size = info->logical_block_size;

	*ret_info = *info;
	r = 0;
cleanup:
	free(info);
	return r;
}

/* ---- safety checks ------------------------------------------------------------ */

/* A block device and its partitions, as the checks need them. */
struct lg_device_set {
	dev_t devs[256];
	char names[256][64]; /* kernel names; names[0] is the device itself */
	size_t count;
};

static int collect_device_set(const struct lg_target_info *info, struct lg_device_set *set)
{
	set->count = 1;
	set->devs[0] = makedev(info->dev_major, info->dev_minor);
	copy_string(set->names[0], sizeof(set->names[0]), info->devname);

	char dir[PATH_MAX];
	int r = format_path(dir, sizeof(dir), "/sys/class/block/%s", info->devname);
	if (r < 0)
		return r;
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	struct dirent *e;
	while ((e = readdir(d)) && set->count < sizeof(set->devs) / sizeof(set->devs[0])) {
		if (e->d_name[0] == '.')
			continue;
		char sub[PATH_MAX], devstr[32];
		if (format_path(sub, sizeof(sub), "%s/%s", dir, e->d_name) < 0)
			continue;
		if (!sysfs_is_partition(sub))
			continue;
		dev_t pdev;
		if (read_attr(sub, "dev", devstr, sizeof(devstr)) < 0 || parse_devnum(devstr, &pdev) < 0)
			continue;
		set->devs[set->count] = pdev;
		copy_string(set->names[set->count], sizeof(set->names[0]), e->d_name);
		set->count++;
	}
	closedir(d);
	return 0;
}

static ssize_t device_set_find(const struct lg_device_set *set, dev_t dev)
{
	for (size_t i = 0; i < set->count; i++)
		if (set->devs[i] == dev)
			return (ssize_t)i;
	return -1;
}

static void refuse(struct lg_target_check *check, enum lg_target_refusal refusal,
                   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void refuse(struct lg_target_check *check, enum lg_target_refusal refusal,
                   const char *fmt, ...)
{
	check->refusal = refusal;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(check->detail, sizeof(check->detail), fmt, ap);
	va_end(ap);
}

/* Mounted filesystems on the device or a partition. mountinfo's third field is the
 * st_dev of the filesystem, which is the device for single-device filesystems; the
 * mount source is compared too, for filesystems (btrfs) whose st_dev is anonymous. */
static int check_mounts(const struct lg_device_set *set, struct lg_target_check *check)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	char *line = NULL;
	size_t cap = 0;
	int r = 0;
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL;
		char *fields[16] = {0};
		size_t nf = 0;
		for (char *tok = strtok_r(line, " \n", &save); tok && nf < 16;
		     tok = strtok_r(NULL, " \n", &save))
			fields[nf++] = tok;
		if (nf < 5)
			continue;
		/* Optional fields end at "-", then fstype and source. */
		const char *source = NULL;
		for (size_t i = 6; i < nf; i++) {
			if (strcmp(fields[i], "-") == 0) {
				source = i + 2 < nf ? fields[i + 2] : NULL;
				break;
			}
		}
		ssize_t hit = -1;
		dev_t dev;
		if (parse_devnum(fields[2], &dev) == 0)
			hit = device_set_find(set, dev);
		if (hit < 0 && source && source[0] == '/') {
			char src[PATH_MAX];
			copy_string(src, sizeof(src), source);
			unescape_octal(src);
			struct stat st;
			if (stat(src, &st) == 0 && S_ISBLK(st.st_mode))
				hit = device_set_find(set, st.st_rdev);
		}
		if (hit < 0)
			continue;
		char *mountpoint = fields[4];
		unescape_octal(mountpoint);
		if (hit == 0)
			refuse(check, LG_REFUSE_MOUNTED, "/dev/%s is mounted on %s", set->names[0],
			       mountpoint);
		else
			refuse(check, LG_REFUSE_PARTITION_MOUNTED, "partition /dev/%s of /dev/%s is mounted on %s",
			       set->names[hit], set->names[0], mountpoint);
		r = 1;
		break;
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	free(line);
	fclose(f);
	return r;
}

/* Active swap on the device or a partition (/proc/swaps names the device node). */
static int check_swap(const struct lg_device_set *set, struct lg_target_check *check)
{
	FILE *f = fopen("/proc/swaps", "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno; /* a kernel without swap support */
	char *line = NULL;
	size_t cap = 0;
	int r = 0;
	bool header = true;
	while (getline(&line, &cap, f) > 0) {
		if (header) {
			header = false;
			continue;
		}
		char *save = NULL;
		char *name = strtok_r(line, " \t\n", &save);
		if (!name)
			continue;
		unescape_octal(name);
		struct stat st;
		if (stat(name, &st) < 0 || !S_ISBLK(st.st_mode))
			continue;
		ssize_t hit = device_set_find(set, st.st_rdev);
		if (hit < 0)
			continue;
		if (hit == 0)
			refuse(check, LG_REFUSE_SWAP, "/dev/%s is in use as swap", set->names[0]);
		else
			refuse(check, LG_REFUSE_SWAP, "partition /dev/%s of /dev/%s is in use as swap",
			       set->names[hit], set->names[0]);
		r = 1;
		break;
	}
	free(line);
	fclose(f);
	return r;
}

/* Holders (device-mapper, MD RAID, bcache) of the device or a partition. */
static int check_holders(const struct lg_device_set *set, struct lg_target_check *check)
{
	for (size_t i = 0; i < set->count; i++) {
		char dir[PATH_MAX];
		if (format_path(dir, sizeof(dir), "/sys/class/block/%s/holders", set->names[i]) < 0)
			continue;
		DIR *d = opendir(dir);
		if (!d) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		struct dirent *e;
		char holder[256] = "";
		while ((e = readdir(d))) {
			if (e->d_name[0] != '.') {
				copy_string(holder, sizeof(holder), e->d_name);
				break;
			}
		}
		closedir(d);
		if (holder[0] == '\0')
			continue;
		if (i == 0)
			refuse(check, LG_REFUSE_HOLDERS, "/dev/%s is in use by %s (device-mapper, LVM or RAID)",
			       set->names[0], holder);
		else
			refuse(check, LG_REFUSE_HOLDERS,
			       "partition /dev/%s of /dev/%s is in use by %s (device-mapper, LVM or RAID)",
			       set->names[i], set->names[0], holder);
		return 1;
	}
	return 0;
}

static uint16_t le16_at(const unsigned char *b, size_t off)
{
	return (uint16_t)(b[off] | (b[off + 1] << 8));
}

static uint32_t le32_at(const unsigned char *b, size_t off)
{
	return (uint32_t)b[off] | ((uint32_t)b[off + 1] << 8) | ((uint32_t)b[off + 2] << 16) |
	       ((uint32_t)b[off + 3] << 24);
}

static bool bytes_at(const unsigned char *b, size_t len, size_t off, const char *magic,
                     size_t mlen)
{
	return off + mlen <= len && memcmp(b + off, magic, mlen) == 0;
}

/* The first filesystem, volume or partition-table signature in the first bytes of a
 * device; NULL when none is found. */
static const char *find_signature(const unsigned char *b, size_t len, uint32_t lbs)
{
	if (bytes_at(b, len, 0, "LUKS\xba\xbe", 6))
		return "LUKS encrypted volume header";
	for (size_t sector = 0; sector < 4; sector++) {
		if (bytes_at(b, len, sector * 512, "LABELONE", 8))
			return "LVM2 physical volume label";
	}
	if (len >= 4096 + 4 && le32_at(b, 4096) == 0xa92b4efc)
		return "Linux RAID (md) superblock";
	if (bytes_at(b, len, 0, "XFSB", 4))
		return "XFS superblock";
	if (len >= 1024 + 0x64 && le16_at(b, 1024 + 56) == 0xEF53) {
		uint32_t compat = le32_at(b, 1024 + 0x5C);
		uint32_t incompat = le32_at(b, 1024 + 0x60);
		if (incompat & (0x40 | 0x80 | 0x200)) /* extents, 64bit, flex_bg */
			return "ext4 superblock";
		if (compat & 0x4) /* has_journal */
			return "ext3 superblock";
		return "ext2 superblock";
	}
	if (bytes_at(b, len, 65536 + 64, "_BHRfS_M", 8))
		return "btrfs superblock";
	static const size_t page_sizes[] = {4096, 8192, 16384, 65536};
	for (size_t i = 0; i < sizeof(page_sizes) / sizeof(page_sizes[0]); i++) {
		if (bytes_at(b, len, page_sizes[i] - 10, "SWAPSPACE2", 10) ||
		    bytes_at(b, len, page_sizes[i] - 10, "SWAP-SPACE", 10))
			return "swap signature";
	}
	if (bytes_at(b, len, 3, "NTFS    ", 8))
		return "NTFS boot sector";
	if (bytes_at(b, len, 3, "EXFAT   ", 8))
		return "exFAT boot sector";
	bool boot_sig = len >= 512 && b[510] == 0x55 && b[511] == 0xAA;
	if (boot_sig && (bytes_at(b, len, 0x36, "FAT1", 4) || bytes_at(b, len, 0x52, "FAT32", 5)))
		return "FAT boot sector";
	if (bytes_at(b, len, lbs, "EFI PART", 8) || bytes_at(b, len, 512, "EFI PART", 8) ||
	    bytes_at(b, len, 4096, "EFI PART", 8))
		return "GPT partition table";
	if (boot_sig) {
		for (size_t i = 0; i < 4; i++) {
			const unsigned char *entry = b + 446 + 16 * i;
			if (entry[4] != 0) /* partition type */
				return "MBR partition table";
		}
	}
	if (bytes_at(b, len, 32769, "CD001", 5))
		return "ISO 9660 filesystem";
	return NULL;
}

static void check_signature(const struct lg_target_info *info, struct lg_target_check *check)
{
	int fd = open(info->real_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	unsigned char *buf = malloc(LG_SIGNATURE_BYTES);
	if (!buf) {
		close(fd);
		return;
	}
	size_t total = 0;
	while (total < LG_SIGNATURE_BYTES) {
		ssize_t n = pread(fd, buf + total, LG_SIGNATURE_BYTES - total, (off_t)total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
	}
	close(fd);
	const char *sig = find_signature(buf, total, info->logical_block_size);
	if (sig)
		copy_string(check->signature, sizeof(check->signature), sig);
	free(buf);
}

static int check_block(const struct lg_target_info *info, const char *destroy_data,
                       struct lg_target_check *check)
{
	if (!destroy_data || destroy_data[0] == '\0') {
		refuse(check, LG_REFUSE_NO_CONFIRM,
		       "writing to %s destroys the data on it; confirm with --destroy-data=%s",
		       info->path, info->path);
		return 1;
	}
	dev_t target = makedev(info->dev_major, info->dev_minor);
	char resolved[PATH_MAX];
	struct stat st;
	if (!realpath(destroy_data, resolved)) {
		refuse(check, LG_REFUSE_CONFIRM_MISMATCH, "--destroy-data=%s: %s; the target is %s",
		       destroy_data, strerror(errno), info->path);
		return 1;
	}
	if (stat(resolved, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != target) {
		char kernel_name[80];
		snprintf(kernel_name, sizeof(kernel_name), "/dev/%s", info->devname);
		bool same = strcmp(kernel_name, info->path) == 0;
		refuse(check, LG_REFUSE_CONFIRM_MISMATCH,
		       "--destroy-data=%s does not name the target device %s%s%s%s", destroy_data,
		       info->path, same ? "" : " (", same ? "" : kernel_name, same ? "" : ")");
		return 1;
	}
	/* The target node itself must still be that device. */
	if (stat(info->real_path, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode) || st.st_rdev != target)
		return -ESTALE;

	struct lg_device_set *set = calloc(1, sizeof(*set));
	if (!set)
		return -ENOMEM;
	int r = collect_device_set(info, set);
	if (r < 0)
		goto cleanup;
	r = check_mounts(set, check);
	if (r != 0)
		goto cleanup;
	r = check_swap(set, check);
	if (r != 0)
		goto cleanup;
	r = check_holders(set, check);
	if (r != 0)
		goto cleanup;

	/* The block layer's own answer: an exclusive open fails while anything else
	 * (a filesystem, swap, device-mapper, another exclusive opener) claims it. */
	int fd = open(info->real_path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		if (errno == EBUSY) {
			refuse(check, LG_REFUSE_BUSY,
			       "/dev/%s is in use: it cannot be opened exclusively", info->devname);
			r = 1;
		} else {
			r = -errno;
		}
		goto cleanup;
	}
	close(fd);
	r = 0;
cleanup:
	free(set);
	return r;
}

int lg_target_check_writable(const struct lg_target_info *info, const char *destroy_data,
                             bool force, struct lg_target_check *ret_check)
{
	if (!info || !ret_check)
		return -EINVAL;
	struct lg_target_check check = {.refusal = LG_REFUSE_NONE};
	int r;

	if (info->kind == LG_TARGET_FILE) {
		if (info->exists && !info->created_by_loadgen && !force) {
			refuse(&check, LG_REFUSE_EXISTING_FILE,
			       "%s exists and was not created by loadgen; --force overwrites it",
			       info->path);
			r = 1;
		} else {
			r = 0;
		}
	} else if (info->kind == LG_TARGET_BLOCK) {
		r = check_block(info, destroy_data, &check);
		/* Also on a refusal: `loadgen info` and read-only runs report it. */
		if (r >= 0)
			check_signature(info, &check);
	} else {
		refuse(&check, LG_REFUSE_NOT_SUPPORTED, "%s is neither a regular file nor a block device",
		       info->path);
		r = 1;
	}
	if (r < 0)
		return r;
	*ret_check = check;
	return r > 0 ? -EPERM : 0;
}

/* ---- open and discard --------------------------------------------------------- */

/* Grow an open file to size bytes, with its blocks allocated where the filesystem
 * can: a file filled later by random writes keeps a sequential layout. */
static int grow_file(int fd, uint64_t size)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size >= size)
		return 0;
	if (size > (uint64_t)INT64_MAX)
		return -EFBIG;
	if (fallocate(fd, 0, st.st_size, (off_t)size - st.st_size) == 0)
		return 0;
	int err = errno;
	if (err != EOPNOTSUPP && err != ENOSYS) {
		/* Give back what a failed allocation may have taken. */
		(void)ftruncate(fd, st.st_size);
		return -err;
	}
	if (ftruncate(fd, (off_t)size) < 0)
		return -errno;
	return 0;
}

static int set_direct(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -errno;
	if (fcntl(fd, F_SETFL, fl | O_DIRECT) < 0)
		return errno == EINVAL ? -EINVAL : -errno;
	return 0;
}

static int open_file(const struct lg_target_info *info, int flags, uint64_t size_bytes,
                     int *ret_fd)
{
	bool write = flags & LG_OPEN_WRITE;
	bool created = false;
	int fd;
	int r;

	/* O_DIRECT is set after opening: a filesystem that cannot do it refuses then,
	 * before anything is written, and a file created for the run is removed. */
	if (!info->exists && write) {
		fd = open(info->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		created = true;
		if (fsetxattr(fd, LG_CREATED_XATTR, "1", 1, 0) < 0 && errno != ENOTSUP &&
		    errno != EOPNOTSUPP) {
			r = -errno;
			goto fail;
		}
	} else {
		/* A read-only open never creates; it finds a file created since the
		 * probe (by an earlier write open of the same run), or -ENOENT. */
		const char *path = info->exists ? info->real_path : info->path;
		fd = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		struct stat st;
		if (fstat(fd, &st) < 0) {
			r = -errno;
			goto fail;
		}
		if (!S_ISREG(st.st_mode)) {
			r = -ESTALE;
			goto fail;
		}
	}
	if (flags & LG_OPEN_DIRECT) {
		r = set_direct(fd);
		if (r < 0)
			goto fail;
	}
	if (write) {
		r = grow_file(fd, size_bytes);
		if (r < 0)
			goto fail;
	}
	*ret_fd = fd;
	return 0;
fail:
	close(fd);
	if (created)
		(void)unlink(info->path);
	return r;
}

int lg_target_open(const struct lg_target_info *info, int flags, uint64_t size_bytes,
                   int *ret_fd)
{
	if (!info || !ret_fd)
		return -EINVAL;
	if (info->kind == LG_TARGET_FILE)
		return open_file(info, flags, size_bytes, ret_fd);
	if (info->kind != LG_TARGET_BLOCK)
		return -ENOTSUP;

	int oflags = ((flags & LG_OPEN_WRITE) ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	if (flags & LG_OPEN_DIRECT)
		oflags |= O_DIRECT;
	if (flags & LG_OPEN_EXCL)
		oflags |= O_EXCL;
	int fd = open(info->real_path, oflags);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) ||
	    st.st_rdev != makedev(info->dev_major, info->dev_minor)) {
		close(fd);
		return -ESTALE;
	}
	*ret_fd = fd;
	return 0;
}

int lg_target_discard(int fd, const struct lg_target_info *info, uint64_t offset,
                      uint64_t length, const char **ret_method)
{
	if (fd < 0 || !info || !ret_method)
		return -EINVAL;
	if (offset > (uint64_t)INT64_MAX || length > (uint64_t)INT64_MAX - offset)
		return -EINVAL;
	const char *method;
	if (info->kind == LG_TARGET_BLOCK) {
		method = "blkdiscard";
		if (length > 0) {
			uint64_t range[2] = {offset, length};
			if (ioctl(fd, BLKDISCARD, range) < 0)
				return errno == ENOTTY ? -EOPNOTSUPP : -errno;
		}
	} else if (info->kind == LG_TARGET_FILE) {
		method = "punch-hole";
		if (length > 0 && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		                            (off_t)offset, (off_t)length) < 0)
			return errno == ENOSYS ? -EOPNOTSUPP : -errno;
	} else {
		return -ENOTSUP;
	}
	*ret_method = method;
	return 0;
}
