/* health: what a drive says of its own health, read before and after a run: the NVMe
 * SMART / Health Information log (Get Log Page 0x02) or the ATA SMART attributes (SMART
 * READ DATA through SG_IO's ATA PASS-THROUGH (16), which libata translates for SATA disks
 * and USB bridges that speak SAT). Files and disks the kernel makes up have none, and a
 * snapshot says why.
 *
 * Every figure is optional: a snapshot holds what the device reported (bits of
 * `present`). ATA attribute meanings differ between makers; only the widely shared ones
 * are read: 194 or 190 temperature, 9 power-on hours, 12 power cycles, 5 reallocated
 * sectors, 197 pending sectors, 241 LBAs written (raw, in the maker's unit), and wear as
 * percentage used from the normalized value of 233, 231, 177 or 202 (100 = new).
 *
 * The parsers are pure functions over captured pages (tests/fixtures); lg_health_read()
 * opens the device and asks it.
 *
 * Ownership: plain data on the caller's side; names are static strings.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target.h"

enum lg_health_source {
	LG_HEALTH_NONE = 0, /* nothing read: reason says why */
	LG_HEALTH_NVME,     /* the NVMe SMART / Health log */
	LG_HEALTH_ATA,      /* ATA SMART attributes */
};

enum {
	LG_HEALTH_TEMPERATURE = 1 << 0,
	LG_HEALTH_CRITICAL_WARNING = 1 << 1,
	LG_HEALTH_AVAILABLE_SPARE = 1 << 2,
	LG_HEALTH_SPARE_THRESHOLD = 1 << 3,
	LG_HEALTH_PERCENTAGE_USED = 1 << 4,
	LG_HEALTH_DATA_READ = 1 << 5,
	LG_HEALTH_DATA_WRITTEN = 1 << 6,
	LG_HEALTH_POWER_ON_HOURS = 1 << 7,
	LG_HEALTH_POWER_CYCLES = 1 << 8,
	LG_HEALTH_UNSAFE_SHUTDOWNS = 1 << 9,
	LG_HEALTH_MEDIA_ERRORS = 1 << 10,
	LG_HEALTH_REALLOCATED = 1 << 11,
	LG_HEALTH_PENDING = 1 << 12,
	LG_HEALTH_LBAS_WRITTEN = 1 << 13,
};

struct lg_health_snapshot {
	unsigned present; /* LG_HEALTH_* bits of the figures below that the device gave */
	int temperature_celsius;
	uint32_t critical_warning;        /* NVMe: the bit field as reported; 0 is healthy */
	uint32_t available_spare_percent; /* NVMe */
	uint32_t spare_threshold_percent; /* NVMe: spare below this warns */
	uint32_t percentage_used;         /* NVMe; ATA: 100 - the wear attribute's value */
	uint64_t data_read_bytes;         /* NVMe: data units x 512,000 */
	uint64_t data_written_bytes;
	uint64_t power_on_hours;
	uint64_t power_cycles;
	uint64_t unsafe_shutdowns; /* NVMe */
	uint64_t media_errors;     /* NVMe: media and data integrity errors */
	uint64_t reallocated_sectors;
	uint64_t pending_sectors;
	uint64_t lbas_written; /* ATA 241, raw */
};

/* The snapshots of one run: before its first I/O and after its last. */
struct lg_health {
	enum lg_health_source source;
	char reason[160]; /* source none: why ("a file", "a virtual device"); else why a
	                   * snapshot is missing; empty otherwise */
	bool has_before, has_after;
	struct lg_health_snapshot before, after;
	char before_at[32], after_at[32]; /* RFC 3339 UTC */
};

#define LG_NVME_SMART_LOG_BYTES 512
#define LG_ATA_SMART_DATA_BYTES 512

/* "nvme-smart-log", "ata-smart" or "none", as the document names a source. */
const char *lg_health_source_name(enum lg_health_source source);

/* The figures of an NVMe SMART / Health Information log page. Returns 0 or -EINVAL
 * (too short). */
int lg_health_parse_nvme(const uint8_t *page, size_t len, struct lg_health_snapshot *ret_snapshot);

/* The figures of an ATA SMART READ DATA page (512 bytes). Returns 0, -EINVAL (too short)
 * or -EBADMSG (its checksum does not hold, or no attribute is there). */
int lg_health_parse_ata(const uint8_t *page, size_t len, struct lg_health_snapshot *ret_snapshot);

/* Ask the device of info for a page: NVMe Get Log Page 0x02 or ATA SMART READ DATA.
 * Returns 0 and *ret_source, or -errno (-ENOTTY, -EACCES, -EIO: the device refused);
 * page must hold 512 bytes. */
int lg_health_read_page(const struct lg_target_info *info, enum lg_health_source *ret_source,
			uint8_t page[512]);

/* Take a snapshot of the target's health into *ret (before or after as `after` says),
 * deciding the source on the first call: none for a file or a disk the kernel makes up,
 * with the reason. Never fails: what cannot be read is source none and a reason. */
void lg_health_snapshot_take(const struct lg_target_info *info, bool after,
			     struct lg_health *health);
