/* SPDX-License-Identifier: MIT */
#include "lib/string.h"
#include "tboot/shared_page.h"

static const uint8_t shared_uuid[16] = TBOOT_SHARED_UUID_BYTES;

void shared_page_init(void *page, const struct shared_page_args *a)
{
    struct tboot_shared *sp = page;

    memset(page, 0, 4096);
    memcpy(sp->uuid, shared_uuid, sizeof(sp->uuid));
    sp->version = TBOOT_SHARED_VERSION;
    sp->log_addr = a->log_addr;
    sp->shutdown_entry = a->shutdown_entry;
    sp->tboot_base = a->tboot_base;
    sp->tboot_size = a->tboot_size;
    sp->ap_wake_trigger = TB_AP_WAKE_TRIGGER_DEF;
}

bool shared_page_valid(const struct tboot_shared *sp)
{
    return memcmp(sp->uuid, shared_uuid, sizeof(shared_uuid)) == 0;
}

const char *shutdown_type_name(uint32_t type)
{
    static const char *const names[] = { "reboot", "S5 (power off)", "S4 (hibernate)",
                                         "S3 (suspend to RAM)", "halt", "wait-for-SIPI" };
    return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}

bool shutdown_claim(uint32_t *owner, uint32_t apic_id)
{
    uint32_t none = 0;
    return __atomic_compare_exchange_n(owner, &none, apic_id + 1, false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST) || none == apic_id + 1;
}

enum shutdown_action shutdown_decide(uint32_t type, bool boot_cpu, uint32_t *owner,
                                     uint32_t apic_id)
{
    if (type == TB_SHUTDOWN_WFS)
        return boot_cpu ? SHUTDOWN_BOOT_CPU_WFS : SHUTDOWN_PARKS;
    /* checked before the claim: an AP that claimed S3 would INIT the boot CPU (S3 takes the
     * other CPUs back, takeover.c), which then runs the firmware's reset path */
    if (type == TB_SHUTDOWN_S3 && !boot_cpu)
        return SHUTDOWN_LATE_S3_ON_AP;
    return shutdown_claim(owner, apic_id) ? SHUTDOWN_ENDS : SHUTDOWN_LATE_BEHIND_OWNER;
}

void shared_page_fixed_get(const struct tboot_shared *sp, struct shared_page_fixed *out)
{
    memset(out, 0, sizeof(*out));
    memcpy(out->uuid, sp->uuid, sizeof(out->uuid));
    out->version = sp->version;
    out->log_addr = sp->log_addr;
    out->shutdown_entry = sp->shutdown_entry;
    out->tboot_base = sp->tboot_base;
    out->tboot_size = sp->tboot_size;
    out->flags = sp->flags;
    out->ap_wake_addr = sp->ap_wake_addr;
    out->ap_wake_trigger = sp->ap_wake_trigger;
}

const char *shared_page_fixed_diff(const struct shared_page_fixed *was,
                                   const struct tboot_shared *sp)
{
    struct shared_page_fixed now;

    shared_page_fixed_get(sp, &now);
    if (memcmp(was->uuid, now.uuid, sizeof(now.uuid)))
        return "uuid";
    if (was->version != now.version)
        return "version";
    if (was->log_addr != now.log_addr)
        return "log_addr";
    if (was->shutdown_entry != now.shutdown_entry)
        return "shutdown_entry";
    if (was->tboot_base != now.tboot_base)
        return "tboot_base";
    if (was->tboot_size != now.tboot_size)
        return "tboot_size";
    if (was->flags != now.flags)
        return "flags";
    if (was->ap_wake_addr != now.ap_wake_addr)
        return "ap_wake_addr";
    if (was->ap_wake_trigger != now.ap_wake_trigger)
        return "ap_wake_trigger";
    return 0;
}
