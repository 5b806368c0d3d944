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
