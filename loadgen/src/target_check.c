/* target_check: gathers what the safety rules (safety.h) need to know of a
 * target from the system (sysfs, /proc/self/mountinfo, /proc/swaps, an
 * exclusive open, the first bytes of the device) and asks them. See target.h
 * for lg_target_check_writable()'s contract. */
#define _GNU_SOURCE
#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "safety.h"
#include "sysfs.h"
#include "text.h"

/* A growable array of n items of size bytes. */
static int append(void **items, size_t *n, size_t *cap, const void *item, size_t size)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *p = realloc(*items, ncap * size);

		if (!p)
			return -ENOMEM;
		*items = p;
		*cap = ncap;
	}
	memcpy((char *)*items + *n * size, item, size);
	(*n)++;
	return 0;
}

/* The first entry of /sys/class/block/NAME/holders, into holder (empty: none). */
static int first_holder(const char *name, char *holder, size_t size)
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *d;

	holder[0] = '\0';
	if (lg_sysfs_path(dir, sizeof(dir), "/sys/class/block/%s/holders", name) < 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] != '.') {
			lg_copy_string(holder, size, e->d_name);
			break;
		}
	}
	closedir(d);
	return 0;
}

/* The partitions of the device (devices[0], set by the caller) from sysfs, and the
 * holders of each. */
static int gather_devices(const struct lg_target_info *info, struct lg_safety_facts *f)
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int r;

	r = lg_sysfs_path(dir, sizeof(dir), "/sys/class/block/%s", info->devname);
	if (r < 0)
		return r;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d)) && f->ndevices < LG_SAFETY_MAX_DEVICES) {
		char sub[PATH_MAX], devstr[32];
		struct lg_safety_device *p = &f->devices[f->ndevices];

		if (e->d_name[0] == '.' ||
		    lg_sysfs_path(sub, sizeof(sub), "%s/%s", dir, e->d_name) < 0 ||
		    !lg_sysfs_is_partition(sub))
			continue;
		if (lg_sysfs_attr(sub, "dev", devstr, sizeof(devstr)) < 0 ||
		    lg_sysfs_parse_devnum(devstr, &p->dev) < 0)
			continue;
		lg_copy_string(p->name, sizeof(p->name), e->d_name);
		f->ndevices++;
	}
	closedir(d);
	for (size_t i = 0; i < f->ndevices; i++) {
		r = first_holder(f->devices[i].name, f->devices[i].holder,
				 sizeof(f->devices[i].holder));
		if (r < 0)
			return r;
	}
	return 0;
}

/* Every mounted filesystem, with the block device its source names. */
static int gather_mounts(struct lg_safety_mount **ret, size_t *ret_n)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0, mcap = 0;
	int r = 0;

	if (!f)
		return -errno;
	while (r == 0 && getline(&line, &cap, f) > 0) {
		struct lg_safety_mount m;
		const char *source;
		struct stat st;

		if (lg_safety_parse_mountinfo(line, &m, &source) < 0)
			continue;
		if (source && source[0] == '/' && stat(source, &st) == 0 && S_ISBLK(st.st_mode))
			m.source_dev = st.st_rdev;
		r = append((void **)ret, ret_n, &mcap, &m, sizeof(m));
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	free(line);
	fclose(f);
	return r;
}

/* Every block device in use as swap. */
static int gather_swaps(dev_t **ret, size_t *ret_n)
{
	FILE *f = fopen("/proc/swaps", "re");
	char *line = NULL;
	size_t cap = 0, scap = 0;
	int r = 0;

	if (!f)
		return errno == ENOENT ? 0 : -errno; /* a kernel without swap support */
	while (r == 0 && getline(&line, &cap, f) > 0) {
		const char *name = lg_safety_parse_swaps(line);
		struct stat st;

		if (name && stat(name, &st) == 0 && S_ISBLK(st.st_mode))
			r = append((void **)ret, ret_n, &scap, &st.st_rdev, sizeof(st.st_rdev));
	}
	free(line);
	fclose(f);
	return r;
}

/* What --destroy-data names. */
static void gather_confirmation(const char *destroy_data, struct lg_safety_facts *f)
{
	char resolved[PATH_MAX];
	struct stat st;

	f->destroy_data = destroy_data;
	if (!destroy_data || !destroy_data[0])
		return;
	if (!realpath(destroy_data, resolved)) {
		f->destroy_data_errno = errno;
		return;
	}
	if (stat(resolved, &st) == 0 && S_ISBLK(st.st_mode)) {
		f->destroy_data_is_device = true;
		f->destroy_data_dev = st.st_rdev;
	}
}

/* Everything else the rules need of a block device: asked only once
 * --destroy-data has named it, as nothing else matters before. */
static int gather_block(const struct lg_target_info *info, struct lg_safety_facts *f,
			struct lg_safety_mount **mounts, dev_t **swaps)
{
	struct stat st;
	int r, fd;

	/* The target node itself must still be that device. */
	if (stat(info->real_path, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode) || st.st_rdev != f->devices[0].dev)
		return -ESTALE;
	r = gather_devices(info, f);
	if (r == 0)
		r = gather_mounts(mounts, &f->nmounts);
	f->mounts = *mounts;
	if (r == 0)
		r = gather_swaps(swaps, &f->nswaps);
	f->swaps = *swaps;
	if (r < 0)
		return r;
	fd = open(info->real_path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		if (errno != EBUSY)
			return -errno;
		f->busy = true;
	} else {
		close(fd);
	}
	return 0;
}

/* The signature in the first bytes of the device, into check->signature. */
static void read_signature(const struct lg_target_info *info, struct lg_target_check *check)
{
	int fd = open(info->real_path, O_RDONLY | O_CLOEXEC);
	unsigned char *buf;
	size_t total = 0;
	const char *sig;

	if (fd < 0)
		return;
	buf = malloc(LG_SAFETY_SIGNATURE_BYTES);
	while (buf && total < LG_SAFETY_SIGNATURE_BYTES) {
		ssize_t n = pread(fd, buf + total, LG_SAFETY_SIGNATURE_BYTES - total, (off_t)total);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
	}
	close(fd);
	sig = buf ? lg_safety_find_signature(buf, total, info->logical_block_size) : NULL;
	if (sig)
		lg_copy_string(check->signature, sizeof(check->signature), sig);
	free(buf);
}

int lg_target_check_writable(const struct lg_target_info *info, const char *destroy_data,
			     bool force, struct lg_target_check *ret_check)
{
	struct lg_target_check check = {.refusal = LG_REFUSE_NONE};
	struct lg_safety_facts *f;
	struct lg_safety_mount *mounts = NULL;
	dev_t *swaps = NULL;
	int r = 0;

	if (!info || !ret_check)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->kind = info->kind;
	f->path = info->path;
	f->exists = info->exists;
	f->created_by_loadgen = info->created_by_loadgen;
	f->force = force;
	if (info->kind == LG_TARGET_BLOCK) {
		f->ndevices = 1;
		f->devices[0].dev = makedev(info->dev_major, info->dev_minor);
		lg_copy_string(f->devices[0].name, sizeof(f->devices[0].name), info->devname);
		gather_confirmation(destroy_data, f);
		if (lg_safety_decide(f, &check) == 0) {
			r = gather_block(info, f, &mounts, &swaps);
			/* -EPERM says "refused": a check that could not be made (a device
			 * the system does not let even root open) says so otherwise. */
			if (r == -EPERM)
				r = -EACCES;
		}
	}
	if (r == 0) {
		r = lg_safety_decide(f, &check);
		/* Also on a refusal: `loadgen info` and read-only runs report it. */
		if (info->kind == LG_TARGET_BLOCK)
			read_signature(info, &check);
		*ret_check = check;
		r = r ? -EPERM : 0;
	}
	free(mounts);
	free(swaps);
	free(f);
	return r;
}
