/* SPDX-License-Identifier: MIT */
/*
 * Writes the fuzzers' seed inputs into tests/fuzz/corpus/<target>/seed-*, built with the same
 * builders as the unit tests (`make fuzz-corpus`). Regression inputs (crashes found and fixed)
 * live beside them as regress-*, and are not touched here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builders.h"
#include "lib/bytes.h"
#include "pci_fake.h"

static const char *root;

static void out(const char *target, const char *name, const void *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, target);
    if (mkdir(path, 0755) && errno != EEXIST) {
        perror(path);
        exit(1);
    }
    snprintf(path, sizeof(path), "%s/%s/seed-%s", root, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
        perror(path);
        exit(1);
    }
}

static void mb1_seeds(void)
{
    static uint8_t buf[0x3000];
    struct gmem g;
    struct mb1_spec s = {
        .cmdline = "/vtboot.gz logging=serial,memory loglvl=all serial=115200,8n1,0x3f8",
        .loader_name = "GRUB 2.06",
        .meminfo = true, .mem_lower = 639, .mem_upper = 130048,
        .nmods = 2,
        .mod = { { 0x200000, 0x3f8000, "/bzImage console=ttyS0" }, { 0x400000, 0x4a0000, "/initrd" } },
        .mmap = true, .nmmap = 6,
        .mm = { { 0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 }, { 0xf0000, 0x10000, 2 },
                { 0x100000, 0x7ee0000, 1 }, { 0x7fe0000, 0x20000, 2 }, { 0xfffc0000, 0x40000, 2 } },
    };
    memset(buf, 0, sizeof(buf));
    gmem_init(&g, 0x100000, buf, sizeof(buf));
    mb1_build(&g, &s);
    out("mb1", "qemu-grub", buf, g.used);

    struct mb1_spec s2 = { .meminfo = true, .mem_lower = 639, .mem_upper = 0x1fc00,
                           .cmdline = "vtboot" };
    memset(buf, 0, sizeof(buf));
    gmem_init(&g, 0x100000, buf, sizeof(buf));
    mb1_build(&g, &s2);
    out("mb1", "meminfo", buf, g.used);

    struct mb1_spec s3 = { .nmods = 1, .mod = { { 0x200000, 0x100000, NULL } }, .mmap = true,
                           .nmmap = 3, .mm = { { 0x100000, 0x100000, 1 }, { 0, 0x100000, 1 },
                                               { 0x180000, 0x1000, 4 } } };
    memset(buf, 0, sizeof(buf));
    gmem_init(&g, 0x100000, buf, sizeof(buf));
    mb1_build(&g, &s3);
    out("mb1", "bad-module-overlapping-map", buf, g.used);
}

static void mb2_seeds(void)
{
    struct blob b = { 0 };
    static const struct mb2_ent e[] = {
        { 0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 }, { 0xf0000, 0x10000, 2 },
        { 0x100000, 0x7ee0000, 1 }, { 0x7fe0000, 0x20000, 2 }, { 0xfffc0000, 0x40000, 2 },
    };
    uint8_t rsdp[36];
    for (unsigned i = 0; i < 36; i++)
        rsdp[i] = (uint8_t)i;
    mb2_begin(&b);
    mb2_tag_string(&b, 1, "/vtboot.gz loglvl=err,warn");
    mb2_tag_string(&b, 2, "GRUB 2.06");
    mb2_tag_module(&b, 0x200000, 0x3f8000, "/bzImage console=ttyS0");
    mb2_tag_module(&b, 0x400000, 0x4a0000, "/initrd");
    mb2_tag_meminfo(&b, 639, 130048);
    mb2_tag_mmap(&b, e, 6, 24);
    mb2_tag(&b, 14, rsdp, 20);
    mb2_tag(&b, 15, rsdp, 36);
    mb2_finish(&b);
    out("mb2", "qemu-grub", b.p, b.len);
    mb2_begin(&b);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    out("mb2", "minimal", b.p, b.len);
    mb2_begin(&b);
    mb2_tag_mmap(&b, e, 3, 32);
    mb2_tag_module(&b, 0x300000, 0x200000, "x");
    mb2_finish(&b);
    out("mb2", "wide-mmap-bad-module", b.p, b.len);
    blob_free(&b);
}

static void bz_seeds(void)
{
    struct bz_spec s;
    size_t n;
    uint8_t *img;
    bz_spec_default(&s);
    s.pm_size = 0x800;
    img = bz_build(&s, &n);
    out("bzimage", "relocatable-2.15", img, n);
    free(img);
    bz_spec_default(&s);
    s.pm_size = 0x400;
    s.relocatable = 0;
    s.version = 0x020a;
    s.jump = 0x62eb;
    s.setup_sects = 1;
    img = bz_build(&s, &n);
    out("bzimage", "fixed-2.10", img, n);
    free(img);
}

static void e820_seeds(void)
{
    /* { type, op, addr u32, size u32 } */
    static const uint8_t qemu[] = {
        1, 0, 0, 0, 0, 0, 0, 0xfc, 9, 0,
        2, 0, 0, 0xfc, 9, 0, 0, 4, 0, 0,
        2, 12, 0xf0, 0, 0, 0, 0x10, 0, 0, 0,
        1, 12, 0, 1, 0, 0, 0, 0x7e, 0, 0,
        2, 0x8c, 0x60, 0, 0, 0, 8, 0, 0, 0,
        2, 0x8c, 0, 8, 0, 0, 0, 2, 0, 0,
        0, 0xcc, 0, 0, 4, 0, 0, 0, 4, 0,
        7, 32, 1, 0, 0, 0, 1, 0, 0, 0,
    };
    out("e820", "qemu", qemu, sizeof(qemu));
    uint8_t many[640];
    for (unsigned i = 0; i < 64; i++) {
        uint8_t *r = many + 10 * i;
        r[0] = (uint8_t)(i % 5);
        r[1] = (uint8_t)(i % 7 == 0 ? 0x8c : 12);
        put32(r, 2, i * 3);
        put32(r, 6, 1 + i % 4);
    }
    out("e820", "overlaps", many, sizeof(many));
}

static void acpi_seeds(void)
{
    static const enum acpi_flavour fl[] = { ACPI_QEMU_PC, ACPI_QEMU_Q35, ACPI_XSDT_ONLY };
    static const char *const names[] = { "pc", "q35", "xsdt" };
    for (unsigned i = 0; i < 3; i++) {
        static uint8_t buf[1 + 0x800];
        struct gmem r, t;
        memset(buf, 0, sizeof(buf));
        gmem_init(&r, 0xe0000, buf + 1, 0x40);
        gmem_init(&t, 0xe0040, buf + 1 + 0x40, 0x800 - 0x40);
        acpi_build(&t, &r, fl[i]);
        char name[32];
        buf[0] = 0;
        out("acpi", names[i], buf, 1 + t.base - 0xe0000 + t.used);
        buf[0] = 2;
        snprintf(name, sizeof(name), "%s-fixup", names[i]);
        out("acpi", name, buf, 1 + t.base - 0xe0000 + t.used);
        buf[0] = 4;
        snprintf(name, sizeof(name), "%s-find", names[i]);
        out("acpi", name, buf, 1 + t.base - 0xe0000 + t.used);
    }
    uint8_t aml[1 + 12];
    aml[0] = 1;
    memcpy(aml + 1, aml_qemu_s5, 12);
    out("acpi", "aml-qemu-s5", aml, sizeof(aml));
    static const uint8_t aml2[] = { 1, 0x10, 0x05, '\\', 0x08, '\\', '_', 'S', '5', '_', 0x12,
                                    0x4a, 0x00, 0x04, 0x0a, 0x05, 0x0b, 0x07, 0x00, 0x0c, 1,
                                    0, 0, 0 };
    out("acpi", "aml-prefixes", aml2, sizeof(aml2));

    /* whole tables for src/acpi/tables.c (mode bit 0): q35's with -smp 2 and intel-iommu */
    static uint8_t madt[1 + 44 + 2 * 8 + 12], dmar[1 + 48 + 16 + 8], mcfg[1 + 44 + 16];
    madt[0] = dmar[0] = mcfg[0] = 1;
    memcpy(madt + 1, "APIC", 4);
    madt[1 + 4] = (uint8_t)(sizeof(madt) - 1);
    for (unsigned i = 0; i < 2; i++) {       /* local APICs 0 and 1, enabled */
        uint8_t *e = madt + 1 + 44 + 8 * i;
        e[0] = 0, e[1] = 8, e[2] = (uint8_t)i, e[3] = (uint8_t)i, e[4] = 1;
    }
    uint8_t *io = madt + 1 + 44 + 16;         /* an I/O APIC the count skips */
    io[0] = 1, io[1] = 12, io[6] = 0xc0, io[7] = 0xfe;   /* at 0xfec00000 */
    out("acpi", "table-madt", madt, sizeof(madt));
    memcpy(dmar + 1, "DMAR", 4);
    dmar[1 + 4] = (uint8_t)(sizeof(dmar) - 1);
    uint8_t *drhd = dmar + 1 + 48;           /* DRHD: flags INCLUDE_PCI_ALL, 0xfed90000 */
    drhd[0] = 0, drhd[2] = 16, drhd[4] = 1, drhd[11] = 0xfe, drhd[10] = 0xd9;
    uint8_t *rmrr = drhd + 16;                /* the head of a structure of another type */
    rmrr[0] = 1, rmrr[2] = 8;
    out("acpi", "table-dmar", dmar, sizeof(dmar));
    memcpy(mcfg + 1, "MCFG", 4);
    mcfg[1 + 4] = (uint8_t)(sizeof(mcfg) - 1);
    uint8_t *ecam = mcfg + 1 + 44;            /* segment 0, buses 0-255 at 0xb0000000 */
    ecam[3] = 0xb0, ecam[11] = 0xff;
    out("acpi", "table-mcfg", mcfg, sizeof(mcfg));
}

static void options_seeds(void)
{
    static const char *const lines[] = {
        "/vtboot.gz logging=serial,memory loglvl=all serial=115200,8n1,0x3f8",
        "logg=memory logl=err,warn s=9600/1843200,7e2,0x2f8,4,0:16.3",
        "loglvl=none logging=vga serial=57600,5o1 unknown=1 path",
    };
    char name[16];
    for (unsigned i = 0; i < 3; i++) {
        snprintf(name, sizeof(name), "line%u", i);
        out("options", name, lines[i], strlen(lines[i]));
    }
}

static void format_seeds(void)
{
    for (unsigned i = 0; i < 58; i += 3) {
        uint8_t in[24] = { (uint8_t)i, (uint8_t)(i * 5 + 3), 0xef, 0xbe, 0xad, 0xde, 0x12, 0x34,
                           0x56, 0x80, 0xf6, 0x05, (uint8_t)(i * 11), 'h', 'e', 'l', 'l', 'o' };
        char name[16];
        snprintf(name, sizeof(name), "t%02u", i);
        out("format", name, in, sizeof(in));
    }
    static const char own[] = "\xf0%-5d|%08x|%.2s|%lld|%zu|%%|%q";
    out("format", "own-format", own, sizeof(own) - 1);
}

static void loader_seeds(void)
{
    /* header: flags, align, pref pages, pm pages, init pages, addr_max, initrd (4 bytes from
     * offset 10 as an address record), initrd size, counts; then e820 and busy records */
    uint8_t in[20 + 6 * 6];
    memset(in, 0, sizeof(in));
    in[0] = 1 | 4;                       /* relocatable, initrd size in pages */
    in[1] = 9;                           /* 2 MiB */
    put16(in, 2, 0x1000);                /* pref 16 MiB */
    in[4] = 0x3f;
    put16(in, 5, 0x7c0);                 /* init_size 8 MiB */
    put32(in, 7, 0x7fffffff);
    put16(in, 12, 0x3000);               /* initrd at 48 MiB */
    put16(in, 14, 0x100);                /* 1 MiB */
    in[16] = 3;
    in[17] = 3;
    uint8_t *r = in + 20;
    r[0] = 1; put16(r, 2, 0); put16(r, 4, 0x9e); r += 6;
    r[0] = 1; put16(r, 2, 0x100); put16(r, 4, 0x7eff); r += 6;
    r[0] = 3; put16(r, 2, 0x800); put16(r, 4, 0x1ff); r += 6;  /* ACPI data */
    r[0] = 0; put16(r, 2, 0x800); put16(r, 4, 0x2000); r += 6;  /* vtboot 8 MiB + 2 MiB */
    r[0] = 0; put16(r, 2, 0x60); put16(r, 4, 0x80); r += 6;     /* memory log */
    r[0] = 0; put16(r, 2, 0x2000); put16(r, 4, 0x3a); r += 6;   /* the kernel module */
    out("loader", "qemu-relocatable", in, sizeof(in));
    in[0] = 4;
    out("loader", "qemu-fixed", in, sizeof(in));
    in[0] = 1 | 4;
    put16(in, 12, 0x90);                 /* initrd in low memory: moved */
    put16(in, 14, 0x10);
    out("loader", "initrd-low", in, sizeof(in));

    /* GRUB's layout for a non-relocatable kernel: the bzImage module at 1 MiB and the initrd
     * at 17 MiB, both in the kernel's way and both movable (nr_movable 2 of 4 busy ranges) */
    uint8_t g[20 + 5 * 6];
    memset(g, 0, sizeof(g));
    g[0] = 4;                            /* not relocatable, initrd size in pages */
    g[1] = 9;
    put16(g, 2, 0x1000);                 /* pref 16 MiB */
    g[4] = 0xff;                         /* 1 MiB at 1 MiB */
    put16(g, 5, 0x700);                  /* init_size 8 MiB */
    put32(g, 7, 0x7fffffff);
    put16(g, 12, 0x1100);                /* initrd at 17 MiB */
    put16(g, 14, 0x200);                 /* 2 MiB */
    g[16] = 2;
    g[17] = 3;
    g[18] = 2;                           /* nr_movable */
    r = g + 20;
    r[0] = 1; put16(r, 2, 0); put16(r, 4, 0x9e); r += 6;
    r[0] = 1; put16(r, 2, 0x100); put16(r, 4, 0x7eff); r += 6;
    r[0] = 0; put16(r, 2, 0x800); put16(r, 4, 0x2000); r += 6;  /* vtboot */
    r[0] = 0; put16(r, 2, 0x60); put16(r, 4, 0x80); r += 6;     /* memory log */
    r[0] = 0; put16(r, 2, 0x100); put16(r, 4, 0x1f44); r += 6;  /* the bzImage module */
    out("loader", "grub-fixed-moves", g, sizeof(g));
    g[18] = 1;                           /* only the initrd movable: refused */
    out("loader", "grub-fixed-one-movable", g, sizeof(g));
}

/* Appends hex (spaces ignored) to a buffer; returns the new length. */
static size_t hex(uint8_t *buf, size_t n, const char *h)
{
    int hi = -1;
    for (; *h; h++) {
        int v = *h >= '0' && *h <= '9' ? *h - '0' : *h >= 'a' && *h <= 'f' ? *h - 'a' + 10 : -1;
        if (v < 0)
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            buf[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    return n;
}

/* n bytes of v */
static size_t rep(uint8_t *buf, size_t n, uint8_t v, size_t count)
{
    memset(buf + n, v, count);
    return n + count;
}

/* tpm2_fuzz: [command, parameter], then responses, each a big-endian u16 length and bytes */
struct tpm_seed {
    uint8_t b[4096];
    size_t n, len_at;
};

static void ts_begin(struct tpm_seed *t, uint8_t op, uint8_t p)
{
    t->b[0] = op;
    t->b[1] = p;
    t->n = 2;
}

static void ts_rsp(struct tpm_seed *t)
{
    t->len_at = t->n;
    t->n += 2;
}

static void ts_end_rsp(struct tpm_seed *t)
{
    size_t len = t->n - t->len_at - 2;
    t->b[t->len_at] = (uint8_t)(len >> 8);
    t->b[t->len_at + 1] = (uint8_t)len;
    /* the TPM header's size field: the response's own length */
    t->b[t->len_at + 2 + 2] = (uint8_t)(len >> 24);
    t->b[t->len_at + 2 + 3] = (uint8_t)(len >> 16);
    t->b[t->len_at + 2 + 4] = (uint8_t)(len >> 8);
    t->b[t->len_at + 2 + 5] = (uint8_t)len;
}

static void tpm2_seeds(void)
{
    struct tpm_seed t;
    ts_begin(&t, 0, 0);                              /* Startup: success */
    ts_rsp(&t);
    t.n = hex(t.b, t.n, "8001 00000000 00000000");
    ts_end_rsp(&t);
    out("tpm2", "startup", t.b, t.n);
    ts_begin(&t, 0, 0);                              /* RETRY, then TPM_RC_INITIALIZE */
    ts_rsp(&t);
    t.n = hex(t.b, t.n, "8001 00000000 00000922");
    ts_end_rsp(&t);
    ts_rsp(&t);
    t.n = hex(t.b, t.n, "8001 00000000 00000100");
    ts_end_rsp(&t);
    out("tpm2", "startup-retry", t.b, t.n);
    ts_begin(&t, 2, 0);                              /* GetCapability(PCRS): swtpm's answer */
    ts_rsp(&t);
    t.n = hex(t.b, t.n, "8001 00000000 00000000 00 00000005 00000004 0004 03 ffffff "
                        "000b 03 ffffff 000c 03 ffffff 000d 03 ffffff");
    ts_end_rsp(&t);
    out("tpm2", "getcap-pcrs", t.b, t.n);
    ts_begin(&t, 3, 3);                              /* PCR_Read(3) in sha1 + sha256 */
    ts_rsp(&t);
    t.n = hex(t.b, t.n, "8001 00000000 00000000 00000011 00000002 0004 03 080000 "
                        "000b 03 080000 00000002 0014");
    t.n = rep(t.b, t.n, 0x11, 20);
    t.n = hex(t.b, t.n, "0020");
    t.n = rep(t.b, t.n, 0x22, 32);
    ts_end_rsp(&t);
    out("tpm2", "pcr-read", t.b, t.n);
    ts_begin(&t, 4, 0x1f);                           /* PCR_Extend(6), four banks */
    ts_rsp(&t);
    t.n = hex(t.b, t.n, "8002 00000000 00000000 00000000 0000 01 0000");
    ts_end_rsp(&t);
    out("tpm2", "pcr-extend", t.b, t.n);
    ts_begin(&t, 5, 100);                            /* GetRandom(100): 64 + 36 */
    ts_rsp(&t);
    t.n = hex(t.b, t.n, "8001 00000000 00000000 0040");
    t.n = rep(t.b, t.n, 0x5a, 64);
    ts_end_rsp(&t);
    ts_rsp(&t);
    t.n = hex(t.b, t.n, "8001 00000000 00000000 0024");
    t.n = rep(t.b, t.n, 0xa5, 36);
    ts_end_rsp(&t);
    out("tpm2", "get-random", t.b, t.n);
    ts_begin(&t, 6, 0);                              /* NV_ReadPublic(0x01200001) */
    ts_rsp(&t);
    t.n = hex(t.b, t.n, "8001 00000000 00000000 000e 01200001 000b 20060002 0000 0034 "
                        "0022 000b 53d32fa32d9386c6d1a687bb38914116fca8f7b0d235fdb13370ac7dfd4e419c");
    ts_end_rsp(&t);
    out("tpm2", "nv-read-public", t.b, t.n);
    ts_begin(&t, 7, 80);                             /* NV_Read(560): 512 + 48 */
    ts_rsp(&t);
    t.n = hex(t.b, t.n, "8002 00000000 00000000 00000202 0200");
    t.n = rep(t.b, t.n, 0x33, 512);
    t.n = hex(t.b, t.n, "0000 01 0000");
    ts_end_rsp(&t);
    ts_rsp(&t);
    t.n = hex(t.b, t.n, "8002 00000000 00000000 00000032 0030");
    t.n = rep(t.b, t.n, 0x44, 48);
    t.n = hex(t.b, t.n, "0010");                     /* a nonce, as a policy session has */
    t.n = rep(t.b, t.n, 0x55, 16);
    t.n = hex(t.b, t.n, "01 0000");
    ts_end_rsp(&t);
    out("tpm2", "nv-read", t.b, t.n);
}

/* policy_fuzz: NV contents */
static void policy_seeds(void)
{
    uint8_t b[2200];
    size_t n;
    /* tboot's default policies (DA, legacy) */
    n = hex(b, 0, "02000b01000000000000000300ff00000000000081110000000000008316001000004000");
    out("policy", "default-da", b, n);
    n = hex(b, 0, "02000b01000000000000000300ff00000000000081130000000000008316001000004000");
    out("policy", "default-legacy", b, n);
    /* tb_polgen --create --type halt --alg sha256; --add --num 0 --pcr none --hash image
     * --cmdline x --image (a file holding "vm\n") */
    n = hex(b, 0, "02020b01000000 00000000 01 | 00ff01 00000000 01 "
                  "4390928d22b85d6920af569dbe0b201f94266f7db6643c7567503ffbefdc2b6e");
    out("policy", "polgen-halt-sha256", b, n);
    /* hash_alg 0 (TPM 1.2 tools' SHA-1), two hashes, an NV entry, trailing bytes */
    n = hex(b, 0, "02010001000000 00000000 02 | 001201 00000000 02");
    n = rep(b, n, 0x10, 40);
    n = hex(b, n, "821601 10000040 01");
    n = rep(b, n, 0x20, 20);
    n = rep(b, n, 0xff, 30);
    out("policy", "sha1-legacy-trailing", b, n);
    /* continue, sha384, three entries */
    n = hex(b, 0, "02010c00000000 00000000 03 | 001201 00000000 01");
    n = rep(b, n, 0x30, 48);
    n = hex(b, n, "011301 00000000 01");
    n = rep(b, n, 0x31, 48);
    n = hex(b, n, "81ff00 00000000 00");
    out("policy", "continue-sha384", b, n);
    /* the largest: 8 entries of 4 SHA-512 hashes, 2124 bytes */
    n = hex(b, 0, "02000d01000000 00000000 08");
    for (unsigned i = 0; i < 8; i++) {
        b[n++] = (uint8_t)i;
        b[n++] = 17;
        b[n++] = 1;
        n = rep(b, n, 0, 4);
        b[n++] = 4;
        n = rep(b, n, (uint8_t)i, 4 * 64);
    }
    out("policy", "max-size", b, n);
}

/* eventlog_fuzz: banks, order, capacity, then 4-byte events; their data from the end */
static void eventlog_seeds(void)
{
    uint8_t b[256];
    size_t n = hex(b, 0, "03 00 0010 11 01 10 00 12 01 10 00 13 04 05 00 11 01 00 01 11 01 00 02");
    n = rep(b, n, 'v', 64);
    out("eventlog", "sha1-sha256", b, n);
    n = hex(b, 0, "0f 01 2c01 11 01 20 00 11 01 20 00 11 01 20 00 12 01 00 04");
    n = rep(b, n, 'x', 64);
    out("eventlog", "four-banks-full", b, n);
}

/* integrity_fuzz: flags, key and memory seeds, map entries { type, u16 addr (4-byte units),
 * u16 size (bytes) }, the page's region count, regions, the byte to change */
struct int_seed {
    uint8_t b[1024];
    size_t n;
};

static void is_begin(struct int_seed *t, uint8_t flags, uint8_t nmap)
{
    t->b[0] = flags;
    t->b[1] = 0x5a;
    t->b[2] = 0xa5;
    t->b[3] = nmap;
    t->n = 4;
}

static void is_u8(struct int_seed *t, uint8_t v)
{
    t->b[t->n++] = v;
}

static void is_u16(struct int_seed *t, uint16_t v)
{
    put16(t->b, t->n, v);
    t->n += 2;
}

/* one map entry, or one structured region (kind, start, size) */
static void is_rec(struct int_seed *t, uint8_t a, uint16_t b, uint16_t c)
{
    is_u8(t, a);
    is_u16(t, b);
    is_u16(t, c);
}

static void is_raw(struct int_seed *t, uint64_t start, uint32_t size)
{
    put64(t->b, t->n, start);
    put32(t->b, t->n + 8, size);
    t->n += 12;
}

/* A small PC: RAM, a reserved page, RAM, ACPI, a hole, RAM (addresses from the space's
 * start; entry i at 0x4000 * i bytes) */
static void is_pc_map(struct int_seed *t)
{
    is_rec(t, 1, 0x0000, 0x8000);        /* RAM      [0x00000, 0x08000) */
    is_rec(t, 2, 0x2000, 0x1000);        /* reserved [0x08000, 0x09000) */
    is_rec(t, 1, 0x2400, 0xc000);        /* RAM      [0x09000, 0x15000) */
    is_rec(t, 3, 0x5400, 0x2000);        /* ACPI     [0x15000, 0x17000) */
    is_rec(t, 1, 0x6000, 0xf000);        /* RAM      [0x18000, 0x27000) */
}

static void integrity_seeds(void)
{
    struct int_seed t;
    /* Linux's regions: its RAM, one region per entry (addresses from 1 MiB) */
    is_begin(&t, 0x02, 5);
    is_pc_map(&t);
    is_u8(&t, 3);
    is_rec(&t, 0, 0x0000, 0x8000);
    is_rec(&t, 0, 0x2400, 0xc000);
    is_rec(&t, 0, 0x6000, 0xf000);
    is_u8(&t, 1);
    is_u16(&t, 0x1234);
    out("integrity", "linux-ram", t.b, t.n);
    /* regions across the reserved page and the ACPI area and hole, odd starts and sizes */
    is_begin(&t, 0x02, 5);
    is_pc_map(&t);
    is_u8(&t, 4);
    is_rec(&t, 0x00, 0x1f00, 0x1800);   /* RAM into the reserved page */
    is_rec(&t, 0x00, 0x5000, 0xa000);   /* RAM, ACPI, the hole, RAM */
    is_rec(&t, 0x13, 0x2000, 0x0400);   /* inside the reserved page */
    is_rec(&t, 0x27, 0x0001, 0x2001);   /* odd start and size, in RAM */
    is_u8(&t, 2);
    is_u16(&t, 0x0010);
    out("integrity", "clipped", t.b, t.n);
    /* the page's raw fields: two regions in the RAM above, then one reaching past 4 GiB */
    is_begin(&t, 0x03, 5);
    is_pc_map(&t);
    is_u8(&t, 2);
    is_raw(&t, 0x100000, 0x8000);
    is_raw(&t, 0x108800, 0x1f000);
    is_u8(&t, 0);
    is_u16(&t, 0x4000);
    out("integrity", "raw-page", t.b, t.n);
    is_begin(&t, 0x03, 5);
    is_pc_map(&t);
    is_u8(&t, 3);
    is_raw(&t, 0x100000, 0x8000);
    is_raw(&t, 0xffffffff, 2);
    is_raw(&t, 0, 0x1000);
    out("integrity", "raw-above-4g", t.b, t.n);
    /* more regions than the page holds */
    is_begin(&t, 0x02, 5);
    is_pc_map(&t);
    is_u8(&t, 33);
    for (unsigned i = 0; i < 32; i++)
        is_rec(&t, 0, (uint16_t)(0x100 * i), 0x80);
    out("integrity", "count-33", t.b, t.n);
    /* 32 overlapping regions */
    is_begin(&t, 0x02, 5);
    is_pc_map(&t);
    is_u8(&t, 32);
    for (unsigned i = 0; i < 32; i++)
        is_rec(&t, (uint8_t)(i & 0x0f), (uint16_t)(0x1f0 * i), (uint16_t)(0x2000 + 0x100 * i));
    is_u8(&t, 0);
    is_u16(&t, 0x2222);
    out("integrity", "overlapping-32", t.b, t.n);
    /* the last 256 KiB below 4 GiB: RAM up to 4 GiB, an edge region ending there */
    is_begin(&t, 0x06, 4);
    is_rec(&t, 1, 0x0000, 0xffff);       /* RAM      [0xfffc0000, 0xfffcffff) */
    is_rec(&t, 2, 0x4000, 0xffff);       /* reserved [0xfffd0000, 0xfffdffff) */
    is_rec(&t, 1, 0xc000, 0xffff);       /* RAM      [0xffff0000, 0xffffffff) */
    is_rec(&t, 1, 0xfff0, 0x0040);       /* RAM      [0xffffffc0, 4 GiB): merged */
    is_u8(&t, 3);
    is_rec(&t, 0xf0, 2, 2);              /* 0xfffff000 + 0x1000 */
    is_rec(&t, 0x00, 0x3ff0, 0x0080);    /* RAM into reserved */
    is_rec(&t, 0x3c, 0xc000, 0x3fff);    /* the top RAM entry, 4 x 0x3fff + 3 */
    is_u8(&t, 1);
    is_u16(&t, 0xf000);
    out("integrity", "below-4g", t.b, t.n);
}

/* pci_walk: functions as pci_fake.h records */
static void pci_walk_seeds(void)
{
    static uint8_t buf[16 * PCI_FAKE_RECORD];
    struct pci_fake p = { buf, 0, sizeof(buf), 0 };
    uint8_t *c;

    /* q35 as SeaBIOS leaves it: host bridge, VGA, e1000e (PM, MSI, PCIe, MSI-X), ICH9 */
    pci_fake_add(&p, 0, 0, 0, 0);
    pci_fake_add(&p, 0, 1, 0, 0)[0x04] = 0x03;
    c = pci_fake_add(&p, 0, 2, 0, 0);
    c[0x04] = 0x07;
    pci_fake_cap(c, 0xc8, 0x01, 0xd0, 0x0003);
    pci_fake_cap(c, 0xd0, 0x05, 0xe0, 0x0081);
    pci_fake_cap(c, 0xe0, 0x10, 0xa0, 0x0002);
    pci_fake_cap(c, 0xa0, 0x11, 0x00, 0x8004);
    pci_fake_add(&p, 0, 31, 0, 0x80);
    pci_fake_cap(pci_fake_add(&p, 0, 31, 2, 0), 0x80, 0x05, 0x00, 0x0001);
    pci_fake_add(&p, 0, 31, 3, 0);
    out("pci_walk", "q35", buf, p.len);

    /* a bridge to bus 1 and one below it to bus 2, a virtio device with MSI-X on each */
    p.len = 0;
    pci_fake_buses(pci_fake_add(&p, 0, 3, 0, 1), 0, 1, 2);
    pci_fake_buses(pci_fake_add(&p, 1, 1, 0, 1), 1, 2, 2);
    c = pci_fake_add(&p, 1, 0, 0, 0);
    c[0x04] = 0x04;
    pci_fake_cap(c, 0x98, 0x11, 0x84, 0x8001);
    pci_fake_cap(c, 0x84, 0x09, 0x00, 0x0000);
    pci_fake_cap(pci_fake_add(&p, 2, 0, 0, 0), 0x40, 0x11, 0x00, 0xc000);
    out("pci_walk", "bridges", buf, p.len);

    /* loops: bridges back to their own bus and to bus 0, a capability list in a circle */
    p.len = 0;
    pci_fake_buses(pci_fake_add(&p, 0, 1, 0, 1), 0, 1, 1);
    pci_fake_buses(pci_fake_add(&p, 1, 0, 0, 1), 1, 1, 1);
    pci_fake_buses(pci_fake_add(&p, 1, 2, 0, 1), 1, 0, 0);
    c = pci_fake_add(&p, 1, 3, 0, 0);
    pci_fake_cap(c, 0x40, 0x05, 0x80, 0x0001);
    pci_fake_cap(c, 0x80, 0x11, 0x40, 0x8000);
    out("pci_walk", "loops", buf, p.len);
}

/* s3state: the fuzz target's header (s3state_fuzz.c), then TPMS_CREATION_DATA as a seal in
 * this launch records it: PCR 17/18 of SHA-256, locality 2, a SHA-256 parent name. */
struct s3_seed {
    uint8_t b[512];
    size_t n;
};

static void s3_u8(struct s3_seed *t, uint8_t v)
{
    t->b[t->n++] = v;
}

static void s3_le16(struct s3_seed *t, uint16_t v)
{
    s3_u8(t, (uint8_t)v);
    s3_u8(t, (uint8_t)(v >> 8));
}

static void s3_le32(struct s3_seed *t, uint32_t v)
{
    s3_le16(t, (uint16_t)v);
    s3_le16(t, (uint16_t)(v >> 16));
}

static void s3_be16(struct s3_seed *t, uint16_t v)
{
    s3_u8(t, (uint8_t)(v >> 8));
    s3_u8(t, (uint8_t)v);
}

static void s3_fill(struct s3_seed *t, uint8_t first, size_t n)
{
    for (size_t i = 0; i < n; i++)
        s3_u8(t, (uint8_t)(first + i));
}

static void s3_one(const char *name, uint8_t flags, uint32_t regions, uint32_t st_restart,
                   uint32_t tpm_restart, uint8_t cre_locality, int cut)
{
    struct s3_seed t = { .n = 0 };
    s3_u8(&t, flags);
    s3_le32(&t, 0x53335456u);            /* magic, version, size (bit 0 sets them) */
    s3_le32(&t, 2);
    s3_le32(&t, 0);
    s3_le32(&t, regions);
    s3_le32(&t, 6);                      /* measurements */
    s3_le32(&t, 8);                      /* ACPI tables */
    s3_le32(&t, 36);                     /* RSDP */
    s3_le32(&t, 1);                      /* the state's reset and restart counts */
    s3_le32(&t, st_restart);
    s3_le32(&t, 1);                      /* the TPM's */
    s3_le32(&t, tpm_restart);
    s3_le16(&t, 0x000b);                 /* seal bank SHA-256 */
    s3_u8(&t, 2);                        /* launch locality */
    s3_fill(&t, 0x10, 32);               /* PCR digest */
    s3_u8(&t, 34);                       /* parent name: SHA-256 and a digest */
    s3_u8(&t, 0x00);
    s3_u8(&t, 0x0b);
    s3_fill(&t, 0x52, 32);
    size_t size_at = t.n;
    s3_le16(&t, 0);
    size_t start = t.n;
    s3_be16(&t, 0);                      /* pcrSelect: one bank, SHA-256, PCR 17 and 18 */
    s3_be16(&t, 1);
    s3_be16(&t, 0x000b);
    s3_u8(&t, 3);
    s3_u8(&t, 0x00);
    s3_u8(&t, 0x00);
    s3_u8(&t, 0x06);
    s3_be16(&t, 32);                     /* pcrDigest */
    s3_fill(&t, 0x10, 32);
    s3_u8(&t, cre_locality);
    s3_be16(&t, 0x000b);                 /* parentNameAlg, parentName */
    s3_be16(&t, 34);
    s3_u8(&t, 0x00);
    s3_u8(&t, 0x0b);
    s3_fill(&t, 0x52, 32);
    s3_be16(&t, 4);                      /* parentQualifiedName: TPM_RH_ENDORSEMENT */
    s3_be16(&t, 0x4000);
    s3_be16(&t, 0x000b);
    s3_be16(&t, 32);                     /* outsideInfo: the state digest */
    s3_fill(&t, 0xa0, 32);
    size_t len = t.n - start;
    t.b[size_at] = (uint8_t)(len + (cut ? 9 : 0));
    t.b[size_at + 1] = (uint8_t)((len + (cut ? 9 : 0)) >> 8);
    if (cut)
        t.n -= 7;
    out("s3state", name, t.b, t.n);
}

static void s3state_seeds(void)
{
    s3_one("resume", 0x3f, 3, 7, 5, 0x04, 0);             /* everything passes */
    s3_one("resume-explicit", 0x03, 3, 7, 5, 0x04, 0);    /* the input's own expectations */
    s3_one("not-ours", 0x00, 3, 7, 9, 0x04, 0);
    s3_one("malformed", 0x3f, 33, 7, 5, 0x04, 0);
    s3_one("replayed", 0x3d, 3, 7, 9, 0x04, 0);           /* an older suspend's state */
    s3_one("locality", 0x2f, 3, 7, 5, 0x08, 0);
    s3_one("creation-cut", 0x3f, 3, 7, 5, 0x04, 1);
}

/* txt_acm, txt_heap, txt_lcp: odd first byte = the built module / the laid-out heap, then patches */
static void txt_seeds(void)
{
    uint8_t b[1 + 16 + 3 * 4] = { 1 };
    out("txt_acm", "built", b, 17);
    b[9] = 3;                            /* info table version 6, 2 chipsets, 3 processors, */
    b[10] = 1;
    b[11] = 2;
    b[12] = 3;                           /* 3 TPM algorithms */
    b[16] = 8;                           /* 128 bytes of payload */
    out("txt_acm", "built-lists", b, 17);
    uint8_t *p = b + 17;                 /* the chipset count at 0x4f0 := 0xff */
    p[0] = 0xf0; p[1] = 0x04; p[2] = 0xff;
    p[3] = 0xd1; p[4] = 0x04; p[5] = 0x02;   /* info table version 2 */
    out("txt_acm", "built-patched", b, sizeof(b));
    uint8_t h[1 + 5 * 2] = { 1 };
    out("txt_heap", "built", h, 1);
    h[1] = 0x08; h[2] = 0x01; h[3] = 0; h[4] = 0x80; h[5] = 8;     /* OsSinitData version */
    h[6] = 0x20; h[7] = 0; h[8] = 0; h[9] = 0x80; h[10] = 0;       /* num_logical_procs */
    out("txt_heap", "built-patched", h, sizeof(h));
    uint8_t raw[1 + 8 + 16] = { 0, 24 };
    out("txt_heap", "raw-one-region", raw, sizeof(raw));
    /* txt_lcp: the built policy, then with its element's hash count and hash patched */
    uint8_t l[1 + 2 * 3] = { 1 };
    out("txt_lcp", "built", l, 1);
    l[0] = 3;
    l[1] = 60; l[2] = 0; l[3] = 2;       /* num_hashes 2 in a one-hash element */
    l[4] = 62; l[5] = 0; l[6] = 0xb0;    /* the hash: MLE B's first byte */
    out("txt_lcp", "built-patched", l, sizeof(l));
    uint8_t any[1 + 2 + 38] = { 0, 38, 0, 0x00, 0x03, 0x0b, 0x00, 1 };   /* an ANY policy, no data */
    out("txt_lcp", "raw-any", any, sizeof(any));
    /* txt_mle: tboot's layout in the window: PDPT, PD, PT in pages 1-3, 8 MLE pages from 4 */
    static uint8_t m[4 + 12 * 4096];
    m[0] = 1;
    m[2] = 0x80;                         /* 0x80 * 256: 32 KiB */
    uint8_t *w = m + 4;
    store_le32(w + 1 * 4096, 0x802000 | 1);
    store_le32(w + 2 * 4096, 0x803000 | 1);
    for (unsigned i = 0; i < 8; i++)
        store_le32(w + 3 * 4096 + 8 * i, (0x804000 + 4096 * i) | 1);
    out("txt_mle", "tboot-layout", m, sizeof(m));
    /* txt_mtrr: tboot's setting, one WB MTRR over a 256 KiB SINIT at 0x7bf00000 */
    uint8_t t[8 * 34 + 1 + 8] = { 0 };
    store_le64(t, 0x508);
    store_le64(t + 8, 0x800);
    store_le64(t + 16, 0x7bf00006);
    store_le64(t + 16 + 128, 0xfffffc0800ull);
    t[272] = 40;
    store_le32(t + 273, 0x7bf00000);
    store_le32(t + 277, 0x40000);
    out("txt_mtrr", "tboot", t, sizeof(t));
    /* txt_dmar: QEMU q35's DMAR (one DRHD, flags 0, the IOAPIC's device scope) on the
     * platform of QEMU's unit, as it is and with the length and checksum to be fixed */
    uint8_t d[1 + 72] = { 1 };
    uint8_t *q = d + 1;
    memcpy(q, "DMAR", 4);
    store_le32(q + 4, 72);
    q[8] = 1;
    q[36] = 38;
    q[37] = 1;
    store_le16(q + 48, 0);
    store_le16(q + 50, 24);
    store_le64(q + 56, 0xfed90000ull);
    q[64] = 3;
    q[65] = 8;
    q[70] = 0x1f;
    uint8_t sum = 0;
    for (unsigned i = 0; i < 72; i++)
        sum = (uint8_t)(sum + q[i]);
    q[9] = (uint8_t)-sum;
    out("txt_dmar", "q35", d, sizeof(d));
    d[0] = 5;
    out("txt_dmar", "q35-fixup", d, sizeof(d));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    root = argv[1];
    mkdir(root, 0755);
    mb1_seeds();
    mb2_seeds();
    bz_seeds();
    e820_seeds();
    acpi_seeds();
    options_seeds();
    format_seeds();
    loader_seeds();
    tpm2_seeds();
    policy_seeds();
    eventlog_seeds();
    integrity_seeds();
    pci_walk_seeds();
    s3state_seeds();
    txt_seeds();
    return 0;
}
