/* SPDX-License-Identifier: MIT */
#include "qemu.h"
#include "hostpage.h"

#include <stdlib.h>
#include <string.h>

/* path as a value in a QEMU option: each ',' doubled (QEMU's option syntax); "" if out of
 * memory. The caller frees it. */
static char *option_path(const char *path)
{
    char *quoted = calloc(1, 2 * strlen(path) + 1), *d = quoted;

    for (const char *p = path; quoted && *p; p++)
        if ((*d++ = *p) == ',')
            *d++ = ',';
    return quoted ? quoted : calloc(1, 1);
}

/* -drive for the image at path, with no device of its own (id names it) */
static void add_drive(struct strv *a, const char *path, const char *format, const char *id)
{
    char *quoted = option_path(path);

    strv_add(a, "-drive");
    strv_addf(a, "file=%s,format=%s,if=none,id=%s", quoted ? quoted : "", format, id);
    free(quoted);
}

void qemu_argv(struct strv *a, const struct qemu_cfg *c)
{
    strv_add(a, c->binary ? c->binary : "qemu-system-x86_64");
    strv_add(a, "-nodefaults");
    strv_add(a, "-no-user-config");
    /* no HPET: its FSB interrupt is a memory write at a time the guest set, which no check
     * at a virtual SENTER could stop (include/abi/vsenter.h, 1a) */
    strv_add(a, "-machine");
    strv_addf(a, "%s,hpet=off%s", c->machine, c->txt ? ",txt=on" : "");
    /* the TXT platform's VT-d: tboot needs its DMAR, the SINIT sets its PMRs and the chipset's
     * DPR blocks DMA through it (docs/txt-platform.md 0009) */
    if (c->txt) {
        strv_add(a, "-device");
        strv_add(a, "intel-iommu");
    }
    if (c->bios) {
        strv_add(a, "-bios");
        strv_add(a, c->bios);
    }
    if (c->sinit_key_hash) {
        strv_add(a, "-global");
        strv_addf(a, "intel-txt.sinit-key-hash=%s", c->sinit_key_hash);
    }
    /* KVM does not work on our machines; TCG always. One thread for all vCPUs: with one per
     * vCPU, QEMU 7.2 hands a CPU the new memory map when another CPU changes it (a PCI BAR
     * switched on or off) but flushes its TLB later, and an MMIO access in between goes to
     * another region; a local APIC EOI lost that way held a CPU's timer back for good after
     * an S3 resume (issue 21; docs/testing.md, "QEMU's memory map race") */
    strv_add(a, "-accel");
    strv_add(a, "tcg,thread=single");
    strv_add(a, "-cpu");
    strv_add(a, c->cpu ? c->cpu : "max,vendor=GenuineIntel");
    strv_add(a, "-m");
    strv_addf(a, "%d", c->memory_mb);
    strv_add(a, "-smp");
    strv_addf(a, "%d", c->smp);
    strv_add(a, "-display");
    strv_add(a, "none");
    /* a reset (or triple fault) ends QEMU with SHUTDOWN reason guest-reset; with --reboot it
     * restarts the machine */
    strv_add(a, "-action");
    strv_add(a, c->reboot ? "reboot=reset" : "reboot=shutdown");
    strv_add(a, "-action");
    strv_add(a, "panic=shutdown");
    strv_add(a, "-device");
    strv_add(a, "pvpanic");
    /* COM1 through FIFOs we made (serial.h says why not a socket); QMP: QEMU connects to a
     * socket we already listen on */
    strv_add(a, "-chardev");
    strv_addf(a, "pipe,id=com1,path=%s", c->com1_pipe);
    strv_add(a, "-serial");
    strv_add(a, "chardev:com1");
    strv_add(a, "-chardev");
    strv_addf(a, "socket,id=qmp,path=%s", c->qmp_sock);
    strv_add(a, "-mon");
    strv_add(a, "chardev=qmp,mode=control");
    /* the caller's QMP socket: we listen, QEMU accepts (server=on with an inherited fd), so it
     * exists before QEMU starts and a client may connect at any time */
    if (c->user_qmp_fd >= 0) {
        strv_add(a, "-chardev");
        strv_addf(a, "socket,id=usrqmp,fd=%d,server=on,wait=off", c->user_qmp_fd);
        strv_add(a, "-mon");
        strv_add(a, "chardev=usrqmp,mode=control");
    }
    /* the gdbstub, on a socket only the launcher connects to: the virtual SENTER writes the
     * launching CPU's registers through it, and --gdb PATH's debugger reaches it through the
     * launcher (gdbmux.h) */
    if (c->gdb_fd >= 0) {
        strv_add(a, "-chardev");
        strv_addf(a, "socket,id=gdb0,fd=%d,server=on,wait=off", c->gdb_fd);
        strv_add(a, "-gdb");
        strv_add(a, "chardev:gdb0");
    }
    if (c->tpm_sock) {
        strv_add(a, "-chardev");
        strv_addf(a, "socket,id=chrtpm,path=%s", c->tpm_sock);
        strv_add(a, "-tpmdev");
        strv_add(a, "emulator,id=tpm0,chardev=chrtpm");
        strv_add(a, "-device");
        strv_add(a, "tpm-tis,tpmdev=tpm0");
    }
    if (c->vsenter_sock) {
        strv_add(a, "-chardev");
        strv_addf(a, "socket,id=vsenter,path=%s", c->vsenter_sock);
        strv_add(a, "-device");
        strv_add(a, "isa-serial,chardev=vsenter,iobase=0x2f8,irq=3");
    }
    if (c->disk) {
        /* the BIOS boots the disk's MBR */
        add_drive(a, c->disk, c->disk_format, "disk0");
        strv_add(a, "-device");
        strv_add(a, "virtio-blk-pci,drive=disk0,bootindex=1");
    }
    if (c->data_disk) {
        add_drive(a, c->data_disk, "raw", "data0");
        strv_add(a, "-device");
        strv_add(a, "virtio-blk-pci,drive=data0");
    }
    if (c->iso) {
        strv_add(a, "-cdrom");
        strv_add(a, c->iso);
        strv_add(a, "-boot");
        strv_add(a, "d");
    } else if (!c->disk) {
        strv_add(a, "-kernel");
        strv_add(a, c->kernel);
        strv_add(a, "-append");
        strv_add(a, c->append);
        if (c->initrd) {
            strv_add(a, "-initrd");
            strv_add(a, c->initrd);
        }
    }
    if (c->host_page) {
        /* QEMU maps the file privately (share=off): the guest reads the launcher's bytes and
         * cannot write the file */
        char *path = option_path(c->host_page);

        strv_add(a, "-object");
        strv_addf(a, "memory-backend-file,id=vtbhostpage,mem-path=%s,size=%u,share=off",
                  path ? path : "", HOSTPAGE_SIZE);
        free(path);
        strv_add(a, "-device");
        strv_add(a, "ivshmem-plain,memdev=vtbhostpage");
    }
    for (int i = 0; i < c->nextra; i++)
        strv_add(a, c->extra[i]);
}
