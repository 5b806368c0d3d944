/* SPDX-License-Identifier: MIT */
/*
 * vtboot-stat: what a vtboot launch left for the running system, read like tboot's txt-stat
 * reads tboot's: the tboot shared page (boot_params.tboot_addr), vtboot's block in it (launch
 * flags, the D-RTM event log), the tboot memory log. Everything is read through /dev/mem
 * (vtboot's memory is e820-reserved, which STRICT_DEVMEM lets root read); the layouts are
 * include/abi/{tboot_shared,vtboot_ext,tboot_log}.h.
 */
#include "abi/tboot_log.h"
#include "abi/tboot_shared.h"
#include "abi/vtboot_ext.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BOOT_PARAMS "/sys/kernel/boot_params/data"
#define BOOT_PARAMS_TBOOT_ADDR 0x58     /* struct boot_params.tboot_addr, u64 */
#define EVTLOG_MAX (16u << 20)

static const char *prog = "vtboot-stat";
static const char *mem_path = "/dev/mem";

static void usage(FILE *f)
{
    fprintf(f,
"usage: vtboot-stat [--log] [--eventlog FILE] [--mem FILE] [--tboot-addr ADDR]\n"
"Shows what vtboot's measured launch left for the running system: the tboot shared page\n"
"Linux got (boot_params.tboot_addr), vtboot's launch flags and D-RTM event log, and the\n"
"tboot memory log, read through /dev/mem (run as root).\n"
"\n"
"  --log             also print the memory log's text (vtboot's boot messages)\n"
"  --eventlog FILE   write the D-RTM TCG event log (crypto-agile, PCRs 17-19) to FILE,\n"
"                    for tpm2_eventlog FILE\n"
"  --mem FILE        read physical memory from FILE instead of /dev/mem (offset = address)\n"
"  --tboot-addr ADDR the shared page's address instead of boot_params.tboot_addr\n"
"                    (" BOOT_PARAMS ")\n"
"  -h, --help        this text\n"
"\n"
"Exit status: 0 the shared page was found and shown; 2 Linux has no tboot shared page\n"
"(not booted through vtboot or tboot); 1 any other error.\n");
}

static int read_phys(uint64_t addr, void *buf, size_t n)
{
    int fd = open(mem_path, O_RDONLY | O_CLOEXEC);
    size_t done = 0;

    if (fd < 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, mem_path, strerror(errno));
        return -1;
    }
    while (done < n) {
        ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(addr + done));

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, "%s: %s: cannot read %zu bytes at 0x%08" PRIx64 ": %s\n", prog,
                    mem_path, n, addr, r < 0 ? strerror(errno) : "end of file");
            close(fd);
            return -1;
        }
        done += (size_t)r;
    }
    close(fd);
    return 0;
}

/* boot_params.tboot_addr; 0 when Linux got none */
static int tboot_addr(uint64_t *addr)
{
    unsigned char b[8];
    int fd = open(BOOT_PARAMS, O_RDONLY | O_CLOEXEC);
    ssize_t r = fd >= 0 ? pread(fd, b, 8, BOOT_PARAMS_TBOOT_ADDR) : -1;

    if (fd >= 0)
        close(fd);
    if (r != 8) {
        fprintf(stderr, "%s: %s: %s\n", prog, BOOT_PARAMS,
                r < 0 ? strerror(errno) : "too short");
        return -1;
    }
    *addr = 0;
    for (int i = 7; i >= 0; i--)
        *addr = *addr << 8 | b[i];
    return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p = (const char *)p + w;
        n -= (size_t)w;
    }
    return 0;
}

static int dump_eventlog(const struct vtboot_ext *x, const char *file)
{
    unsigned char *buf;
    int fd, rc = -1;

    if (!x || !x->evtlog_addr || !x->evtlog_used) {
        fprintf(stderr, "%s: no D-RTM event log (vtboot did not measure this boot)\n", prog);
        return -1;
    }
    if (x->evtlog_used > x->evtlog_size || x->evtlog_used > EVTLOG_MAX) {
        fprintf(stderr, "%s: event log size %u (of %u) is not plausible\n", prog,
                x->evtlog_used, x->evtlog_size);
        return -1;
    }
    buf = malloc(x->evtlog_used);
    if (!buf || read_phys(x->evtlog_addr, buf, x->evtlog_used) != 0) {
        free(buf);
        return -1;
    }
    fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write_all(fd, buf, x->evtlog_used) != 0)
        fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
    else
        rc = 0;
    if (fd >= 0 && close(fd) != 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
        rc = -1;
    }
    free(buf);
    return rc;
}

static int show_memlog(uint32_t addr, bool text)
{
    static const uint8_t uuid[16] = TBOOT_LOG_UUID_BYTES;
    struct tboot_log h;
    char *buf;
    unsigned used;

    if (read_phys(addr, &h, sizeof(h)) != 0)
        return -1;
    if (memcmp(h.uuid, uuid, 16) != 0) {
        printf("memory log: 0x%08x: no tboot log there\n", addr);
        return text ? -1 : 0;
    }
    used = h.curr_pos < h.max_size ? h.curr_pos : h.max_size;
    printf("memory log: 0x%08x, %u of %u bytes used\n", addr, (unsigned)h.curr_pos,
           (unsigned)h.max_size);
    if (!text)
        return 0;
    buf = malloc(used + 1u);
    if (!buf || read_phys(addr + offsetof(struct tboot_log, buf), buf, used) != 0) {
        free(buf);
        return -1;
    }
    buf[used] = 0;
    fputs("--- memory log ---\n", stdout);
    fwrite(buf, 1, strnlen(buf, used), stdout);
    if (used && buf[strnlen(buf, used) - 1] != '\n')
        putchar('\n');
    fputs("--- end of memory log ---\n", stdout);
    free(buf);
    return 0;
}

static void print_flags(uint32_t f)
{
    static const struct { uint32_t bit; const char *name; } names[] = {
        { VTBOOT_EXT_TPM, "tpm" },
        { VTBOOT_EXT_LAUNCHED, "launched" },
        { VTBOOT_EXT_MEASURED, "measured" },
        { VTBOOT_EXT_POLICY_NV, "policy-from-nv" },
    };

    printf("  flags: 0x%08x", f);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (f & names[i].bit)
            printf(" %s", names[i].name);
    if (!(f & VTBOOT_EXT_LAUNCHED))
        printf(" (no dynamic launch: PCRs 17-19 were not reset)");
    putchar('\n');
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        { "log", no_argument, NULL, 'l' },
        { "eventlog", required_argument, NULL, 'e' },
        { "mem", required_argument, NULL, 'm' },
        { "tboot-addr", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const uint8_t shared_uuid[16] = TBOOT_SHARED_UUID_BYTES;
    static const uint8_t ext_uuid[16] = VTBOOT_EXT_UUID_BYTES;
    const char *evfile = NULL;
    bool log_text = false, have_addr = false;
    uint64_t addr = 0;
    struct tboot_shared sp;
    struct vtboot_ext x;
    bool have_ext;
    int c, rc = 0;

    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'l': log_text = true; break;
        case 'e': evfile = optarg; break;
        case 'm': mem_path = optarg; break;
        case 't': {
            char *end;

            errno = 0;
            addr = strtoull(optarg, &end, 0);
            if (!*optarg || *end || errno || addr > 0xffffffffu) {
                fprintf(stderr, "%s: --tboot-addr: expected an address below 4 GiB, got '%s'\n",
                        prog, optarg);
                return 1;
            }
            have_addr = true;
            break;
        }
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "Try '%s --help'.\n", prog);
            return 1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
        return 1;
    }
    if (!have_addr && tboot_addr(&addr) != 0)
        return 1;
    if (!addr) {
        printf("no tboot shared page: Linux was not booted through vtboot (or tboot)\n");
        return 2;
    }
    if (read_phys(addr, &sp, sizeof(sp)) != 0)
        return 1;
    if (memcmp(sp.uuid, shared_uuid, 16) != 0) {
        printf("shared page: 0x%08" PRIx64 ": no tboot shared page UUID there\n", addr);
        return 2;
    }
    printf("shared page: 0x%08" PRIx64 "\n", addr);
    printf("  version: %u\n", sp.version);
    printf("  log_addr: 0x%08x\n", sp.log_addr);
    printf("  shutdown_entry: 0x%08x\n", sp.shutdown_entry);
    printf("  tboot_base: 0x%08x\n", sp.tboot_base);
    printf("  tboot_size: 0x%08x\n", sp.tboot_size);
    printf("  num_in_wfs: %u\n", sp.num_in_wfs);

    have_ext = read_phys(addr + VTBOOT_EXT_OFFSET, &x, sizeof(x)) == 0 &&
               !memcmp(x.uuid, ext_uuid, 16) && x.size >= sizeof(x);
    if (have_ext) {
        printf("vtboot: block version %u\n", x.version);
        print_flags(x.flags);
        if (x.evtlog_addr)
            printf("  event log: 0x%08x, %u of %u bytes used\n", x.evtlog_addr, x.evtlog_used,
                   x.evtlog_size);
        else
            printf("  event log: none\n");
    } else {
        printf("vtboot: no vtboot block in the shared page (tboot, or an older vtboot)\n");
    }
    if (sp.log_addr && show_memlog(sp.log_addr, log_text) != 0)
        rc = 1;
    if (evfile && dump_eventlog(have_ext ? &x : NULL, evfile) != 0)
        rc = 1;
    if (fflush(stdout) != 0)
        rc = 1;
    return rc;
}
