/* SPDX-License-Identifier: MIT */
#include "common/drtm_log.h"
#include "common/ext_block.h"
#include "layout.h"
#include "lib/string.h"
#include "log/printk.h"
#include "tboot/shared_page.h"
#include "tpm/eventlog.h"

static struct event_log evlog;

int drtm_log_start(const struct tpm_banks *banks)
{
    if (evlog_init(&evlog, _evtlog_start, sym_addr(_evtlog_end) - sym_addr(_evtlog_start),
                   banks))
        return -1;
    ext_block()->evtlog_addr = sym_addr(_evtlog_start);
    ext_block()->evtlog_size = evlog.cap;
    ext_block()->evtlog_used = evlog.used;
    return 0;
}

bool drtm_log_started(void)
{
    return evlog.cap != 0;
}

int drtm_log_event(uint32_t pcr, uint32_t type, const struct tpm_digest_list *d, const char *what)
{
    if (evlog_append(&evlog, pcr, type, d, what, (uint32_t)strlen(what))) {
        pr_err("event log full (%u bytes); event for PCR %u not logged\n", evlog.cap, pcr);
        return -1;
    }
    if (shared_page_valid((struct tboot_shared *)_shared_page))
        ext_block()->evtlog_used = evlog.used;
    return 0;
}

uint32_t drtm_log_used(void)
{
    return evlog.used;
}
