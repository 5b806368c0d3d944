/* SPDX-License-Identifier: MIT */
#include "abi/tboot_shared.h"
#include "abi/tcg_eventlog.h"
#include "abi/vtboot_ext.h"
#include "crypto/hash.h"
#include "drivers/timer.h"
#include "drivers/tis.h"
#include "launch.h"
#include "layout.h"
#include "lib/format.h"
#include "lib/string.h"
#include "log/printk.h"
#include "platform.h"
#include "tboot/measure.h"
#include "tboot/policy.h"
#include "tboot/shared_page.h"
#include "tpm/eventlog.h"
#include "tpm/tpm2.h"

static struct tis tis;
static struct tpm2 tpm;
static struct tpm_banks banks;
static struct tb_policy policy;
static struct launch_measurements lm;
static struct event_log evlog;
static uint8_t nv_buf[TB_POLICY_MAX_SIZE];
static bool launched;                /* PCR 17 holds our launch: cap it before any halt */
static struct tpm_digest_list mle_digests;  /* H(MLE) per bank, for the event log */
static uint16_t opts_extpol;         /* extpol=: one bank, or 0 for every active bank */
static enum pcr_map opts_pcr_map;

static struct vtboot_ext *ext(void)
{
    return (struct vtboot_ext *)(_shared_page + VTBOOT_EXT_OFFSET);
}

void launch_ext_init(uint32_t memlog_addr)
{
    static const uint8_t uuid[16] = VTBOOT_EXT_UUID_BYTES;
    struct vtboot_ext *x = ext();
    memset(x, 0, sizeof(*x));
    memcpy(x->uuid, uuid, sizeof(uuid));
    x->version = VTBOOT_EXT_VERSION;
    x->size = sizeof(*x);
    x->memlog_addr = memlog_addr;
    if (launched)
        x->flags |= VTBOOT_EXT_TPM | VTBOOT_EXT_LAUNCHED;
}

static void print_digests(const char *what, const struct tpm_digest_list *d)
{
    for (unsigned i = 0; i < d->count; i++) {
        char hex[2 * TPM2_MAX_DIGEST + 1];
        unsigned n = tpm_hash_size(d->d[i].alg);
        for (unsigned b = 0; b < n; b++)
            fmt_snprintf(hex + 2 * b, 3, "%02x", d->d[i].bytes[b]);
        pr_info("  %s %s: %s\n", what, tpm_hash_name(d->d[i].alg), hex);
    }
}

/* The event log lives in vtboot's region before the shared page is written: its address goes
 * into vtboot's block when that is (launch_ext_init), and its length after every event. */
static int log_event(uint32_t pcr, uint32_t type, const struct tpm_digest_list *d,
                     const char *what)
{
    if (evlog_append(&evlog, pcr, type, d, what, (uint32_t)strlen(what))) {
        pr_err("event log full (%u bytes); event for PCR %u not logged\n", evlog.cap, pcr);
        return -1;
    }
    if (shared_page_valid((struct tboot_shared *)_shared_page))
        ext()->evtlog_used = evlog.used;
    return 0;
}

/* Applies the policy to an error; returns the action (continue or unmeasured launch). A halt
 * goes through platform_halt, which caps the PCRs first once the launch happened. */
static enum tb_action apply_policy(enum tb_error e)
{
    enum tb_action a = tb_policy_action(policy.type, e);
    if (e == TB_ERR_NONE)
        return a;
    printk(a == TB_ACT_CONTINUE ? LOG_WARN : LOG_ERR, "%s: the %s policy says %s\n",
           tb_error_name(e), tb_policy_type_name(policy.type), tb_action_name(a));
    if (a == TB_ACT_HALT)
        platform_halt(tb_error_name(e));
    return a;
}

static void use_options(const struct vtboot_options *opts)
{
    opts_extpol = opts->extpol_alg;
    opts_pcr_map = opts->pcr_map_legacy ? PCR_MAP_LEGACY : PCR_MAP_DA;
    tb_policy_default(&policy, opts_pcr_map);   /* judges errors until NV has been read */
}

/* The TPM at the launch's locality, started, with its banks (extpol= narrows them). */
static bool find_tpm(void)
{
    tpm.transmit = tis_transmit;
    tpm.ctx = &tis;
    if (!tis_probe(&tis, tpm.err, sizeof(tpm.err)) ||
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
        pr_err("TPM: no usable PCR bank (%s)\n", banks.count ? tpm.err : "none of SHA-1/256/384/512");
        return false;
    }
    if (opts_extpol) {
        unsigned i = 0;
        while (i < banks.count && banks.alg[i] != opts_extpol)
            i++;
        if (i == banks.count) {
            pr_err("TPM: extpol=%s but the TPM has no active %s bank\n",
                   tpm_hash_name(opts_extpol), tpm_hash_name(opts_extpol));
            return false;
        }
        banks.alg[0] = opts_extpol;
        banks.count = 1;
    }
    pr_info("TPM 2.0 (DID/VID 0x%08x) at locality %u, %u PCR bank(s):", tis.did_vid,
            LAUNCH_LOCALITY, banks.count);
    for (unsigned i = 0; i < banks.count; i++)
        printk(LOG_INFO, " %s", tpm_hash_name(banks.alg[i]));
    printk(LOG_INFO, "\n");
    return true;
}

/* The policy from NV index 0x01200001, else tboot's default (tboot's set_policy); fails
 * closed where tboot falls back (tb_policy_source). */
static void read_policy(struct launch_state *st)
{
    struct tb_policy_nv_read r = { 0 };
    uint16_t size = 0;
    char err[128] = "";

    r.public_rc = tpm2_nv_read_public(&tpm, TB_POLICY_NV_INDEX_TPM2, &r.attributes, &size);
    if (r.public_rc == 0 && !(r.attributes & TPMA_NV_PPWRITE)) {
        if (size > sizeof(nv_buf)) {
            pr_warn("policy: NV index holds %u bytes, reading the first %u\n", size,
                    (unsigned)sizeof(nv_buf));
            size = sizeof(nv_buf);
        }
        r.read_rc = tpm2_nv_read(&tpm, TB_POLICY_NV_INDEX_TPM2, nv_buf, size);
        if (r.read_rc == 0)
            r.parse_rc = tb_policy_parse(nv_buf, size, &policy, err, sizeof(err));
    }
    switch (tb_policy_source(&r)) {
    case TB_POLICY_FROM_NV:
        st->policy_from_nv = true;
        pr_info("policy: %u bytes from NV index 0x%08x: type %s, hash %s, control 0x%x, "
                "%u entries\n", policy.size, TB_POLICY_NV_INDEX_TPM2,
                tb_policy_type_name(policy.type), tpm_hash_name(policy.hash_alg),
                policy.control, policy.nr_entries);
        return;
    case TB_POLICY_DEFAULT:
        pr_info("policy: no policy in NV index 0x%08x (%s)\n", TB_POLICY_NV_INDEX_TPM2, tpm.err);
        tb_policy_default(&policy, opts_pcr_map);
        pr_warn("policy: using tboot's default policy (nonfatal, modules 1.. into PCR %u)\n",
                opts_pcr_map == PCR_MAP_DA ? 17 : 19);
        apply_policy(TB_ERR_POLICY_NOT_PRESENT);
        return;
    case TB_POLICY_HALT:
        break;
    }
    if (r.public_rc)
        pr_err("policy: cannot tell whether NV index 0x%08x exists: %s\n",
               TB_POLICY_NV_INDEX_TPM2, tpm.err);
    else if (r.attributes & TPMA_NV_PPWRITE)
        pr_err("policy: NV index 0x%08x is platform-writable (PPWRITE), not trusted\n",
               TB_POLICY_NV_INDEX_TPM2);
    else if (r.read_rc)
        pr_err("policy: NV index 0x%08x exists but cannot be read: %s\n",
               TB_POLICY_NV_INDEX_TPM2, tpm.err);
    else
        pr_err("policy in NV index 0x%08x is invalid: %s\n", TB_POLICY_NV_INDEX_TPM2, err);
    pr_err("policy: the index exists, so its policy is not replaced by the default one "
           "(tboot 1.10 would)\n");
    platform_halt("launch policy unusable");
}

/* H(0^n || H(MLE)) in every bank: what the dynamic launch leaves in PCR 17. */
static void expected_pcr17(struct tpm_digest_list *mle, struct tpm_digest_list *pcr17)
{
    uint32_t size = sym_addr(_mle_end) - sym_addr(_mle_start);
    mle->count = pcr17->count = banks.count;
    for (unsigned i = 0; i < banks.count; i++) {
        uint16_t alg = banks.alg[i];
        mle->d[i].alg = pcr17->d[i].alg = alg;
        hash_buffer(alg, _mle_start, size, mle->d[i].bytes);
        memset(pcr17->d[i].bytes, 0, sizeof(pcr17->d[i].bytes));
        hash_extend(alg, pcr17->d[i].bytes, mle->d[i].bytes);
    }
}

static void cap_on_halt(const char *why)
{
    (void)why;
    launch_cap_pcrs("halt");
}

void launch_confirm(const struct vtboot_options *opts)
{
    static struct tpm_digest_list want, got;

    use_options(opts);
    timer_init();
    /* From here on every halt caps first: PCR 17 may hold a launch value. */
    launched = true;
    platform_set_halt_hook(cap_on_halt);
    if (!find_tpm())
        platform_halt("launched, but the TPM is not usable");
    uint64_t t0 = timer_tsc();
    expected_pcr17(&mle_digests, &want);
    timer_count_hashing(timer_tsc() - t0);
    if (tpm2_pcr_read(&tpm, 17, &banks, &got)) {
        pr_err("reading PCR 17: %s\n", tpm.err);
        platform_halt("the launch cannot be confirmed");
    }
    for (unsigned i = 0; i < banks.count; i++) {
        if (memcmp(got.d[i].bytes, want.d[i].bytes, tpm_hash_size(banks.alg[i]))) {
            print_digests("PCR 17 expected", &want);
            print_digests("PCR 17 found", &got);
            pr_err("PCR 17 does not hold the launch of this MLE\n");
            platform_halt("the launch cannot be confirmed");
        }
    }
    pr_info("dynamic launch confirmed: PCR 17 = H(0 || H(MLE)) in every bank\n");
    print_digests("MLE", &mle_digests);
}

/* The event log's first event is the launch. It is written only now, once nothing a loader
 * put into vtboot's region is still there. */
void launch_log_start(void)
{
    if (evlog_init(&evlog, _evtlog_start, sym_addr(_evtlog_end) - sym_addr(_evtlog_start),
                   &banks) ||
        log_event(17, EV_TXT_MLE_HASH, &mle_digests, "vtboot: MLE (virtual SENTER)"))
        platform_halt("the event log cannot hold the launch");
    ext()->evtlog_addr = sym_addr(_evtlog_start);
    ext()->evtlog_size = evlog.cap;
    ext()->evtlog_used = evlog.used;
}

/* Extends and logs every measurement; false (with the reason logged) on the first failure. */
static bool extend_all(const struct vl_list *vl)
{
    for (unsigned i = 0; i < vl->n; i++) {
        const struct vl_entry *v = &vl->e[i];
        if (tpm2_pcr_extend(&tpm, v->pcr, &v->digests)) {
            pr_err("extending PCR %u: %s\n", v->pcr, tpm.err);
            return false;
        }
        pr_detail("extended PCR %u: %s\n", v->pcr, v->what);
        if (log_event(v->pcr, EV_TB_MEASUREMENT, &v->digests, v->what))
            return false;
    }
    return true;
}

static void verify_modules(void)
{
    for (unsigned i = 0; i < lm.nr_modules; i++) {
        const struct tb_policy_entry *e = tb_policy_find(&policy, i);
        char hex[2 * TPM2_MAX_DIGEST + 1];
        for (unsigned b = 0; b < tpm_hash_size(policy.hash_alg); b++)
            fmt_snprintf(hex + 2 * b, 3, "%02x", lm.policy_digest[i][b]);
        switch (lm.verdict[i]) {
        case MODULE_NOT_IN_POLICY:
            pr_err("module %u: not in the policy (%s %s)\n", i, tpm_hash_name(policy.hash_alg), hex);
            apply_policy(TB_ERR_MODULES_NOT_IN_POLICY);
            break;
        case MODULE_ACCEPTED_ANY:
            pr_info("module %u: accepted, policy allows any hash (%s %s)\n", i,
                    tpm_hash_name(policy.hash_alg), hex);
            break;
        case MODULE_MATCHED:
            pr_info("module %u: verified, %s %s matches the policy\n", i,
                    tpm_hash_name(policy.hash_alg), hex);
            break;
        case MODULE_MISMATCHED:
            pr_err("module %u: verification FAILED, %s %s is not among the policy's %u hash(es)\n",
                   i, tpm_hash_name(policy.hash_alg), hex, e ? e->num_hashes : 0);
            apply_policy(TB_ERR_MODULE_VERIFICATION_FAILED);
            break;
        }
    }
}

/* A module of 16 MiB or more says how far its hashing got, a line per 10% (tboot/progress.h). */
static void module_progress(void *arg, unsigned item, unsigned percent, uint64_t total)
{
    (void)arg;
    pr_info("hashing module %u (%llu bytes, every bank): %u%%\n", item,
            (unsigned long long)total, percent);
}

void launch_measure(const struct boot_info *bi, struct launch_state *st)
{
    static struct module_ref mods[BOOT_MAX_MODULES];

    st->tpm = st->launched = true;
    read_policy(st);
    if (st->policy_from_nv)
        ext()->flags |= VTBOOT_EXT_POLICY_NV;
    for (unsigned i = 0; i < bi->nr_modules; i++)
        mods[i] = (struct module_ref){ bi->modules[i].string,
                                       (const void *)(uintptr_t)bi->modules[i].start,
                                       bi->modules[i].end - bi->modules[i].start };
    static const struct progress_cb progress = { module_progress, 0 };
    uint64_t t0 = timer_tsc();
    int rc = measure_launch(&policy, &banks, opts_pcr_map, mods, bi->nr_modules, &lm, &progress);
    timer_count_hashing(timer_tsc() - t0);
    if (rc) {
        pr_err("too many measurements (more than %u)\n", VL_MAX);
        apply_policy(TB_ERR_FATAL);
    }
    verify_modules();
    if (!extend_all(&lm.vl))
        apply_policy(TB_ERR_FATAL);
    st->measured = true;
    ext()->flags |= VTBOOT_EXT_MEASURED;
    pr_info("measured launch: %u extends into PCRs 17-19, event log at 0x%08x (%u bytes)\n",
            lm.vl.n, sym_addr(_evtlog_start), evlog.used);
    /* tboot's s3_key: a secret for the kernel, kept sealed while the machine sleeps */
    struct tboot_shared *sp = (struct tboot_shared *)_shared_page;
    if (tpm2_get_random(&tpm, sp->s3_key, sizeof(sp->s3_key)))
        apply_policy(TB_ERR_FATAL);
    tis_release_locality(&tis);
}

void launch_unmeasured(const struct vtboot_options *opts, struct launch_state *st)
{
    use_options(opts);
    if (!find_tpm()) {
        tis_release_locality(&tis);
        if (apply_policy(TB_ERR_TPM_NOT_READY) == TB_ACT_UNMEASURED_LAUNCH)
            pr_err("UNMEASURED LAUNCH: no TPM; PCRs untouched, Linux starts without a measured "
                   "launch\n");
        return;
    }
    st->tpm = true;
    ext()->flags |= VTBOOT_EXT_TPM;
    read_policy(st);
    if (st->policy_from_nv)
        ext()->flags |= VTBOOT_EXT_POLICY_NV;
    tis_release_locality(&tis);
    if (apply_policy(TB_ERR_TXT_NOT_SUPPORTED) == TB_ACT_UNMEASURED_LAUNCH)
        pr_err("UNMEASURED LAUNCH: PCRs 17-19 untouched, Linux starts without a measured "
               "launch\n");
}

/* Extends PCRs 17-19 with random values (fixed ones if the TPM gives none: still not the
 * launch's), logged as caps. */
static void cap_now(const char *why)
{
    static const uint8_t pcrs[] = { 17, 18, 19 };
    struct tpm_digest_list cap, now;

    if (!tis_request_locality(&tis, LAUNCH_LOCALITY, tpm.err, sizeof(tpm.err))) {
        pr_err("capping PCRs: %s\n", tpm.err);
        return;
    }
    cap.count = banks.count;
    for (unsigned i = 0; i < banks.count; i++) {
        cap.d[i].alg = banks.alg[i];
        if (tpm2_get_random(&tpm, cap.d[i].bytes, tpm_hash_size(banks.alg[i])))
            memset(cap.d[i].bytes, 0xa5, sizeof(cap.d[i].bytes));
    }
    for (unsigned i = 0; i < sizeof(pcrs); i++) {
        if (tpm2_pcr_extend(&tpm, pcrs[i], &cap))
            pr_err("capping PCR %u: %s\n", pcrs[i], tpm.err);
        if (evlog.cap)
            log_event(pcrs[i], EV_TXT_CAP_VALUE, &cap, "vtboot: cap");
    }
    memzero_explicit(&cap, sizeof(cap));
    pr_info("capped PCRs 17-19 (%s)\n", why);
    if (tpm2_pcr_read(&tpm, 17, &banks, &now) == 0)
        print_digests("PCR 17 after the cap,", &now);
    tis_release_locality(&tis);
}

void launch_cap_pcrs(const char *why)
{
    if (!launched)
        return;
    launched = false;                /* once: a failing cap must not recurse through a halt */
    if (!tpm.transmit || !banks.count) {
        pr_err("cannot cap PCRs 17-19 (%s): no usable TPM\n", why);
        return;
    }
    cap_now(why);
}

void launch_cap_unconfirmed(const struct vtboot_options *opts)
{
    use_options(opts);
    if (!find_tpm()) {
        tis_release_locality(&tis);
        pr_err("cannot cap PCRs 17-19: no usable TPM\n");
        return;
    }
    cap_now("a launch was requested and not confirmed");
    tpm.transmit = 0;
}

bool launch_is_measured(void)
{
    return launched;
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

const struct vl_list *launch_measurements(void)
{
    return &lm.vl;
}

bool launch_extend_again(const struct vl_list *vl)
{
    lm.vl = *vl;
    if (!extend_all(vl))
        return false;
    pr_info("re-launched: %u measurements extended again, event log %u bytes\n", vl->n,
            evlog.used);
    return true;
}
