/* SPDX-License-Identifier: MIT */
#include "arch/x86/io.h"
#include "drivers/pic.h"

#define PIC_MASTER_DATA 0x21
#define PIC_SLAVE_DATA 0xa1

void pic_mask_all(void)
{
    outb(PIC_MASTER_DATA, 0xff);
    outb(PIC_SLAVE_DATA, 0xff);
}
