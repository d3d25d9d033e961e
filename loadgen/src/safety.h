/* safety: whether loadgen may write to a target, decided from facts about it.
 *
 * Every rule here is a pure function of its arguments: no system call, no file,
 * no clock, so that each (--destroy-data must name the device; not mounted, nor
 * any partition; no holders; not swap; opens exclusively; an existing file needs
 * --force; the signatures that are warned about) is tested without root. The
 * facts are gathered from the system by target_check.c.
 *
 * Order of the rules, first refusal wins: confirmation (--destroy-data), mounts,
 * swap, holders, the exclusive open. A file: --force for a file loadgen did not
 * create.
 *
 * Ownership: the facts and the check are plain data owned by the caller; the
 * arrays the facts point to too.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "target.h"

#define LG_SAFETY_MAX_DEVICES 256

/* The device itself (index 0) or one of its partitions. */
struct lg_safety_device {
	dev_t dev;
	char name[64];   /* kernel name: "sdb", "sdb1", "loop0p1" */
	char holder[64]; /* the first entry of its holders/ directory; empty when none */
};

/* A mounted filesystem (a line of /proc/self/mountinfo). */
struct lg_safety_mount {
	dev_t dev;        /* st_dev of the filesystem (mountinfo's third field) */
	dev_t source_dev; /* the block device its source names (btrfs has an anonymous st_dev); 0 */
	char mountpoint[256];
};

struct lg_safety_facts {
	enum lg_target_kind kind;
	const char *path; /* as given on the command line */
	/* a file */
	bool exists;
	bool created_by_loadgen;
	bool force;
	/* a block device: --destroy-data */
	const char *destroy_data;    /* NULL or empty: not given */
	int destroy_data_errno;      /* resolving it failed with this errno; 0 when it resolved */
	bool destroy_data_is_device; /* it resolved to a block device node ... */
	dev_t destroy_data_dev;      /* ... with this number */
	/* a block device: the device [0] and its partitions */
	struct lg_safety_device devices[LG_SAFETY_MAX_DEVICES];
	size_t ndevices;
	const struct lg_safety_mount *mounts;
	size_t nmounts;
	const dev_t *swaps; /* block devices in use as swap */
	size_t nswaps;
	bool busy; /* an exclusive open of the device failed with EBUSY */
};

/* Decide from the facts. Returns 0 when writing is allowed, 1 when refused
 * (check->refusal and check->detail say why). check->signature is not touched. */
int lg_safety_decide(const struct lg_safety_facts *facts, struct lg_target_check *check);

/* Parse a line of /proc/self/mountinfo (modified in place): *ret_mount gets dev
 * and the unescaped mount point (source_dev 0); *ret_source the unescaped mount
 * source (the field after "-" and the filesystem type), NULL when absent.
 * Returns 0, or -EINVAL for a line that is not one. */
int lg_safety_parse_mountinfo(char *line, struct lg_safety_mount *ret_mount,
			      const char **ret_source);

/* The device node named by a line of /proc/swaps (modified in place), unescaped;
 * NULL for the header line or a line without one. */
const char *lg_safety_parse_swaps(char *line);

/* Undo the octal escapes (\040 for a space) of mountinfo and swaps fields, in place. */
void lg_safety_unescape(char *s);

/* The first filesystem, volume or partition-table signature in the first len
 * bytes of a device whose logical block size is lbs ("ext4 superblock", "GPT
 * partition table", ...); NULL when none. Reads nothing past b[len - 1]. */
const char *lg_safety_find_signature(const unsigned char *b, size_t len, uint32_t lbs);

/* How many bytes lg_safety_find_signature() looks at: enough for the btrfs
 * superblock at 64 KiB + 64 and a swap signature on pages up to 64 KiB. */
#define LG_SAFETY_SIGNATURE_BYTES (128 * 1024)
