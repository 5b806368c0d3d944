/* SPDX-License-Identifier: MIT */
/*
 * The TIS driver's command/response transfer (drivers/tis.c) against a simulated TIS: the
 * registers it uses (ACCESS per locality, STS with burst count, DATA_FIFO) and the states of
 * QEMU's hw/tpm/tpm_tis_common.c (idle, ready, reception, execution, completion). The model
 * answers every command with a canned response; it can lose the first byte of the first read
 * or offer more bytes than the response's size field, to drive STS.responseRetry. Also
 * tpm2_response_framing, the header check the driver applies to each read.
 */
/* the driver's MMIO goes to the model below, not to io.h's volatile pointers */
#define ARCH_X86_IO_H

#include "test_common.h"

#include "abi/tpm2.h"
#include "log/printk.h"
#include "console_capture.h"
#include "tpm/tpm2.h"

/* ================================ the simulated TIS ================================ */

enum tis_state { ST_IDLE, ST_READY, ST_RECEPTION, ST_EXECUTION, ST_COMPLETION };

#define NO_LOC 0xffu
#define STS_TPM2 (1u << 26)                  /* TPM family 2.0 in STS */
#define MAX_STS_WRITES 32

static struct model {
    unsigned active;                         /* active locality, or NO_LOC */
    enum tis_state state;
    uint32_t sts;                            /* VALID, EXPECT, DATA_AVAIL, COMMAND_READY */
    size_t off;                              /* the read/write offset in the buffer */
    unsigned max_burst;
    uint8_t cmd[TPM2_BUFFER_MAX];
    size_t cmd_len;
    uint8_t rsp[TPM2_BUFFER_MAX];            /* the canned response */
    size_t rsp_len;                          /* bytes the FIFO offers (may differ from its size) */
    size_t first_read_off;                   /* offset the first read after GO starts at */
    unsigned gos, retries, stray;
    uint32_t sts_writes[MAX_STS_WRITES];     /* every value written to STS, in order */
    unsigned n_sts_writes;
    size_t off_at_last_ready;                /* response bytes read when COMMAND_READY came */
    enum tis_state state_at_last_ready;
} m;

static void model_reset(void)
{
    memset(&m, 0, sizeof(m));
    m.active = NO_LOC;
    m.max_burst = 7;                         /* small, so transfers take several bursts */
}

static void model_set_response(const uint8_t *rsp, size_t len)
{
    assert_true(len <= sizeof(m.rsp));
    memcpy(m.rsp, rsp, len);
    m.rsp_len = len;
}

static uint32_t burst(void)
{
    size_t avail = (m.sts & TIS_STS_DATA_AVAIL) ? m.rsp_len - m.off : sizeof(m.cmd) - m.off;
    if (m.state == ST_EXECUTION || m.state == ST_IDLE)
        avail = 0;
    return (uint32_t)(avail < m.max_burst ? avail : m.max_burst);
}

static uint32_t model_read(unsigned loc, unsigned off)
{
    switch (off) {
    case TIS_REG_ACCESS:
        return TIS_ACCESS_VALID | (m.active == loc ? TIS_ACCESS_ACTIVE : 0);
    case TIS_REG_DID_VID:
        return 0x00011014u;                  /* QEMU's */
    }
    if (loc != m.active) {                   /* QEMU: all ones from a locality not active */
        m.stray++;
        return 0xffffffffu;
    }
    switch (off) {
    case TIS_REG_STS:
        return STS_TPM2 | burst() << 8 | m.sts;
    case TIS_REG_DATA_FIFO:
        if (m.state != ST_COMPLETION || !(m.sts & TIS_STS_DATA_AVAIL)) {
            m.stray++;
            return 0xff;
        }
        uint8_t b = m.rsp[m.off++];
        if (m.off >= m.rsp_len)
            m.sts = TIS_STS_VALID;           /* the whole response is read */
        return b;
    }
    fail_msg("read of unmodelled TIS register 0x%x", off);
    return 0;
}

static uint32_t cmd_size(void)
{
    return (uint32_t)m.cmd[2] << 24 | (uint32_t)m.cmd[3] << 16 | (uint32_t)m.cmd[4] << 8 |
           m.cmd[5];
}

static void sts_write(uint32_t v)
{
    assert_true(m.n_sts_writes < MAX_STS_WRITES);
    m.sts_writes[m.n_sts_writes++] = v;
    switch (v) {
    case TIS_STS_COMMAND_READY:
        /* from any state but execution: ready for a command, the response dropped */
        m.off_at_last_ready = m.off;
        m.state_at_last_ready = m.state;
        if (m.state != ST_EXECUTION) {
            m.state = ST_READY;
            m.sts = TIS_STS_COMMAND_READY;
            m.off = 0;
        }
        break;
    case TIS_STS_GO:
        if (m.state != ST_RECEPTION || (m.sts & TIS_STS_EXPECT)) {
            m.stray++;
            break;
        }
        m.gos++;
        m.cmd_len = m.off;
        /* the backend answers at once: execution ends in completion */
        m.state = ST_COMPLETION;
        m.off = m.first_read_off;
        m.first_read_off = 0;
        m.sts = TIS_STS_VALID | (m.off < m.rsp_len ? TIS_STS_DATA_AVAIL : 0);
        break;
    case TIS_STS_RESPONSE_RETRY:
        if (m.state != ST_COMPLETION) {
            m.stray++;
            break;
        }
        m.retries++;
        m.off = 0;
        m.sts = TIS_STS_VALID | TIS_STS_DATA_AVAIL;
        break;
    default:
        fail_msg("unexpected STS write 0x%08x", v);
    }
}

static void model_write(unsigned loc, unsigned off, uint32_t v)
{
    if (off == TIS_REG_ACCESS) {
        if (v == TIS_ACCESS_REQUEST_USE && m.active == NO_LOC)
            m.active = loc;
        else if (v == TIS_ACCESS_ACTIVE && m.active == loc)
            m.active = NO_LOC;
        else
            fail_msg("unexpected ACCESS write 0x%02x to locality %u", v, loc);
        return;
    }
    if (loc != m.active) {                   /* QEMU ignores it */
        m.stray++;
        return;
    }
    switch (off) {
    case TIS_REG_STS:
        sts_write(v);
        return;
    case TIS_REG_DATA_FIFO:
        if (m.state == ST_READY) {
            m.state = ST_RECEPTION;
            m.sts = TIS_STS_EXPECT | TIS_STS_VALID;
        }
        if (m.state != ST_RECEPTION || !(m.sts & TIS_STS_EXPECT) || m.off >= sizeof(m.cmd)) {
            m.stray++;
            return;
        }
        m.cmd[m.off++] = (uint8_t)v;
        /* the header's size says when the command is complete */
        if (m.off >= TPM2_HEADER_SIZE - 4 && m.off >= cmd_size())
            m.sts = TIS_STS_VALID;
        return;
    }
    fail_msg("write of unmodelled TIS register 0x%x", off);
}

static void decode(uintptr_t a, unsigned *loc, unsigned *off)
{
    assert_true(a >= TIS_BASE && a < TIS_BASE + 5 * TIS_LOCALITY_STRIDE);
    *loc = (unsigned)((a - TIS_BASE) / TIS_LOCALITY_STRIDE);
    *off = (unsigned)((a - TIS_BASE) % TIS_LOCALITY_STRIDE);
}

static inline uint8_t mmio_read8(uintptr_t a)
{
    unsigned l, o;
    decode(a, &l, &o);
    return (uint8_t)model_read(l, o);
}

static inline uint32_t mmio_read32(uintptr_t a)
{
    unsigned l, o;
    decode(a, &l, &o);
    assert_true(o != TIS_REG_DATA_FIFO);     /* a wide FIFO access would move several bytes */
    return model_read(l, o);
}

static inline void mmio_write8(uintptr_t a, uint8_t v)
{
    unsigned l, o;
    decode(a, &l, &o);
    model_write(l, o, v);
}

static inline void mmio_write32(uintptr_t a, uint32_t v)
{
    unsigned l, o;
    decode(a, &l, &o);
    assert_true(o != TIS_REG_DATA_FIFO);
    model_write(l, o, v);
}

static inline void cpu_relax(void)
{
}

/* A clock 1 ms further on every reading: a timeout ends after as many polls as it has ms. */
static uint64_t now_us;
uint64_t timer_now_us(void)
{
    return now_us += 1000u;
}

#include "drivers/tis.c"

/* ================================ the test harness ================================ */

static struct tis tis;
static char err[256];
static uint8_t rsp[TPM2_BUFFER_MAX];
static size_t rsp_len;

static int setup(void **state)
{
    (void)state;
    model_reset();
    console_capture_clear();
    printk_set_loglvl(LOG_ALL);
    printk_set_memlog(NULL, 0);
    err[0] = '\0';
    memset(rsp, 0, sizeof(rsp));
    rsp_len = 0xdead;
    assert_true(tis_request_locality(&tis, 0, err, sizeof(err)));
    assert_int_equal(m.active, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    printk_set_console(NULL);
    return 0;
}

#define TS(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

/* TPM2_PCR_Read of SHA-256 PCR 17: 20 bytes */
static const uint8_t pcr_read_cmd[] = {
    0x80, 0x01, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x01, 0x7e,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x0b, 0x03, 0x00, 0x00, 0x02,
};

/* its response: header, pcrUpdateCounter, the selection, one 32-byte digest; 62 bytes */
static void pcr_read_rsp(uint8_t out[62])
{
    static const uint8_t head[30] = {
        0x80, 0x01, 0x00, 0x00, 0x00, 0x3e, 0x00, 0x00, 0x00, 0x00,   /* header */
        0x00, 0x00, 0x00, 0x17,                                       /* pcrUpdateCounter */
        0x00, 0x00, 0x00, 0x01, 0x00, 0x0b, 0x03, 0x00, 0x00, 0x02,   /* selection */
        0x00, 0x00, 0x00, 0x01, 0x00, 0x20,                           /* 1 digest, 32 bytes */
    };
    memcpy(out, head, sizeof(head));
    for (unsigned i = 0; i < 32; i++)
        out[30 + i] = (uint8_t)(0xa0 + i);
}

static void assert_sts_writes(const uint32_t *want, unsigned n)
{
    for (unsigned i = 0; i < n && i < m.n_sts_writes; i++)
        if (m.sts_writes[i] != want[i])
            fail_msg("STS write %u: 0x%08x, want 0x%08x", i, m.sts_writes[i], want[i]);
    assert_int_equal(m.n_sts_writes, n);
}

#define STS_WRITES(...)                                                                      \
    do {                                                                                     \
        static const uint32_t w_[] = { __VA_ARGS__ };                                       \
        assert_sts_writes(w_, sizeof(w_) / sizeof(w_[0]));                                   \
    } while (0)

#define CR TIS_STS_COMMAND_READY
#define GO TIS_STS_GO
#define RR TIS_STS_RESPONSE_RETRY

/* The TPM was put back to idle after reading the response to its end (or giving up). */
static void assert_left_ready(void)
{
    assert_int_equal(m.state_at_last_ready, ST_COMPLETION);
    assert_int_equal(m.state, ST_READY);
    assert_int_equal(m.stray, 0);
}

static int transmit(size_t cap)
{
    return tis_transmit(&tis, pcr_read_cmd, sizeof(pcr_read_cmd), rsp, cap, &rsp_len, err,
                        sizeof(err));
}

/* ================================ transfers ================================ */

static void normal_transfer(void **state)
{
    (void)state;
    uint8_t want[62];
    pcr_read_rsp(want);
    model_set_response(want, sizeof(want));

    assert_int_equal(transmit(sizeof(rsp)), 0);
    assert_int_equal(m.cmd_len, sizeof(pcr_read_cmd));
    assert_memory_equal(m.cmd, pcr_read_cmd, sizeof(pcr_read_cmd));
    assert_int_equal(rsp_len, sizeof(want));
    assert_memory_equal(rsp, want, sizeof(want));
    assert_string_equal(err, "");
    assert_int_equal(m.gos, 1);
    assert_int_equal(m.retries, 0);
    STS_WRITES(CR, GO, CR);
    assert_int_equal(m.off_at_last_ready, sizeof(want));   /* idle only after all of it */
    assert_left_ready();
    assert_string_equal(console_text, "");
}

/* Locality 2's registers are a stride above 0's; the driver gives 0 up first. */
static void normal_transfer_locality_2(void **state)
{
    (void)state;
    uint8_t want[62];
    pcr_read_rsp(want);
    model_set_response(want, sizeof(want));

    assert_true(tis_request_locality(&tis, 2, err, sizeof(err)));
    assert_int_equal(m.active, 2);
    assert_int_equal(tis.locality, 2);
    assert_int_equal(transmit(sizeof(rsp)), 0);
    assert_memory_equal(m.cmd, pcr_read_cmd, sizeof(pcr_read_cmd));
    assert_int_equal(rsp_len, sizeof(want));
    assert_memory_equal(rsp, want, sizeof(want));
    STS_WRITES(CR, GO, CR);
    assert_left_ready();
    tis_release_locality(&tis);
    assert_int_equal(m.active, NO_LOC);
}

/* The first read misses the response's first byte: its header reads tag 0x0100, size
 * 0x00003e00; one responseRetry and the second read gets all 62 bytes. */
static void lost_first_byte_is_read_again(void **state)
{
    (void)state;
    uint8_t want[62];
    pcr_read_rsp(want);
    model_set_response(want, sizeof(want));
    m.first_read_off = 1;

    assert_int_equal(transmit(sizeof(rsp)), 0);
    assert_int_equal(rsp_len, 62);
    assert_memory_equal(rsp, want, sizeof(want));
    assert_int_equal(m.gos, 1);                              /* the command is not sent again */
    assert_int_equal(m.retries, 1);
    STS_WRITES(CR, GO, RR, CR);
    assert_int_equal(m.off_at_last_ready, sizeof(want));
    assert_left_ready();
    assert_string_equal(console_text, "vtboot: WARNING: TPM: response header tag 0x0100 size 15872 "
                              "does not frame a response (buffer 4096); reading the response "
                              "again (responseRetry, read 2 of 3)\n");
}

static const char warn_fmt[] = "vtboot: WARNING: %s; reading the response again "
                               "(responseRetry, read %u of 3)\n";

static void assert_two_warnings(const char *msg)
{
    char want[1024];
    int n = snprintf(want, sizeof(want), warn_fmt, msg, 2);
    snprintf(want + n, sizeof(want) - (size_t)n, warn_fmt, msg, 3);
    assert_string_equal(console_text, want);
}

static void never_frames(void **state)
{
    (void)state;
    static const uint8_t bad[10] = { 0x80, 0x01, 0x00, 0x00, 0x00, 0x05, 0, 0, 0, 0 };
    model_set_response(bad, sizeof(bad));

    assert_int_equal(transmit(sizeof(rsp)), -1);
    assert_string_equal(err, "TPM: response header tag 0x8001 size 5 does not frame a response "
                             "(buffer 4096) (3 reads)");
    assert_int_equal(m.gos, 1);
    assert_int_equal(m.retries, 2);
    STS_WRITES(CR, GO, RR, RR, CR);
    assert_left_ready();
    assert_two_warnings("TPM: response header tag 0x8001 size 5 does not frame a response "
                        "(buffer 4096)");
}

/* The FIFO offers 14 bytes for a response of size 12: data left after its size. */
static void more_data_than_size(void **state)
{
    (void)state;
    static const uint8_t longer[14] = { 0x80, 0x01, 0x00, 0x00, 0x00, 0x0c, 0, 0, 0, 0,
                                        0x11, 0x22, 0x33, 0x44 };
    model_set_response(longer, sizeof(longer));

    assert_int_equal(transmit(sizeof(rsp)), -1);
    assert_string_equal(err, "TPM: more response data than its size 12 (3 reads)");
    assert_int_equal(m.retries, 2);
    STS_WRITES(CR, GO, RR, RR, CR);
    assert_int_equal(m.off_at_last_ready, 12);                /* it stops at the size */
    assert_left_ready();
    assert_two_warnings("TPM: more response data than its size 12");
}

/* A response of 64 bytes for a 32-byte buffer: refused on its header, nothing written past
 * the buffer (an exact-size heap buffer, for ASan). */
static void larger_than_buffer(void **state)
{
    (void)state;
    uint8_t big[64];
    memset(big, 0x5a, sizeof(big));
    memcpy(big, (const uint8_t[]){ 0x80, 0x01, 0x00, 0x00, 0x00, 0x40, 0, 0, 0, 0 }, 10);
    model_set_response(big, sizeof(big));
    uint8_t *small = malloc(32);
    assert_non_null(small);

    int rc = tis_transmit(&tis, pcr_read_cmd, sizeof(pcr_read_cmd), small, 32, &rsp_len, err,
                          sizeof(err));
    free(small);
    assert_int_equal(rc, -1);
    assert_string_equal(err, "TPM: response header tag 0x8001 size 64 does not frame a response "
                             "(buffer 32) (3 reads)");
    assert_int_equal(rsp_len, 0xdead);
    assert_int_equal(m.retries, 2);
    STS_WRITES(CR, GO, RR, RR, CR);
    assert_int_equal(m.off_at_last_ready, 10);               /* only the header was read */
    assert_left_ready();
}

/* ================================ tpm2_response_framing ================================ */

static int frame(uint16_t tag, uint32_t size, size_t cap, size_t *out)
{
    uint8_t h[TPM2_HEADER_SIZE] = {
        (uint8_t)(tag >> 8), (uint8_t)tag,
        (uint8_t)(size >> 24), (uint8_t)(size >> 16), (uint8_t)(size >> 8), (uint8_t)size,
        0, 0, 0, 0,
    };
    err[0] = '\0';
    *out = 0x1234;
    return tpm2_response_framing(h, cap, out, err, sizeof(err));
}

static void framing_tags(void **state)
{
    (void)state;
    size_t n;
    assert_int_equal(frame(0x8001, 62, 4096, &n), 0);
    assert_int_equal(n, 62);
    assert_int_equal(frame(0x8002, 100, 4096, &n), 0);
    assert_int_equal(n, 100);
    assert_int_equal(frame(0x00c4, 10, 4096, &n), 0);        /* TPM_ST_RSP_COMMAND */
    assert_int_equal(n, 10);
    assert_string_equal(err, "");

    assert_int_equal(frame(0x0180, 62, 4096, &n), -1);      /* 0x8001 byte-swapped */
    assert_string_equal(err, "TPM: response header tag 0x0180 size 62 does not frame a "
                             "response (buffer 4096)");
    assert_int_equal(n, 0x1234);
}

static void framing_sizes(void **state)
{
    (void)state;
    size_t n;
    assert_int_equal(frame(0x8001, 9, 4096, &n), -1);
    assert_string_equal(err, "TPM: response header tag 0x8001 size 9 does not frame a "
                             "response (buffer 4096)");
    assert_int_equal(n, 0x1234);
    assert_int_equal(frame(0x8001, 10, 4096, &n), 0);
    assert_int_equal(n, 10);
    assert_int_equal(frame(0x8001, 512, 512, &n), 0);
    assert_int_equal(n, 512);
    assert_int_equal(frame(0x8001, 513, 512, &n), -1);
    assert_string_equal(err, "TPM: response header tag 0x8001 size 513 does not frame a "
                             "response (buffer 512)");
    assert_int_equal(n, 0x1234);
    /* a size with the top bit set is not taken as negative */
    assert_int_equal(frame(0x8001, 0x80000010u, 4096, &n), -1);
    assert_string_equal(err, "TPM: response header tag 0x8001 size 2147483664 does not frame "
                             "a response (buffer 4096)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TS(normal_transfer),
        TS(normal_transfer_locality_2),
        TS(lost_first_byte_is_read_again),
        TS(never_frames),
        TS(more_data_than_size),
        TS(larger_than_buffer),
        cmocka_unit_test(framing_tags),
        cmocka_unit_test(framing_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
