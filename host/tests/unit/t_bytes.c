/* SPDX-License-Identifier: MIT */
/* bytes.h: each load and store against a fixed pattern, at an odd (unaligned) offset. */
#include "unit.h"
#include "lib/bytes.h"

#include <string.h>

void test_bytes(void)
{
    static const uint8_t pat[9] = { 0xee, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
    const uint8_t *p = pat + 1;
    uint8_t b[9];

    CHECK(load_le16(p) == 0x2301, "le16 %04x", load_le16(p));
    CHECK(load_le32(p) == 0x67452301u, "le32 %08x", load_le32(p));
    CHECK(load_le64(p) == 0xefcdab8967452301ull, "le64 %016llx", (unsigned long long)load_le64(p));
    CHECK(load_be16(p) == 0x0123, "be16 %04x", load_be16(p));
    CHECK(load_be32(p) == 0x01234567u, "be32 %08x", load_be32(p));
    CHECK(load_le32(pat + 5) == 0xefcdab89u, "le32, high bit set");
    CHECK(load_be32(pat + 5) == 0x89abcdefu, "be32, high bit set");

    memset(b, 0xee, sizeof(b));
    store_le16(b + 1, 0x2301);
    store_le32(b + 3, 0x67452301u);
    CHECK(!memcmp(b, "\xee\x01\x23\x01\x23\x45\x67\xee\xee", 9), "store_le16, store_le32");
    memset(b, 0xee, sizeof(b));
    store_be16(b + 1, 0x0123);
    store_be32(b + 3, 0x89abcdefu);
    CHECK(!memcmp(b, "\xee\x01\x23\x89\xab\xcd\xef\xee\xee", 9), "store_be16, store_be32");
}
