/* ident: a drive's vendor, NVMe identity and serial hash. See ident.h. */
#define _GNU_SOURCE
#include "ident.h"

#include <errno.h>
#include <linux/nvme_ioctl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>

#include "sha256.h"
#include "text.h"

#define NVME_ADMIN_IDENTIFY 0x06
#define NVME_CNS_CONTROLLER 1

/* A fixed-width ASCII field, space padded, into a trimmed string; false when it holds
 * anything but printable ASCII (and padding NULs). */
static bool ascii_field(const uint8_t *field, size_t width, char *out, size_t size)
{
	size_t n = 0;
	for (size_t i = 0; i < width && n + 1 < size; i++) {
		if (field[i] == 0)
			break;
		if (field[i] < 0x20 || field[i] > 0x7e)
			return false;
		out[n++] = (char)field[i];
	}
	out[n] = '\0';
	lg_trim(out);
	return true;
}

int lg_ident_parse_nvme_identify(const uint8_t *page, size_t len,
				 struct lg_nvme_identity *ret_identity)
{
	struct lg_nvme_identity id = {0};
	if (!page || !ret_identity || len < 72)
		return -EINVAL;
	id.pci_vendor = (uint16_t)(page[0] | page[1] << 8);
	if (!ascii_field(page + 4, 20, id.serial, sizeof(id.serial)) ||
	    !ascii_field(page + 24, 40, id.model, sizeof(id.model)) ||
	    !ascii_field(page + 64, 8, id.firmware, sizeof(id.firmware)) || !id.model[0])
		return -EINVAL;
	*ret_identity = id;
	return 0;
}

int lg_ident_nvme_identify(int fd, uint8_t page[LG_NVME_IDENTIFY_BYTES])
{
	struct nvme_admin_cmd cmd = {
		.opcode = NVME_ADMIN_IDENTIFY,
		.addr = (uint64_t)(uintptr_t)page,
		.data_len = LG_NVME_IDENTIFY_BYTES,
		.cdw10 = NVME_CNS_CONTROLLER,
	};
	memset(page, 0, LG_NVME_IDENTIFY_BYTES);
	int r = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
	if (r < 0)
		return -errno;
	return r == 0 ? 0 : -EIO; /* a positive status: the controller refused the command */
}

void lg_ident_serial_hash(const char *serial, char out[LG_SERIAL_HASH_CHARS + 1])
{
	char trimmed[256], salted[sizeof(LG_SERIAL_SALT) + sizeof(trimmed)], hex[LG_SHA256_HEX];
	out[0] = '\0';
	if (!serial)
		return;
	lg_copy_string(trimmed, sizeof(trimmed), serial);
	lg_trim(trimmed);
	if (!trimmed[0])
		return;
	int n = snprintf(salted, sizeof(salted), "%s%s", LG_SERIAL_SALT, trimmed);
	lg_sha256_hex(salted, (size_t)n, hex);
	memcpy(out, hex, LG_SERIAL_HASH_CHARS);
	out[LG_SERIAL_HASH_CHARS] = '\0';
	explicit_bzero(trimmed, sizeof(trimmed));
	explicit_bzero(salted, sizeof(salted));
}

const char *lg_ident_pci_vendor(uint16_t vendor_id)
{
	static const struct {
		uint16_t id;
		const char *name;
	} vendors[] = {
		{0x144d, "Samsung"},         {0x8086, "Intel"},
		{0x15b7, "Western Digital"}, {0x1344, "Micron"},
		{0x2646, "Kingston"},        {0x1c5c, "SK hynix"},
		{0x1987, "Phison"},          {0x1179, "Toshiba"},
		{0x1e0f, "Kioxia"},          {0x1bb1, "Seagate"},
		{0x126f, "Silicon Motion"},  {0x1cc1, "ADATA"},
		{0x1e4b, "Maxio"},           {0x1d97, "Shenzhen Longsys"},
		{0x10ec, "Realtek"},         {0x106b, "Apple"},
		{0x1b4b, "Marvell"},         {0x1c58, "HGST"},
		{0x1dbe, "Innogrit"},        {0x1b36, "QEMU"},
	};
	for (size_t i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++)
		if (vendors[i].id == vendor_id)
			return vendors[i].name;
	return NULL;
}

const char *lg_ident_vendor_from_model(const char *model)
{
	/* Prefixes as makers write them at the start of their ATA model strings. */
	static const struct {
		const char *prefix;
		const char *name;
	} makers[] = {
		{"Samsung ", "Samsung"},
		{"SAMSUNG ", "Samsung"},
		{"WDC ", "Western Digital"},
		{"WD ", "Western Digital"},
		{"INTEL ", "Intel"},
		{"Crucial_", "Crucial"},
		{"CT", "Crucial"}, /* CT500MX500SSD1 */
		{"Micron", "Micron"},
		{"KINGSTON ", "Kingston"},
		{"TOSHIBA ", "Toshiba"},
		{"SanDisk ", "SanDisk"},
		{"OCZ-", "OCZ"},
		{"OCZ ", "OCZ"},
		{"HGST ", "HGST"},
		{"Hitachi ", "Hitachi"},
		{"Corsair ", "Corsair"},
		{"PLEXTOR ", "Plextor"},
		{"SuperTalent ", "Super Talent"},
		{"Patriot ", "Patriot"},
		{"ADATA ", "ADATA"},
		{"QEMU ", "QEMU"},
		{"VBOX ", "VirtualBox"},
	};
	if (!model)
		return NULL;
	for (size_t i = 0; i < sizeof(makers) / sizeof(makers[0]); i++) {
		size_t n = strlen(makers[i].prefix);
		if (strncmp(model, makers[i].prefix, n) == 0 &&
		    (strcmp(makers[i].prefix, "CT") != 0 || (model[2] >= '0' && model[2] <= '9')))
			return makers[i].name;
	}
	/* Seagate: "ST" and the capacity's digits (ST2000DM001). */
	if (strncmp(model, "ST", 2) == 0 && model[2] >= '0' && model[2] <= '9')
		return "Seagate";
	return NULL;
}
