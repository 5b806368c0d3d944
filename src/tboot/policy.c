/* SPDX-License-Identifier: MIT */
#include "lib/format.h"
#include "lib/string.h"
#include "abi/tpm2.h"
#include "tboot/policy.h"
#include "tpm/tpm2.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int tb_policy_parse(const uint8_t *buf, uint32_t len, struct tb_policy *p, char *err,
                    unsigned errlen)
{
    struct tb_policy_header h;

    memset(p, 0, sizeof(*p));
    if (len < sizeof(h))
        FAIL("policy is %u bytes, shorter than its 12-byte header", len);
    memcpy(&h, buf, sizeof(h));
    if (h.version != TB_POLICY_VERSION)
        FAIL("policy version %u, only version 2 is supported", h.version);
    if (h.policy_type >= TB_POLTYPE_MAX)
        FAIL("policy type %u is not nonfatal (0), continue (1) or halt (2)", h.policy_type);
    /* tboot reads 0 as SHA-1, for policies made by TPM 1.2 tools */
    uint16_t alg = h.hash_alg == TB_HALG_SHA1_LEGACY ? TPM_ALG_SHA1 : h.hash_alg;
    unsigned dsize = tpm_hash_size(alg);
    if (!dsize)
        FAIL("policy hash algorithm 0x%02x is not SHA-1/256/384/512", h.hash_alg);

    uint32_t off = sizeof(h);
    for (unsigned i = 0; i < h.num_entries; i++) {
        struct tb_policy_entry_header e;
        if (len - off < sizeof(e))
            FAIL("policy entry %u of %u: header truncated at byte %u", i, h.num_entries, off);
        memcpy(&e, buf + off, sizeof(e));
        if (e.mod_num > TB_POL_MAX_MOD_NUM && e.mod_num != TB_POL_MOD_NUM_ANY &&
            e.mod_num != TB_POL_MOD_NUM_NV && e.mod_num != TB_POL_MOD_NUM_NV_RAW)
            FAIL("policy entry %u: module number %u is invalid", i, e.mod_num);
        if (e.pcr > TB_POL_MAX_PCR && e.pcr != TB_POL_PCR_NONE)
            FAIL("policy entry %u: PCR %u is invalid", i, e.pcr);
        if (e.hash_type > TB_HTYPE_IMAGE)
            FAIL("policy entry %u: hash type %u is invalid", i, e.hash_type);
        uint32_t hashes = (uint32_t)e.num_hashes * dsize;
        if (len - off - sizeof(e) < hashes)
            FAIL("policy entry %u: %u hashes of %u bytes do not fit in %u bytes", i,
                 e.num_hashes, dsize, len);
        off += (uint32_t)sizeof(e) + hashes;
        if (off > sizeof(p->bytes))
            FAIL("policy is larger than tboot's maximum of %u bytes", (unsigned)sizeof(p->bytes));
    }
    memcpy(p->bytes, buf, off);
    p->bytes[2] = (uint8_t)alg;      /* measured as tboot measures it: after the coercion */
    p->size = off;
    p->type = h.policy_type;
    p->hash_alg = alg;
    p->control = h.policy_control;
    p->nr_entries = h.num_entries;
    off = sizeof(h);
    for (unsigned i = 0; i < h.num_entries; i++) {
        struct tb_policy_entry_header e;
        memcpy(&e, p->bytes + off, sizeof(e));
        p->entries[i] = (struct tb_policy_entry){ e.mod_num, e.pcr, e.hash_type, e.nv_index,
                                                  e.num_hashes, p->bytes + off + sizeof(e) };
        off += (uint32_t)sizeof(e) + (uint32_t)e.num_hashes * dsize;
    }
    return 0;
}

void tb_policy_default(struct tb_policy *p, enum pcr_map map)
{
    uint8_t def[] = {
        TB_POLICY_VERSION, TB_POLTYPE_CONT_NON_FATAL, (uint8_t)TPM_ALG_SHA256,
        TB_POLCTL_EXTEND_PCR17, 0, 0, 0, 0, 0, 0, 0, 3,
        0, TB_POL_PCR_NONE, TB_HTYPE_ANY, 0, 0, 0, 0, 0,
        TB_POL_MOD_NUM_ANY, map == PCR_MAP_DA ? 17 : 19, TB_HTYPE_ANY, 0, 0, 0, 0, 0,
        TB_POL_MOD_NUM_NV_RAW, 22, TB_HTYPE_ANY, 0x10, 0x00, 0x00, 0x40, 0,
    };
    char err[8];
    tb_policy_parse(def, sizeof(def), p, err, sizeof(err));
}

const struct tb_policy_entry *tb_policy_find(const struct tb_policy *p, unsigned mod_num)
{
    for (unsigned i = 0; i < p->nr_entries; i++)
        if (p->entries[i].mod_num == mod_num || p->entries[i].mod_num == TB_POL_MOD_NUM_ANY)
            return &p->entries[i];
    return 0;
}

bool tb_policy_entry_accepts(const struct tb_policy *p, const struct tb_policy_entry *e,
                             const uint8_t *digest)
{
    unsigned n = tpm_hash_size(p->hash_alg);
    if (e->hash_type == TB_HTYPE_ANY)
        return true;
    for (unsigned i = 0; i < e->num_hashes; i++)
        if (memcmp(e->hashes + i * n, digest, n) == 0)
            return true;
    return false;
}

const char *tb_policy_type_name(uint8_t type)
{
    switch (type) {
    case TB_POLTYPE_CONT_NON_FATAL: return "nonfatal";
    case TB_POLTYPE_CONT_VERIFY_FAIL: return "continue";
    case TB_POLTYPE_HALT: return "halt";
    default: return "invalid";
    }
}

/* tboot 1.10 policy.c g_policy_map, for the errors vtboot can have. */
enum tb_action tb_policy_action(uint8_t policy_type, enum tb_error err)
{
    if (err == TB_ERR_NONE)
        return TB_ACT_CONTINUE;
    switch (policy_type) {
    case TB_POLTYPE_CONT_NON_FATAL:
        switch (err) {
        case TB_ERR_FATAL:
            return TB_ACT_HALT;
        case TB_ERR_TPM_NOT_READY:
        case TB_ERR_TXT_NOT_SUPPORTED:
            return TB_ACT_UNMEASURED_LAUNCH;
        default:
            return TB_ACT_CONTINUE;
        }
    case TB_POLTYPE_CONT_VERIFY_FAIL:
        switch (err) {
        case TB_ERR_MODULE_VERIFICATION_FAILED:
        case TB_ERR_POLICY_NOT_PRESENT:
        case TB_ERR_POLICY_INVALID:
            return TB_ACT_CONTINUE;
        default:
            return TB_ACT_HALT;
        }
    default:
        return TB_ACT_HALT;
    }
}

/* TPM_RC_HANDLE for handle n (format 1: 0x080, error 0x00b, handle number in bits 8-10):
 * what TPM2_NV_ReadPublic answers for an index that is not defined. */
static bool is_handle_error(int rc)
{
    return rc > 0 && ((unsigned)rc & ~0x700u) == TPM2_RC_HANDLE;
}

enum tb_policy_source tb_policy_source(const struct tb_policy_nv_read *r)
{
    if (is_handle_error(r->public_rc))
        return TB_POLICY_DEFAULT;
    if (r->public_rc || (r->attributes & TPMA_NV_PPWRITE) || r->read_rc || r->parse_rc)
        return TB_POLICY_HALT;
    return TB_POLICY_FROM_NV;
}

void tb_policy_nv_problem(const struct tb_policy_nv_read *r, const char *tpm_err,
                          const char *parse_err, char *out, size_t n)
{
    if (r->public_rc)
        fmt_snprintf(out, n, "policy: cannot tell whether NV index 0x%08x exists: %s",
                     TB_POLICY_NV_INDEX_TPM2, tpm_err);
    else if (r->attributes & TPMA_NV_PPWRITE)
        fmt_snprintf(out, n, "policy: NV index 0x%08x is platform-writable (PPWRITE), "
                     "not trusted", TB_POLICY_NV_INDEX_TPM2);
    else if (r->read_rc)
        fmt_snprintf(out, n, "policy: NV index 0x%08x exists but cannot be read: %s",
                     TB_POLICY_NV_INDEX_TPM2, tpm_err);
    else
        fmt_snprintf(out, n, "policy in NV index 0x%08x is invalid: %s", TB_POLICY_NV_INDEX_TPM2,
                     parse_err);
}

const char *tb_error_name(enum tb_error err)
{
    static const char *const names[] = {
        "none", "fatal error", "TPM not ready", "no dynamic launch (TXT not supported)",
        "no policy in TPM NV", "policy invalid", "module verification failed",
        "module not in policy", "S3 integrity check failed",
    };
    return (unsigned)err < sizeof(names) / sizeof(names[0]) ? names[err] : "unknown error";
}

const char *tb_action_name(enum tb_action act)
{
    switch (act) {
    case TB_ACT_CONTINUE: return "continue";
    case TB_ACT_UNMEASURED_LAUNCH: return "unmeasured launch";
    default: return "halt";
    }
}
