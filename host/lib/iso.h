/* SPDX-License-Identifier: MIT */
/*
 * A BIOS boot ISO made with grub-mkrescue: vtboot, the kernel and the initrd in the ISO's root
 * under their basenames, and a grub.cfg with one entry written the way Debian's
 * /etc/grub.d/20_linux_tboot writes a tboot entry (serial console on COM1, no menu delay).
 */
#ifndef HOST_ISO_H
#define HOST_ISO_H

#include "boot.h"

/* The grub.cfg text (malloc'd). mb1: multiboot/module instead of multiboot2/module2. */
char *iso_grub_cfg(const struct boot *b, const struct boot_strings *s, bool mb1);
/* Builds iso_out (atomically: a temporary file renamed at the end), using workdir for the
 * ISO tree. If cfg_out is not NULL, the grub.cfg text is also written there.
 * Returns 0, or -1 with a message logged (also if interrupted by a signal). */
int iso_make(const char *iso_out, const struct boot *b, bool mb1, const char *workdir,
             const char *cfg_out);

#endif
