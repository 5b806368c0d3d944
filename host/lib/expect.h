/* SPDX-License-Identifier: MIT */
/*
 * The expectation of a launch, from the files: vtboot's ELF (its MLE with vtboot's command
 * line), the policy (a tb_polgen file, or tboot's default), the modules with their exact
 * strings. Loads them into a predict_input (predict.h). vtboot-pcr predict and vtboot-attest
 * verify both use this, so a verifier's expectation is exactly vtboot-pcr's prediction.
 * Module files are read through gzip, as GRUB loads them and tb_polgen hashes them.
 */
#ifndef HOST_EXPECT_H
#define HOST_EXPECT_H

#include "mle.h"
#include "predict.h"

struct expect_files {
    const char *vtboot;              /* vtboot's ELF (or vtboot.gz) */
    const char *vtboot_cmdline;      /* exactly as vtboot gets it */
    const char *policy;              /* tb_polgen file; NULL: tboot's default policy */
    enum pcr_map map;
    unsigned nr_modules;
    struct {
        const char *file;
        const char *cmdline;         /* the exact module string */
    } modules[PREDICT_MAX_MODULES];
};

struct expect {
    struct mle mle;
    struct tb_policy policy;
    bool default_policy;
    uint8_t *images[PREDICT_MAX_MODULES];
    struct predict_input in;
};

/* 0, or -1 with the reason in err (e.g. "cannot read F", "F: policy version 3, ..."). */
int expect_load(const struct expect_files *f, struct expect *e, char *err, size_t errsz);
void expect_free(struct expect *e);

/* A file's bytes, unpacked if it is gzip; NULL (errno set) if it cannot be read. */
uint8_t *expect_slurp(const char *path, size_t *len);

#endif
