/* capture_pages: print, in hex, the pages loadgen's identification and health parsers
 * read, as a device answers them: `capture_pages identify|health DEVICE`. The VM test
 * runs it on QEMU's emulated NVMe and SATA disks (ident_in_vm.py --capture) to make
 * the fixtures of test_ident and test_health; the Identify page holds the test's own
 * serial number, never a real one. Exit 0, or 1 with the error on stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "health.h"
#include "ident.h"
#include "target.h"

static void hex(const uint8_t *page, size_t len)
{
	for (size_t i = 0; i < len; i++)
		printf("%02x%s", page[i], i % 32 == 31 ? "\n" : "");
}

int main(int argc, char **argv)
{
	static uint8_t page[LG_NVME_IDENTIFY_BYTES];
	int r;
	if (argc != 3) {
		fprintf(stderr, "usage: %s identify|health DEVICE\n", argv[0]);
		return 1;
	}
	if (strcmp(argv[1], "identify") == 0) {
		int fd = open(argv[2], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			perror(argv[2]);
			return 1;
		}
		r = lg_ident_nvme_identify(fd, page);
		close(fd);
		if (r == 0)
			hex(page, LG_NVME_IDENTIFY_BYTES);
	} else {
		struct lg_target_info info;
		enum lg_health_source source;
		r = lg_target_probe(argv[2], &info);
		if (r == 0)
			r = lg_health_read_page(&info, &source, page);
		if (r == 0)
			hex(page, 512);
	}
	if (r < 0) {
		fprintf(stderr, "%s %s: %s\n", argv[1], argv[2], strerror(-r));
		return 1;
	}
	return 0;
}
