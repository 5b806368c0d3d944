/* SPDX-License-Identifier: MIT */
/*
 * src/txt/lcp.c against the launch control policies Debian's lcp2_* tools (package tboot)
 * write, run here into a scratch directory: lcp2_crtpolelt's MLE elements, lcp2_crtpollist's
 * lists, lcp2_crtpol's policy (the NV index's bytes) and policy data file. Each verdict once
 * allowing and once refusing with its reason; every malformed case of the parsers.
 */
#include "test_common.h"

#include <openssl/sha.h>

#include "abi/tpm_hash.h"
#include "lib/bytes.h"
#include "tool_check.h"
#include "txt/lcp.h"

static char dir[256];
static bool have_tools;
static char err[256];

/* two MLE digests (SHA-256) and one in SHA-1 */
static uint8_t mle_a[32], mle_b[32], mle_a1[20];

static int group_setup(void **state)
{
    (void)state;
    for (unsigned i = 0; i < 32; i++) {
        mle_a[i] = (uint8_t)(0xa0 + i);
        mle_b[i] = (uint8_t)(0x10 + i);
    }
    for (unsigned i = 0; i < 20; i++)
        mle_a1[i] = (uint8_t)(0x50 + i);
    have_tools = tool_path("lcp2_crtpol") && tool_path("lcp2_crtpollist") &&
                 tool_path("lcp2_crtpolelt");
    if (!have_tools)
        print_message("lcp2_* (Debian package tboot) are not installed: skipping\n");
    return tmpdir_create(dir, sizeof(dir)) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    tmpdir_remove(dir);
    return 0;
}

static void need_tools(void)
{
    if (!have_tools)
        skip();
}

static const char *in_dir(const char *name)
{
    return tmpdir_file(dir, name);
}

/* a hash file as lcp2_mlehash prints one: "xx xx ... xx" */
static void hash_file(const char *name, const uint8_t *d, unsigned n)
{
    char text[3 * 64 + 2] = "";
    for (unsigned i = 0; i < n; i++)
        snprintf(text + 3 * i, 4, "%02x%s", d[i], i + 1 < n ? " " : "\n");
    assert_int_equal(file_write(in_dir(name), text, strlen(text)), 0);
}

/* lcp2_crtpolelt --type mle2 [--minver] --alg ALG HASHFILE -> NAME */
static void mle_elt(const char *name, const char *alg, const char *hashfile, const char *minver)
{
    const char *argv[16] = { "lcp2_crtpolelt", "--create", "--type", "mle2", "--alg", alg,
                             "--out", in_dir(name) };
    unsigned n = 8;
    if (minver) {
        argv[n++] = "--minver";
        argv[n++] = minver;
    }
    argv[n++] = in_dir(hashfile);
    tool_must_run(argv, NULL, 10000);
}

static void list(const char *name, const char *ver, const char *elt1, const char *elt2)
{
    const char *argv[16] = { "lcp2_crtpollist", "--create", "--out", in_dir(name),
                             "--listver", ver, in_dir(elt1), elt2 ? in_dir(elt2) : NULL };
    tool_must_run(argv, NULL, 10000);
}

/* lcp2_crtpol --create --type TYPE --alg sha256 [--minver V] [--ctrl C] -> pol.pol, pol.data */
static void policy(const char *type, const char *minver, const char *list1, const char *list2)
{
    const char *argv[24] = { "lcp2_crtpol", "--create", "--type", type, "--alg", "sha256",
                             "--sign", "rsa-2048-sha256", "--ctrl", "0x2",
                             "--pol", in_dir("pol.pol") };
    unsigned n = 12;
    if (minver) {
        argv[n++] = "--minver";
        argv[n++] = minver;
    }
    if (list1) {
        argv[n++] = "--data";
        argv[n++] = in_dir("pol.data");
        argv[n++] = in_dir(list1);
    }
    if (list2)
        argv[n++] = in_dir(list2);
    tool_must_run(argv, NULL, 10000);
}

/* <tag>.lst: a list (version 2.0) of one MLE2 element (<tag>.elt, hash algorithm `alg`,
 * minimum SINIT version `minver` or none) naming the n-byte digest d (<tag>.hash) */
static void element_list(const char *tag, const uint8_t *d, unsigned n, const char *alg,
                         const char *minver)
{
    char hash[64], elt[64], lst[64];
    snprintf(hash, sizeof(hash), "%s.hash", tag);
    snprintf(elt, sizeof(elt), "%s.elt", tag);
    snprintf(lst, sizeof(lst), "%s.lst", tag);
    hash_file(hash, d, n);
    mle_elt(elt, alg, hash, minver);
    list(lst, "0x200", elt, NULL);
}

static uint8_t *slurp(const char *name, size_t *len)
{
    uint8_t *b = file_read(in_dir(name), len);
    assert_non_null(b);
    return b;
}

static const struct lcp_digest both[] = {
    { TPM_ALG_SHA256, mle_a }, { TPM_ALG_SHA1, mle_a1 },
};

/* the verdict on MLE digest `mle` (SHA-256) with the policy and data in the scratch dir */
static enum lcp_result verdict(const uint8_t *mle, uint8_t acm_version)
{
    size_t plen, dlen = 0;
    uint8_t *pol = slurp("pol.pol", &plen), *data = NULL;
    struct lcp_policy p;
    struct lcp_digest d = { TPM_ALG_SHA256, mle };

    assert_int_equal(lcp_policy_parse(pol, plen, &p, err, sizeof(err)), LCP_OK);
    if (p.policy_type == LCP_POLTYPE_LIST)
        data = slurp("pol.data", &dlen);
    err[0] = 0;
    enum lcp_result r = lcp_evaluate(&p, data, dlen, &d, 1, acm_version, err, sizeof(err));
    free(pol);
    free(data);
    return r;
}

static void policy_fields(void **state)
{
    (void)state;
    need_tools();
    element_list("a", mle_a, 32, "sha256", NULL);
    policy("list", "3", "a.lst", NULL);

    size_t len;
    uint8_t *pol = slurp("pol.pol", &len);
    struct lcp_policy p;
    assert_int_equal(len, LCP_POLICY_T2_SIZE(32));
    assert_int_equal(lcp_policy_parse(pol, len, &p, err, sizeof(err)), LCP_OK);
    assert_int_equal(p.version, LCP_VER_3_0);
    assert_int_equal(p.hash_alg, TPM_ALG_SHA256);
    assert_int_equal(p.policy_type, LCP_POLTYPE_LIST);
    assert_int_equal(p.sinit_min_version, 3);
    assert_int_equal(p.policy_control, 2);
    assert_int_equal(p.digest_size, 32);
    assert_memory_equal(p.policy_hash, pol + 38, 32);
    free(pol);
}

static void mle_allowed_or_not(void **state)
{
    (void)state;
    need_tools();
    element_list("a", mle_a, 32, "sha256", NULL);
    policy("list", NULL, "a.lst", NULL);
    assert_int_equal(verdict(mle_a, 1), LCP_OK);
    assert_int_equal(verdict(mle_b, 1), LCP_MLE_NOT_ALLOWED);
    assert_string_equal(err, "no MLE element of the policy names this MLE");

    /* two lists: the data hash covers both, the second list allows B */
    element_list("b", mle_b, 32, "sha256", NULL);
    policy("list", NULL, "a.lst", "b.lst");
    assert_int_equal(verdict(mle_b, 1), LCP_OK);
    assert_int_equal(verdict(mle_a, 1), LCP_OK);
    /* a list of version 2.1 (lcp2_crtpol mixes no versions) */
    list("b21.lst", "0x300", "b.elt", NULL);
    policy("list", NULL, "b21.lst", NULL);
    assert_int_equal(verdict(mle_b, 1), LCP_OK);
    assert_int_equal(verdict(mle_a, 1), LCP_MLE_NOT_ALLOWED);

    /* one element holding two hashes */
    {
        size_t n;
        uint8_t *a = slurp("a.hash", &n), *b = slurp("b.hash", &n);
        char two[256];
        snprintf(two, sizeof(two), "%s%s", (char *)a, (char *)b);
        assert_int_equal(file_write(in_dir("ab.hash"), two, strlen(two)), 0);
        free(a);
        free(b);
    }
    mle_elt("ab.elt", "sha256", "ab.hash", NULL);
    list("ab.lst", "0x200", "ab.elt", NULL);
    policy("list", NULL, "ab.lst", NULL);
    assert_int_equal(verdict(mle_b, 1), LCP_OK);
    uint8_t c[32] = { 0 };
    assert_int_equal(verdict(c, 1), LCP_MLE_NOT_ALLOWED);
}

static void any_policy(void **state)
{
    (void)state;
    need_tools();
    policy("any", NULL, NULL, NULL);
    assert_int_equal(verdict(mle_b, 1), LCP_OK);
    policy("any", "9", NULL, NULL);
    assert_int_equal(verdict(mle_b, 9), LCP_OK);
    assert_int_equal(verdict(mle_b, 8), LCP_SINIT_TOO_OLD);
    assert_string_equal(err, "the policy asks for SINIT version 9, ours is 8");
}

static void element_min_version_and_algorithm(void **state)
{
    (void)state;
    need_tools();
    element_list("a5", mle_a, 32, "sha256", "5");
    policy("list", NULL, "a5.lst", NULL);
    assert_int_equal(verdict(mle_a, 5), LCP_OK);
    assert_int_equal(verdict(mle_a, 4), LCP_SINIT_TOO_OLD);
    assert_string_equal(err, "an MLE element asks for SINIT version 5, ours is 4");

    /* a SHA-1 element: the SHA-1 digest decides; without one, the launch cannot be judged */
    element_list("a1", mle_a1, 20, "sha1", NULL);
    policy("list", NULL, "a1.lst", NULL);
    assert_int_equal(verdict(mle_a, 1), LCP_NO_DIGEST);
    assert_string_equal(err, "an MLE element in hash algorithm 0x0004, which the launch did not "
                             "measure");
    size_t plen, dlen;
    uint8_t *pol = slurp("pol.pol", &plen), *data = slurp("pol.data", &dlen);
    struct lcp_policy p;
    assert_int_equal(lcp_policy_parse(pol, plen, &p, err, sizeof(err)), LCP_OK);
    assert_int_equal(lcp_evaluate(&p, data, dlen, both, 2, 1, err, sizeof(err)), LCP_OK);
    free(pol);
    free(data);
}

/* the data of a one-list policy allowing mle_a, and the policy */
static uint8_t *good(size_t *dlen, struct lcp_policy *p)
{
    size_t plen;
    element_list("a", mle_a, 32, "sha256", NULL);
    policy("list", NULL, "a.lst", NULL);
    uint8_t *pol = slurp("pol.pol", &plen);
    assert_int_equal(lcp_policy_parse(pol, plen, p, err, sizeof(err)), LCP_OK);
    free(pol);
    return slurp("pol.data", dlen);
}

/* policy_hash of one-list data: SHA-256(SHA-256(the list)) (lcp2_crtpol's, checked above) */
static void one_list_hash(const uint8_t *data, size_t len, uint8_t out[32])
{
    uint8_t h[32];
    SHA256(data + 36, len - 36, h);
    SHA256(h, 32, out);
}

static enum lcp_result eval(const struct lcp_policy *p, const uint8_t *data, size_t len)
{
    struct lcp_digest d = { TPM_ALG_SHA256, mle_a };
    err[0] = 0;
    return lcp_evaluate(p, data, len, &d, 1, 1, err, sizeof(err));
}

static void data_refused(void **state)
{
    (void)state;
    need_tools();
    size_t len;
    struct lcp_policy p;
    uint8_t *data = good(&len, &p);
    uint8_t *copy = calloc(1, len + 16);
    const uint32_t list = 36, elt = list + 8;

    assert_int_equal(eval(&p, data, len), LCP_OK);
    assert_int_equal(eval(&p, NULL, 0), LCP_BAD_DATA);
    assert_string_equal(err, "policy data of 0 bytes, under its 36-byte header");
    /* a changed digest in the element: another file than the policy's */
    memcpy(copy, data, len);
    copy[len - 1] ^= 1;
    assert_int_equal(eval(&p, copy, len), LCP_DATA_HASH_MISMATCH);
    assert_string_equal(err, "the policy data's hash is not the policy's policy_hash");

#define REFUSED(edit, result, reason) do { \
        memcpy(copy, data, len); \
        size_t n = len; \
        edit; \
        assert_int_equal(eval(&p, copy, n), result); \
        assert_string_equal(err, reason); \
    } while (0)
    REFUSED(n = len - 1, LCP_BAD_DATA, "list 0: 50 bytes of elements, 49 left in the file");
    REFUSED(n = 40, LCP_BAD_DATA, "list 0: 4 bytes left, under a list header");
    REFUSED(copy[n++] = 0, LCP_BAD_DATA, "1 bytes after the last list");
    REFUSED(copy[0] = 'i', LCP_BAD_DATA, "no \"Intel(R) TXT LCP_POLICY_DATA\" signature");
    REFUSED(copy[35] = 0, LCP_BAD_DATA, "0 lists, not 1-8");
    REFUSED(copy[35] = 9, LCP_BAD_DATA, "9 lists, not 1-8");
    REFUSED(copy[35] = 2, LCP_BAD_DATA, "list 1: 0 bytes left, under a list header");
    REFUSED(store_le16(copy + list, 0x0100), LCP_BAD_DATA,
            "list 0: version 0x0100, not 0x0200, 0x0201 or 0x0300");
    REFUSED(store_le16(copy + list + 2, 0x0014), LCP_SIGNED_LIST,
            "list 0 is signed (sig_alg 0x0014): signed lists are not supported yet");
    REFUSED((store_le16(copy + list, 0x0300), store_le16(copy + list + 2, 100)), LCP_SIGNED_LIST,
            "list 0 is signed (key signature at 100): signed lists are not supported yet");
    REFUSED(store_le32(copy + elt, 0), LCP_BAD_DATA,
            "list 0: element at offset 0 of size 0, outside the list's 50 bytes");
    REFUSED(store_le32(copy + elt, 51), LCP_BAD_DATA,
            "list 0: element at offset 0 of size 51, outside the list's 50 bytes");
    REFUSED((store_le32(copy + list + 4, 60), store_le32(copy + elt, 60), n = len + 10),
            LCP_DATA_HASH_MISMATCH, "the policy data's hash is not the policy's policy_hash");
    REFUSED(store_le32(copy + list + 4, 55), LCP_BAD_DATA,
            "list 0: 55 bytes of elements, 50 left in the file");
    REFUSED((store_le32(copy + list + 4, 14), n = 36 + 8 + 14), LCP_BAD_DATA,
            "list 0: element at offset 0 of size 50, outside the list's 14 bytes");
#undef REFUSED

    /* the MLE element's own fields, the policy's hash made to match the edited data */
    struct lcp_policy q = p;
#define ELEMENT(edit, result, reason) do { \
        memcpy(copy, data, len); \
        edit; \
        one_list_hash(copy, len, q.policy_hash); \
        err[0] = 0; \
        assert_int_equal(eval(&q, copy, len), result); \
        assert_string_equal(err, reason); \
    } while (0)
    ELEMENT((void)0, LCP_OK, "");
    ELEMENT(store_le16(copy + elt + 14, 0x0005), LCP_BAD_DATA,
            "MLE element hash algorithm 0x0005 unknown");
    ELEMENT(store_le16(copy + elt + 16, 2), LCP_BAD_DATA, "MLE element with 2 hashes in 38 bytes");
    ELEMENT(store_le16(copy + elt + 16, 0), LCP_BAD_DATA, "MLE element with 0 hashes in 38 bytes");
    ELEMENT(store_le16(copy + elt + 14, TPM_ALG_SHA1), LCP_BAD_DATA,
            "MLE element with 1 hashes in 38 bytes");
    /* an element that is not an MLE element is passed over: nothing then restricts the MLE */
    ELEMENT(store_le32(copy + elt + 4, LCP_POLELT_TYPE_CUSTOM2), LCP_OK, "");
#undef ELEMENT
    /* an MLE element too short for its own header */
    memcpy(copy, data, len);
    store_le32(copy + list + 4, 12 + 4);
    store_le32(copy + elt, 12 + 4);
    one_list_hash(copy, 36 + 8 + 16, q.policy_hash);
    assert_int_equal(eval(&q, copy, 36 + 8 + 16), LCP_BAD_DATA);
    assert_string_equal(err, "MLE element of 16 bytes");
    free(copy);
    free(data);
}

static void policy_refused(void **state)
{
    (void)state;
    uint8_t pol[LCP_POLICY_T2_SIZE(64)] = { 0 };
    struct lcp_policy p;

    store_le16(pol, LCP_VER_3_0);
    store_le16(pol + 2, TPM_ALG_SHA256);
    pol[4] = LCP_POLTYPE_LIST;
    assert_int_equal(lcp_policy_parse(pol, LCP_POLICY_T2_SIZE(32), &p, err, sizeof(err)), LCP_OK);
    assert_int_equal(lcp_policy_parse(pol, LCP_POLICY_T2_SIZE(32) - 1, &p, err, sizeof(err)),
                     LCP_BAD_POLICY);
    assert_string_equal(err, "policy of 69 bytes, under the 70 its hash needs");
    assert_int_equal(lcp_policy_parse(pol, 37, &p, err, sizeof(err)), LCP_BAD_POLICY);
    assert_string_equal(err, "policy of 37 bytes, under the 38 of its header");
    store_le16(pol + 2, TPM_ALG_SHA512);
    assert_int_equal(lcp_policy_parse(pol, LCP_POLICY_T2_SIZE(32), &p, err, sizeof(err)),
                     LCP_BAD_POLICY);
    assert_string_equal(err, "policy of 70 bytes, under the 102 its hash needs");
    assert_int_equal(lcp_policy_parse(pol, LCP_POLICY_T2_SIZE(64), &p, err, sizeof(err)), LCP_OK);
    store_le16(pol + 2, 0x0012);
    assert_int_equal(lcp_policy_parse(pol, sizeof(pol), &p, err, sizeof(err)), LCP_BAD_POLICY);
    assert_string_equal(err, "policy hash algorithm 0x0012 unknown");
    store_le16(pol + 2, TPM_ALG_SHA256);
    store_le16(pol, 0x0204);
    assert_int_equal(lcp_policy_parse(pol, sizeof(pol), &p, err, sizeof(err)), LCP_BAD_POLICY);
    assert_string_equal(err, "policy version 0x0204, not 3.0-3.2");
    store_le16(pol, LCP_VER_3_2);
    pol[4] = 2;
    assert_int_equal(lcp_policy_parse(pol, sizeof(pol), &p, err, sizeof(err)), LCP_BAD_POLICY);
    assert_string_equal(err, "policy type 2, neither LIST (0) nor ANY (1)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(policy_fields),
        cmocka_unit_test(mle_allowed_or_not),
        cmocka_unit_test(any_policy),
        cmocka_unit_test(element_min_version_and_algorithm),
        cmocka_unit_test(data_refused),
        cmocka_unit_test(policy_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
