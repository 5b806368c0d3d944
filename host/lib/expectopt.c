/* SPDX-License-Identifier: MIT */
#include "expectopt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void expect_opts_init(struct expect_opts *o, const char *prog, bool xen)
{
    memset(o, 0, sizeof(*o));
    o->prog = prog;
    o->xen = xen;
    o->map = PCR_MAP_DA;
    o->os_sinit_caps = TXT_EXPECT_TBOOT_OS_SINIT_CAPS;
}

int expect_opt(struct expect_opts *o, int which, const char *arg)
{
    switch (which) {
    case EXPECT_OPT_VTBOOT: o->vtboot = arg; break;
    case EXPECT_OPT_VTBOOT_CMDLINE: o->vtboot_cmdline = arg; break;
    case EXPECT_OPT_KERNEL: o->kernel = arg; break;
    case EXPECT_OPT_CMDLINE: o->cmdline = arg; break;
    case EXPECT_OPT_INITRD: o->initrd = arg; break;
    case EXPECT_OPT_INITRD_CMDLINE: o->initrd_cmdline = arg; break;
    case EXPECT_OPT_XEN: o->xen_file = arg; break;
    case EXPECT_OPT_XEN_CMDLINE: o->xen_cmdline = arg; break;
    case EXPECT_OPT_POLICY: o->policy = arg; break;
    case EXPECT_OPT_SINIT: o->sinit = arg; break;
    case EXPECT_OPT_LCP_POLICY: o->lcp_policy = arg; break;
    case EXPECT_OPT_OS_SINIT_CAPS: {
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(arg, &end, 0);
        if (errno || end == arg || *end || v > UINT32_MAX) {
            fprintf(stderr, "%s: --os-sinit-caps: expected a 32-bit number, got '%s'\n", o->prog,
                    arg);
            return -1;
        }
        o->os_sinit_caps = (uint32_t)v;
        o->caps_given = true;
        break;
    }
    case EXPECT_OPT_MODULE:
        /* the kernel, the initrd (and Xen) take a module slot each */
        if (o->nextra == PREDICT_MAX_MODULES - (o->xen ? 3 : 2)) {
            fprintf(stderr, "%s: too many modules\n", o->prog);
            return -1;
        }
        o->extra[o->nextra++] = arg;
        break;
    case EXPECT_OPT_PCR_MAP:
        if (strcmp(arg, "da") && strcmp(arg, "legacy")) {
            fprintf(stderr, "%s: --pcr-map takes da or legacy\n", o->prog);
            return -1;
        }
        o->map = strcmp(arg, "legacy") ? PCR_MAP_DA : PCR_MAP_LEGACY;
        break;
    default:
        return -1;
    }
    return 0;
}

static void add(struct expect_files *f, const char *file, const char *cmdline)
{
    f->modules[f->nr_modules].file = file;
    f->modules[f->nr_modules++].cmdline = cmdline ? cmdline : "";
}

void expect_opts_files(struct expect_opts *o, struct expect_files *f)
{
    expect_opts_free(o);
    f->vtboot = o->vtboot;
    f->vtboot_cmdline = o->vtboot_cmdline ? o->vtboot_cmdline : "";
    f->policy = o->policy;
    f->map = o->map;
    f->nr_modules = 0;
    if (o->xen_file)
        add(f, o->xen_file, o->xen_cmdline);
    add(f, o->kernel, o->cmdline);
    if (o->initrd)
        add(f, o->initrd, o->initrd_cmdline);
    for (unsigned i = 0; i < o->nextra; i++) {
        const char *eq = strchr(o->extra[i], '=');

        o->files[i] = strndup(o->extra[i], eq ? (size_t)(eq - o->extra[i]) : strlen(o->extra[i]));
        add(f, o->files[i], eq ? eq + 1 : "");
    }
}

void expect_opts_free(struct expect_opts *o)
{
    for (unsigned i = 0; i < PREDICT_MAX_MODULES; i++) {
        free(o->files[i]);
        o->files[i] = NULL;
    }
}

int expect_opts_txt(const struct expect_opts *o, struct txt_expect *t, struct predict_input *in,
                    char *err, size_t errsz)
{
    if (!o->sinit) {
        if (o->caps_given || o->lcp_policy) {
            snprintf(err, errsz, "--%s needs --sinit",
                     o->caps_given ? "os-sinit-caps" : "lcp-policy");
            return -1;
        }
        return 0;
    }
    if (txt_expect_load(o->sinit, o->os_sinit_caps, t, err, errsz) ||
        (o->lcp_policy && txt_expect_set_policy(t, o->lcp_policy, err, errsz)))
        return -1;
    in->txt = &t->events;
    in->mle_bank = TXT_EXPECT_TBOOT_BANK;
    return 0;
}
