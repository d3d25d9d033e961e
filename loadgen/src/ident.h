/* ident: which drive a block device is, beyond what link.h and the sysfs probe in
 * target.c read: the vendor, the NVMe Identify Controller data (model, serial,
 * firmware revision, as the drive itself states them), and the serial number's
 * salted hash, the only form of the serial loadgen ever keeps, prints or writes.
 *
 *   serial hash  SHA-256 of LG_SERIAL_SALT followed by the serial (trimmed), the first
 *                LG_SERIAL_HASH_CHARS hex digits: runs of one physical unit share it,
 *                and it names no unit to anyone who does not hold that unit already.
 *
 * The parsers are pure functions over captured pages (tests/fixtures); only
 * lg_ident_nvme_identify() makes a system call.
 *
 * Ownership: the caller's buffers; names are static strings.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Fixed and public: the hash hides the serial from readers of the results, and the
 * site and every loadgen must hash one unit alike. Changing it is a new schema version. */
#define LG_SERIAL_SALT "bench.loadgen.serial.v1:"
#define LG_SERIAL_HASH_CHARS 32

/* An NVMe Identify Controller data structure's size, and what loadgen reads of it. */
#define LG_NVME_IDENTIFY_BYTES 4096
struct lg_nvme_identity {
	uint16_t pci_vendor; /* VID: the controller's PCI vendor id */
	char serial[21];     /* SN, bytes 4-23, ASCII, trimmed */
	char model[41];      /* MN, bytes 24-63 */
	char firmware[9];    /* FR, bytes 64-71 */
};

/* Read what lg_nvme_identity holds from an Identify Controller page of len bytes
 * (at least 72). Returns 0, or -EINVAL when the page is too short or its model is empty
 * or not printable ASCII (no controller answered). */
int lg_ident_parse_nvme_identify(const uint8_t *page, size_t len,
				 struct lg_nvme_identity *ret_identity);

/* Send Identify Controller (admin opcode 0x06, CNS 1) through NVME_IOCTL_ADMIN_CMD on
 * fd, an NVMe namespace or controller opened read-only, into page. Returns 0 or -errno
 * (-ENOTTY: not NVMe; -EACCES/-EPERM: needs CAP_SYS_ADMIN). */
int lg_ident_nvme_identify(int fd, uint8_t page[LG_NVME_IDENTIFY_BYTES]);

/* The serial's salted hash into out (LG_SERIAL_HASH_CHARS hex digits and a NUL), or ""
 * when the serial is empty or blank. */
void lg_ident_serial_hash(const char *serial, char out[LG_SERIAL_HASH_CHARS + 1]);

/* The maker of a PCI vendor id ("Samsung" for 0x144d), NULL when not known. */
const char *lg_ident_pci_vendor(uint16_t vendor_id);

/* The maker an ATA model names by its first word or prefix ("WDC WD10EZEX" ->
 * "Western Digital", "Samsung SSD 860 EVO" -> "Samsung"), NULL when not known: ATA
 * disks have no vendor field, only the model. */
const char *lg_ident_vendor_from_model(const char *model);
