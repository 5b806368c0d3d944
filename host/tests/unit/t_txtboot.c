/* SPDX-License-Identifier: MIT */
/* The module strings and the grub.cfg with a SINIT ACM (boot.c, iso.c): the ACM last, after
 * the initrd, with no command line, as Debian's 20_linux_tboot lays it out; LCP data after it. */
#include "boot.h"
#include "iso.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

void test_txtboot(void)
{
    struct boot b = { .vtboot = "/boot/tboot.gz", .kernel = "/k/vmlinuz", .initrd = "/o/initrd.img",
                      .vtboot_cmdline = "logging=serial,memory", .cmdline = "console=ttyS0",
                      .acm = "/o/test/sinit.bin" };
    const char *paths[1 + BOOT_MODS_MAX];
    struct boot_strings s;
    char err[256];
    char *cfg, *arg;

    CHECK(boot_files(&b, paths) == 4 && !strcmp(paths[2], b.initrd) && !strcmp(paths[3], b.acm),
          "acm files");
    CHECK(boot_strings(&b, LOADER_QEMU_MB1, &s, err, sizeof(err)) == 0, "qemu: %s", err);
    CHECK(s.acm && !s.xen && s.nmods == 3 && !strcmp(s.mods[2], "sinit.bin") &&
          !strcmp(s.names[3], "sinit.bin"), "qemu: %d modules, %s", s.nmods, s.mods[2]);
    arg = boot_qemu_initrd_arg(&s);
    CHECK(!strcmp(arg, "vmlinuz console=ttyS0,initrd.img,sinit.bin"), "%s", arg);
    free(arg);
    boot_strings_free(&s);

    CHECK(boot_strings(&b, LOADER_GRUB_MB2, &s, err, sizeof(err)) == 0 && s.nmods == 3 &&
          !strcmp(s.mods[2], ""), "grub: %s", err);
    cfg = iso_grub_cfg(&b, &s, false);
    CHECK(strstr(cfg, "\techo\t'Loading initial ramdisk ...'\n"
                      "\tmodule2 /initrd.img\n"
                      "\techo\t'Loading sinit sinit.bin ...'\n"
                      "\tmodule2 /sinit.bin\n"
                      "}\n") != NULL, "acm grub.cfg:\n%s", cfg);
    free(cfg);
    boot_strings_free(&s);

    /* without an initrd the ACM is still the last module, and still the sinit */
    b.initrd = NULL;
    CHECK(boot_strings(&b, LOADER_GRUB_MB1, &s, err, sizeof(err)) == 0 && s.acm && s.nmods == 2,
          "no initrd: %s", err);
    cfg = iso_grub_cfg(&b, &s, true);
    CHECK(strstr(cfg, "\techo\t'Loading sinit sinit.bin ...'\n\tmodule /sinit.bin\n}\n") &&
          !strstr(cfg, "initial ramdisk"), "no initrd grub.cfg:\n%s", cfg);
    free(cfg);
    boot_strings_free(&s);

    /* an ACM needs a kernel; its name must differ from the others' */
    b.acm = "/x/vmlinuz";
    CHECK(boot_strings(&b, LOADER_GRUB_MB2, &s, err, sizeof(err)) == -1 &&
          strstr(err, "have the same file name 'vmlinuz'"), "%s", err);
    b.acm = "/o/sinit.bin";
    b.kernel = "";
    CHECK(boot_strings(&b, LOADER_QEMU_MB1, &s, err, sizeof(err)) == -1 &&
          !strcmp(err, "an ACM (/o/sinit.bin) needs a kernel: module 0 is always the kernel"),
          "%s", err);

    /* LCP data: after the ACM, no command line, its own echo; it too needs a kernel */
    b.kernel = "/k/vmlinuz";
    b.initrd = "/o/initrd.img";
    b.lcp_data = "/t/list.data";
    CHECK(boot_files(&b, paths) == 5 && !strcmp(paths[3], b.acm) && !strcmp(paths[4], b.lcp_data),
          "lcp files");
    CHECK(boot_strings(&b, LOADER_QEMU_MB1, &s, err, sizeof(err)) == 0 && s.acm && s.lcp_data &&
          s.nmods == 4, "qemu lcp: %s", err);
    arg = boot_qemu_initrd_arg(&s);
    CHECK(!strcmp(arg, "vmlinuz console=ttyS0,initrd.img,sinit.bin,list.data"), "%s", arg);
    free(arg);
    boot_strings_free(&s);
    CHECK(boot_strings(&b, LOADER_GRUB_MB2, &s, err, sizeof(err)) == 0, "grub lcp: %s", err);
    cfg = iso_grub_cfg(&b, &s, false);
    CHECK(strstr(cfg, "\techo\t'Loading sinit sinit.bin ...'\n"
                      "\tmodule2 /sinit.bin\n"
                      "\techo\t'Loading launch control policy data list.data ...'\n"
                      "\tmodule2 /list.data\n"
                      "}\n") != NULL, "lcp grub.cfg:\n%s", cfg);
    free(cfg);
    boot_strings_free(&s);
    b.kernel = "";
    b.acm = NULL;
    b.initrd = NULL;
    CHECK(boot_strings(&b, LOADER_QEMU_MB1, &s, err, sizeof(err)) == -1 &&
          !strcmp(err, "LCP data (/t/list.data) needs a kernel: module 0 is always the kernel"),
          "%s", err);
}
