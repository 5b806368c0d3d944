/* SPDX-License-Identifier: MIT */
#include "common/launch_tpm.h"
#include "drivers/tis.h"
#include "lib/format.h"
#include "log/printk.h"
#include "tpm/banks.h"

static struct tis tis;
static struct tpm2 tpm;
static struct tpm_banks banks;

bool launch_tpm_find(uint16_t extpol)
{
    tpm.transmit = tis_transmit;
    tpm.ctx = &tis;
    if (!tis_probe(&tis, 0, tpm.err, sizeof(tpm.err)) ||
        !tis_request_locality(&tis, LAUNCH_LOCALITY, tpm.err, sizeof(tpm.err))) {
        pr_err("TPM: %s\n", tpm.err);
        tpm.transmit = 0;
        return false;
    }
    int rc = tpm2_startup(&tpm, TPM2_SU_CLEAR);
    if (rc && rc != (int)TPM2_RC_INITIALIZE) {
        pr_err("TPM: %s\n", tpm.err);
        return false;
    }
    if (tpm2_get_pcr_banks(&tpm, &banks) || banks.count == 0) {
        pr_err("TPM: no usable PCR bank (%s)\n",
               banks.count ? tpm.err : "none of SHA-1/256/384/512");
        return false;
    }
    if (tpm_banks_select(&banks, extpol, tpm.err, sizeof(tpm.err))) {
        pr_err("TPM: %s\n", tpm.err);
        return false;
    }
    pr_info("TPM 2.0 (DID/VID 0x%08x) at locality %u, %u PCR bank(s):", tis.did_vid,
            LAUNCH_LOCALITY, banks.count);
    for (unsigned i = 0; i < banks.count; i++)
        printk(LOG_INFO, " %s", tpm_hash_name(banks.alg[i]));
    printk(LOG_INFO, "\n");
    return true;
}

bool launch_tpm_usable(void)
{
    return tpm.transmit && banks.count;
}

void launch_tpm_forget(void)
{
    tpm.transmit = 0;
}

bool launch_tpm_acquire(void)
{
    if (tis_request_locality(&tis, LAUNCH_LOCALITY, tpm.err, sizeof(tpm.err)))
        return true;
    pr_err("TPM: %s\n", tpm.err);
    return false;
}

void launch_tpm_release(void)
{
    tis_release_locality(&tis);
}

struct tpm2 *launch_tpm(void)
{
    return &tpm;
}

const struct tpm_banks *launch_banks(void)
{
    return &banks;
}

void launch_tpm_print_digests(const char *what, const struct tpm_digest_list *d)
{
    for (unsigned i = 0; i < d->count; i++) {
        char hex[2 * TPM2_MAX_DIGEST + 1];
        unsigned n = tpm_hash_size(d->d[i].alg);
        for (unsigned b = 0; b < n; b++)
            fmt_snprintf(hex + 2 * b, 3, "%02x", d->d[i].bytes[b]);
        pr_info("  %s %s: %s\n", what, tpm_hash_name(d->d[i].alg), hex);
    }
}
