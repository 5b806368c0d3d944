/* SPDX-License-Identifier: MIT */
/* A growable NULL-terminated argv. */
#ifndef HOST_STRV_H
#define HOST_STRV_H

struct strv {
    char **v;
    int n, cap;
};

void strv_add(struct strv *s, const char *arg);
void strv_addf(struct strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strv_free(struct strv *s);

#endif
