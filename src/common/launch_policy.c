/* SPDX-License-Identifier: MIT */
#include "abi/vtboot_ext.h"
#include "common/ext_block.h"
#include "common/halt.h"
#include "common/launch_policy.h"
#include "common/launch_tpm.h"
#include "log/printk.h"
#include "tpm/tpm2.h"

static struct tb_policy policy;
static enum pcr_map pcr_map;
static uint8_t nv_buf[TB_POLICY_MAX_SIZE];

void launch_policy_init(const struct vtboot_options *opts)
{
    pcr_map = opts->pcr_map_legacy ? PCR_MAP_LEGACY : PCR_MAP_DA;
    tb_policy_default(&policy, pcr_map);
}

const struct tb_policy *launch_policy(void)
{
    return &policy;
}

enum pcr_map launch_pcr_map(void)
{
    return pcr_map;
}

enum tb_action launch_policy_apply(enum tb_error e)
{
    enum tb_action a = tb_policy_action(policy.type, e);
    if (e == TB_ERR_NONE)
        return a;
    printk(a == TB_ACT_CONTINUE ? LOG_WARN : LOG_ERR, "%s: the %s policy says %s\n",
           tb_error_name(e), tb_policy_type_name(policy.type), tb_action_name(a));
    if (a == TB_ACT_HALT)
        halt(tb_error_name(e));
    return a;
}

void launch_policy_read(void)
{
    struct tpm2 *tpm = launch_tpm();
    struct tb_policy_nv_read r = { 0 };
    uint16_t size = 0;
    char err[128] = "", why[256];

    r.public_rc = tpm2_nv_read_public(tpm, TB_POLICY_NV_INDEX_TPM2, &r.attributes, &size);
    if (r.public_rc == 0 && !(r.attributes & TPMA_NV_PPWRITE)) {
        if (size > sizeof(nv_buf)) {
            pr_warn("policy: NV index holds %u bytes, reading the first %u\n", size,
                    (unsigned)sizeof(nv_buf));
            size = sizeof(nv_buf);
        }
        r.read_rc = tpm2_nv_read(tpm, TB_POLICY_NV_INDEX_TPM2, nv_buf, size);
        if (r.read_rc == 0)
            r.parse_rc = tb_policy_parse(nv_buf, size, &policy, err, sizeof(err));
    }
    switch (tb_policy_source(&r)) {
    case TB_POLICY_FROM_NV:
        ext_block()->flags |= VTBOOT_EXT_POLICY_NV;
        pr_info("policy: %u bytes from NV index 0x%08x: type %s, hash %s, control 0x%x, "
                "%u entries\n", policy.size, TB_POLICY_NV_INDEX_TPM2,
                tb_policy_type_name(policy.type), tpm_hash_name(policy.hash_alg),
                policy.control, policy.nr_entries);
        return;
    case TB_POLICY_DEFAULT:
        pr_info("policy: no policy in NV index 0x%08x (%s)\n", TB_POLICY_NV_INDEX_TPM2, tpm->err);
        tb_policy_default(&policy, pcr_map);
        pr_warn("policy: using tboot's default policy (nonfatal, modules 1.. into PCR %u)\n",
                pcr_map == PCR_MAP_DA ? 17 : 19);
        launch_policy_apply(TB_ERR_POLICY_NOT_PRESENT);
        return;
    case TB_POLICY_HALT:
        break;
    }
    tb_policy_nv_problem(&r, tpm->err, err, why, sizeof(why));
    pr_err("%s\n", why);
    pr_err("policy: the index exists, so its policy is not replaced by the default one "
           "(tboot 1.10 would)\n");
    halt("launch policy unusable");
}
