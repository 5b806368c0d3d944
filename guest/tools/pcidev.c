/* SPDX-License-Identifier: MIT */
#include "pcidev.h"

#include <stdio.h>

unsigned long pcidev_read_hex(const char *dev, const char *name)
{
    char path[512], buf[32] = "";
    FILE *f;
    unsigned long v;

    snprintf(path, sizeof(path), "%s/%s/%s", PCIDEV_SYSFS, dev, name);
    f = fopen(path, "r");
    if (!f)
        return ~0ul;
    if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%lx", &v) != 1)
        v = ~0ul;
    fclose(f);
    return v;
}

int pcidev_is(const char *dev, unsigned long vendor, unsigned long device)
{
    return dev[0] != '.' && pcidev_read_hex(dev, "vendor") == vendor &&
           pcidev_read_hex(dev, "device") == device;
}
