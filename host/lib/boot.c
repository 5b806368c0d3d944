/* SPDX-License-Identifier: MIT */
#include "boot.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_space(const char *s)
{
    return strpbrk(s, " \t\n\r\v\f") != NULL;
}

/* words of cmdline separated by whitespace, joined with one space; with grub_escape each
 * \, ' and " is preceded by a backslash, as GRUB's grub_create_loader_cmdline() does */
static char *normalize(const char *cmdline, bool grub_escape)
{
    char *out = xmalloc(2 * strlen(cmdline) + 1), *o = out;
    const char *p = cmdline;

    for (;;) {
        while (*p && strchr(" \t\n\r\v\f", *p))
            p++;
        if (!*p)
            break;
        if (o != out)
            *o++ = ' ';
        while (*p && !strchr(" \t\n\r\v\f", *p)) {
            if (grub_escape && strchr("\\'\"", *p))
                *o++ = '\\';
            *o++ = *p++;
        }
    }
    *o = 0;
    return out;
}

static char *join(const char *a, const char *sep, const char *b)
{
    return *b ? xasprintf("%s%s%s", a, sep, b) : xstrdup(a);
}

static bool given(const char *path)
{
    return path && *path;
}

int boot_files(const struct boot *b, const char *paths[1 + BOOT_MODS_MAX])
{
    int n = 0;

    paths[n++] = b->vtboot;
    if (!given(b->kernel))
        return n;
    if (given(b->xen))
        paths[n++] = b->xen;
    paths[n++] = b->kernel;
    if (given(b->initrd))
        paths[n++] = b->initrd;
    if (given(b->acm))
        paths[n++] = b->acm;
    if (given(b->lcp_data))
        paths[n++] = b->lcp_data;
    return n;
}

int boot_strings(const struct boot *b, enum loader l, struct boot_strings *s, char *err,
                 size_t errsz)
{
    const char *paths[1 + BOOT_MODS_MAX];
    bool kernel = given(b->kernel), initrd = given(b->initrd), xen = given(b->xen);
    bool acm = given(b->acm), lcp = given(b->lcp_data);
    int nfiles = boot_files(b, paths);
    const char *cmdlines[BOOT_MODS_MAX];
    int k = 0;

    memset(s, 0, sizeof(*s));
    if (initrd && !kernel) {
        snprintf(err, errsz, "an initrd (%s) needs a kernel: module 0 is always the kernel",
                 b->initrd);
        return -1;
    }
    if (xen && !kernel) {
        snprintf(err, errsz, "Xen (%s) needs a kernel for dom0", b->xen);
        return -1;
    }
    if ((acm || lcp) && !kernel) {
        snprintf(err, errsz, "%s (%s) needs a kernel: module 0 is always the kernel",
                 acm ? "an ACM" : "LCP data", acm ? b->acm : b->lcp_data);
        return -1;
    }
    for (int i = 0; i < nfiles; i++) {
        const char *base = path_base(paths[i]);

        if (!*base || has_space(base) || !strcmp(base, ".") || !strcmp(base, "..") ||
            (l != LOADER_QEMU_MB1 && !strcmp(base, "boot"))) {
            snprintf(err, errsz, "cannot use the file name '%s' (%s) in the guest", base,
                     paths[i]);
            boot_strings_free(s);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(path_base(paths[j]), base)) {
                snprintf(err, errsz, "%s and %s have the same file name '%s'", paths[j],
                         paths[i], base);
                boot_strings_free(s);
                return -1;
            }
        s->names[i] = xstrdup(base);
    }
    /* the command line of each module, in module order; NULL: the initrd's, the ACM's and the
     * LCP data's (none) */
    if (nfiles > 1) {
        if (xen)
            cmdlines[k++] = b->xen_cmdline ? b->xen_cmdline : "";
        cmdlines[k++] = b->cmdline;
        if (initrd)
            cmdlines[k++] = NULL;
        if (acm)
            cmdlines[k++] = NULL;
        if (lcp)
            cmdlines[k++] = NULL;
    }
    s->xen = xen && kernel;
    s->acm = acm && kernel;
    s->lcp_data = lcp && kernel;
    if (l == LOADER_QEMU_MB1) {
        s->vtboot_cmdline = xasprintf("%s %s", s->names[0], b->vtboot_cmdline);
        for (int i = 0; i < k; i++)
            s->mods[s->nmods++] = cmdlines[i] ? join(s->names[i + 1], " ", cmdlines[i])
                                              : xstrdup(s->names[i + 1]);
    } else {
        /* GRUB: no file names; escaped words */
        s->vtboot_cmdline = normalize(b->vtboot_cmdline, true);
        for (int i = 0; i < k; i++)
            s->mods[s->nmods++] = cmdlines[i] ? normalize(cmdlines[i], true) : xstrdup("");
    }
    return 0;
}

void boot_strings_free(struct boot_strings *s)
{
    for (int i = 0; i < 1 + BOOT_MODS_MAX; i++)
        free(s->names[i]);
    free(s->vtboot_cmdline);
    for (int i = 0; i < BOOT_MODS_MAX; i++)
        free(s->mods[i]);
    memset(s, 0, sizeof(*s));
}

char *boot_qemu_initrd_arg(const struct boot_strings *s)
{
    size_t len = 1;
    char *out, *o;

    if (s->nmods == 0)
        return NULL;
    for (int i = 0; i < s->nmods; i++)
        len += 2 * strlen(s->mods[i]) + 1;
    o = out = xmalloc(len);
    for (int i = 0; i < s->nmods; i++) {
        if (i)
            *o++ = ',';
        for (const char *p = s->mods[i]; *p; p++) {
            *o++ = *p;
            if (*p == ',')
                *o++ = ',';
        }
    }
    *o = 0;
    return out;
}

const char *boot_qemu_append(const struct boot *b)
{
    return b->vtboot_cmdline;
}

char *boot_grub_word(const char *s)
{
    bool plain = *s != 0;
    size_t n = 3;
    char *out, *o;

    for (const char *p = s; *p; p++) {
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                    "_.,:/=+@%-", *p))
            plain = false;
        n += *p == '\'' ? 4 : 1;
    }
    if (plain)
        return xstrdup(s);
    /* single quotes: no expansion inside; a ' itself is written as '\'' */
    o = out = xmalloc(n);
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = 0;
    return out;
}

char *boot_grub_args(const char *cmdline)
{
    char *norm = normalize(cmdline, false), *out = xstrdup(""), *save = NULL;

    for (char *w = strtok_r(norm, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *q = boot_grub_word(w);
        char *next = *out ? xasprintf("%s %s", out, q) : xstrdup(q);

        free(q);
        free(out);
        out = next;
    }
    free(norm);
    return out;
}
