/* SPDX-License-Identifier: MIT */
#include "edu.h"
#include "com1.h"

static uint32_t pci_cfg(uint32_t devfn, uint32_t reg)
{
    return 0x80000000u | devfn << 8 | reg;
}

uint32_t edu_devfn(void)
{
    for (uint32_t devfn = 8; devfn < 256; devfn += 8) {
        outl(0xcf8, pci_cfg(devfn, 0));
        if (inl(0xcfc) == EDU_VENDOR_DEVICE)
            return devfn;
    }
    return 0;
}

uint32_t edu_find(void)
{
    uint32_t devfn = edu_devfn(), bar, cmd;

    if (!devfn)
        return 0;
    outl(0xcf8, pci_cfg(devfn, 0x10));
    bar = inl(0xcfc) & ~0xfu;
    outl(0xcf8, pci_cfg(devfn, 0x04));
    cmd = inl(0xcfc) & 0xffff;
    outl(0xcf8, pci_cfg(devfn, 0x04));
    outl(0xcfc, cmd | 0x6);                 /* memory space, bus master */
    return bar;
}

void edu_dma_start(uint32_t bar, uint32_t src, uint32_t dst, uint32_t len, uint32_t cmd)
{
    *(volatile uint32_t *)(bar + EDU_DMA_SRC) = src;
    *(volatile uint32_t *)(bar + EDU_DMA_DST) = dst;
    *(volatile uint32_t *)(bar + EDU_DMA_CNT) = len;
    *(volatile uint32_t *)(bar + EDU_DMA_CMD) = cmd | EDU_RUN;
}

int edu_dma_busy(uint32_t bar)
{
    return *(volatile uint32_t *)(bar + EDU_DMA_CMD) & EDU_RUN;
}

int edu_dma_copy(uint32_t bar, uint32_t src, uint32_t dst, uint32_t len, uint32_t cmd)
{
    edu_dma_start(bar, src, dst, len, cmd);
    /* edu copies 100 ms (virtual) after the command */
    for (uint32_t i = 0; i < 400000000u; i++)
        if (!edu_dma_busy(bar))
            return 1;
    return 0;
}
