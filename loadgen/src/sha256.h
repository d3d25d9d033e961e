/* sha256: SHA-256 (FIPS 180-4), for the serial number's salted hash and the upload's
 * Idempotency-Key. Small and dependency-free: loadgen links nothing but libc.
 *
 * Ownership: struct lg_sha256 is plain data on the caller's side.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define LG_SHA256_BYTES 32
#define LG_SHA256_HEX (2 * LG_SHA256_BYTES + 1) /* hex digits and the NUL */

struct lg_sha256 {
	uint32_t state[8];
	uint64_t bytes; /* hashed so far */
	uint8_t block[64];
	size_t used; /* bytes waiting in block */
};

void lg_sha256_init(struct lg_sha256 *h);
void lg_sha256_update(struct lg_sha256 *h, const void *data, size_t len);
/* The digest; h must be initialized again before another use. */
void lg_sha256_final(struct lg_sha256 *h, uint8_t out[LG_SHA256_BYTES]);

/* The digest of data as lower-case hex, NUL-terminated. */
void lg_sha256_hex(const void *data, size_t len, char out[LG_SHA256_HEX]);
