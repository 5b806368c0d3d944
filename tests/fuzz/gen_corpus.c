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
    return 0;
}
