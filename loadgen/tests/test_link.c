#define _GNU_SOURCE
/* link: the interface and negotiated link of disks laid out in a sysfs tree of the
 * test's own (NVMe behind a PCIe function, SATA with its ATA link, USB, virtio, the
 * kernel's virtual disks), the PCIe link's wording, and what this machine's own
 * disks say (never a failure: whatever the kernel reports, or nothing). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "link.h"
#include "test_common.h"

static char root[] = "/tmp/loadgen-test-link-XXXXXX";

/* mkdir -p root/rel */
static void dirs(const char *rel)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		(void)mkdir(path, 0755);
		*p = '/';
	}
	(void)mkdir(path, 0755);
}

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	FILE *f = fopen(path, "w");
	CHECKF(f != NULL, "%s", path);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void expect(const char *disk_rel, const char *iface, const char *link)
{
	char disk[PATH_MAX], got_iface[16], got_link[64];
	snprintf(disk, sizeof(disk), "%s/%s", root, disk_rel);
	dirs(disk_rel);
	lg_link_probe(disk, got_iface, sizeof(got_iface), got_link, sizeof(got_link));
	CHECKF(strcmp(got_iface, iface) == 0, "%s: interface '%s', expected '%s'", disk_rel,
	       got_iface, iface);
	CHECKF(strcmp(got_link, link) == 0, "%s: link '%s', expected '%s'", disk_rel, got_link,
	       link);
}

static void test_pcie_wording(void)
{
	char out[64];
	CHECK(lg_link_pcie("8.0 GT/s PCIe", "4", out, sizeof(out)) == 0 &&
	      strcmp(out, "PCIe 3.0 x4 (8.0 GT/s)") == 0);
	CHECK(lg_link_pcie("16.0 GT/s PCIe", "4", out, sizeof(out)) == 0 &&
	      strcmp(out, "PCIe 4.0 x4 (16.0 GT/s)") == 0);
	CHECK(lg_link_pcie("2.5 GT/s", "1", out, sizeof(out)) == 0 &&
	      strcmp(out, "PCIe 1.0 x1 (2.5 GT/s)") == 0); /* older kernels: no "PCIe" */
	CHECK(lg_link_pcie("32.0 GT/s PCIe", "", out, sizeof(out)) == 0 &&
	      strcmp(out, "PCIe 5.0 (32.0 GT/s)") == 0); /* width unknown */
	CHECK(lg_link_pcie("20.0 GT/s PCIe", "2", out, sizeof(out)) == 0 &&
	      strcmp(out, "PCIe x2 (20.0 GT/s)") == 0); /* a speed of no generation */
	CHECK(lg_link_pcie("8.0 GT/s PCIe", "0", out, sizeof(out)) == 0 &&
	      strcmp(out, "PCIe 3.0 (8.0 GT/s)") == 0); /* link down: no lanes */
	CHECK(lg_link_pcie("Unknown", "4", out, sizeof(out)) == -EINVAL);
	CHECK(lg_link_pcie("", "4", out, sizeof(out)) == -EINVAL);
	CHECK(lg_link_pcie("8.0 MB/s", "4", out, sizeof(out)) == -EINVAL);
	CHECK(lg_link_pcie("8.0 GT/s PCIe", "4", out, 8) == 0 && strlen(out) == 7); /* cut */
}

static void test_trees(void)
{
	const char *pci = "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0";
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/nvme/nvme0/nvme0n1", pci);
	dirs(rel);
	snprintf(rel, sizeof(rel), "%s/current_link_speed", pci);
	put(rel, "8.0 GT/s PCIe\n");
	snprintf(rel, sizeof(rel), "%s/current_link_width", pci);
	put(rel, "4\n");
	snprintf(rel, sizeof(rel), "%s/nvme/nvme0/nvme0n1", pci);
	expect(rel, "nvme", "PCIe 3.0 x4 (8.0 GT/s)");
	/* A controller whose function says nothing of its link. */
	expect("devices/pci0000:00/0000:00:1c.0/0000:02:00.0/nvme/nvme1/nvme1n1", "nvme", "");
	expect("devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1", "nvme", "");
	expect("devices/virtual/nvme-fabrics/ctl/nvme4/nvme4n1", "nvme", "");

	dirs("class/ata_link/link3");
	put("class/ata_link/link3/sata_spd", "6.0 Gbps\n");
	expect("devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0/block/sda", "sata",
	       "SATA 6.0 Gb/s");
	dirs("class/ata_link/link4");
	put("class/ata_link/link4/sata_spd", "<unknown>\n");
	expect("devices/pci0000:00/0000:00:1f.2/ata4/host3/target3:0:0/3:0:0:0/block/sdb", "sata",
	       "");
	expect("devices/pci0000:00/0000:00:1f.2/ata5/host4/target4:0:0/4:0:0:0/block/sdc", "sata",
	       ""); /* no link directory at all */

	dirs("devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdd");
	put("devices/pci0000:00/0000:00:14.0/usb2/2-1/speed", "5000\n");
	put("devices/pci0000:00/0000:00:14.0/usb2/speed", "10000\n"); /* the hub's: not it */
	expect("devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdd",
	       "usb", "USB 5000 Mb/s");

	expect("devices/pci0000:00/0000:00:02.0/virtio1/block/vda", "virtio", "");
	expect("devices/virtual/block/zram0", "virtual", "");
	expect("devices/virtual/block/loop0", "virtual", "");
	expect("devices/platform/soc/mmc_host/mmc0/mmc0:0001/block/mmcblk0", "mmc", "");
	expect("devices/pci0000:00/0000:00:01.0/host0/port-0:0/end_device-0:0/target0:0:0/"
	       "0:0:0:0/block/sde",
	       "sas", "");
	expect("devices/platform/other/block/xyz0", "", "");

	char iface[16] = "x", link[64] = "x";
	lg_link_probe("", iface, sizeof(iface), link, sizeof(link));
	CHECK(iface[0] == '\0' && link[0] == '\0');
	lg_link_probe(NULL, iface, sizeof(iface), link, sizeof(link));
	CHECK(iface[0] == '\0' && link[0] == '\0');
}

/* This machine's disks: whatever the kernel says, the answer is short and printable. */
static void test_this_machine(void)
{
	const char *disks[] = {"/sys/block/vda", "/sys/block/sda", "/sys/block/nvme0n1",
			       "/sys/block/loop0"};
	for (size_t i = 0; i < sizeof(disks) / sizeof(disks[0]); i++) {
		char real[PATH_MAX], iface[16], link[64];
		if (!realpath(disks[i], real))
			continue;
		lg_link_probe(real, iface, sizeof(iface), link, sizeof(link));
		printf("%s: interface '%s', link '%s'\n", disks[i], iface, link);
		CHECK(strlen(iface) < sizeof(iface) && strlen(link) < sizeof(link));
	}
}

int main(void)
{
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	test_pcie_wording();
	test_trees();
	test_this_machine();
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
	return test_result("link");
}
