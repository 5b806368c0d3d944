/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: `info registers -a` text into cpustate_parse(), then the launch decisions
 * on whatever parsed. Invariants (abort if broken): a launching CPU really is the only one not
 * halted, is CPU 0 and meets every precondition (DR7 arming nothing included); an accepted
 * GDT lies inside the range with flat entries; the entry check accepts nothing whose
 * registers differ from what it was told.
 */
#include "cpustate.h"
#include "abi/vsenter.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

static struct cpu_set s, t;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), err[256];
    static uint8_t mle[0x10000];
    struct vs_gdt g;
    int k;

    memcpy(text, data, size);
    text[size] = 0;
    if (cpustate_parse(text, &s, err, sizeof(err)) != 0) {
        check(err[0] != 0);
        free(text);
        return 0;
    }
    check(s.n >= 1 && s.n <= CPUSTATE_MAX);
    for (int i = 0; i < s.n; i++)
        check(s.cpu[i].index == i && s.cpu[i].cpl <= 3 && s.cpu[i].hlt <= 1 && s.cpu[i].a20 <= 1);
    k = cpustate_launch_cpu(&s, err, sizeof(err));
    if (k >= 0) {
        const struct cpu_state *c = &s.cpu[k];

        for (int i = 0; i < s.n; i++)
            check(i == k ? !s.cpu[i].hlt : s.cpu[i].hlt && !(s.cpu[i].eflags & EFL_IF));
        check(k == 0 && (c->cr0 & CR0_PE) && !(c->cr0 & CR0_PG) && !(c->efer & EFER_LMA) &&
              !(c->eflags & (EFL_VM | EFL_IF)) && !c->smm && !c->cpl && c->a20 &&
              !c->idt_limit && c->gdt_limit >= 0x1f && !(c->dr[7] & 0xff));
        /* a GDT from the input's own bytes, at an address derived from it */
        memset(mle, 0, sizeof(mle));
        memcpy(mle + 0x1000, data, size < 0x100 ? size : 0x100);
        if (cpustate_check_gdt(c, c->gdt_base & ~0xffffull, mle, sizeof(mle), &g, err,
                               sizeof(err)) == 0) {
            check(c->gdt_base + c->gdt_limit + 1 <= (c->gdt_base & ~0xffffull) + sizeof(mle));
            check((g.code | 1ull << 40) == 0x00cf9b000000ffffull);
            check((g.data | 1ull << 40) == 0x00cf93000000ffffull);
        }
        /* the state as the entry check's "after", with the expectation taken from it */
        {
            struct vs_entry e = { k, (uint32_t)c->rip, (uint32_t)c->gpr[R_AX],
                                  (uint32_t)c->gpr[R_BX], (uint32_t)c->gpr[R_CX],
                                  (uint32_t)c->gpr[R_DX], { 0x00cf9b000000ffffull, 0x00cf93000000ffffull },
                                  c->gdt_base, c->gdt_limit };

            t = s;
            if (cpustate_verify_entry(&s, &t, &e, err, sizeof(err)) == 0) {
                check(c->rip == e.eip && c->gpr[R_DX] == e.edx && !c->gpr[R_SP] && c->cr0 == 0x11 &&
                      !c->cr3 && !c->cr4 && !c->efer && c->seg[SEG_CS].sel == 0x10 &&
                      c->seg[SEG_CS].flags == 0x00cf9b00 && c->seg[SEG_SS].limit == 0xffffffffu);
                e.eip ^= 1;
                check(cpustate_verify_entry(&s, &t, &e, err, sizeof(err)) == -1);
            }
        }
    }
    free(text);
    return 0;
}
