/* SPDX-License-Identifier: MIT */
#include "common/halt.h"
#include "common/machine.h"
#include "common/pcr_cap.h"
#include "log/printk.h"

void halt(const char *why)
{
    pr_err("HALT: %s\n", why);
    pcr_cap("halt");
    machine_power_off();
}
