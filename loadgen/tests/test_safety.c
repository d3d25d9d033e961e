#define _GNU_SOURCE
/* The safety rules as pure functions, without root or devices: the decision from
 * facts (confirmation, mounts of the device or a partition, btrfs's anonymous
 * st_dev, swap, holders, the exclusive open, files and --force, and the order in
 * which they refuse), the parsers of /proc/self/mountinfo and /proc/swaps lines,
 * and every signature, at its offset and cut short. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "safety.h"
#include "test_common.h"

static struct lg_safety_facts block_facts(void)
{
	struct lg_safety_facts f = {
		.kind = LG_TARGET_BLOCK,
		.path = "/dev/sdb",
		.destroy_data = "/dev/sdb",
		.destroy_data_is_device = true,
		.destroy_data_dev = makedev(8, 16),
		.ndevices = 3,
	};

	f.devices[0] = (struct lg_safety_device){.dev = makedev(8, 16), .name = "sdb"};
	f.devices[1] = (struct lg_safety_device){.dev = makedev(8, 17), .name = "sdb1"};
	f.devices[2] = (struct lg_safety_device){.dev = makedev(8, 18), .name = "sdb2"};
	return f;
}

static enum lg_target_refusal decide(const struct lg_safety_facts *f, struct lg_target_check *c)
{
	int r = lg_safety_decide(f, c);

	CHECKF((r == 0) == (c->refusal == LG_REFUSE_NONE), "r %d refusal %s", r,
	       lg_target_refusal_name(c->refusal));
	return c->refusal;
}

static void test_refusal_names(void)
{
	for (int i = LG_REFUSE_NONE; i <= LG_REFUSE_NOT_SUPPORTED; i++) {
		const char *a = lg_target_refusal_name((enum lg_target_refusal)i);

		CHECK(a && a[0] && strcmp(a, "unknown") != 0);
		for (int j = LG_REFUSE_NONE; j < i; j++)
			CHECK(strcmp(a, lg_target_refusal_name((enum lg_target_refusal)j)) != 0);
	}
	CHECK(strcmp(lg_target_refusal_name(LG_REFUSE_HOLDERS), "holders") == 0);
}

static void test_confirmation(void)
{
	struct lg_target_check c;
	struct lg_safety_facts f = block_facts();

	CHECK(decide(&f, &c) == LG_REFUSE_NONE && c.detail[0] == '\0');

	f.destroy_data = NULL;
	CHECK(decide(&f, &c) == LG_REFUSE_NO_CONFIRM);
	CHECKF(strstr(c.detail, "--destroy-data=/dev/sdb"), "%s", c.detail);
	f.destroy_data = "";
	CHECK(decide(&f, &c) == LG_REFUSE_NO_CONFIRM);

	f = block_facts();
	f.destroy_data = "/dev/sdc";
	f.destroy_data_dev = makedev(8, 32);
	CHECK(decide(&f, &c) == LG_REFUSE_CONFIRM_MISMATCH);
	CHECKF(strstr(c.detail, "does not name the target device /dev/sdb") &&
		       !strstr(c.detail, "("),
	       "%s", c.detail);
	/* a partition of the device is not the device */
	f.destroy_data_dev = makedev(8, 17);
	CHECK(decide(&f, &c) == LG_REFUSE_CONFIRM_MISMATCH);
	/* a symlinked target is named with its kernel name too */
	f.path = "/dev/disk/by-id/ata-X";
	CHECK(decide(&f, &c) == LG_REFUSE_CONFIRM_MISMATCH);
	CHECKF(strstr(c.detail, "/dev/disk/by-id/ata-X (/dev/sdb)"), "%s", c.detail);
	/* a regular file with the device's number is no confirmation */
	f = block_facts();
	f.destroy_data_is_device = false;
	CHECK(decide(&f, &c) == LG_REFUSE_CONFIRM_MISMATCH);
	f = block_facts();
	f.destroy_data = "/dev/nope";
	f.destroy_data_errno = ENOENT;
	CHECK(decide(&f, &c) == LG_REFUSE_CONFIRM_MISMATCH);
	CHECKF(strstr(c.detail, "No such file"), "%s", c.detail);
}

static void test_mounts(void)
{
	struct lg_target_check c;
	struct lg_safety_facts f = block_facts();
	struct lg_safety_mount m[3] = {
		{.dev = makedev(0, 25), .mountpoint = "/"},
		{.dev = makedev(8, 1), .mountpoint = "/boot"},
		{.dev = makedev(8, 16), .mountpoint = "/mnt/a b"},
	};

	f.mounts = m;
	f.nmounts = 2; /* other devices' mounts: allowed */
	CHECK(decide(&f, &c) == LG_REFUSE_NONE);
	f.nmounts = 3;
	CHECK(decide(&f, &c) == LG_REFUSE_MOUNTED);
	CHECKF(strcmp(c.detail, "/dev/sdb is mounted on /mnt/a b") == 0, "%s", c.detail);

	m[2].dev = makedev(8, 18);
	CHECK(decide(&f, &c) == LG_REFUSE_PARTITION_MOUNTED);
	CHECKF(strcmp(c.detail, "partition /dev/sdb2 of /dev/sdb is mounted on /mnt/a b") == 0,
	       "%s", c.detail);

	/* btrfs: an anonymous st_dev, the source names the partition */
	m[2].dev = makedev(0, 40);
	m[2].source_dev = makedev(8, 17);
	CHECK(decide(&f, &c) == LG_REFUSE_PARTITION_MOUNTED);
	CHECKF(strstr(c.detail, "/dev/sdb1"), "%s", c.detail);
	m[2].source_dev = makedev(8, 33);
	CHECK(decide(&f, &c) == LG_REFUSE_NONE);
}

static void test_swap_holders_busy(void)
{
	struct lg_target_check c;
	struct lg_safety_facts f = block_facts();
	dev_t swaps[2] = {makedev(8, 2), makedev(8, 16)};

	f.swaps = swaps;
	f.nswaps = 1;
	CHECK(decide(&f, &c) == LG_REFUSE_NONE);
	f.nswaps = 2;
	CHECK(decide(&f, &c) == LG_REFUSE_SWAP);
	CHECKF(strcmp(c.detail, "/dev/sdb is in use as swap") == 0, "%s", c.detail);
	swaps[1] = makedev(8, 17);
	CHECK(decide(&f, &c) == LG_REFUSE_SWAP);
	CHECKF(strstr(c.detail, "partition /dev/sdb1 of /dev/sdb"), "%s", c.detail);

	f = block_facts();
	snprintf(f.devices[2].holder, sizeof(f.devices[2].holder), "md0");
	CHECK(decide(&f, &c) == LG_REFUSE_HOLDERS);
	CHECKF(strstr(c.detail, "partition /dev/sdb2 of /dev/sdb is in use by md0"), "%s",
	       c.detail);
	snprintf(f.devices[0].holder, sizeof(f.devices[0].holder), "dm-0");
	CHECK(decide(&f, &c) == LG_REFUSE_HOLDERS);
	CHECKF(strstr(c.detail, "/dev/sdb is in use by dm-0"), "%s", c.detail);

	f = block_facts();
	f.busy = true;
	CHECK(decide(&f, &c) == LG_REFUSE_BUSY);
	CHECKF(strstr(c.detail, "cannot be opened exclusively"), "%s", c.detail);
}

/* Each rule refuses before the ones after it: confirmation, mounts, swap,
 * holders, the exclusive open. */
static void test_order(void)
{
	struct lg_target_check c;
	struct lg_safety_facts f = block_facts();
	struct lg_safety_mount m = {.dev = makedev(8, 16), .mountpoint = "/mnt"};
	dev_t swap = makedev(8, 16);

	f.busy = true;
	snprintf(f.devices[0].holder, sizeof(f.devices[0].holder), "dm-0");
	f.swaps = &swap;
	f.nswaps = 1;
	f.mounts = &m;
	f.nmounts = 1;
	f.destroy_data = NULL;
	CHECK(decide(&f, &c) == LG_REFUSE_NO_CONFIRM);
	f.destroy_data = "/dev/sdb";
	CHECK(decide(&f, &c) == LG_REFUSE_MOUNTED);
	f.nmounts = 0;
	CHECK(decide(&f, &c) == LG_REFUSE_SWAP);
	f.nswaps = 0;
	CHECK(decide(&f, &c) == LG_REFUSE_HOLDERS);
	f.devices[0].holder[0] = '\0';
	CHECK(decide(&f, &c) == LG_REFUSE_BUSY);
}

static void test_files(void)
{
	struct lg_target_check c;
	struct lg_safety_facts f = {.kind = LG_TARGET_FILE, .path = "/var/tmp/x.bin"};

	CHECK(decide(&f, &c) == LG_REFUSE_NONE); /* to be created */
	f.exists = true;
	CHECK(decide(&f, &c) == LG_REFUSE_EXISTING_FILE);
	CHECKF(strstr(c.detail, "/var/tmp/x.bin exists") && strstr(c.detail, "--force"), "%s",
	       c.detail);
	f.force = true;
	CHECK(decide(&f, &c) == LG_REFUSE_NONE);
	f.force = false;
	f.created_by_loadgen = true;
	CHECK(decide(&f, &c) == LG_REFUSE_NONE);
	/* a file needs no --destroy-data */
	f.destroy_data = NULL;
	CHECK(decide(&f, &c) == LG_REFUSE_NONE);

	struct lg_safety_facts none = {.kind = LG_TARGET_BLOCK, .path = "/dev/x"};

	CHECK(decide(&none, &c) == LG_REFUSE_NOT_SUPPORTED); /* no device known */
}

static void test_parsers(void)
{
	struct lg_safety_mount m;
	const char *source;
	char line[512];

	snprintf(line, sizeof(line),
		 "36 35 8:17 / /mnt/my\\040disk rw,noatime shared:1 master:2 - "
		 "ext4 /dev/sdb1 rw,errors=remount-ro\n");
	CHECK(lg_safety_parse_mountinfo(line, &m, &source) == 0);
	CHECK(m.dev == makedev(8, 17) && m.source_dev == 0);
	CHECKF(strcmp(m.mountpoint, "/mnt/my disk") == 0, "%s", m.mountpoint);
	CHECKF(source && strcmp(source, "/dev/sdb1") == 0, "%s", source ? source : "(null)");

	/* no optional fields; a source with an escaped space */
	snprintf(line, sizeof(line), "40 1 0:50 / /data rw - btrfs /dev/disk\\040x rw\n");
	CHECK(lg_safety_parse_mountinfo(line, &m, &source) == 0);
	CHECK(m.dev == makedev(0, 50));
	CHECKF(source && strcmp(source, "/dev/disk x") == 0, "%s", source ? source : "(null)");

	snprintf(line, sizeof(line), "40 1 0:50 / /data rw -\n"); /* no source */
	CHECK(lg_safety_parse_mountinfo(line, &m, &source) == 0 && source == NULL);
	snprintf(line, sizeof(line), "garbage\n");
	CHECK(lg_safety_parse_mountinfo(line, &m, &source) == -EINVAL);
	snprintf(line, sizeof(line), "1 2 x:y / /a rw - ext4 /dev/a rw\n");
	CHECK(lg_safety_parse_mountinfo(line, &m, &source) == -EINVAL);

	snprintf(line, sizeof(line), "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
	CHECK(lg_safety_parse_swaps(line) == NULL);
	snprintf(line, sizeof(line),
		 "/dev/sdb2                               partition\t8388604\t0\t-2\n");
	CHECK(strcmp(lg_safety_parse_swaps(line), "/dev/sdb2") == 0);
	snprintf(line, sizeof(line), "/swap\\040file file 100 0 -3\n");
	CHECK(strcmp(lg_safety_parse_swaps(line), "/swap file") == 0);
	snprintf(line, sizeof(line), "\n");
	CHECK(lg_safety_parse_swaps(line) == NULL);

	/* an escape that is not one stays as it is */
	snprintf(line, sizeof(line), "a\\09b\\1");
	lg_safety_unescape(line);
	CHECK(strcmp(line, "a\\09b\\1") == 0);
}

struct signature_case {
	size_t offset;
	const char *magic;
	size_t len;
	const char *expected;
};

/* Every signature at its offset is found, whatever the buffer length that still
 * holds it, and not when the buffer ends before it (ASan checks the reads). */
static void test_signatures(void)
{
	static const struct signature_case cases[] = {
		{0, "LUKS\xba\xbe", 6, "LUKS encrypted volume header"},
		{0, "LABELONE", 8, "LVM2 physical volume label"},
		{1536, "LABELONE", 8, "LVM2 physical volume label"},
		{4096, "\xfc\x4e\x2b\xa9", 4, "Linux RAID (md) superblock"},
		{0, "XFSB", 4, "XFS superblock"},
		{65536 + 64, "_BHRfS_M", 8, "btrfs superblock"},
		{4096 - 10, "SWAPSPACE2", 10, "swap signature"},
		{65536 - 10, "SWAP-SPACE", 10, "swap signature"},
		{3, "NTFS    ", 8, "NTFS boot sector"},
		{3, "EXFAT   ", 8, "exFAT boot sector"},
		{512, "EFI PART", 8, "GPT partition table"},
		{4096, "EFI PART", 8, "GPT partition table"},
		{32769, "CD001", 5, "ISO 9660 filesystem"},
	};
	const size_t size = LG_SAFETY_SIGNATURE_BYTES;
	unsigned char *b = calloc(1, size);

	if (!b) {
		CHECK(!"out of memory");
		return;
	}
	CHECK(lg_safety_find_signature(b, size, 512) == NULL);
	CHECK(lg_safety_find_signature(b, 0, 512) == NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct signature_case *t = &cases[i];
		size_t end = t->offset + t->len;
		const char *got;

		memset(b, 0, size);
		memcpy(b + t->offset, t->magic, t->len);
		got = lg_safety_find_signature(b, size, 512);
		CHECKF(got && strcmp(got, t->expected) == 0, "at %zu: %s", t->offset,
		       got ? got : "none");
		/* exactly long enough, then one byte short; copied so that ASan sees the end */
		for (size_t len = end; len + 1 >= end && len > 0; len--) {
			unsigned char *cut = malloc(len);

			memcpy(cut, b, len);
			got = lg_safety_find_signature(cut, len, 512);
			CHECKF((len == end) == (got && strcmp(got, t->expected) == 0),
			       "at %zu, %zu bytes: %s", t->offset, len, got ? got : "none");
			free(cut);
		}
	}

	/* GPT after a logical block of 2048 bytes */
	memset(b, 0, size);
	memcpy(b + 2048, "EFI PART", 8);
	CHECK(lg_safety_find_signature(b, size, 2048) != NULL);
	CHECK(lg_safety_find_signature(b, size, 512) == NULL);

	/* ext2, ext3, ext4 by their feature flags */
	memset(b, 0, size);
	b[1024 + 56] = 0x53, b[1024 + 57] = 0xEF;
	CHECK(strcmp(lg_safety_find_signature(b, size, 512), "ext2 superblock") == 0);
	b[1024 + 0x5C] = 0x04; /* has_journal */
	CHECK(strcmp(lg_safety_find_signature(b, size, 512), "ext3 superblock") == 0);
	b[1024 + 0x60] = 0x80; /* 64bit */
	CHECK(strcmp(lg_safety_find_signature(b, size, 512), "ext4 superblock") == 0);

	/* MBR: a boot signature alone is not a table; a partition type is */
	memset(b, 0, size);
	b[510] = 0x55, b[511] = 0xAA;
	CHECK(lg_safety_find_signature(b, size, 512) == NULL);
	b[446 + 16 * 3 + 4] = 0x07;
	CHECK(strcmp(lg_safety_find_signature(b, size, 512), "MBR partition table") == 0);
	/* FAT comes before the partition table its boot sector looks like */
	memcpy(b + 0x52, "FAT32   ", 8);
	CHECK(strcmp(lg_safety_find_signature(b, size, 512), "FAT boot sector") == 0);
	memset(b + 0x52, 0, 8);
	memcpy(b + 0x36, "FAT16   ", 8);
	CHECK(strcmp(lg_safety_find_signature(b, size, 512), "FAT boot sector") == 0);
	/* without the boot signature, FAT names are not enough */
	b[510] = 0;
	CHECK(lg_safety_find_signature(b, size, 512) == NULL);
	free(b);
}

int main(void)
{
	test_refusal_names();
	test_confirmation();
	test_mounts();
	test_swap_holders_busy();
	test_order();
	test_files();
	test_parsers();
	test_signatures();
	return test_result("safety");
}
