/* sha256: the FIPS 180-4 / NIST example vectors, a million 'a's, every length around
 * the padding's block boundary (55, 56, 63, 64 bytes) against digests computed once by
 * coreutils' sha256sum, and the same digest however the input is cut into updates. */
#include <string.h>

#include "sha256.h"
#include "test_common.h"

static void expect(const char *input, const char *hex)
{
	char got[LG_SHA256_HEX];
	lg_sha256_hex(input, strlen(input), got);
	CHECKF(strcmp(got, hex) == 0, "sha256(\"%.20s...\") = %s, expected %s", input, got, hex);
}

int main(void)
{
	expect("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	expect("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	expect("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	expect("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklm"
	       "nopqrlmnopqrsmnopqrstnopqrstu",
	       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

	/* printf 'a%.0s' $(seq N) | sha256sum */
	static const struct {
		size_t n;
		const char *hex;
	} lengths[] = {
		{55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
		{56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
		{63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
		{64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
	};
	char a[128];
	memset(a, 'a', sizeof(a));
	for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		char got[LG_SHA256_HEX];
		lg_sha256_hex(a, lengths[i].n, got);
		CHECKF(strcmp(got, lengths[i].hex) == 0, "%zu 'a's: %s", lengths[i].n, got);
	}

	/* A million 'a's, fed in pieces of every size from 1 to 127. */
	struct lg_sha256 h;
	uint8_t digest[LG_SHA256_BYTES];
	lg_sha256_init(&h);
	size_t left = 1000000;
	for (size_t piece = 1; left > 0; piece = piece % 127 + 1) {
		size_t n = piece < left ? piece : left;
		lg_sha256_update(&h, a, n);
		left -= n;
	}
	lg_sha256_final(&h, digest);
	static const uint8_t million[LG_SHA256_BYTES] = {0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb,
							 0x92, 0x81, 0xa1, 0xc7, 0xe2, 0x84, 0xd7,
							 0x3e, 0x67, 0xf1, 0x80, 0x9a, 0x48, 0xa4,
							 0x97, 0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc,
							 0xc7, 0x11, 0x2c, 0xd0};
	CHECK(memcmp(digest, million, sizeof(million)) == 0);
	return test_result("sha256");
}
