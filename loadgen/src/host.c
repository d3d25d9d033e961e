#define _GNU_SOURCE
#include "host.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "text.h"

/* Value of the first line "key<sep>value" of a text file, trimmed and unquoted. */
static void read_key(const char *path, const char *key, char sep, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen(path, "re");
	size_t key_len = strlen(key);

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, key_len) != 0)
			continue;
		char *p = line + key_len;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != sep)
			continue;
		p++;
		lg_trim(p);
		size_t n = strlen(p);

		if (n >= 2 && (p[0] == '"' || p[0] == '\'') && p[n - 1] == p[0]) {
			p[n - 1] = '\0';
			p++;
		}
		snprintf(out, len, "%s", p);
		break;
	}
	fclose(f);
}

int lg_host_probe(struct lg_host *ret_host)
{
	struct lg_host h;
	struct utsname u;
	long pages, page_size, cpus;

	memset(&h, 0, sizeof(h));
	if (uname(&u) < 0)
		return -errno;
	snprintf(h.kernel, sizeof(h.kernel), "%.40s %.150s", u.sysname, u.release);
	snprintf(h.machine, sizeof(h.machine), "%.63s", u.machine);
	if (gethostname(h.hostname, sizeof(h.hostname) - 1) < 0)
		h.hostname[0] = '\0';
	read_key("/etc/os-release", "PRETTY_NAME", '=', h.os, sizeof(h.os));
	read_key("/proc/cpuinfo", "model name", ':', h.cpu, sizeof(h.cpu));
	if (!h.cpu[0]) /* arm64 and others */
		read_key("/proc/cpuinfo", "Model", ':', h.cpu, sizeof(h.cpu));
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	h.cpu_count = cpus > 0 ? (uint32_t)cpus : 0;
	pages = sysconf(_SC_PHYS_PAGES);
	page_size = sysconf(_SC_PAGESIZE);
	if (pages > 0 && page_size > 0)
		h.memory_bytes = (uint64_t)pages * (uint64_t)page_size;
	*ret_host = h;
	return 0;
}
