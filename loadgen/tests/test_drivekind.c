/* drivekind: virtual devices are virtual whatever their rotational flag says,
 * stacked devices and files on real disks are not told, real disks go by the flag. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "drivekind.h"
#include "test_common.h"

static const char *kind_of(struct lg_drivekind_facts f)
{
	enum lg_drive_kind kind = LG_DRIVE_KIND_SSD;
	const char *name;

	if (lg_drivekind_infer(&f, &kind) < 0)
		return "error";
	name = lg_drivekind_name(kind);
	return name ? name : "unknown";
}

#define KIND(expected, ...)                                                               \
	do {                                                                              \
		const char *got = kind_of((struct lg_drivekind_facts){__VA_ARGS__});      \
		CHECKF(strcmp(got, expected) == 0, "expected %s, got %s", expected, got); \
	} while (0)

static void test_real_disks_go_by_the_rotational_flag(void)
{
	KIND("ssd", .disk = "nvme0n1", .sysfs_dir = "/sys/devices/pci0000:00/nvme/nvme0/nvme0n1",
	     .driver = "nvme", .model = "Samsung SSD 980", .rotational = 0);
	KIND("hdd", .disk = "sda", .driver = "sd", .model = "WDC WD40EFRX", .rotational = 1);
	KIND("ssd", .disk = "sdb", .driver = "sd", .model = "Crucial M4", .rotational = 0);
	KIND("unknown", .disk = "sdc", .rotational = -1);
	KIND("ssd", .disk = "mmcblk0", .model = "SD32G", .rotational = 0);
}

static void test_virtual_devices_are_virtual_whatever_the_flag(void)
{
	for (int rot = -1; rot <= 1; rot++) {
		KIND("virtual", .disk = "zram0", .rotational = rot);
		KIND("virtual", .disk = "loop7", .rotational = rot);
		KIND("virtual", .disk = "ram0", .rotational = rot);
		KIND("virtual", .disk = "nbd12", .rotational = rot);
		KIND("virtual", .disk = "rbd0", .rotational = rot);
		KIND("virtual", .disk = "nullb0", .rotational = rot);
		KIND("virtual", .disk = "vda", .rotational = rot);
		KIND("virtual", .disk = "vdab", .rotational = rot);
		KIND("virtual", .disk = "xvdb", .rotational = rot);
	}
	/* By driver, sysfs place or emulated model, whatever the name. */
	KIND("virtual", .disk = "sda", .driver = "virtio_blk", .rotational = 0);
	KIND("virtual", .disk = "sdb", .driver = "xen-blkfront", .rotational = 0);
	KIND("virtual", .disk = "brd9", .sysfs_dir = "/sys/devices/virtual/block/brd9",
	     .rotational = 0);
	KIND("virtual", .disk = "sda", .driver = "sd", .model = "QEMU QEMU HARDDISK",
	     .rotational = 1);
	KIND("virtual", .disk = "sda", .model = "VBOX HARDDISK", .rotational = 0);
	KIND("virtual", .disk = "sdb", .model = "VMware Virtual S", .rotational = 1);
	KIND("virtual", .disk = "sdc", .model = "Msft Virtual Disk", .rotational = 0);
}

static void test_names_that_only_look_virtual(void)
{
	KIND("ssd", .disk = "vdisk0", .rotational = 0); /* "vd" then not only letters */
	KIND("ssd", .disk = "ramdrive", .rotational = 0);
	KIND("hdd", .disk = "loopy", .rotational = 1);
	KIND("ssd", .disk = "zram", .rotational = 0); /* no number */
}

static void test_stacked_devices_are_not_told(void)
{
	KIND("unknown", .disk = "dm-0", .sysfs_dir = "/sys/devices/virtual/block/dm-0",
	     .rotational = 0);
	KIND("unknown", .disk = "md127", .sysfs_dir = "/sys/devices/virtual/block/md127",
	     .rotational = 1);
}

static void test_files(void)
{
	KIND("virtual", .file = true, .memory_fs = "tmpfs", .rotational = -1);
	KIND("virtual", .file = true, .memory_fs = "ramfs", .disk = "sda", .rotational = 1);
	KIND("virtual", .file = true, .disk = "vda", .driver = "virtio_blk", .rotational = 1);
	KIND("virtual", .file = true, .disk = "zram0", .rotational = 0);
	/* On a real disk, or none (NFS, overlay): its figures are the filesystem's too. */
	KIND("unknown", .file = true, .disk = "nvme0n1", .rotational = 0);
	KIND("unknown", .file = true, .disk = "sda", .rotational = 1);
	KIND("unknown", .file = true, .rotational = -1);
	KIND("unknown", .file = true, .memory_fs = "", .disk = "", .rotational = -1);
}

static void test_errors_and_names(void)
{
	struct lg_drivekind_facts f = {.disk = "sda", .rotational = 0};
	enum lg_drive_kind kind;

	CHECK(lg_drivekind_infer(NULL, &kind) == -EINVAL);
	CHECK(lg_drivekind_infer(&f, NULL) == -EINVAL);
	CHECK(lg_drivekind_name(LG_DRIVE_KIND_UNKNOWN) == NULL);
	CHECK(strcmp(lg_drivekind_name(LG_DRIVE_KIND_VIRTUAL), "virtual") == 0);
	CHECK(lg_drivekind_name((enum lg_drive_kind)42) == NULL);
	KIND("unknown", .rotational = 0); /* no disk at all */
}

int main(void)
{
	test_real_disks_go_by_the_rotational_flag();
	test_virtual_devices_are_virtual_whatever_the_flag();
	test_names_that_only_look_virtual();
	test_stacked_devices_are_not_told();
	test_files();
	test_errors_and_names();
	return test_result("drivekind");
}
