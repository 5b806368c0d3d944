/* SPDX-License-Identifier: MIT */
/*
 * The platform's event sources at a virtual SENTER (include/abi/vsenter.h, step 1a), as QEMU
 * 7.2 shows them, and the rules on them. Pure code, no I/O: the launcher reads (HMP, QOM,
 * configuration space through ports 0xcf8/0xcfc) and hands the text or a reader in.
 *
 * Refusal reasons, exactly (the launcher answers "VSENTER-ERR 4 id=0x<id> <reason>"):
 *   "LAPIC <n> <LVT>: <mode> delivery, not masked (LVT 0x%08x)"
 *       <n> the CPU index (decimal); <LVT> one of LINT0, LINT1, timer, thermal, perf, error
 *       (LVT0, LVT1, LVTT, LVTTHMR, LVTPC, LVTERR in QEMU's dump); <mode> one of SMI, NMI,
 *       INIT, ExtINT, "reserved mode 1", "reserved mode 3", "reserved mode 6".
 *       Allowed: masked (bit 16), Fixed, and ExtINT on LINT0 (the 8259 delivers only
 *       maskable interrupts).
 *       e.g. "LAPIC 0 LINT1: NMI delivery, not masked (LVT 0x00008400)"
 *   "IOAPIC pin <n>: <mode> delivery, not masked (entry 0x%016llx)"
 *       <n> decimal; <mode> one of SMI, NMI, INIT, ExtINT, "reserved mode 3",
 *       "reserved mode 6". Allowed: masked (bit 16), Fixed, Lowest-priority.
 *       e.g. "IOAPIC pin 2: NMI delivery, not masked (entry 0x0000000000000400)"
 *   "HPET: present in the machine"
 *   "PCI <bb:dd.f>: bus mastering enabled"      (command register bit 2)
 *   "PCI <bb:dd.f>: MSI enabled"                (an MSI capability's control bit 0)
 *   "PCI <bb:dd.f>: MSI-X enabled"              (an MSI-X capability's control bit 15)
 *   "PCI <bb:dd.f>: capability list longer than 48 entries"
 *   "PCI <bb:dd.f>: bridge to buses %02x-%02x cannot be scanned"
 *       (secondary bus 0, not above the bridge's own bus, above its subordinate bus, or
 *       buses another bridge claims or outside the parent bridge's: QEMU would then not
 *       route configuration cycles to the devices behind it, and they could DMA unseen)
 *   <bb:dd.f> is "%02x:%02x.%x" (bus, device, function, lower-case hex).
 *   Checked in that order: bus mastering, then MSI, then MSI-X; a function's own rules before
 *   its bridge's.
 *
 * Why these suffice for the devices vtboot-qemu gives a machine (-nodefaults, q35 or pc,
 * hpet=off): the LPC/ISA bridge's devices (COM1, the VSENTER UART, RTC, PIT, i8042, pvpanic,
 * the TPM TIS) have no DMA and no MSI, and interrupt only through the 8259 and the I/O APIC,
 * both checked (the 8259 only reaches a CPU through LINT0 in ExtINT mode or an I/O APIC pin:
 * maskable interrupts, which stay off until the MLE sets IF). The PCI functions (host bridge,
 * ICH9 LPC, AHCI and SMBus on q35, PIIX3/IDE/PM on pc; virtio-blk with --disk, ivshmem with
 * --attest, AHCI's CD-ROM with --grub, nothing more with --xen) can write memory or send an MSI
 * only through their bus-master address space, which QEMU disables with the command register's
 * bus master bit: with it off, neither DMA nor MSI/MSI-X reaches memory or a CPU. The PIT and
 * the RTC raise ordinary I/O APIC or 8259 inputs. The HPET is the one timer that writes memory
 * (its FSB interrupt), so the machine has none.
 */
#ifndef HOST_PLATSTATE_H
#define HOST_PLATSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- local APIC: HMP `info lapic <apic-id>` (x86_cpu_dump_local_apic_state) ---- */

/* the LVT entries in the order QEMU prints them */
enum { LVT_LINT0, LVT_LINT1, LVT_PERF, LVT_ERROR, LVT_THERMAL, LVT_TIMER, LVT_N };

struct lapic_state {
    int cpu;                    /* the CPU index from "dumping local APIC state for CPU %-2u" */
    uint32_t lvt[LVT_N];
};

/* Parses one CPU's dump: the header, then the lines "LVT0\t 0x%08x ...", LVT1, LVTPC,
 * LVTERR, LVTTHMR, LVTT in that order ("\r\n" or "\n"). Returns 0, or -1 with a reason. */
int platstate_parse_lapic(const char *text, struct lapic_state *out, char *err, size_t errsz);
/* The rule above; returns 0, or -1 with the refusal reason of the first LVT (dump order). */
int platstate_check_lapic(const struct lapic_state *l, char *err, size_t errsz);

/* ---- I/O APIC: HMP `info pic` (ioapic_print_redtbl; the 8259s' lines are skipped) ---- */

#define IOAPIC_PINS 24          /* QEMU 7.2's IOAPIC_NUM_PINS */

struct ioapic_state {
    uint64_t redir[IOAPIC_PINS];
};

/* Exactly one "ioapic<n>: ..." block with the lines "  pin %-2u 0x%016llx ..." for pins 0-23
 * in order. Returns 0, or -1 with a reason. */
int platstate_parse_ioapic(const char *text, struct ioapic_state *out, char *err, size_t errsz);
int platstate_check_ioapic(const struct ioapic_state *s, char *err, size_t errsz);

/* ---- HPET: QOM /machine property "hpet" ---- */

/* QMP qom-get's answer line ({"return": true, "id": 7} or false) into *val; 0, or -1 with a
 * reason */
int platstate_parse_qom_bool(const char *reply, bool *val, char *err, size_t errsz);
int platstate_check_hpet(bool hpet, char *err, size_t errsz);

/* ---- PCI ---- */

#define PCI_CAP_MAX 48          /* capability entries followed per function */

/* One PCI function as read. */
struct pci_fn {
    uint8_t bus, dev, fn;
    uint8_t header_type;        /* without the multi-function bit */
    uint16_t command;
    uint16_t msi_ctl;           /* the OR of every MSI capability's control word (0: none) */
    uint16_t msix_ctl;          /* idem, MSI-X */
    bool cap_overflow;          /* the list went on past PCI_CAP_MAX entries */
};

/* HMP `i /w <port>`'s answer, "portl[0x%04x] = 0x%08x" (hmp_ioport_read), for that port:
 * 0 with the value, or -1 with a reason. */
int platstate_parse_inl(const char *text, unsigned port, uint32_t *val, char *err, size_t errsz);

/* Reads the 32-bit configuration register at reg (a multiple of 4) of bus:dev.fn; returns 0,
 * or -1 with a reason. A function that is not there reads 0xffffffff. */
typedef int (*pci_cfg_read)(void *ctx, unsigned bus, unsigned dev, unsigned fn, unsigned reg,
                            uint32_t *val, char *err, size_t errsz);

/* The capability list of f (when the status register says it has one) from the pointer at
 * 0x34, at most PCI_CAP_MAX entries (a loop in a device's list ends there): msi_ctl,
 * msix_ctl, cap_overflow. Returns 0, or -1 if a read failed. */
int platstate_pci_caps(pci_cfg_read rd, void *ctx, struct pci_fn *f, char *err, size_t errsz);
/* The function's own rules (bus mastering, MSI, MSI-X, the capability list's length). */
int platstate_check_pci_fn(const struct pci_fn *f, char *err, size_t errsz);
/*
 * Every function on bus 0 and behind every PCI-PCI bridge (header type 1), checked with
 * platstate_check_pci_fn and the bridge rule above; functions 1-7 of a device only if
 * function 0 has the multi-function bit (a guest cannot change it in QEMU). Every bus is
 * scanned at most once. *nfn: how many functions were checked. Returns 0, or -1 with the
 * first refusal reason or read failure.
 */
int platstate_pci_scan(pci_cfg_read rd, void *ctx, unsigned *nfn, char *err, size_t errsz);

#endif
