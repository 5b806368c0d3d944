/* SPDX-License-Identifier: MIT */
/* The two 8259 PICs. */
#ifndef DRIVERS_PIC_H
#define DRIVERS_PIC_H

/* Every line of both masked (OCW1): nothing reaches a CPU through ExtINT. */
void pic_mask_all(void);

#endif
