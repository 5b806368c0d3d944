/* SPDX-License-Identifier: MIT */
#ifndef PRELAUNCH_QUIESCE_H
#define PRELAUNCH_QUIESCE_H

/*
 * Before each launch request: the platform in the state the host checks (abi/vsenter.h, 1a),
 * nothing armed that could reach the launched CPU or wake another one: this CPU's local APIC
 * (LVTs masked, timer stopped), the I/O APIC's entries and both PICs masked, every PCI
 * function's bus mastering, MSI and MSI-X off, DR7 clear, then every other CPU INITed.
 * A real ELF symbol, never inlined: a test patches it out to play a hostile loader.
 */
void prelaunch_quiesce(void);

#endif
