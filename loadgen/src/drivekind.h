/* drivekind: what kind of drive a target is ("ssd", "hdd" or "virtual"), told from
 * facts about the disk that holds it, or not told at all.
 *
 * The rotational flag alone is wrong for every virtual device: zram, loop, RAM
 * disks, nbd, virtio and Xen disks all say "not rotational", and none of them is
 * an SSD. The rules, first match wins:
 *   1. data kept in RAM (a file on tmpfs or ramfs): virtual;
 *   2. a stacked device (device-mapper "dm-N", software RAID "mdN"): not told, its
 *      kind is that of its members;
 *   3. a disk the kernel makes up (zram, loop, ram, nbd, rbd, nullb; a disk under
 *      /sys/devices/virtual/block), a paravirtual one (vd*, xvd*; the virtio_blk,
 *      vbd or xen-blkfront driver) or one a hypervisor emulates (a model naming
 *      QEMU, VirtualBox, VMware, or "Virtual Disk"): virtual;
 *   4. a regular file on any other disk: not told (its figures are the
 *      filesystem's as much as the disk's);
 *   5. a block device: its rotational flag, hdd or ssd; not told when unknown.
 * Pure functions: no system call, no file. The facts are gathered by target.c.
 *
 * Ownership: the facts' strings belong to the caller; names are static strings.
 */
#pragma once

#include <stdbool.h>

enum lg_drive_kind {
	LG_DRIVE_KIND_UNKNOWN = 0, /* cannot be told: left out of the document */
	LG_DRIVE_KIND_SSD,
	LG_DRIVE_KIND_HDD,
	LG_DRIVE_KIND_VIRTUAL,
};

struct lg_drivekind_facts {
	bool file;             /* a regular file: the other facts are of the disk holding it */
	const char *memory_fs; /* "tmpfs" or "ramfs" for a file kept in RAM; NULL or empty */
	const char *disk;      /* kernel name of the whole disk ("sda", "vda", "zram0");
	                        * NULL or empty when there is none (a file on tmpfs, NFS) */
	const char *sysfs_dir; /* the disk's resolved sysfs directory; NULL or empty */
	const char *driver;    /* the driver bound to the disk's device ("virtio_blk");
	                        * NULL or empty when none is */
	const char *model;     /* as probed, vendor first for SCSI ("QEMU QEMU HARDDISK") */
	int rotational;        /* 1, 0, or -1 when unknown */
};

/* The kind the facts tell. Returns 0 and *ret_kind, or -EINVAL for NULL arguments. */
int lg_drivekind_infer(const struct lg_drivekind_facts *facts, enum lg_drive_kind *ret_kind);

/* "ssd", "hdd" or "virtual" as the result document names them; NULL for unknown. */
const char *lg_drivekind_name(enum lg_drive_kind kind);
