/* SPDX-License-Identifier: MIT */
/*
 * The virtual SENTER: how guest code asks the host (playing CPU, chipset and SINIT) for a
 * dynamic launch, and what the host guarantees, like GETSEC[SENTER]: PCR 17 starts from zero
 * only together with a transfer of control to the measured MLE's entry point, with every
 * other CPU stopped. Whoever asked never runs again unless the MLE runs it.
 *
 * Channel: a 16550 UART at I/O port VSENTER_UART_PORT that the launcher attaches to its own
 * socket (`-device isa-serial,iobase=0x2f8,irq=3`). Lines are ASCII, '\n'-terminated, at most
 * VSENTER_LINE_MAX bytes with the '\n'.
 *
 *   guest: "VSENTER 4 id=0x%08x mle_base=0x%08x mle_hdr=0x%08x\n"
 *          id: the requester's own number for this request, echoed in the refusal (below);
 *          mle_base: physical address of the MLE image's first byte (the origin of the MLE
 *          header's *_off fields); mle_hdr: physical address of its MLE header (abi/mle.h).
 *          The requester then spins, interrupts off, until it is replaced or refused.
 *   host:  "VSENTER-ERR 4 id=0x%08x <reason>\n", the request's id as it read it, or
 *          "VSENTER-ERR 4 <reason>\n" for a line whose id it could not read.
 *          The id is what ties an answer to its request: answers to an earlier requester
 *          that never read them (the loader, say) still wait in the UART or on their way, and
 *          a requester takes only the line with its own id as its answer (protocol 3 took any
 *          refusal, and so once a stale one). A number that differs from the earlier
 *          requests' is enough (vtboot takes the TSC's low half); a requester that can be
 *          made to see a forged refusal loses only a launch that whoever forged it could
 *          have kept from happening anyway.
 *
 * The host, with every CPU paused (QMP stop):
 *  1. Reads every CPU's state (HMP `info registers -a`). The launching CPU is the only one not
 *     halted; each other CPU must be halted with EFLAGS.IF = 0 (HLT, or wait-for-SIPI after
 *     INIT). That alone does not keep it stopped: an NMI, SMI or INIT wakes a halted CPU, and
 *     QEMU delivers an NMI even in wait-for-SIPI (to the real-mode IVT[2] handler). 1a keeps
 *     every other source of those away, and step 5 leaves an INIT pending on each of these
 *     CPUs, so that only the MLE's own SIPI starts them again.
 *     The launching CPU must be in protected mode with paging off (CR0.PE = 1, CR0.PG = 0,
 *     EFER.LMA = 0), not virtual-8086, not in SMM, at CPL 0, with EFLAGS.IF = 0, A20 enabled
 *     (with A20 masked, an entry point with address bit 20 set would fetch from 1 MiB lower),
 *     and an empty IDT (IDTR limit 0: an exception or NMI before the MLE loads its own IDT
 *     shuts the machine down instead of running the requester's handler), and its GDTR must
 *     lie inside the measured range and hold flat 4 GiB ring-0 32-bit code at
 *     VSENTER_SEL_CODE (0x00cf9b000000ffff) and data at VSENTER_SEL_DATA (0x00cf93000000ffff;
 *     the accessed bits may be clear, but set they spare the CPU a write into the image).
 *     The launching CPU must be the bootstrap processor (CPU index 0), as GETSEC[SENTER]
 *     must run on the BSP, and its DR7 must arm no breakpoint (L0-L3, G0-G3 clear): a
 *     breakpoint in the MLE would hand the CPU to whatever handles #DB.
 *  1a. The platform's event sources (the other half of what SENTER guarantees: nothing but
 *     the MLE runs or can be made to run). Read while paused, through QEMU's own view:
 *     - every CPU's local APIC (HMP `info lapic <n>`): each LVT entry (timer, thermal,
 *       performance counter, LINT0, LINT1, error) is masked or in Fixed delivery mode
 *       (LINT0 may also be ExtINT: the 8259 delivers only maskable interrupts); an NMI, SMI,
 *       INIT or reserved mode would reach a CPU the MLE does not control yet.
 *     - the I/O APIC (HMP `info pic`): each redirection entry is masked or in Fixed or
 *       Lowest-priority mode.
 *     - no HPET in the machine (QOM /machine.hpet false; the launcher starts QEMU with
 *       hpet=off): QEMU's HPET writes its FSB message to any address, a memory write at a
 *       time set before the launch.
 *     - every PCI function on bus 0 and behind every bridge (configuration space through
 *       ports 0xcf8/0xcfc, the port's old address restored): bus mastering off (no DMA and no
 *       MSI: QEMU sends both through the bus-master address space), MSI enable and MSI-X
 *       enable off (an MSI is a memory write with any address and delivery mode).
 *     Anything else: the refusal "<source>: <what>", the source named as "CPU <n>",
 *     "LAPIC <n> <LVT>" (LVT one of LINT0, LINT1, timer, thermal, perf, error), "IOAPIC pin
 *     <n>", "HPET" or "PCI <bb:dd.f>" (vtboot-qemu's exact reasons: host/lib/platstate.h,
 *     host/lib/cpustate.h). The guest quiesces these before it asks (vtboot's pre-launch
 *     code does); the host only checks.
 *     Pending NMI, SMI and INIT requests are not visible through HMP; they cannot hurt:
 *     step 5 leaves an INIT pending on every other CPU, which QEMU handles before anything
 *     else when that CPU wakes and which drops what it had pending; one pending on the
 *     launching CPU is taken at the entry point with an empty IDT (NMI: shutdown, a machine
 *     reset that resets the TPM) or by the firmware's SMM (SMI); an INIT cannot be pending
 *     there (a running CPU takes it at once, and no source that could send one later passes
 *     1a).
 *  2. Reads the MLE header at mle_hdr and checks every field: UUID, length, version 2.1,
 *     first_valid_page 0, a measured range of 1 byte to VSENTER_MLE_MAX starting on a page
 *     boundary inside guest RAM below 4 GiB, the header itself inside that range and
 *     MLE_HDR_ALIGN-aligned from mle_base (where lcp2_mlehash looks), the entry point and a
 *     non-empty command line inside that range, no reserved capability bit.
 *  3. Reads the measured range [mle_base + mle_start_off, mle_base + mle_end_off) and checks
 *     that it holds the same header.
 *  Any failure so far: the refusal back to the guest (and on the launcher's log), every CPU
 *  resumes where it was, no PCR changed.
 *  4. swtpm's locality-4 hash sequence over the range (CMD_HASH_START/DATA/END): PCRs 17-22
 *     reset to 0, PCR 17 = H(0 || H(MLE)) in every active bank.
 *  5. Through QEMU's gdbstub, on the launching CPU: EFER = 0, CR4 = 0, CR0 = PE|ET, CR3 = 0;
 *     CS = VSENTER_SEL_CODE and SS = DS = ES = FS = GS = VSENTER_SEL_DATA, each loaded from
 *     the GDT (QEMU reloads a descriptor only when the selector changes, so each is written
 *     twice, the null selector first); EFLAGS = 0x2 (read back raw through the gdbstub: HMP
 *     shows the lazily computed arithmetic flags and DF of the code that ran before); EIP =
 *     mle_base + mle_start_off + entry_point; the general registers as below. Then, as
 *     SENTER puts the other processors to sleep, an INIT for every other CPU: a 4-byte write
 *     of an INIT-mode MSI (0x500 to 0xfee00000 | APIC ID << 12) in the gdbstub's physical
 *     memory mode (restored after), pending until the CPU wakes; the MLE then starts it.
 *  6. Reads every CPU's state again and checks the launching CPU is exactly in the entry state
 *     below (descriptor caches included) and every other CPU is still halted with IF = 0;
 *     the event sources of 1a again.
 *  7. Resumes the CPUs (unless the VM was paused before the request, by a debugger or a QMP
 *     client: then it stays paused at the entry point).
 *  Any failure after step 4 began: the host does not resume the guest. It stops QEMU and the
 *  launcher reports it; a reset PCR 17 never belongs to a guest that the MLE does not run.
 *  A successful launch has no answer on the channel: the entry is the answer.
 *
 * Entry state of the MLE (the launching CPU):
 *   32-bit protected mode, paging off, CR0 = 0x11, CR3 = 0, CR4 = 0, EFER = 0, EFLAGS = 0x2
 *   (interrupts off); CS = VSENTER_SEL_CODE, SS = DS = ES = FS = GS = VSENTER_SEL_DATA, all
 *   base 0, limit 4 GiB, DPL 0, 32-bit; GDTR as the requester left it (inside the MLE), IDTR
 *   limit 0; EAX = VSENTER_ENTRY_MAGIC, EBX = mle_base, ECX = mle_hdr, EDX = the number of
 *   CPUs the machine has (the launching one included: the MLE starts every other one into
 *   its own code and goes on only when each has checked in), ESI = EDI = EBP = ESP = 0.
 *   The MLE loads its own GDT, IDT and stack before anything else and trusts the registers
 *   only once PCR 17 shows that the host launched it (a jump to the entry point without a
 *   launch finds PCR 17 elsewhere).
 */
#ifndef ABI_VSENTER_H
#define ABI_VSENTER_H

#define VSENTER_UART_PORT 0x2f8u
#define VSENTER_PROTOCOL 4
#define VSENTER_LINE_MAX 160u
#define VSENTER_MLE_MAX (16u << 20)     /* the host refuses larger MLEs */

#define VSENTER_REQUEST_FMT "VSENTER %d id=0x%08x mle_base=0x%08x mle_hdr=0x%08x\n"
#define VSENTER_ERR_PREFIX "VSENTER-ERR "
#define VSENTER_ERR_ID_FMT VSENTER_ERR_PREFIX "%d id=0x%08x "   /* then the reason */

#define VSENTER_SEL_CODE 0x10
#define VSENTER_SEL_DATA 0x18
#define VSENTER_ENTRY_CR0 0x11u          /* PE | ET */
#define VSENTER_ENTRY_EFLAGS 0x2u
#define VSENTER_ENTRY_MAGIC 0x544e5356u  /* "VSNT" */

#endif
