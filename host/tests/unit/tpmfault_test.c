/* SPDX-License-Identifier: MIT */
/* Unit tests of host/lib/tpmfault.c (--tpm-fault SPEC parsing and the "fail this command?"
 * decision) and of the TPM data relay in ctrlproxy.c, driven through socket pairs with this
 * program playing QEMU and swtpm. Its own binary, out/host/tests/host-unit-tpmfault; prints
 * "N passed, N failed". */
#include "ctrlproxy.h"
#include "lib/bytes.h"
#include "ev.h"
#include "log.h"
#include "sock.h"
#include "tpmctrl.h"
#include "tpmfault.h"

#include "abi/tpm2.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static int passed, failed;

#define CHECK(cond, ...) do { \
    if (cond) { passed++; } else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
        printf(__VA_ARGS__); printf("\n"); } } while (0)

/* the commands the launcher documents, with their codes from TPM 2.0 Part 2 */
static void test_names(void)
{
    static const struct { const char *name; uint32_t cc; } t[] = {
        { "PCR_Extend", TPM2_CC_PCR_EXTEND }, { "PCR_Read", TPM2_CC_PCR_READ },
        { "NV_Read", TPM2_CC_NV_READ }, { "NV_ReadPublic", TPM2_CC_NV_READ_PUBLIC },
        { "GetRandom", TPM2_CC_GET_RANDOM }, { "Create", TPM2_CC_CREATE },
        { "CreatePrimary", TPM2_CC_CREATE_PRIMARY }, { "Load", TPM2_CC_LOAD },
        { "Unseal", TPM2_CC_UNSEAL }, { "StartAuthSession", TPM2_CC_START_AUTH_SESSION },
        { "PolicyPCR", TPM2_CC_POLICY_PCR }, { "Startup", TPM2_CC_STARTUP },
        { "GetCapability", TPM2_CC_GET_CAPABILITY }, { "Shutdown", TPM2_CC_SHUTDOWN },
        { "Quote", 0x158 }, { "FlushContext", TPM2_CC_FLUSH_CONTEXT },
        { "PolicyGetDigest", TPM2_CC_POLICY_GET_DIGEST }, { "SelfTest", 0x143 },
        { "NV_Write", 0x137 }, { "NV_DefineSpace", 0x12a },
    };
    uint32_t prev = 0, cc;
    const char *name;
    size_t i, n = 0;
    bool sorted = true, unique = true;

    for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct tpmfault f;

        memset(&f, 0, sizeof(f));
        char spec[64], err[256] = "";
        const char *got = tpmfault_cc_name(t[i].cc);

        CHECK(got && !strcmp(got, t[i].name), "name of 0x%x: %s", t[i].cc, got ? got : "NULL");
        snprintf(spec, sizeof(spec), "%s=0x101", t[i].name);
        CHECK(tpmfault_parse(spec, &f, err, sizeof(err)) == 0 && f.cc == t[i].cc &&
              f.nth == 0 && f.rc == 0x101, "%s -> 0x%x %s", spec, f.cc, err);
    }
    /* the table: in code order, each code and each name once */
    while (tpmfault_cc_entry(n, &cc, &name)) {
        const char *other;

        if (n && cc <= prev)
            sorted = false;
        for (size_t k = 0; k < n; k++)
            if (tpmfault_cc_entry(k, &prev, &other) && !strcasecmp(other, name))
                unique = false;
        prev = cc;
        n++;
    }
    CHECK(sorted && unique, "table sorted %d, names unique %d", sorted, unique);
    CHECK(n == 119, "table has %zu entries (TPM 2.0 Part 2 rev 1.59, 0x11f-0x19a: 119)", n);
    CHECK(tpmfault_cc_name(0x123) == NULL && tpmfault_cc_name(0) == NULL &&
          tpmfault_cc_name(0x20000000) == NULL, "unknown codes have no name");
}

static void test_parse(void)
{
    static const struct { const char *spec; uint32_t cc, nth, rc; } good[] = {
        { "PCR_Read=0x101", 0x17e, 0, 0x101 },
        { "pcr_read@2=0x922", 0x17e, 2, 0x922 },
        { "TPM2_PCR_Read=0x101", 0x17e, 0, 0x101 },
        { "TPM_CC_NV_Read@1=0x1", 0x14e, 1, 1 },
        { "tpm2_cc_nv_readpublic=0x18B", 0x169, 0, 0x18b },
        { "0x17e@3=0xFFFFFFFF", 0x17e, 3, 0xffffffff },
        { "0X0000017E=0x00000101", 0x17e, 0, 0x101 },
        { "0x20000000@1000000=0x101", 0x20000000, 1000000, 0x101 },
        { "Startup@01=0x100", 0x144, 1, 0x100 },
    };
    static const struct { const char *spec, *err; } bad[] = {
        { "", "'': expected CC[:H][@N]=RC (e.g. PCR_Read=0x101, NV_Read@2=0x922, PCR_Extend:17@1=0x101)" },
        { "PCR_Read", "'PCR_Read': expected CC[:H][@N]=RC (e.g. PCR_Read=0x101, NV_Read@2=0x922, PCR_Extend:17@1=0x101)" },
        { "=0x101", "'=0x101': expected CC[:H][@N]=RC (e.g. PCR_Read=0x101, NV_Read@2=0x922, PCR_Extend:17@1=0x101)" },
        { "PCR_Read=", "'PCR_Read=': expected CC[:H][@N]=RC (e.g. PCR_Read=0x101, NV_Read@2=0x922, PCR_Extend:17@1=0x101)" },
        { "PCR_Read=0x101=0x1", "'PCR_Read=0x101=0x1': expected CC[:H][@N]=RC (e.g. PCR_Read=0x101, NV_Read@2=0x922, PCR_Extend:17@1=0x101)" },
        { "Foo=0x101", "'Foo=0x101': unknown TPM 2.0 command 'Foo' (a name from TPM 2.0 Part 2 "
          "such as PCR_Read, or a hex code such as 0x17e; --tpm-fault list shows the names)" },
        { "PCR_Read =0x101", NULL }, { " PCR_Read=0x101", NULL }, { "TPM2_=0x101", NULL },
        { "PCR_Reads=0x101", NULL }, { "PCR=0x101", NULL }, { "0x=0x101", NULL },
        { "0x0=0x101", NULL }, { "0x123456789=0x101", NULL }, { "0x17g=0x101", NULL },
        { "17e=0x101", NULL }, { "@1=0x101", NULL },
        { "PCR_Read@0=0x101", "'PCR_Read@0=0x101': the occurrence after '@' must be a number from 1 to 1000000" },
        { "PCR_Read@=0x101", "'PCR_Read@=0x101': the occurrence after '@' must be a number from 1 to 1000000" },
        { "PCR_Read@1000001=0x101", NULL }, { "PCR_Read@99999999999=0x101", NULL },
        { "PCR_Read@-1=0x101", NULL }, { "PCR_Read@+1=0x101", NULL }, { "PCR_Read@1x=0x101", NULL },
        { "PCR_Read@1@2=0x101", NULL }, { "PCR_Read@ 1=0x101", NULL },
        { "PCR_Read=0x0", "'PCR_Read=0x0': the response code must be hex from 0x1 to 0xffffffff (e.g. 0x101, TPM_RC_FAILURE)" },
        { "PCR_Read=101", NULL }, { "PCR_Read=0x", NULL }, { "PCR_Read=0x100000000", NULL },
        { "PCR_Read=0x10g", NULL }, { "PCR_Read=0x101 ", NULL }, { "PCR_Read=-0x1", NULL },
        { "PCR_Read=TPM_RC_FAILURE", NULL },
    };
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        struct tpmfault f;

        memset(&f, 0, sizeof(f));
        char err[256] = "";
        int rc = tpmfault_parse(good[i].spec, &f, err, sizeof(err));

        CHECK(rc == 0 && f.cc == good[i].cc && f.nth == good[i].nth && f.rc == good[i].rc,
              "'%s' -> %d cc=0x%x nth=%u rc=0x%x %s", good[i].spec, rc, f.cc, f.nth, f.rc, err);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct tpmfault f;
        char err[256] = "";
        int rc = tpmfault_parse(bad[i].spec, &f, err, sizeof(err));
        char want[80];

        /* every message names the spec first */
        snprintf(want, sizeof(want), "'%s': ", bad[i].spec);
        CHECK(rc == -1 && !strncmp(err, want, strlen(want)) &&
              (!bad[i].err || !strcmp(err, bad[i].err)), "'%s' -> %d '%s'", bad[i].spec, rc, err);
    }
}

static void test_add(void)
{
    struct tpmfault_set s;
    char err[256] = "", spec[32];
    int i;

    memset(&s, 0, sizeof(s));
    CHECK(tpmfault_add(&s, "PCR_Read=0x101", err, sizeof(err)) == 0, "%s", err);
    CHECK(tpmfault_add(&s, "PCR_Read@2=0x922", err, sizeof(err)) == 0, "%s", err);
    CHECK(tpmfault_add(&s, "pcr_read=0x1", err, sizeof(err)) == -1 &&
          !strcmp(err, "'pcr_read=0x1': every PCR_Read has a fault already"), "%s", err);
    CHECK(tpmfault_add(&s, "0x17e@2=0x1", err, sizeof(err)) == -1 &&
          !strcmp(err, "'0x17e@2=0x1': PCR_Read #2 has a fault already"), "%s", err);
    CHECK(tpmfault_add(&s, "0x20000001@1=0x1", err, sizeof(err)) == 0, "%s", err);
    CHECK(tpmfault_add(&s, "0x20000001@1=0x2", err, sizeof(err)) == -1 &&
          !strcmp(err, "'0x20000001@1=0x2': command 0x20000001 #1 has a fault already"), "%s", err);
    CHECK(tpmfault_add(&s, "bogus", err, sizeof(err)) == -1 && s.n == 3, "bad spec not added");
    for (i = 3; i < TPMFAULT_MAX; i++) {
        snprintf(spec, sizeof(spec), "NV_Read@%d=0x101", i);
        CHECK(tpmfault_add(&s, spec, err, sizeof(err)) == 0, "%s: %s", spec, err);
    }
    CHECK(tpmfault_add(&s, "Quote=0x101", err, sizeof(err)) == -1 &&
          !strcmp(err, "'Quote=0x101': at most 32 faults"), "%s", err);
}

static void test_check(void)
{
    struct tpmfault_set s;
    char err[256];
    uint32_t rc, nth;
    /* (command, expected: 0 forward, else the rc), in order */
    static const struct { uint32_t cc, want, nth; } seq[] = {
        { 0x17e, 0, 1 }, { 0x14e, 0x922, 1 }, { 0x182, 0x101, 1 }, { 0x17e, 0x101, 2 },
        { 0x14e, 0, 2 }, { 0x144, 0, 0 }, { 0x17e, 0, 3 }, { 0x182, 0x101, 2 },
        { 0x182, 0x9a2, 3 }, { 0x182, 0x101, 4 }, { 0x17e, 0, 4 },
    };

    memset(&s, 0, sizeof(s));
    CHECK(tpmfault_add(&s, "PCR_Read@2=0x101", err, sizeof(err)) == 0, "%s", err);
    CHECK(tpmfault_add(&s, "NV_Read@1=0x922", err, sizeof(err)) == 0, "%s", err);
    CHECK(tpmfault_add(&s, "PCR_Extend=0x101", err, sizeof(err)) == 0, "%s", err);
    CHECK(tpmfault_add(&s, "PCR_Extend@3=0x9a2", err, sizeof(err)) == 0, "%s", err);
    for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
        bool hit;

        rc = nth = 0;
        hit = tpmfault_check(&s, seq[i].cc, NULL, &rc, &nth);
        if (seq[i].want)
            CHECK(hit && rc == seq[i].want && nth == seq[i].nth, "step %zu: 0x%x #%u -> %d 0x%x",
                  i, seq[i].cc, nth, hit, rc);
        else
            CHECK(!hit && (!seq[i].nth || nth == seq[i].nth), "step %zu: 0x%x #%u -> %d 0x%x",
                  i, seq[i].cc, nth, hit, rc);
    }
    /* each spec counted what it names; Startup (0x144), named by none, was never counted */
    CHECK(s.f[0].seen == 4 && s.f[1].seen == 2 && s.f[2].seen == 4 && s.f[3].seen == 4,
          "counts %u %u %u %u", s.f[0].seen, s.f[1].seen, s.f[2].seen, s.f[3].seen);

    /* a spec that fires does not keep the specs after it from counting (found by the fuzzer:
     * PCR_Read@2 never fired behind PCR_Read@1) */
    memset(&s, 0, sizeof(s));
    CHECK(tpmfault_add(&s, "PCR_Read@1=0x101", err, sizeof(err)) == 0, "%s", err);
    CHECK(tpmfault_add(&s, "PCR_Read@2=0x922", err, sizeof(err)) == 0, "%s", err);
    CHECK(tpmfault_check(&s, 0x17e, NULL, &rc, &nth) && rc == 0x101 && nth == 1,
          "1st PCR_Read: 0x%x #%u", rc, nth);
    CHECK(tpmfault_check(&s, 0x17e, NULL, &rc, &nth) && rc == 0x922 && nth == 2,
          "2nd PCR_Read: 0x%x #%u", rc, nth);
    CHECK(!tpmfault_check(&s, 0x17e, NULL, &rc, &nth) && nth == 3, "3rd PCR_Read: #%u", nth);
    CHECK(s.f[0].seen == 3 && s.f[1].seen == 3, "counts %u %u", s.f[0].seen, s.f[1].seen);
}

/* CC:H names only the commands whose first handle is H, and counts only those */
static void test_handle(void)
{
    struct tpmfault_set s;
    struct tpmfault f;
    char err[256];
    uint32_t rc = 0, nth = 0, got = 0, h0 = 0, h17 = 17, h18 = 0x12;
    uint8_t ext17[14] = { 0x80, 0x02, 0, 0, 0, 14, 0, 0, 0x01, 0x82, 0, 0, 0, 17 };

    CHECK(tpmfault_first_handle(ext17, 14, &got) && got == 17, "first handle %u", got);
    CHECK(!tpmfault_first_handle(ext17, 13, &got), "13 bytes have no handle");
    CHECK(tpmfault_parse("PCR_Extend:17@1=0x101", &f, err, sizeof(err)) == 0 &&
          f.has_handle && f.handle == 17 && f.nth == 1 && f.rc == 0x101, "%s", err);
    CHECK(tpmfault_parse("NV_Read:0x01200001=0x921", &f, err, sizeof(err)) == 0 &&
          f.has_handle && f.handle == 0x01200001 && f.nth == 0, "%s", err);
    CHECK(tpmfault_parse("PCR_Read:0x0=0x101", &f, err, sizeof(err)) == 0 && f.handle == 0,
          "%s", err);
    CHECK(tpmfault_parse("PCR_Extend:=0x101", &f, err, sizeof(err)) == -1 &&
          !strcmp(err, "'PCR_Extend:=0x101': the handle after ':' must be a number (decimal or "
                  "0x hex, at most 32 bits)"), "%s", err);
    CHECK(tpmfault_parse("PCR_Extend:4294967296=0x101", &f, err, sizeof(err)) == -1, "33 bits");
    CHECK(tpmfault_parse("PCR_Extend:1x=0x101", &f, err, sizeof(err)) == -1, "1x");

    memset(&s, 0, sizeof(s));
    CHECK(tpmfault_add(&s, "PCR_Extend:17@2=0x101", err, sizeof(err)) == 0, "%s", err);
    CHECK(tpmfault_add(&s, "PCR_Extend@2=0x101", err, sizeof(err)) == 0, "another handle filter");
    CHECK(tpmfault_add(&s, "PCR_Extend:17@2=0x9a2", err, sizeof(err)) == -1, "a duplicate");
    /* PCR 0, 17, 18, 17: the second extend of any PCR (PCR 17, the 2nd command) is failed by
     * the spec without a handle; the second of PCR 17 (the 4th command) by the other */
    CHECK(!tpmfault_check(&s, 0x182, &h0, &rc, &nth), "PCR 0: forwarded");
    CHECK(tpmfault_check(&s, 0x182, &h17, &rc, &nth) && nth == 2, "2nd extend: #%u", nth);
    CHECK(!tpmfault_check(&s, 0x182, &h18, &rc, &nth), "PCR 18: forwarded");
    CHECK(tpmfault_check(&s, 0x182, &h17, &rc, &nth) && nth == 2 && rc == 0x101,
          "2nd extend of PCR 17: #%u", nth);
    CHECK(!tpmfault_check(&s, 0x182, NULL, &rc, &nth), "no handle: only the plain spec counts");
}

static void test_wire(void)
{
    uint8_t c[14] = { 0x80, 0x01, 0, 0, 0, 14, 0, 0, 0x01, 0x7e, 1, 2, 3, 4 };
    uint8_t r[TPMFAULT_RESPONSE_SIZE];
    static const uint8_t want[] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x01, 0x01 };
    uint32_t cc = 0;

    CHECK(tpmfault_command(c, 14, &cc) == 1 && cc == 0x17e, "well-formed: 0x%x", cc);
    c[1] = 0x02;
    CHECK(tpmfault_command(c, 14, &cc) == 1, "TPM_ST_SESSIONS");
    CHECK(tpmfault_command(c, 13, &cc) == 0, "size field 14, 13 bytes");
    c[5] = 200;
    CHECK(tpmfault_command(c, 14, &cc) == 0, "size field 200, 14 bytes");
    c[5] = 9;
    CHECK(tpmfault_command(c, 9, &cc) == 0, "9 bytes");
    c[0] = 0x00;
    c[1] = 0xc1;
    c[5] = 14;
    CHECK(tpmfault_command(c, 14, &cc) == 0, "a TPM 1.2 tag");
    tpmfault_response(r, 0x101);
    CHECK(!memcmp(r, want, sizeof(want)), "error answer for 0x101");
    tpmfault_response(r, 0xa1b2c3d4);
    CHECK(r[6] == 0xa1 && r[7] == 0xb2 && r[8] == 0xc3 && r[9] == 0xd4 && r[5] == 10,
          "rc big-endian");
}

/* ---- the relay, with this program as QEMU (ctrl socket, data socket) and swtpm ---- */

static void spin(int rounds)
{
    for (int i = 0; i < rounds; i++)
        ev_run_once(20);
}

/* what is readable on fd now (non-blocking; -1: nothing, 0: EOF) */
static ssize_t take(int fd, uint8_t *buf, size_t n)
{
    ssize_t r = recv(fd, buf, n, MSG_DONTWAIT);

    return r < 0 ? -1 : r;
}

static int send_fd(int fd, const void *buf, size_t len, int pass)
{
    union {
        char b[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = { (void *)buf, len };
    struct msghdr m = { 0 };
    struct cmsghdr *c;

    memset(&ctl, 0, sizeof(ctl));
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl.b;
    m.msg_controllen = sizeof(ctl.b);
    c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &pass, sizeof(int));
    return sendmsg(fd, &m, 0) == (ssize_t)len ? 0 : -1;
}

static int recv_fd(int fd, uint8_t *buf, size_t len, int *got)
{
    union {
        char b[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = { buf, len };
    struct msghdr m = { 0 };
    struct cmsghdr *c;
    ssize_t n;

    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl.b;
    m.msg_controllen = sizeof(ctl.b);
    n = recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    *got = -1;
    c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
    if (c && c->cmsg_type == SCM_RIGHTS)
        memcpy(got, CMSG_DATA(c), sizeof(int));
    return (int)n;
}

static void put_cmd(uint8_t *b, uint16_t tag, uint32_t size, uint32_t cc)
{
    store_be16(b, tag);
    store_be32(b + 2, size);
    store_be32(b + 6, cc);
}

struct rig {
    char dir[64], path[96];
    struct ctrlproxy p;
    int qctl, qdata, sctl, sdata;       /* QEMU's and swtpm's ends */
};

/* QEMU connects, sends CMD_SET_DATAFD with its data socket; swtpm gets a descriptor */
static int rig_up(struct rig *g, struct tpmfault_set *faults, int *passed_fd_is_qemus)
{
    int sp[2], dp[2], lfd, got;
    uint8_t b[16], res[4] = { 0, 0, 0, 0 };
    ssize_t n;

    snprintf(g->dir, sizeof(g->dir), "/tmp/tpmfault-test.XXXXXX");
    if (!mkdtemp(g->dir))
        return -1;
    snprintf(g->path, sizeof(g->path), "%s/ctrl", g->dir);
    lfd = sock_listen(g->path);
    if (lfd < 0 || sock_pair(sp) != 0 || sock_pair(dp) != 0)
        return -1;
    ctrlproxy_init(&g->p, lfd, sp[0]);
    ctrlproxy_set_faults(&g->p, faults);
    g->sctl = sp[1];
    g->qctl = sock_connect(g->path);
    spin(2);
    store_be32(b, CMD_SET_DATAFD);
    if (g->qctl < 0 || send_fd(g->qctl, b, 4, dp[1]) != 0)
        return -1;
    close(dp[1]);
    g->qdata = dp[0];
    spin(3);
    n = recv_fd(g->sctl, b, sizeof(b), &got);
    if (n != 4 || load_be32(b) != CMD_SET_DATAFD || got < 0)
        return -1;
    g->sdata = got;
    send(g->sctl, res, 4, 0);
    spin(3);
    if (take(g->qctl, b, sizeof(b)) != 4)
        return -1;
    /* is swtpm's descriptor QEMU's own socket? bytes written on it reach QEMU's end at once */
    send(g->sdata, "x", 1, 0);
    *passed_fd_is_qemus = take(g->qdata, b, sizeof(b)) == 1;
    if (!*passed_fd_is_qemus)
        take(g->sdata, b, sizeof(b));       /* it went to the relay: it passed it on */
    spin(3);
    take(g->qdata, b, sizeof(b));
    return 0;
}

static void rig_down(struct rig *g)
{
    ctrlproxy_close(&g->p);
    close(g->qctl);
    close(g->qdata);
    close(g->sctl);
    if (g->sdata >= 0)
        close(g->sdata);
    unlink(g->path);
    rmdir(g->dir);
}

static void test_relay(void)
{
    struct tpmfault_set s;
    struct rig g;
    char err[256], logbuf[512] = "";
    uint8_t c[5200], b[6000];
    static const uint8_t fault101[] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x01, 0x01 };
    static const uint8_t size142[] = { 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x01, 0x42 };
    int direct = -1, saved_err, logfd;
    ssize_t n;

    /* without faults: swtpm gets QEMU's data socket itself */
    memset(&s, 0, sizeof(s));
    CHECK(rig_up(&g, &s, &direct) == 0, "rig up (no faults)");
    CHECK(direct == 1, "no faults: swtpm has QEMU's own data socket (no relay)");
    rig_down(&g);

    memset(&s, 0, sizeof(s));
    tpmfault_add(&s, "PCR_Read@2=0x101", err, sizeof(err));
    /* the log lines go to a file we read back */
    saved_err = dup(2);
    {
        char tmpl[] = "/tmp/tpmfault-log.XXXXXX";

        logfd = mkstemp(tmpl);
        unlink(tmpl);
        dup2(logfd, 2);
    }
    CHECK(rig_up(&g, &s, &direct) == 0, "rig up (faults)");
    CHECK(direct == 0, "faults: swtpm's data socket is the relay's");

    /* 1: a PCR_Read passes; the answer arrives in two pieces and leaves in one */
    put_cmd(c, 0x8001, 14, 0x17e);
    memset(c + 10, 0xab, 4);
    send(g.qdata, c, 14, 0);
    spin(2);
    n = take(g.sdata, b, sizeof(b));
    CHECK(n == 14 && !memcmp(b, c, 14), "PCR_Read #1 reaches swtpm whole (%zd)", n);
    put_cmd(b, 0x8001, 20, 0);
    memset(b + 10, 0x5a, 10);
    send(g.sdata, b, 7, 0);
    spin(2);
    CHECK(take(g.qdata, c, sizeof(c)) == -1, "a partial answer header is held back");
    send(g.sdata, b + 7, 6, 0);
    spin(2);
    CHECK(take(g.qdata, c, sizeof(c)) == -1, "a partial answer body is held back");
    send(g.sdata, b + 13, 7, 0);
    spin(2);
    n = take(g.qdata, c, sizeof(c));
    CHECK(n == 20 && !memcmp(b, c, 20), "the answer reaches QEMU in one piece (%zd)", n);

    /* 2: the second PCR_Read is answered by the fault, swtpm never sees it */
    put_cmd(c, 0x8001, 14, 0x17e);
    send(g.qdata, c, 14, 0);
    spin(2);
    n = take(g.qdata, b, sizeof(b));
    CHECK(n == 10 && !memcmp(b, fault101, 10), "PCR_Read #2 answered 0x101 (%zd bytes)", n);
    CHECK(take(g.sdata, b, sizeof(b)) == -1, "swtpm saw nothing of PCR_Read #2");

    /* 3: a malformed command (size field 14, 12 bytes) goes to swtpm as it is, uncounted */
    put_cmd(c, 0x8001, 14, 0x17e);
    send(g.qdata, c, 12, 0);
    spin(2);
    n = take(g.sdata, b, sizeof(b));
    CHECK(n == 12 && !memcmp(b, c, 12), "malformed command forwarded as it is (%zd)", n);
    put_cmd(b, 0x8001, 10, 0x142);
    send(g.sdata, b, 10, 0);
    spin(2);
    CHECK(take(g.qdata, c, sizeof(c)) == 10, "its answer passed back");

    /* 4: fewer than 10 bytes wait for more (as swtpm does); a TPM 1.2 tag is not counted */
    put_cmd(c, 0x00c1, 14, 0x17e);
    send(g.qdata, c, 5, 0);
    spin(2);
    CHECK(take(g.sdata, b, sizeof(b)) == -1, "5 bytes: nothing forwarded yet");
    send(g.qdata, c + 5, 9, 0);
    spin(2);
    n = take(g.sdata, b, sizeof(b));
    CHECK(n == 14 && !memcmp(b, c, 14), "then all 14 bytes together (%zd)", n);
    put_cmd(b, 0x00c4, 10, 0x1e);
    send(g.sdata, b, 10, 0);
    spin(2);
    CHECK(take(g.qdata, c, sizeof(c)) == 10, "its answer passed back");

    /* 5: more than 4096 bytes at once: dropped, answered TPM_RC_COMMAND_SIZE */
    put_cmd(c, 0x8001, 5000, 0x17e);
    memset(c + 10, 0, 4990);
    send(g.qdata, c, 5000, 0);
    spin(3);
    n = take(g.qdata, b, sizeof(b));
    CHECK(n == 10 && !memcmp(b, size142, 10), "5000 bytes: answered 0x142 (%zd)", n);
    CHECK(take(g.sdata, b, sizeof(b)) == -1, "swtpm saw none of them");

    /* 6: the third well-formed PCR_Read passes again (only #2 fails) */
    put_cmd(c, 0x8002, 14, 0x17e);
    send(g.qdata, c, 14, 0);
    spin(2);
    CHECK(take(g.sdata, b, sizeof(b)) == 14, "PCR_Read #3 reaches swtpm");
    put_cmd(b, 0x8001, 10, 0);
    send(g.sdata, b, 10, 0);
    spin(2);
    CHECK(take(g.qdata, c, sizeof(c)) == 10, "its answer passed back");

    /* 7: swtpm's end closes: QEMU's data socket sees the end */
    close(g.sdata);
    g.sdata = -1;
    spin(2);
    CHECK(take(g.qdata, b, sizeof(b)) == 0, "swtpm gone: QEMU's data socket at EOF");
    /* 5 commands (the oversized piece is none); malformed: 3, 4 and 5 */
    CHECK(g.p.relay.commands == 5 && g.p.relay.injected == 1 && g.p.relay.malformed == 3,
          "relay counts: %lu commands, %lu injected, %lu malformed", g.p.relay.commands,
          g.p.relay.injected, g.p.relay.malformed);
    rig_down(&g);

    dup2(saved_err, 2);
    close(saved_err);
    n = pread(logfd, logbuf, sizeof(logbuf) - 1, 0);
    close(logfd);
    logbuf[n > 0 ? n : 0] = 0;
    CHECK(!strcmp(logbuf, "test: TPM fault: PCR_Read (0x17e) #2 answered 0x101\n"),
          "log: '%s'", logbuf);
}

int main(void)
{
    test_names();
    test_parse();
    test_add();
    test_check();
    test_handle();
    test_wire();
    log_prog = "test";
    signal(SIGPIPE, SIG_IGN);   /* a broken relay must show as failed checks, not kill us */
    test_relay();
    printf("host unit (tpmfault): %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
