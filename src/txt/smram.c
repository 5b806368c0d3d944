/* SPDX-License-Identifier: MIT */
#include "lib/format.h"
#include "txt/smram.h"

int txt_smram_check(uint8_t smramc, char *err, unsigned errlen)
{
    const char *why = !(smramc & MCH_SMRAMC_G_SMRAME) ? "SMRAM disabled (G_SMRAME clear)"
                      : !(smramc & MCH_SMRAMC_D_LCK)  ? "SMRAM unlocked (D_LCK clear)"
                      : (smramc & MCH_SMRAMC_D_OPEN)  ? "SMRAM open (D_OPEN set)"
                                                      : NULL;
    if (!why)
        return 0;
    fmt_snprintf(err, errlen, "MCH SMRAMC 0x%02x: %s", smramc, why);
    return -1;
}
