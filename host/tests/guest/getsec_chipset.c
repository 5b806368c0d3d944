/* SPDX-License-Identifier: MIT */
/*
 * getsec's probes of the emulated TXT chipset (qemu/patches 0004, docs/txt-platform.md
 * "0004"; tests/qemu/test_txt_chipset.py): the cases of getsec.c's table named below. Lines
 * on COM1 are getsec's: "GETSEC: <case>: <what> = <value>". Registers are read as two
 * 32-bit halves, as tboot's 32-bit code reads them.
 *
 *   case=txtregs        every public register; the private space (closed): all-ones, writes
 *                       dropped; writes to public read-only registers ignored; MLE.JOIN
 *                       written in dwords and a byte and read back, then cleared
 *   case=biosdata       the heap at HEAP.BASE: its first region, BiosData, and its elements
 *   case=biosdata-reset the same, then BiosData overwritten and a marker left further in the
 *                       heap, and a reset through 0xcf9; the next boot (the marker says it is
 *                       the second) prints BiosData again (rewritten by the "BIOS") and
 *                       whether the marker survived (needs QEMU without -no-reboot)
 *   case=e820           the multiboot memory map (QEMU's -kernel loader: the BIOS's e820)
 *   case=txt-dma        (-device edu,dma_mask=0xffffffff: edu's default mask ends at 256 MiB) a
 *                       device's DMA at both spaces: edu reads DIDVID, writes MLE.JOIN, then
 *                       CMD.OPEN-PRIVATE and CMD.RESET; the CPU's own read and write beside it
 */
#include "com1.h"
#include "edu.h"
#include "getsec.h"
#include "abi/multiboot1.h"
#include "abi/txt.h"

#include <stddef.h>
#include <stdint.h>

#define HEAP_MARKER 0x1000u                 /* a heap offset past BiosData */
#define MARKER 0x52545856u                  /* "VXTR" */

/* "GETSEC: <case>: <what> = <decimal>" */
static void show_dec(const char *what, uint32_t v)
{
    line(what);
    put_str(" = ");
    put_dec(v);
    put_str("\n");
}

static const struct {
    const char *name;
    uint32_t off;
} regs[] = {
    { "STS", TXTCR_STS },
    { "ESTS", TXTCR_ESTS },
    { "ERRORCODE", TXTCR_ERRORCODE },
    { "VER.FSBIF", TXTCR_VER_FSBIF },
    { "DIDVID", TXTCR_DIDVID },
    { "VER.QPIIF", TXTCR_VER_QPIIF },
    { "SINIT.BASE", TXTCR_SINIT_BASE },
    { "SINIT.SIZE", TXTCR_SINIT_SIZE },
    { "MLE.JOIN", TXTCR_MLE_JOIN },
    { "HEAP.BASE", TXTCR_HEAP_BASE },
    { "HEAP.SIZE", TXTCR_HEAP_SIZE },
    { "MSEG.BASE", TXTCR_MSEG_BASE },
    { "MSEG.SIZE", TXTCR_MSEG_SIZE },
    { "DPR", TXTCR_DPR },
    { "PUBLIC.KEY[0]", TXTCR_PUBLIC_KEY },
    { "PUBLIC.KEY[1]", TXTCR_PUBLIC_KEY + 8 },
    { "PUBLIC.KEY[2]", TXTCR_PUBLIC_KEY + 16 },
    { "PUBLIC.KEY[3]", TXTCR_PUBLIC_KEY + 24 },
    { "E2STS", TXTCR_E2STS },
};
#define NREGS (sizeof(regs) / sizeof(regs[0]))

static void show_space(const char *space, const char *what, uint32_t off, uint64_t v)
{
    line(space);
    put_str(" ");
    put_str(what);
    put_str(" (");
    put_hex(off);
    put_str(") = ");
    put_hex(v);
    put_str("\n");
}

void chipset_txtregs(void)
{
    const uint32_t pub = TXT_PUB_CONFIG_REGS_BASE, priv = TXT_PRIV_CONFIG_REGS_BASE;
    uint64_t before[NREGS];

    for (unsigned i = 0; i < NREGS; i++) {
        before[i] = rd64(pub + regs[i].off);
        show_space("public", regs[i].name, regs[i].off, before[i]);
    }
    /* narrower reads return the slice */
    show("public DIDVID byte at 0x112", *(volatile uint8_t *)(pub + TXTCR_DIDVID + 2));
    show("public DIDVID word at 0x112", *(volatile uint16_t *)(pub + TXTCR_DIDVID + 2));
    show("public 0x1000 (no register)", rd64(pub + 0x1000));

    /* the private space is closed: a master abort */
    show("private STS", rd64(priv + TXTCR_STS));
    show("private HEAP.BASE", rd64(priv + TXTCR_HEAP_BASE));
    show("private byte at 0x300", *(volatile uint8_t *)(priv + TXTCR_HEAP_BASE));
    wr64(priv + TXTCR_ERRORCODE, 0xc0000001u);
    *(volatile uint32_t *)(priv + TXTCR_CMD_SECRETS) = 1;
    show("after private writes: public ERRORCODE", rd64(pub + TXTCR_ERRORCODE));
    show("after private writes: public E2STS", rd64(pub + TXTCR_E2STS));

    /* public writes to every register but MLE.JOIN are ignored */
    for (unsigned i = 0; i < NREGS; i++)
        if (regs[i].off != TXTCR_MLE_JOIN)
            wr64(pub + regs[i].off, 0x5a5a5a5a5a5a5a5aull);
    unsigned changed = 0;
    for (unsigned i = 0; i < NREGS; i++)
        if (regs[i].off != TXTCR_MLE_JOIN && rd64(pub + regs[i].off) != before[i]) {
            show_space("changed by a public write:", regs[i].name, regs[i].off,
                       rd64(pub + regs[i].off));
            changed++;
        }
    show_dec("read-only registers changed by public writes", changed);

    /* MLE.JOIN: publicly writable, u64, any width */
    wr64(pub + TXTCR_MLE_JOIN, 0x9abcdef012345678ull);
    show("public MLE.JOIN after writing 0x9abcdef012345678", rd64(pub + TXTCR_MLE_JOIN));
    *(volatile uint8_t *)(pub + TXTCR_MLE_JOIN + 1) = 0xaa;
    show("public MLE.JOIN after writing byte 0xaa at 0x291", rd64(pub + TXTCR_MLE_JOIN));
    wr64(pub + TXTCR_MLE_JOIN, 0);
    show("public MLE.JOIN after writing 0", rd64(pub + TXTCR_MLE_JOIN));
}

static uint32_t ld32(const uint8_t *p) { return *(const uint32_t *)p; }
static uint64_t ld64(const uint8_t *p) { return *(const uint64_t *)p; }

static void show_bios_data(void)
{
    uint64_t heap = rd64(TXT_PUB_CONFIG_REGS_BASE + TXTCR_HEAP_BASE);
    const uint8_t *h = (const uint8_t *)(uint32_t)heap;
    show("HEAP.BASE", heap);
    if (heap == 0 || heap >= 0x100000000ull) {
        line("no heap\n");
        return;
    }
    uint64_t size = ld64(h);
    show_dec("BiosDataSize", (uint32_t)size);
    const uint8_t *bd = h + 8;
    show_dec("BiosData.version", ld32(bd + offsetof(struct txt_bios_data, version)));
    show_dec("BiosData.bios_sinit_size", ld32(bd + offsetof(struct txt_bios_data, bios_sinit_size)));
    show("BiosData.lcp_pd_base", ld64(bd + offsetof(struct txt_bios_data, lcp_pd_base)));
    show("BiosData.lcp_pd_size", ld64(bd + offsetof(struct txt_bios_data, lcp_pd_size)));
    show_dec("BiosData.num_logical_procs", ld32(bd + offsetof(struct txt_bios_data, num_logical_procs)));
    uint64_t flags = ld64(bd + offsetof(struct txt_bios_data, flags));
    show("BiosData.flags", flags);
    show_dec("BiosData.flags.platform_type", TXT_BIOS_FLAGS_PLATFORM_TYPE(flags));
    /* the extended elements, up to END or the region's end */
    uint32_t off = 8 + sizeof(struct txt_bios_data);
    for (unsigned n = 0; n < 16 && off + 8 <= size; n++) {
        const uint8_t *e = h + off;
        uint32_t type = ld32(e), esize = ld32(e + 4);
        line("element type ");
        put_dec(type);
        put_str(" size ");
        put_dec(esize);
        if (type == HEAP_EXTDATA_TYPE_BIOS_SPEC_VER && esize == 14) {
            put_str(": spec_ver ");
            put_dec(*(const uint16_t *)(e + 8));
            put_str(".");
            put_dec(*(const uint16_t *)(e + 10));
            put_str(".");
            put_dec(*(const uint16_t *)(e + 12));
        }
        put_str("\n");
        if (type == HEAP_EXTDATA_TYPE_END || esize < 8)
            break;
        off += esize;
    }
    show_dec("BiosData end offset", off + 8);
}

void chipset_biosdata(void)
{
    show_bios_data();
}

void chipset_biosdata_reset(void)
{
    uint64_t heap = rd64(TXT_PUB_CONFIG_REGS_BASE + TXTCR_HEAP_BASE);
    volatile uint32_t *marker = (volatile uint32_t *)(uint32_t)(heap + HEAP_MARKER);
    uint8_t *h = (uint8_t *)(uint32_t)heap;
    if (*marker != MARKER) {
        line("boot 1\n");
        show_bios_data();
        *marker = MARKER;
        for (unsigned i = 0; i < 66; i++)
            h[i] = 0xee;
        line("BiosData overwritten, resetting\n");
        outb(0xcf9, 0x02);
        outb(0xcf9, 0x06);                  /* hard reset (not FULL_RST) */
        for (;;)
            __asm__ volatile("cli; hlt");
    }
    line("boot 2\n");
    show("marker", *marker);
    *marker = 0;
    show_bios_data();
}

void chipset_e820(void)
{
    const struct mb1_info *m = getsec_mbi;
    if (!(m->flags & MB1_INFO_MEM_MAP)) {
        line("no multiboot memory map\n");
        return;
    }
    uint32_t a = m->mmap_addr, end = m->mmap_addr + m->mmap_length;
    while (a < end) {
        const struct mb1_mmap_entry *e = (const struct mb1_mmap_entry *)a;
        line("");
        put_hex(e->addr);
        put_str(" + ");
        put_hex(e->len);
        put_str(" type ");
        put_dec(e->type);
        put_str("\n");
        a += e->size + 4;
    }
}

#define JOIN_BY_CPU 0x11112222u
#define JOIN_BY_DMA 0x33334444u

/* edu copies len bytes from src to dst through its buffer: RAM or MMIO at either end */
static int dma_copy(uint32_t edu, uint32_t src, uint32_t dst, uint32_t len)
{
    if (edu_dma_copy(edu, src, EDU_BUF, len, 0) && edu_dma_copy(edu, EDU_BUF, dst, len, EDU_TO_RAM))
        return 1;
    line("edu DMA did not complete\n");
    return 0;
}

void chipset_dma(void)
{
    const uint32_t pub = TXT_PUB_CONFIG_REGS_BASE, priv = TXT_PRIV_CONFIG_REGS_BASE;
    static volatile uint32_t word;
    uint32_t edu = edu_find();
    line(edu ? "edu: found\n" : "edu: not found\n");
    if (!edu)
        return;

    word = 0x12345678u;
    if (!dma_copy(edu, pub + TXTCR_DIDVID, (uint32_t)&word, 4))
        return;
    show("DIDVID as edu read it", word);
    show("DIDVID as the CPU reads it", rd32(pub + TXTCR_DIDVID));

    wr32(pub + TXTCR_MLE_JOIN, JOIN_BY_CPU);
    show("MLE.JOIN after the CPU wrote it", rd32(pub + TXTCR_MLE_JOIN));
    word = JOIN_BY_DMA;
    if (!dma_copy(edu, (uint32_t)&word, pub + TXTCR_MLE_JOIN, 4))
        return;
    show("MLE.JOIN after edu wrote it", rd32(pub + TXTCR_MLE_JOIN));

    /* the commands a closed private space honours from AC mode only, and the TXT reset: a
     * device's write is no processor cycle (with -no-reboot a reset would end the run here) */
    word = 1;
    if (!dma_copy(edu, (uint32_t)&word, priv + TXTCR_CMD_OPEN_PRIVATE, 4) ||
        !dma_copy(edu, (uint32_t)&word, priv + TXTCR_CMD_RESET, 4))
        return;
    show("STS after edu wrote CMD.OPEN-PRIVATE and CMD.RESET", rd32(pub + TXTCR_STS));
    show("ESTS", rd32(pub + TXTCR_ESTS));
    wr32(pub + TXTCR_MLE_JOIN, 0);
}
