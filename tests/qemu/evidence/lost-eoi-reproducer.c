/* SPDX-License-Identifier: MIT */
/*
 * Issue 21's stall without vtboot: a static /init for a plain Linux guest that makes QEMU 7.2
 * (a thread per vCPU) lose a local APIC EOI. CPU 0 switches the memory decoding of QEMU's edu
 * device off and on (each switch rebuilds the memory map) and after each switch wakes a reader
 * that sleeps on CPU 1, so CPU 1 takes an IPI and writes its EOI again and again while its
 * memory map changes under it. When an EOI goes to another region, that vector stays in service
 * and CPU 1 takes neither its timer nor further IPIs: the reader stops. Results go to /dev/kmsg
 * (the kernel writes the console from the calling CPU) rather than a tty whose interrupt may be
 * routed to the stuck CPU. README.md in this directory says how to run it and what it showed.
 *
 * Kernel command line: race.secs=N (default 60); race.hold=1 keeps the guest up at the end (for
 * `info lapic 1`), else it powers off.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <time.h>
#include <unistd.h>

static void pin_to(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
}

static double seconds_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void print_interrupts(const char *when)
{
    FILE *f = fopen("/proc/interrupts", "r");
    char line[512];

    while (f && fgets(line, sizeof(line), f))
        if (strstr(line, "LOC:") || strstr(line, "CAL:"))
            printf("RACE: %s%s", when, line);
    if (f)
        fclose(f);
}

int main(void)
{
    char cmdline[512] = "", config_path[300] = "";

    mount("proc", "/proc", "proc", 0, NULL);
    mount("sysfs", "/sys", "sysfs", 0, NULL);
    mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
    int kmsg = open("/dev/kmsg", O_WRONLY);
    if (kmsg >= 0)
        dup2(kmsg, 1);
    setvbuf(stdout, NULL, _IONBF, 0);
    FILE *f = fopen("/proc/cmdline", "r");
    if (f) {
        if (!fgets(cmdline, sizeof(cmdline), f))
            cmdline[0] = 0;
        fclose(f);
    }
    char *secs_opt = strstr(cmdline, "race.secs=");
    double seconds = secs_opt ? atof(secs_opt + 10) : 60;

    DIR *dir = opendir("/sys/bus/pci/devices");
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        char file[300], id[16] = "";
        snprintf(file, sizeof(file), "/sys/bus/pci/devices/%s/device", e->d_name);
        if (!(f = fopen(file, "r")))
            continue;
        if (fgets(id, sizeof(id), f) && !strncmp(id, "0x11e8", 6))
            snprintf(config_path, sizeof(config_path), "/sys/bus/pci/devices/%s/config",
                     e->d_name);
        fclose(f);
    }
    int config = open(config_path, O_RDWR);
    int wake[2], progress[2];
    if (config < 0 || pipe(wake) || pipe(progress)) {
        printf("RACE: no edu device (-device edu)\n");
        goto out;
    }
    printf("RACE: switching %s for %.0f s\n", config_path, seconds);

    if (fork() == 0) {
        char byte;
        unsigned long woken = 0;

        pin_to(1);
        close(wake[1]);
        while (read(wake[0], &byte, 1) == 1)
            if (++woken % 1000 == 0 && write(progress[1], &woken, sizeof(woken)) < 0)
                _exit(1);
        _exit(0);
    }
    pin_to(0);
    close(wake[0]);
    fcntl(wake[1], F_SETFL, O_NONBLOCK);
    fcntl(progress[0], F_SETFL, O_NONBLOCK);
    unsigned long switches = 0, woken = 0, got;
    double end = seconds_now() + seconds, last_progress = seconds_now();
    while (seconds_now() < end) {
        uint16_t command, off, on;
        char byte = 1;

        if (pread(config, &command, 2, 4) != 2)
            break;
        off = command & (uint16_t)~2u;
        on = command | 2u;
        if (pwrite(config, &off, 2, 4) != 2 || pwrite(config, &on, 2, 4) != 2)
            break;
        switches++;
        /* a full pipe (EAGAIN) means the reader no longer runs: the check below says so */
        if (write(wake[1], &byte, 1) < 0 && errno != EAGAIN)
            break;
        while (read(progress[0], &got, sizeof(got)) == (ssize_t)sizeof(got)) {
            woken = got;
            last_progress = seconds_now();
        }
        if (seconds_now() - last_progress > 10) {
            printf("RACE: CPU 1 stopped taking wake-ups after %lu\n", woken);
            break;
        }
    }
    printf("RACE: switches=%lu cpu1-woken>=%lu\n", switches, woken);
    print_interrupts("");
    sleep(2);
    print_interrupts("2 s later ");
    printf("RACE: done\n");
    if (strstr(cmdline, "race.hold=1"))
        for (;;)
            pause();
out:
    sync();
    reboot(RB_POWER_OFF);
    return 0;
}
