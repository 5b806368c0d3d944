/* SPDX-License-Identifier: MIT */
/*
 * QEMU's TXT register file (qemu/patches/0004, 0011, 0012: hw/misc/intel_txt_regs.c, a pure function of
 * state x access), compiled out of the series (scripts/series-file.sh, tests/fuzz.mk), on
 * sequences of accesses. After each access: a read's value fits its width; an access that is
 * not a CPU's, misaligned, or to the closed private space is a master abort (reads all-ones)
 * that changes nothing; a read changes nothing; the power-on registers (DIDVID, SINIT, HEAP,
 * DPR, PUBLIC.KEY) never change; ESTS.TXT_RESET is set by CMD.RESET only (which asks for the
 * platform reset and changes nothing else) and never cleared; a public write changes only MLE.JOIN;
 * nothing but a command opens a locality, and only CMD.OPEN-PRIVATE written by the CPU in
 * authenticated-code mode opens the private space (also while it is closed); a narrow read is
 * the slice of the 8-byte read. Then the platform resets (a power cycle when the input has
 * bytes after its last whole access and the first has bit 0 set): scrub wanted exactly when
 * SECRETS was set, SECRETS clear after; a power cycle clears ESTS, ERRORCODE and E2STS, a reset
 * keeps ESTS and ERRORCODE. Before that, an S3 request (the same bit 1 of that byte): refused
 * exactly when SECRETS is set, recording ESTS.WAKE_ERROR and E2STS.SLP_ENTRY_ERROR and nothing
 * else; and an INIT of the BSP is a platform reset whenever SECRETS or SENTER.DONE is set, and
 * an INIT again after the machine's reset. ASan sees any access out of the state.
 *
 * The register ABI is include/abi/txt.h's (tboot's config_regs.h): the static asserts below
 * fail the build when the patch and the ABI disagree (the identical bit macros of both headers
 * must also be token-for-token the same, or the compiler refuses the redefinition).
 *
 * Input: 40 bytes of initial state (STS, ESTS, ERRORCODE, E2STS, MLE.JOIN, little-endian u64;
 * missing bytes 0), then accesses of 11 bytes: op (bit 0 write, bit 1 public, bits 3:2 width
 * 1/2/4/8, bit 4 not from a CPU, bit 5 offset is a register's of the table below plus
 * (offset >> 8) & 7, bit 6 from the CPU in AC mode), u16 offset, u64 value.
 */
#include "fuzz_common.h"

#include "abi/txt.h"
#include "hw/misc/intel_txt_regs.h"

_Static_assert(TXT_PRIVATE_BASE == TXT_PRIV_CONFIG_REGS_BASE, "private base");
_Static_assert(TXT_PUBLIC_BASE == TXT_PUB_CONFIG_REGS_BASE, "public base");
_Static_assert(TXT_SPACE_SIZE == TXT_CONFIG_REGS_SIZE, "space size");
_Static_assert(TXT_REG_STS == TXTCR_STS && TXT_REG_ESTS == TXTCR_ESTS &&
               TXT_REG_ERRORCODE == TXTCR_ERRORCODE && TXT_REG_CMD_RESET == TXTCR_CMD_RESET &&
               TXT_REG_CMD_OPEN_PRIVATE == TXTCR_CMD_OPEN_PRIVATE &&
               TXT_REG_CMD_CLOSE_PRIVATE == TXTCR_CMD_CLOSE_PRIVATE &&
               TXT_REG_VER_FSBIF == TXTCR_VER_FSBIF && TXT_REG_DIDVID == TXTCR_DIDVID &&
               TXT_REG_VER_QPIIF == TXTCR_VER_QPIIF &&
               TXT_REG_CMD_UNLOCK_MEM_CONFIG == TXTCR_CMD_UNLOCK_MEM_CONFIG &&
               TXT_REG_SINIT_BASE == TXTCR_SINIT_BASE && TXT_REG_SINIT_SIZE == TXTCR_SINIT_SIZE &&
               TXT_REG_MLE_JOIN == TXTCR_MLE_JOIN && TXT_REG_HEAP_BASE == TXTCR_HEAP_BASE &&
               TXT_REG_HEAP_SIZE == TXTCR_HEAP_SIZE && TXT_REG_MSEG_BASE == TXTCR_MSEG_BASE &&
               TXT_REG_MSEG_SIZE == TXTCR_MSEG_SIZE && TXT_REG_DPR == TXTCR_DPR &&
               TXT_REG_CMD_OPEN_LOCALITY1 == TXTCR_CMD_OPEN_LOCALITY1 &&
               TXT_REG_CMD_CLOSE_LOCALITY1 == TXTCR_CMD_CLOSE_LOCALITY1 &&
               TXT_REG_CMD_OPEN_LOCALITY2 == TXTCR_CMD_OPEN_LOCALITY2 &&
               TXT_REG_CMD_CLOSE_LOCALITY2 == TXTCR_CMD_CLOSE_LOCALITY2 &&
               TXT_REG_PUBLIC_KEY == TXTCR_PUBLIC_KEY &&
               TXT_REG_CMD_SECRETS == TXTCR_CMD_SECRETS &&
               TXT_REG_CMD_NO_SECRETS == TXTCR_CMD_NO_SECRETS && TXT_REG_E2STS == TXTCR_E2STS,
               "register offsets");
_Static_assert(TXT_VER_FSBIF_VALUE == TXT_VER_PROD_FUSED, "production fused");
_Static_assert(TXT_DIDVID_VALUE == TXT_DIDVID(0x8086, 0xb00f, 1), "DIDVID: our chipset");
_Static_assert(TXT_DPR_VALUE(0x7c00000u, 4) == TXT_DPR(0x7c00000u, 4, 1), "DPR");

/* the layout of -m 128: T = 128 MiB */
#define T 0x8000000ull
#define MIB 0x100000ull

static const uint32_t table[] = {
    TXT_REG_STS, TXT_REG_ESTS, TXT_REG_ERRORCODE, TXT_REG_CMD_RESET, TXT_REG_CMD_OPEN_PRIVATE,
    TXT_REG_CMD_CLOSE_PRIVATE, TXT_REG_VER_FSBIF, TXT_REG_DIDVID, TXT_REG_VER_QPIIF,
    TXT_REG_CMD_UNLOCK_MEM_CONFIG, TXT_REG_SINIT_BASE, TXT_REG_SINIT_SIZE, TXT_REG_MLE_JOIN,
    TXT_REG_HEAP_BASE, TXT_REG_HEAP_SIZE, TXT_REG_MSEG_BASE, TXT_REG_MSEG_SIZE, TXT_REG_DPR,
    TXT_REG_CMD_OPEN_LOCALITY1, TXT_REG_CMD_CLOSE_LOCALITY1, TXT_REG_CMD_OPEN_LOCALITY2,
    TXT_REG_CMD_CLOSE_LOCALITY2, TXT_REG_PUBLIC_KEY, TXT_REG_PUBLIC_KEY + 8,
    TXT_REG_PUBLIC_KEY + 16, TXT_REG_PUBLIC_KEY + 24, TXT_REG_CMD_SECRETS,
    TXT_REG_CMD_NO_SECRETS, TXT_REG_E2STS,
};

static uint64_t le64(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint64_t mask(unsigned size)
{
    return size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

/* the registers fixed at power-on are what they were */
static void check_fixed(const TXTRegs *s, const TXTRegs *init)
{
    FUZZ_ASSERT(s->didvid == init->didvid && s->sinit_base == init->sinit_base &&
                s->sinit_size == init->sinit_size && s->heap_base == init->heap_base &&
                s->heap_size == init->heap_size && s->dpr == init->dpr,
                "a power-on register changed");
    FUZZ_ASSERT(!memcmp(s->public_key, init->public_key, sizeof(s->public_key)),
                "PUBLIC.KEY changed");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint64_t key[4] = { 0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull,
                                     0x1716151413121110ull, 0x1f1e1d1c1b1a1918ull };
    uint8_t hdr[40] = { 0 };
    TXTRegs s, init, before;

    memcpy(hdr, data, size < sizeof(hdr) ? size : sizeof(hdr));
    txt_regs_power_on(&s, T - 4 * MIB, MIB, T - 3 * MIB, 256 * 1024, T, 4 * MIB, key);
    FUZZ_ASSERT(s.dpr == TXT_DPR(T, 4, 1), "power-on DPR 0x%llx", (unsigned long long)s.dpr);
    s.sts = le64(hdr, 8);
    s.ests = le64(hdr + 8, 8);
    s.errorcode = le64(hdr + 16, 8);
    s.e2sts = le64(hdr + 24, 8);
    s.mle_join = le64(hdr + 32, 8);
    init = s;

    size_t off = sizeof(hdr);
    for (; off + 11 <= size; off += 11) {
        const uint8_t *p = data + off;
        uint8_t op = p[0];
        uint16_t o = (uint16_t)(p[1] | p[2] << 8);
        uint64_t val = le64(p + 3, 8);
        TXTAccess a = {
            .space = (op & 2) ? TXT_SPACE_PUBLIC : TXT_SPACE_PRIVATE,
            .offset = (op & 0x20) ? table[o % (sizeof(table) / sizeof(table[0]))] + ((o >> 8) & 7)
                                  : o,
            .size = 1u << ((op >> 2) & 3),
            .from_cpu = !(op & 0x10),
            .from_acm = !(op & 0x10) && (op & 0x40),
        };
        bool opens = (op & 1) && a.from_acm && a.space == TXT_SPACE_PRIVATE &&
                     a.offset == TXT_REG_CMD_OPEN_PRIVATE;
        bool aborts = !opens &&
                      (!a.from_cpu || (a.offset & (a.size - 1)) || a.offset >= TXT_SPACE_SIZE ||
                       (a.space == TXT_SPACE_PRIVATE && !(s.sts & TXT_STS_PRIVATE_OPEN)));
        bool resets = (op & 1) && !aborts && a.space == TXT_SPACE_PRIVATE &&
                      a.offset == TXT_REG_CMD_RESET;
        before = s;
        if (op & 1) {
            TXTResult r = txt_regs_write(&s, &a, val);
            FUZZ_ASSERT(r >= TXT_OK && r <= TXT_RESET_PLATFORM, "result %d", (int)r);
            FUZZ_ASSERT((r == TXT_ABORT) == aborts, "write abort %d, expected %d", (int)r, aborts);
            FUZZ_ASSERT((r == TXT_RESET_PLATFORM) == resets, "CMD.RESET: %d, expected %d",
                        (int)r, resets);
            if (resets) {
                TXTRegs t = before;
                t.ests |= TXT_ESTS_TXT_RESET;
                FUZZ_ASSERT(!memcmp(&s, &t, sizeof(s)), "CMD.RESET changed more than ESTS");
            } else {
                FUZZ_ASSERT((s.ests & TXT_ESTS_TXT_RESET) == (before.ests & TXT_ESTS_TXT_RESET),
                            "ESTS.TXT_RESET changed by a write to 0x%x", a.offset);
            }
            if (r != TXT_OK && r != TXT_RESET_PLATFORM)
                FUZZ_ASSERT(!memcmp(&s, &before, sizeof(s)), "a refused write changed state");
            if (a.space == TXT_SPACE_PUBLIC) {
                TXTRegs t = s;
                t.mle_join = before.mle_join;
                FUZZ_ASSERT(!memcmp(&t, &before, sizeof(t)), "a public write changed more "
                            "than MLE.JOIN (offset 0x%x)", a.offset);
            }
            if (opens)
                FUZZ_ASSERT(r == TXT_OK && s.sts == (before.sts | TXT_STS_PRIVATE_OPEN),
                            "CMD.OPEN-PRIVATE from AC mode: %d, STS 0x%llx", (int)r,
                            (unsigned long long)s.sts);
            else
                FUZZ_ASSERT(!(s.sts & ~before.sts & TXT_STS_PRIVATE_OPEN), "private space opened "
                            "by a write to 0x%x", a.offset);
            FUZZ_ASSERT(!(s.sts & ~before.sts & (TXT_STS_LOCALITY1_OPEN | TXT_STS_LOCALITY2_OPEN)) ||
                        (a.offset == TXT_REG_CMD_OPEN_LOCALITY1 ||
                         a.offset == TXT_REG_CMD_OPEN_LOCALITY2),
                        "a locality opened by a write to 0x%x", a.offset);
            FUZZ_ASSERT(!(s.sts & ~before.sts & ~(uint64_t)(TXT_STS_LOCALITY1_OPEN |
                                                          TXT_STS_LOCALITY2_OPEN |
                                                          (opens ? TXT_STS_PRIVATE_OPEN : 0))),
                        "STS gained bits 0x%llx", (unsigned long long)(s.sts & ~before.sts));
        } else {
            uint64_t v = 0x1234;
            TXTResult r = txt_regs_read(&s, &a, &v);
            FUZZ_ASSERT(!memcmp(&s, &before, sizeof(s)), "a read changed state");
            FUZZ_ASSERT((r == TXT_ABORT) == aborts, "read abort %d, expected %d", (int)r, aborts);
            FUZZ_ASSERT(!(v & ~mask(a.size)), "read 0x%llx wider than %u bytes",
                        (unsigned long long)v, a.size);
            if (r == TXT_ABORT) {
                FUZZ_ASSERT(v == mask(a.size), "abort read 0x%llx, not all-ones",
                            (unsigned long long)v);
            } else {
                /* the slice of the register's 8-byte read */
                TXTAccess w = a;
                uint64_t full = 0;
                w.offset = a.offset & ~7u;
                w.size = 8;
                FUZZ_ASSERT(txt_regs_read(&s, &w, &full) == r, "8-byte read differs");
                FUZZ_ASSERT(v == ((full >> (8 * (a.offset & 7))) & mask(a.size)),
                            "slice 0x%llx of 0x%llx at 0x%x", (unsigned long long)v,
                            (unsigned long long)full, a.offset);
                if (r == TXT_UNIMP)
                    FUZZ_ASSERT(v == 0, "no register reads 0x%llx", (unsigned long long)v);
            }
        }
        check_fixed(&s, &init);
    }
    /* an INIT of the BSP with secrets in memory or after a launch never reaches the reset
     * vector: the platform resets instead (patch 0012) */
    if ((s.e2sts & TXT_E2STS_SECRETS) || (s.sts & TXT_STS_SENTER_DONE))
        FUZZ_ASSERT(txt_regs_bsp_init_resets(&s), "INIT let through, STS 0x%llx E2STS 0x%llx",
                    (unsigned long long)s.sts, (unsigned long long)s.e2sts);
    /* a warm reset clears STS, MLE.JOIN and MSEG and keeps the rest */
    before = s;
    txt_regs_reset(&s);
    FUZZ_ASSERT(s.sts == 0 && s.mle_join == 0 && s.mseg_base == 0 && s.mseg_size == 0 &&
                s.ests == before.ests && s.errorcode == before.errorcode &&
                s.e2sts == before.e2sts, "warm reset");
    check_fixed(&s, &init);

    /* S3 asked for: refused exactly with SECRETS, the wake error recorded */
    if (off < size && (data[off] & 2)) {
        TXTRegs t;
        before = s;
        bool refused = txt_regs_sleep_refused(&s);
        FUZZ_ASSERT(refused == !!(before.e2sts & TXT_E2STS_SECRETS), "S3 refused %d", refused);
        t = before;
        if (refused) {
            t.ests |= TXT_ESTS_WAKE_ERROR;
            t.e2sts |= TXT_E2STS_SLP_ENTRY_ERROR;
        }
        FUZZ_ASSERT(!memcmp(&s, &t, sizeof(s)), "S3 changed more than the wake error");
    }

    /* the platform resets: a scrub exactly when SECRETS was set; a power cycle clears the rest */
    bool power_cycle = off < size && (data[off] & 1);
    before = s;
    bool scrub = txt_regs_platform_reset(&s, power_cycle);
    FUZZ_ASSERT(scrub == !!(before.e2sts & TXT_E2STS_SECRETS), "scrub %d, E2STS 0x%llx", scrub,
                (unsigned long long)before.e2sts);
    FUZZ_ASSERT(!(s.e2sts & TXT_E2STS_SECRETS), "SECRETS survived a reset");
    if (power_cycle)
        FUZZ_ASSERT(s.ests == 0 && s.errorcode == 0 && s.e2sts == 0, "power cycle");
    else
        FUZZ_ASSERT(s.ests == before.ests && s.errorcode == before.errorcode &&
                    s.e2sts == (before.e2sts & ~(uint64_t)TXT_E2STS_SECRETS), "platform reset");
    TXTRegs t2 = before;
    t2.ests = s.ests;
    t2.errorcode = s.errorcode;
    t2.e2sts = s.e2sts;
    FUZZ_ASSERT(!memcmp(&s, &t2, sizeof(s)), "a platform reset changed other registers");
    /* and after the machine's reset (the device's, then the platform's) an INIT is an INIT
     * again: a rule that stayed on would turn every later INIT into another reset */
    FUZZ_ASSERT(!txt_regs_bsp_init_resets(&s), "INIT still a reset after a reset");
    check_fixed(&s, &init);
    return 0;
}
