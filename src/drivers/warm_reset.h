/* SPDX-License-Identifier: MIT */
/* The firmware's warm-reset path: after an INIT or a reset, SeaBIOS (like a PC BIOS) reads the
 * CMOS shutdown status byte and, for 0x05 or 0x0A, jumps through the vector at 40:67. */
#ifndef DRIVERS_WARM_RESET_H
#define DRIVERS_WARM_RESET_H

/* Shutdown status 0 and the vector 0: the next reset is a full one, into the firmware, never
 * into code a loader left. */
void warm_reset_disarm(void);

#endif
