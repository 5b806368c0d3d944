/* SPDX-License-Identifier: MIT */
/* The guest tools' PCI device lookup through sysfs (/sys/bus/pci/devices/<dev>/...). */
#ifndef GUEST_TOOLS_PCIDEV_H
#define GUEST_TOOLS_PCIDEV_H

#define PCIDEV_SYSFS "/sys/bus/pci/devices"

/* The hex number in the device's sysfs file name (e.g. "vendor", "device"); ~0 if the file is
 * missing or holds none. */
unsigned long pcidev_read_hex(const char *dev, const char *name);

/* Whether the device dev (a directory name in PCIDEV_SYSFS) is vendor:device. */
int pcidev_is(const char *dev, unsigned long vendor, unsigned long device);

#endif
