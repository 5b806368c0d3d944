/* SPDX-License-Identifier: MIT */
/* options_parse() on any command line: options stay in range, warnings stay bounded. */
#include "fuzz_common.h"

#include "boot/options.h"

/* field by field: the structs have padding */
static bool same(const struct vtboot_options *a, const struct vtboot_options *b)
{
    return a->log_serial == b->log_serial && a->log_memory == b->log_memory &&
           a->loglvl == b->loglvl && a->serial_baud == b->serial_baud &&
           a->serial_clock_hz == b->serial_clock_hz && a->serial_port == b->serial_port &&
           a->serial_lcr == b->serial_lcr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *line = malloc(size + 1);           /* exact size: ASan sees reads past the NUL */
    memcpy(line, data, size);
    line[size] = '\0';

    struct vtboot_options o, def;
    struct options_diag d;
    options_defaults(&o);
    options_defaults(&def);
    memset(&d, 0x55, sizeof(d));
    options_parse(&o, line, &d);
    FUZZ_ASSERT(d.n <= OPTIONS_DIAG_MAX, "%u warnings", d.n);
    for (unsigned i = 0; i < d.n; i++) {
        FUZZ_ASSERT(memchr(d.msg[i], 0, sizeof(d.msg[i])), "warning %u unterminated", i);
        FUZZ_ASSERT(strncmp(d.msg[i], "ignoring bad value '", 20) == 0, "warning '%s'", d.msg[i]);
    }
    FUZZ_ASSERT((o.loglvl & ~0xfu) == 0, "loglvl 0x%x", o.loglvl);
    FUZZ_ASSERT(o.serial_baud >= 1200 && o.serial_baud <= 115200, "baud %u", o.serial_baud);
    FUZZ_ASSERT(o.serial_clock_hz != 0, "clock 0");
    FUZZ_ASSERT(o.serial_port != 0 && o.serial_port <= 0xfff8, "port 0x%x", o.serial_port);
    FUZZ_ASSERT(o.serial_lcr <= 0x1f, "lcr 0x%x", o.serial_lcr);
    /* a line without '=' changes nothing */
    if (!memchr(data, '=', size))
        FUZZ_ASSERT(same(&o, &def) && d.n == 0, "changed without '='");
    /* parsing is deterministic and a NULL diag is fine */
    struct vtboot_options o2;
    options_defaults(&o2);
    options_parse(&o2, line, NULL);
    FUZZ_ASSERT(same(&o, &o2), "not deterministic");
    free(line);
    return 0;
}
