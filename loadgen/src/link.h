/* link: the interface a disk is attached by and the link it negotiated, as the
 * kernel reports them in sysfs (the test bench a run records; docs/loadgen-cli.md).
 *
 *   interface  "nvme", "sata", "sas", "usb", "mmc", "virtio" or "virtual" (a disk the
 *              kernel makes up: zram, loop, device-mapper...); empty when not told
 *   link       what was negotiated, where the kernel says: "PCIe 3.0 x4 (8.0 GT/s)"
 *              for an NVMe controller, "SATA 6.0 Gb/s" for an ATA link, "USB
 *              5000 Mb/s"; empty otherwise (virtio, zram, a SATA link the kernel
 *              does not report)
 *
 * Read from the disk's resolved sysfs directory (/sys/devices/.../block/sda): the
 * path names the bus it hangs from, and the attributes of the devices above it
 * (the PCI function's current_link_speed and current_link_width, the ATA link's
 * sata_spd under <sysfs>/class/ata_link, a USB device's speed) say what was
 * negotiated. <sysfs> is the part of the path before "/devices/", so a test can
 * lay out a tree of its own.
 *
 * Ownership: the caller's buffers; nothing kept.
 */
#pragma once

#include <stddef.h>

/* Fill iface and link (each "" when not told) for the disk whose resolved sysfs
 * directory is disk_dir. Never fails: what cannot be read is left empty. */
void lg_link_probe(const char *disk_dir, char *iface, size_t iface_size, char *link,
		   size_t link_size);

/* "PCIe 3.0 x4 (8.0 GT/s)" from a PCI function's current_link_speed ("8.0 GT/s PCIe")
 * and current_link_width ("4"); the generation left out for a speed it does not
 * know. Returns 0, or -EINVAL when the speed is not "<number> GT/s...". */
int lg_link_pcie(const char *speed, const char *width, char *out, size_t size);
