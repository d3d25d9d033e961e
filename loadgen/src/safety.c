#define _GNU_SOURCE
#include "safety.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sysfs.h"

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

__attribute__((format(printf, 3, 4))) static int refuse(struct lg_target_check *check,
							enum lg_target_refusal refusal,
							const char *fmt, ...)
{
	va_list ap;

	check->refusal = refusal;
	va_start(ap, fmt);
	vsnprintf(check->detail, sizeof(check->detail), fmt, ap);
	va_end(ap);
	return 1;
}

/* Index of dev among the device and its partitions, -1 when it is none of them. */
static int device_index(const struct lg_safety_facts *f, dev_t dev)
{
	for (size_t i = 0; i < f->ndevices; i++)
		if (f->devices[i].dev == dev)
			return (int)i;
	return -1;
}

/* --destroy-data must name the target device itself. */
static int confirm_rule(const struct lg_safety_facts *f, struct lg_target_check *check)
{
	const char *name = f->devices[0].name;
	char kernel_name[80];
	bool same;

	if (!f->destroy_data || !f->destroy_data[0])
		return refuse(
			check, LG_REFUSE_NO_CONFIRM,
			"writing to %s destroys the data on it; confirm with --destroy-data=%s",
			f->path, f->path);
	if (f->destroy_data_errno)
		return refuse(check, LG_REFUSE_CONFIRM_MISMATCH,
			      "--destroy-data=%s: %s; the target is %s", f->destroy_data,
			      strerror(f->destroy_data_errno), f->path);
	if (f->destroy_data_is_device && f->destroy_data_dev == f->devices[0].dev)
		return 0;
	snprintf(kernel_name, sizeof(kernel_name), "/dev/%s", name);
	same = strcmp(kernel_name, f->path) == 0;
	return refuse(check, LG_REFUSE_CONFIRM_MISMATCH,
		      "--destroy-data=%s does not name the target device %s%s%s%s", f->destroy_data,
		      f->path, same ? "" : " (", same ? "" : kernel_name, same ? "" : ")");
}

/* Neither the device nor a partition may hold a mounted filesystem. */
static int mount_rule(const struct lg_safety_facts *f, struct lg_target_check *check)
{
	for (size_t i = 0; i < f->nmounts; i++) {
		const struct lg_safety_mount *m = &f->mounts[i];
		int hit = device_index(f, m->dev);

		if (hit < 0 && m->source_dev)
			hit = device_index(f, m->source_dev);
		if (hit == 0)
			return refuse(check, LG_REFUSE_MOUNTED, "/dev/%s is mounted on %s",
				      f->devices[0].name, m->mountpoint);
		if (hit > 0)
			return refuse(check, LG_REFUSE_PARTITION_MOUNTED,
				      "partition /dev/%s of /dev/%s is mounted on %s",
				      f->devices[hit].name, f->devices[0].name, m->mountpoint);
	}
	return 0;
}

/* Neither the device nor a partition may be active swap. */
static int swap_rule(const struct lg_safety_facts *f, struct lg_target_check *check)
{
	for (size_t i = 0; i < f->nswaps; i++) {
		int hit = device_index(f, f->swaps[i]);

		if (hit == 0)
			return refuse(check, LG_REFUSE_SWAP, "/dev/%s is in use as swap",
				      f->devices[0].name);
		if (hit > 0)
			return refuse(check, LG_REFUSE_SWAP,
				      "partition /dev/%s of /dev/%s is in use as swap",
				      f->devices[hit].name, f->devices[0].name);
	}
	return 0;
}

/* Neither the device nor a partition may have holders (device-mapper, MD RAID, bcache). */
static int holders_rule(const struct lg_safety_facts *f, struct lg_target_check *check)
{
	for (size_t i = 0; i < f->ndevices; i++) {
		const struct lg_safety_device *d = &f->devices[i];

		if (!d->holder[0])
			continue;
		if (i == 0)
			return refuse(check, LG_REFUSE_HOLDERS,
				      "/dev/%s is in use by %s (device-mapper, LVM or RAID)",
				      d->name, d->holder);
		return refuse(
			check, LG_REFUSE_HOLDERS,
			"partition /dev/%s of /dev/%s is in use by %s (device-mapper, LVM or RAID)",
			d->name, f->devices[0].name, d->holder);
	}
	return 0;
}

int lg_safety_decide(const struct lg_safety_facts *f, struct lg_target_check *check)
{
	check->refusal = LG_REFUSE_NONE;
	check->detail[0] = '\0';
	if (f->kind == LG_TARGET_FILE) {
		if (f->exists && !f->created_by_loadgen && !f->force)
			return refuse(
				check, LG_REFUSE_EXISTING_FILE,
				"%s exists and was not created by loadgen; --force overwrites it",
				f->path);
		return 0;
	}
	if (f->kind != LG_TARGET_BLOCK || f->ndevices == 0)
		return refuse(check, LG_REFUSE_NOT_SUPPORTED,
			      "%s is neither a regular file nor a block device", f->path);
	if (confirm_rule(f, check) || mount_rule(f, check) || swap_rule(f, check) ||
	    holders_rule(f, check))
		return 1;
	/* The block layer's own answer: an exclusive open fails while anything else
	 * (a filesystem, swap, device-mapper, another exclusive opener) claims it. */
	if (f->busy)
		return refuse(check, LG_REFUSE_BUSY,
			      "/dev/%s is in use: it cannot be opened exclusively",
			      f->devices[0].name);
	return 0;
}

void lg_safety_unescape(char *s)
{
	char *out = s;

	for (char *in = s; *in; in++) {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
		    in[3] >= '0' && in[3] <= '7') {
			*out++ = (char)(((in[1] - '0') << 6) | ((in[2] - '0') << 3) |
					(in[3] - '0'));
			in += 3;
		} else {
			*out++ = *in;
		}
	}
	*out = '\0';
}

int lg_safety_parse_mountinfo(char *line, struct lg_safety_mount *ret_mount,
			      const char **ret_source)
{
	char *fields[16] = {0}, *save = NULL;
	size_t nf = 0;
	const char *source = NULL;
	dev_t dev;

	for (char *tok = strtok_r(line, " \n", &save); tok && nf < 16;
	     tok = strtok_r(NULL, " \n", &save))
		fields[nf++] = tok;
	if (nf < 5 || lg_sysfs_parse_devnum(fields[2], &dev) < 0)
		return -EINVAL;
	/* Optional fields end at "-", then the filesystem type and the source. */
	for (size_t i = 6; i < nf; i++) {
		if (strcmp(fields[i], "-") == 0) {
			if (i + 2 < nf) {
				lg_safety_unescape(fields[i + 2]);
				source = fields[i + 2];
			}
			break;
		}
	}
	memset(ret_mount, 0, sizeof(*ret_mount));
	ret_mount->dev = dev;
	lg_safety_unescape(fields[4]);
	snprintf(ret_mount->mountpoint, sizeof(ret_mount->mountpoint), "%s", fields[4]);
	*ret_source = source;
	return 0;
}

const char *lg_safety_parse_swaps(char *line)
{
	char *save = NULL;
	char *name = strtok_r(line, " \t\n", &save);

	if (!name || strcmp(name, "Filename") == 0)
		return NULL;
	lg_safety_unescape(name);
	return name;
}

/* ---- signatures ------------------------------------------------------------------ */

static uint16_t le16_at(const unsigned char *b, size_t off)
{
	return (uint16_t)(b[off] | (b[off + 1] << 8));
}

static uint32_t le32_at(const unsigned char *b, size_t off)
{
	return (uint32_t)b[off] | ((uint32_t)b[off + 1] << 8) | ((uint32_t)b[off + 2] << 16) |
	       ((uint32_t)b[off + 3] << 24);
}

static bool bytes_at(const unsigned char *b, size_t len, size_t off, const char *magic, size_t mlen)
{
	return off + mlen <= len && memcmp(b + off, magic, mlen) == 0;
}

static const char *ext_signature(const unsigned char *b, size_t len)
{
	if (len < 1024 + 0x64 || le16_at(b, 1024 + 56) != 0xEF53)
		return NULL;
	if (le32_at(b, 1024 + 0x60) & (0x40 | 0x80 | 0x200)) /* extents, 64bit, flex_bg */
		return "ext4 superblock";
	if (le32_at(b, 1024 + 0x5C) & 0x4) /* has_journal */
		return "ext3 superblock";
	return "ext2 superblock";
}

static const char *partition_table_signature(const unsigned char *b, size_t len, uint32_t lbs)
{
	bool boot_sig = len >= 512 && b[510] == 0x55 && b[511] == 0xAA;

	if (boot_sig && (bytes_at(b, len, 0x36, "FAT1", 4) || bytes_at(b, len, 0x52, "FAT32", 5)))
		return "FAT boot sector";
	if (bytes_at(b, len, lbs, "EFI PART", 8) || bytes_at(b, len, 512, "EFI PART", 8) ||
	    bytes_at(b, len, 4096, "EFI PART", 8))
		return "GPT partition table";
	for (size_t i = 0; boot_sig && i < 4; i++)
		if (b[446 + 16 * i + 4] != 0) /* a partition type */
			return "MBR partition table";
	return NULL;
}

const char *lg_safety_find_signature(const unsigned char *b, size_t len, uint32_t lbs)
{
	static const size_t page_sizes[] = {4096, 8192, 16384, 65536};
	const char *sig;

	if (bytes_at(b, len, 0, "LUKS\xba\xbe", 6))
		return "LUKS encrypted volume header";
	for (size_t sector = 0; sector < 4; sector++)
		if (bytes_at(b, len, sector * 512, "LABELONE", 8))
			return "LVM2 physical volume label";
	if (len >= 4096 + 4 && le32_at(b, 4096) == 0xa92b4efc)
		return "Linux RAID (md) superblock";
	if (bytes_at(b, len, 0, "XFSB", 4))
		return "XFS superblock";
	if ((sig = ext_signature(b, len)))
		return sig;
	if (bytes_at(b, len, 65536 + 64, "_BHRfS_M", 8))
		return "btrfs superblock";
	for (size_t i = 0; i < sizeof(page_sizes) / sizeof(page_sizes[0]); i++)
		if (bytes_at(b, len, page_sizes[i] - 10, "SWAPSPACE2", 10) ||
		    bytes_at(b, len, page_sizes[i] - 10, "SWAP-SPACE", 10))
			return "swap signature";
	if (bytes_at(b, len, 3, "NTFS    ", 8))
		return "NTFS boot sector";
	if (bytes_at(b, len, 3, "EXFAT   ", 8))
		return "exFAT boot sector";
	if ((sig = partition_table_signature(b, len, lbs)))
		return sig;
	if (bytes_at(b, len, 32769, "CD001", 5))
		return "ISO 9660 filesystem";
	return NULL;
}
