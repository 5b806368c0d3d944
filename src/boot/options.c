/* SPDX-License-Identifier: MIT */
#include "abi/tpm2.h"
#include "boot/options.h"
#include "lib/format.h"
#include "lib/string.h"
#include "tboot/malform.h"

#define VALUE_MAX 64u                /* tboot truncates values to 63 characters */

static void warn(struct options_diag *d, const char *name, const char *value)
{
    if (d && d->n < OPTIONS_DIAG_MAX)
        fmt_snprintf(d->msg[d->n++], sizeof(d->msg[0]), "ignoring bad value '%s' for %s", value,
                     name);
}

void options_defaults(struct vtboot_options *o)
{
    *o = (struct vtboot_options){
        .log_serial = true,
        .log_memory = true,
        .loglvl = LOG_ALL,
        .serial_baud = 115200,
        .serial_clock_hz = 1843200,
        .serial_port = 0x3f8,
        .serial_lcr = 0x03,          /* 8n1 */
    };
}

/* Calls fn for each comma-separated item of v; returns false if any item was rejected. */
static bool each_item(const char *v, bool (*fn)(struct vtboot_options *, const char *, unsigned),
                      struct vtboot_options *o)
{
    bool ok = true;
    while (*v) {
        const char *c = strchr(v, ',');
        unsigned n = c ? (unsigned)(c - v) : (unsigned)strlen(v);
        ok &= fn(o, v, n);
        v += n + (c ? 1 : 0);
    }
    return ok;
}

static bool item_is(const char *item, unsigned n, const char *word)
{
    return strlen(word) == n && strncmp(item, word, n) == 0;
}

static bool logging_item(struct vtboot_options *o, const char *it, unsigned n)
{
    if (item_is(it, n, "serial"))
        o->log_serial = true;
    else if (item_is(it, n, "memory"))
        o->log_memory = true;
    else if (item_is(it, n, "vga") || item_is(it, n, "none"))
        ; /* no VGA console in vtboot; "none" only clears */
    else
        return false;
    return true;
}

static bool loglvl_item(struct vtboot_options *o, const char *it, unsigned n)
{
    static const struct { const char *name; unsigned bit; } lv[] = {
        { "err", LOG_ERR }, { "warn", LOG_WARN }, { "info", LOG_INFO }, { "detail", LOG_DETAIL },
        { "all", LOG_ALL }, { "none", 0 },
    };
    for (unsigned i = 0; i < sizeof(lv) / sizeof(lv[0]); i++) {
        if (item_is(it, n, lv[i].name)) {
            o->loglvl |= lv[i].bit;
            return true;
        }
    }
    return false;
}

/* Parses an unsigned decimal or 0x-hex number; *p is left at the first character after it. */
static bool parse_uint(const char **p, uint32_t *out)
{
    const char *s = *p;
    unsigned base = 10;
    uint64_t v = 0;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    const char *digits = s;
    for (;; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            break;
        v = v * base + d;
        if (v > 0xffffffffu)
            return false;
    }
    if (s == digits)
        return false;
    *out = (uint32_t)v;
    *p = s;
    return true;
}

/* serial=<baud>[/<clock_hz>][,<DPS>[,<io-base>]] (tboot also takes irq and PCI BDFs: ignored) */
static bool parse_serial(struct vtboot_options *o, const char *v)
{
    struct vtboot_options t = *o;
    uint32_t n;

    if (!parse_uint(&v, &n))
        return false;
    if (n < 1200 || n > 115200)
        return false;
    t.serial_baud = n;
    if (*v == '/') {
        v++;
        if (!parse_uint(&v, &n) || n == 0)
            return false;
        t.serial_clock_hz = n;
    }
    if (*v == ',') {
        v++;
        if (v[0] < '5' || v[0] > '8' || !v[1] || !strchr("noe", v[1]) || (v[2] != '1' && v[2] != '2'))
            return false;
        t.serial_lcr = (uint8_t)((v[0] - '5') | (v[2] == '2' ? 0x04 : 0) |
                                 (v[1] == 'o' ? 0x08 : v[1] == 'e' ? 0x18 : 0));
        v += 3;
        if (*v == ',') {
            v++;
            if (!parse_uint(&v, &n) || n == 0 || n > 0xfff8)
                return false;
            t.serial_port = (uint16_t)n;
        }
    }
    if (*v && *v != ',')
        return false;
    *o = t;
    return true;
}

/* extpol=sha1|sha256|sha384|sha512 (one bank, as tboot's default sha256 does) or
 * all|embedded|agile (every active bank, vtboot's default). */
static bool parse_extpol(struct vtboot_options *o, const char *v)
{
    static const char every_bank[][9] = { "all", "embedded", "agile" };
    const struct tpm_hash_alg *a = tpm_hash_by_name(v, strlen(v));

    if (a) {
        o->extpol_alg = a->id;
        return true;
    }
    for (unsigned i = 0; i < sizeof(every_bank) / sizeof(every_bank[0]); i++) {
        if (strcmp(v, every_bank[i]) == 0) {
            o->extpol_alg = 0;
            return true;
        }
    }
    return false;
}

void options_parse(struct vtboot_options *o, const char *cmdline, struct options_diag *diag)
{
    char name[VALUE_MAX], value[VALUE_MAX];
    const char *p = cmdline;

    if (diag)
        diag->n = 0;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *tok = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        const char *eq = tok;
        while (eq < p && *eq != '=')
            eq++;
        if (eq == p || eq == tok)
            continue;                /* no '=' (an image path) or no name */
        unsigned nl = (unsigned)(eq - tok), vl = (unsigned)(p - eq - 1);
        if (nl >= VALUE_MAX)
            continue;
        if (vl >= VALUE_MAX)
            vl = VALUE_MAX - 1;
        memcpy(name, tok, nl);
        name[nl] = '\0';
        memcpy(value, eq + 1, vl);
        value[vl] = '\0';

        if (strncmp("logging", name, nl) == 0) {
            struct vtboot_options t = *o;
            t.log_serial = t.log_memory = false;
            if (each_item(value, logging_item, &t))
                *o = t;
            else
                warn(diag, "logging", value);
        } else if (strncmp("loglvl", name, nl) == 0) {
            struct vtboot_options t = *o;
            t.loglvl = 0;
            if (each_item(value, loglvl_item, &t))
                *o = t;
            else
                warn(diag, "loglvl", value);
        } else if (strncmp("serial", name, nl) == 0) {
            if (!parse_serial(o, value))
                warn(diag, "serial", value);
        } else if (strncmp("extpol", name, nl) == 0) {
            if (!parse_extpol(o, value))
                warn(diag, "extpol", value);
        } else if (strncmp("test_shared", name, nl) == 0) {
            int bad;
            unsigned mask = malform_parse(value, &bad);
            if (bad)
                warn(diag, "test_shared", value);
            else
                o->test_shared = mask;
        } else if (strncmp("pcr_map", name, nl) == 0) {
            if (strcmp(value, "legacy") == 0 || strcmp(value, "da") == 0)
                o->pcr_map_legacy = strcmp(value, "legacy") == 0;
            else
                warn(diag, "pcr_map", value);
        }
    }
}
