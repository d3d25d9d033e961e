/* ident: the Identify Controller page QEMU's emulated NVMe controller returned (captured,
 * fixtures/nvme-identify.hex, serial LGNVMESERIAL0427) and pages spoiled from it, the
 * serial's salted hash against Python's hashlib, and the vendor tables. */
#include <errno.h>
#include <string.h>

#include "fixture.h"
#include "ident.h"
#include "test_common.h"

static uint8_t page[LG_NVME_IDENTIFY_BYTES];

static void test_identify(const char *dir)
{
	struct lg_nvme_identity id;
	long n = fixture_read(dir, "nvme-identify.hex", page, sizeof(page));
	CHECK(n == LG_NVME_IDENTIFY_BYTES);
	CHECK(lg_ident_parse_nvme_identify(page, (size_t)n, &id) == 0);
	CHECKF(strcmp(id.model, "QEMU NVMe Ctrl") == 0, "model '%s'", id.model);
	CHECKF(strcmp(id.serial, "LGNVMESERIAL0427") == 0, "serial '%s'", id.serial);
	CHECKF(strcmp(id.firmware, "7.2.22") == 0, "firmware '%s'", id.firmware);
	CHECK(id.pci_vendor == 0x1b36);

	uint8_t spoiled[LG_NVME_IDENTIFY_BYTES];
	struct lg_nvme_identity untouched = {.pci_vendor = 7};
	CHECK(lg_ident_parse_nvme_identify(page, 71, &untouched) == -EINVAL); /* cut short */
	memcpy(spoiled, page, sizeof(spoiled));
	spoiled[30] = 0x07; /* a control character in the model */
	CHECK(lg_ident_parse_nvme_identify(spoiled, sizeof(spoiled), &untouched) == -EINVAL);
	memset(spoiled + 24, ' ', 40); /* a blank model: no controller answered */
	CHECK(lg_ident_parse_nvme_identify(spoiled, sizeof(spoiled), &untouched) == -EINVAL);
	memset(spoiled, 0, sizeof(spoiled));
	CHECK(lg_ident_parse_nvme_identify(spoiled, sizeof(spoiled), &untouched) == -EINVAL);
	CHECK(untouched.pci_vendor == 7); /* left as it was on failure */
	/* Fields filled to their width, no padding: all of it kept. */
	memcpy(spoiled, page, sizeof(spoiled));
	memset(spoiled + 4, 'S', 20);
	memset(spoiled + 64, 'F', 8);
	CHECK(lg_ident_parse_nvme_identify(spoiled, sizeof(spoiled), &id) == 0 &&
	      strlen(id.serial) == 20 && strcmp(id.firmware, "FFFFFFFF") == 0);
}

static void test_serial_hash(void)
{
	char hash[LG_SERIAL_HASH_CHARS + 1];
	/* hashlib.sha256(b"bench.loadgen.serial.v1:" + serial).hexdigest()[:32] */
	lg_ident_serial_hash("LGNVMESERIAL0427", hash);
	CHECKF(strcmp(hash, "08ee4d352eb812221580bcdf650bc66e") == 0, "%s", hash);
	lg_ident_serial_hash("  S3Z9NB0K123456A \n", hash); /* as sysfs pads it */
	CHECKF(strcmp(hash, "a563fabe4071da558299de558c4b5a9d") == 0, "%s", hash);
	lg_ident_serial_hash("", hash);
	CHECK(hash[0] == '\0');
	lg_ident_serial_hash("   ", hash);
	CHECK(hash[0] == '\0');
	lg_ident_serial_hash(NULL, hash);
	CHECK(hash[0] == '\0');
}

static void test_vendors(void)
{
	CHECK(strcmp(lg_ident_pci_vendor(0x144d), "Samsung") == 0);
	CHECK(strcmp(lg_ident_pci_vendor(0x1b36), "QEMU") == 0);
	CHECK(lg_ident_pci_vendor(0xffff) == NULL);
	static const struct {
		const char *model, *vendor;
	} models[] = {
		{"Samsung SSD 860 EVO 500GB", "Samsung"},
		{"WDC WD10EZEX-08WN4A0", "Western Digital"},
		{"ST2000DM008-2FR102", "Seagate"},
		{"CT500MX500SSD1", "Crucial"},
		{"INTEL SSDSC2BW240A4", "Intel"},
		{"QEMU HARDDISK", "QEMU"},
		{"STORAGE DEVICE", NULL}, /* "ST" without the capacity's digits */
		{"CTRL-X 1", NULL},
		{"Generic SSD", NULL},
		{"", NULL},
	};
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		const char *got = lg_ident_vendor_from_model(models[i].model);
		CHECKF(models[i].vendor ? got && strcmp(got, models[i].vendor) == 0 : got == NULL,
		       "'%s' -> '%s'", models[i].model, got ? got : "(null)");
	}
	CHECK(lg_ident_vendor_from_model(NULL) == NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	test_identify(argv[1]);
	test_serial_hash();
	test_vendors();
	return test_result("ident");
}
