/* SPDX-License-Identifier: MIT */
/*
 * vtboot-tpm-attack: what root in the guest can try over /dev/tpm0, each command with the
 * empty password (as the TPM had them all before the launcher took ownership).
 *
 * vtboot-tpm-attack policy: run the next boot under a policy of the guest's own instead of
 * the host's (NV index 0x01200001, tboot's tb_policy_t):
 *
 *   nv-write-owner      TPM2_NV_Write(TPM_RH_OWNER) of the policy type byte: nonfatal
 *   nv-write-index      the same with the index's own authorization
 *   nv-undefine-owner   TPM2_NV_UndefineSpace(TPM_RH_OWNER): tboot's default policy then
 *   changeauth-owner    TPM2_HierarchyChangeAuth(TPM_RH_OWNER): ownership for the guest
 *   clear-lockout       TPM2_Clear(TPM_RH_LOCKOUT): every owner index gone
 *   clear-platform      TPM2_Clear(TPM_RH_PLATFORM)
 *
 * and prints "policy-type=<n>" (the index's byte 1) before and after.
 *
 * vtboot-tpm-attack endorsement: what the guest can still do, availability only:
 *
 *   changeauth-endorsement   TPM2_HierarchyChangeAuth(TPM_RH_ENDORSEMENT) to "guest": vtboot's
 *                            S3 storage primary lives there (tpm/tpm2_seal.h)
 *
 * One line "<name> rc=0x<rc>" per command (0: the TPM did it). Exit status 0 if the TPM
 * refused every one (policy) or did it (endorsement), 1 otherwise, 2 if the TPM could not be
 * used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "abi/tb_policy.h"
#include "tpm/tpm2.h"
#include "tpmdev.h"
#include "tpm/tpm2_cmd.h"

#define TPM2_CC_NV_UNDEFINE_SPACE 0x00000122u
#define TPM2_CC_CLEAR 0x00000126u
#define TPM2_CC_HIERARCHY_CHANGE_AUTH 0x00000129u
#define TPM2_CC_NV_WRITE 0x00000137u
#define POLICY_TYPE_OFFSET 1u            /* tb_policy_t: version, then policy_type */

/* One command with the empty password on auth; its response code, or -1. */
static int attempt(struct tpm2 *t, const char *name, uint32_t cc, uint32_t auth,
                   const uint32_t *handles, unsigned n, const uint8_t *params, size_t plen)
{
    struct tpm_writer w;
    struct tpm_reader r;
    tpm2_cmd_begin(&w, TPM2_ST_SESSIONS, cc);
    tw_u32(&w, auth);
    for (unsigned i = 0; i < n; i++)
        tw_u32(&w, handles[i]);
    tpm2_cmd_auth(&w, TPM2_RS_PW);
    tw_bytes(&w, params, plen);
    int rc = tpm2_cmd_execute(t, &w, name, &r, NULL);
    if (rc == 0)
        rc = tpm2_cmd_finish(t, &r, name);
    if (rc < 0)
        printf("%s error=%s\n", name, t->err);
    else
        printf("%s rc=0x%x\n", name, rc);
    return rc;
}

static void policy_type(struct tpm2 *t)
{
    uint32_t attrs;
    uint16_t size;
    uint8_t head[POLICY_TYPE_OFFSET + 1];
    int rc = tpm2_nv_read_public(t, TB_POLICY_NV_INDEX_TPM2, &attrs, &size);
    if (!rc)
        rc = size < sizeof(head) ? -1 : tpm2_nv_read(t, TB_POLICY_NV_INDEX_TPM2, head,
                                                     sizeof(head));
    if (rc)
        printf("policy-type=none rc=0x%x\n", rc < 0 ? 0 : rc);
    else
        printf("policy-type=%u\n", head[POLICY_TYPE_OFFSET]);
}

/* TPM2B_AUTH "guest" */
static const uint8_t guest_auth[] = { 0x00, 0x05, 'g', 'u', 'e', 's', 't' };

static int policy(struct tpm2 *t)
{
    static const uint32_t index[] = { TB_POLICY_NV_INDEX_TPM2 };
    /* data: TPM2B_MAX_NV_BUFFER { 1 byte: nonfatal }, offset */
    static const uint8_t nonfatal[] = { 0x00, 0x01, TB_POLTYPE_CONT_NON_FATAL, 0x00,
                                        POLICY_TYPE_OFFSET };
    static const struct {
        const char *name;
        uint32_t cc, auth;
        unsigned handles;                /* the policy index after auth, or none */
        const uint8_t *params;
        size_t plen;
    } tries[] = {
        { "nv-write-owner", TPM2_CC_NV_WRITE, TPM2_RH_OWNER, 1, nonfatal, sizeof(nonfatal) },
        { "nv-write-index", TPM2_CC_NV_WRITE, TB_POLICY_NV_INDEX_TPM2, 1, nonfatal,
          sizeof(nonfatal) },
        { "nv-undefine-owner", TPM2_CC_NV_UNDEFINE_SPACE, TPM2_RH_OWNER, 1, NULL, 0 },
        { "changeauth-owner", TPM2_CC_HIERARCHY_CHANGE_AUTH, TPM2_RH_OWNER, 0, guest_auth,
          sizeof(guest_auth) },
        { "clear-lockout", TPM2_CC_CLEAR, TPM2_RH_LOCKOUT, 0, NULL, 0 },
        { "clear-platform", TPM2_CC_CLEAR, TPM2_RH_PLATFORM, 0, NULL, 0 },
    };
    int status = 0;

    policy_type(t);
    for (unsigned i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
        int rc = attempt(t, tries[i].name, tries[i].cc, tries[i].auth, index, tries[i].handles,
                         tries[i].params, tries[i].plen);
        if (rc < 0)
            status = 2;
        else if (rc == 0 && status == 0)
            status = 1;
    }
    policy_type(t);
    return status;
}

static int endorsement(struct tpm2 *t)
{
    int rc = attempt(t, "changeauth-endorsement", TPM2_CC_HIERARCHY_CHANGE_AUTH,
                     TPM2_RH_ENDORSEMENT, NULL, 0, guest_auth, sizeof(guest_auth));
    return rc < 0 ? 2 : rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    int fd = open("/dev/tpm0", O_RDWR);
    struct tpm2 t = { .transmit = tpmdev_transmit, .ctx = &fd };
    if (fd < 0)
        return fprintf(stderr, "/dev/tpm0: %s\n", strerror(errno)), 2;
    if (argc == 2 && strcmp(argv[1], "policy") == 0)
        return policy(&t);
    if (argc == 2 && strcmp(argv[1], "endorsement") == 0)
        return endorsement(&t);
    fprintf(stderr, "usage: vtboot-tpm-attack policy | endorsement\n");
    return 2;
}
