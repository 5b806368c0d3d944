/* SPDX-License-Identifier: MIT */
/*
 * testk: a tiny multiboot kernel for testing vtboot-qemu without vtboot. It prints what the
 * boot loader gave it (command line, module strings and sizes) on COM1, then does what its
 * command line says:
 *   action=poweroff|reset|triple|panic|hang|vsenter|vsgarbage|vstwice|vsbig|vsarm|vsap
 *   pcr          read PCR 17/18 (SHA-256 and SHA-1 banks) through the TIS before the action
 *   nv           read NV index 0x01200001 (tboot's policy) through the TIS: its public area
 *                (attributes, size) and its bytes in hex
 * vsenter:   asks for a virtual SENTER of its own read-only image (__mle_start..__mle_end),
 *            sending the request in pieces, prints the answer and PCR 17/18, then powers off.
 * vsgarbage: first sends bad requests and prints each answer, then does what vsenter does.
 * vstwice:   two launches of the same range (PCR 17 must be as after one).
 * vsbig:     one launch of VSENTER_MLE_MAX bytes at 16 MiB (RAM there is whatever it is).
 * Every vs* action first quiesces the platform's event sources as vtboot's pre-launch code
 * does (quiesce(): LAPIC LVTs and timer, I/O APIC entries, PCI bus mastering/MSI/MSI-X, DR7).
 * vsarm:     then arms the one source arm=NAME names (lint1-nmi, timer-smi, ioapic-nmi,
 *            pci-bme, pci-bme-bus1, pci-msi, pci-msix, dr7; lint0-extint, error-fixed and
 *            ioapic-lowest are allowed ones) and does what vsenter does.
 * vsap:      the request comes from CPU 1 (--smp 2) in real mode while CPU 0 halts; CPU 1
 *            prints the answer and powers off.
 * Without a UART at 0x2f8 (--no-drtm) the vs* actions print "no VSENTER UART".
 * flood:     writes newlines and junk lines to the VSENTER UART and lines to COM1 for ever,
 *            never reading an answer (the launcher must stay in charge: --timeout, signals).
 * s3:        suspends to RAM (ACPI S3: FADT PM1a_CNT, SLP_TYP from the DSDT's _S3) with the
 *            FACS waking vector on a real-mode stub at WAKE_ADDR, then on each wake-up prints
 *            the mailbox at S3_BOX (which the host may change while the guest sleeps) and
 *            sleeps again until it has slept s3=N times (default 1), then powers off.
 *            Options: tpmshutdown (TPM2_Shutdown(STATE) before each sleep), sums (which
 *            4 KiB pages of the first MiB and of the top 2 MiB below the end of RAM changed
 *            across the sleep), pcr (also read PCR 17/18 after each wake-up), vsenter
 *            (a virtual SENTER of testk's image before the first sleep), s3hang
 *            (halt after the first wake-up's report, for the host to look at memory), pmfix
 *            (q35: restore the ICH9 LPC's PMBASE, ACPI_CNTL and RCBA after each wake-up,
 *            which QEMU resets and SeaBIOS does not restore, so that PM1a_CNT works again).
 * State that must survive S3 lives at S3_BOX: QEMU re-copies the ELF (and zeroes .bss) on
 * the wake-up reset.
 * Every line it prints starts with "TESTK: ".
 */
#include "abi/multiboot1.h"
#include "abi/multiboot2.h"
#include "abi/mle.h"
#include "abi/vsenter.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

extern const uint8_t __mle_start[], __mle_end[];
void triple_fault(void) __attribute__((noreturn));
void kmain(uint32_t magic, uint32_t info);

/* padding so that the measured range spans several 4 KiB hash chunks */
__attribute__((used)) static const uint8_t pad[9000] = { [0] = 1, [4095] = 2, [8999] = 3 };

/* ---- port and memory I/O ---- */
static inline void outb(uint16_t p, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(p)); }
static inline void outw(uint16_t p, uint16_t v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(p)); }
static inline void outl(uint16_t p, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(p)); }
static inline uint8_t inb(uint16_t p) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(p)); return v; }
static inline uint32_t inl(uint16_t p) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(p)); return v; }
static inline uint8_t mr8(uint32_t a) { return *(volatile uint8_t *)a; }
static inline uint32_t mr32(uint32_t a) { return *(volatile uint32_t *)a; }
static inline void mw8(uint32_t a, uint8_t v) { *(volatile uint8_t *)a = v; }
static inline void mw32(uint32_t a, uint32_t v) { *(volatile uint32_t *)a = v; }

static void delay(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        inb(0x80);
}

/* at least n - 1 and at most n seconds: n changes of the CMOS RTC's seconds */
static uint8_t rtc_seconds(void)
{
    outb(0x70, 0x00);
    return inb(0x71);
}

/* ... or until *flag (if not NULL) is nonzero */
static void wait_rtc_seconds_for(unsigned n, const volatile uint8_t *flag)
{
    uint8_t last = rtc_seconds();

    while (n && !(flag && *flag)) {
        uint8_t now = rtc_seconds();

        if (now != last) {
            last = now;
            n--;
        }
    }
}

static void wait_rtc_seconds(unsigned n)
{
    wait_rtc_seconds_for(n, NULL);
}

/* ---- UARTs ---- */
#define COM1 0x3f8

static void uart_putc(uint16_t port, char c)
{
    while (!(inb(port + 5) & 0x20))
        ;
    outb(port, (uint8_t)c);
}

static void putc1(char c)
{
    if (c == '\n')
        uart_putc(COM1, '\r');
    uart_putc(COM1, c);
}

static void puts1(const char *s)
{
    while (*s)
        putc1(*s++);
}

static void put_hex(uint32_t v, int digits)
{
    for (int i = digits - 1; i >= 0; i--)
        putc1("0123456789abcdef"[(v >> (4 * i)) & 15]);
}

static void put_dec(uint32_t v)
{
    char b[12];
    int n = 0;

    do {
        b[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        putc1(b[--n]);
}

/* %s %u %x %08x %c; lines are prefixed by the caller */
static void print(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    for (; *fmt; fmt++) {
        int width = 0;

        if (*fmt != '%') {
            putc1(*fmt);
            continue;
        }
        fmt++;
        while (*fmt >= '0' && *fmt <= '9')
            width = width * 10 + (*fmt++ - '0');
        switch (*fmt) {
        case 's': puts1(va_arg(ap, const char *)); break;
        case 'u': put_dec(va_arg(ap, uint32_t)); break;
        case 'x': put_hex(va_arg(ap, uint32_t), width ? width : 8); break;
        case 'c': putc1((char)va_arg(ap, int)); break;
        default: putc1(*fmt); break;
        }
    }
    va_end(ap);
}

/* ---- strings (gcc may also call these itself) ---- */
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
int strcmp(const char *a, const char *b);

void *memcpy(void *d, const void *s, size_t n)
{
    uint8_t *o = d;
    const uint8_t *i = s;

    while (n--)
        *o++ = *i++;
    return d;
}

void *memset(void *d, int c, size_t n)
{
    uint8_t *o = d;

    while (n--)
        *o++ = (uint8_t)c;
    return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;

    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return (uint8_t)*a - (uint8_t)*b;
}

static size_t slen(const char *s)
{
    size_t n = 0;

    while (s[n])
        n++;
    return n;
}

static int has_word(const char *cmdline, const char *w)
{
    size_t n = slen(w);

    for (const char *p = cmdline; *p; p++) {
        if ((p == cmdline || p[-1] == ' ') && !memcmp(p, w, n) &&
            (p[n] == 0 || p[n] == ' '))
            return 1;
    }
    return 0;
}

/* value of "key=" in cmdline copied into out */
static int get_arg(const char *cmdline, const char *key, char *out, size_t outsz)
{
    size_t n = slen(key);

    for (const char *p = cmdline; *p; p++) {
        if ((p == cmdline || p[-1] == ' ') && !memcmp(p, key, n) && p[n] == '=') {
            size_t i = 0;

            p += n + 1;
            while (*p && *p != ' ' && i + 1 < outsz)
                out[i++] = *p++;
            out[i] = 0;
            return 1;
        }
    }
    return 0;
}

/* ---- PCI config, power ---- */
static uint32_t pci_read(uint32_t bus, uint32_t dev, uint32_t fn, uint32_t reg)
{
    outl(0xcf8, 0x80000000u | bus << 16 | dev << 11 | fn << 8 | (reg & 0xfc));
    return inl(0xcfc);
}

/* the PM base from PCI config space, and the config registers that enable it */
static uint32_t pm_base_pci(int verbose)
{
    uint32_t id = pci_read(0, 0x1f, 0, 0), base = 0;

    if ((id & 0xffff) == 0x8086 && (id >> 16) == 0x2918) {
        base = pci_read(0, 0x1f, 0, 0x40) & 0xff80;
        if (verbose)
            print("TESTK: ich9-lpc PMBASE(0x40)=0x%x ACPI_CNTL(0x44)=0x%2x\n",
                  pci_read(0, 0x1f, 0, 0x40), pci_read(0, 0x1f, 0, 0x44) & 0xff);
    } else if ((pci_read(0, 1, 3, 0) >> 16) == 0x7113) {
        base = pci_read(0, 1, 3, 0x40) & 0xffc0;
        if (verbose)
            print("TESTK: piix4-pm PMBA(0x40)=0x%x PMREGMISC(0x80)=0x%2x\n",
                  pci_read(0, 1, 3, 0x40), pci_read(0, 1, 3, 0x80) & 0xff);
    }
    return base;
}

static void pci_write(uint32_t bus, uint32_t dev, uint32_t fn, uint32_t reg, uint32_t v)
{
    outl(0xcf8, 0x80000000u | bus << 16 | dev << 11 | fn << 8 | (reg & 0xfc));
    outl(0xcfc, v);
}

static void poweroff(void) __attribute__((noreturn));

static void poweroff(void)
{
    uint32_t base = 0;

    print("TESTK: bye\n");
    /* ACPI PM1a_CNT = PM base + 4: ICH9 LPC 00:1f.0 or PIIX4 PM 00:01.3, register 0x40 */
    base = pm_base_pci(0);
    if (!base)
        base = 0x600;
    outw((uint16_t)(base + 4), 0x2000);    /* SLP_TYP 0 (QEMU's S5), SLP_EN */
    for (;;)
        __asm__ volatile("cli; hlt");
}

static void reset(void)
{
    print("TESTK: resetting\n");
    outb(0xcf9, 0x02);
    outb(0xcf9, 0x06);
    outb(0x64, 0xfe);
    for (;;)
        __asm__ volatile("cli; hlt");
}

/* ---- TPM TIS (locality 0) ---- */
#define TIS 0xfed40000u
#define TIS_ACCESS 0x00
#define TIS_STS 0x18
#define TIS_FIFO 0x24

static int tis_wait(uint32_t reg, uint32_t mask, uint32_t want)
{
    for (unsigned i = 0; i < 20000000u; i++)
        if ((mr32(TIS + reg) & mask) == want)
            return 0;
    return -1;
}

/* sends cmd, fills rsp; returns the response length or -1 */
static int tpm_xfer(const uint8_t *cmd, uint32_t len, uint8_t *rsp, uint32_t max)
{
    uint32_t n, size;

    /* no TPM: unassigned MMIO reads 0xff (or 0); a TIS has tpmRegValidSts (bit 7) */
    if (mr8(TIS + TIS_ACCESS) == 0xff || !(mr8(TIS + TIS_ACCESS) & 0x80))
        return -1;
    mw8(TIS + TIS_ACCESS, 0x02);                        /* requestUse */
    if (tis_wait(TIS_ACCESS, 0xa0, 0xa0))               /* tpmRegValidSts | activeLocality */
        return -1;
    mw32(TIS + TIS_STS, 0x40);                          /* commandReady */
    if (tis_wait(TIS_STS, 0x40, 0x40))
        return -1;
    for (n = 0; n < len; n++)
        mw8(TIS + TIS_FIFO, cmd[n]);
    mw32(TIS + TIS_STS, 0x20);                          /* tpmGo */
    if (tis_wait(TIS_STS, 0x90, 0x90))                  /* stsValid | dataAvail */
        return -1;
    for (n = 0; n < 10 && n < max; n++)
        rsp[n] = mr8(TIS + TIS_FIFO);
    size = (uint32_t)rsp[2] << 24 | (uint32_t)rsp[3] << 16 | (uint32_t)rsp[4] << 8 | rsp[5];
    for (; n < size && n < max; n++)
        rsp[n] = mr8(TIS + TIS_FIFO);
    mw32(TIS + TIS_STS, 0x40);
    mw8(TIS + TIS_ACCESS, 0x20);                        /* relinquish */
    return (int)n;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void print_pcrs(const char *when)
{
    /* TPM2_PCR_Read of PCR 17 and 18 in the SHA-256 and SHA-1 banks */
    static const uint8_t cmd[] = {
        0x80, 0x01, 0, 0, 0, 26, 0, 0, 0x01, 0x7e,
        0, 0, 0, 2,
        0x00, 0x0b, 3, 0x00, 0x00, 0x06,
        0x00, 0x04, 3, 0x00, 0x00, 0x06,
    };
    uint8_t rsp[512];
    uint32_t off, nsel, ndig, algs[8], pcrs[16], nout = 0;
    int n = tpm_xfer(cmd, sizeof(cmd), rsp, sizeof(rsp));

    if (n < 10) {
        print("TESTK: pcr %s: no TPM\n", when);
        return;
    }
    if (be32(rsp + 6) != 0) {
        print("TESTK: pcr %s: TPM error 0x%x\n", when, be32(rsp + 6));
        return;
    }
    off = 14;
    nsel = be32(rsp + off);
    off += 4;
    for (uint32_t i = 0; i < nsel && i < 8; i++) {
        uint32_t alg = (uint32_t)rsp[off] << 8 | rsp[off + 1], sz = rsp[off + 2];

        for (uint32_t b = 0; b < sz * 8; b++)
            if ((rsp[off + 3 + b / 8] >> (b % 8)) & 1 && nout < 16) {
                algs[nout] = alg;
                pcrs[nout++] = b;
            }
        off += 3 + sz;
    }
    ndig = be32(rsp + off);
    off += 4;
    for (uint32_t i = 0; i < ndig && i < nout && off + 2 <= (uint32_t)n; i++) {
        uint32_t sz = (uint32_t)rsp[off] << 8 | rsp[off + 1];

        off += 2;
        print("TESTK: pcr %s: PCR%u %s=", when, pcrs[i], algs[i] == 0x0b ? "sha256" :
              algs[i] == 0x04 ? "sha1" : "alg?");
        for (uint32_t k = 0; k < sz && off + k < (uint32_t)n; k++)
            put_hex(rsp[off + k], 2);
        print("\n");
        off += sz;
    }
}

static void put_be16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    put_be16(p, v >> 16);
    put_be16(p + 2, v);
}

/*
 * The NV index of tboot's policy (0x01200001) as the guest sees it at locality 0:
 * TPM2_NV_ReadPublic, then TPM2_NV_Read with the index's own (empty) password in chunks. A
 * TPM_RC_RETRY (0x922) answer is retried: libtpms gives it for the first use of a DA-protected
 * authorization after each TPM2_Startup (an index without TPMA_NV_NO_DA).
 */
#define NV_INDEX 0x01200001u
#define NV_CHUNK 512u

static void print_nv(void)
{
    static uint8_t data[4096];
    uint8_t cmd[64], rsp[NV_CHUNK + 64];
    uint32_t attrs, size, off = 0, retries = 0;
    int n;

    put_be16(cmd, 0x8001);                      /* TPM_ST_NO_SESSIONS */
    put_be32(cmd + 2, 14);
    put_be32(cmd + 6, 0x169);                   /* TPM2_NV_ReadPublic */
    put_be32(cmd + 10, NV_INDEX);
    n = tpm_xfer(cmd, 14, rsp, sizeof(rsp));
    if (n < 10) {
        print("TESTK: nv public: no TPM\n");
        return;
    }
    if (be32(rsp + 6) != 0) {
        print("TESTK: nv public: TPM error 0x%x\n", be32(rsp + 6));
        return;
    }
    /* TPM2B_NV_PUBLIC: size, nvIndex, nameAlg, attributes, authPolicy (TPM2B), dataSize */
    attrs = be32(rsp + 18);
    {
        uint32_t pol = (uint32_t)rsp[22] << 8 | rsp[23];

        size = (uint32_t)rsp[24 + pol] << 8 | rsp[25 + pol];
    }
    print("TESTK: nv public: attributes=0x%x size=%u\n", attrs, size);
    if (size > sizeof(data))
        size = sizeof(data);
    while (off < size) {
        uint32_t want = size - off > NV_CHUNK ? NV_CHUNK : size - off, got, rc;

        put_be16(cmd, 0x8002);                  /* TPM_ST_SESSIONS */
        put_be32(cmd + 2, 35);
        put_be32(cmd + 6, 0x14e);               /* TPM2_NV_Read */
        put_be32(cmd + 10, NV_INDEX);           /* authHandle: the index itself */
        put_be32(cmd + 14, NV_INDEX);
        put_be32(cmd + 18, 9);                  /* authorizationSize */
        put_be32(cmd + 22, 0x40000009);         /* TPM_RS_PW */
        put_be16(cmd + 26, 0);                  /* nonce */
        cmd[28] = 0;                            /* sessionAttributes */
        put_be16(cmd + 29, 0);                  /* empty password */
        put_be16(cmd + 31, want);
        put_be16(cmd + 33, off);
        n = tpm_xfer(cmd, 35, rsp, sizeof(rsp));
        rc = n >= 10 ? be32(rsp + 6) : 0xffffffffu;
        if (rc == 0x922 && retries < 3) {
            print("TESTK: nv read: TPM_RC_RETRY (0x922) at offset %u, retrying\n", off);
            retries++;
            continue;
        }
        if (rc != 0) {
            print("TESTK: nv read: TPM error 0x%x at offset %u\n", rc, off);
            return;
        }
        /* parameterSize, TPM2B_MAX_NV_BUFFER */
        got = (uint32_t)rsp[14] << 8 | rsp[15];
        if (got != want || 16 + got > (uint32_t)n) {
            print("TESTK: nv read: %u bytes for %u asked\n", got, want);
            return;
        }
        memcpy(data + off, rsp + 16, got);
        off += got;
    }
    print("TESTK: nv data=");
    for (uint32_t i = 0; i < size; i++)
        put_hex(data[i], 2);
    print("\n");
}

static void s3_sleep(void) __attribute__((noreturn));
static void poweroff(void) __attribute__((noreturn));

/* ---- VSENTER (protocol 4: include/abi/vsenter.h) ---- */
#define COM2 VSENTER_UART_PORT
/* testk's requests, all with one id: the tests expect "VSENTER-ERR 4 id=0x7e57c0de <reason>" */
#define VS_REQUEST_TEMPLATE "VSENTER 4 id=0x7e57c0de mle_base=0x________ mle_hdr=0x________\n"
#define VS_REQUEST_BASE 35
#define VS_REQUEST_HDR 54
_Static_assert(sizeof(VS_REQUEST_TEMPLATE) == VS_REQUEST_HDR + 10, "request template offsets");
#define RAM_MB_DEFAULT 512u

/* testk's MLE header: its measured range is the .mle section (link.ld), the entry is
 * post_launch (entry.S), no command line */
extern const char __mle_entry_off[], __mle_end_off[];
extern const uint8_t testk_gdt[];
extern const struct { uint16_t limit; uint32_t base; } __attribute__((packed)) testk_gdtr, idt0;
void post_launch(void);
void post_launch_c(void);
int vs_wait_byte(void);

__attribute__((used, aligned(MLE_HDR_ALIGN), section(".rodata.mlehdr")))
const struct mle_hdr testk_mle_hdr = {
    .uuid = MLE_HDR_UUID_BYTES,
    .length = sizeof(struct mle_hdr),
    .version = MLE_HDR_VERSION,
    .entry_point = (uint32_t)__mle_entry_off,
    .first_valid_page = 0,
    .mle_start_off = 0,
    .mle_end_off = (uint32_t)__mle_end_off,
    .capabilities = MLE_CAPS_VTBOOT,
    .cmdline_start_off = 0,
    .cmdline_end_off = 0,
};

/* what the entry found (entry.S fills it; layout shared with post_launch) */
struct launch_regs {
    uint32_t gpr[8];                    /* eax ebx ecx edx esi edi ebp esp */
    uint32_t eflags, cr0, cr3, cr4, efer;
    uint32_t cs, ds, es, fs, gs, ss;
    uint16_t gdt_limit;
    uint32_t gdt_base;
    uint16_t pad;
    uint16_t idt_limit;
    uint32_t idt_base;
} __attribute__((packed));
_Static_assert(sizeof(struct launch_regs) == 90, "launch_regs layout (entry.S)");

struct launch_regs launch_regs;
static uint32_t launches;               /* .bss: survives a launch (nothing clears it) */
static enum { AFTER_PCR, AFTER_TWICE, AFTER_S3 } after_launch;

static void vs_send(const char *s)
{
    while (*s)
        uart_putc(COM2, *s++);
}

/* the answer line: the requester spins (vs_wait_byte) until the host answers or replaces it */
static void vs_reply(char *buf, size_t max)
{
    size_t n = 0;

    for (;;) {
        int c = vs_wait_byte();

        if (c == '\n')
            break;
        if (n + 1 < max)
            buf[n++] = (char)c;
    }
    buf[n] = 0;
}

/* is there a UART at port? (scratch register; nothing there reads 0xff) */
static int uart_present(uint16_t port)
{
    outb(port + 7, 0x5a);
    if (inb(port + 7) != 0x5a)
        return 0;
    outb(port + 7, 0xa5);
    return inb(port + 7) == 0xa5;
}

static void hex8(char *out, uint32_t v)
{
    for (int i = 7; i >= 0; i--)
        *out++ = "0123456789abcdef"[(v >> (4 * i)) & 15];
}

static void lgdt(uint32_t base, uint16_t limit)
{
    struct { uint16_t limit; uint32_t base; } __attribute__((packed)) d = { limit, base };

    __asm__ volatile("lgdt %0" :: "m"(d));
}

static void lidt(uint32_t base, uint16_t limit)
{
    struct { uint16_t limit; uint32_t base; } __attribute__((packed)) d = { limit, base };

    __asm__ volatile("lidt %0" :: "m"(d));
}

/*
 * A launch request for the MLE at base with its header at hdr, sent in three pieces with
 * pauses (the host puts lines together). Interrupts off, an empty IDT, testk's GDT (unless
 * the caller changed them on purpose). Returns only if the host answered (a refusal); the
 * answer is printed as "TESTK: vsenter <what>: <answer>". A launch enters post_launch.
 */
/* The request line, in three pieces (the host must assemble lines) */
static void vs_send_request(uint32_t base, uint32_t hdr)
{
    char req[80] = VS_REQUEST_TEMPLATE;

    hex8(req + VS_REQUEST_BASE, base);
    hex8(req + VS_REQUEST_HDR, hdr);
    req[VS_REQUEST_HDR + 8] = 0;
    {
        char save = req[12];

        req[12] = 0;
        vs_send(req);
        delay(20000);
        req[12] = save;
        save = req[30];
        req[30] = 0;
        vs_send(req + 12);
        delay(20000);
        req[30] = save;
        vs_send(req + 30);
    }
    vs_send("\n");
}

static void vs_request(const char *what, uint32_t base, uint32_t hdr)
{
    char reply[256];

    vs_send_request(base, hdr);
    vs_reply(reply, sizeof(reply));
    print("TESTK: vsenter %s: %s\n", what, reply);
}

/* the launch of testk's own image */
/* After vssmp INITed the AP: on a loaded host its vCPU may not have taken the INIT yet when
 * the host looks, so a refusal is printed and the INIT sent again, this many times. */
static unsigned launch_init_retries;
static void ipi(uint32_t lo);

#define CF8_MARK 0x8000fb34u            /* 00:1f.3, register 0x34 */

static void vs_launch(void)
{
    char reply[256];

    print("TESTK: mle 0x%x+0x%x hdr 0x%x entry 0x%x\n", (uint32_t)__mle_start,
          (uint32_t)__mle_end_off, (uint32_t)&testk_mle_hdr,
          (uint32_t)__mle_start + (uint32_t)__mle_entry_off);
    for (;;) {
        lidt(0, 0);
        /* a CONFIG_ADDRESS of its own, as if between its write and the data access: the host's
         * configuration reads must leave it as it was */
        outl(0xcf8, CF8_MARK);
        vs_send_request((uint32_t)__mle_start, (uint32_t)&testk_mle_hdr);
        vs_reply(reply, sizeof(reply));
        if (launch_init_retries == 0)
            break;
        launch_init_retries--;
        print("TESTK: vsenter retry after INIT: %s\n", reply);
        ipi(0x000c4500);
        wait_rtc_seconds(2);
    }
    print("TESTK: vsenter launch: %s\n", reply);
    print("TESTK: CONFIG_ADDRESS after the answer: %x\n", inl(0xcf8));
}

void post_launch_c(void)
{
    const struct launch_regs *r = &launch_regs;

    launches++;
    print("\nTESTK: launched #%u: CONFIG_ADDRESS=%x\n", launches, inl(0xcf8));
    print("TESTK: launched #%u: eax=%x ebx=%x ecx=%x edx=%x esi=%x edi=%x ebp=%x esp=%x\n",
          launches, r->gpr[0], r->gpr[1], r->gpr[2], r->gpr[3], r->gpr[4], r->gpr[5],
          r->gpr[6], r->gpr[7]);
    print("TESTK: launched #%u: eflags=%x cr0=%x cr3=%x cr4=%x efer=%x\n", launches, r->eflags,
          r->cr0, r->cr3, r->cr4, r->efer);
    print("TESTK: launched #%u: cs=%4x ds=%4x es=%4x fs=%4x gs=%4x ss=%4x gdt=%x+%4x "
          "idt=%x+%4x\n", launches, r->cs, r->ds, r->es, r->fs, r->gs, r->ss, r->gdt_base,
          r->gdt_limit, r->idt_base, r->idt_limit);
    if (after_launch == AFTER_TWICE && launches < 2)
        vs_launch();
    if (after_launch == AFTER_S3)
        s3_sleep();
    print_pcrs("after");
    poweroff();
}

static void vs_garbage(void)
{
    static const char *bad[] = {
        "hello\n",
        "VSENTER 3 mle_base=0x00100000 mle_hdr=0x00100000\n",    /* protocol 3's line */
        "VSENTER 4 id=0x1 mle_base=0x00100000 mle_size=0x00001000\n",
        "VSENTER 4 id=0x2 mle_base=0x00100000 mle_hdr=0x1000 extra\n",
        "VSENTER 4 id=0x3 mle_base=0x001000000 mle_hdr=0x00100000\n",
        "VSENTER 4 id=0x4 mle_base=0x00100000 mle_hdr=0xffffffe0\n",
        "VSENTER 4 id=0x5 mle_base=0x00100000 mle_hdr=0x1ffffff0\n",
        "VSENTER 4 mle_base=0x00100000 mle_hdr=0x00100000\n",    /* no id */
    };
    char reply[256];

    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        vs_send(bad[i]);
        vs_reply(reply, sizeof(reply));
        print("TESTK: vsenter bad %u: %s\n", i, reply);
    }
    /* an over-long line: 300 bytes without a newline, then one */
    for (int i = 0; i < 300; i++)
        uart_putc(COM2, 'A');
    uart_putc(COM2, '\n');
    vs_reply(reply, sizeof(reply));
    print("TESTK: vsenter bad long: %s\n", reply);
    /* binary junk with NULs and CRs */
    for (int i = 0; i < 40; i++)
        uart_putc(COM2, (char)(i * 37));
    uart_putc(COM2, '\n');
    vs_reply(reply, sizeof(reply));
    print("TESTK: vsenter bad binary: %s\n", reply);
}

/* A guest that talks and never listens: newlines and junk lines on the VSENTER UART (its
 * answers pile up unread) and console lines on COM1, for ever. The VSENTER UART gets a byte
 * only when its transmitter is free, so that COM1 keeps flooding once the host stops taking
 * COM2's bytes. */
static void flood(void)
{
    static const char junk[] = "\nVSENTER junk\n\n\x01\x02garbage \r\n";
    uint32_t n = 0, k = 0;

    print("TESTK: flooding\n");
    for (;;) {
        for (int i = 0; i < 64; i++) {
            if (inb(COM2 + 5) & 0x20)
                outb(COM2, (uint8_t)junk[k++ % (sizeof(junk) - 1)]);
        }
        print("TESTK: flood %u 0123456789abcdefghijklmnopqrstuvwxyz\n", n++);
    }
}

/* headers the host must refuse: copies of testk's, one field wrong, in a fake 8 KiB MLE */
static uint8_t fake[0x3000] __attribute__((aligned(4096)));

static struct mle_hdr *fake_hdr(void)
{
    struct mle_hdr *h = (struct mle_hdr *)fake;

    memset(fake, 0, sizeof(fake));
    memcpy(h, &testk_mle_hdr, sizeof(*h));
    h->mle_end_off = 0x2000;
    h->entry_point = 0x100;
    return h;
}

static void vs_bad_headers(void)
{
    uint32_t f = (uint32_t)fake;
    struct mle_hdr *h;

    lidt(0, 0);
    memset(fake, 0, sizeof(fake));
    vs_request("no header", f, f);
    fake_hdr()->uuid[15] ^= 1;
    vs_request("bad uuid", f, f);
    fake_hdr()->length = 0x30;
    vs_request("bad length", f, f);
    fake_hdr()->version = 0x00020000;
    vs_request("bad version", f, f);
    fake_hdr()->first_valid_page = 1;
    vs_request("first page", f, f);
    h = fake_hdr();
    h->mle_start_off = 0x2000;
    vs_request("empty range", f, f);
    fake_hdr()->mle_end_off = 0x1000001;
    vs_request("too big", f, f);
    /* 0x20000 bytes from 0x1fff0000 end past 512 MiB of RAM */
    fake_hdr()->mle_end_off = 0x20000;
    vs_request("out of ram", 0x1fff0000u, f);
    h = fake_hdr();
    h->mle_start_off = 0x10;
    vs_request("unaligned start", f, f);
    h = fake_hdr();
    h->mle_start_off = 0x1000;
    h->entry_point = 0;
    vs_request("header outside", f, f);
    memcpy(fake + 0x1008, &testk_mle_hdr, sizeof(*h));
    h = (struct mle_hdr *)(fake + 0x1008);
    h->mle_end_off = 0x2000;
    vs_request("header unaligned", f, f + 0x1008);
    fake_hdr()->entry_point = 0x2000;
    vs_request("entry outside", f, f);
    h = fake_hdr();
    h->cmdline_start_off = 0x1f00;
    h->cmdline_end_off = 0x2001;
    vs_request("cmdline outside", f, f);
    h = fake_hdr();
    h->cmdline_start_off = 0x1f00;
    h->cmdline_end_off = 0x1e00;
    vs_request("cmdline reversed", f, f);
    fake_hdr()->capabilities |= 1u << 11;
    vs_request("reserved caps", f, f);
    /* a valid header in a range without the GDT (testk's is outside the fake MLE) */
    fake_hdr();
    vs_request("gdt outside", f, f);
}

/* CPU states the host must refuse, each undone after the answer */
static uint32_t pd[1024] __attribute__((aligned(4096)));
static uint8_t gdt_copy[32] __attribute__((aligned(16)));

static void vs_bad_states(void)
{
    uint32_t base = (uint32_t)__mle_start, hdr = (uint32_t)&testk_mle_hdr;

    lidt(0, 0);
    /* interrupts on: every PIC line masked first, so that none arrives on the empty IDT */
    outb(0x21, 0xff);
    outb(0xa1, 0xff);
    __asm__ volatile("sti");
    vs_request("interrupts on", base, hdr);
    __asm__ volatile("cli");
    /* an IDT (any non-zero limit) */
    lidt(0, 0x7ff);
    vs_request("idt", base, hdr);
    lidt(0, 0);
    /* paging on, identity-mapped with 4 MiB pages */
    for (uint32_t i = 0; i < 1024; i++)
        pd[i] = i << 22 | 0x83;                 /* present, writable, 4 MiB */
    __asm__ volatile("mov %0, %%cr3\n\tmov %%cr4, %%eax\n\tor $0x10, %%eax\n\tmov %%eax, %%cr4\n\t"
                     "mov %%cr0, %%eax\n\tor $0x80000000, %%eax\n\tmov %%eax, %%cr0"
                     :: "r"((uint32_t)pd) : "eax", "memory");
    vs_request("paging", base, hdr);
    __asm__ volatile("mov %%cr0, %%eax\n\tand $0x7fffffff, %%eax\n\tmov %%eax, %%cr0\n\t"
                     "mov %%cr4, %%eax\n\tand $~0x10, %%eax\n\tmov %%eax, %%cr4"
                     ::: "eax", "memory");
    /* the same GDT, but outside the measured image */
    memcpy(gdt_copy, testk_gdt, sizeof(gdt_copy));
    lgdt((uint32_t)gdt_copy, 31);
    vs_request("gdt copy", base, hdr);
    /* a GDT without entry 0x18 */
    lgdt((uint32_t)testk_gdt, 0x17);
    vs_request("gdt short", base, hdr);
    lgdt((uint32_t)testk_gdt, 31);
}

/* ---- a second CPU (--smp 2): INIT-SIPI-SIPI through the local APIC ---- */
#define LAPIC 0xfee00000u
#define AP_CODE 0x7000u                 /* real-mode code for the AP (below 1 MiB) */
#define AP_FLAG 0x7ff0u

static void ipi(uint32_t lo)
{
    mw32(LAPIC + 0x310, 0);
    mw32(LAPIC + 0x300, lo);            /* destination shorthand: all excluding self */
    while (mr32(LAPIC + 0x300) & (1u << 12))
        ;
}

/* INIT-SIPI-SIPI to the other CPUs: they start in real mode at AP_CODE */
static void ap_init_sipi_sipi(void)
{
    ipi(0x000c4500);                    /* INIT */
    delay(1000);
    ipi(0x000c4600 | AP_CODE >> 12);    /* SIPI */
    delay(200);
    ipi(0x000c4600 | AP_CODE >> 12);
}

/* the AP runs code (real mode, at AP_CODE), which sets AP_FLAG first */
static void ap_start(const uint8_t *code, uint32_t n)
{
    memcpy((void *)AP_CODE, code, n);
    mw8(AP_FLAG, 0);
    ap_init_sipi_sipi();
    /* up to 10 s of the RTC, not a count of loops: QEMU runs the vCPUs in turn on one thread
     * (vtboot-qemu's thread=single), switching at its 100 ms kicks, so the AP gets its turn only
     * after time passes; on an idle host 5 * 10^7 loops ran out first, the launch was asked
     * for with the AP still waiting for its SIPI, and granted */
    wait_rtc_seconds_for(10, (const volatile uint8_t *)AP_FLAG);
    print("TESTK: ap started: flag=%2x\n", mr8(AP_FLAG));
}

static void vs_smp(void)
{
    /* cli; movb $1, (AP_FLAG); 1: jmp 1b */
    static const uint8_t spin[] = { 0xfa, 0xc6, 0x06, AP_FLAG & 0xff, AP_FLAG >> 8, 1, 0xeb, 0xfe };
    /* movb $2, (AP_FLAG); sti; 1: hlt; jmp 1b */
    static const uint8_t halt_if[] = { 0xc6, 0x06, AP_FLAG & 0xff, AP_FLAG >> 8, 2, 0xfb, 0xf4,
                                       0xeb, 0xfd };
    uint32_t base = (uint32_t)__mle_start, hdr = (uint32_t)&testk_mle_hdr;

    lidt(0, 0);
    ap_start(spin, sizeof(spin));
    vs_request("ap spinning", base, hdr);
    ap_start(halt_if, sizeof(halt_if));
    vs_request("ap halted with interrupts on", base, hdr);
    /* QEMU 7.2 (TCG) does not wake a halted CPU for an INIT (x86_cpu_has_work() leaves
     * CPU_INTERRUPT_INIT out): the INIT waits for the SIPIs. So the AP spins again first,
     * and the INIT then reaches a running CPU */
    ap_start(spin, sizeof(spin));
    ipi(0x000c4500);                    /* INIT: the AP waits for a SIPI */
    wait_rtc_seconds(2);                /* the AP's turn comes (ap_start says why by time) */
    print("TESTK: ap in wait-for-SIPI\n");
    launch_init_retries = 5;
}

/*
 * ---- the platform's event sources (vsenter.h 1a) ----
 * Before any request testk quiesces as vtboot's pre-launch code does: the 8259s masked, its
 * local APIC's LVTs masked and the timer stopped (the APs' were reset by their INIT), every I/O APIC entry
 * masked, bus mastering, MSI and MSI-X off on every PCI function, DR7 clear. vsarm then arms
 * one source again (arm=...) and asks: the host must refuse, naming it.
 */
#define LAPIC_LVT_TIMER 0x320u
#define LAPIC_LVT_LINT0 0x350u
#define LAPIC_LVT_LINT1 0x360u
#define LAPIC_LVT_ERROR 0x370u
#define LAPIC_TIMER_ICR 0x380u
#define LVT_MASKED 0x10000u
#define IOAPIC 0xfec00000u
#define IOAPIC_PINS 24u
#define PCI_COMMAND_MASTER 0x4u

static void ioapic_write(uint32_t reg, uint32_t v)
{
    mw32(IOAPIC, reg);
    mw32(IOAPIC + 0x10, v);
}

/* the dword at reg of the first capability with this id, or 0 */
static uint32_t pci_find_cap(uint32_t bus, uint32_t dev, uint32_t fn, uint32_t id)
{
    uint32_t ptr;

    if (!(pci_read(bus, dev, fn, 0x04) & (1u << 20)))
        return 0;
    ptr = pci_read(bus, dev, fn, 0x34) & 0xfc;
    for (int i = 0; i < 48 && ptr; i++) {
        uint32_t v = pci_read(bus, dev, fn, ptr);

        if ((v & 0xff) == id)
            return ptr;
        ptr = (v >> 8) & 0xfc;
    }
    return 0;
}

/* bus mastering, MSI and MSI-X off on one function (status bits are write-1-to-clear: 0s) */
static void pci_quiesce_fn(uint32_t bus, uint32_t dev, uint32_t fn)
{
    uint32_t msi = pci_find_cap(bus, dev, fn, 0x05), msix = pci_find_cap(bus, dev, fn, 0x11);

    pci_write(bus, dev, fn, 0x04, pci_read(bus, dev, fn, 0x04) & 0xffffu & ~PCI_COMMAND_MASTER);
    if (msi)
        pci_write(bus, dev, fn, msi, pci_read(bus, dev, fn, msi) & ~(1u << 16));
    if (msix)
        pci_write(bus, dev, fn, msix, pci_read(bus, dev, fn, msix) & ~(1u << 31));
}

static void quiesce(void)
{
    static const uint32_t lvts[] = { 0x320, 0x330, 0x340, 0x350, 0x360, 0x370 };

    /* the 8259s first, while LINT0 still takes their output: QEMU clears the CPU's pending
     * ExtINT request only when the line drops through an unmasked LINT0, and a stale one
     * would be taken at the next sti (vsbadstate's) through the empty IDT */
    outb(0x21, 0xff);
    outb(0xa1, 0xff);
    for (unsigned i = 0; i < sizeof(lvts) / sizeof(lvts[0]); i++)
        mw32(LAPIC + lvts[i], mr32(LAPIC + lvts[i]) | LVT_MASKED);
    mw32(LAPIC + LAPIC_TIMER_ICR, 0);
    for (uint32_t pin = 0; pin < IOAPIC_PINS; pin++)
        ioapic_write(0x10 + 2 * pin, LVT_MASKED);
    /* every bus number: testk needs no bridge walk (QEMU answers absent ones with ~0) */
    for (uint32_t bus = 0; bus < 256; bus++)
        for (uint32_t dev = 0; dev < 32; dev++)
            for (uint32_t fn = 0; fn < 8; fn++) {
                uint32_t hdr;

                if ((pci_read(bus, dev, fn, 0) & 0xffff) == 0xffff) {
                    if (fn == 0)
                        break;
                    continue;
                }
                pci_quiesce_fn(bus, dev, fn);
                hdr = pci_read(bus, dev, fn, 0x0c);
                if (fn == 0 && !(hdr & (1u << 23)))
                    break;
            }
    __asm__ volatile("mov %0, %%dr7" :: "r"(0x400u));
}

/* the first function on bus 0 with capability id (testk's machines have no bridges) */
static int pci_first_with_cap(uint32_t id, uint32_t *dev, uint32_t *fn, uint32_t *cap)
{
    for (*dev = 0; *dev < 32; (*dev)++)
        for (*fn = 0; *fn < 8; (*fn)++)
            if ((pci_read(0, *dev, *fn, 0) & 0xffff) != 0xffff &&
                (*cap = pci_find_cap(0, *dev, *fn, id)))
                return 1;
    return 0;
}

/* what arm= names, armed again after quiesce(); printed as "TESTK: armed <what>" */
static void arm(const char *what)
{
    uint32_t dev, fn, cap;

    if (!strcmp(what, "lint1-nmi")) {
        mw32(LAPIC + LAPIC_LVT_LINT1, 0x400);           /* NMI, not masked */
    } else if (!strcmp(what, "lint0-extint")) {
        mw32(LAPIC + LAPIC_LVT_LINT0, 0x700);           /* allowed: the 8259's path */
    } else if (!strcmp(what, "timer-smi")) {
        mw32(LAPIC + LAPIC_LVT_TIMER, 0x200);           /* SMI, not masked, count 0 */
    } else if (!strcmp(what, "error-fixed")) {
        mw32(LAPIC + LAPIC_LVT_ERROR, 0x0fe);           /* allowed: Fixed vector 0xfe */
    } else if (!strcmp(what, "ioapic-nmi")) {
        ioapic_write(0x10 + 2 * 7, 0x400);              /* pin 7 (nothing there): NMI */
    } else if (!strcmp(what, "ioapic-lowest")) {
        ioapic_write(0x10 + 2 * 9, 0x1ec);              /* allowed: pin 9 lowest-priority */
    } else if (!strcmp(what, "pci-bme")) {
        pci_write(0, 0x1f, 2, 0x04, (pci_read(0, 0x1f, 2, 0x04) & 0xffff) | PCI_COMMAND_MASTER);
    } else if (!strcmp(what, "pci-msi") && pci_first_with_cap(0x05, &dev, &fn, &cap)) {
        pci_write(0, dev, fn, cap, pci_read(0, dev, fn, cap) | 1u << 16);
    } else if (!strcmp(what, "pci-bme-bus1")) {
        /* 01:03.0, behind a pci-bridge on bus 0 (the test's -device arguments) */
        pci_write(1, 3, 0, 0x04, (pci_read(1, 3, 0, 0x04) & 0xffff) | PCI_COMMAND_MASTER);
    } else if (!strcmp(what, "pci-msix") && pci_first_with_cap(0x11, &dev, &fn, &cap)) {
        pci_write(0, dev, fn, cap, pci_read(0, dev, fn, cap) | 1u << 31);
    } else if (!strcmp(what, "dr7")) {
        __asm__ volatile("mov %0, %%dr0\n\tmov %1, %%dr7"
                         :: "r"((uint32_t)post_launch), "r"(0x401u));   /* L0: execute */
    } else {
        print("TESTK: nothing armed: '%s'\n", what);
        return;
    }
    print("TESTK: armed %s\n", what);
}

/* The request from CPU 1 (ap_request16 in entry.S, real mode) while CPU 0 halts with
 * interrupts off: CPU 1 prints the answer on COM1 and powers the machine off. */
extern const uint8_t ap_request16[], ap_request16_end[];

static void vs_from_ap(void)
{
    uint32_t n = (uint32_t)(ap_request16_end - ap_request16);
    char *line = (char *)(AP_CODE + n);

    memcpy((void *)AP_CODE, ap_request16, n);
    memcpy(line, VS_REQUEST_TEMPLATE, sizeof(VS_REQUEST_TEMPLATE));
    hex8(line + VS_REQUEST_BASE, (uint32_t)__mle_start);
    hex8(line + VS_REQUEST_HDR, (uint32_t)&testk_mle_hdr);
    _Static_assert(AP_FLAG - AP_CODE == 0xff0, "AP_FLAG_OFF in entry.S");
    print("TESTK: request from CPU 1\n");
    mw8(AP_FLAG, 0);
    ap_init_sipi_sipi();
    mw8(AP_FLAG, 1);                    /* CPU 1 asks now: this CPU is halted before the host looks */
    for (;;)
        __asm__ volatile("cli; hlt");
}

/* 16 MiB at 16 MiB: a header, a GDT and a jump to post_launch at its start, zeros after */
#define BIG_BASE 0x01000000u

static void vs_big(void)
{
    struct mle_hdr *h = (struct mle_hdr *)BIG_BASE;
    uint8_t *stub = (uint8_t *)(BIG_BASE + 0x80);
    uint32_t target = (uint32_t)post_launch;

    memcpy(h, &testk_mle_hdr, sizeof(*h));
    h->mle_end_off = VSENTER_MLE_MAX;
    h->entry_point = 0x80;
    memcpy((void *)(BIG_BASE + 0x40), testk_gdt, 32);
    stub[0] = 0xea;                     /* ljmp $0x10, $post_launch */
    memcpy(stub + 1, &target, 4);
    stub[5] = VSENTER_SEL_CODE;
    stub[6] = 0;
    lgdt(BIG_BASE + 0x40, 31);
    lidt(0, 0);
    print("TESTK: big mle 0x%x+0x%x entry 0x%x\n", BIG_BASE, VSENTER_MLE_MAX, BIG_BASE + 0x80);
    vs_request("big", BIG_BASE, BIG_BASE);
}

/* ---- S3 ---- */
#define WAKE_ADDR 0x8000u               /* keep in sync with entry.S */
#define S3_BOX 0x00500000u              /* 5 MiB: RAM outside the ELF, kept across S3 */
#define S3_MAGIC 0x33534b54u            /* "TKS3" */
#define S3_PATTERN_OFF 0x1000u          /* 4 KiB pattern the host reads over gdb */
#define S3_NSUM (256 + 512)             /* pages: the first MiB, the top 2 MiB of RAM */

#define S3F_PCR 1u
#define S3F_TPMSHUTDOWN 2u
#define S3F_SUMS 4u
#define S3F_HANG 8u
#define S3F_PMFIX 16u

struct s3box {
    uint32_t magic, want, done, flags;
    uint32_t pm1a_cnt, slp_typ;
    uint32_t mark;                      /* 0x11111111; the host may change it */
    uint32_t ram_top;                   /* end of RAM: mem_upper's end, rounded up to 2 MiB */
    uint32_t lpc[3];                    /* ICH9 LPC PMBASE, ACPI_CNTL, RCBA at the start */
    uint32_t sums[S3_NSUM];
};

extern const uint8_t wake16[], wake16_end[];
void kresume(void);

static struct s3box *const box = (struct s3box *)S3_BOX;

static int sig_is(uint32_t a, const char *sig)
{
    return !memcmp((const void *)a, sig, 4);
}

/* the FADT from the RSDP in the BIOS area (SeaBIOS: the F segment) and the RSDT */
static uint32_t find_fadt(void)
{
    for (uint32_t p = 0xe0000; p < 0x100000; p += 16) {
        if (memcmp((const void *)p, "RSD PTR ", 8))
            continue;
        uint32_t rsdt = mr32(p + 16), len = mr32(rsdt + 4);

        if (!sig_is(rsdt, "RSDT"))
            return 0;
        for (uint32_t e = rsdt + 36; e + 4 <= rsdt + len; e += 4)
            if (sig_is(mr32(e), "FACP"))
                return mr32(e);
        return 0;
    }
    return 0;
}

/* SLP_TYP of \_S3 in the DSDT (Name(_S3_, Package(){ n, ... })); -1 if there is none */
static int dsdt_s3(uint32_t dsdt)
{
    uint32_t len = mr32(dsdt + 4);

    for (uint32_t p = dsdt + 36; p + 9 < dsdt + len; p++) {
        if (mr8(p) != 0x08 || memcmp((const void *)(p + 1), "_S3_", 4) || mr8(p + 5) != 0x12)
            continue;
        uint32_t v = p + 8;                     /* past PkgLength (1 byte) and NumElements */

        if (mr8(p + 6) & 0xc0)
            v += mr8(p + 6) >> 6;
        if (mr8(v) == 0x0a)
            return mr8(v + 1);
        if (mr8(v) == 0x00 || mr8(v) == 0x01)
            return mr8(v);
        return -1;
    }
    return -1;
}

static uint32_t page_sum(uint32_t a)
{
    uint32_t s = 0;

    for (uint32_t i = 0; i < 4096; i += 4)
        s = (s << 1 | s >> 31) ^ mr32(a + i);
    return s;
}

static uint32_t sum_page_addr(int i)
{
    return i < 256 ? (uint32_t)i << 12 : box->ram_top - 0x200000 + ((uint32_t)(i - 256) << 12);
}

static uint32_t pattern_sum(void)
{
    uint32_t s = 0;

    for (uint32_t i = 0; i < 4096; i++)
        s = s * 31 + mr8(S3_BOX + S3_PATTERN_OFF + i);
    return s;
}

static void s3_sleep(void) __attribute__((noreturn));

static void s3_sleep(void)
{
    uint32_t fadt = find_fadt(), facs;

    if (!fadt) {
        print("TESTK: s3: no FADT\n");
        poweroff();
    }
    facs = mr32(fadt + 36);
    if (!sig_is(facs, "FACS")) {
        print("TESTK: s3: no FACS\n");
        poweroff();
    }
    if (box->flags & S3F_TPMSHUTDOWN) {
        static const uint8_t cmd[] = { 0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x45, 0, 1 };
        uint8_t rsp[32];
        int n = tpm_xfer(cmd, sizeof(cmd), rsp, sizeof(rsp));

        print("TESTK: s3: TPM2_Shutdown(STATE): %s0x%x\n", n >= 10 ? "" : "no TPM ",
              n >= 10 ? be32(rsp + 6) : 0);
    }
    memcpy((void *)WAKE_ADDR, wake16, (size_t)(wake16_end - wake16));
    mw32(facs + 12, WAKE_ADDR);                 /* firmware_waking_vector */
    if (mr32(facs + 4) >= 32)
        mw32(facs + 24, 0), mw32(facs + 28, 0); /* no X_firmware_waking_vector */
    if (box->flags & S3F_SUMS)
        for (int i = 0; i < S3_NSUM; i++)
            box->sums[i] = page_sum(sum_page_addr(i));
    print("TESTK: s3: sleeping (#%u) mark=%x pattern=%x pm1a_cnt=0x%x slp_typ=%u "
          "facs=0x%x vector=0x%x\n", box->done + 1, box->mark, pattern_sum(), box->pm1a_cnt,
          box->slp_typ, facs, WAKE_ADDR);
    __asm__ volatile("cli");
    outw((uint16_t)box->pm1a_cnt, (uint16_t)(box->slp_typ << 10 | 0x2000));
    for (unsigned i = 0; i < 1000000u; i++)
        inb(0x80);
    print("TESTK: s3: still running after the PM1a_CNT write\n");
    poweroff();
}

static void s3_start(const char *cmdline, uint32_t magic, uint32_t info)
{
    char n[16];
    uint32_t fadt = find_fadt();
    int typ;

    memset(box, 0, sizeof(*box));
    box->magic = S3_MAGIC;
    box->want = 1;
    if (get_arg(cmdline, "s3", n, sizeof(n))) {
        box->want = 0;
        for (const char *p = n; *p >= '0' && *p <= '9'; p++)
            box->want = box->want * 10 + (uint32_t)(*p - '0');
    }
    box->flags = (has_word(cmdline, "pcr") ? S3F_PCR : 0) |
                 (has_word(cmdline, "tpmshutdown") ? S3F_TPMSHUTDOWN : 0) |
                 (has_word(cmdline, "sums") ? S3F_SUMS : 0) |
                 (has_word(cmdline, "s3hang") ? S3F_HANG : 0) |
                 (has_word(cmdline, "pmfix") ? S3F_PMFIX : 0);
    box->lpc[0] = pci_read(0, 0x1f, 0, 0x40);
    box->lpc[1] = pci_read(0, 0x1f, 0, 0x44);
    box->lpc[2] = pci_read(0, 0x1f, 0, 0xf0);
    box->mark = 0x11111111;
    box->ram_top = 0x100000;
    if (magic == MB1_BOOTLOADER_MAGIC && (mr32(info) & 1))
        box->ram_top = (0x100000 + (mr32(info + 8) << 10) + 0x1fffff) & ~0x1fffffu;
    for (uint32_t i = 0; i < 4096; i++)
        mw8(S3_BOX + S3_PATTERN_OFF + i, (uint8_t)(i * 7 + 3));
    if (!fadt) {
        print("TESTK: s3: no FADT\n");
        poweroff();
    }
    box->pm1a_cnt = mr32(fadt + 64);
    typ = dsdt_s3(mr32(fadt + 40));
    print("TESTK: s3: FADT at 0x%x, PM1a_CNT 0x%x, DSDT _S3 %s%u, ram_top 0x%x\n", fadt,
          box->pm1a_cnt, typ < 0 ? "missing, using " : "", typ < 0 ? 1 : (uint32_t)typ,
          box->ram_top);
    box->slp_typ = typ < 0 ? 1 : (uint32_t)typ;
    pm_base_pci(1);
    if (has_word(cmdline, "vsenter") && uart_present(COM2)) {
        after_launch = AFTER_S3;
        quiesce();
        vs_launch();                    /* returns only if refused */
    }
    s3_sleep();
}

/* entered from wake32 (entry.S) on every wake-up: the ELF is fresh, .bss zero */
void kresume(void)
{
    print("\nTESTK: s3: resumed\n");
    if (box->magic != S3_MAGIC) {
        print("TESTK: s3: mailbox lost (magic 0x%x)\n", box->magic);
        poweroff();
    }
    box->done++;
    print("TESTK: s3: woke up (#%u of %u) mark=%x pattern=%x first=%2x%2x%2x%2x%2x%2x%2x%2x\n",
          box->done, box->want, box->mark, pattern_sum(),
          mr8(S3_BOX + S3_PATTERN_OFF), mr8(S3_BOX + S3_PATTERN_OFF + 1),
          mr8(S3_BOX + S3_PATTERN_OFF + 2), mr8(S3_BOX + S3_PATTERN_OFF + 3),
          mr8(S3_BOX + S3_PATTERN_OFF + 4), mr8(S3_BOX + S3_PATTERN_OFF + 5),
          mr8(S3_BOX + S3_PATTERN_OFF + 6), mr8(S3_BOX + S3_PATTERN_OFF + 7));
    if (box->flags & S3F_SUMS) {
        int changed = 0;

        for (int i = 0; i < S3_NSUM; i++)
            if (page_sum(sum_page_addr(i)) != box->sums[i]) {
                print("TESTK: s3: page 0x%x changed\n", sum_page_addr(i));
                changed++;
            }
        print("TESTK: s3: %u pages changed\n", (uint32_t)changed);
    }
    pm_base_pci(1);
    if ((box->flags & S3F_PMFIX) && pci_read(0, 0x1f, 0, 0) == 0x29188086) {
        /* what SeaBIOS programs at POST (ich9_lpc_pm_setup) and not on resume */
        pci_write(0, 0x1f, 0, 0x40, box->lpc[0]);
        pci_write(0, 0x1f, 0, 0x44, box->lpc[1]);
        pci_write(0, 0x1f, 0, 0xf0, box->lpc[2]);
        print("TESTK: s3: ich9-lpc PMBASE, ACPI_CNTL, RCBA restored\n");
        pm_base_pci(1);
    }
    if (box->flags & S3F_PCR)
        print_pcrs("resume");
    if (box->flags & S3F_HANG) {
        print("TESTK: s3: hanging\n");
        for (;;)
            __asm__ volatile("cli; hlt");
    }
    if (box->done < box->want)
        s3_sleep();
    poweroff();
}

/* ---- multiboot info ---- */
static const char *show_boot_info(uint32_t magic, uint32_t info)
{
    const char *cmdline = "";

    if (magic == MB1_BOOTLOADER_MAGIC) {
        const uint32_t *mbi = (const uint32_t *)info;

        print("TESTK: loader=multiboot1\n");
        if (mbi[0] & MB1_INFO_CMDLINE)
            cmdline = (const char *)mbi[4];
        print("TESTK: cmdline=[%s]\n", cmdline);
        if (mbi[0] & MB1_INFO_MODS) {
            const uint32_t *mod = (const uint32_t *)mbi[6];

            for (uint32_t i = 0; i < mbi[5]; i++, mod += 4)
                print("TESTK: module %u=[%s] size=%u\n", i, (const char *)mod[2],
                      mod[1] - mod[0]);
        }
    } else if (magic == MB2_BOOTLOADER_MAGIC) {
        uint32_t total = *(const uint32_t *)info, off = 8, nmod = 0;

        print("TESTK: loader=multiboot2\n");
        while (off + 8 <= total) {
            const uint32_t *tag = (const uint32_t *)(info + off);

            if (tag[0] == MB2_TAG_END)
                break;
            if (tag[0] == MB2_TAG_CMDLINE) {
                cmdline = (const char *)&tag[2];
                print("TESTK: cmdline=[%s]\n", cmdline);
            } else if (tag[0] == MB2_TAG_MODULE) {
                print("TESTK: module %u=[%s] size=%u\n", nmod++, (const char *)&tag[4],
                      tag[3] - tag[2]);
            }
            off += (tag[1] + 7) & ~7u;
        }
    } else {
        print("TESTK: unknown boot magic 0x%x\n", magic);
    }
    return cmdline;
}

void kmain(uint32_t magic, uint32_t info)
{
    const char *cmdline;
    char action[32] = "poweroff";

    print("TESTK: hello\n");
    cmdline = show_boot_info(magic, info);
    get_arg(cmdline, "action", action, sizeof(action));
    print("TESTK: action=%s\n", action);
    if (has_word(cmdline, "pcr"))
        print_pcrs("before");
    if (has_word(cmdline, "nv"))
        print_nv();
#define IS(s) (!strcmp(action, s))
    if (IS("reset"))
        reset();
    if (IS("triple")) {
        print("TESTK: triple fault\n");
        triple_fault();
    }
    if (IS("panic")) {
        print("TESTK: panic\n");
        outb(0x505, 1);         /* pvpanic: guest panicked */
        for (;;)
            __asm__ volatile("cli; hlt");
    }
    if (IS("hang")) {
        print("TESTK: hanging\n");
        for (;;)
            __asm__ volatile("cli; hlt");
    }
    if (IS("s3"))
        s3_start(cmdline, magic, info);
    if (IS("flood"))
        flood();
    if (action[0] == 'v' && action[1] == 's') {
        if (!uart_present(COM2)) {
            print("TESTK: no VSENTER UART\n");
            poweroff();
        }
        quiesce();
        if (IS("vsarm")) {
            char what[32] = "";

            get_arg(cmdline, "arm", what, sizeof(what));
            arm(what);
        }
        if (IS("vsap"))
            vs_from_ap();
        if (IS("vsgarbage"))
            vs_garbage();
        if (IS("vsbadhdr"))
            vs_bad_headers();
        if (IS("vsbadstate"))
            vs_bad_states();
        if (IS("vssmp"))
            vs_smp();
        if (IS("vstwice"))
            after_launch = AFTER_TWICE;
        if (IS("vswait")) {
            /* time for the test to do something to the host (kill swtpm) */
            print("TESTK: waiting\n");
            wait_rtc_seconds(3);
            print("TESTK: waited\n");
        }
        if (IS("vsbig"))
            vs_big();
        else
            vs_launch();
        /* refused */
        print_pcrs("after");
    }
    poweroff();
}
