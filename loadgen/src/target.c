/* target: probing a file or block device, opening it and discarding ranges of it.
 * The safety checks before writing are in target_check.c and safety.c. See
 * target.h for the contract. */
#define _GNU_SOURCE
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "drivekind.h"
#include "ident.h"
#include "link.h"
#include "sysfs.h"
#include "text.h"

/* Marks a file that loadgen created, so that a later run may overwrite it. */
#define LG_CREATED_XATTR "user.loadgen.created"

/* Rotational flag of the disk holding block device dev: 1, 0 or -1 when unknown. */
static int rotational_of(dev_t dev)
{
	if (major(dev) == 0)
		return -1; /* anonymous device: tmpfs, overlay, btrfs subvolume, NFS */
	char dir[PATH_MAX], disk[PATH_MAX];
	if (lg_sysfs_block_dir(dev, dir, sizeof(dir)) < 0)
		return -1;
	if (lg_sysfs_whole_disk_dir(dir, disk, sizeof(disk)) < 0)
		return -1;
	char queue[PATH_MAX];
	if (lg_sysfs_path(queue, sizeof(queue), "%s/queue", disk) < 0)
		return -1;
	uint64_t v;
	if (lg_sysfs_attr_u64(queue, "rotational", &v) < 0)
		return -1;
	return v ? 1 : 0;
}

/* ---- probing ------------------------------------------------------------------ */

/* Model, serial and firmware of the disk whose sysfs directory is disk_dir. */
static void probe_identity(const char *disk_dir, struct lg_target_info *info)
{
	char device[PATH_MAX];
	if (lg_sysfs_path(device, sizeof(device), "%s/device", disk_dir) < 0)
		return;

	char model[128] = "", vendor[64] = "";
	(void)lg_sysfs_attr(device, "model", model, sizeof(model));
	/* SCSI and USB disks have a vendor beside the model; ATA disks report the
	 * placeholder "ATA", which names no manufacturer. */
	bool named_vendor = model[0] &&
			    lg_sysfs_attr(device, "vendor", vendor, sizeof(vendor)) == 0 &&
			    strcmp(vendor, "ATA") != 0 && strncmp(vendor, "0x", 2) != 0;
	if (named_vendor) {
		lg_copy_string(info->vendor, sizeof(info->vendor), vendor);
	} else {
		const char *maker = lg_ident_vendor_from_model(model);
		if (maker)
			lg_copy_string(info->vendor, sizeof(info->vendor), maker);
	}
	if (named_vendor && strncasecmp(model, vendor, strlen(vendor)) != 0) {
		char both[sizeof(model) + sizeof(vendor) + 1];
		snprintf(both, sizeof(both), "%s %s", vendor, model);
		lg_copy_string(info->model, sizeof(info->model), both);
	} else {
		lg_copy_string(info->model, sizeof(info->model), model);
	}

	/* NVMe controllers and subsystems have "serial"; virtio-blk has it on the disk;
	 * SCSI disks give the unit serial number VPD page (0x80): a 4-byte header, then
	 * the serial, its length in bytes 2-3. Only its hash is kept. */
	char serial[128] = "";
	if (lg_sysfs_attr(device, "serial", serial, sizeof(serial)) < 0 &&
	    lg_sysfs_attr(disk_dir, "serial", serial, sizeof(serial)) < 0) {
		char path[PATH_MAX];
		unsigned char page[256];
		if (lg_sysfs_path(path, sizeof(path), "%s/vpd_pg80", device) == 0) {
			ssize_t n = lg_sysfs_read_file(path, (char *)page, sizeof(page));
			if (n > 4 && page[1] == 0x80) {
				size_t len = ((size_t)page[2] << 8) | page[3];
				if (len > (size_t)n - 4)
					len = (size_t)n - 4;
				size_t out = 0;
				for (size_t i = 0; i < len && out < sizeof(serial) - 1; i++) {
					if (page[4 + i] >= 0x20 && page[4 + i] < 0x7f)
						serial[out++] = (char)page[4 + i];
				}
				serial[out] = '\0';
				lg_trim(serial);
			}
			explicit_bzero(page, sizeof(page));
		}
	}
	lg_ident_serial_hash(serial, info->serial_hash);
	explicit_bzero(serial, sizeof(serial));

	if (info->model[0])
		lg_copy_string(info->identified_by, sizeof(info->identified_by), "sysfs");

	if (lg_sysfs_attr(device, "firmware_rev", info->firmware, sizeof(info->firmware)) < 0 &&
	    lg_sysfs_attr(device, "rev", info->firmware, sizeof(info->firmware)) < 0)
		(void)lg_sysfs_attr(device, "fwrev", info->firmware,
				    sizeof(info->firmware)); /* MMC */

	/* MMC and SD cards name their product "name". */
	if (info->model[0] == '\0' &&
	    lg_sysfs_attr(device, "name", info->model, sizeof(info->model)) == 0)
		lg_copy_string(info->identified_by, sizeof(info->identified_by), "sysfs");

	/* Virtual devices have no hardware identity: say what they are. */
	char dm_dir[PATH_MAX], dm_name[128];
	if (info->model[0] == '\0' &&
	    lg_sysfs_path(dm_dir, sizeof(dm_dir), "%s/dm", disk_dir) == 0 &&
	    lg_sysfs_attr(dm_dir, "name", dm_name, sizeof(dm_name)) == 0) {
		char desc[sizeof(info->model) + sizeof(dm_name)];
		snprintf(desc, sizeof(desc), "device-mapper %s", dm_name);
		lg_copy_string(info->model, sizeof(info->model), desc);
	}
	if (info->model[0] == '\0') {
		char backing[PATH_MAX];
		char loop_dir[PATH_MAX];
		if (lg_sysfs_path(loop_dir, sizeof(loop_dir), "%s/loop", disk_dir) == 0 &&
		    lg_sysfs_attr(loop_dir, "backing_file", backing, sizeof(backing)) == 0) {
			char desc[sizeof(info->model) + PATH_MAX];
			snprintf(desc, sizeof(desc), "loop device on %s", backing);
			lg_copy_string(info->model, sizeof(info->model), desc);
		}
	}
}

/* An NVMe disk: its maker from the controller's PCI vendor id, then the controller's
 * own Identify data where it answers (root: an admin command), which sysfs copies
 * but may shorten. */
static void probe_nvme_identity(const char *disk_dir, struct lg_target_info *info)
{
	char pci[PATH_MAX], vid[16];
	uint64_t id = 0;
	const char *maker;
	if (lg_sysfs_path(pci, sizeof(pci), "%s/device/device", disk_dir) == 0 &&
	    lg_sysfs_attr(pci, "vendor", vid, sizeof(vid)) == 0 &&
	    (id = strtoull(vid, NULL, 16)) > 0 && (maker = lg_ident_pci_vendor((uint16_t)id)))
		lg_copy_string(info->vendor, sizeof(info->vendor), maker);

	uint8_t *page = malloc(LG_NVME_IDENTIFY_BYTES);
	struct lg_nvme_identity identity;
	int fd = open(info->real_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (page && fd >= 0 && lg_ident_nvme_identify(fd, page) == 0 &&
	    lg_ident_parse_nvme_identify(page, LG_NVME_IDENTIFY_BYTES, &identity) == 0) {
		lg_copy_string(info->model, sizeof(info->model), identity.model);
		lg_copy_string(info->firmware, sizeof(info->firmware), identity.firmware);
		lg_ident_serial_hash(identity.serial, info->serial_hash);
		lg_copy_string(info->identified_by, sizeof(info->identified_by), "nvme-identify");
		if ((maker = lg_ident_pci_vendor(identity.pci_vendor)))
			lg_copy_string(info->vendor, sizeof(info->vendor), maker);
		explicit_bzero(&identity, sizeof(identity));
		explicit_bzero(page, LG_NVME_IDENTIFY_BYTES);
	}
	if (fd >= 0)
		close(fd);
	free(page);
}

/* The kind of drive disk_dir (a whole disk's sysfs directory; NULL when there is no
 * disk) is, or holds the file of, from its name, driver, model and rotational flag. */
static void probe_drive_kind(const char *disk_dir, bool file, int rotational,
			     struct lg_target_info *info)
{
	char link[PATH_MAX], target[PATH_MAX], model[128] = "";
	const char *disk = NULL, *driver = NULL;
	ssize_t n;

	if (disk_dir) {
		disk = strrchr(disk_dir, '/');
		disk = disk ? disk + 1 : disk_dir;
		if (lg_sysfs_path(link, sizeof(link), "%s/device/driver", disk_dir) == 0 &&
		    (n = readlink(link, target, sizeof(target) - 1)) > 0) {
			target[n] = '\0';
			driver = strrchr(target, '/');
			driver = driver ? driver + 1 : target;
		}
		if (file) {
			struct lg_target_info disk_info = {0};
			probe_identity(disk_dir, &disk_info);
			lg_copy_string(model, sizeof(model), disk_info.model);
		}
	}
	struct lg_drivekind_facts facts = {
		.file = file,
		.memory_fs = info->memory_fs,
		.disk = disk,
		.sysfs_dir = disk_dir,
		.driver = driver,
		.model = file ? model : info->model,
		.rotational = rotational,
	};
	enum lg_drive_kind kind;
	const char *name;
	if (lg_drivekind_infer(&facts, &kind) == 0 && (name = lg_drivekind_name(kind)))
		lg_copy_string(info->drive_kind, sizeof(info->drive_kind), name);
}

static int probe_block(const struct stat *st, struct lg_target_info *info)
{
	dev_t dev = st->st_rdev;
	info->kind = LG_TARGET_BLOCK;
	info->dev_major = major(dev);
	info->dev_minor = minor(dev);

	char dir[PATH_MAX], disk[PATH_MAX];
	int r = lg_sysfs_block_dir(dev, dir, sizeof(dir));
	if (r < 0)
		return r == -ENOENT ? -ENODEV : r;
	r = lg_sysfs_whole_disk_dir(dir, disk, sizeof(disk));
	if (r < 0)
		return r;
	const char *name = strrchr(dir, '/');
	lg_copy_string(info->devname, sizeof(info->devname), name ? name + 1 : dir);

	char queue[PATH_MAX];
	r = lg_sysfs_path(queue, sizeof(queue), "%s/queue", disk);
	if (r < 0)
		return r;

	/* sysfs first (readable without privileges), then the ioctls where the device
	 * can be opened: they are what the block layer itself uses. */
	uint64_t v;
	if (lg_sysfs_attr_u64(dir, "size", &v) == 0)
		info->capacity_bytes = v * 512; /* sysfs "size" is in 512-byte sectors */
	if (lg_sysfs_attr_u64(queue, "logical_block_size", &v) == 0 && v > 0 && v <= UINT32_MAX)
		info->logical_block_size = (uint32_t)v;
	if (lg_sysfs_attr_u64(queue, "physical_block_size", &v) == 0 && v > 0 && v <= UINT32_MAX)
		info->physical_block_size = (uint32_t)v;
	if (lg_sysfs_attr_u64(queue, "rotational", &v) == 0)
		info->rotational = v ? 1 : 0;
	if (lg_sysfs_attr_u64(queue, "discard_max_bytes", &v) == 0)
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
	lg_link_probe(disk, info->interface, sizeof(info->interface), info->link,
		      sizeof(info->link));
	if (strcmp(info->interface, "nvme") == 0)
		probe_nvme_identity(disk, info);
	probe_drive_kind(disk, false, info->rotational, info);
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
	if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &stx) == 0 && (stx.stx_mask & STATX_DIOALIGN))
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
	if (major(backing) != 0 && lg_sysfs_block_dir(backing, dir, sizeof(dir)) == 0 &&
	    lg_sysfs_whole_disk_dir(dir, disk, sizeof(disk)) == 0 &&
	    lg_sysfs_path(queue, sizeof(queue), "%s/queue", disk) == 0) {
		lg_link_probe(disk, info->interface, sizeof(info->interface), info->link,
			      sizeof(info->link));
		if (lg_sysfs_attr_u64(queue, "logical_block_size", &v) == 0 && v > 0 &&
		    v <= UINT32_MAX)
			info->logical_block_size = (uint32_t)v;
		if (lg_sysfs_attr_u64(queue, "physical_block_size", &v) == 0 && v > 0 &&
		    v <= UINT32_MAX)
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
			lg_copy_string(info->memory_fs, sizeof(info->memory_fs), "tmpfs");
		else if (sfs.f_type == RAMFS_MAGIC)
			lg_copy_string(info->memory_fs, sizeof(info->memory_fs), "ramfs");
	}
	bool has_disk = major(backing) != 0 && lg_sysfs_block_dir(backing, dir, sizeof(dir)) == 0 &&
			lg_sysfs_whole_disk_dir(dir, disk, sizeof(disk)) == 0;
	probe_drive_kind(has_disk ? disk : NULL, true, info->rotational, info);
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
	lg_copy_string(info->path, sizeof(info->path), path);
	lg_copy_string(info->real_path, sizeof(info->real_path), path);
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
		lg_copy_string(dir, sizeof(dir), path);
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

static int open_file(const struct lg_target_info *info, int flags, uint64_t size_bytes, int *ret_fd)
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

int lg_target_open(const struct lg_target_info *info, int flags, uint64_t size_bytes, int *ret_fd)
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

int lg_target_discard(int fd, const struct lg_target_info *info, uint64_t offset, uint64_t length,
		      const char **ret_method)
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
