/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the platform's event sources (platstate.h). The first byte picks what the
 * rest is: `info lapic` text, `info pic` text, `i /w` and qom-get answers, or a PCI
 * configuration space (buses 0-3, devices 0-7, each function's 256 bytes taken from the input
 * at an offset of its own, wrapping; everything else absent). Invariants (abort if broken): an
 * accepted LAPIC or I/O APIC has every entry masked or in an allowed mode, a refusal names the
 * source as platstate.h says; the PCI scan reads each function's ID once per bus, follows at
 * most PCI_CAP_MAX capabilities and returns 0 exactly when every function it read has bus
 * mastering, MSI and MSI-X off in the first PCI_CAP_MAX entries of a list that ends (a refusal
 * for a function: the last one read is the only one that does not).
 */
#include "platstate.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SIM_BUSES 4
#define SIM_DEVS 8
#define SIM_FNS (SIM_BUSES * SIM_DEVS * 8)

struct sim {
    const uint8_t *d;
    size_t n;
    unsigned reads[SIM_FNS];    /* per function */
    unsigned id_reads[SIM_FNS]; /* of register 0 */
    unsigned cmd_reads[SIM_FNS];
    unsigned total;
};

static uint32_t sim_value(const struct sim *s, unsigned idx, unsigned reg)
{
    uint32_t v = 0;

    for (int i = 3; i >= 0; i--)
        v = v << 8 | s->d[(idx * 256 + reg + (unsigned)i) % s->n];
    return v;
}

static int sim_read(void *ctx, unsigned bus, unsigned dev, unsigned fn, unsigned reg,
                    uint32_t *val, char *err, size_t errsz)
{
    struct sim *s = ctx;
    unsigned idx = (bus * SIM_DEVS + dev) * 8 + fn;

    (void)err;
    (void)errsz;
    check(bus < 256 && dev < 32 && fn < 8 && reg < 256 && reg % 4 == 0);
    s->total++;
    if (bus >= SIM_BUSES || dev >= SIM_DEVS) {
        *val = 0xffffffffu;
        return 0;
    }
    s->reads[idx]++;
    s->id_reads[idx] += reg == 0;
    s->cmd_reads[idx] += reg == 4;
    *val = sim_value(s, idx, reg);
    return 0;
}

/* the rules again, on one function, by their definition */
static int quiet(const struct sim *s, unsigned idx)
{
    uint32_t cmd = sim_value(s, idx, 4);
    unsigned ptr = sim_value(s, idx, 0x34) & 0xfc;
    int i;

    if (cmd & 4)
        return 0;
    if (!(cmd & (1u << 20)))
        return 1;
    for (i = 0; i < PCI_CAP_MAX && ptr; i++) {
        uint32_t v = sim_value(s, idx, ptr);

        if (((v & 0xff) == 0x05 && (v & 1u << 16)) || ((v & 0xff) == 0x11 && (v & 1u << 31)))
            return 0;
        ptr = (v >> 8) & 0xfc;
    }
    return ptr == 0;
}

static struct sim sim;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text, err[256] = "";

    if (size < 2)
        return 0;
    text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    switch (data[0] % 4) {
    case 0: {
        struct lapic_state l;

        if (platstate_parse_lapic(text, &l, err, sizeof(err)) != 0) {
            check(err[0]);
            break;
        }
        check(l.cpu >= 0 && l.cpu <= 999);
        if (platstate_check_lapic(&l, err, sizeof(err)) == 0) {
            for (int k = 0; k < LVT_N; k++) {
                unsigned dm = (l.lvt[k] >> 8) & 7;

                check((l.lvt[k] & 0x10000) || dm == 0 || (k == LVT_LINT0 && dm == 7));
            }
        } else {
            char want[32];

            snprintf(want, sizeof(want), "LAPIC %d ", l.cpu);
            check(!strncmp(err, want, strlen(want)) && strstr(err, " delivery, not masked (LVT 0x"));
        }
        break;
    }
    case 1: {
        struct ioapic_state io;

        if (platstate_parse_ioapic(text, &io, err, sizeof(err)) != 0) {
            check(err[0]);
            break;
        }
        if (platstate_check_ioapic(&io, err, sizeof(err)) == 0) {
            for (int i = 0; i < IOAPIC_PINS; i++)
                check((io.redir[i] & 0x10000) || ((io.redir[i] >> 8) & 7) <= 1);
        } else {
            check(!strncmp(err, "IOAPIC pin ", 11) && strstr(err, " delivery, not masked (entry 0x"));
        }
        break;
    }
    case 2: {
        uint32_t v;
        bool b;

        if (platstate_parse_inl(text, 0xcf8, &v, err, sizeof(err)) == 0)
            check(!strncmp(text, "portl[0x0cf8] = 0x", 18) && strtoul(text + 18, NULL, 16) == v);
        if (platstate_parse_qom_bool(text, &b, err, sizeof(err)) == 0)
            check(strstr(text, b ? "true" : "false"));
        check(platstate_check_hpet(true, err, sizeof(err)) == -1 &&
              !strcmp(err, "HPET: present in the machine"));
        break;
    }
    default: {
        unsigned nfn = 0, visited = 0, loud = 0;
        int rc;

        memset(&sim, 0, sizeof(sim));
        sim.d = data + 1;
        sim.n = size - 1;
        rc = platstate_pci_scan(sim_read, &sim, &nfn, err, sizeof(err));
        for (unsigned i = 0; i < SIM_FNS; i++) {
            /* each function's ID once (each bus is scanned once), its list bounded (a
             * capability pointer may point at the command register too) */
            check(sim.id_reads[i] <= 1 && sim.cmd_reads[i] <= 1 + PCI_CAP_MAX);
            check(sim.reads[i] <= 5 + PCI_CAP_MAX);
            if (sim.cmd_reads[i]) {
                visited++;
                loud += !quiet(&sim, i);
            }
        }
        check(nfn == visited);
        /* accepted: every function it read passed; refused: a bridge, or one that did not */
        check(rc == 0 ? loud == 0 : strstr(err, ": bridge to buses ") || loud == 1);
        if (rc != 0)
            check(!strncmp(err, "PCI ", 4) && err[6] == ':' && err[9] == '.' && err[11] == ':');
        /* buses 4-255 hold nothing: at most 32 reads each */
        check(sim.total <= 256 * 32 + SIM_FNS * (5 + PCI_CAP_MAX));
        break;
    }
    }
    free(text);
    return 0;
}
