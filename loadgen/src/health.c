/* health: NVMe SMART / Health log and ATA SMART attributes. See health.h. */
#define _GNU_SOURCE
#include "health.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "text.h"
#include "util.h"

#define NVME_ADMIN_GET_LOG_PAGE 0x02
#define NVME_LOG_SMART 0x02
#define NVME_NSID_ALL 0xffffffffu
#define NVME_DATA_UNIT_BYTES UINT64_C(512000)

#define ATA_PASS_THROUGH_16 0x85
#define ATA_SMART 0xb0
#define ATA_SMART_READ_DATA 0xd0

const char *lg_health_source_name(enum lg_health_source source)
{
	switch (source) {
	case LG_HEALTH_NVME:
		return "nvme-smart-log";
	case LG_HEALTH_ATA:
		return "ata-smart";
	case LG_HEALTH_NONE:
		break;
	}
	return "none";
}

static uint64_t le(const uint8_t *p, size_t bytes)
{
	uint64_t v = 0;
	for (size_t i = bytes; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* A 128-bit little-endian counter, saturated at 2^64-1. */
static uint64_t le128(const uint8_t *p)
{
	return le(p + 8, 8) ? UINT64_MAX : le(p, 8);
}

static uint64_t times_saturated(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

int lg_health_parse_nvme(const uint8_t *page, size_t len, struct lg_health_snapshot *ret_snapshot)
{
	struct lg_health_snapshot s = {0};
	if (!page || !ret_snapshot || len < 192)
		return -EINVAL;
	unsigned kelvin = (unsigned)le(page + 1, 2);
	if (kelvin) { /* 0: the controller does not report it */
		s.temperature_celsius = (int)kelvin - 273;
		s.present |= LG_HEALTH_TEMPERATURE;
	}
	s.critical_warning = page[0];
	s.available_spare_percent = page[3];
	s.spare_threshold_percent = page[4];
	s.percentage_used = page[5];
	s.data_read_bytes = times_saturated(le128(page + 32), NVME_DATA_UNIT_BYTES);
	s.data_written_bytes = times_saturated(le128(page + 48), NVME_DATA_UNIT_BYTES);
	s.power_cycles = le128(page + 112);
	s.power_on_hours = le128(page + 128);
	s.unsafe_shutdowns = le128(page + 144);
	s.media_errors = le128(page + 160);
	s.present |= LG_HEALTH_CRITICAL_WARNING | LG_HEALTH_AVAILABLE_SPARE |
		     LG_HEALTH_SPARE_THRESHOLD | LG_HEALTH_PERCENTAGE_USED | LG_HEALTH_DATA_READ |
		     LG_HEALTH_DATA_WRITTEN | LG_HEALTH_POWER_CYCLES | LG_HEALTH_POWER_ON_HOURS |
		     LG_HEALTH_UNSAFE_SHUTDOWNS | LG_HEALTH_MEDIA_ERRORS;
	*ret_snapshot = s;
	return 0;
}

int lg_health_parse_ata(const uint8_t *page, size_t len, struct lg_health_snapshot *ret_snapshot)
{
	struct lg_health_snapshot s = {0};
	if (!page || !ret_snapshot || len < LG_ATA_SMART_DATA_BYTES)
		return -EINVAL;
	uint8_t sum = 0;
	for (size_t i = 0; i < LG_ATA_SMART_DATA_BYTES; i++)
		sum = (uint8_t)(sum + page[i]);
	if (sum != 0)
		return -EBADMSG;
	/* Wear: the first of these a drive has, as it ranks by how plainly it says it. */
	static const uint8_t wear_ids[] = {233, 231, 177, 202};
	int wear_rank = (int)sizeof(wear_ids), attributes = 0;
	bool has_temperature_194 = false;
	for (int i = 0; i < 30; i++) {
		const uint8_t *a = page + 2 + 12 * i;
		uint8_t id = a[0], value = a[3];
		uint64_t raw = le(a + 5, 6), low = le(a + 5, 4);
		if (id == 0)
			continue;
		attributes++;
		switch (id) {
		case 194:
		case 190:
			/* 194 is the drive's temperature; 190 (airflow) only when 194 is absent. */
			if (id == 194 || !has_temperature_194) {
				s.temperature_celsius = a[5];
				s.present |= LG_HEALTH_TEMPERATURE;
				has_temperature_194 = has_temperature_194 || id == 194;
			}
			break;
		case 9:
			s.power_on_hours = low;
			s.present |= LG_HEALTH_POWER_ON_HOURS;
			break;
		case 12:
			s.power_cycles = low;
			s.present |= LG_HEALTH_POWER_CYCLES;
			break;
		case 5:
			s.reallocated_sectors = low;
			s.present |= LG_HEALTH_REALLOCATED;
			break;
		case 197:
			s.pending_sectors = low;
			s.present |= LG_HEALTH_PENDING;
			break;
		case 241:
			s.lbas_written = raw;
			s.present |= LG_HEALTH_LBAS_WRITTEN;
			break;
		default:
			break;
		}
		for (int rank = 0; rank < wear_rank; rank++) {
			if (wear_ids[rank] == id && value >= 1 && value <= 100) {
				s.percentage_used = 100u - value;
				s.present |= LG_HEALTH_PERCENTAGE_USED;
				wear_rank = rank;
			}
		}
	}
	if (attributes == 0)
		return -EBADMSG;
	*ret_snapshot = s;
	return 0;
}

static int nvme_smart_log(int fd, uint8_t page[LG_NVME_SMART_LOG_BYTES])
{
	struct nvme_admin_cmd cmd = {
		.opcode = NVME_ADMIN_GET_LOG_PAGE,
		.nsid = NVME_NSID_ALL,
		.addr = (uint64_t)(uintptr_t)page,
		.data_len = LG_NVME_SMART_LOG_BYTES,
		/* NUMDL: dwords to read, less one, beside the log id. */
		.cdw10 = NVME_LOG_SMART | ((LG_NVME_SMART_LOG_BYTES / 4 - 1) << 16),
	};
	int r = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
	if (r < 0)
		return -errno;
	return r == 0 ? 0 : -EIO;
}

static int ata_smart_read_data(int fd, uint8_t page[LG_ATA_SMART_DATA_BYTES])
{
	uint8_t cdb[16] = {
		ATA_PASS_THROUGH_16,
		4 << 1, /* protocol: PIO data-in */
		0x0e,   /* t_dir from the device, byte_block, t_length in the sector count */
		0,
		ATA_SMART_READ_DATA, /* features */
		0,
		1, /* sector count */
		0,
		0,
		0,
		0x4f, /* LBA mid and high: SMART's signature */
		0,
		0xc2,
		0, /* device */
		ATA_SMART,
		0,
	};
	uint8_t sense[32];
	struct sg_io_hdr io = {
		.interface_id = 'S',
		.dxfer_direction = SG_DXFER_FROM_DEV,
		.cmd_len = sizeof(cdb),
		.mx_sb_len = sizeof(sense),
		.dxfer_len = LG_ATA_SMART_DATA_BYTES,
		.dxferp = page,
		.cmdp = cdb,
		.sbp = sense,
		.timeout = 10000, /* ms */
	};
	memset(page, 0, LG_ATA_SMART_DATA_BYTES);
	if (ioctl(fd, SG_IO, &io) < 0)
		return -errno;
	if (io.status != 0 || io.host_status != 0 || (io.driver_status & 0x0f) != 0)
		return -EIO;
	return 0;
}

int lg_health_read_page(const struct lg_target_info *info, enum lg_health_source *ret_source,
			uint8_t page[512])
{
	if (!info || info->kind != LG_TARGET_BLOCK)
		return -ENOTTY;
	int fd = open(info->real_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r;
	enum lg_health_source source;
	if (strcmp(info->interface, "nvme") == 0) {
		source = LG_HEALTH_NVME;
		r = nvme_smart_log(fd, page);
	} else {
		source = LG_HEALTH_ATA;
		r = ata_smart_read_data(fd, page);
	}
	close(fd);
	if (r == 0)
		*ret_source = source;
	return r;
}

/* Why a target has no health to read, or NULL when it may. */
static const char *no_health(const struct lg_target_info *info)
{
	if (info->kind != LG_TARGET_BLOCK)
		return "a file: the health of the disk holding it is not the run's";
	if (strcmp(info->drive_kind, "virtual") == 0 && strcmp(info->interface, "nvme") != 0 &&
	    strcmp(info->interface, "sata") != 0)
		return "a virtual device: no hardware to report its health";
	if (strcmp(info->interface, "nvme") != 0 && strcmp(info->interface, "sata") != 0 &&
	    strcmp(info->interface, "sas") != 0 && strcmp(info->interface, "usb") != 0)
		return info->interface[0] ? "an interface that carries no health log"
					  : "an interface loadgen cannot tell";
	return NULL;
}

void lg_health_snapshot_take(const struct lg_target_info *info, bool after,
			     struct lg_health *health)
{
	if (after && health->source == LG_HEALTH_NONE)
		return; /* nothing was read before: the reason stands */
	const char *reason = no_health(info);
	if (reason) {
		health->source = LG_HEALTH_NONE;
		snprintf(health->reason, sizeof(health->reason), "%s", reason);
		return;
	}
	uint8_t page[512];
	enum lg_health_source source;
	struct lg_health_snapshot snapshot;
	int r = lg_health_read_page(info, &source, page);
	if (r == 0)
		r = source == LG_HEALTH_NVME ? lg_health_parse_nvme(page, sizeof(page), &snapshot)
					     : lg_health_parse_ata(page, sizeof(page), &snapshot);
	if (r < 0) {
		if (after) { /* the snapshot before stands alone, and the reason says why */
			snprintf(health->reason, sizeof(health->reason),
				 "the device did not answer after the run: %s", strerror(-r));
			return;
		}
		health->source = LG_HEALTH_NONE;
		if (r == -EACCES || r == -EPERM)
			snprintf(health->reason, sizeof(health->reason),
				 "permission denied: reading a drive's health needs root");
		else if (strcmp(info->interface, "nvme") == 0)
			snprintf(health->reason, sizeof(health->reason),
				 "the controller did not return its SMART / Health log: %s",
				 strerror(-r));
		else
			snprintf(health->reason, sizeof(health->reason),
				 "the device did not return ATA SMART data: %s", strerror(-r));
		return;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	health->source = source;
	if (after) {
		health->after = snapshot;
		health->has_after = true;
		lg_format_rfc3339(&now, health->after_at, sizeof(health->after_at));
	} else {
		health->before = snapshot;
		health->has_before = true;
		lg_format_rfc3339(&now, health->before_at, sizeof(health->before_at));
	}
}
