/* SPDX-License-Identifier: MIT */
#include "tpmfault.h"
#include "lib/bytes.h"
#include "util.h"

#include "abi/tpm2.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* TPM_CC, TPM 2.0 Library Part 2 (rev 1.59), table "Definition of TPM_CC Constants": every
 * command of that revision, in code order. run-tests.sh checks it against the list swtpm
 * reports (TPM2_GetCapability(TPM_CAP_COMMANDS)). */
static const struct {
    uint32_t cc;
    const char *name;
} cc_table[] = {
    { 0x11f, "NV_UndefineSpaceSpecial" }, { 0x120, "EvictControl" },
    { 0x121, "HierarchyControl" }, { 0x122, "NV_UndefineSpace" }, { 0x124, "ChangeEPS" },
    { 0x125, "ChangePPS" }, { 0x126, "Clear" }, { 0x127, "ClearControl" },
    { 0x128, "ClockSet" }, { 0x129, "HierarchyChangeAuth" }, { 0x12a, "NV_DefineSpace" },
    { 0x12b, "PCR_Allocate" }, { 0x12c, "PCR_SetAuthPolicy" }, { 0x12d, "PP_Commands" },
    { 0x12e, "SetPrimaryPolicy" }, { 0x12f, "FieldUpgradeStart" },
    { 0x130, "ClockRateAdjust" }, { 0x131, "CreatePrimary" },
    { 0x132, "NV_GlobalWriteLock" }, { 0x133, "GetCommandAuditDigest" },
    { 0x134, "NV_Increment" }, { 0x135, "NV_SetBits" }, { 0x136, "NV_Extend" },
    { 0x137, "NV_Write" }, { 0x138, "NV_WriteLock" }, { 0x139, "DictionaryAttackLockReset" },
    { 0x13a, "DictionaryAttackParameters" }, { 0x13b, "NV_ChangeAuth" },
    { 0x13c, "PCR_Event" }, { 0x13d, "PCR_Reset" }, { 0x13e, "SequenceComplete" },
    { 0x13f, "SetAlgorithmSet" }, { 0x140, "SetCommandCodeAuditStatus" },
    { 0x141, "FieldUpgradeData" }, { 0x142, "IncrementalSelfTest" }, { 0x143, "SelfTest" },
    { 0x144, "Startup" }, { 0x145, "Shutdown" }, { 0x146, "StirRandom" },
    { 0x147, "ActivateCredential" }, { 0x148, "Certify" }, { 0x149, "PolicyNV" },
    { 0x14a, "CertifyCreation" }, { 0x14b, "Duplicate" }, { 0x14c, "GetTime" },
    { 0x14d, "GetSessionAuditDigest" }, { 0x14e, "NV_Read" }, { 0x14f, "NV_ReadLock" },
    { 0x150, "ObjectChangeAuth" }, { 0x151, "PolicySecret" }, { 0x152, "Rewrap" },
    { 0x153, "Create" }, { 0x154, "ECDH_ZGen" }, { 0x155, "HMAC" }, { 0x156, "Import" },
    { 0x157, "Load" }, { 0x158, "Quote" }, { 0x159, "RSA_Decrypt" }, { 0x15b, "HMAC_Start" },
    { 0x15c, "SequenceUpdate" }, { 0x15d, "Sign" }, { 0x15e, "Unseal" },
    { 0x160, "PolicySigned" }, { 0x161, "ContextLoad" }, { 0x162, "ContextSave" },
    { 0x163, "ECDH_KeyGen" }, { 0x164, "EncryptDecrypt" }, { 0x165, "FlushContext" },
    { 0x167, "LoadExternal" }, { 0x168, "MakeCredential" }, { 0x169, "NV_ReadPublic" },
    { 0x16a, "PolicyAuthorize" }, { 0x16b, "PolicyAuthValue" },
    { 0x16c, "PolicyCommandCode" }, { 0x16d, "PolicyCounterTimer" },
    { 0x16e, "PolicyCpHash" }, { 0x16f, "PolicyLocality" }, { 0x170, "PolicyNameHash" },
    { 0x171, "PolicyOR" }, { 0x172, "PolicyTicket" }, { 0x173, "ReadPublic" },
    { 0x174, "RSA_Encrypt" }, { 0x176, "StartAuthSession" }, { 0x177, "VerifySignature" },
    { 0x178, "ECC_Parameters" }, { 0x179, "FirmwareRead" }, { 0x17a, "GetCapability" },
    { 0x17b, "GetRandom" }, { 0x17c, "GetTestResult" }, { 0x17d, "Hash" },
    { 0x17e, "PCR_Read" }, { 0x17f, "PolicyPCR" }, { 0x180, "PolicyRestart" },
    { 0x181, "ReadClock" }, { 0x182, "PCR_Extend" }, { 0x183, "PCR_SetAuthValue" },
    { 0x184, "NV_Certify" }, { 0x185, "EventSequenceComplete" },
    { 0x186, "HashSequenceStart" }, { 0x187, "PolicyPhysicalPresence" },
    { 0x188, "PolicyDuplicationSelect" }, { 0x189, "PolicyGetDigest" },
    { 0x18a, "TestParms" }, { 0x18b, "Commit" }, { 0x18c, "PolicyPassword" },
    { 0x18d, "ZGen_2Phase" }, { 0x18e, "EC_Ephemeral" }, { 0x18f, "PolicyNvWritten" },
    { 0x190, "PolicyTemplate" }, { 0x191, "CreateLoaded" }, { 0x192, "PolicyAuthorizeNV" },
    { 0x193, "EncryptDecrypt2" }, { 0x194, "AC_GetCapability" }, { 0x195, "AC_Send" },
    { 0x196, "Policy_AC_SendSelect" }, { 0x197, "CertifyX509" },
    { 0x198, "ACT_SetTimeout" }, { 0x199, "ECC_Encrypt" }, { 0x19a, "ECC_Decrypt" },
};

#define NCC (sizeof(cc_table) / sizeof(cc_table[0]))

const char *tpmfault_cc_name(uint32_t cc)
{
    for (size_t i = 0; i < NCC; i++)
        if (cc_table[i].cc == cc)
            return cc_table[i].name;
    return NULL;
}

bool tpmfault_cc_entry(size_t i, uint32_t *cc, const char **name)
{
    if (i >= NCC)
        return false;
    *cc = cc_table[i].cc;
    *name = cc_table[i].name;
    return true;
}

/* "0x" then 1 to 8 hex digits, the whole of s[0..len); value 1 .. 0xffffffff */
static bool parse_hex32(const char *s, size_t len, uint32_t *out)
{
    uint32_t v = 0;

    if (len < 3 || len > 10 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return false;
    for (size_t i = 2; i < len; i++) {
        int d = hex_digit(s[i]);

        if (d < 0)
            return false;
        v = v << 4 | (uint32_t)d;
    }
    if (!v)
        return false;
    *out = v;
    return true;
}

static bool parse_cc(const char *s, size_t len, uint32_t *cc)
{
    static const char *const prefix[] = { "TPM2_CC_", "TPM_CC_", "TPM2_" };

    if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return parse_hex32(s, len, cc);
    for (size_t k = 0; k < sizeof(prefix) / sizeof(prefix[0]); k++) {
        size_t pl = strlen(prefix[k]);

        if (len > pl && !strncasecmp(s, prefix[k], pl)) {
            s += pl;
            len -= pl;
            break;
        }
    }
    for (size_t i = 0; i < NCC; i++) {
        if (strlen(cc_table[i].name) == len && !strncasecmp(s, cc_table[i].name, len)) {
            *cc = cc_table[i].cc;
            return true;
        }
    }
    return false;
}

/* a decimal or 0x hex number in [s, s + n), at most 32 bits */
static bool parse_u32(const char *s, size_t n, uint32_t *out)
{
    unsigned base = 10;
    uint64_t v = 0;

    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        n -= 2;
    }
    if (!n || n > 10)
        return false;
    for (size_t i = 0; i < n; i++) {
        int d = hex_digit(s[i]);

        if (d < 0 || (unsigned)d >= base)
            return false;
        v = v * base + d;
        if (v > UINT32_MAX)
            return false;
    }
    *out = (uint32_t)v;
    return true;
}

int tpmfault_parse(const char *spec, struct tpmfault *out, char *err, size_t errsz)
{
    const char *eq = strchr(spec, '=');
    const char *at, *colon, *cc_end;
    size_t cclen;

    memset(out, 0, sizeof(*out));
    if (!eq || eq == spec || !eq[1] || strchr(eq + 1, '=')) {
        snprintf(err, errsz, "'%s': expected CC[:H][@N]=RC (e.g. PCR_Read=0x101, "
                 "NV_Read@2=0x922, PCR_Extend:17@1=0x101)", spec);
        return -1;
    }
    at = memchr(spec, '@', (size_t)(eq - spec));
    colon = memchr(spec, ':', (size_t)((at ? at : eq) - spec));
    cc_end = colon ? colon : at ? at : eq;
    cclen = (size_t)(cc_end - spec);
    if (!parse_cc(spec, cclen, &out->cc)) {
        snprintf(err, errsz, "'%s': unknown TPM 2.0 command '%.*s' (a name from TPM 2.0 Part 2 "
                 "such as PCR_Read, or a hex code such as 0x17e; --tpm-fault list shows the "
                 "names)", spec, (int)cclen, spec);
        return -1;
    }
    if (colon) {
        const char *h = colon + 1, *h_end = at ? at : eq;

        if (!parse_u32(h, (size_t)(h_end - h), &out->handle)) {
            snprintf(err, errsz, "'%s': the handle after ':' must be a number (decimal or 0x "
                     "hex, at most 32 bits)", spec);
            return -1;
        }
        out->has_handle = true;
    }
    if (at) {
        uint32_t n = 0;
        const char *p = at + 1;

        for (; p < eq; p++) {
            if (*p < '0' || *p > '9' || n > TPMFAULT_NTH_MAX) {
                n = 0;
                break;
            }
            n = n * 10 + (uint32_t)(*p - '0');
        }
        if (n < 1 || n > TPMFAULT_NTH_MAX) {
            snprintf(err, errsz, "'%s': the occurrence after '@' must be a number from 1 to %u",
                     spec, TPMFAULT_NTH_MAX);
            return -1;
        }
        out->nth = n;
    }
    if (!parse_hex32(eq + 1, strlen(eq + 1), &out->rc)) {
        snprintf(err, errsz, "'%s': the response code must be hex from 0x1 to 0xffffffff "
                 "(e.g. 0x101, TPM_RC_FAILURE)", spec);
        return -1;
    }
    return 0;
}

static void cc_str(uint32_t cc, char *buf, size_t n)
{
    const char *name = tpmfault_cc_name(cc);

    if (name)
        snprintf(buf, n, "%s", name);
    else
        snprintf(buf, n, "command 0x%x", cc);
}

int tpmfault_add(struct tpmfault_set *s, const char *spec, char *err, size_t errsz)
{
    struct tpmfault f;
    char name[48];

    if (tpmfault_parse(spec, &f, err, errsz) != 0)
        return -1;
    if (s->n >= TPMFAULT_MAX) {
        snprintf(err, errsz, "'%s': at most %d faults", spec, TPMFAULT_MAX);
        return -1;
    }
    for (int i = 0; i < s->n; i++) {
        if (s->f[i].cc != f.cc || s->f[i].nth != f.nth || s->f[i].has_handle != f.has_handle ||
            (f.has_handle && s->f[i].handle != f.handle))
            continue;
        cc_str(f.cc, name, sizeof(name));
        if (f.nth)
            snprintf(err, errsz, "'%s': %s #%u has a fault already", spec, name, f.nth);
        else
            snprintf(err, errsz, "'%s': every %s has a fault already", spec, name);
        return -1;
    }
    s->f[s->n++] = f;
    return 0;
}

int tpmfault_command(const uint8_t *buf, size_t len, uint32_t *cc)
{
    uint32_t tag, size;

    if (len < TPM2_HEADER_SIZE)
        return 0;
    tag = load_be16(buf);
    size = load_be32(buf + 2);
    if ((tag != TPM2_ST_NO_SESSIONS && tag != TPM2_ST_SESSIONS) || size != len)
        return 0;
    *cc = load_be32(buf + 6);
    return 1;
}

bool tpmfault_first_handle(const uint8_t *buf, size_t len, uint32_t *handle)
{
    if (len < TPM2_HEADER_SIZE + 4)
        return false;
    *handle = load_be32(buf + 10);
    return true;
}

static bool names(const struct tpmfault *f, uint32_t cc, const uint32_t *handle)
{
    return f->cc == cc && (!f->has_handle || (handle && *handle == f->handle));
}

bool tpmfault_check(struct tpmfault_set *s, uint32_t cc, const uint32_t *handle, uint32_t *rc,
                    uint32_t *nth)
{
    struct tpmfault *every = NULL, *first = NULL, *occurrence = NULL;

    /* every spec that names the command counts it, also after one has fired */
    for (int i = 0; i < s->n; i++) {
        struct tpmfault *f = &s->f[i];

        if (!names(f, cc, handle))
            continue;
        if (f->seen < UINT32_MAX)
            f->seen++;
        first = first ? first : f;
        if (f->nth && f->nth == f->seen && !occurrence)
            occurrence = f;
        if (!f->nth && !every)
            every = f;
    }
    /* an occurrence outranks every occurrence */
    struct tpmfault *fired = occurrence ? occurrence : every;
    if (first)
        *nth = first->seen;
    if (!fired)
        return false;
    *rc = fired->rc;
    *nth = fired->seen;
    return true;
}

void tpmfault_response(uint8_t out[TPMFAULT_RESPONSE_SIZE], uint32_t rc)
{
    store_be16(out, TPM2_ST_NO_SESSIONS);
    store_be32(out + 2, TPMFAULT_RESPONSE_SIZE);
    store_be32(out + 6, rc);
}
