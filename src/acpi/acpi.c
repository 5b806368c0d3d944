/* SPDX-License-Identifier: MIT */
#include "acpi/acpi.h"
#include "crypto/hash.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/phys.h"
#include "lib/string.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

#define TABLE_MAX (1u << 20)          /* no QEMU/PC table is bigger */
#define FOUR_GIB 0x100000000ull

uint8_t acpi_checksum(const void *bytes, uint32_t len)
{
    const uint8_t *p = bytes;
    uint8_t sum = 0;
    while (len--)
        sum = (uint8_t)(sum + *p++);
    return sum;
}

static const struct acpi_rsdp *rsdp_at(uint64_t addr)
{
    const struct acpi_rsdp *r = phys_map(addr, ACPI_RSDP_V1_LEN);
    if (!r || memcmp(r->signature, ACPI_RSDP_SIGNATURE, 8) ||
        acpi_checksum((const uint8_t *)r, ACPI_RSDP_V1_LEN))
        return 0;
    return r;
}

static uint64_t scan(uint64_t start, uint64_t len)
{
    for (uint64_t a = start; a + ACPI_RSDP_V1_LEN <= start + len; a += 16)
        if (rsdp_at(a))
            return a;
    return 0;
}

uint64_t acpi_find_rsdp(void)
{
    const uint16_t *ebda_seg = phys_map(0x40e, 2);
    uint64_t found = 0;
    if (ebda_seg && *ebda_seg) {
        uint64_t ebda = (uint64_t)*ebda_seg << 4;
        if (ebda >= 0x80000 && ebda < 0xa0000)
            found = scan(ebda, 1024);
    }
    return found ? found : scan(0xe0000, 0x20000);
}

/* Maps a whole table after checking its header, length and checksum. */
static const struct acpi_sdt_header *table_at(uint64_t addr, const char *sig)
{
    if (!addr || addr >= FOUR_GIB)
        return 0;
    const struct acpi_sdt_header *h = phys_map(addr, sizeof(*h));
    if (!h || (sig && memcmp(h->signature, sig, 4)) || h->length < sizeof(*h) ||
        h->length > TABLE_MAX)
        return 0;
    h = phys_map(addr, h->length);
    if (!h || acpi_checksum((const uint8_t *)h, h->length))
        return 0;
    return h;
}

/* The 2.0 X_ GAS if the table has it and it is set, else an I/O GAS for the 1.0 port. */
static struct acpi_gas pm_block(const uint8_t *fadt, uint32_t len, uint32_t x_off,
                                uint32_t legacy_off, uint8_t legacy_len)
{
    struct acpi_gas g = { 0 };
    if (len >= x_off + sizeof(g)) {
        memcpy(&g, fadt + x_off, sizeof(g));
        if (g.address)
            return g;
    }
    g = (struct acpi_gas){ ACPI_GAS_IO, (uint8_t)(legacy_len * 8), 0, 0,
                           load_le32(fadt + legacy_off) };
    if (!g.address)
        g.bit_width = 0;
    return g;
}

/* The XSDT if the RSDP is 2.0 with a valid extended checksum and one, else the RSDT. */
static const struct acpi_sdt_header *root_table(uint64_t rsdp_addr, unsigned *entry_size)
{
    const struct acpi_rsdp *r = rsdp_at(rsdp_addr);
    if (r->revision >= 2) {
        const struct acpi_rsdp *r2 = phys_map(rsdp_addr, ACPI_RSDP_V2_LEN);
        /* the extended checksum covers `length` bytes: map them all before reading them */
        const uint8_t *whole = r2 && r2->length >= ACPI_RSDP_V2_LEN && r2->length <= 4096
                                   ? phys_map(rsdp_addr, r2->length) : 0;
        const struct acpi_sdt_header *x = whole && !acpi_checksum(whole, r2->length)
                                              ? table_at(r2->xsdt_address, "XSDT") : 0;
        if (x) {
            *entry_size = 8;
            return x;
        }
    }
    *entry_size = 4;
    return table_at(r->rsdt_address, "RSDT");
}

int acpi_find_table(uint64_t rsdp, const char *sig, uint64_t *addr, uint32_t *len, char *err,
                    unsigned errlen)
{
    unsigned entry_size;
    if (!rsdp_at(rsdp))
        FAIL("ACPI: no valid RSDP at 0x%llx", (unsigned long long)rsdp);
    const struct acpi_sdt_header *root = root_table(rsdp, &entry_size);
    if (!root)
        FAIL("ACPI: RSDT/XSDT missing or bad checksum");
    uint32_t n = (root->length - (uint32_t)sizeof(*root)) / entry_size;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = (const uint8_t *)(root + 1) + i * entry_size;
        uint64_t a = entry_size == 8 ? load_le64(e) : load_le32(e);
        const struct acpi_sdt_header *h = table_at(a, sig);
        if (h) {
            *addr = a;
            *len = h->length;
            return 0;
        }
    }
    if (!memcmp(sig, "FACP", 4))
        FAIL("ACPI: no valid FADT");
    FAIL("ACPI: no valid %.4s table", sig);
}

int acpi_read_platform(uint64_t rsdp_addr, struct acpi_platform *p, char *err, unsigned errlen)
{
    uint64_t fadt_addr;
    uint32_t fadt_len;

    memset(p, 0, sizeof(*p));
    if (acpi_find_table(rsdp_addr, "FACP", &fadt_addr, &fadt_len, err, errlen))
        return -1;
    p->rsdp = rsdp_addr;
    const uint8_t *f = phys_map(fadt_addr, fadt_len);
    uint32_t len = fadt_len;
    if (len < FADT_V1_LEN)
        FAIL("ACPI: FADT is %u bytes, shorter than ACPI 1.0's 116", len);

    p->fadt_flags = load_le32(f + FADT_FLAGS);
    p->facs = load_le32(f + FADT_FIRMWARE_CTRL);
    if (!p->facs && len >= FADT_X_FIRMWARE_CTRL + 8)
        p->facs = load_le64(f + FADT_X_FIRMWARE_CTRL);
    p->dsdt = len >= FADT_X_DSDT + 8 && load_le64(f + FADT_X_DSDT) ? load_le64(f + FADT_X_DSDT)
                                                                   : load_le32(f + FADT_DSDT);
    p->pm1a_evt = pm_block(f, len, FADT_X_PM1A_EVT_BLK, FADT_PM1A_EVT_BLK, f[FADT_PM1_EVT_LEN]);
    p->pm1b_evt = pm_block(f, len, FADT_X_PM1B_EVT_BLK, FADT_PM1B_EVT_BLK, f[FADT_PM1_EVT_LEN]);
    p->pm1a_cnt = pm_block(f, len, FADT_X_PM1A_CNT_BLK, FADT_PM1A_CNT_BLK, f[FADT_PM1_CNT_LEN]);
    p->pm1b_cnt = pm_block(f, len, FADT_X_PM1B_CNT_BLK, FADT_PM1B_CNT_BLK, f[FADT_PM1_CNT_LEN]);
    if (len >= FADT_RESET_VALUE + 1 && (p->fadt_flags & FADT_FLAG_RESET_REG_SUP)) {
        memcpy(&p->reset_reg, f + FADT_RESET_REG, sizeof(p->reset_reg));
        p->reset_value = f[FADT_RESET_VALUE];
        p->reset_supported = p->reset_reg.address != 0;
    }
    const struct acpi_sdt_header *dsdt = table_at(p->dsdt, "DSDT");
    if (dsdt)
        p->s5_known = acpi_aml_find_s5((const uint8_t *)(dsdt + 1),
                                       dsdt->length - (uint32_t)sizeof(*dsdt), &p->s5_typ_a,
                                       &p->s5_typ_b);
    return 0;
}

/* Adds the table at `addr` (its own length, within 4 GiB and TABLE_MAX) to the digests. */
static int digest_table(struct acpi_digests *d, uint64_t addr, uint32_t len, const char *sig,
                        char *err, unsigned errlen)
{
    if (d->n == ACPI_DIGESTS_MAX)
        FAIL("ACPI: more than %u tables to cover", ACPI_DIGESTS_MAX);
    const uint8_t *p = addr ? phys_map(addr, len) : 0;
    if (!p || len > TABLE_MAX)
        FAIL("ACPI: table %.4s at 0x%llx+0x%x cannot be read", sig, (unsigned long long)addr,
             len);
    struct acpi_table_digest *t = &d->t[d->n++];
    memcpy(t->signature, sig, 4);
    t->length = len;
    t->addr = addr;
    if (memcmp(sig, "FACS", 4)) {
        hash_buffer(TPM_ALG_SHA256, p, len, t->sha256);
        return 0;
    }
    /* the FACS fields that change while the machine runs count as zero */
    static const struct { uint32_t off, len; } mutable_fields[] = {
        { FACS_FIRMWARE_WAKING_VECTOR, 4 }, { FACS_GLOBAL_LOCK, 4 },
        { FACS_X_FIRMWARE_WAKING_VECTOR, 8 }, { FACS_OSPM_FLAGS, 4 },
    };
    static const uint8_t zeros[8];
    struct hash_ctx h;
    uint32_t at = 0;
    hash_init(&h, TPM_ALG_SHA256);
    for (unsigned i = 0; i < sizeof(mutable_fields) / sizeof(mutable_fields[0]); i++) {
        hash_update(&h, p + at, mutable_fields[i].off - at);
        hash_update(&h, zeros, mutable_fields[i].len);
        at = mutable_fields[i].off + mutable_fields[i].len;
    }
    hash_update(&h, p + at, len - at);
    hash_final(&h, t->sha256);
    return 0;
}

/* A table's own length from its header; 0 if the header cannot be read. */
static uint32_t header_length(uint64_t addr)
{
    const struct acpi_sdt_header *h = addr && addr < FOUR_GIB ? phys_map(addr, sizeof(*h)) : 0;
    return h ? h->length : 0;
}

int acpi_digest_tables(uint64_t rsdp, struct acpi_digests *out, char *err, unsigned errlen)
{
    const struct acpi_rsdp *r = rsdp_at(rsdp);
    uint64_t root;
    unsigned entry_size = 4;

    memset(out, 0, sizeof(*out));
    if (!r)
        FAIL("ACPI: no valid RSDP at 0x%llx", (unsigned long long)rsdp);
    const struct acpi_rsdp *r2 = r->revision >= 2 ? phys_map(rsdp, ACPI_RSDP_V2_LEN) : 0;
    if (digest_table(out, rsdp, r2 ? ACPI_RSDP_V2_LEN : ACPI_RSDP_V1_LEN, "RSD ", err, errlen))
        return -1;
    out->t[0].addr = 0;              /* its bytes matter, not where a loader put a copy */
    root = r2 && r2->xsdt_address ? r2->xsdt_address : r->rsdt_address;
    entry_size = r2 && r2->xsdt_address ? 8 : 4;
    uint32_t root_len = header_length(root);
    if (root_len < sizeof(struct acpi_sdt_header) ||
        digest_table(out, root, root_len, entry_size == 8 ? "XSDT" : "RSDT", err, errlen))
        FAIL("ACPI: no readable RSDT/XSDT at 0x%llx", (unsigned long long)root);
    const uint8_t *entries = phys_map(root + sizeof(struct acpi_sdt_header),
                                      root_len - sizeof(struct acpi_sdt_header));
    uint32_t n = (root_len - (uint32_t)sizeof(struct acpi_sdt_header)) / entry_size;
    if (!entries)
        FAIL("ACPI: the root table at 0x%llx cannot be read", (unsigned long long)root);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t a = entry_size == 8 ? load_le64(entries + i * 8) : load_le32(entries + i * 4);
        uint32_t len = header_length(a);
        const struct acpi_sdt_header *h = len ? phys_map(a, sizeof(*h)) : 0;
        if (!h || digest_table(out, a, len, h->signature, err, errlen))
            FAIL("ACPI: table %u of the root table (0x%llx) cannot be read", i,
                 (unsigned long long)a);
        if (memcmp(h->signature, "FACP", 4) || len < FADT_V1_LEN)
            continue;
        const uint8_t *f = phys_map(a, len);
        uint64_t dsdt = len >= FADT_X_DSDT + 8 && load_le64(f + FADT_X_DSDT)
                            ? load_le64(f + FADT_X_DSDT) : load_le32(f + FADT_DSDT);
        uint64_t facs = load_le32(f + FADT_FIRMWARE_CTRL);
        if (!facs && len >= FADT_X_FIRMWARE_CTRL + 8)
            facs = load_le64(f + FADT_X_FIRMWARE_CTRL);
        uint32_t dsdt_len = header_length(dsdt);
        if (dsdt && (dsdt_len < sizeof(struct acpi_sdt_header) ||
                     digest_table(out, dsdt, dsdt_len, "DSDT", err, errlen)))
            FAIL("ACPI: no readable DSDT at 0x%llx", (unsigned long long)dsdt);
        uint32_t facs_len = header_length(facs);
        if (facs && (facs_len < FACS_MIN_LEN ||
                     digest_table(out, facs, facs_len, "FACS", err, errlen)))
            FAIL("ACPI: no readable FACS at 0x%llx", (unsigned long long)facs);
    }
    return 0;
}

int acpi_digests_compare(const struct acpi_digests *was, const struct acpi_digests *now)
{
    unsigned n = was->n > now->n ? was->n : now->n;
    for (unsigned i = 0; i < n && i < ACPI_DIGESTS_MAX; i++)
        if (i >= was->n || i >= now->n || memcmp(&was->t[i], &now->t[i], sizeof(was->t[i])))
            return (int)i;
    return -1;
}

/* One AML integer constant of a package element; returns its length or 0. */
static unsigned aml_integer(const uint8_t *p, uint32_t left, uint8_t *v)
{
    if (!left)
        return 0;
    switch (p[0]) {
    case 0x00: *v = 0; return 1;     /* ZeroOp */
    case 0x01: *v = 1; return 1;     /* OneOp */
    case 0x0a:                       /* BytePrefix */
        if (left < 2)
            return 0;
        *v = p[1];
        return 2;
    case 0x0b:                       /* WordPrefix */
        if (left < 3)
            return 0;
        *v = p[1];
        return 3;
    case 0x0c:                       /* DWordPrefix */
        if (left < 5)
            return 0;
        *v = p[1];
        return 5;
    default:
        return 0;
    }
}

bool acpi_aml_find_s5(const uint8_t *aml, uint32_t len, uint8_t *typ_a, uint8_t *typ_b)
{
    for (uint32_t i = 0; i + 5 <= len; i++) {
        if (memcmp(aml + i, "_S5_", 4))
            continue;
        /* NameOp before the name (optionally with a root prefix), PackageOp after it */
        if (!(i >= 1 && (aml[i - 1] == 0x08 || (i >= 2 && aml[i - 1] == '\\' && aml[i - 2] == 0x08))))
            continue;
        uint32_t j = i + 4;
        if (aml[j++] != 0x12)
            continue;
        if (j >= len)
            return false;
        unsigned pkglen_bytes = 1 + (aml[j] >> 6);
        j += pkglen_bytes;
        if (j + 1 > len)
            return false;
        j++;                         /* NumElements */
        unsigned n = aml_integer(aml + j, len - j, typ_a);
        if (!n)
            return false;
        j += n;
        if (!aml_integer(aml + j, len - j, typ_b))
            *typ_b = 0;
        return true;
    }
    return false;
}

struct acpi_waking_vector acpi_waking_vector(uint64_t facs, uint64_t kernel_vector,
                                             uint32_t kernel_width)
{
    struct acpi_waking_vector w = { 0, false };

    if (!facs || !range_fits(facs, FACS_FIRMWARE_WAKING_VECTOR + 4, FOUR_GIB))
        return w;
    w.field = facs + FACS_FIRMWARE_WAKING_VECTOR;
    w.kernel_differs = kernel_width != 32 || kernel_vector != w.field;
    return w;
}
