/* host: the machine loadgen runs on, as the result document records it.
 *
 * Ownership: struct lg_host is plain data owned by the caller.
 */
#pragma once

#include <stdint.h>

struct lg_host {
	char hostname[256];
	char os[200];       /* PRETTY_NAME of /etc/os-release; empty when unknown */
	char kernel[200];   /* "Linux 6.1.0-18-amd64" (uname sysname and release) */
	char machine[64];   /* uname machine: "x86_64" */
	char cpu[200];      /* model name from /proc/cpuinfo; empty when unknown */
	uint32_t cpu_count; /* online CPUs */
	uint64_t memory_bytes;
};

/* Fill *ret_host from uname(), /etc/os-release, /proc/cpuinfo and sysconf().
 * Fields that cannot be read stay empty or 0. Returns 0, or -errno when uname()
 * itself fails. */
int lg_host_probe(struct lg_host *ret_host);
