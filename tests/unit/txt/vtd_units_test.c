/* SPDX-License-Identifier: MIT */
/*
 * src/txt/vtd_units.c (issue 38 item 1): the chipset's VT-d units by DIDVID; txt_dmar_take on
 * QEMU's q35 DMAR as acpi-build.c writes it, then the matrix of DRHD sets (the attacker's
 * unit in place of the real one, an extra unit, the real one missing, named twice, with other
 * flags or segment, more DRHDs than any platform has units, a platform of two units in either
 * order) with each result, sub-error and reason; a copy that is too big, or whose signature,
 * length or checksum is wrong; a harmless change that still passes; and the copy being what
 * is checked. txt_pmr_regs/txt_pmr_holds: the registers for tboot's OsSinitData ranges on
 * QEMU's unit, read back from a register file that keeps the writable bits (all hold), from
 * an all-ones window and from one that keeps nothing (each fails), a CAP without PMRs.
 */
#include "test_common.h"

#include "abi/txt.h"
#include "lib/bytes.h"
#include "txt/vtd_units.h"

#define Q35_DIDVID 0x00000001b00f8086ull
#define IOMMU 0xfed90000ull
#define TPM_LOC4 0xfed44000ull           /* reads all-ones on this platform */
#define DMAR_HDR 48u

static char err[200];
static unsigned sub;
static uint8_t copy[TXT_DMAR_MAX];

struct tbl {
    uint8_t b[TXT_DMAR_MAX + 64];
    uint32_t len;
};

/* QEMU's DMAR header: "DMAR", host address width 39 - 1, INTR_REMAP */
static void dmar_init(struct tbl *t)
{
    memset(t, 0, sizeof(*t));
    memcpy(t->b, "DMAR", 4);
    t->b[8] = 1;
    memcpy(t->b + 10, "BOCHS ", 6);
    t->b[36] = 38;
    t->b[37] = 1;
    t->len = DMAR_HDR;
}

static uint8_t *add(struct tbl *t, uint16_t type, uint16_t len)
{
    uint8_t *p = t->b + t->len;
    store_le16(p, type);
    store_le16(p + 2, len);
    t->len += len;
    return p;
}

/* a DRHD with one device scope (QEMU's first: the IOAPIC, type 3, id 0, bus 0 dev 0x1f fn 0) */
static void drhd(struct tbl *t, uint8_t flags, uint16_t segment, uint64_t base)
{
    uint8_t *p = add(t, 0, 24);
    p[4] = flags;
    store_le16(p + 6, segment);
    store_le64(p + 8, base);
    p[16] = 3;
    p[17] = 8;
    p[21] = 0;
    p[22] = 0x1f;
}

static void seal(struct tbl *t)
{
    store_le32(t->b + 4, t->len);
    acpi_fix_checksum(t->b, t->len, 9);
}

static void one_drhd(struct tbl *t, uint8_t flags, uint16_t segment, uint64_t base)
{
    dmar_init(t);
    drhd(t, flags, segment, base);
    seal(t);
}

static void q35(struct tbl *t)
{
    one_drhd(t, 0, 0, IOMMU);
}

/* txt_dmar_take on an exact-size heap copy of the table (ASan sees a read past len) */
static enum txt_dmar_result take_n(const struct tbl *t, uint32_t len,
                                   const struct acpi_drhd *units, unsigned n)
{
    uint8_t *ram = malloc(len ? len : 1);
    memcpy(ram, t->b, len);
    memset(copy, 0xee, sizeof(copy));
    memset(err, 0, sizeof(err));
    sub = 0xeeee;
    enum txt_dmar_result r = txt_dmar_take(ram, len, copy, sizeof(copy), units, n, &sub, err,
                                           sizeof(err));
    free(ram);
    return r;
}

static enum txt_dmar_result take(const struct tbl *t)
{
    unsigned n;
    const struct acpi_drhd *u = txt_chipset_vtd_units(Q35_DIDVID, &n);
    return take_n(t, t->len, u, n);
}

#define REFUSED(t, result, want_sub, reason)                                                 \
    do {                                                                                     \
        assert_int_equal(take(t), (result));                                                 \
        assert_int_equal(sub, (want_sub));                                                   \
        assert_string_equal(err, (reason));                                                  \
    } while (0)

static void chipset_units(void **state)
{
    (void)state;
    unsigned n = 0xeeee;
    const struct acpi_drhd *u = txt_chipset_vtd_units(Q35_DIDVID, &n);
    assert_non_null(u);
    assert_int_equal(n, 1);
    assert_int_equal(u[0].base, IOMMU);
    assert_int_equal(u[0].segment, 0);
    assert_int_equal(u[0].flags, 0);
    /* any revision of 0x8086:0xB00F; another device or vendor: none */
    assert_ptr_equal(txt_chipset_vtd_units(TXT_DIDVID(0x8086, 0xb00f, 7), &n), u);
    assert_null(txt_chipset_vtd_units(TXT_DIDVID(0x8086, 0xb00e, 1), &n));
    assert_int_equal(n, 0);
    assert_null(txt_chipset_vtd_units(TXT_DIDVID(0x8087, 0xb00f, 1), &n));
}

/* QEMU's own DMAR passes, and what is left is the copy, byte for byte; a harmless change (the
 * OEM revision, an RMRR, a second device scope) passes too */
static void q35_dmar_taken(void **state)
{
    (void)state;
    struct tbl t;
    q35(&t);
    assert_int_equal(take(&t), TXT_DMAR_OK);
    assert_int_equal(sub, 0);
    assert_memory_equal(copy, t.b, t.len);
    assert_int_equal(copy[t.len], 0xee);                 /* nothing past it */

    store_le32(t.b + 24, 0x12345678);                    /* OEM revision */
    seal(&t);
    assert_int_equal(take(&t), TXT_DMAR_OK);
    uint8_t *r = add(&t, 1, 32);                         /* an RMRR */
    store_le64(r + 16, 0x7b800000ull);
    store_le64(r + 24, 0x7b9fffffull);
    seal(&t);
    assert_int_equal(take(&t), TXT_DMAR_OK);
}

/* the DRHD set against the chipset's one unit */
static void drhd_sets(void **state)
{
    (void)state;
    struct tbl t;
    /* the attack: the DRHD names TPM locality 4, whose window reads all-ones */
    one_drhd(&t, 0, 0, TPM_LOC4);
    REFUSED(&t, TXT_DMAR_UNITS, TXT_DMAR_UNIT_UNKNOWN,
            "DMAR: DRHD 0 (0xfed44000, segment 0, flags 0x0) is no remapping unit of this "
            "chipset");
    /* the real unit and an extra one, either order */
    q35(&t);
    drhd(&t, 0, 0, TPM_LOC4);
    seal(&t);
    REFUSED(&t, TXT_DMAR_UNITS, TXT_DMAR_UNIT_UNKNOWN,
            "DMAR: DRHD 1 (0xfed44000, segment 0, flags 0x0) is no remapping unit of this "
            "chipset");
    /* no DRHD at all (an RMRR only), or none but the header */
    dmar_init(&t);
    add(&t, 1, 32);
    seal(&t);
    REFUSED(&t, TXT_DMAR_UNITS, TXT_DMAR_UNIT_MISSING,
            "DMAR: no DRHD for the chipset's remapping unit at 0xfed90000");
    dmar_init(&t);
    seal(&t);
    REFUSED(&t, TXT_DMAR_UNITS, TXT_DMAR_UNIT_MISSING,
            "DMAR: no DRHD for the chipset's remapping unit at 0xfed90000");
    /* the real unit twice */
    q35(&t);
    drhd(&t, 0, 0, IOMMU);
    seal(&t);
    REFUSED(&t, TXT_DMAR_UNITS, TXT_DMAR_UNIT_TWICE,
            "DMAR: DRHD 1 (0xfed90000, segment 0, flags 0x0) names a unit a second time");
    /* INCLUDE_PCI_ALL where the chipset's unit lists its devices, another segment, another
     * flag bit */
    one_drhd(&t, ACPI_DRHD_INCLUDE_PCI_ALL, 0, IOMMU);
    REFUSED(&t, TXT_DMAR_UNITS, TXT_DMAR_UNIT_DIFFERS,
            "DMAR: DRHD 0 (0xfed90000, segment 0, flags 0x1) differs from the chipset's unit");
    one_drhd(&t, 0, 1, IOMMU);
    REFUSED(&t, TXT_DMAR_UNITS, TXT_DMAR_UNIT_DIFFERS,
            "DMAR: DRHD 0 (0xfed90000, segment 1, flags 0x0) differs from the chipset's unit");
    one_drhd(&t, 0x2, 0, IOMMU);
    assert_int_equal(take(&t), TXT_DMAR_UNITS);
    assert_int_equal(sub, TXT_DMAR_UNIT_DIFFERS);
    /* more DRHDs than the SINIT keeps (9 of 20): the first extra one is found */
    q35(&t);
    for (unsigned i = 0; i < 19; i++)
        drhd(&t, 0, 0, 0xfee00000ull + 0x1000ull * i);
    seal(&t);
    REFUSED(&t, TXT_DMAR_UNITS, TXT_DMAR_UNIT_UNKNOWN,
            "DMAR: DRHD 1 (0xfee00000, segment 0, flags 0x0) is no remapping unit of this "
            "chipset");
    q35(&t);
    for (unsigned i = 0; i < 19; i++)
        drhd(&t, 0, 0, IOMMU);
    seal(&t);
    assert_int_equal(take(&t), TXT_DMAR_UNITS);
    assert_int_equal(sub, TXT_DMAR_UNIT_TWICE);
}

/* a platform of two units: the DMAR may name them in any order, but both */
static void two_units(void **state)
{
    (void)state;
    static const struct acpi_drhd units[] = { { 0xfed90000ull, 0, 0 }, { 0xfed91000ull, 0, 1 } };
    struct tbl t;
    dmar_init(&t);
    drhd(&t, 1, 0, 0xfed91000ull);
    drhd(&t, 0, 0, 0xfed90000ull);
    seal(&t);
    assert_int_equal(take_n(&t, t.len, units, 2), TXT_DMAR_OK);
    one_drhd(&t, 0, 0, 0xfed90000ull);
    assert_int_equal(take_n(&t, t.len, units, 2), TXT_DMAR_UNITS);
    assert_int_equal(sub, TXT_DMAR_UNIT_MISSING);
    assert_string_equal(err, "DMAR: no DRHD for the chipset's remapping unit at 0xfed91000");
}

/* the copy: bounded, and checked as copied */
static void copy_checked(void **state)
{
    (void)state;
    struct tbl t;
    /* exactly the SINIT's room: taken (RMRRs fill it); one byte more: too big, nothing read */
    q35(&t);
    while (t.len + 32 <= TXT_DMAR_MAX)
        add(&t, 1, 32);
    add(&t, 0x7fff, (uint16_t)(TXT_DMAR_MAX - t.len));
    seal(&t);
    assert_int_equal(t.len, TXT_DMAR_MAX);
    assert_int_equal(take(&t), TXT_DMAR_OK);
    add(&t, 0x7fff, 4);
    seal(&t);
    REFUSED(&t, TXT_DMAR_TOO_BIG, 0, "DMAR: 4100 bytes, more than the SINIT's 4096");
    assert_int_equal(copy[0], 0xee);
    /* checksum, signature, a length field that is not the length it was found with */
    q35(&t);
    t.b[60]++;
    REFUSED(&t, TXT_DMAR_MALFORMED, 0,
            "DMAR: the copy's signature, length or checksum is wrong");
    q35(&t);
    memcpy(t.b, "DMAX", 4);
    acpi_fix_checksum(t.b, t.len, 9);
    assert_int_equal(take(&t), TXT_DMAR_MALFORMED);
    q35(&t);
    assert_int_equal(take_n(&t, t.len - 1, NULL, 0), TXT_DMAR_MALFORMED);
    assert_int_equal(take_n(&t, 35, NULL, 0), TXT_DMAR_MALFORMED);
    /* a structure that runs past the table: acpi_dmar_drhds's reason */
    q35(&t);
    store_le16(t.b + DMAR_HDR + 2, 200);
    seal(&t);
    REFUSED(&t, TXT_DMAR_MALFORMED, 0, "DMAR: structure at 48 has length 200 (the table ends at 72)");
}

/* ---- the PMR registers ---- */

/* QEMU's intel-iommu CAP with x-pmr: PLMR, PHMR, MGAW 39 (aw-bits) */
#define QEMU_CAP (0x1ull << 5 | 0x1ull << 6 | 38ull << 16)

/* tboot's OsSinitData on a 2 GiB guest: low PMR [0, 2 GiB), no high RAM (0xFFFFFFFFFFE00000,
 * 2 MiB) */
static struct txt_pmr_reg r[TXT_PMR_REGS];

static void tboot_regs(uint64_t cap)
{
    assert_int_equal(txt_pmr_regs(cap, 0, 0x80000000ull, 0xffffffffffe00000ull, 0x200000, r,
                                  err, sizeof(err)), 0);
}

/* a register file that keeps the bits QEMU's 0009 makes writable: 31:21 low, 38:21 high */
static uint64_t qemu_keeps(const struct txt_pmr_reg *p)
{
    return p->value & (p->bytes == 4 ? 0xffe00000ull : 0x7fffe00000ull);
}

static void pmr_registers(void **state)
{
    (void)state;
    tboot_regs(QEMU_CAP);
    static const uint32_t off[] = { 0x68, 0x6c, 0x70, 0x78 };
    static const uint64_t val[] = { 0, 0x7fffffff, 0xffffffffffe00000ull, ~0ull };
    for (unsigned i = 0; i < TXT_PMR_REGS; i++) {
        assert_int_equal(r[i].off, off[i]);
        assert_int_equal(r[i].bytes, i < 2 ? 4 : 8);
        assert_int_equal(r[i].value, val[i]);
        assert_int_equal(r[i].holds, i < 2 ? 0xffe00000ull : 0x7fffe00000ull);
        assert_true(txt_pmr_holds(&r[i], qemu_keeps(&r[i])));    /* the real unit */
    }
    /* an all-ones window (TPM locality 4): neither PLMBASE 0 nor PLMLIMIT 0x7fffffff holds;
     * a window that keeps nothing: PLMLIMIT does not hold */
    assert_false(txt_pmr_holds(&r[0], 0xffffffffull));
    assert_false(txt_pmr_holds(&r[1], 0xffffffffull));
    assert_true(txt_pmr_holds(&r[0], 0));
    assert_false(txt_pmr_holds(&r[1], 0));
    /* one bit of the high base lost (a register narrower than CAP says) */
    assert_false(txt_pmr_holds(&r[2], qemu_keeps(&r[2]) & ~(1ull << 30)));
    /* an all-ones CAP has PMRs and MGAW 64: every high bit from 21 up must hold */
    tboot_regs(~0ull);
    assert_int_equal(r[2].holds, 0xffffffffffe00000ull);
    assert_false(txt_pmr_holds(&r[0], 0xffffffffull));
    /* empty regions: limit below base */
    assert_int_equal(txt_pmr_regs(QEMU_CAP, 0, 0, 0, 0, r, err, sizeof(err)), 0);
    assert_int_equal(r[0].value, 0xffe00000u);
    assert_int_equal(r[1].value, 0);
    assert_int_equal(r[2].value, ~0ull);
    assert_int_equal(r[3].value, 0);
    /* no PLMR, or no PHMR */
    assert_int_equal(txt_pmr_regs(QEMU_CAP & ~(1ull << 5), 0, 0, 0, 0, r, err, sizeof(err)), -1);
    assert_string_equal(err, "no protected memory regions (CAP 0x260040)");
    assert_int_equal(txt_pmr_regs(QEMU_CAP & ~(1ull << 6), 0, 0, 0, 0, r, err, sizeof(err)), -1);
    assert_string_equal(err, "no protected memory regions (CAP 0x260020)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chipset_units),
        cmocka_unit_test(q35_dmar_taken),
        cmocka_unit_test(drhd_sets),
        cmocka_unit_test(two_units),
        cmocka_unit_test(copy_checked),
        cmocka_unit_test(pmr_registers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
