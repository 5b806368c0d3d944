/* SPDX-License-Identifier: MIT */
/*
 * src/acpi/tables.c on hand-built table bytes (each passed as an exact-size heap copy, so
 * ASan sees any read past the table's length): acpi_madt_enabled_cpus (local APIC and
 * x2APIC entries, enabled and not, among other entry types; truncated entries and lengths 0
 * and 1 refused), acpi_dmar_drhds (DRHD bases, segments and flags in table order around
 * other structure types; all counted, at most `max` written; a structure past the end, each
 * with its reason) and
 * acpi_mcfg_segment0 (QEMU q35's window, a start bus above 0, other segments).
 */
#include "test_common.h"

#include "acpi/tables.h"
#include "lib/bytes.h"

#define MIB (1ull << 20)

/* A table under construction: its bytes and how many there are. */
struct tbl {
    uint8_t b[1024];
    uint32_t len;
};

static char err[200];

static void tbl_init(struct tbl *t, const char sig[4], uint32_t hdr_len)
{
    memset(t, 0, sizeof(*t));
    memcpy(t->b, sig, 4);
    t->len = hdr_len;
}

/* Appends `len` bytes (zero unless given) and returns where they start. */
static uint8_t *tbl_add(struct tbl *t, const void *bytes, uint32_t len)
{
    assert_true(t->len + len <= sizeof(t->b));
    uint8_t *p = t->b + t->len;
    if (bytes)
        memcpy(p, bytes, len);
    t->len += len;
    store_le32(t->b + 4, t->len);
    return p;
}

/* ---- MADT: 36-byte header, local APIC address, flags, then entries ---- */

#define MADT_HDR 44u

static void madt_init(struct tbl *t)
{
    tbl_init(t, "APIC", MADT_HDR);
    store_le32(t->b + 36, 0xfee00000u);          /* local APIC address */
    store_le32(t->b + 40, 1);                    /* PCAT_COMPAT */
}

/* type 0, length 8: processor UID, APIC id, flags */
static void lapic(struct tbl *t, uint8_t uid, uint8_t apic_id, uint32_t flags)
{
    uint8_t e[8] = { 0, 8, uid, apic_id };
    store_le32(e + 4, flags);
    tbl_add(t, e, sizeof(e));
}

/* type 9, length 16: reserved, x2APIC id, flags, processor UID */
static void x2apic(struct tbl *t, uint32_t x2apic_id, uint32_t flags, uint32_t uid)
{
    uint8_t e[16] = { 9, 16 };
    store_le32(e + 4, x2apic_id);
    store_le32(e + 8, flags);
    store_le32(e + 12, uid);
    tbl_add(t, e, sizeof(e));
}

/* an entry of any type and length, its body filled with `fill` */
static void madt_entry(struct tbl *t, uint8_t type, uint8_t len, uint8_t fill)
{
    uint8_t *p = tbl_add(t, NULL, len);
    memset(p, fill, len);
    p[0] = type;
    if (len > 1)
        p[1] = len;
}

static int madt_cpus(const struct tbl *t, uint32_t len)
{
    uint8_t *c = malloc(len ? len : 1);
    memcpy(c, t->b, len);
    int n = acpi_madt_enabled_cpus(c, len);
    free(c);
    return n;
}

/* QEMU's MADT for -smp 4 (one CPU hot-unplugged: flags 0), then IOAPIC, interrupt source
 * overrides and local APIC NMI entries, which are no CPUs whatever their bytes say. */
static void madt_qemu(void **state)
{
    (void)state;
    struct tbl t;
    madt_init(&t);
    assert_int_equal(madt_cpus(&t, t.len), 0);               /* no entries */
    lapic(&t, 0, 0, 1);
    lapic(&t, 1, 1, 1);
    lapic(&t, 2, 2, 0);                          /* not enabled */
    lapic(&t, 3, 3, 1);
    madt_entry(&t, 1, 12, 0x01);                 /* IOAPIC: bytes 4-7 are 1s */
    madt_entry(&t, 2, 10, 0xff);                 /* interrupt source override */
    madt_entry(&t, 2, 10, 0x01);
    madt_entry(&t, 4, 6, 0xff);                  /* local APIC NMI */
    assert_int_equal(madt_cpus(&t, t.len), 3);
    /* every prefix that ends on an entry boundary counts the CPUs before it */
    assert_int_equal(madt_cpus(&t, MADT_HDR + 8), 1);
    assert_int_equal(madt_cpus(&t, MADT_HDR + 24), 2);
    assert_int_equal(madt_cpus(&t, MADT_HDR + 32), 3);
}

/* Only bit 0 of the flags counts (bit 1 is "online capable"), at +4 for a local APIC and
 * at +8 for an x2APIC: the x2APIC id at +4 is not a flag. */
static void madt_flags_and_x2apic(void **state)
{
    (void)state;
    struct tbl t;
    madt_init(&t);
    lapic(&t, 0, 0, 1);
    lapic(&t, 1, 1, 2);                          /* online capable, not enabled */
    lapic(&t, 1, 1, 0xfffffffe);                 /* all but bit 0 */
    lapic(&t, 1, 1, 3);                          /* enabled and online capable */
    assert_int_equal(madt_cpus(&t, t.len), 2);
    x2apic(&t, 0x100, 1, 4);                     /* enabled */
    x2apic(&t, 1, 0, 5);                         /* id 1 at +4, flags 0: not enabled */
    x2apic(&t, 0x101, 0, 1);                     /* UID 1 at +12, flags 0 */
    x2apic(&t, 0x102, 0xffffffff, 6);
    assert_int_equal(madt_cpus(&t, t.len), 4);

    /* all x2APIC, as QEMU writes for APIC ids above 254 */
    madt_init(&t);
    for (unsigned i = 0; i < 40; i++)
        x2apic(&t, 255 + i, i % 5 != 0, i);
    assert_int_equal(madt_cpus(&t, t.len), 32);

    /* a local APIC or x2APIC entry too short to hold its flags is no CPU (and not an error):
     * the bytes where the flags would be belong to the next entry */
    madt_init(&t);
    madt_entry(&t, 0, 4, 0x01);
    x2apic(&t, 0, 0, 0);                         /* its type 9 where the flags would be */
    madt_entry(&t, 9, 8, 0x01);
    madt_entry(&t, 1, 12, 0x01);                 /* IOAPIC: type 1 where the flags would be */
    madt_entry(&t, 0, 2, 0x01);                  /* just type and length */
    madt_entry(&t, 0, 7, 0x01);                  /* 1s and the next type 9 at +4 */
    madt_entry(&t, 9, 11, 0x01);                 /* its flags would end past the table */
    assert_int_equal(madt_cpus(&t, t.len), 0);
    /* and longer ones still count, reading the flags where they are */
    madt_init(&t);
    madt_entry(&t, 0, 12, 0x00);
    t.b[MADT_HDR + 4] = 1;
    madt_entry(&t, 9, 20, 0x00);
    t.b[MADT_HDR + 12 + 8] = 1;
    assert_int_equal(madt_cpus(&t, t.len), 2);
}

static void madt_malformed(void **state)
{
    (void)state;
    struct tbl t;
    madt_init(&t);
    lapic(&t, 0, 0, 1);
    lapic(&t, 1, 1, 1);
    uint32_t full = t.len;
    /* the last entry cut short: 7, 2 and 1 of its 8 bytes */
    assert_int_equal(madt_cpus(&t, full - 1), -1);
    assert_int_equal(madt_cpus(&t, full - 6), -1);
    assert_int_equal(madt_cpus(&t, full - 7), -1);
    assert_int_equal(madt_cpus(&t, full), 2);
    /* an entry of length 0 or 1 (no infinite loop), first or after a CPU */
    for (uint8_t l = 0; l < 2; l++) {
        madt_init(&t);
        madt_entry(&t, 0, 8, 0);
        t.b[MADT_HDR + 1] = l;
        assert_int_equal(madt_cpus(&t, t.len), -1);
        madt_init(&t);
        lapic(&t, 0, 0, 1);
        madt_entry(&t, 0, 8, 0);
        t.b[MADT_HDR + 8 + 1] = l;
        lapic(&t, 1, 1, 1);
        assert_int_equal(madt_cpus(&t, t.len), -1);
        madt_init(&t);
        madt_entry(&t, 0x7f, 8, 0);              /* an unknown type too */
        t.b[MADT_HDR + 1] = l;
        assert_int_equal(madt_cpus(&t, t.len), -1);
    }
    /* an entry whose length runs past the table, by one byte */
    madt_init(&t);
    lapic(&t, 0, 0, 1);
    x2apic(&t, 1, 1, 1);
    t.b[MADT_HDR + 8 + 1] = 17;
    assert_int_equal(madt_cpus(&t, t.len), -1);
    t.b[MADT_HDR + 8 + 1] = 255;
    assert_int_equal(madt_cpus(&t, t.len), -1);
    /* a table no longer than its header has no entries */
    assert_int_equal(madt_cpus(&t, MADT_HDR), 0);
    assert_int_equal(madt_cpus(&t, 36), 0);
}

/* ---- DMAR: 36-byte header, host address width, flags, 10 reserved, then structures ---- */

#define DMAR_HDR 48u

static void dmar_init(struct tbl *t)
{
    tbl_init(t, "DMAR", DMAR_HDR);
    t->b[36] = 38;                               /* host address width - 1 (39 bits) */
    t->b[37] = 1;                                /* INTR_REMAP */
}

/* a structure: u16 type, u16 length, the rest zero; returns it */
static uint8_t *dmar_struct(struct tbl *t, uint16_t type, uint16_t len)
{
    uint8_t *p = tbl_add(t, NULL, len);
    store_le16(p, type);
    store_le16(p + 2, len);
    return p;
}

/* type 0: flags, size, segment, register base, then device scopes (here zero bytes) */
static void drhd(struct tbl *t, uint16_t len, uint8_t flags, uint64_t base)
{
    uint8_t *p = dmar_struct(t, 0, len);
    p[4] = flags;
    store_le64(p + 8, base);
    for (unsigned i = 16; i < len; i++)
        p[i] = (uint8_t)(0xd0 + i);
}

static unsigned n;
static struct acpi_drhd got[8];

static int drhds(const struct tbl *t, uint32_t len, unsigned max)
{
    assert_true(max <= 8);
    uint8_t *c = malloc(len ? len : 1);
    memcpy(c, t->b, len);
    /* an exact-size output array too, so a write past `max` is an ASan error */
    struct acpi_drhd *out = malloc((max ? max : 1) * sizeof(*out));
    memset(err, 0, sizeof(err));
    n = 0xeeee;
    int rc = acpi_dmar_drhds(c, len, out, max, &n, err, sizeof(err));
    memset(got, 0xee, sizeof(got));
    for (unsigned i = 0; i < max && i < n; i++)
        got[i] = out[i];
    free(out);
    free(c);
    return rc;
}

/* a valid table of `want` DRHDs, read with room for `max` */
static void found(const struct tbl *t, uint32_t len, unsigned max, unsigned want)
{
    assert_int_equal(drhds(t, len, max), 0);
    assert_int_equal(n, want);
}

static void drhd_is(unsigned i, uint64_t base, uint16_t segment, uint8_t flags)
{
    assert_int_equal(got[i].base, base);
    assert_int_equal(got[i].segment, segment);
    assert_int_equal(got[i].flags, flags);
}

/* QEMU's DMAR for intel-iommu has one DRHD (INCLUDE_PCI_ALL); a server's has several, with
 * RMRRs, ATSRs and RHSAs among them: the DRHDs' bases, segments and flags, in table order. */
static void dmar_bases(void **state)
{
    (void)state;
    struct tbl t;
    dmar_init(&t);
    drhd(&t, 16, 1, 0xfed90000ull);
    assert_int_equal(drhds(&t, t.len, 8), 0);
    assert_string_equal(err, "");
    assert_int_equal(n, 1);
    drhd_is(0, 0xfed90000ull, 0, 1);

    dmar_init(&t);
    drhd(&t, 24, 0, 0xfed90000ull);              /* one device scope of 8 bytes */
    uint8_t *rmrr = dmar_struct(&t, 1, 32);       /* RMRR: base/limit like a DRHD base */
    store_le64(rmrr + 8, 0x7b800000ull);
    store_le64(rmrr + 16, 0x7b9fffffull);
    drhd(&t, 16, 1, 0x1fed91000ull);             /* above 4 GiB: all 64 bits */
    store_le16(t.b + t.len - 16 + 6, 0x0102);    /* its segment */
    found(&t, t.len, 8, 2);
    drhd_is(0, 0xfed90000ull, 0, 0);
    drhd_is(1, 0x1fed91000ull, 0x0102, 1);
    assert_int_equal(got[2].base, 0xeeeeeeeeeeeeeeeeull);
    /* exactly as many as there is room for */
    found(&t, t.len, 2, 2);
    drhd_is(1, 0x1fed91000ull, 0x0102, 1);

    /* other types, of odd lengths down to 4, are skipped; a DRHD after them still found */
    dmar_init(&t);
    dmar_struct(&t, 2, 40);                      /* ATSR */
    dmar_struct(&t, 3, 20);                      /* RHSA */
    dmar_struct(&t, 4, 7);                       /* ANDD */
    dmar_struct(&t, 0x7fff, 4);                  /* unknown, header only */
    drhd(&t, 16, 0, 0xfeda0000ull);
    dmar_struct(&t, 5, 5);                       /* SATC */
    found(&t, t.len, 1, 1);
    drhd_is(0, 0xfeda0000ull, 0, 0);
}

/* three DRHDs around an RMRR: 48 + 16 + 16 + 32 + 16 = 128 bytes */
static void three_drhds(struct tbl *t)
{
    dmar_init(t);
    drhd(t, 16, 0, 0xfed90000ull);
    drhd(t, 16, 0, 0xfed91000ull);
    dmar_struct(t, 1, 32);
    drhd(t, 16, 1, 0xfed92000ull);
}

/* No DRHD is no error here (the caller compares the set with the platform's units); more
 * DRHDs than room: all counted, the first `max` written */
static void dmar_counts(void **state)
{
    (void)state;
    struct tbl t;
    dmar_init(&t);
    dmar_struct(&t, 1, 32);
    found(&t, t.len, 8, 0);
    found(&t, DMAR_HDR, 8, 0);

    three_drhds(&t);
    found(&t, t.len, 2, 3);
    drhd_is(0, 0xfed90000ull, 0, 0);
    drhd_is(1, 0xfed91000ull, 0, 0);
    assert_int_equal(got[2].base, 0xeeeeeeeeeeeeeeeeull);
    found(&t, t.len, 0, 3);
    found(&t, t.len, 3, 3);
    drhd_is(2, 0xfed92000ull, 0, 1);
}

static void dmar_refused(void **state)
{
    (void)state;
    struct tbl t;
    dmar_init(&t);
    assert_int_equal(drhds(&t, 47, 8), -1);
    assert_string_equal(err, "DMAR: 47 bytes, shorter than its header");
    assert_int_equal(n, 0);
    assert_int_equal(drhds(&t, 0, 8), -1);
    assert_string_equal(err, "DMAR: 0 bytes, shorter than its header");

    three_drhds(&t);
    /* a structure that runs past the table: the last one by a byte, or the table cut short */
    uint32_t full = t.len;                       /* 48 + 16 + 16 + 32 + 16 = 128 */
    assert_int_equal(drhds(&t, full - 1, 8), -1);
    assert_string_equal(err, "DMAR: structure at 112 has length 16 (the table ends at 127)");
    assert_int_equal(drhds(&t, 100, 8), -1);
    assert_string_equal(err, "DMAR: structure at 80 has length 32 (the table ends at 100)");
    store_le16(t.b + 80 + 2, 0xffff);
    assert_int_equal(drhds(&t, full, 8), -1);
    assert_string_equal(err, "DMAR: structure at 80 has length 65535 (the table ends at 128)");
    store_le16(t.b + 80 + 2, 32);
    /* fewer than 4 bytes left for a structure header */
    for (uint32_t cut = 1; cut < 4; cut++) {
        assert_int_equal(drhds(&t, 112 + cut, 8), -1);
        assert_string_equal(err, "DMAR: a structure header at 112 runs past the table");
    }
    /* lengths 0 to 3 (no infinite loop), for a DRHD and another type */
    for (uint16_t l = 0; l < 4; l++) {
        char want[100];
        store_le16(t.b + 64 + 2, l);
        assert_int_equal(drhds(&t, full, 8), -1);
        snprintf(want, sizeof(want), "DMAR: structure at 64 has length %u (the table ends at 128)",
                 l);
        assert_string_equal(err, want);
        store_le16(t.b + 64 + 2, 16);
        store_le16(t.b + 80 + 2, l);
        assert_int_equal(drhds(&t, full, 8), -1);
        snprintf(want, sizeof(want), "DMAR: structure at 80 has length %u (the table ends at 128)",
                 l);
        assert_string_equal(err, want);
        store_le16(t.b + 80 + 2, 32);
    }
    /* a DRHD too short for its register base */
    dmar_init(&t);
    drhd(&t, 16, 0, 0xfed90000ull);
    dmar_struct(&t, 0, 12);
    assert_int_equal(drhds(&t, t.len, 8), -1);
    assert_string_equal(err, "DMAR: DRHD at 64 is 12 bytes, shorter than 16");
    assert_int_equal(n, 1);
    /* the message fits a short buffer, truncated and terminated */
    char small[8];
    memset(small, 'x', sizeof(small));
    unsigned nn;
    struct acpi_drhd b[1];
    assert_int_equal(acpi_dmar_drhds(t.b, t.len, b, 1, &nn, small, sizeof(small)), -1);
    assert_string_equal(small, "DMAR: D");
}

/* ---- MCFG: 36-byte header, 8 reserved, then 16-byte allocations ---- */

#define MCFG_HDR 44u

static void mcfg_init(struct tbl *t)
{
    tbl_init(t, "MCFG", MCFG_HDR);
}

static void mcfg_entry(struct tbl *t, uint64_t base, uint16_t seg, uint8_t start, uint8_t end)
{
    uint8_t e[16] = { 0 };
    store_le64(e, base);
    store_le16(e + 8, seg);
    e[10] = start;
    e[11] = end;
    store_le32(e + 12, 0xa5a5a5a5u);             /* reserved: not looked at */
    tbl_add(t, e, sizeof(e));
}

static uint64_t base, size;

static int seg0(const struct tbl *t, uint32_t len)
{
    uint8_t *c = malloc(len ? len : 1);
    memcpy(c, t->b, len);
    base = size = 0x5555;
    int rc = acpi_mcfg_segment0(c, len, &base, &size);
    free(c);
    return rc;
}

static void mcfg(void **state)
{
    (void)state;
    struct tbl t;
    /* QEMU q35: buses 0-255 at 0xb0000000, 256 MiB */
    mcfg_init(&t);
    mcfg_entry(&t, 0xb0000000ull, 0, 0, 255);
    assert_int_equal(seg0(&t, t.len), 0);
    assert_int_equal(base, 0xb0000000ull);
    assert_int_equal(size, 256 * MIB);
    /* buses 1-255: the window starts 1 MiB in (the base address is bus 0's) */
    mcfg_init(&t);
    mcfg_entry(&t, 0xe0000000ull, 0, 1, 255);
    assert_int_equal(seg0(&t, t.len), 0);
    assert_int_equal(base, 0xe0000000ull + MIB);
    assert_int_equal(size, 255 * MIB);
    /* one bus; a base above 4 GiB */
    mcfg_init(&t);
    mcfg_entry(&t, 0x3800000000ull, 0, 0x40, 0x40);
    assert_int_equal(seg0(&t, t.len), 0);
    assert_int_equal(base, 0x3800000000ull + 0x40 * MIB);
    assert_int_equal(size, MIB);
    /* segment 1 first, then segment 0: segment 0's */
    mcfg_init(&t);
    mcfg_entry(&t, 0xc0000000ull, 1, 0, 255);
    mcfg_entry(&t, 0xb0000000ull, 0, 0, 127);
    mcfg_entry(&t, 0xd0000000ull, 0, 0, 255);    /* a second one for segment 0: not used */
    assert_int_equal(seg0(&t, t.len), 0);
    assert_int_equal(base, 0xb0000000ull);
    assert_int_equal(size, 128 * MIB);
}

static void mcfg_no_segment0(void **state)
{
    (void)state;
    struct tbl t;
    mcfg_init(&t);
    mcfg_entry(&t, 0xc0000000ull, 1, 0, 255);
    assert_int_equal(seg0(&t, t.len), -1);
    assert_int_equal(base, 0x5555);              /* outputs untouched */
    assert_int_equal(size, 0x5555);
    mcfg_entry(&t, 0xd0000000ull, 0x100, 0, 255);  /* segment 256: not 0 by its low byte */
    assert_int_equal(seg0(&t, t.len), -1);
    /* no entries; the header cut short; nothing at all */
    mcfg_init(&t);
    assert_int_equal(seg0(&t, t.len), -1);
    assert_int_equal(seg0(&t, 15), -1);
    assert_int_equal(seg0(&t, 0), -1);
    /* an end bus below the start bus is no window */
    mcfg_entry(&t, 0xb0000000ull, 0, 2, 1);
    assert_int_equal(seg0(&t, t.len), -1);
    /* segment 0's entry one byte short of its 16 */
    mcfg_init(&t);
    mcfg_entry(&t, 0xc0000000ull, 1, 0, 255);
    mcfg_entry(&t, 0xb0000000ull, 0, 0, 255);
    assert_int_equal(seg0(&t, t.len - 1), -1);
    assert_int_equal(seg0(&t, t.len), 0);
    assert_int_equal(base, 0xb0000000ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(madt_qemu),
        cmocka_unit_test(madt_flags_and_x2apic),
        cmocka_unit_test(madt_malformed),
        cmocka_unit_test(dmar_bases),
        cmocka_unit_test(dmar_counts),
        cmocka_unit_test(dmar_refused),
        cmocka_unit_test(mcfg),
        cmocka_unit_test(mcfg_no_segment0),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
