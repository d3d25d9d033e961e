/* drivekind: the kind of drive a target is. See drivekind.h for the rules. */
#define _GNU_SOURCE
#include "drivekind.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

static bool given(const char *s)
{
	return s && s[0];
}

/* name is prefix followed by nothing but digits (and a partition-free disk has no
 * letters after them): "loop0", "zram12", "nbd3", "ram0". */
static bool numbered(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) != 0 || !name[n])
		return false;
	for (const char *p = name + n; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

/* name is prefix followed by one or more lowercase letters: "vda", "xvdab". */
static bool lettered(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) != 0 || !name[n])
		return false;
	for (const char *p = name + n; *p; p++)
		if (!islower((unsigned char)*p))
			return false;
	return true;
}

static bool stacked(const char *disk)
{
	return numbered(disk, "dm-") || numbered(disk, "md");
}

static bool virtual_name(const char *disk)
{
	static const char *const numbered_names[] = {"zram", "loop",  "ram", "nbd",
						     "rbd",  "nullb", NULL};

	for (size_t i = 0; numbered_names[i]; i++)
		if (numbered(disk, numbered_names[i]))
			return true;
	return lettered(disk, "vd") || lettered(disk, "xvd");
}

static bool virtual_driver(const char *driver)
{
	static const char *const drivers[] = {"virtio_blk", "vbd", "xen-blkfront", NULL};

	for (size_t i = 0; drivers[i]; i++)
		if (strcmp(driver, drivers[i]) == 0)
			return true;
	return false;
}

static bool emulated_model(const char *model)
{
	static const char *const marks[] = {"QEMU", "VBOX", "VMware", "Virtual Disk", NULL};

	for (size_t i = 0; marks[i]; i++)
		if (strcasestr(model, marks[i]))
			return true;
	return false;
}

int lg_drivekind_infer(const struct lg_drivekind_facts *facts, enum lg_drive_kind *ret_kind)
{
	if (!facts || !ret_kind)
		return -EINVAL;
	*ret_kind = LG_DRIVE_KIND_UNKNOWN;
	if (given(facts->memory_fs)) {
		*ret_kind = LG_DRIVE_KIND_VIRTUAL;
		return 0;
	}
	if (given(facts->disk) && stacked(facts->disk))
		return 0;
	if ((given(facts->disk) && virtual_name(facts->disk)) ||
	    (given(facts->sysfs_dir) && strstr(facts->sysfs_dir, "/devices/virtual/block/")) ||
	    (given(facts->driver) && virtual_driver(facts->driver)) ||
	    (given(facts->model) && emulated_model(facts->model))) {
		*ret_kind = LG_DRIVE_KIND_VIRTUAL;
		return 0;
	}
	if (facts->file || !given(facts->disk))
		return 0;
	if (facts->rotational == 1)
		*ret_kind = LG_DRIVE_KIND_HDD;
	else if (facts->rotational == 0)
		*ret_kind = LG_DRIVE_KIND_SSD;
	return 0;
}

const char *lg_drivekind_name(enum lg_drive_kind kind)
{
	switch (kind) {
	case LG_DRIVE_KIND_SSD:
		return "ssd";
	case LG_DRIVE_KIND_HDD:
		return "hdd";
	case LG_DRIVE_KIND_VIRTUAL:
		return "virtual";
	case LG_DRIVE_KIND_UNKNOWN:
		break;
	}
	return NULL;
}
