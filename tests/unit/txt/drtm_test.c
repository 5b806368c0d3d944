/* SPDX-License-Identifier: MIT */
/*
 * src/txt/drtm.c: the D-RTM event list of a TXT launch (docs/txt-platform.md 3.4 step 7), its
 * order, PCRs, types and the exact bytes each event hashes; and PCR 17/18 replayed from it
 * with OpenSSL, compared with digests written out here from `python3 -c 'import hashlib ...'`
 * (the commands are next to the values).
 */
#include "test_common.h"

#include <openssl/sha.h>

#include "abi/tcg_eventlog.h"
#include "txt/drtm.h"

static const uint8_t policy[3] = { 'p', 'o', 'l' };

static void input(struct txt_drtm_in *in, bool with_policy)
{
    memset(in, 0, sizeof(*in));
    for (unsigned i = 0; i < TXT_DRTM_ACM_DIGEST_SIZE; i++)
        in->acm_digest[i] = (uint8_t)i;
    in->senter_edx = 0x11223344;
    in->proc_scrtm_status = 0;
    in->os_sinit_caps = 0x601;
    in->lcp_policy_control = 0x2;
    for (unsigned i = 0; i < TXT_DRTM_ACM_DIGEST_SIZE; i++)
        in->pubkey_hash[i] = (uint8_t)(0xa0 + i);
    if (with_policy) {
        in->po_policy = policy;
        in->po_policy_len = sizeof(policy);
    }
}

static void order_and_bytes(void **state)
{
    (void)state;
    struct txt_drtm_in in;
    struct txt_drtm_events l;
    static const struct { uint32_t pcr, type; } want[TXT_DRTM_NR_EVENTS] = {
        { 17, 0x402 }, { 17, 0x40b }, { 17, 0x40f }, { 17, 0x40c }, { 17, 0x404 },
        { 18, 0x410 }, { 18, 0x411 },
    };

    input(&in, false);
    txt_drtm_events(&in, &l);
    for (unsigned i = 0; i < TXT_DRTM_NR_EVENTS; i++) {
        assert_int_equal(l.ev[i].pcr, want[i].pcr);
        assert_int_equal(l.ev[i].type, want[i].type);
        assert_int_equal(l.ev[i].is_mle, i == 4);
    }
    /* HASH_START: the ACM digest, then EDX little-endian */
    assert_int_equal(l.ev[0].len, 36);
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(l.ev[0].data[i], i);
    assert_memory_equal(l.ev[0].data + 32, "\x44\x33\x22\x11", 4);
    assert_int_equal(l.ev[1].len, 4);
    assert_memory_equal(l.ev[1].data, "\0\0\0\0", 4);
    assert_memory_equal(l.ev[2].data, "\x01\x06\0\0", 4);
    assert_memory_equal(l.ev[3].data, "\x02\0\0\0", 4);
    assert_ptr_equal(l.ev[4].data, NULL);
    assert_ptr_equal(l.ev[5].data, in.pubkey_hash);
    assert_int_equal(l.ev[5].len, 32);
    /* no policy: 32 zero bytes */
    assert_int_equal(l.ev[6].len, 32);
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(l.ev[6].data[i], 0);

    input(&in, true);
    txt_drtm_events(&in, &l);
    assert_ptr_equal(l.ev[6].data, policy);
    assert_int_equal(l.ev[6].len, 3);
}

/* PCR = SHA-256(PCR || SHA-256(event bytes)) from zero, the MLE's digest given */
static void replay(const struct txt_drtm_events *l, const uint8_t mle[32], uint8_t pcr17[32],
                   uint8_t pcr18[32])
{
    memset(pcr17, 0, 32);
    memset(pcr18, 0, 32);
    for (unsigned i = 0; i < TXT_DRTM_NR_EVENTS; i++) {
        uint8_t buf[64];
        uint8_t *pcr = l->ev[i].pcr == 17 ? pcr17 : pcr18;
        memcpy(buf, pcr, 32);
        if (l->ev[i].is_mle)
            memcpy(buf + 32, mle, 32);
        else
            SHA256(l->ev[i].data, l->ev[i].len, buf + 32);
        SHA256(buf, 64, pcr);
    }
}

static void unhex(const char *s, uint8_t out[32])
{
    for (unsigned i = 0; i < 32; i++)
        sscanf(s + 2 * i, "%2hhx", &out[i]);
}

static void pcrs_replayed(void **state)
{
    (void)state;
    struct txt_drtm_in in;
    struct txt_drtm_events l;
    uint8_t mle[32], p17[32], p18[32], want[32];

    /* mle = bytes(range(32, 64)); e(p, b) = sha256(p + sha256(b)); z = bytes(32)
     * p17 = e(e(e(e(z, bytes(range(32)) + (0x11223344).to_bytes(4, "little")), bytes(4)),
     *           (0x601).to_bytes(4, "little")), (2).to_bytes(4, "little"))
     * p17 = sha256(p17 + mle); p18 = e(e(z, bytes(range(0xa0, 0xc0))), b"pol") */
    for (unsigned i = 0; i < 32; i++)
        mle[i] = (uint8_t)(32 + i);
    input(&in, true);
    txt_drtm_events(&in, &l);
    replay(&l, mle, p17, p18);
    unhex("90b0a88d84c90be252a13dcee0850c9d55191cf5e2347268d09a9abb4a0250d6", want);
    assert_memory_equal(p17, want, 32);
    unhex("4f9c5097fd36ffc2c44797df133d00952d5ec619e08ff352baa3e66214634f22", want);
    assert_memory_equal(p18, want, 32);
}

/* PCR 17 as SENTER leaves it: python3 -c 'import hashlib, struct; d = bytes(range(32)) +
 * struct.pack("<I", 0x11223344); h = hashlib.sha256; print(h(bytes(32) + h(d).digest())
 * .hexdigest())', and the same with sha1 and bytes(20) */
static void pcr17_after_senter(void **state)
{
    (void)state;
    struct txt_drtm_in in;
    uint8_t pcr[64], want[32];
    input(&in, false);
    assert_int_equal(txt_drtm_senter_pcr17(in.acm_digest, in.senter_edx, 0x000b, pcr), 0);
    unhex("ac5f9c7ce96a35dce1c8588fb46134d9ff326c47f6ad28e8bcb24c8fc607e03f", want);
    assert_memory_equal(pcr, want, 32);
    assert_int_equal(txt_drtm_senter_pcr17(in.acm_digest, in.senter_edx, 0x0004, pcr), 0);
    unhex("fffc0f8bbc9cce6fcd873941cae7088670b8bb8c000000000000000000000000", want);
    assert_memory_equal(pcr, want, 20);
    /* another EDX is another value */
    assert_int_equal(txt_drtm_senter_pcr17(in.acm_digest, 0, 0x0004, pcr), 0);
    assert_memory_not_equal(pcr, want, 20);
    assert_int_equal(txt_drtm_senter_pcr17(in.acm_digest, 0, 0x1234, pcr), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order_and_bytes),
        cmocka_unit_test(pcrs_replayed),
        cmocka_unit_test(pcr17_after_senter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
