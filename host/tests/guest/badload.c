/* SPDX-License-Identifier: MIT */
/*
 * badload: a multiboot1 loader that hands vtboot malformed input, for the QEMU fault tests
 * (tests/qemu/test_loader_faults.py). QEMU boots it with -kernel and the Linux kernel and
 * initrd as modules; vtboot's ELF is built into it (badload_vtboot.S). It loads vtboot's ELF
 * segments itself, builds vtboot's multiboot1 information from what QEMU gave it, applies the
 * fault its command line names and enters vtboot as a loader does (EAX the magic, EBX the
 * information). Whoever controls the loader controls all of this input.
 *   fault=none     QEMU's information as it is (the control)
 *   fault=mmap     the memory map in reverse order, the largest RAM entry split into two
 *                  overlapping halves, and a RAM entry over the BIOS area that the map calls
 *                  reserved: sanitised, the same map as QEMU's
 *   fault=modimage module 1 (the initrd) claimed at vtboot's own load address, covering its
 *                  image (the bytes there are vtboot's)
 *   fault=nofacs   the FADT in RAM without a FACS: FIRMWARE_CTRL and X_FIRMWARE_CTRL 0, the
 *                  checksum fixed (Linux reads the same tables)
 * The fault=... word is taken out of the command line vtboot gets. Every line it prints on
 * COM1 starts with "BADLOAD: "; anything it cannot do ends in "BADLOAD: FAILED: ..." and a
 * halt.
 */
#include "abi/acpi.h"
#include "abi/multiboot1.h"

#include <stddef.h>
#include <stdint.h>

void badload_main(uint32_t magic, uint32_t info) __attribute__((noreturn));

extern const uint8_t vtboot_elf[], vtboot_elf_end[];

#define COM1 0x3f8
#define MMAP_MAX 64u
#define CMDLINE_MAX 1024u
#define MODS_MAX 8u

static inline void outb(uint16_t p, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(p)); }
static inline uint8_t inb(uint16_t p) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(p)); return v; }

static void put_char(char c)
{
    while (!(inb(COM1 + 5) & 0x20))
        ;
    outb(COM1, (uint8_t)c);
}

static void put_str(const char *s)
{
    while (*s)
        put_char(*s++);
}

static void put_hex(uint64_t v)
{
    put_str("0x");
    int shift = 60;
    while (shift > 0 && !((v >> shift) & 0xf))
        shift -= 4;
    for (; shift >= 0; shift -= 4)
        put_char("0123456789abcdef"[(v >> shift) & 0xf]);
}

static __attribute__((noreturn)) void fail(const char *why)
{
    put_str("BADLOAD: FAILED: ");
    put_str(why);
    put_str("\n");
    for (;;)
        __asm__ volatile("cli; hlt");
}

static void copy(void *dst, const void *src, uint32_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    while (n--)
        *d++ = *s++;
}

static int starts_with(const char *s, const char *prefix)
{
    while (*prefix)
        if (*s++ != *prefix++)
            return 0;
    return 1;
}

static uint32_t rd32(const uint8_t *p, uint32_t off)
{
    return p[off] | p[off + 1] << 8 | p[off + 2] << 16 | (uint32_t)p[off + 3] << 24;
}

/* ---- the information vtboot gets ---- */
static struct mb1_info mbi;
static struct mb1_module mods[MODS_MAX];
static struct mb1_mmap_entry mmap[MMAP_MAX];
static unsigned nmmap;
static char cmdline[CMDLINE_MAX];
static char fault[16];

/* vtboot's command line: QEMU's without the fault=... word, which goes into `fault`. */
static void split_cmdline(const char *in)
{
    unsigned o = 0;
    while (*in) {
        if ((o == 0 || cmdline[o - 1] == ' ') && starts_with(in, "fault=")) {
            unsigned f = 0;
            for (in += 6; *in && *in != ' '; in++)
                if (f + 1 < sizeof(fault))
                    fault[f++] = *in;
            while (*in == ' ')
                in++;
            continue;
        }
        if (o + 1 >= CMDLINE_MAX)
            fail("command line too long");
        cmdline[o++] = *in++;
    }
    while (o && cmdline[o - 1] == ' ')
        o--;
    cmdline[o] = 0;
}

static void add_mmap(uint64_t addr, uint64_t len, uint32_t type)
{
    if (nmmap == MMAP_MAX)
        fail("memory map too long");
    mmap[nmmap++] = (struct mb1_mmap_entry){ sizeof(mmap[0]) - 4, addr, len, type };
}

/* vtboot's ELF segments at their physical addresses, .bss zeroed; returns the entry. */
static uint32_t load_vtboot(uint32_t *lo, uint32_t *hi)
{
    const uint8_t *e = vtboot_elf;
    if (rd32(e, 0) != 0x464c457fu || e[4] != 1)
        fail("the built-in vtboot is not an ELF32 file");
    uint32_t phoff = rd32(e, 28), entry = rd32(e, 24);
    uint16_t phentsize = (uint16_t)(e[42] | e[43] << 8), phnum = (uint16_t)(e[44] | e[45] << 8);
    *lo = 0xffffffffu;
    *hi = 0;
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *ph = e + phoff + i * phentsize;
        if (rd32(ph, 0) != 1)        /* PT_LOAD */
            continue;
        uint32_t off = rd32(ph, 4), paddr = rd32(ph, 12), filesz = rd32(ph, 16),
                 memsz = rd32(ph, 20);
        if (vtboot_elf + off + filesz > vtboot_elf_end)
            fail("vtboot's segment lies outside its file");
        copy((void *)paddr, e + off, filesz);
        for (uint32_t b = filesz; b < memsz; b++)
            ((volatile uint8_t *)paddr)[b] = 0;
        *lo = paddr < *lo ? paddr : *lo;
        *hi = paddr + memsz > *hi ? paddr + memsz : *hi;
    }
    return entry;
}

static void fault_mmap(void)
{
    unsigned big = MMAP_MAX;
    for (unsigned i = 0; i < nmmap; i++)
        if (mmap[i].type == 1 && mmap[i].addr >= 0x100000 &&
            (big == MMAP_MAX || mmap[i].len > mmap[big].len))
            big = i;
    if (big == MMAP_MAX)
        fail("no RAM above 1 MiB to split");
    /* two RAM halves overlapping by 1 MiB in the middle */
    uint64_t a = mmap[big].addr, len = mmap[big].len, half = (len / 2) & ~0xfffull;
    mmap[big].len = half + 0x100000;
    add_mmap(a + half, len - half, 1);
    /* RAM over the BIOS area, which the map calls reserved: reserved must win */
    add_mmap(0xf0000, 0x10000, 1);
    for (unsigned i = 0, j = nmmap - 1; i < j; i++, j--) {
        struct mb1_mmap_entry t = mmap[i];
        mmap[i] = mmap[j];
        mmap[j] = t;
    }
}

static void fault_modimage(uint32_t image_lo)
{
    if (mbi.mods_count < 2)
        fail("fault=modimage needs an initrd (module 1)");
    uint32_t size = mods[1].mod_end - mods[1].mod_start;
    mods[1].mod_start = image_lo;
    mods[1].mod_end = image_lo + size;
}

static uint8_t checksum(const uint8_t *p, uint32_t len)
{
    uint8_t s = 0;
    while (len--)
        s += *p++;
    return s;
}

static void fault_nofacs(void)
{
    const struct acpi_rsdp *r = 0;
    for (uint32_t a = 0xe0000; a < 0x100000 && !r; a += 16)
        if (starts_with((const char *)a, "RSD PTR ") && !checksum((const uint8_t *)a, 20))
            r = (const struct acpi_rsdp *)a;
    if (!r)
        fail("no RSDP");
    const struct acpi_sdt_header *rsdt = (const void *)r->rsdt_address;
    uint32_t n = (rsdt->length - sizeof(*rsdt)) / 4;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *f = (uint8_t *)rd32((const uint8_t *)(rsdt + 1), i * 4);
        if (!starts_with((const char *)f, "FACP"))
            continue;
        uint32_t len = rd32(f, 4);
        put_str("BADLOAD: FADT at ");
        put_hex((uint32_t)f);
        put_str(": FIRMWARE_CTRL ");
        put_hex(rd32(f, FADT_FIRMWARE_CTRL));
        for (unsigned b = 0; b < 4; b++)
            f[FADT_FIRMWARE_CTRL + b] = 0;
        if (len >= FADT_X_FIRMWARE_CTRL + 8) {
            put_str(", X_FIRMWARE_CTRL ");
            put_hex(rd32(f, FADT_X_FIRMWARE_CTRL) | (uint64_t)rd32(f, FADT_X_FIRMWARE_CTRL + 4) << 32);
            for (unsigned b = 0; b < 8; b++)
                f[FADT_X_FIRMWARE_CTRL + b] = 0;
        }
        f[9] = 0;
        f[9] = (uint8_t)-checksum(f, len);
        put_str(" -> 0, checksum fixed\n");
        return;
    }
    fail("no FADT in the RSDT");
}

void badload_main(uint32_t magic, uint32_t info)
{
    const struct mb1_info *q = (const struct mb1_info *)info;

    if (magic != MB1_BOOTLOADER_MAGIC)
        fail("not started by a multiboot1 loader");
    if (!(q->flags & MB1_INFO_CMDLINE) || !(q->flags & MB1_INFO_MEM_MAP) ||
        !(q->flags & MB1_INFO_MODS) || q->mods_count > MODS_MAX)
        fail("QEMU gave no command line, memory map or modules");
    split_cmdline((const char *)q->cmdline);
    uint32_t lo, hi, entry = load_vtboot(&lo, &hi);
    put_str("BADLOAD: vtboot loaded at ");
    put_hex(lo);
    put_str("-");
    put_hex(hi);
    put_str(", entry ");
    put_hex(entry);
    put_str("\n");

    mbi.flags = MB1_INFO_MEMORY | MB1_INFO_CMDLINE | MB1_INFO_MODS | MB1_INFO_MEM_MAP |
                MB1_INFO_LOADER_NAME;
    mbi.mem_lower = q->mem_lower;
    mbi.mem_upper = q->mem_upper;
    mbi.cmdline = (uint32_t)cmdline;
    mbi.boot_loader_name = (uint32_t)"badload";
    copy(mods, (const void *)q->mods_addr, q->mods_count * sizeof(mods[0]));
    mbi.mods_count = q->mods_count;
    mbi.mods_addr = (uint32_t)mods;
    for (uint32_t off = 0; off + 4 <= q->mmap_length;) {
        const struct mb1_mmap_entry *e = (const void *)(q->mmap_addr + off);
        add_mmap(e->addr, e->len, e->type);
        off += e->size + 4;
    }

    if (starts_with(fault, "mmap"))
        fault_mmap();
    else if (starts_with(fault, "modimage"))
        fault_modimage(lo);
    else if (starts_with(fault, "nofacs"))
        fault_nofacs();
    else if (!starts_with(fault, "none"))
        fail("unknown fault= (none, mmap, modimage, nofacs)");
    mbi.mmap_addr = (uint32_t)mmap;
    mbi.mmap_length = nmmap * sizeof(mmap[0]);

    put_str("BADLOAD: fault=");
    put_str(fault);
    put_str(", command line [");
    put_str(cmdline);
    put_str("]\n");
    for (unsigned i = 0; i < nmmap; i++) {
        put_str("BADLOAD: mmap ");
        put_hex(mmap[i].addr);
        put_str(" ");
        put_hex(mmap[i].len);
        put_str(" ");
        put_hex(mmap[i].type);
        put_str("\n");
    }
    for (unsigned i = 0; i < mbi.mods_count; i++) {
        put_str("BADLOAD: module ");
        put_hex(i);
        put_str(" ");
        put_hex(mods[i].mod_start);
        put_str("-");
        put_hex(mods[i].mod_end);
        put_str("\n");
    }
    put_str("BADLOAD: entering vtboot\n");
    __asm__ volatile("cli; jmp *%2" :: "a"(MB1_BOOTLOADER_MAGIC), "b"(&mbi), "r"(entry));
    __builtin_unreachable();
}
