/* link: a disk's interface and negotiated link, read from sysfs. See link.h. */
#define _GNU_SOURCE
#include "link.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysfs.h"
#include "text.h"

/* Whether name is prefix followed by one or more digits and nothing else. */
static bool numbered(const char *name, size_t len, const char *prefix)
{
	size_t p = strlen(prefix);
	if (len <= p || strncmp(name, prefix, p) != 0)
		return false;
	for (size_t i = p; i < len; i++)
		if (!isdigit((unsigned char)name[i]))
			return false;
	return true;
}

/* The first component of path that is prefix followed by digits: its offset and
 * length, or -1. */
static ptrdiff_t find_component(const char *path, const char *prefix, size_t *ret_len)
{
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		const char *end = strchrnul(p, '/');
		if (numbered(p, (size_t)(end - p), prefix)) {
			*ret_len = (size_t)(end - p);
			return p - path;
		}
		p = end;
	}
	return -1;
}

/* path cut to its first `len` bytes, into out. Returns 0 or -ENAMETOOLONG. */
static int cut(const char *path, size_t len, char *out, size_t size)
{
	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(out, path, len);
	out[len] = '\0';
	return 0;
}

int lg_link_pcie(const char *speed, const char *width, char *out, size_t size)
{
	static const struct {
		double gts;
		const char *generation;
	} generations[] = {{2.5, "1.0"},  {5.0, "2.0"},  {8.0, "3.0"},
			   {16.0, "4.0"}, {32.0, "5.0"}, {64.0, "6.0"}};
	char *end;
	double gts = strtod(speed, &end);
	while (*end == ' ')
		end++;
	if (end == speed || !(gts > 0) || strncmp(end, "GT/s", 4) != 0)
		return -EINVAL;
	const char *generation = NULL;
	for (size_t i = 0; i < sizeof(generations) / sizeof(generations[0]); i++)
		if (gts == generations[i].gts)
			generation = generations[i].generation;
	char lanes[32] = "";
	if (width && *width && strspn(width, "0123456789") == strlen(width) && strcmp(width, "0"))
		snprintf(lanes, sizeof(lanes), " x%s", width);
	if (generation)
		snprintf(out, size, "PCIe %s%s (%.1f GT/s)", generation, lanes, gts);
	else
		snprintf(out, size, "PCIe%s (%.1f GT/s)", lanes, gts);
	return 0;
}

/* The link of the NVMe controller whose PCI function's directory is dir. */
static void nvme_link(const char *dir, char *link, size_t size)
{
	char speed[64], width[16] = "";
	if (lg_sysfs_attr(dir, "current_link_speed", speed, sizeof(speed)) < 0)
		return;
	(void)lg_sysfs_attr(dir, "current_link_width", width, sizeof(width));
	if (lg_link_pcie(speed, width, link, size) < 0)
		link[0] = '\0';
}

/* The link of ATA port ataN (the component at `at`, `len` long) of path. */
static void ata_link(const char *path, ptrdiff_t at, size_t len, char *link, size_t size)
{
	const char *devices = strstr(path, "/devices/");
	char root[PATH_MAX], dir[PATH_MAX], spd[32];
	if (!devices || cut(path, (size_t)(devices - path), root, sizeof(root)) < 0 ||
	    lg_sysfs_path(dir, sizeof(dir), "%s/class/ata_link/link%.*s", root, (int)len - 3,
			  path + at + 3) < 0 ||
	    lg_sysfs_attr(dir, "sata_spd", spd, sizeof(spd)) < 0)
		return;
	char *unit = strstr(spd, "Gbps");
	if (spd[0] == '<' || !unit)
		return; /* "<unknown>": the link is down or the kernel cannot tell */
	*unit = '\0';
	snprintf(link, size, "SATA %sGb/s", spd);
}

/* The speed of the USB device nearest the disk, below root hub usbN (ending at
 * offset `hub_end` of path). */
static void usb_link(const char *path, size_t hub_end, char *link, size_t size)
{
	char dir[PATH_MAX], speed[32];
	if (cut(path, strlen(path), dir, sizeof(dir)) < 0)
		return;
	for (char *slash; (slash = strrchr(dir, '/')) && (size_t)(slash - dir) > hub_end;) {
		*slash = '\0';
		if (lg_sysfs_attr(dir, "speed", speed, sizeof(speed)) == 0) {
			snprintf(link, size, "USB %s Mb/s", speed);
			return;
		}
	}
}

void lg_link_probe(const char *disk_dir, char *iface, size_t iface_size, char *link,
		   size_t link_size)
{
	size_t len;
	ptrdiff_t at;
	char dir[PATH_MAX];
	iface[0] = link[0] = '\0';
	if (!disk_dir || !*disk_dir)
		return;

	if ((at = find_component(disk_dir, "nvme", &len)) >= 0) {
		lg_copy_string(iface, iface_size, "nvme");
		/* .../<PCI function>/nvme/nvme0/nvme0n1: the function is above "nvme/". */
		if (at >= 6 && strncmp(disk_dir + at - 6, "/nvme/", 6) == 0 &&
		    cut(disk_dir, (size_t)at - 6, dir, sizeof(dir)) == 0)
			nvme_link(dir, link, link_size);
	} else if (strstr(disk_dir, "/nvme-subsystem/")) {
		lg_copy_string(iface, iface_size, "nvme"); /* multipath: no one controller's link */
	} else if (strstr(disk_dir, "/devices/virtual/")) {
		lg_copy_string(iface, iface_size, "virtual");
	} else if ((at = find_component(disk_dir, "ata", &len)) >= 0) {
		lg_copy_string(iface, iface_size, "sata");
		ata_link(disk_dir, at, len, link, link_size);
	} else if ((at = find_component(disk_dir, "usb", &len)) >= 0) {
		lg_copy_string(iface, iface_size, "usb");
		usb_link(disk_dir, (size_t)at + len, link, link_size);
	} else if (strstr(disk_dir, "/end_device-")) {
		lg_copy_string(iface, iface_size, "sas");
	} else if (find_component(disk_dir, "mmc", &len) >= 0) {
		lg_copy_string(iface, iface_size, "mmc");
	} else if (find_component(disk_dir, "virtio", &len) >= 0) {
		lg_copy_string(iface, iface_size, "virtio");
	}
}
