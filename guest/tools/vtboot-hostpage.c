/* SPDX-License-Identifier: MIT */
/*
 * vtboot-hostpage [--list] NAME: prints the item NAME of the launcher's page (the verifier's
 * nonce for `vtboot-qemu --attest`) as lowercase hex; --list prints "NAME SIZE" for each item.
 *
 * The page reaches the guest outside anything measured (host/lib/hostpage.h has why it is not
 * QEMU's fw_cfg, and the layout): vtboot-qemu writes it into a file that QEMU maps as BAR 2 of
 * an ivshmem-plain PCI device (vendor 0x1af4, device 0x1110; no option ROM, no driver in the
 * guest kernel). This is the I/O half: the device is found in /sys/bus/pci/devices, its BAR 2
 * (line 3 of the device's `resource` file: start, end, flags) is mapped read-only through
 * the device's `resource2` file, at most MAP_MAX bytes are copied out, and host/lib/hostpage.c
 * (the pure half, unit-tested on the host) parses them. Several ivshmem devices: the one whose
 * memory starts with the page's magic; none or two such: an error.
 *
 * Exit status: 0 printed, 1 no page, malformed page or no such item (one line on stderr),
 * 2 usage.
 */
#include "hostpage.h"
#include "pcidev.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define IVSHMEM_VENDOR 0x1af4u
#define IVSHMEM_DEVICE 0x1110u
#define MAP_MAX (64u * 1024u)

/* BAR 2's size from the device's resource file; 0 if unassigned or unreadable */
static unsigned long long bar2_size(const char *dev)
{
    char path[512], line[128];
    unsigned long long start = 0, end = 0, flags = 0;
    FILE *f;
    int ok = 1;

    snprintf(path, sizeof(path), "%s/%s/resource", PCIDEV_SYSFS, dev);
    f = fopen(path, "r");
    if (!f)
        return 0;
    for (int i = 0; i < 3 && ok; i++)         /* lines 0, 1, 2: BARs 0, 1, 2 */
        ok = fgets(line, sizeof(line), f) != NULL;
    if (!ok || sscanf(line, "%llx %llx %llx", &start, &end, &flags) != 3)
        start = end = 0;
    fclose(f);
    return end > start ? end - start + 1 : 0;
}

/* Copies up to MAP_MAX bytes of the device's BAR 2 into a new buffer; NULL with a reason. */
static uint8_t *read_bar2(const char *dev, size_t *len, char *why, size_t whysz)
{
    char path[512];
    unsigned long long size = bar2_size(dev);
    size_t n = size > MAP_MAX ? MAP_MAX : (size_t)size;
    uint8_t *copy;
    void *m;
    int fd;

    if (n < HOSTPAGE_HDR) {
        snprintf(why, whysz, "%.64s: BAR 2 is not assigned or smaller than %u bytes", dev,
                 HOSTPAGE_HDR);
        return NULL;
    }
    snprintf(path, sizeof(path), "%s/%s/resource2", PCIDEV_SYSFS, dev);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whysz, "open %.512s: %s", path, strerror(errno));
        return NULL;
    }
    m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        snprintf(why, whysz, "mmap %.512s: %s", path, strerror(errno));
        return NULL;
    }
    copy = malloc(n);
    if (copy) {
        /* byte by byte: device memory, no wide or unaligned loads */
        for (size_t i = 0; i < n; i++)
            copy[i] = ((volatile const uint8_t *)m)[i];
    }
    munmap(m, n);
    if (!copy)
        snprintf(why, whysz, "out of memory");
    *len = n;
    return copy;
}

static int usage(void)
{
    fprintf(stderr, "usage: vtboot-hostpage [--list] NAME | --list\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct dirent **ents = NULL;
    const char *name = NULL, *found_dev = NULL;
    uint8_t *page = NULL;
    size_t page_len = 0;
    int list = 0, ndev = 0, nents, rc = 1;
    char why[1024] = "";

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--list"))
            list = 1;
        else if (argv[i][0] == '-' || name)
            return usage();
        else
            name = argv[i];
    }
    if (!name && !list)
        return usage();

    nents = scandir(PCIDEV_SYSFS, &ents, NULL, alphasort);
    if (nents < 0) {
        fprintf(stderr, "vtboot-hostpage: %s: %s\n", PCIDEV_SYSFS, strerror(errno));
        return 1;
    }
    for (int i = 0; i < nents; i++) {
        const char *dev = ents[i]->d_name;
        uint8_t *mem;
        size_t len;

        if (!pcidev_is(dev, IVSHMEM_VENDOR, IVSHMEM_DEVICE))
            continue;
        ndev++;
        mem = read_bar2(dev, &len, why, sizeof(why));
        if (!mem)
            continue;
        if (memcmp(mem, HOSTPAGE_MAGIC, 8)) {
            snprintf(why, sizeof(why), "%.64s: its memory holds no vtboot host page", dev);
            free(mem);
            continue;
        }
        if (page) {
            fprintf(stderr, "vtboot-hostpage: two host pages (ivshmem devices %s and %s)\n",
                    found_dev, dev);
            free(mem);
            goto out;
        }
        page = mem;
        page_len = len;
        found_dev = dev;
    }
    if (!page) {
        if (!ndev)
            fprintf(stderr, "vtboot-hostpage: no host page: no ivshmem PCI device (%04x:%04x) "
                    "in %s\n", IVSHMEM_VENDOR, IVSHMEM_DEVICE, PCIDEV_SYSFS);
        else
            fprintf(stderr, "vtboot-hostpage: no host page: %s\n", why);
        goto out;
    }
    if (list) {
        struct hostpage_item items[HOSTPAGE_MAX_ITEMS];
        unsigned n;

        if (hostpage_parse(page, page_len, items, HOSTPAGE_MAX_ITEMS, &n, why,
                           sizeof(why)) != 0) {
            fprintf(stderr, "vtboot-hostpage: %s: malformed host page: %s\n", found_dev, why);
            goto out;
        }
        for (unsigned i = 0; i < n; i++)
            printf("%s %u\n", items[i].name, items[i].size);
        rc = 0;
    } else {
        const uint8_t *data;
        uint32_t size;
        int r = hostpage_find(page, page_len, name, &data, &size, why, sizeof(why));

        if (r != 0) {
            fprintf(stderr, "vtboot-hostpage: %s: %s%s\n", found_dev,
                    r < 0 ? "malformed host page: " : "", why);
            goto out;
        }
        for (uint32_t i = 0; i < size; i++)
            printf("%02x", data[i]);
        printf("\n");
        rc = 0;
    }
out:
    free(page);
    for (int i = 0; i < nents; i++)
        free(ents[i]);
    free(ents);
    return rc;
}
