/* SPDX-License-Identifier: MIT */
/*
 * What the guest's boot loader hands vtboot: its own command line and the module strings.
 * vtboot measures module strings verbatim (as tboot does), so they must not depend on where
 * the files live on the host. THE RULE (implemented once, in boot_strings()):
 *
 *   Every file is seen under its basename only.
 *   QEMU -kernel (multiboot1): QEMU runs with its cwd in a directory of symlinks named after
 *     the basenames, so QEMU itself writes
 *       vtboot cmdline = "<vtboot basename> <vtboot-cmdline>"   (QEMU always adds the space)
 *       module 0       = "<kernel basename>" + (" <cmdline>" if the cmdline is not empty)
 *       module 1       = "<initrd basename>"
 *     and -initrd gets those module strings joined by ',' with every ',' doubled.
 *   GRUB 2.06 (multiboot2 or multiboot1, from an ISO with the files in its root directory):
 *     GRUB passes only the arguments after the file name. It splits them into words, escapes
 *     every \\, ' and " in a word with a backslash (grub_create_loader_cmdline) and joins the
 *     words with one space (we never give it a word with a space in it), so
 *       vtboot cmdline = the words of <vtboot-cmdline>, escaped, joined ("" if none)
 *       module 0       = the words of <cmdline>, escaped, joined
 *       module 1       = ""
 *     The grub.cfg we write quotes every word that needs it, so each word reaches GRUB's
 *     loader unchanged. (Measured here with Debian's GRUB 2.06-13: no file names at all.)
 *   No kernel (kernel NULL or ""): no modules at all (QEMU without -initrd, GRUB without
 *     module lines); an initrd then is an error.
 *   Xen (xen set and not ""): module 0 is Xen with xen_cmdline, then the kernel (dom0) with
 *     cmdline and the initrd, by the same rule ("<xen basename> <xen_cmdline>" from QEMU, the
 *     escaped words of xen_cmdline from GRUB), as Debian's 20_linux_xen_tboot lays them out.
 *     names[i + 1] is always module i's file.
 *   An ACM (acm set and not ""): the last module, after the initrd, with no command line
 *     (QEMU: "<acm basename>"; GRUB: ""), as 20_linux_tboot loads the SINIT; tboot finds it
 *     by its content, not its place. It needs a kernel.
 *   LCP data (lcp_data set and not ""): one more module, last, with no command line: the
 *     policy data file lcp2_crtpol writes (tboot finds it by its signature "Intel(R) TXT
 *     LCP_POLICY_DATA" and copies it into the heap for the SINIT). It needs a kernel.
 */
#ifndef HOST_BOOT_H
#define HOST_BOOT_H

#include <stdbool.h>
#include <stddef.h>

enum loader {
    LOADER_QEMU_MB1,    /* QEMU -kernel/-initrd, multiboot1 */
    LOADER_GRUB_MB2,    /* GRUB multiboot2/module2 (what 20_linux_tboot writes) */
    LOADER_GRUB_MB1,    /* GRUB multiboot/module */
};

struct boot {
    const char *vtboot, *kernel, *initrd;       /* host paths; kernel/initrd NULL or "": none */
    const char *vtboot_cmdline, *cmdline;
    const char *grub_prelude;                   /* GRUB commands before the entry, or NULL */
    const char *xen, *xen_cmdline;              /* Xen as module 0 (NULL or "": none) */
    const char *acm;                            /* the SINIT ACM, last (NULL or "": none) */
    const char *lcp_data;                       /* a launch control policy's data file, after
                                                 * the ACM (NULL or "": none) */
};

#define BOOT_MODS_MAX 5

struct boot_strings {
    char *names[1 + BOOT_MODS_MAX];     /* basenames: vtboot, [xen,] kernel, [initrd,] [acm,]
                                         * [lcp data] (NULL: none) */
    char *vtboot_cmdline;               /* what vtboot gets as its own command line */
    char *mods[BOOT_MODS_MAX];          /* what vtboot gets as module strings */
    int nmods;                          /* 0 (no kernel), 1 (kernel) or 2 (kernel, initrd); with
                                         * Xen one more, Xen first; with an ACM one more, then
                                         * with LCP data one more, last */
    bool xen;                           /* module 0 is Xen */
    bool acm;                           /* the ACM is a module (after the initrd) */
    bool lcp_data;                      /* the last module is the LCP data file */
};

/* The host paths of vtboot and the modules, in the order of names[]; returns how many. */
int boot_files(const struct boot *b, const char *paths[1 + BOOT_MODS_MAX]);

/* Fills s; returns -1 with a reason in err if the file names cannot be used (whitespace in a
 * basename, two files with the same basename, a reserved name) or an initrd, Xen or an ACM
 * has no kernel. */
int boot_strings(const struct boot *b, enum loader l, struct boot_strings *s, char *err,
                 size_t errsz);
void boot_strings_free(struct boot_strings *s);
/* QEMU's -initrd argument for LOADER_QEMU_MB1 (module strings, ',' doubled, ','-joined);
 * NULL when there are no modules (QEMU then gets no -initrd). */
char *boot_qemu_initrd_arg(const struct boot_strings *s);
/* -append argument: the vtboot command line without the "<name> " QEMU prepends. */
const char *boot_qemu_append(const struct boot *b);
/* One GRUB script word for s, quoted if needed. */
char *boot_grub_word(const char *s);
/* Words of a command line joined for grub.cfg (each quoted as needed); "" if none. */
char *boot_grub_args(const char *cmdline);

#endif
