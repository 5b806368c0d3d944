/* SPDX-License-Identifier: MIT */
/*
 * getsec's cases of the TXT reset, the scrub and the power cycle (qemu/patches 0011,
 * docs/txt-platform.md "0011"; tests/qemu/test_txt_reset.py). Each case runs over several
 * boots of one QEMU process (started without -no-reboot). CMOS byte 0x7e counts the boots:
 * nothing in RAM may survive a scrub, and ESTS tells only a TXT reset apart. The private-space
 * commands come from the echo ACM (the first multiboot module; only AC mode reaches a closed
 * private space), which makes the writes the guest lists (acmode_private_writes).
 *
 *   case=secrets-reset    boot 1: CMD.SECRETS, markers, CMD.RESET; boot 2: the TXT registers and
 *                         the markers (the scrub: zeros)
 *   case=nosecrets-reset  boot 1: CMD.SECRETS then CMD.NO-SECRETS, markers, CMD.RESET; boot 2: as
 *                         above (no scrub: the markers stay)
 *   case=secrets-cf9      boot 1: CMD.SECRETS, markers, a plain reset through 0xCF9 (0x06); boot 2:
 *                         as above (not a TXT reset, but a scrub)
 *   case=secrets-s3       boot 1: CMD.SECRETS, markers, S3 through PM1a_CNT; boot 2: as above
 *                         (the chipset refused to sleep: a wake error and a scrub)
 *   case=powercycle       boot 1: ERRORCODE as SINIT writes one, CMD.RESET; boot 2: the TXT
 *                         registers, CMD.SECRETS, markers, 0xCF9 = 0x0A then 0x0E (tboot's power
 *                         cycle, FULL_RST); boot 3: the TXT registers and the markers
 *   case=init-bsp         (tpm-tis) boot 1: SENTER with the echo ACM, CMD.SECRETS through the
 *                         private space it left open, markers, the warm-reset vector (CMOS
 *                         shutdown code 0x0A, 40:67) at a real-mode stub that reports on COM1,
 *                         an INIT to this CPU (the BSP); boot 2: PCR 17, the TXT registers and
 *                         the markers (the platform reset instead, and scrubbed)
 * A boot that ends in a reset prints nothing after it asked for one.
 */
#include "com1.h"
#include "getsec.h"
#include "abi/multiboot1.h"
#include "abi/txt.h"

#include <stdint.h>

#define CMOS_INDEX 0x70u
#define CMOS_DATA 0x71u
#define CMOS_BOOT 0x7eu                     /* the boot counter: a byte QEMU and SeaBIOS leave alone */

#define MARKER 0x5243534du                  /* "MSCR" */
#define MARKER_64M 0x04000000u
#define HEAP_MARKER 0x1000u                 /* a heap offset past BiosData */
#define SW_ERRORCODE 0xc0008001u            /* valid, software (SINIT/MLE) error: tboot's layout error */

/* q35's PM1a_CNT (SeaBIOS's PMBASE 0x600) and QEMU's S3 sleep type (its DSDT's \_S3) */
#define ACPI_PM1A_CNT 0x604u
#define ACPI_SLP_TYP_S3 (1u << 10)
#define ACPI_SLP_EN (1u << 13)

#define PUB(reg) (TXT_PUB_CONFIG_REGS_BASE + (reg))

static unsigned next_boot(void)
{
    outb(CMOS_INDEX, CMOS_BOOT);
    unsigned boot = inb(CMOS_DATA) + 1u;
    outb(CMOS_INDEX, CMOS_BOOT);
    outb(CMOS_DATA, (uint8_t)boot);
    line(boot == 1 ? "boot 1\n" : boot == 2 ? "boot 2\n" : boot == 3 ? "boot 3\n" : "boot >3\n");
    return boot;
}

/* three places a scrub must reach: the middle of RAM, the last dword of the RAM the loader
 * reports (multiboot's mem_upper: below it SeaBIOS's tables, then the TXT region) and the TXT
 * heap past BiosData */
static uint32_t marker_addr(unsigned i)
{
    switch (i) {
    case 0:
        return MARKER_64M;
    case 1:
        if (!(getsec_mbi->flags & MB1_INFO_MEMORY))
            put_str("GETSEC: FAILED: the loader reported no mem_upper\n");
        return 0x100000u + getsec_mbi->mem_upper * 1024u - 4;
    default:
        return (uint32_t)rd64(PUB(TXTCR_HEAP_BASE)) + HEAP_MARKER;
    }
}

static const char *const marker_names[] = {
    "marker at 64 MiB", "marker at the top of RAM", "marker in the heap",
};
#define MARKERS (sizeof(marker_names) / sizeof(marker_names[0]))

static void write_markers(void)
{
    for (unsigned i = 0; i < MARKERS; i++)
        wr32(marker_addr(i), MARKER);
}

static void show_platform(void)
{
    show("ESTS", rd32(PUB(TXTCR_ESTS)));
    show("ERRORCODE", rd32(PUB(TXTCR_ERRORCODE)));
    show("E2STS", rd32(PUB(TXTCR_E2STS)));
    for (unsigned i = 0; i < MARKERS; i++)
        show(marker_names[i], rd32(marker_addr(i)));
}

static __attribute__((noreturn)) void wait_for_reset(void)
{
    for (;;)
        __asm__ volatile("cli; hlt");
}

/* the ACM's write `first` (if any), then CMD.RESET: the platform resets before anything else
 * is printed */
static __attribute__((noreturn)) void txt_reset_after(const struct txt_priv_write *first)
{
    struct txt_priv_write cmds[2];
    unsigned n = 0;
    if (first)
        cmds[n++] = *first;
    cmds[n++] = (struct txt_priv_write){ TXTCR_CMD_RESET, 1 };
    line("CMD.RESET\n");
    acmode_private_writes(cmds, n);
    wait_for_reset();
}

/* the ACM's private writes w, then E2STS: 1, or 0 after the fault's line */
static int private_writes(const char *what, const struct txt_priv_write *w, unsigned n)
{
    if (!report(what, acmode_private_writes(w, n)))
        return 0;
    show("E2STS", rd32(PUB(TXTCR_E2STS)));
    return 1;
}

static const struct txt_priv_write cmd_secrets = { TXTCR_CMD_SECRETS, 1 };

/* boot 1: the ACM's writes w, the markers, then leave() ends the boot in a reset; boot 2 shows
 * what the platform kept */
static void two_boots(const char *what, const struct txt_priv_write *w, unsigned n,
                      void (*leave)(void))
{
    if (next_boot() > 1) {
        show_platform();
        return;
    }
    if (!private_writes(what, w, n))
        return;
    write_markers();
    leave();
}

static void leave_by_cmd_reset(void)
{
    txt_reset_after(NULL);
}

static void leave_by_cf9(void)
{
    line("reset through 0xCF9\n");
    outb(0xcf9, 0x02);
    outb(0xcf9, 0x06);                      /* hard reset, not FULL_RST */
    wait_for_reset();
}

static void leave_by_s3(void)
{
    line("S3 through PM1a_CNT\n");
    outw(ACPI_PM1A_CNT, ACPI_SLP_TYP_S3 | ACPI_SLP_EN);
    wait_for_reset();
}

void reset_secrets_txt_reset(void)
{
    two_boots("CMD.SECRETS", &cmd_secrets, 1, leave_by_cmd_reset);
}

void reset_nosecrets_txt_reset(void)
{
    static const struct txt_priv_write secrets_then_none[] = {
        { TXTCR_CMD_SECRETS, 1 }, { TXTCR_CMD_NO_SECRETS, 1 },
    };
    two_boots("CMD.SECRETS, CMD.NO-SECRETS", secrets_then_none, 2, leave_by_cmd_reset);
}

void reset_secrets_cf9(void)
{
    two_boots("CMD.SECRETS", &cmd_secrets, 1, leave_by_cf9);
}

void reset_secrets_s3(void)
{
    two_boots("CMD.SECRETS", &cmd_secrets, 1, leave_by_s3);
}

void reset_power_cycle(void)
{
    static const struct txt_priv_write errorcode = { TXTCR_ERRORCODE, SW_ERRORCODE };
    unsigned boot = next_boot();
    if (boot == 1)
        txt_reset_after(&errorcode);
    show_platform();
    if (boot > 2 || !private_writes("CMD.SECRETS", &cmd_secrets, 1))
        return;
    write_markers();
    line("power cycle through 0xCF9\n");
    outb(0xcf9, 0x0a);                      /* tboot's sequence when TXT_RESET.STS is set */
    outb(0xcf9, 0x0e);
    wait_for_reset();
}

/*
 * The warm-reset vector's code (real mode, copied to WARM_STUB = 0800:0000): the line it prints
 * tells that the BSP restarted into whatever the guest left at 40:67, with memory as it was.
 */
#define WARM_STUB 0x8000u
#define CMOS_SHUTDOWN 0x0fu
#define CMOS_SHUTDOWN_JMP_467 0x0au         /* jump through 40:67, no POST */
#define LAPIC_ICR_LO 0xfee00300u
#define LAPIC_ICR_HI 0xfee00310u
#define ICR_INIT 0x00004500u                /* INIT, level assert, physical destination */
extern const uint8_t warm_stub[], warm_stub_end[];
__asm__(
    "    .section .rodata\n"
    "    .code16\n"
    "warm_stub:\n"
    "    mov %cs, %ax\n"
    "    mov %ax, %ds\n"
    "    mov $(warm_msg - warm_stub), %si\n"
    "    mov $0x3f8, %dx\n"
    "1:  lodsb\n"
    "    test %al, %al\n"
    "    jz 2f\n"
    "    out %al, %dx\n"
    "    jmp 1b\n"
    "2:  cli\n"
    "    hlt\n"
    "    jmp 2b\n"
    "warm_msg:\n"
    "    .asciz \"GETSEC: init-bsp: the warm-reset vector ran\\n\"\n"
    "warm_stub_end:\n"
    "    .code32\n"
    "    .previous\n");

void reset_init_bsp(void)
{
    if (next_boot() > 1) {
        show("public STS", rd32(PUB(TXTCR_STS)));
        show_pcr17("PCR 17");
        show_platform();
        return;
    }
    if (!report("SENTER", acmode_senter()))
        return;
    wr32(TXT_PRIV_CONFIG_REGS_BASE + TXTCR_CMD_SECRETS, 1);
    show("E2STS", rd32(PUB(TXTCR_E2STS)));
    write_markers();
    for (const uint8_t *p = warm_stub; p < warm_stub_end; p++)
        *(volatile uint8_t *)(WARM_STUB + (uint32_t)(p - warm_stub)) = *p;
    /* 40:67 = offset 0, segment WARM_STUB >> 4 (an asm store: the compiler refuses a C
     * pointer this close to 0) */
    __asm__ volatile("movl %0, 0x467" :: "r"((WARM_STUB >> 4) << 16) : "memory");
    outb(CMOS_INDEX, CMOS_SHUTDOWN);
    outb(CMOS_DATA, CMOS_SHUTDOWN_JMP_467);
    line("INIT to the BSP\n");
    wr32(LAPIC_ICR_HI, 0);                  /* APIC ID 0: this CPU */
    wr32(LAPIC_ICR_LO, ICR_INIT);
    wait_for_reset();
}
