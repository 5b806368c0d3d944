/* SPDX-License-Identifier: MIT */
#include "vsenter.h"
#include "util.h"
#include "abi/mle.h"

#include <stdio.h>
#include <string.h>

int vs_lines_feed(struct vs_lines *l, char c)
{
    if (c == '\n') {
        if (l->overlong)
            return 2;
        if (l->len && l->buf[l->len - 1] == '\r')
            l->len--;
        l->buf[l->len] = 0;
        return 1;
    }
    /* the '\n' counts towards VSENTER_LINE_MAX */
    if (l->overlong || l->len + 1 >= VSENTER_LINE_MAX) {
        l->overlong = true;
        return 0;
    }
    l->buf[l->len++] = c;
    return 0;
}

void vs_lines_next(struct vs_lines *l)
{
    l->len = 0;
    l->overlong = false;
}

/* "0x" and 1..8 hex digits at *p; advances *p */
static bool hex32(const char **p, uint32_t *out)
{
    const char *s = *p;
    uint32_t v = 0;
    int n = 0;

    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return false;
    s += 2;
    for (;; s++, n++) {
        int d = hex_digit(*s);

        if (d < 0)
            break;
        if (n == 8)
            return false;
        v = v << 4 | (uint32_t)d;
    }
    if (!n)
        return false;
    *out = v;
    *p = s;
    return true;
}

static bool lit(const char **p, const char *s)
{
    size_t n = strlen(s);

    if (strncmp(*p, s, n))
        return false;
    *p += n;
    return true;
}

int vs_parse(const char *line, uint64_t lowmem, struct vs_request *rq, char *err, size_t errsz)
{
    const char *p = line;
    unsigned proto = 0;
    int digits = 0;
    uint64_t end;

    rq->has_id = false;
    if (!lit(&p, "VSENTER ")) {
        snprintf(err, errsz, "not a VSENTER request");
        return -1;
    }
    while (*p >= '0' && *p <= '9' && digits < 4) {
        proto = proto * 10 + (unsigned)(*p++ - '0');
        digits++;
    }
    if (!digits || *p != ' ') {
        snprintf(err, errsz, "malformed request");
        return -1;
    }
    if (proto != VSENTER_PROTOCOL) {
        snprintf(err, errsz, "unsupported protocol %u", proto);
        return -1;
    }
    if (!lit(&p, " id=") || !hex32(&p, &rq->id)) {
        snprintf(err, errsz, "malformed request");
        return -1;
    }
    rq->has_id = true;
    if (!lit(&p, " mle_base=") || !hex32(&p, &rq->mle_base) || !lit(&p, " mle_hdr=") ||
        !hex32(&p, &rq->mle_hdr) || *p) {
        snprintf(err, errsz, "malformed request");
        return -1;
    }
    end = (uint64_t)rq->mle_hdr + sizeof(struct mle_hdr);
    if (end > (1ull << 32)) {
        snprintf(err, errsz, "MLE header crosses 4 GiB");
        return -1;
    }
    if (end > lowmem) {
        snprintf(err, errsz, "MLE header not in guest RAM");
        return -1;
    }
    return 0;
}

void vs_refusal(const struct vs_request *rq, const char *reason, char *out, size_t outsz)
{
    int n = rq && rq->has_id ? snprintf(out, outsz - 1, VSENTER_ERR_ID_FMT "%s", VSENTER_PROTOCOL,
                                        rq->id, reason)
                             : snprintf(out, outsz - 1, VSENTER_ERR_PREFIX "%d %s",
                                        VSENTER_PROTOCOL, reason);
    size_t len = n < 0 ? 0 : (size_t)n > outsz - 2 ? outsz - 2 : (size_t)n;

    out[len] = '\n';
    out[len + 1] = 0;
}

uint64_t vs_lowmem(const char *machine, uint64_t ram)
{
    /* QEMU 7.2: q35 puts RAM above 2 GiB over 4 GiB once it has 2.75 GiB or more (pc_q35.c);
     * i440fx does so at 3.5 GiB, keeping 3 GiB below (pc_piix.c, gigabyte_align) */
    if (!strcmp(machine, "q35"))
        return ram >= 0xb0000000ull ? 0x80000000ull : ram;
    return ram >= 0xe0000000ull ? 0xc0000000ull : ram;
}

int vs_init_msi_packet(unsigned apic_id, char *out, size_t outsz)
{
    if (apic_id > 0xff || outsz < 32)
        return -1;
    /* M<address>,<length>:<bytes>; the data 0x00000500 little-endian */
    snprintf(out, outsz, "M%x,4:00050000", 0xfee00000u | apic_id << 12);
    return 0;
}
