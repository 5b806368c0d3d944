/* SPDX-License-Identifier: MIT */
#include "expect.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define SLURP_MAX (1ull << 31)

uint8_t *expect_slurp(const char *path, size_t *len)
{
    gzFile f = gzopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    int got;

    if (!f)
        return NULL;
    do {
        if (n == cap) {
            uint8_t *more;

            if (cap >= SLURP_MAX) {
                free(buf);
                gzclose(f);
                errno = EFBIG;
                return NULL;
            }
            cap = cap ? cap * 2 : 1 << 20;
            more = realloc(buf, cap);
            if (!more) {
                free(buf);
                gzclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = more;
        }
        got = gzread(f, buf + n, (unsigned)(cap - n > (1u << 30) ? 1u << 30 : cap - n));
        if (got > 0)
            n += (size_t)got;
    } while (got > 0);
    if (got < 0) {
        free(buf);
        gzclose(f);
        errno = EIO;
        return NULL;
    }
    gzclose(f);
    *len = n;
    return buf;
}

int expect_load(const struct expect_files *f, struct expect *e, char *err, size_t errsz)
{
    memset(e, 0, sizeof(*e));
    e->in.map = f->map;
    if (f->nr_modules > PREDICT_MAX_MODULES)
        return errorf(err, errsz, "more than %d modules", PREDICT_MAX_MODULES);
    if (mle_load(f->vtboot, f->vtboot_cmdline, &e->mle))
        return errorf(err, errsz, "cannot take vtboot's MLE from %s", f->vtboot);
    e->in.mle = e->mle.bytes;
    e->in.mle_size = e->mle.size;
    if (f->policy) {
        size_t len;
        char why[160];
        uint8_t *raw = expect_slurp(f->policy, &len);

        if (!raw) {
            errorf(err, errsz, "cannot read %s: %s", f->policy, strerror(errno));
            goto fail;
        }
        if (tb_policy_parse(raw, len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, &e->policy, why,
                            sizeof(why))) {
            free(raw);
            errorf(err, errsz, "%s: %s", f->policy, why);
            goto fail;
        }
        free(raw);
    } else {
        tb_policy_default(&e->policy, f->map);
        e->default_policy = true;
    }
    e->in.policy = &e->policy;
    for (unsigned i = 0; i < f->nr_modules; i++) {
        struct predict_module *m = &e->in.modules[i];

        m->cmdline = f->modules[i].cmdline;
        e->images[i] = expect_slurp(f->modules[i].file, &m->size);
        if (!e->images[i]) {
            errorf(err, errsz, "cannot read %s: %s", f->modules[i].file, strerror(errno));
            goto fail;
        }
        m->image = e->images[i];
        e->in.nr_modules++;
    }
    return 0;
fail:
    expect_free(e);
    return -1;
}

void expect_free(struct expect *e)
{
    mle_free(&e->mle);
    for (unsigned i = 0; i < PREDICT_MAX_MODULES; i++) {
        free(e->images[i]);
        e->images[i] = NULL;
    }
    e->in.nr_modules = 0;
}
