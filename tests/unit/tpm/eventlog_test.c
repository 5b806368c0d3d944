/* SPDX-License-Identifier: MIT */
/*
 * The D-RTM event log writer: the Spec ID event and TCG_PCR_EVENT2 records byte for byte (TCG
 * PC Client Platform Firmware Profile 1.05, §10.4.5.1 and §10.2.2, written out here by hand),
 * its limits, and a log that tpm2-tools' tpm2_eventlog parses and replays to the values an
 * independent replay (OpenSSL) gives.
 */
#include "test_common.h"

#include "host_tools.h"
#include "openssl_ref.h"
#include "tpm/eventlog.h"

static uint8_t mem[8192];
static struct event_log log_;

static const struct tpm_banks sha1_sha256 = { 2, { TPM_ALG_SHA1, TPM_ALG_SHA256 } };

/* TCG_PCR_EVENT for the Spec ID event of banks {sha1, sha256}, and the event itself */
static const uint8_t spec_id_sha1_sha256[] = {
    0x00, 0x00, 0x00, 0x00,                          /* pcrIndex 0 */
    0x03, 0x00, 0x00, 0x00,                          /* eventType EV_NO_ACTION */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* digest: 20 zero bytes */
    0x2c, 0x00, 0x00, 0x00,                          /* eventSize 44 */
    'S', 'p', 'e', 'c', ' ', 'I', 'D', ' ', 'E', 'v', 'e', 'n', 't', '0', '3', 0,
    0x00, 0x00, 0x00, 0x00,                          /* platformClass: client */
    0x00,                                            /* specVersionMinor */
    0x02,                                            /* specVersionMajor */
    0x02,                                            /* specErrata */
    0x02,                                            /* uintnSize: UINT64 */
    0x02, 0x00, 0x00, 0x00,                          /* numberOfAlgorithms */
    0x04, 0x00, 0x14, 0x00,                          /* sha1, 20 */
    0x0b, 0x00, 0x20, 0x00,                          /* sha256, 32 */
    0x07,                                            /* vendorInfoSize */
    'v', 't', 'b', 'o', 'o', 't', 0,
};

static struct tpm_digest_list digests(const struct tpm_banks *b, uint8_t base)
{
    struct tpm_digest_list d;
    memset(&d, 0, sizeof(d));
    d.count = b->count;
    for (unsigned i = 0; i < b->count; i++) {
        d.d[i].alg = b->alg[i];
        memset(d.d[i].bytes, base + i, sizeof(d.d[i].bytes));
    }
    return d;
}

static void spec_id_event_bytes(void **state)
{
    (void)state;
    memset(mem, 0xcc, sizeof(mem));
    assert_int_equal(evlog_init(&log_, mem, sizeof(mem), &sha1_sha256), 0);
    assert_int_equal(sizeof(spec_id_sha1_sha256), 76);
    assert_int_equal(log_.used, 76);
    assert_ptr_equal(log_.buf, mem);
    assert_int_equal(log_.cap, sizeof(mem));
    assert_int_equal(log_.banks.count, 2);
    assert_memory_equal(mem, spec_id_sha1_sha256, 76);
    assert_int_equal(mem[76], 0xcc);                 /* nothing past the header */
}

static void spec_id_all_banks(void **state)
{
    (void)state;
    const struct tpm_banks b = { 4, { TPM_ALG_SHA256, TPM_ALG_SHA1, TPM_ALG_SHA512,
                                      TPM_ALG_SHA384 } };
    memset(mem, 0xcc, sizeof(mem));
    assert_int_equal(evlog_init(&log_, mem, sizeof(mem), &b), 0);
    assert_int_equal(log_.used, 32 + 28 + 4 * 4 + 1 + 7);
    assert_int_equal(get32(mem, 28), 28 + 16 + 8);  /* eventSize */
    assert_int_equal(get32(mem, 32 + 24), 4);       /* numberOfAlgorithms */
    static const uint8_t algs[] = { 0x0b, 0x00, 0x20, 0x00, 0x04, 0x00, 0x14, 0x00,
                                    0x0d, 0x00, 0x40, 0x00, 0x0c, 0x00, 0x30, 0x00 };
    assert_memory_equal(mem + 60, algs, sizeof(algs));   /* in the bank order given */
    assert_int_equal(mem[76], 7);
    assert_memory_equal(mem + 77, "vtboot", 7);
    assert_int_equal(mem[84], 0xcc);
    /* one bank */
    const struct tpm_banks one = { 1, { TPM_ALG_SHA384 } };
    assert_int_equal(evlog_init(&log_, mem, sizeof(mem), &one), 0);
    assert_int_equal(log_.used, 72);
    assert_int_equal(get32(mem, 28), 40);
    assert_int_equal(get32(mem, 56), 1);
    assert_int_equal(get16(mem, 60), 0x000c);
    assert_int_equal(get16(mem, 62), 48);
}

static void spec_id_refusals(void **state)
{
    (void)state;
    const struct tpm_banks none = { 0, { 0 } };
    const struct tpm_banks five = { 5, { 4, 4, 4, 4 } };
    memset(mem, 0xcc, sizeof(mem));
    assert_int_equal(evlog_init(&log_, mem, sizeof(mem), &none), -1);
    assert_int_equal(evlog_init(&log_, mem, sizeof(mem), &five), -1);
    /* the header must fit: 76 bytes for two banks */
    assert_int_equal(evlog_init(&log_, mem, 75, &sha1_sha256), -1);
    assert_int_equal(evlog_init(&log_, mem, 0, &sha1_sha256), -1);
    assert_int_equal(mem[0], 0xcc);                  /* nothing written */
    assert_int_equal(evlog_init(&log_, mem, 76, &sha1_sha256), 0);
    assert_int_equal(log_.used, 76);
}

static void event2_bytes(void **state)
{
    (void)state;
    memset(mem, 0xcc, sizeof(mem));
    assert_int_equal(evlog_init(&log_, mem, sizeof(mem), &sha1_sha256), 0);
    struct tpm_digest_list d = digests(&sha1_sha256, 0x11);
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, "abc", 3), 0);
    uint8_t want[75];
    size_t o = 0;
    memcpy(want + o, "\x11\x00\x00\x00", 4), o += 4;          /* pcrIndex 17 */
    memcpy(want + o, "\x01\x05\x00\x00", 4), o += 4;          /* EV_TB_MEASUREMENT */
    memcpy(want + o, "\x02\x00\x00\x00", 4), o += 4;          /* digests.count */
    memcpy(want + o, "\x04\x00", 2), o += 2;                  /* TPM_ALG_SHA1 */
    memset(want + o, 0x11, 20), o += 20;
    memcpy(want + o, "\x0b\x00", 2), o += 2;                  /* TPM_ALG_SHA256 */
    memset(want + o, 0x12, 32), o += 32;
    memcpy(want + o, "\x03\x00\x00\x00", 4), o += 4;          /* eventSize */
    memcpy(want + o, "abc", 3), o += 3;
    assert_int_equal(o, sizeof(want));
    assert_int_equal(log_.used, 76 + 75);
    assert_memory_equal(mem + 76, want, sizeof(want));
    assert_int_equal(mem[76 + 75], 0xcc);

    /* the next one follows directly; empty event data is fine */
    d = digests(&sha1_sha256, 0x40);
    assert_int_equal(evlog_append(&log_, 18, 0x404, &d, NULL, 0), 0);
    assert_int_equal(log_.used, 76 + 75 + 72);
    assert_int_equal(get32(mem, 151), 18);
    assert_int_equal(get32(mem, 155), 0x404);
    assert_int_equal(get32(mem, 151 + 68), 0);        /* eventSize */
    assert_int_equal(mem[151 + 72], 0xcc);
}

static void capacity(void **state)
{
    (void)state;
    struct tpm_digest_list d = digests(&sha1_sha256, 0x11);
    /* room for the header and exactly one 75-byte event */
    memset(mem, 0xcc, sizeof(mem));
    assert_int_equal(evlog_init(&log_, mem, 76 + 75, &sha1_sha256), 0);
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, "abc", 3), 0);
    assert_int_equal(log_.used, 151);
    /* full: refused, even without data; nothing written, used unchanged */
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, NULL, 0), -1);
    assert_int_equal(log_.used, 151);
    assert_int_equal(mem[151], 0xcc);
    /* one byte short */
    memset(mem, 0xcc, sizeof(mem));
    assert_int_equal(evlog_init(&log_, mem, 76 + 74, &sha1_sha256), 0);
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, "abc", 3), -1);
    assert_int_equal(log_.used, 76);
    assert_int_equal(mem[76], 0xcc);
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, "ab", 2), 0);
    assert_int_equal(log_.used, 150);
    /* an absurd data length cannot wrap the check */
    memset(mem, 0xcc, sizeof(mem));
    assert_int_equal(evlog_init(&log_, mem, sizeof(mem), &sha1_sha256), 0);
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, mem, 0xffffffffu), -1);
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, mem, 0xffffffffu - 70), -1);
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, mem, sizeof(mem)), -1);
    assert_int_equal(log_.used, 76);
    assert_int_equal(mem[76], 0xcc);
}

static void digests_must_match_banks(void **state)
{
    (void)state;
    memset(mem, 0xcc, sizeof(mem));
    assert_int_equal(evlog_init(&log_, mem, sizeof(mem), &sha1_sha256), 0);
    struct tpm_digest_list d = digests(&sha1_sha256, 0x11);
    /* fewer, more */
    d.count = 1;
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, "x", 1), -1);
    d.count = 3;
    d.d[2].alg = TPM_ALG_SHA384;
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, "x", 1), -1);
    /* the banks in another order */
    d = digests(&sha1_sha256, 0x11);
    d.d[0].alg = TPM_ALG_SHA256;
    d.d[1].alg = TPM_ALG_SHA1;
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, "x", 1), -1);
    /* another algorithm */
    d = digests(&sha1_sha256, 0x11);
    d.d[1].alg = TPM_ALG_SHA384;
    assert_int_equal(evlog_append(&log_, 17, 0x501, &d, "x", 1), -1);
    assert_int_equal(log_.used, 76);
    assert_int_equal(mem[76], 0xcc);
}

/* ---- tpm2_eventlog ---- */

struct ev {
    uint32_t pcr, type;
    const char *data;
};

/* The pcrs: section of tpm2_eventlog's YAML: "  sha256:" then "    17 : 0x<hex>" lines. */
static bool find_pcr(const char *yaml, const char *bank, unsigned pcr, char *hex, size_t cap)
{
    const char *p = strstr(yaml, "\npcrs:\n");
    if (!p)
        return false;
    char key[32];
    snprintf(key, sizeof(key), "\n  %s:\n", bank);
    p = strstr(p, key);
    if (!p)
        return false;
    p += strlen(key);
    while (*p == ' ' && p[1] == ' ' && p[2] == ' ' && p[3] == ' ') {
        unsigned n;
        char val[300];
        if (sscanf(p, " %u : 0x%299[0-9a-fA-F]", &n, val) == 2 && n == pcr) {
            snprintf(hex, cap, "%s", val);
            return true;
        }
        p = strchr(p, '\n');
        if (!p)
            break;
        p++;
    }
    return false;
}

static void tpm2_eventlog_replays(void **state)
{
    (void)state;
    if (!tool_path("tpm2_eventlog")) {
        print_message("tpm2_eventlog (tpm2-tools) is not installed: skipping\n");
        skip();
    }
    const struct tpm_banks b = { 3, { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384 } };
    static const struct ev evs[] = {
        { 17, 0x404, "the MLE" },
        { 17, 0x501, "vtboot: policy control and policy hash" },
        { 18, 0x501, "vtboot: policy control and policy hash" },
        { 17, 0x501, "vtboot: module 0: bzImage console=ttyS0" },
        { 17, 0x501, "vtboot: module 1: initrd.img" },
        { 19, 0x501, "" },
    };
    enum { NEV = sizeof(evs) / sizeof(evs[0]) };
    uint8_t model[24][TPM_MAX_BANKS][TPM2_MAX_DIGEST];
    memset(model, 0, sizeof(model));
    memset(mem, 0, sizeof(mem));
    assert_int_equal(evlog_init(&log_, mem, sizeof(mem), &b), 0);
    for (unsigned k = 0; k < NEV; k++) {
        struct tpm_digest_list d = { b.count, { { 0 } } };
        for (unsigned i = 0; i < b.count; i++) {
            d.d[i].alg = b.alg[i];
            char what[80];
            snprintf(what, sizeof(what), "event %u", k);
            ref_hash(b.alg[i], what, strlen(what), d.d[i].bytes);
            ref_extend(b.alg[i], model[evs[k].pcr][i], d.d[i].bytes);
        }
        assert_int_equal(evlog_append(&log_, evs[k].pcr, evs[k].type, &d, evs[k].data,
                                      (uint32_t)strlen(evs[k].data)), 0);
    }
    char dir[256], path[300];
    assert_non_null(tmpdir_create(dir, sizeof(dir)));
    snprintf(path, sizeof(path), "%s/evlog.bin", dir);
    assert_int_equal(file_write(path, mem, log_.used), 0);
    static struct tool_run run;
    const char *argv[] = { "tpm2_eventlog", path, NULL };
    int rc = tool_run(&run, argv, NULL, 10000);
    tmpdir_remove(dir);
    if (rc != 0)
        fail_msg("tpm2_eventlog exited with %d: %s", rc, run.err);

    /* the Spec ID event (number 0), then every event with its data (in hex) */
    assert_contains(run.out, "Signature: Spec ID Event03");
    assert_contains(run.out, "numberOfAlgorithms: 3\n");
    assert_contains(run.out, "vendorInfo: \"7674626f6f7400\"");
    for (unsigned k = 0; k < NEV; k++) {
        char num[32], data[200] = "";
        snprintf(num, sizeof(num), "EventNum: %u\n", k + 1);
        assert_contains(run.out, num);
        for (unsigned c = 0; evs[k].data[c]; c++)
            sprintf(data + 2 * c, "%02x", (uint8_t)evs[k].data[c]);
        char line[256];
        snprintf(line, sizeof(line), "EventSize: %u\n", (unsigned)strlen(evs[k].data));
        assert_contains(run.out, line);
        if (*data) {
            snprintf(line, sizeof(line), "Event: \"%s\"\n", data);
            assert_contains(run.out, line);
        }
    }
    assert_null(strstr(run.out, "EventNum: 7\n"));
    /* its replay equals ours for every bank and PCR touched */
    static const unsigned pcrs[] = { 17, 18, 19 };
    for (unsigned i = 0; i < b.count; i++)
        for (unsigned j = 0; j < 3; j++) {
            char got[300], want[2 * TPM2_MAX_DIGEST + 1];
            if (!find_pcr(run.out, tpm_hash_name(b.alg[i]), pcrs[j], got, sizeof(got)))
                fail_msg("no %s PCR %u in tpm2_eventlog's output:\n%s", tpm_hash_name(b.alg[i]),
                         pcrs[j], run.out);
            for (unsigned k = 0; k < tpm_hash_size(b.alg[i]); k++)
                sprintf(want + 2 * k, "%02X", model[pcrs[j]][i][k]);
            for (char *c = got; *c; c++)
                *c = (char)(*c >= 'a' && *c <= 'f' ? *c - 32 : *c);
            assert_string_equal(got, want);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_id_event_bytes),
        cmocka_unit_test(spec_id_all_banks),
        cmocka_unit_test(spec_id_refusals),
        cmocka_unit_test(event2_bytes),
        cmocka_unit_test(capacity),
        cmocka_unit_test(digests_must_match_banks),
        cmocka_unit_test(tpm2_eventlog_replays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
