/* health: the SMART / Health log QEMU's emulated NVMe controller returned and the SMART
 * READ DATA page of its emulated SATA disk (captured: fixtures/), and pages built from
 * them to reach each rule: a wrong checksum, the wear attributes and their order, 194
 * over 190, a 128-bit counter beyond 64 bits, a controller that gives no temperature. */
#include <errno.h>
#include <string.h>

#include "fixture.h"
#include "health.h"
#include "test_common.h"

static uint8_t nvme[512], ata[512];

/* Put attribute `slot` of an ATA page and mend the checksum. */
static void attribute(uint8_t *page, int slot, uint8_t id, uint8_t value, uint64_t raw)
{
	uint8_t *a = page + 2 + 12 * slot;
	memset(a, 0, 12);
	a[0] = id;
	a[1] = 0x03;
	a[3] = a[4] = value;
	for (int i = 0; i < 6; i++)
		a[5 + i] = (uint8_t)(raw >> (8 * i));
	uint8_t sum = 0;
	for (int i = 0; i < 511; i++)
		sum = (uint8_t)(sum + page[i]);
	page[511] = (uint8_t)(0x100 - sum);
}

static void test_nvme(const char *dir)
{
	struct lg_health_snapshot s;
	CHECK(fixture_read(dir, "nvme-smart-log.hex", nvme, sizeof(nvme)) == 512);
	CHECK(lg_health_parse_nvme(nvme, sizeof(nvme), &s) == 0);
	CHECK((s.present & LG_HEALTH_TEMPERATURE) && s.temperature_celsius == 50); /* 323 K */
	CHECK(s.critical_warning == 0 && s.percentage_used == 0 && s.media_errors == 0);
	CHECKF(s.data_read_bytes == 2 * 512000, "read %llu", (unsigned long long)s.data_read_bytes);
	/* Captured after the guest's write run: 1062 data units of 512,000 bytes. */
	CHECK(s.data_written_bytes == 1062 * 512000 && (s.present & LG_HEALTH_DATA_WRITTEN));
	CHECK(!(s.present & (LG_HEALTH_REALLOCATED | LG_HEALTH_PENDING | LG_HEALTH_LBAS_WRITTEN)));

	uint8_t page[512];
	memcpy(page, nvme, sizeof(page));
	page[0] = 0x04;        /* reliability degraded */
	page[1] = page[2] = 0; /* no temperature reported */
	page[3] = 42;
	page[4] = 10;
	page[5] = 104; /* past its rated life */
	memset(page + 48, 0, 16);
	page[48] = 0x10; /* 16 data units written */
	memset(page + 160, 0, 16);
	page[168] = 1;               /* media errors beyond 64 bits: saturated */
	memset(page + 32, 0xff, 16); /* data read beyond 64 bits */
	CHECK(lg_health_parse_nvme(page, sizeof(page), &s) == 0);
	CHECK(!(s.present & LG_HEALTH_TEMPERATURE));
	CHECK(s.critical_warning == 4 && s.available_spare_percent == 42);
	CHECK(s.spare_threshold_percent == 10 && s.percentage_used == 104);
	CHECK(s.data_written_bytes == 16 * 512000);
	CHECK(s.media_errors == UINT64_MAX && s.data_read_bytes == UINT64_MAX);
	CHECK(lg_health_parse_nvme(page, 191, &s) == -EINVAL);
}

static void test_ata(const char *dir)
{
	struct lg_health_snapshot s;
	CHECK(fixture_read(dir, "ata-smart-data.hex", ata, sizeof(ata)) == 512);
	CHECK(lg_health_parse_ata(ata, sizeof(ata), &s) == 0);
	/* QEMU's attributes: 1, 3, 4, 5, 9, 12 and 190 (airflow temperature, raw 31). */
	CHECK((s.present & LG_HEALTH_TEMPERATURE) && s.temperature_celsius == 31);
	CHECK((s.present & LG_HEALTH_REALLOCATED) && s.reallocated_sectors == 0);
	CHECK((s.present & LG_HEALTH_POWER_ON_HOURS) && (s.present & LG_HEALTH_POWER_CYCLES));
	CHECK(!(s.present & (LG_HEALTH_PERCENTAGE_USED | LG_HEALTH_DATA_WRITTEN |
			     LG_HEALTH_AVAILABLE_SPARE | LG_HEALTH_PENDING)));

	uint8_t page[512];
	memcpy(page, ata, sizeof(page));
	page[100] ^= 1;
	CHECK(lg_health_parse_ata(page, sizeof(page), &s) == -EBADMSG); /* checksum */
	CHECK(lg_health_parse_ata(ata, 511, &s) == -EINVAL);
	memset(page, 0, sizeof(page));
	CHECK(lg_health_parse_ata(page, sizeof(page), &s) == -EBADMSG); /* no attribute */

	/* 194 wins over 190 in either order; wear from 233 before 177; the raw counters. */
	memcpy(page, ata, sizeof(page));
	attribute(page, 10, 194, 100, 0x0000002a00140024); /* 36 C, min and max beside it */
	attribute(page, 11, 177, 90, 1234);
	attribute(page, 12, 233, 97, 0);
	attribute(page, 13, 197, 100, 8);
	attribute(page, 14, 241, 100, UINT64_C(0xffffffffffff));
	attribute(page, 15, 5, 100, UINT64_C(0x000100000003)); /* high bytes: not the count */
	CHECK(lg_health_parse_ata(page, sizeof(page), &s) == 0);
	CHECK(s.temperature_celsius == 36);
	CHECK((s.present & LG_HEALTH_PERCENTAGE_USED) && s.percentage_used == 3);
	CHECK(s.pending_sectors == 8 && s.reallocated_sectors == 3);
	CHECK(s.lbas_written == UINT64_C(0xffffffffffff));
	memcpy(page, ata, sizeof(page));
	attribute(page, 10, 177, 90, 0);
	attribute(page, 11, 202, 0, 0); /* a value of 0: not a percentage, ignored */
	CHECK(lg_health_parse_ata(page, sizeof(page), &s) == 0 && s.percentage_used == 10);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	test_nvme(argv[1]);
	test_ata(argv[1]);
	CHECK(strcmp(lg_health_source_name(LG_HEALTH_NVME), "nvme-smart-log") == 0);
	CHECK(strcmp(lg_health_source_name(LG_HEALTH_NONE), "none") == 0);
	return test_result("health");
}
