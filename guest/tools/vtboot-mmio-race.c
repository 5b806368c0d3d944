/* SPDX-License-Identifier: MIT */
/*
 * vtboot-mmio-race SECONDS: whether QEMU routes one CPU's MMIO right while another CPU changes
 * the memory map (issue 21's stall: a local APIC EOI that never reached the APIC).
 *
 * CPU 1 reads its local APIC's version register (0xfee00030, through /dev/mem) again and again;
 * CPU 0 meanwhile switches the memory decoding of QEMU's edu device (PCI 1234:11e8, COMMAND bit
 * 1, through sysfs) off and on, and each switch makes QEMU rebuild the guest's memory map. The
 * register never changes, so every read that returns something else went to another region.
 * QEMU 7.2 with one thread per vCPU does that: a CPU's TLB entry for the APIC page keeps its
 * index into the old map until that CPU gets round to its TLB flush, while the other CPU has
 * already given it the new map (docs/testing.md, "QEMU's memory map race").
 *
 * Prints "mmio-race-version=0xV", "mmio-race-reads=N", "mmio-race-switches=N",
 * "mmio-race-wrong=N" and, for the first wrong reads, "mmio-race-wrong-value=0xV". Exit
 * status: 0 if no read went astray, 1 if one did, 2 if the race could not be set up.
 */
#define _GNU_SOURCE
#include "pcidev.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EDU_VENDOR 0x1234u
#define EDU_DEVICE 0x11e8u
#define APIC_BASE 0xfee00000u
#define APIC_VERSION_OFF 0x30u
#define PCI_COMMAND_OFF 4
#define PCI_COMMAND_MEMORY 0x2u
#define WRONG_SHOWN 4
#define READS_PER_CLOCK 1000

struct reader_result {
    uint64_t reads, wrong;
    uint32_t version, shown[WRONG_SHOWN];
};

static void fail(const char *what)
{
    printf("mmio-race-error=%s\n", what);
    exit(2);
}

static void pin_to(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set))
        fail(cpu ? "cannot run on CPU 1" : "cannot run on CPU 0");
}

static double seconds_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The config space file of the first edu device, in path; "" if there is none. */
static void find_edu(char *path, size_t size)
{
    DIR *dir = opendir(PCIDEV_SYSFS);
    struct dirent *e;

    path[0] = 0;
    while (dir && (e = readdir(dir))) {
        if (pcidev_is(e->d_name, EDU_VENDOR, EDU_DEVICE)) {
            snprintf(path, size, "%s/%s/config", PCIDEV_SYSFS, e->d_name);
            break;
        }
    }
    if (dir)
        closedir(dir);
}

static void read_apic_version(volatile const uint32_t *apic, double seconds,
                              struct reader_result *r)
{
    double end = seconds_now() + seconds;

    memset(r, 0, sizeof(*r));
    r->version = apic[APIC_VERSION_OFF / 4];
    while (seconds_now() < end) {
        for (int i = 0; i < READS_PER_CLOCK; i++) {
            uint32_t v = apic[APIC_VERSION_OFF / 4];

            if (v != r->version && r->wrong < WRONG_SHOWN)
                r->shown[r->wrong] = v;
            r->wrong += v != r->version;
        }
        r->reads += READS_PER_CLOCK;
    }
}

static int switch_memory_decoding(int config, uint16_t *command)
{
    uint16_t off = *command & (uint16_t)~PCI_COMMAND_MEMORY, on = *command | PCI_COMMAND_MEMORY;

    return pwrite(config, &off, 2, PCI_COMMAND_OFF) == 2 &&
           pwrite(config, &on, 2, PCI_COMMAND_OFF) == 2 ? 0 : -1;
}

int main(int argc, char **argv)
{
    double seconds = argc == 2 ? atof(argv[1]) : 0;
    char config_path[300];
    int pipefd[2];

    if (seconds <= 0 || seconds > 600) {
        fprintf(stderr, "usage: vtboot-mmio-race SECONDS (1 to 600)\n");
        return 2;
    }
    find_edu(config_path, sizeof(config_path));
    if (!config_path[0])
        fail("no edu device (QEMU -device edu)");
    int config = open(config_path, O_RDWR);
    uint16_t command;
    if (config < 0 || pread(config, &command, 2, PCI_COMMAND_OFF) != 2)
        fail("cannot open the edu device's config space");
    int mem = open("/dev/mem", O_RDONLY | O_SYNC);
    volatile const uint32_t *apic = mem < 0 ? MAP_FAILED :
        mmap(NULL, 4096, PROT_READ, MAP_SHARED, mem, APIC_BASE);
    if (apic == MAP_FAILED)
        fail("cannot map the local APIC through /dev/mem");
    if (pipe(pipefd))
        fail("pipe");

    fflush(stdout);
    pid_t reader = fork();
    if (reader < 0)
        fail("fork");
    if (reader == 0) {
        struct reader_result r;

        pin_to(1);
        read_apic_version(apic, seconds, &r);
        _exit(write(pipefd[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
    }
    close(pipefd[1]);

    pin_to(0);
    uint64_t switches = 0;
    while (waitpid(reader, NULL, WNOHANG) == 0) {
        if (switch_memory_decoding(config, &command))
            fail("cannot write the edu device's COMMAND register");
        switches++;
    }
    struct reader_result r;
    if (read(pipefd[0], &r, sizeof(r)) != (ssize_t)sizeof(r))
        fail("CPU 1's reader gave no result");

    printf("mmio-race-version=0x%08x\nmmio-race-reads=%llu\nmmio-race-switches=%llu\n"
           "mmio-race-wrong=%llu\n", r.version, (unsigned long long)r.reads,
           (unsigned long long)switches, (unsigned long long)r.wrong);
    for (uint64_t i = 0; i < r.wrong && i < WRONG_SHOWN; i++)
        printf("mmio-race-wrong-value=0x%08x\n", r.shown[i]);
    return r.wrong ? 1 : 0;
}
