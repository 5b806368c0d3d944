/* SPDX-License-Identifier: MIT */
/* Unit tests of host/lib's pure parts: VSENTER parsing and line assembly, the swtpm control
 * framing, the JSON look-up, the module-string rule (also without modules); the MLE header
 * (t_mlehdr.c), the MLE image audit (t_mleaudit.c), `info registers -a` and the launch decisions (t_cpustate.c), the gdb remote
 * protocol and the multiplexer's tracking (t_gdb.c), the platform's event sources
 * (t_platstate.c), the QMP client (t_qmp.c). Prints "N passed, N failed".
 * usage: host-unit [DATA-DIR]   (default host/tests/unit/data, from the top of the tree) */
#include "unit.h"
#include "lib/bytes.h"
#include "boot.h"
#include "iso.h"
#include "json.h"
#include "tpmctrl.h"
#include "util.h"
#include "vsenter.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int unit_passed, unit_failed;
const char *unit_data_dir = "host/tests/unit/data";

char *unit_data(const char *name)
{
    char *path = xasprintf("%s/%s", unit_data_dir, name);
    size_t len;
    uint8_t *d = file_read_all(path, &len, 1 << 20);
    char *s;

    if (!d) {
        printf("FAIL cannot read %s\n", path);
        exit(2);
    }
    s = xmalloc(len + 1);
    memcpy(s, d, len);
    s[len] = 0;
    free(d);
    free(path);
    return s;
}

static void test_vs_parse(void)
{
    static const struct {
        const char *line; int ok; const char *err; uint32_t base, hdr; int has_id; uint32_t id;
    } t[] = {
        { "VSENTER 4 id=0x1 mle_base=0x00100000 mle_hdr=0x00105450", 1, NULL,
          0x100000, 0x105450, 1, 1 },
        { "VSENTER 4 id=0x1 mle_base=0x1 mle_hdr=0x1", 1, NULL, 1, 1, 1, 1 },
        { "VSENTER 04 id=0xC0FFEE mle_base=0x00100000 mle_hdr=0x00100040", 1, NULL,
          0x100000, 0x100040, 1, 0xc0ffee },
        { "VSENTER 4 id=0x1 mle_base=0xFFFFFFFF mle_hdr=0x0000ABCD", 1, NULL,
          0xffffffff, 0xabcd, 1, 1 },
        /* the header's 0x34 bytes must be in RAM (0x20000000 here) and below 4 GiB */
        { "VSENTER 4 id=0x1 mle_base=0x0 mle_hdr=0x1fffffcc", 1, NULL, 0, 0x1fffffcc, 1, 1 },
        { "VSENTER 4 id=0x1 mle_base=0x0 mle_hdr=0x1fffffcd", 0, "MLE header not in guest RAM",
          0, 0, 1, 1 },
        { "VSENTER 4 id=0x1 mle_base=0x0 mle_hdr=0xffffffcc", 0, "MLE header not in guest RAM",
          0, 0, 1, 1 },
        { "VSENTER 4 id=0x1 mle_base=0x0 mle_hdr=0xffffffcd", 0, "MLE header crosses 4 GiB",
          0, 0, 1, 1 },
        { "VSENTER 1 mle_base=0x00100000 mle_size=0x00003788", 0, "unsupported protocol 1",
          0, 0, 0, 0 },
        { "VSENTER 2 mle_base=0x00100000 mle_hdr=0x1", 0, "unsupported protocol 2", 0, 0, 0, 0 },
        { "VSENTER 4 id=0x1 mle_base=0x00100000 mle_size=0x1", 0, "malformed request", 0, 0, 1, 1 },
        { "VSENTER 4 id=0x1 mle_base=0x00100000 mle_hdr=0x1 ", 0, "malformed request", 0, 0, 1, 1 },
        { "VSENTER 4 id=0x1 mle_base=0x001000000 mle_hdr=0x1", 0, "malformed request", 0, 0, 1, 1 },
        { "VSENTER 4 id=0x1 mle_base=00100000 mle_hdr=0x1", 0, "malformed request", 0, 0, 1, 1 },
        { "VSENTER 4 id=0x1 mle_base=0x mle_hdr=0x1", 0, "malformed request", 0, 0, 1, 1 },
        { "VSENTER 4 id=0x1  mle_base=0x1 mle_hdr=0x1", 0, "malformed request", 0, 0, 1, 1 },
        { "VSENTER 4 id=0x1 mle_hdr=0x1 mle_base=0x1", 0, "malformed request", 0, 0, 1, 1 },
        { "VSENTER 4 id=0x1 mle_base=0x1 mle_hdr=0xg", 0, "malformed request", 0, 0, 1, 1 },
        /* the id: read before anything after it, so that a refusal can name the request */
        { "VSENTER 4 mle_base=0x1 mle_hdr=0x1", 0, "malformed request", 0, 0, 0, 0 },
        { "VSENTER 4 id=1 mle_base=0x1 mle_hdr=0x1", 0, "malformed request", 0, 0, 0, 0 },
        { "VSENTER 4 id=0x123456789 mle_base=0x1", 0, "malformed request", 0, 0, 0, 0 },
        { "VSENTER 4 id=0xffffffff mle_base=0x1", 0, "malformed request", 0, 0, 1, 0xffffffff },
        { "VSENTER 3 mle_base=0x00100000 mle_hdr=0x00105450", 0, "unsupported protocol 3", 0, 0,
          0, 0 },
        { "VSENTER", 0, "not a VSENTER request", 0, 0, 0, 0 },
        { "VSENTER ", 0, "malformed request", 0, 0, 0, 0 },
        { "VSENTER x", 0, "malformed request", 0, 0, 0, 0 },
        { "VSENTER 99999 mle_base=0x1 mle_hdr=0x1", 0, "malformed request", 0, 0, 0, 0 },
        { "", 0, "not a VSENTER request", 0, 0, 0, 0 },
        { "vsenter 2 mle_base=0x1 mle_hdr=0x1", 0, "not a VSENTER request", 0, 0, 0, 0 },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct vs_request rq = { 0 };
        char err[128] = "";
        int rc = vs_parse(t[i].line, 0x20000000, &rq, err, sizeof(err));

        CHECK(rq.has_id == t[i].has_id && (!t[i].has_id || rq.id == t[i].id),
              "'%s': id %d 0x%x", t[i].line, rq.has_id, rq.id);
        if (t[i].ok)
            CHECK(rc == 0 && rq.mle_base == t[i].base && rq.mle_hdr == t[i].hdr,
                  "'%s' -> %d %s", t[i].line, rc, err);
        else
            CHECK(rc == -1 && !strcmp(err, t[i].err), "'%s' -> %d '%s'", t[i].line, rc, err);
    }
    /* random lines built from protocol pieces: an accepted one always has its header in RAM */
    {
        static const char *const piece[] = {
            "VSENTER ", "1", "4", " ", "mle_base=", "mle_hdr=", "0x", "ffffffff", "00100000",
            "0", "1fffffff", "01000000", "x", "\r", "id=", "1fffffcc",
        };
        bool ok = true;

        srand(2);
        for (int i = 0; i < 100000; i++) {
            char line[VSENTER_LINE_MAX * 2] = "", err[128];
            struct vs_request rq;
            int n = rand() % 13;

            for (int k = 0; k < n; k++)
                strcat(line, piece[rand() % 16]);
            if (vs_parse(line, 0x20000000, &rq, err, sizeof(err)) == 0) {
                ok = ok && (uint64_t)rq.mle_hdr + 0x34 <= 0x20000000;
            } else {
                ok = ok && err[0];
            }
        }
        CHECK(ok, "random requests stay within the limits");
    }
    /* well-formed requests with random numbers: accepted exactly when the header is in RAM */
    {
        bool ok = true;
        int accepted = 0;

        for (int i = 0; i < 20000; i++) {
            uint32_t base = (uint32_t)rand() << 1 ^ (uint32_t)rand();
            uint32_t hdr = i % 2 ? 0x20000000u - 0x34 + (uint32_t)(rand() % 64) - 32
                                 : (uint32_t)rand() << 1 ^ (uint32_t)rand();
            char line[VSENTER_LINE_MAX], err[128];
            struct vs_request rq;
            bool want = (uint64_t)hdr + 0x34 <= 0x20000000;

            snprintf(line, sizeof(line), "VSENTER 4 id=0x%x mle_base=0x%x mle_hdr=0x%08x", i, base,
                     hdr);
            if (vs_parse(line, 0x20000000, &rq, err, sizeof(err)) == 0) {
                ok = ok && want && rq.id == (uint32_t)i && rq.mle_base == base && rq.mle_hdr == hdr;
                accepted++;
            } else {
                ok = ok && !want;
            }
        }
        CHECK(ok && accepted > 5000, "well-formed random requests (%d accepted)", accepted);
    }
    CHECK(vs_lowmem("q35", 512u << 20) == 512u << 20, "q35 512M");
    CHECK(vs_lowmem("q35", 3ull << 30) == 2ull << 30, "q35 3G");
    CHECK(vs_lowmem("pc", 3ull << 30) == 3ull << 30, "pc 3G");
    CHECK(vs_lowmem("pc", 4ull << 30) == 3ull << 30, "pc 4G");
}

static void test_vs_refusal(void)
{
    struct vs_request rq = { .has_id = true, .id = 0x5a };
    char out[48], big[VSENTER_LINE_MAX + 64];

    vs_refusal(&rq, "CPU 0 is in SMM", big, sizeof(big));
    CHECK(!strcmp(big, "VSENTER-ERR 4 id=0x0000005a CPU 0 is in SMM\n"), "refusal '%s'", big);
    vs_refusal(NULL, "line too long", big, sizeof(big));
    CHECK(!strcmp(big, "VSENTER-ERR 4 line too long\n"), "refusal without a request '%s'", big);
    rq.has_id = false;
    vs_refusal(&rq, "malformed request", big, sizeof(big));
    CHECK(!strcmp(big, "VSENTER-ERR 4 malformed request\n"), "refusal without an id '%s'", big);
    rq.has_id = true;
    vs_refusal(&rq, "a reason longer than the line can hold, cut", out, sizeof(out));
    CHECK(!strcmp(out, "VSENTER-ERR 4 id=0x0000005a a reason longer th\n"), "cut '%s'", out);
}

static void test_vs_init_msi(void)
{
    char p[32];

    /* QEMU's APIC region: address 0xfee00000 | destination << 12, data: delivery mode 5 (INIT)
     * in bits 8-10, written as 4 little-endian bytes */
    CHECK(vs_init_msi_packet(1, p, sizeof(p)) == 0 && !strcmp(p, "Mfee01000,4:00050000"), "%s", p);
    CHECK(vs_init_msi_packet(0, p, sizeof(p)) == 0 && !strcmp(p, "Mfee00000,4:00050000"), "%s", p);
    CHECK(vs_init_msi_packet(255, p, sizeof(p)) == 0 && !strcmp(p, "Mfeeff000,4:00050000"), "%s", p);
    CHECK(vs_init_msi_packet(256, p, sizeof(p)) == -1, "APIC ID 256 has no xAPIC MSI");
    CHECK(vs_init_msi_packet(1, p, 31) == -1, "short buffer");
}

static void test_vs_lines(void)
{
    struct vs_lines l;
    const char *in = "ab\r\ncd\n\n";
    int got[16], n = 0;
    char last[8][VSENTER_LINE_MAX + 1];

    memset(&l, 0, sizeof(l));
    for (const char *p = in; *p; p++) {
        int r = vs_lines_feed(&l, *p);

        if (r) {
            got[n] = r;
            strcpy(last[n++], l.buf);
            vs_lines_next(&l);
        }
    }
    CHECK(n == 3 && got[0] == 1 && !strcmp(last[0], "ab") && !strcmp(last[1], "cd") &&
          !strcmp(last[2], ""), "lines");
    /* 159 bytes + '\n' is the longest line; 160 + '\n' is too long */
    for (int len = 158; len <= 161; len++) {
        int r = 0;

        for (int i = 0; i < len; i++)
            r |= vs_lines_feed(&l, 'x');
        CHECK(r == 0, "no early end");
        r = vs_lines_feed(&l, '\n');
        CHECK(r == (len <= 159 ? 1 : 2), "len %d -> %d", len, r);
        if (r == 1)
            CHECK(strlen(l.buf) == (size_t)len, "kept all");
        vs_lines_next(&l);
    }
    /* random bytes never overflow and end each line */
    srand(1);
    {
        bool ok = true;

        for (int i = 0; i < 200000; i++) {
            char c = (char)(rand() % 7 == 0 ? '\n' : rand());
            int r = vs_lines_feed(&l, c);

            ok = ok && l.len < sizeof(l.buf) && (!r || c == '\n');
            if (r)
                vs_lines_next(&l);
        }
        CHECK(ok, "random bytes: bounded, lines end only at a newline");
    }
}

static void test_tpmctrl(void)
{
    uint8_t b[32] = { 0 };

    store_be32(b, CMD_SET_LOCALITY);
    CHECK(tpmctrl_request_len(b, 3) == 0, "short");
    CHECK(tpmctrl_request_len(b, 4) == 8, "SET_LOCALITY is 8 (QEMU sends the 4-byte union)");
    store_be32(b, CMD_SET_DATAFD);
    CHECK(tpmctrl_request_len(b, 4) == 4, "SET_DATAFD");
    store_be32(b, CMD_INIT);
    CHECK(tpmctrl_request_len(b, 4) == 8, "INIT");
    store_be32(b, CMD_GET_STATEBLOB);
    CHECK(tpmctrl_request_len(b, 4) == 16, "GET_STATEBLOB");
    store_be32(b, CMD_SET_STATEBLOB);
    store_be32(b + 12, 100);
    CHECK(tpmctrl_request_len(b, 15) == 0 && tpmctrl_request_len(b, 16) == 116, "SET_STATEBLOB");
    store_be32(b, CMD_HASH_DATA);
    store_be32(b + 4, 4096);
    CHECK(tpmctrl_request_len(b, 8) == 4104, "HASH_DATA");
    CHECK(tpmctrl_response_len(CMD_GET_CAPABILITY, b, 0) == 8, "caps answer");
    CHECK(tpmctrl_response_len(CMD_GET_TPMESTABLISHED, b, 0) == 8, "est answer");
    CHECK(tpmctrl_response_len(CMD_SET_BUFFERSIZE, b, 0) == 16, "bufsize answer");
    CHECK(tpmctrl_response_len(CMD_HASH_END, b, 0) == 4, "hash answer");
    memset(b, 0, sizeof(b));
    store_be32(b + 8, 50);
    CHECK(tpmctrl_response_len(CMD_GET_STATEBLOB, b, 15) == 0 &&
          tpmctrl_response_len(CMD_GET_STATEBLOB, b, 16) == 66, "stateblob answer");
}

static void test_json(void)
{
    const char *ev = "{\"timestamp\": {\"seconds\": 1, \"microseconds\": 2}, \"event\": \"SHUTDOWN\", "
                     "\"data\": {\"guest\": true, \"reason\": \"guest-reset\"}}";
    const char *err = "{\"id\": 7, \"error\": {\"class\": \"GenericError\", \"desc\": \"a \\\"b\\\"\\u0041\"}}";
    char s[64];
    long long id;

    CHECK(json_get_str(ev, "event", s, sizeof(s)) && !strcmp(s, "SHUTDOWN"), "event");
    CHECK(json_get_str(ev, "data.reason", s, sizeof(s)) && !strcmp(s, "guest-reset"), "reason");
    CHECK(!json_get_str(ev, "data.guest", s, sizeof(s)), "bool is no string");
    CHECK(!json_has(ev, "return"), "no return");
    CHECK(json_get_int(err, "id", &id) && id == 7, "id");
    CHECK(json_get_str(err, "error.desc", s, sizeof(s)) && !strcmp(s, "a \"b\"A"), "escapes: %s", s);
    CHECK(!json_get_str("{\"event\": \"SHUT", "event", s, sizeof(s)), "truncated");
    CHECK(!json_has("{{{{", "x"), "garbage");
    CHECK(json_quote("a\"b\\c\n", s, sizeof(s)) && !strcmp(s, "\"a\\\"b\\\\c\\u000a\""), "quote %s", s);
}

static void test_boot(void)
{
    struct boot b = { "/x/out/vtboot.gz", "/y/bzImage", "/z/initrd.img",
                      "logging=serial,memory  loglvl=all", "console=ttyS0 a=\"b c\" d\\e", NULL,
                      NULL, NULL, NULL, NULL };
    struct boot_strings s;
    char err[256];
    char *w;

    CHECK(boot_strings(&b, LOADER_QEMU_MB1, &s, err, sizeof(err)) == 0, "qemu");
    CHECK(!strcmp(s.vtboot_cmdline, "vtboot.gz logging=serial,memory  loglvl=all"), "%s", s.vtboot_cmdline);
    CHECK(!strcmp(s.mods[0], "bzImage console=ttyS0 a=\"b c\" d\\e"), "%s", s.mods[0]);
    CHECK(s.nmods == 2 && !strcmp(s.mods[1], "initrd.img"), "initrd");
    w = boot_qemu_initrd_arg(&s);
    CHECK(!strcmp(w, "bzImage console=ttyS0 a=\"b c\" d\\e,initrd.img"), "%s", w);
    free(w);
    boot_strings_free(&s);
    CHECK(boot_strings(&b, LOADER_GRUB_MB2, &s, err, sizeof(err)) == 0, "grub");
    CHECK(!strcmp(s.vtboot_cmdline, "logging=serial,memory loglvl=all"), "%s", s.vtboot_cmdline);
    CHECK(!strcmp(s.mods[0], "console=ttyS0 a=\\\"b c\\\" d\\\\e"), "%s", s.mods[0]);
    CHECK(!strcmp(s.mods[1], "") && !strcmp(s.names[2], "initrd.img"), "grub initrd");
    boot_strings_free(&s);
    b.initrd = NULL;
    b.cmdline = "";
    CHECK(boot_strings(&b, LOADER_QEMU_MB1, &s, err, sizeof(err)) == 0 && s.nmods == 1 &&
          !strcmp(s.mods[0], "bzImage"), "no initrd, no cmdline");
    boot_strings_free(&s);
    b.kernel = "/a/vtboot.gz";
    CHECK(boot_strings(&b, LOADER_QEMU_MB1, &s, err, sizeof(err)) == -1, "same name");
    b.kernel = "/a/bz Image";
    CHECK(boot_strings(&b, LOADER_QEMU_MB1, &s, err, sizeof(err)) == -1, "space");
    /* no kernel: no modules at all, for every loader; an initrd alone is refused */
    b.kernel = "";
    b.initrd = NULL;
    b.cmdline = "console=ttyS0";
    CHECK(boot_strings(&b, LOADER_QEMU_MB1, &s, err, sizeof(err)) == 0 && s.nmods == 0 &&
          !strcmp(s.vtboot_cmdline, "vtboot.gz logging=serial,memory  loglvl=all") &&
          !s.names[1] && !s.mods[0], "no kernel (qemu)");
    CHECK(boot_qemu_initrd_arg(&s) == NULL, "no kernel: no -initrd");
    boot_strings_free(&s);
    CHECK(boot_strings(&b, LOADER_GRUB_MB2, &s, err, sizeof(err)) == 0 && s.nmods == 0,
          "no kernel (grub)");
    w = iso_grub_cfg(&b, &s, false);
    CHECK(strstr(w, "\tmultiboot2\t/vtboot.gz logging=serial,memory loglvl=all\n}\n") &&
          !strstr(w, "module2"), "no kernel: grub.cfg without modules: %s", w);
    free(w);
    boot_strings_free(&s);
    b.kernel = NULL;
    CHECK(boot_strings(&b, LOADER_GRUB_MB1, &s, err, sizeof(err)) == 0 && s.nmods == 0,
          "kernel NULL");
    boot_strings_free(&s);
    b.initrd = "/z/initrd.img";
    CHECK(boot_strings(&b, LOADER_QEMU_MB1, &s, err, sizeof(err)) == -1 &&
          strstr(err, "needs a kernel"), "initrd without kernel: %s", err);
    b.kernel = "/y/bzImage";
    CHECK(boot_strings(&b, LOADER_GRUB_MB1, &s, err, sizeof(err)) == 0 && s.nmods == 2, "both");
    w = iso_grub_cfg(&b, &s, true);
    CHECK(strstr(w, "\tmodule /bzImage console=ttyS0\n") &&
          strstr(w, "\tmodule /initrd.img\n"), "grub.cfg with modules: %s", w);
    free(w);
    boot_strings_free(&s);
    w = boot_grub_word("it's");
    CHECK(!strcmp(w, "'it'\\''s'"), "%s", w);
    free(w);
    w = boot_grub_args("  a  $b ");
    CHECK(!strcmp(w, "a '$b'"), "%s", w);
    free(w);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);           /* writes to closed sockets (t_gdb.c) fail instead */
    if (argc > 1)
        unit_data_dir = argv[1];
    test_vs_parse();
    test_vs_refusal();
    test_vs_init_msi();
    test_vs_lines();
    test_tpmctrl();
    test_json();
    test_boot();
    test_mlehdr();
    test_mleaudit();
    test_cpustate();
    test_gdbrsp();
    test_gdbtrack();
    test_xenboot();
    test_txtboot();
    test_hostpage();
    test_platstate();
    test_bytes();
    test_expectopt();
    test_qmp();
    test_guestreport();
    printf("host unit: %d passed, %d failed\n", unit_passed, unit_failed);
    return unit_failed != 0;
}
