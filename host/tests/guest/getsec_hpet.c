/* SPDX-License-Identifier: MIT */
/*
 * getsec's probe of the HPET's FSB interrupt delivery on the emulated TXT platform (qemu/patches
 * 0010, docs/txt-platform.md "0010"; tests/qemu/test_txt_hpet.py). QEMU runs with
 * -machine q35,...,hpet=on and -global hpet.msi=on (QEMU's HPET offers FSB delivery only with
 * that property). Lines on COM1 are getsec's: "GETSEC: hpet-fsb: <what> = <value>".
 *
 *   case=hpet-fsb  timers 0 and 1's Tn_FSB_INT_DEL_CAP; then both one-shot in FSB mode (edge):
 *                  timer 0 (comparator 100000 ticks) with the FSB route at the RAM word
 *                  hpet_marker (0x11111111) and the value 0x50574e21 ("!NWP"), timer 1 (200000)
 *                  at the local APIC (0xfee00000, APIC ID 0, physical) with the value 0x41, a
 *                  fixed edge interrupt at vector 0x41, which this file's handler counts (its own
 *                  IDT, a copy of getsec's 32 exception gates plus that vector); once it ran
 *                  (10 s at most) and 10 ms more: the count and the RAM word
 */
#include "com1.h"
#include "getsec.h"

#include <stddef.h>
#include <stdint.h>

#define HPET 0xfed00000u
#define HPET_GEN_CONF 0x10
#define HPET_COUNTER 0xf0
#define HPET_T0_CONF 0x100
#define HPET_T0_CMP 0x108
#define HPET_T0_FSB 0x110
#define GEN_CONF_ENABLE 1u
#define TN_INT_ENB (1u << 2)
#define TN_FSB_EN (1u << 14)
#define TN_FSB_CAP (1u << 15)

#define LAPIC 0xfee00000u
#define LAPIC_TPR 0x80
#define LAPIC_EOI 0xb0
#define LAPIC_SVR 0xf0

#define VECTOR 0x41u
#define MARKER 0x11111111u
#define PWN 0x50574e21u
#define CMP_TICKS 100000u
#define RUN_TICKS 1000000u           /* 10 ms at the HPET's 10 ns period */
#define LIMIT_TICKS 1000000000u       /* 10 s: no interrupt by then is a failure */

volatile uint32_t hpet_marker = MARKER;     /* the RAM word the first FSB message aims at */
volatile uint32_t hpet_irqs;                /* vector 0x41's count */
void hpet_vector_stub(void);

__asm__(".text\n"
        ".globl hpet_vector_stub\n"
        "hpet_vector_stub:\n"
        "    lock incl hpet_irqs\n"
        "    movl $0, 0xfee000b0\n"         /* LAPIC EOI */
        "    iret\n");


struct gate {
    uint16_t off_lo, sel;
    uint8_t zero, type;
    uint16_t off_hi;
} __attribute__((packed));

struct dtr {
    uint16_t limit;
    uint32_t base;
} __attribute__((packed));

static struct gate idt[VECTOR + 1];

/* getsec's exception gates and vector 0x41 (handled above) */
static void idt_with_vector(void)
{
    struct dtr old, now;
    __asm__ volatile("sidt %0" : "=m"(old));
    const struct gate *g = (const struct gate *)old.base;
    for (unsigned i = 0; i < 32 && i * sizeof(*g) < (unsigned)old.limit + 1; i++)
        idt[i] = g[i];
    uint32_t h = (uint32_t)hpet_vector_stub;
    idt[VECTOR] = (struct gate){ .off_lo = (uint16_t)h, .sel = 0x08, .type = 0x8e,
                                 .off_hi = (uint16_t)(h >> 16) };
    now.limit = sizeof(idt) - 1;
    now.base = (uint32_t)idt;
    __asm__ volatile("lidt %0" :: "m"(now));
}


/* timer n: one-shot, FSB mode, FSB route (addr, value), comparator cmp */
static void arm(unsigned n, uint32_t addr, uint32_t value, uint32_t cmp)
{
    uint32_t t = HPET + 0x20u * n;
    wr32(t + HPET_T0_FSB, value);
    wr32(t + HPET_T0_FSB + 4, addr);
    wr32(t + HPET_T0_CMP, cmp);
    wr32(t + HPET_T0_CMP + 4, 0);
    wr32(t + HPET_T0_CONF, TN_INT_ENB | TN_FSB_EN);
}

void hpet_fsb(void)
{
    uint32_t conf0 = rd32(HPET + HPET_T0_CONF), conf1 = rd32(HPET + HPET_T0_CONF + 0x20);
    show("timer 0 Tn_FSB_INT_DEL_CAP", !!(conf0 & TN_FSB_CAP));
    show("timer 1 Tn_FSB_INT_DEL_CAP", !!(conf1 & TN_FSB_CAP));
    if (!(conf0 & conf1 & TN_FSB_CAP))
        return;

    uint32_t ram = (uint32_t)&hpet_marker;
    line("FSB to RAM ");
    put_hex(ram);
    put_str(": word before = ");
    put_hex(hpet_marker);
    put_str("\n");

    idt_with_vector();
    outb(0x21, 0xff);                   /* the 8259s masked: only the HPET's message comes */
    outb(0xa1, 0xff);
    wr32(LAPIC + LAPIC_TPR, 0);
    wr32(LAPIC + LAPIC_SVR, rd32(LAPIC + LAPIC_SVR) | 0x1ffu);   /* APIC software enabled */

    /*
     * Timer 0 at the RAM word, timer 1 (later) at the APIC: QEMU runs expired timers in
     * deadline order, so once vector 0x41 ran, timer 0's message has been delivered or dropped.
     */
    wr32(HPET + HPET_GEN_CONF, 0);
    wr32(HPET + HPET_COUNTER, 0);
    wr32(HPET + HPET_COUNTER + 4, 0);
    arm(0, ram, PWN, CMP_TICKS);
    arm(1, LAPIC, VECTOR, 2 * CMP_TICKS);
    __asm__ volatile("sti");
    wr32(HPET + HPET_GEN_CONF, GEN_CONF_ENABLE);
    while (!hpet_irqs && rd32(HPET + HPET_COUNTER) < LIMIT_TICKS)
        __asm__ volatile("pause");
    /* a second message would come within RUN_TICKS: there must be none */
    uint32_t until = rd32(HPET + HPET_COUNTER) + RUN_TICKS;
    while (rd32(HPET + HPET_COUNTER) < until)
        __asm__ volatile("pause");
    __asm__ volatile("cli");
    wr32(HPET + HPET_GEN_CONF, 0);
    wr32(HPET + HPET_T0_CONF, 0);
    wr32(HPET + HPET_T0_CONF + 0x20, 0);

    show("FSB to 0xfee00000 vector 0x41: interrupts", hpet_irqs);
    line("FSB to RAM ");
    put_hex(ram);
    put_str(": word after = ");
    put_hex(hpet_marker);
    put_str("\n");
}
