/* target: what loadgen knows of the file or block device it runs against, the
 * safety checks before any write to it, and how it is opened and discarded.
 *
 * Ownership: struct lg_target_info and struct lg_target_check are plain data
 * (fixed-size strings, no pointers); the caller owns them. A file descriptor
 * returned by lg_target_open() belongs to the caller, who closes it.
 * Nothing in this module prints: refusals come back as a reason and a detail
 * string for main.c to show.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum lg_target_kind {
	LG_TARGET_FILE = 0,  /* regular file (existing or to be created) */
	LG_TARGET_BLOCK = 1, /* block device node */
};

struct lg_target_info {
	char path[4096];      /* as given on the command line */
	char real_path[4096]; /* realpath(), or path when the file does not exist yet */
	enum lg_target_kind kind;
	bool exists;             /* false: a file target that lg_target_open() will create */
	bool created_by_loadgen; /* an existing file that carries loadgen's creation mark */
	char devname[64];        /* kernel name ("sda", "loop0", "nvme0n1"); empty for files */
	uint32_t dev_major, dev_minor; /* block device numbers; 0 for files */
	char vendor[64];               /* the maker, where the device or its model names one */
	char model[128];               /* empty when unknown */
	char serial_hash[33];          /* the serial's salted hash (ident.h); the serial itself
	                                * is never kept */
	char firmware[64];
	char identified_by[16];       /* "nvme-identify" (the controller's own Identify data) or
	                         * "sysfs"; empty when the device has no identity */
	uint64_t capacity_bytes;      /* device size, or file size (0 for a missing file) */
	int rotational;               /* 1, 0, or -1 when unknown (files: of the backing device) */
	uint32_t logical_block_size;  /* bytes; 512 when unknown */
	uint32_t physical_block_size; /* bytes; logical_block_size when unknown */
	bool supports_discard; /* block: discard_max_bytes > 0; file: hole punching assumed */
	char memory_fs[8];     /* "tmpfs" or "ramfs" for a file whose data lives in RAM;
	                            * empty otherwise */
	char drive_kind[8];    /* "ssd", "hdd" or "virtual" (drivekind.h); empty when it cannot
	                        * be told */
	char interface[16];    /* how the disk (of a file: the disk holding it) is attached,
	                        * and the link it negotiated (link.h); empty when not told */
	char link[64];
};

/* Why a write was refused; LG_REFUSE_NONE when it is allowed. */
enum lg_target_refusal {
	LG_REFUSE_NONE = 0,
	LG_REFUSE_NO_CONFIRM,        /* block device without --destroy-data=DEVICE */
	LG_REFUSE_CONFIRM_MISMATCH,  /* --destroy-data names another device */
	LG_REFUSE_MOUNTED,           /* the device itself is mounted */
	LG_REFUSE_PARTITION_MOUNTED, /* one of its partitions is mounted */
	LG_REFUSE_HOLDERS,           /* it or a partition has holders (LVM, RAID, dm) */
	LG_REFUSE_SWAP,              /* it or a partition is active swap */
	LG_REFUSE_BUSY,              /* cannot be opened exclusively (O_EXCL gave EBUSY) */
	LG_REFUSE_EXISTING_FILE,     /* existing file not created by loadgen, no --force */
	LG_REFUSE_NOT_SUPPORTED,     /* neither a regular file nor a block device */
};

struct lg_target_check {
	enum lg_target_refusal refusal;
	char detail[512];    /* human-readable reason, e.g. "/dev/loop0p1 is mounted on /mnt" */
	char signature[128]; /* a filesystem or partition-table signature found on the device
	                       * ("ext4 superblock", "GPT partition table"); empty when none.
	                       * A warning, not a refusal. */
};

/* Open flags for lg_target_open(). */
enum {
	LG_OPEN_WRITE = 1 << 0,  /* read-write; otherwise read-only */
	LG_OPEN_DIRECT = 1 << 1, /* O_DIRECT */
	LG_OPEN_EXCL = 1 << 2,   /* O_EXCL on a block device (exclusive claim) */
};

/* Name of a refusal, for messages and tests ("mounted", "holders", ...). */
const char *lg_target_refusal_name(enum lg_target_refusal refusal);

/* Fill *ret_info from stat(), sysfs and ioctls (BLKGETSIZE64, BLKSSZGET, BLKPBSZGET).
 * A missing path is a file target with exists=false. Returns 0, or -errno
 * (-ENOTDIR, -EACCES, ...; -ENOTSUP for a character device, FIFO, socket or directory). */
int lg_target_probe(const char *path, struct lg_target_info *ret_info);

/* Decide whether loadgen may write to the target. destroy_data is the value of
 * --destroy-data (NULL when absent); it must name the same device (compared by
 * device number after resolving symlinks). force is --force. Returns 0 when
 * writing is allowed (ret_check->signature may carry a warning), -EPERM when
 * refused (ret_check->refusal and detail say why), another -errno when the
 * checks themselves could not be made. */
int lg_target_check_writable(const struct lg_target_info *info, const char *destroy_data,
			     bool force, struct lg_target_check *ret_check);

/* Open the target. A missing file target is created with size_bytes (and marked
 * as created by loadgen, so a later run may overwrite it without --force); an
 * existing file smaller than size_bytes is extended. size_bytes is ignored for
 * block devices. With LG_OPEN_DIRECT, a target that cannot do O_DIRECT gives
 * -EINVAL. Returns 0 and *ret_fd, or -errno. */
int lg_target_open(const struct lg_target_info *info, int flags, uint64_t size_bytes, int *ret_fd);

/* Discard [offset, offset+length): BLKDISCARD on a block device, fallocate
 * FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE on a file. *ret_method is set to
 * "blkdiscard" or "punch-hole" (static strings). Returns 0 or -errno
 * (-EOPNOTSUPP when the target cannot discard). */
int lg_target_discard(int fd, const struct lg_target_info *info, uint64_t offset, uint64_t length,
		      const char **ret_method);
