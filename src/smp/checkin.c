/* SPDX-License-Identifier: MIT */
#include "lib/format.h"
#include "smp/checkin.h"

_Static_assert(__builtin_offsetof(struct ap_checkins, entered) == 0,
               "ap_start.S counts on the structure's address");

void checkin_record(struct ap_checkins *c, uint32_t apic_id)
{
    uint32_t bit = 1u << (apic_id % 32);
    if (__atomic_fetch_or(&c->apic_ids[apic_id / 32], bit, __ATOMIC_SEQ_CST) & bit)
        __atomic_fetch_add(&c->repeated, 1, __ATOMIC_SEQ_CST);
    /* last: the MLE reads the record once this count says it is there */
    __atomic_fetch_add(&c->checked_in, 1, __ATOMIC_SEQ_CST);
}

bool checkin_complete(const struct ap_checkins *c, uint32_t expected)
{
    uint32_t entered = __atomic_load_n(&c->entered, __ATOMIC_SEQ_CST);
    return entered >= expected && __atomic_load_n(&c->checked_in, __ATOMIC_SEQ_CST) == entered;
}

enum checkin_verdict checkin_verdict(const struct ap_checkins *c, uint32_t cpus,
                                     uint32_t bsp_apic_id)
{
    uint32_t entered = __atomic_load_n(&c->entered, __ATOMIC_SEQ_CST);

    if (cpus == 0 || cpus > MAX_CPUS)
        return CHECKIN_BAD_CPU_COUNT;
    if (entered < cpus - 1)
        return CHECKIN_TOO_FEW;
    if (entered > cpus - 1)
        return CHECKIN_TOO_MANY;
    if (__atomic_load_n(&c->checked_in, __ATOMIC_SEQ_CST) != entered)
        return CHECKIN_UNRECORDED;
    if (__atomic_load_n(&c->repeated, __ATOMIC_SEQ_CST))
        return CHECKIN_REPEATED;
    if (bsp_apic_id < MAX_CPUS &&
        (__atomic_load_n(&c->apic_ids[bsp_apic_id / 32], __ATOMIC_SEQ_CST) &
         (1u << (bsp_apic_id % 32))))
        return CHECKIN_LAUNCHING_ID;
    return CHECKIN_OK;
}

void checkin_format_ids(const struct ap_checkins *c, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (uint32_t id = 0; id < MAX_CPUS; id++) {
        if (!(__atomic_load_n(&c->apic_ids[id / 32], __ATOMIC_SEQ_CST) & (1u << (id % 32))))
            continue;
        int n = fmt_snprintf(buf + len, size - len, len ? " %u" : "%u", id);
        if (n < 0 || (size_t)n >= size - len) {
            buf[len] = '\0';           /* whole IDs only */
            return;
        }
        len += (size_t)n;
    }
    if (!len)
        fmt_snprintf(buf, size, "none");
}

void checkin_describe(enum checkin_verdict v, const struct ap_checkins *c, uint32_t cpus,
                      uint32_t bsp_apic_id, char *buf, size_t size)
{
    char ids[3 * MAX_CPUS];
    const char *why = "";

    if (v == CHECKIN_BAD_CPU_COUNT) {
        fmt_snprintf(buf, size, "the host counts %u CPUs; vtboot takes 1 to %u", cpus,
                     MAX_CPUS);
        return;
    }
    if (v == CHECKIN_UNRECORDED)
        why = ": one never recorded its APIC ID (one above the highest vtboot has a stack for)";
    else if (v == CHECKIN_REPEATED)
        why = ": one APIC ID checked in twice";
    else if (v == CHECKIN_LAUNCHING_ID)
        why = ": one has the launching CPU's APIC ID";
    checkin_format_ids(c, ids, sizeof(ids));
    fmt_snprintf(buf, size, "expected %u other CPUs to check in, %u arrived (APIC IDs %s; "
                 "launching CPU %u)%s", cpus - 1, __atomic_load_n(&c->entered, __ATOMIC_SEQ_CST),
                 ids, bsp_apic_id, why);
}
