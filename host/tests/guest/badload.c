/* SPDX-License-Identifier: MIT */
/*
 * badload: a multiboot1 loader that hands vtboot malformed input, for the QEMU fault tests
 * (tests/qemu/test_loader_faults.py). QEMU boots it with -kernel and the Linux kernel and
 * initrd as modules (GRUB's multiboot, --grub-mb1, works too; GRUB's multiboot2 finds the
 * multiboot2 header of the vtboot copy inside and starts badload with the wrong magic); vtboot's ELF is built into it (badload_vtboot.S). It loads vtboot's ELF
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
 *
 * Event sources armed before the launch (issue 19, tests/qemu/test_event_sources.py): each
 * arm=<source> word (repeatable; taken out of vtboot's command line like fault=) arms one
 * before badload enters vtboot, and badload plays the attacker who controls the unmeasured
 * pre-launch code: it patches vtboot's prelaunch_quiesce (found in the built-in ELF's symbol
 * table) to return at once ("xor %eax,%eax; ret"), unless quiesce=keep. The patch is in the
 * measured image: the tests predict PCR 17 for the patched image. With the quiesce patched
 * out, badload first quiesces what the firmware left armed (baseline_quiesce), so that the
 * armed source is the only one; quiesce=baseline does that without patching anything (for a
 * vtboot without prelaunch_quiesce).
 *   arm=none     nothing armed (the control)
 *   arm=nmi      IVT[2] -> badload's real-mode code; the PIT (IRQ0) through I/O APIC pin 2
 *                in NMI mode to APIC 1 (needs --smp 2 or more)
 *   arm=init     CMOS 0x0F = 0x0A and 40:67 -> badload's real-mode code; the RTC's alarm
 *                (alarm=N seconds from now, default 2) through I/O APIC pin 8 in INIT mode
 *                to APIC 0: SeaBIOS's INIT path jumps to 40:67
 *   arm=hpet     the HPET's timers 0 and 1 write "PWN!" (FSB delivery: any 4 bytes to any
 *                address) into the MLE's .rodata and into the kernel's command line, alarm=N
 *                seconds from now; without an HPET at 0xfed00000 "BADLOAD: no HPET" and
 *                nothing armed
 *   arm=lapic    APIC 1 (started through badload's own INIT-SIPI) gets its LVT LINT0, LINT1
 *                and timer in NMI mode, then halts with interrupts off
 *   arm=pcinmi   the ICH9 AHCI (00:1f.2): bus mastering on, MSI on in NMI mode to APIC 0
 *   arm=pciinit  QEMU's edu device (-device edu): bus mastering on, MSI on in INIT mode to
 *                APIC 0
 *   arm=apicbase the launching CPU's APIC base (MSR 0x1B) moved to a page of badload's
 *                memory (the INITs the MLE sends there reach no CPU)
 *   arm=dr7      DR0 = vtboot's MLE entry point, DR7 L0|G0 (an instruction breakpoint)
 * Code that runs through an armed source after the launch (the MLE's banner is in its
 * memory log staging) prints "BADLOAD: PWNED: ..." on COM1, rewrites a byte of the MLE's
 * .rodata (the "measured launch:" line then reads "Peasured launch:") and "panic" in the
 * kernel's command line to "PWNED"; on the launching CPU it also reads PCR 17 through the
 * TPM and prints it. Before the launch the same code only halts (interrupts off).
 */
#include "com1.h"
#include "abi/acpi.h"
#include "abi/multiboot1.h"

#include <stddef.h>
#include <stdint.h>

void badload_main(uint32_t magic, uint32_t info) __attribute__((noreturn));

extern const uint8_t vtboot_elf[], vtboot_elf_end[];

#define MMAP_MAX 64u
#define CMDLINE_MAX 1024u
#define MODS_MAX 8u

/* ACPI S5 through PM1a_CNT (SeaBIOS puts q35's PM base at 0x600; SLP_TYP 0 is QEMU's S5):
 * the launcher then ends at once instead of timing out */

static __attribute__((noreturn)) void fail(const char *why)
{
    put_str("BADLOAD: FAILED: ");
    put_str(why);
    put_str("\n");
    outw(0x604, 1u << 13);
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
static char quiesce[16];
static char alarm[8];
#define ARMS_MAX 8u
static char arms[ARMS_MAX][16];
static unsigned narms;

/* A word "key=value" of badload's own: its value into `val` (size n); returns the rest. */
static const char *take_word(const char *in, unsigned skip, char *val, unsigned n)
{
    unsigned f = 0;
    for (in += skip; *in && *in != ' '; in++)
        if (f + 1 < n)
            val[f++] = *in;
    val[f] = 0;
    while (*in == ' ')
        in++;
    return in;
}

/* vtboot's command line: QEMU's without badload's own words (fault=, arm=, quiesce=,
 * alarm=), which go into their variables. */
static void split_cmdline(const char *in)
{
    unsigned o = 0;
    while (*in) {
        if (o == 0 || cmdline[o - 1] == ' ') {
            if (starts_with(in, "fault=")) {
                in = take_word(in, 6, fault, sizeof(fault));
                continue;
            }
            if (starts_with(in, "quiesce=")) {
                in = take_word(in, 8, quiesce, sizeof(quiesce));
                continue;
            }
            if (starts_with(in, "alarm=")) {
                in = take_word(in, 6, alarm, sizeof(alarm));
                continue;
            }
            if (starts_with(in, "arm=")) {
                if (narms == ARMS_MAX)
                    fail("too many arm= words");
                in = take_word(in, 4, arms[narms++], sizeof(arms[0]));
                continue;
            }
        }
        if (o + 1 >= CMDLINE_MAX)
            fail("command line too long");
        cmdline[o++] = *in++;
    }
    while (o && cmdline[o - 1] == ' ')
        o--;
    cmdline[o] = 0;
}

extern uint8_t _end[];
static char modstr[MODS_MAX][256];

/* The module strings into badload's memory, and the modules themselves out of the way of
 * vtboot's image (VTBOOT_BASE 8 MiB up to 16 MiB) and of badload (32 MiB up to _end): GRUB
 * loads them wherever it likes, QEMU right after badload. */
#define KEEP_LO 0x800000u
#define KEEP_HI 0x1000000u
#define MOVE_TO 0x4000000u
static void keep_modules(void)
{
    uint32_t to = MOVE_TO;
    for (unsigned i = 0; i < mbi.mods_count; i++) {
        const char *str = (const char *)mods[i].string;
        unsigned n = 0;
        while (str && str[n] && n + 1 < sizeof(modstr[i])) {
            modstr[i][n] = str[n];
            n++;
        }
        modstr[i][n] = 0;
        mods[i].string = (uint32_t)modstr[i];
        uint32_t a = mods[i].mod_start, e = mods[i].mod_end;
        if ((a < KEEP_HI && e > KEEP_LO) || (a < (uint32_t)_end && e > 0x2000000u)) {
            if (e > MOVE_TO)
                fail("a module to move lies above 64 MiB");
            copy((void *)to, (const void *)a, e - a);
            mods[i].mod_start = to;
            mods[i].mod_end = to + (e - a);
            to = (to + (e - a) + 0xfff) & ~0xfffu;
        }
    }
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

/* ---- event sources armed before the launch (issue 19) ---- */

#define TRAMP 0x7000u                    /* badload's real-mode entries (below 1 MiB) */
#define KIND_SIPI 1u
#define KIND_NMI 2u
#define KIND_RESET 3u
#define IOAPIC 0xfec00000u
#define HPET 0xfed00000u
#define TPM 0xfed40000u
#define MSR_APIC_BASE 0x1bu

extern const uint8_t lowtramp_start[], lowtramp_end[], lowtramp_sipi[], lowtramp_nmi[],
    lowtramp_reset[];
extern uint8_t moved_apic_page[];
void badload_low(uint32_t kind, uint32_t apic_id) __attribute__((noreturn));
void badload_nmi_iret(void);

static inline uint32_t mmio_rd(uint32_t a) { return *(volatile uint32_t *)a; }
static inline void mmio_wr(uint32_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline uint8_t mmio_rd8(uint32_t a) { return *(volatile uint8_t *)a; }
static inline void mmio_wr8(uint32_t a, uint8_t v) { *(volatile uint8_t *)a = v; }

static uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return lo | (uint64_t)hi << 32;
}

static void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}


static int str_eq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static __attribute__((noreturn)) void halt_here(void)
{
    for (;;)
        __asm__ volatile("cli; hlt");
}

/* -- vtboot's ELF: symbols and sections, read at run time from the built-in file -- */

static uint16_t rd16(const uint8_t *p, uint32_t off) { return (uint16_t)(p[off] | p[off + 1] << 8); }

static const uint8_t *elf_section(uint32_t i)
{
    const uint8_t *e = vtboot_elf;
    return e + rd32(e, 32) + i * rd16(e, 46);
}

/* A symbol's value in vtboot's symbol table, 0 if there is none. */
static uint32_t vtboot_sym(const char *name)
{
    const uint8_t *e = vtboot_elf;
    for (uint32_t i = 0; i < rd16(e, 48); i++) {
        const uint8_t *sh = elf_section(i);
        if (rd32(sh, 4) != 2)                    /* SHT_SYMTAB */
            continue;
        const char *str = (const char *)e + rd32(elf_section(rd32(sh, 24)), 16);
        uint32_t off = rd32(sh, 16), size = rd32(sh, 20), ent = rd32(sh, 36);
        for (uint32_t o = 0; ent && o + ent <= size; o += ent)
            if (str_eq(str + rd32(e + off, o), name))
                return rd32(e + off, o + 4);
    }
    return 0;
}

/* A section's address and size by name; 0 if there is none. */
static uint32_t vtboot_section(const char *name, uint32_t *size)
{
    const uint8_t *e = vtboot_elf;
    const char *names = (const char *)e + rd32(elf_section(rd16(e, 50)), 16);
    for (uint32_t i = 0; i < rd16(e, 48); i++) {
        const uint8_t *sh = elf_section(i);
        if (str_eq(names + rd32(sh, 0), name)) {
            *size = rd32(sh, 20);
            return rd32(sh, 12);
        }
    }
    return 0;
}

static uint32_t find_bytes(uint32_t start, uint32_t len, const char *what)
{
    uint32_t n = 0;
    while (what[n])
        n++;
    for (uint32_t a = start; a + n <= start + len; a++)
        if (starts_with((const char *)a, what))
            return a;
    return 0;
}

/* What an armed source writes after the launch, found before badload enters vtboot. */
static uint32_t mle_target;      /* the 'm' of "measured launch: " in the MLE's .rodata */
static uint32_t kernel_cmdline;  /* vtboot's copy of Linux's command line (its .bss) */
static uint32_t staging;         /* the MLE's memory log staging: its banner says it runs */
static volatile uint32_t ap_armed;

static void find_targets(void)
{
    uint32_t size, ro = vtboot_section(".rodata", &size);
    if (!ro)
        fail("vtboot has no .rodata section");
    mle_target = find_bytes(ro, size, "measured launch: ");
    if (!mle_target)
        fail("no \"measured launch: \" in vtboot's .rodata");
    staging = vtboot_sym("memlog_staging");
    if (!staging)
        fail("vtboot has no memlog_staging symbol (how badload tells that the MLE runs)");
    kernel_cmdline = vtboot_sym("kernel_cmdline");
    if (!kernel_cmdline)
        fail("vtboot has no kernel_cmdline symbol (where it leaves Linux's command line)");
}

static int mle_runs(void)
{
    return find_bytes(staging, 4096, "measured launch environment") != 0;
}

/* -- the TPM (TIS, locality 0): PCR 17's SHA-256 value, for the launching CPU's report -- */

#define TIS_ACCESS 0x0u
#define TIS_STS 0x18u
#define TIS_FIFO 0x24u

#define tis_wait(reg, mask, want) tis_wait_at(TPM + (reg), mask, want)
static int tis_wait_at(uint32_t reg, uint8_t mask, uint8_t want)
{
    for (uint32_t i = 0; i < 50000000u; i++)
        if ((mmio_rd8(reg) & mask) == want)
            return 0;
    return -1;
}

static int pcr17_sha256(uint8_t out[32])
{
    static const uint8_t cmd[] = {
        0x80, 0x01, 0, 0, 0, 20, 0, 0, 0x01, 0x7e,      /* TPM2_PCR_Read */
        0, 0, 0, 1, 0x00, 0x0b, 3, 0x00, 0x00, 0x02 };  /* sha256: PCR 17 */
    uint8_t rsp[128];
    uint32_t tpm = TPM;

    /* the locality the MLE left active (it ran no further), else locality 0 */
    for (uint32_t l = 0; l < 4; l++)
        if ((mmio_rd8(TPM + l * 0x1000 + TIS_ACCESS) & 0xa0) == 0xa0)
            tpm = TPM + l * 0x1000;
    if (tpm == TPM) {
        mmio_wr8(TPM + TIS_ACCESS, 0x02);             /* requestUse */
        if (tis_wait(TIS_ACCESS, 0x20, 0x20))
            return -1;
    }
#undef TPM
#define TPM tpm
    mmio_wr8(TPM + TIS_STS, 0x40);                    /* commandReady */
    if (tis_wait(TIS_STS, 0x40, 0x40))
        return -2;
    for (unsigned i = 0; i < sizeof(cmd); i++)
        mmio_wr8(TPM + TIS_FIFO, cmd[i]);
    mmio_wr8(TPM + TIS_STS, 0x20);                    /* tpmGo */
    if (tis_wait(TIS_STS, 0x90, 0x90))
        return -3;
    unsigned n = 0;
    while (n < sizeof(rsp) && (mmio_rd8(TPM + TIS_STS) & 0x10))
        rsp[n++] = mmio_rd8(TPM + TIS_FIFO);
    mmio_wr8(TPM + TIS_STS, 0x40);
    if (n < 10 || rd32(rsp, 6) != 0)
        return -4;
    /* pcrUpdateCounter, pcrSelectionOut (count 1, hash, size 3, bitmap), digests count 1 */
    uint32_t off = 10 + 4 + 4 + 2 + 1 + 3 + 4;
    if (off + 2 + 32 > n || rsp[off] != 0 || rsp[off + 1] != 32)
        return -5;
    copy(out, rsp + off + 2, 32);
    return 0;
#undef TPM
#define TPM 0xfed40000u
}

/* -- what runs through an armed source: 32-bit code entered from lowtramp (badload.S) -- */

static void lapic_nmi_lvts(void)
{
    uint32_t base = (uint32_t)rdmsr(MSR_APIC_BASE) & 0xfffff000u;
    mmio_wr(base + 0xf0, 0x1ff);                     /* software enabled */
    mmio_wr(base + 0x350, 4u << 8);                  /* LINT0: NMI */
    mmio_wr(base + 0x360, 4u << 8);                  /* LINT1: NMI */
    mmio_wr(base + 0x380, 0);                        /* timer stopped ... */
    mmio_wr(base + 0x320, 4u << 8);                  /* ... in NMI mode */
}

/* an IDT for an AP whose LAPIC sends it NMIs: vector 2 returns, nothing else is expected */
static uint64_t ap_idt[3];

static void load_ap_idt(void)
{
    uint32_t h = (uint32_t)badload_nmi_iret;
    uint64_t gate = (h & 0xffffu) | 0x08u << 16 | (uint64_t)0x8e00u << 32 |
                    (uint64_t)(h >> 16) << 48;
    ap_idt[2] = gate;
    struct { uint16_t limit; uint32_t base; } __attribute__((packed)) p = { sizeof(ap_idt) - 1,
                                                                           (uint32_t)ap_idt };
    __asm__ volatile("lidt %0" :: "m"(p));
}

/* The loader's code holds the launching CPU and the TPM: what PCR 17 says now. */
static __attribute__((noreturn)) void report_pcr17_and_power_off(void)
{
    uint8_t pcr[32];
    int r = pcr17_sha256(pcr);
    if (r) {
        put_str("BADLOAD: TPM2_PCR_Read failed ");
        put_hex((uint32_t)-r);
        put_str("\n");
    } else {
        put_str("BADLOAD: PCR 17 sha256 ");
        for (unsigned i = 0; i < 32; i++) {
            put_char("0123456789abcdef"[pcr[i] >> 4]);
            put_char("0123456789abcdef"[pcr[i] & 15]);
        }
        put_str("\n");
    }
    put_str("BADLOAD: powering off\n");
    outw(0x604, 1u << 13);
    halt_here();
}

void badload_low(uint32_t kind, uint32_t apic_id)
{
    if (kind == KIND_SIPI) {                         /* arm=lapic: badload's own AP start */
        load_ap_idt();
        lapic_nmi_lvts();
        ap_armed = 1;
        halt_here();
    }
    int launched = mle_runs();
    if (!launched && kind == KIND_NMI)
        halt_here();                                 /* before the launch: nothing to gain */
    put_str("\n");                                   /* ends a line the INIT cut short */
    if (!launched) {
        put_str("BADLOAD: an INIT sent APIC ");
        put_dec(apic_id);
        put_str(" through the warm-reset vector into the loader's code; no MLE ran\n");
        report_pcr17_and_power_off();
    }
    put_str(kind == KIND_NMI ? "BADLOAD: PWNED: an NMI ran the loader's code on APIC "
                             : "BADLOAD: PWNED: an INIT sent the launching CPU through the "
                               "warm-reset vector into the loader's code on APIC ");
    put_dec(apic_id);
    put_str(" after the launch\n");
    mmio_wr8(mle_target, 'P');
    put_str("BADLOAD: PWNED: wrote the MLE's .rodata at ");
    put_hex(mle_target);
    put_str("\n");
    if (kind == KIND_NMI) {
        /* vtboot copies Linux's command line into its .bss after measuring module 0: wait for
         * it there, then change it before Linux reads it */
        uint32_t at = 0;
        for (uint32_t i = 0; i < 400000000u && !at; i++)
            at = find_bytes(kernel_cmdline, 256, "panic");
        if (at) {
            copy((void *)at, "PWNED", 5);
            put_str("BADLOAD: PWNED: wrote the kernel's command line at ");
            put_hex(at);
            put_str("\n");
        }
    }
    if (kind == KIND_RESET)
        report_pcr17_and_power_off();
    halt_here();
}

/* -- arming -- */

static void ioapic_route(unsigned pin, uint32_t mode, uint8_t dest)
{
    mmio_wr(IOAPIC, 0x11 + 2 * pin);
    mmio_wr(IOAPIC + 0x10, (uint32_t)dest << 24);
    mmio_wr(IOAPIC, 0x10 + 2 * pin);
    mmio_wr(IOAPIC + 0x10, mode << 8);               /* physical, edge, high, unmasked */
}

static uint8_t cmos_rd(uint8_t r) { outb(0x70, r); return inb(0x71); }
static void cmos_wr(uint8_t r, uint8_t v) { outb(0x70, r); outb(0x71, v); }

/* alarm=N: milliseconds from badload's entry into vtboot to the INIT or HPET write
 * (default 250: inside the MLE, which runs from ~40 ms to ~480 ms after it under TCG) */
static unsigned alarm_ms(void)
{
    unsigned n = 0;
    for (const char *a = alarm; *a >= '0' && *a <= '9'; a++)
        n = n * 10 + (unsigned)(*a - '0');
    return alarm[0] ? n : 250;
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return lo | (uint64_t)hi << 32;
}


/* The RTC's seconds register right after it changed. */
static uint8_t rtc_next_second(void)
{
    uint8_t s0 = cmos_rd(0x00), s;
    do {
        while (cmos_rd(0x0a) & 0x80)                 /* update in progress */
            ;
        s = cmos_rd(0x00);
    } while (s == s0);
    return s;
}

static void poke16(uint32_t a, uint16_t v)
{
    __asm__ volatile("movw %0, (%1)" :: "r"(v), "r"(a) : "memory");
}

static void install_low_code(void)
{
    copy((void *)TRAMP, lowtramp_start, (uint32_t)(lowtramp_end - lowtramp_start));
}

static uint16_t low_offset(const uint8_t *entry)
{
    return (uint16_t)(TRAMP + (uint32_t)(entry - lowtramp_start));
}

static void arm_nmi(void)
{
    install_low_code();
    poke16(0x8, low_offset(lowtramp_nmi));      /* IVT[2] */
    poke16(0xa, 0);
    outb(0x43, 0x34);                                /* PIT channel 0: rate generator */
    outb(0x40, 0);
    outb(0x40, 0);                                   /* 65536: 18.2 Hz */
    ioapic_route(2, 4, 1);                           /* NMI to APIC 1 */
    put_str("BADLOAD: armed nmi: IVT[2] -> ");
    put_hex(low_offset(lowtramp_nmi));
    put_str(", PIT -> I/O APIC pin 2, NMI to APIC 1\n");
}

static void arm_init(void)
{
    install_low_code();
    poke16(0x467, low_offset(lowtramp_reset));
    poke16(0x469, 0);
    cmos_wr(0x0f, 0x0a);                             /* shutdown status: jump via 40:67 */
    /* The alarm has whole seconds: at one second's start (the TSC's rate measured over the
     * second before), it is set for the next second and badload waits until alarm= ms
     * before that. */
    unsigned ms = alarm_ms();
    if (ms >= 1000)
        fail("alarm= takes 0 to 999 ms with arm=init");
    rtc_next_second();
    uint64_t t0 = rdtsc();
    uint8_t s = rtc_next_second();
    uint64_t t1 = rdtsc();
    uint32_t per_ms = (uint32_t)(t1 - t0) / 1000u;      /* a few GHz at most */
    uint8_t b = cmos_rd(0x0b);
    unsigned sec = (b & 0x04) ? s : (s >> 4) * 10 + (s & 15);
    sec = (sec + 1) % 60;
    cmos_wr(0x01, (b & 0x04) ? (uint8_t)sec : (uint8_t)((sec / 10) << 4 | sec % 10));
    cmos_wr(0x03, 0xc0);                             /* any minute */
    cmos_wr(0x05, 0xc0);                             /* any hour */
    (void)cmos_rd(0x0c);
    cmos_wr(0x0b, b | 0x20);                         /* alarm interrupt enabled */
    (void)cmos_rd(0x0c);
    ioapic_route(8, 5, 0);                           /* INIT to APIC 0 */
    put_str("BADLOAD: armed init: CMOS 0x0f = 0x0a, 40:67 -> ");
    put_hex(low_offset(lowtramp_reset));
    put_str(", RTC alarm in ");
    put_dec(ms);
    put_str(" ms -> I/O APIC pin 8, INIT to APIC 0\n");
    while (rdtsc() - t1 < (uint64_t)per_ms * (1000 - ms))
        ;
}

static void arm_hpet(void)
{
    uint32_t cap = mmio_rd(HPET), period = mmio_rd(HPET + 4);
    if ((cap >> 16) != 0x8086 || !(cap & 0xff) || period < 1000000u || period > 100000000u) {
        put_str("BADLOAD: no HPET (capabilities ");
        put_hex(cap);
        put_str(")\n");
        return;
    }
    uint32_t ticks = alarm_ms() * (1000000u / (period / 1000000u));   /* period: fs */
    mmio_wr(HPET + 0x10, 0);                         /* halted while set up */
    uint32_t now = mmio_rd(HPET + 0xf0);
    const uint32_t target[2] = { mle_target, kernel_cmdline + 22 };   /* "bzImage console=ttyS0 " */
    for (unsigned t = 0; t < 2; t++) {
        uint32_t r = HPET + 0x100 + 0x20 * t;
        mmio_wr(r, 0x4000 | 0x4);                    /* FSB delivery, interrupt enabled */
        mmio_wr(r + 0x8, now + ticks);     /* comparator (32-bit counter reads) */
        mmio_wr(r + 0xc, 0);
        mmio_wr(r + 0x10, 0x214e5750);               /* "PWN!" */
        mmio_wr(r + 0x14, target[t]);
    }
    mmio_wr(HPET + 0x10, 1);
    put_str("BADLOAD: armed hpet: timers 0 and 1 write \"PWN!\" to ");
    put_hex(mle_target);
    put_str(" and ");
    put_hex(kernel_cmdline + 22);
    put_str("\n");
}

static void lapic_icr(uint32_t hi, uint32_t lo)
{
    uint32_t base = (uint32_t)rdmsr(MSR_APIC_BASE) & 0xfffff000u;
    mmio_wr(base + 0x310, hi);
    mmio_wr(base + 0x300, lo);
    while (mmio_rd(base + 0x300) & (1u << 12))
        ;
}

static void arm_lapic(void)
{
    install_low_code();
    ap_armed = 0;
    lapic_icr(1u << 24, 0x4500);                     /* INIT, level assert, to APIC 1 */
    for (volatile uint32_t i = 0; i < 100000; i++)
        ;
    lapic_icr(1u << 24, 0x4600 | TRAMP >> 12);       /* SIPI to lowtramp_sipi */
    for (uint32_t i = 0; i < 200000000u && !ap_armed; i++)
        __asm__ volatile("pause");
    if (!ap_armed)
        fail("arm=lapic: APIC 1 did not start (needs --smp 2 or more)");
    put_str("BADLOAD: armed lapic: APIC 1's LINT0, LINT1 and timer in NMI mode, APIC 1 halted\n");
}

static void put_hex_digits(uint32_t v, int n)
{
    while (n--)
        put_char("0123456789abcdef"[(v >> (4 * n)) & 15]);
}

/* bb:dd.f, as the launcher names a PCI function */
static void put_bdf(uint32_t bdf)
{
    put_hex_digits(bdf >> 8, 2);
    put_char(':');
    put_hex_digits(bdf >> 3 & 31, 2);
    put_char('.');
    put_hex_digits(bdf & 7, 1);
}

static uint32_t pci_rd(uint32_t bdf, uint32_t reg)
{
    outl(0xcf8, 0x80000000u | bdf << 8 | (reg & 0xfc));
    return inl(0xcfc);
}

static void pci_wr(uint32_t bdf, uint32_t reg, uint32_t v)
{
    outl(0xcf8, 0x80000000u | bdf << 8 | (reg & 0xfc));
    outl(0xcfc, v);
}

/* A PCI function's capability of this ID, 0 if none. */
static uint32_t pci_cap(uint32_t bdf, uint8_t id)
{
    if (!(pci_rd(bdf, 0x04) & (1u << 20)))
        return 0;
    uint32_t cap = pci_rd(bdf, 0x34) & 0xfc;
    for (unsigned n = 0; cap && n < 48; n++, cap = (pci_rd(bdf, cap) >> 8) & 0xfc)
        if ((pci_rd(bdf, cap) & 0xff) == id)
            return cap;
    return 0;
}

static void pci_arm_msi(uint32_t bdf, uint32_t mode, const char *what)
{
    uint32_t cap = pci_cap(bdf, 0x05);
    if (!cap)
        fail("the PCI function has no MSI capability");
    uint32_t ctl = pci_rd(bdf, cap) >> 16;
    pci_wr(bdf, cap + 4, 0xfee00000u);               /* to APIC 0 */
    if (ctl & 0x80) {                                /* 64-bit address */
        pci_wr(bdf, cap + 8, 0);
        pci_wr(bdf, cap + 12, mode << 8);
    } else {
        pci_wr(bdf, cap + 8, mode << 8);
    }
    pci_wr(bdf, cap, (pci_rd(bdf, cap) & 0xffff) | (ctl | 1) << 16);   /* MSI enable */
    pci_wr(bdf, 0x04, (pci_rd(bdf, 0x04) & 0xffff) | 0x6);  /* memory space, bus master */
    put_str("BADLOAD: armed ");
    put_str(what);
    put_str(": PCI ");
    put_bdf(bdf);
    put_str(" bus mastering and MSI on, ");
    put_str(mode == 4 ? "NMI" : "INIT");
    put_str(" to APIC 0\n");
}

static void arm_pci(uint32_t mode)
{
    if (mode == 4) {
        uint32_t id = pci_rd(0x1f << 3 | 2, 0);
        if (id != 0x29228086u)
            fail("arm=pcinmi: no ICH9 AHCI at 00:1f.2");
        pci_arm_msi(0x1f << 3 | 2, 4, "pcinmi");
        return;
    }
    for (uint32_t dev = 0; dev < 32; dev++)
        if (pci_rd(dev << 3, 0) == 0x11e81234u) {
            pci_arm_msi(dev << 3, 5, "pciinit");
            return;
        }
    fail("arm=pciinit: no edu device on bus 0 (-device edu)");
}

static void arm_apicbase(void)
{
    uint64_t b = rdmsr(MSR_APIC_BASE);
    wrmsr(MSR_APIC_BASE, (b & 0xfffull) | (uint32_t)moved_apic_page);
    put_str("BADLOAD: armed apicbase: MSR 0x1b ");
    put_hex(b);
    put_str(" -> ");
    put_hex(rdmsr(MSR_APIC_BASE));
    put_str("\n");
}

static void arm_dr7(void)
{
    uint32_t entry = vtboot_sym("mle_entry");
    if (!entry)
        fail("vtboot has no mle_entry symbol");
    __asm__ volatile("mov %0, %%dr0" :: "r"(entry));
    __asm__ volatile("mov %0, %%dr7" :: "r"(0x3u));  /* L0|G0: execute, 1 byte */
    uint32_t dr7;
    __asm__ volatile("mov %%dr7, %0" : "=r"(dr7));
    put_str("BADLOAD: armed dr7: DR0 ");
    put_hex(entry);
    put_str(" (mle_entry), DR7 ");
    put_hex(dr7);
    put_str("\n");
}

/*
 * With vtboot's prelaunch_quiesce patched out, what the firmware left armed is quiesced here
 * first (SeaBIOS: LINT1 in NMI mode on the BSP, bus mastering on the AHCI it booted from,
 * its timer tick through the 8259s; the APs are INITed), so that each arm= is the only
 * armed source and the host names it.
 */
static void baseline_quiesce(void)
{
    uint32_t base = (uint32_t)rdmsr(MSR_APIC_BASE) & 0xfffff000u;
    outb(0x21, 0xff);                                /* the 8259s: SeaBIOS's timer tick */
    outb(0xa1, 0xff);                                /* would reach an AP's LINT0 */
    lapic_icr(0, 0xc4500);                           /* INIT to all but self */
    for (volatile uint32_t i = 0; i < 100000; i++)
        ;
    static const uint16_t lvt[] = { 0x320, 0x330, 0x340, 0x350, 0x360, 0x370 };
    for (unsigned i = 0; i < sizeof(lvt) / sizeof(lvt[0]); i++) {
        uint32_t v = mmio_rd(base + lvt[i]), mode = v >> 8 & 7;
        if (!(v & 0x10000) && mode != 0 && !(lvt[i] == 0x350 && mode == 7)) {
            mmio_wr(base + lvt[i], v | 0x10000);
            put_str("BADLOAD: baseline: masked LAPIC 0 LVT ");
            put_hex(lvt[i]);
            put_str("\n");
        }
    }
    mmio_wr(IOAPIC, 0x01);
    unsigned pins = (mmio_rd(IOAPIC + 0x10) >> 16 & 0xff) + 1;
    for (unsigned pin = 0; pin < pins; pin++) {
        mmio_wr(IOAPIC, 0x10 + 2 * pin);
        uint32_t lo = mmio_rd(IOAPIC + 0x10), mode = lo >> 8 & 7;
        if (!(lo & 0x10000) && mode > 1) {
            mmio_wr(IOAPIC + 0x10, lo | 0x10000);
            put_str("BADLOAD: baseline: masked I/O APIC pin ");
            put_dec(pin);
            put_str("\n");
        }
    }
    for (uint32_t dev = 0; dev < 32; dev++)
        for (uint32_t fn = 0; fn < 8; fn++) {
            uint32_t bdf = dev << 3 | fn, id = pci_rd(bdf, 0);
            if ((id & 0xffff) == 0xffff)
                continue;
            uint32_t cmd = pci_rd(bdf, 0x04), msi = pci_cap(bdf, 0x05), msix = pci_cap(bdf, 0x11);
            if (cmd & 0x4) {
                pci_wr(bdf, 0x04, cmd & 0xfffb);
                put_str("BADLOAD: baseline: bus mastering off on PCI ");
                put_bdf(bdf);
                put_str("\n");
            }
            if (msi && (pci_rd(bdf, msi) & 0x10000))
                pci_wr(bdf, msi, pci_rd(bdf, msi) & ~0x10000u);
            if (msix && (pci_rd(bdf, msix) & 0x80000000u))
                pci_wr(bdf, msix, pci_rd(bdf, msix) & ~0x80000000u);
            if (!fn && !(pci_rd(bdf, 0x0c) & 0x800000))
                break;                               /* not multi-function */
        }
}

static const uint8_t ret0[] = { 0x31, 0xc0, 0xc3 };  /* xor %eax,%eax; ret */

static void arm_sources(void)
{
    if (!narms)
        return;
    find_targets();
    uint32_t q = 0;
    if (str_eq(quiesce, "keep")) {
        put_str("BADLOAD: quiesce=keep: vtboot's prelaunch_quiesce runs\n");
    } else if (str_eq(quiesce, "baseline")) {
        /* for a vtboot that has no prelaunch_quiesce yet: as if it were patched out */
        put_str("BADLOAD: quiesce=baseline: vtboot's prelaunch_quiesce is not patched\n");
        baseline_quiesce();
    } else {
        q = vtboot_sym("prelaunch_quiesce");
        if (!q)
            fail("vtboot has no prelaunch_quiesce symbol to patch (quiesce=keep runs vtboot "
                 "as it is)");
        baseline_quiesce();
    }
    for (unsigned i = 0; i < narms; i++) {
        const char *a = arms[i];
        if (str_eq(a, "none"))
            put_str("BADLOAD: armed none\n");
        else if (str_eq(a, "nmi"))
            arm_nmi();
        else if (str_eq(a, "init"))
            arm_init();
        else if (str_eq(a, "hpet"))
            arm_hpet();
        else if (str_eq(a, "lapic"))
            arm_lapic();
        else if (str_eq(a, "pcinmi"))
            arm_pci(4);
        else if (str_eq(a, "pciinit"))
            arm_pci(5);
        else if (str_eq(a, "apicbase"))
            arm_apicbase();
        else if (str_eq(a, "dr7"))
            arm_dr7();
        else
            fail("unknown arm= (none, nmi, init, hpet, lapic, pcinmi, pciinit, apicbase, dr7)");
    }
    if (q) {
        /* the attacker's pre-launch code: vtboot's prelaunch_quiesce returns at once */
        copy((void *)q, ret0, sizeof(ret0));
        put_str("BADLOAD: patched prelaunch_quiesce at ");
        put_hex(q);
        put_str(" to return at once\n");
    }
}

void badload_main(uint32_t magic, uint32_t info)
{
    const struct mb1_info *q = (const struct mb1_info *)info;

    if (magic == 0x36d76289u)       /* GRUB's multiboot2 finds the header of the vtboot inside */
        fail("started by a multiboot2 loader: badload speaks multiboot1 only (GRUB's "
             "multiboot2 found the multiboot2 header of the vtboot copy built into badload; "
             "use GRUB's multiboot, --grub-mb1)");
    if (magic != MB1_BOOTLOADER_MAGIC)
        fail("not started by a multiboot1 loader");
    if (!(q->flags & MB1_INFO_CMDLINE) || !(q->flags & MB1_INFO_MEM_MAP) ||
        !(q->flags & MB1_INFO_MODS) || q->mods_count > MODS_MAX) {
        put_str("BADLOAD: multiboot information flags ");
        put_hex(q->flags);
        put_str(", ");
        put_hex(q->mods_count);
        put_str(" modules\n");
        fail("the loader gave no command line, memory map or modules");
    }
    split_cmdline((const char *)q->cmdline);
    /* everything the loader handed over is copied before vtboot's image lands (GRUB may have
     * put it there) */
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
    keep_modules();
    uint32_t lo, hi, entry = load_vtboot(&lo, &hi);
    put_str("BADLOAD: vtboot loaded at ");
    put_hex(lo);
    put_str("-");
    put_hex(hi);
    put_str(", entry ");
    put_hex(entry);
    put_str("\n");

    if (starts_with(fault, "mmap"))
        fault_mmap();
    else if (starts_with(fault, "modimage"))
        fault_modimage(lo);
    else if (starts_with(fault, "nofacs"))
        fault_nofacs();
    else if (fault[0] && !starts_with(fault, "none"))
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
    arm_sources();
    put_str("BADLOAD: entering vtboot\n");
    __asm__ volatile("cli; jmp *%2" :: "a"(MB1_BOOTLOADER_MAGIC), "b"(&mbi), "r"(entry));
    __builtin_unreachable();
}
