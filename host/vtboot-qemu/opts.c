/* SPDX-License-Identifier: MIT */
#include "opts.h"
#include "log.h"
#include "util.h"

#include "abi/tpm_hash.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

static void usage(FILE *f)
{
    fprintf(f,
"usage: vtboot-qemu [options] [-- extra qemu args]\n"
"Boots vtboot with a Linux kernel and initrd in QEMU (TCG, q35) with a swtpm TPM 2.0,\n"
"relays the guest's COM1 to stdout and tells how the guest ended.\n"
"\n"
"  --kernel F          Linux bzImage (default out/bzImage; \"\" for no modules at all,\n"
"                      which then also means no initrd)\n"
"  --initrd F          initrd (default out/initrd.img, with --attest out/initrd-attest.img;\n"
"                      \"\" for none)\n"
"  --cmdline S         Linux command line (default \"console=ttyS0 panic=-1\")\n"
"  --vtboot F          vtboot ELF (default out/vtboot; with --grub out/vtboot.gz; installed:\n"
"                      /usr/lib/vtboot/vtboot.gz); a gzip file is unpacked first for QEMU\n"
"                      -kernel\n"
"  --vtboot-cmdline S  vtboot's command line (default \"logging=serial,memory loglvl=all\")\n"
"  --grub              boot through GRUB (multiboot2) from an ISO made by grub-mkrescue\n"
"  --grub-mb1          the same with GRUB's multiboot/module (multiboot1)\n"
"  --grub-prelude F    GRUB commands (a grub.cfg fragment) run before vtboot's menu entry\n"
"  --make-iso OUT      only write that ISO (multiboot2, or multiboot1 with --grub-mb1) and exit\n"
"  --disk IMAGE        boot an installed system from this disk image (raw, or qcow2 by its\n"
"                      magic) through its own boot loader (the BIOS boots its MBR: GRUB and\n"
"                      its \"with vtboot\" entry from the vtboot package), as a virtio disk\n"
"                      that the guest writes to; the TPM and the virtual SENTER are attached\n"
"                      as usual; not with --kernel, --initrd, --cmdline, --vtboot,\n"
"                      --vtboot-cmdline, --grub*, --make-iso or --print-*\n"
"  --data-disk IMAGE   a raw disk image for the guest's own use, as a virtio disk after\n"
"                      --disk's (/dev/vda without --disk), written in place: e.g. the swap\n"
"                      that hibernation (S4) writes its image to, for the next run\n"
"  --xen F             boot Xen (a multiboot ELF, gzip'd or not) as module 0, the kernel and\n"
"                      initrd as dom0's, as Debian's 20_linux_xen_tboot does: then the\n"
"                      default --cmdline is \"console=hvc0 panic=-1\" and --cpu Nehalem\n"
"  --xen-cmdline S     Xen's command line (default \"console=com1 com1=115200,8n1\")\n"
"  --cpu MODEL         QEMU's -cpu (default max,vendor=GenuineIntel; with --xen Nehalem:\n"
"                      dom0 under TCG fails with max)\n"
"  --print-modules     only print the module strings vtboot will get, one a line, and exit\n"
"  --print-cmdline     only print the command line vtboot will get, and exit\n"
"  --smp N             CPUs (default 1)\n"
"  --memory MB         guest RAM (default 512)\n"
"  --machine q35|pc    machine type (default q35), always without an HPET (hpet=off)\n"
"  --tpm-state DIR     keep the TPM state in DIR (default: a fresh TPM in the temp dir);\n"
"                      a DIR without a state gets a fresh one, an existing state is used as is\n"
"  --pcr-banks LIST    PCR banks of a fresh TPM state (swtpm_setup --pcr-banks): a comma\n"
"                      list of sha1, sha256, sha384, sha512, or \"all\" (default sha1,sha256)\n"
"  --policy FILE       before the boot, write FILE's bytes (1 to 2048, not checked) into the\n"
"                      TPM's NV index tboot reads its policy from with tpm2-tools (0x01200001;\n"
"                      with --txt and a --sinit whose TPM info sets tpm_nv_index_set, as\n"
"                      out/sinit.bin does: 0x01C10131): attributes\n"
"                      ownerwrite|authread|ownerread|no_da; an existing index is replaced\n"
"  --provision-only    only create the state in --tpm-state DIR if it has none and write\n"
"                      --policy FILE (if given) into it, then exit 0 without booting\n"
"  --no-tpm            no swtpm and no TPM device\n"
"  --no-drtm           no virtual SENTER (no VSENTER UART, no control-channel proxy):\n"
"                      a platform without TXT\n"
"  --txt               the emulated Intel TXT platform instead of stock QEMU and the virtual\n"
"                      SENTER: QEMU from --qemu with -machine q35,txt=on (the TXT chipset),\n"
"                      intel-iommu (the DMAR tboot needs, the PMRs the SINIT sets),\n"
"                      the TPM on swtpm without the control-channel proxy and no VSENTER\n"
"                      UART (as --no-drtm), booting Debian's unmodified tboot (--tboot) with\n"
"                      the kernel and initrd as modules, in the layout of Debian's\n"
"                      20_linux_tboot with --grub/--grub-mb1; q35 only; not with --xen,\n"
"                      --no-tpm, --tpm-fault, --vtboot or --vtboot-cmdline; with\n"
"                      --attest the guest quotes the TXT launch and the verifier expects\n"
"                      --sinit's (vtboot-pcr predict --sinit) and replays the heap's log;\n"
"                      with --disk the disk's GRUB (its 20_linux_tboot entry) loads tboot,\n"
"                      the kernel and the SINIT from the disk, and --sinit F (the SINIT the\n"
"                      disk holds) only picks the NV index --policy is written to\n"
"  --tboot F           with --txt: tboot (default /boot/tboot.gz, Debian's package tboot)\n"
"  --tboot-cmdline S   with --txt: tboot's command line (default \"logging=serial,memory\n"
"                      loglvl=all ap_wake_mwait=true\": TCG has no VMX, so tboot must wake\n"
"                      APs with MWAIT; docs/txt-platform.md section 0)\n"
"  --sinit F           with --txt: a SINIT ACM, loaded as the last module (after the initrd,\n"
"                      as 20_linux_tboot loads /boot/*sinit*); needs --sinit-key\n"
"  --lcp-data F        with --txt: a launch control policy's data file (lcp2_crtpol --data),\n"
"                      loaded after the SINIT; tboot hands it to the SINIT in the heap\n"
"  --sinit-key K       with --txt: the PEM key (RSA-2048) whose hash the chipset holds as\n"
"                      PUBLIC.KEY, the one the SINIT must be signed with (vtboot-acm; the\n"
"                      platform checks the ACM against it, never the ACM against itself)\n"
"  --reboot            with --txt: a guest reset restarts the machine in the same QEMU (a TXT\n"
"                      reset after a failed launch, and tboot's next boot reports it); the run\n"
"                      ends at power off, a crash or the timeout (without: a reset ends it)\n"
"  --qemu F            with --txt: the TXT QEMU (default $VTBOOT_QEMU_TXT if set, else\n"
"                      out/bin/qemu-system-x86_64-txt, built by make)\n"
"  --bios F            with --txt: the firmware (default $VTBOOT_BIOS_TXT if set, else\n"
"                      out/bios-txt.bin, built by make: SeaBIOS locking SMRAM and leaving\n"
"                      MMIO uncached, as a TXT BIOS must; seabios/README.md)\n"
"  --tpm-fault SPEC    the TPM answers a command with an error instead of running it\n"
"                      (repeatable): SPEC is CC[:H][@N]=RC, CC a TPM 2.0 command name\n"
"                      (PCR_Read, NV_Read, Unseal, ...; \"--tpm-fault list\" lists them) or\n"
"                      hex code (0x17e), H only commands with that first handle (PCR_Extend:17),\n"
"                      N the occurrence to fail (from 1, counted over the run among the\n"
"                      commands CC[:H] names; default: every one), RC the response code in hex (0x101:\n"
"                      TPM_RC_FAILURE); each fault is logged (\"TPM fault: ...\"); not with\n"
"                      --no-drtm (it needs the TPM control-channel proxy)\n"
"  --timeout S         kill QEMU after S seconds (default 600; 0: never)\n"
"  --serial-log FILE   also write the guest's COM1 output to FILE\n"
"  --qmp PATH          an extra QMP socket for the caller: a unix socket at PATH that\n"
"                      QEMU serves (QMP greeting, then qmp_capabilities; one client at a\n"
"                      time, reconnecting is fine), e.g. for system_wakeup after the guest\n"
"                      suspended; it exists before QEMU starts and is removed at the end\n"
"  --gdb PATH          QEMU's gdbstub on a unix socket at PATH (same lifetime); a debugger\n"
"                      connecting pauses a running VM, detaching ('D') lets it run again;\n"
"                      a suspended (S3) VM stays suspended, but 'D' would start its CPUs\n"
"                      without a wake-up: close the connection instead (tests/qemu/qemuctl.py);\n"
"                      the launcher serves PATH and shares QEMU's one stub with the virtual\n"
"                      SENTER (a launch holds the debugger's bytes and hides its own stop)\n"
"%s"   /* --attest and its options (host/lib/attestrun.c) */
"  --keep-temp         keep the temp dir (sockets, symlinks, logs) and print its path\n"
"  -v, --verbose       show commands, QMP traffic and timings\n"
"  -h, --help          this text\n"
"\n"
"Paths out/... are relative to the directory above this program's own (out/bin/..).\n"
"QEMU gets the files as symlinks named after their basenames, so vtboot's module strings\n"
"are \"bzImage console=ttyS0 panic=-1\" and \"initrd.img\" (GRUB passes no file names:\n"
"\"console=ttyS0 panic=-1\" and \"\"); --print-modules prints them exactly.\n"
"\n"
"Exit status (how the guest ended; from QMP events):\n"
"  0  powered off (SHUTDOWN reason guest-shutdown)\n"
"  1  launcher or setup error (bad option, missing file, swtpm_setup or a tpm2-tools\n"
"     command failed (its output is shown), swtpm or QEMU failed to start)\n"
"  2  reset (guest-reset, including a triple fault: -no-reboot turns it into an exit)\n"
"  3  timed out (QEMU killed after --timeout)\n"
"  4  crashed (GUEST_PANICKED, QEMU died, or QMP lost before a SHUTDOWN event; or\n"
"     swtpm died and the guest did not end within 5 s)\n"
"  5  attestation failed (--attest: the guest powered off, but vtboot-attest verify\n"
"     failed or the guest printed no evidence; its last line says why)\n"
"  128+N  interrupted by signal N (QEMU and swtpm are stopped first)\n"
"The last line on stderr is \"vtboot-qemu: guest <powered off|reset|timed out|crashed> ...\".\n"
"A guest that suspends (S3) has not ended: \"guest suspended (S3)\" and \"guest woke up\"\n"
"are logged (QMP SUSPEND, WAKEUP), and --timeout counts on while it sleeps.\n",
            attest_help);
}

static int parse_int(const char *name, const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (!*s || *end || v < lo || v > hi) {
        log_err("%s: expected a number from %d to %d, got '%s'", name, lo, hi, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

enum {
    O_KERNEL = 256, O_INITRD, O_CMDLINE, O_VTBOOT, O_VTBOOT_CMDLINE, O_GRUB, O_GRUB_MB1,
    O_MAKE_ISO, O_SMP, O_MEMORY, O_MACHINE, O_TPM_STATE, O_NO_TPM, O_NO_DRTM, O_TIMEOUT,
    O_SERIAL_LOG, O_KEEP_TEMP, O_PRINT_MODULES, O_PRINT_CMDLINE, O_POLICY, O_PROVISION_ONLY,
    O_PCR_BANKS, O_QMP, O_GDB, O_TPM_FAULT, O_GRUB_PRELUDE, O_DISK, O_XEN, O_XEN_CMDLINE,
    O_CPU, O_TXT, O_TBOOT, O_TBOOT_CMDLINE, O_SINIT, O_SINIT_KEY, O_LCP_DATA, O_QEMU, O_BIOS, O_REBOOT,
    O_DATA_DISK,
};
#define O_ATTEST 1024           /* + ATTEST_OPT_*: --attest and its options (attestrun.h) */

/* "all" -> "-" (swtpm_setup: keep every bank); else a comma list of known banks, each once */
static int parse_banks(const char *s, const char **out)
{
    bool seen[TPM_HASH_ALG_COUNT] = { false };
    const char *p = s;

    if (!strcmp(s, "all")) {
        *out = "-";
        return 0;
    }
    for (;;) {
        size_t n = strcspn(p, ",");
        const struct tpm_hash_alg *a = tpm_hash_by_name(p, n);
        size_t k = a ? (size_t)(a - tpm_hash_algs) : 0;

        if (!a || seen[k]) {
            log_err("--pcr-banks: expected \"all\" or a comma list of sha1, sha256, sha384, "
                    "sha512 (each once), got '%s'", s);
            return -1;
        }
        seen[k] = true;
        if (!p[n])
            break;
        p += n + 1;
    }
    *out = s;
    return 0;
}

int opts_parse(struct opts *o, int argc, char **argv)
{
    static const struct option lo[] = {
        { "kernel", required_argument, NULL, O_KERNEL },
        { "initrd", required_argument, NULL, O_INITRD },
        { "cmdline", required_argument, NULL, O_CMDLINE },
        { "vtboot", required_argument, NULL, O_VTBOOT },
        { "vtboot-cmdline", required_argument, NULL, O_VTBOOT_CMDLINE },
        { "grub", no_argument, NULL, O_GRUB },
        { "grub-mb1", no_argument, NULL, O_GRUB_MB1 },
        { "grub-prelude", required_argument, NULL, O_GRUB_PRELUDE },
        { "make-iso", required_argument, NULL, O_MAKE_ISO },
        { "disk", required_argument, NULL, O_DISK },
        { "data-disk", required_argument, NULL, O_DATA_DISK },
        { "xen", required_argument, NULL, O_XEN },
        { "xen-cmdline", required_argument, NULL, O_XEN_CMDLINE },
        { "cpu", required_argument, NULL, O_CPU },
        { "txt", no_argument, NULL, O_TXT },
        { "tboot", required_argument, NULL, O_TBOOT },
        { "tboot-cmdline", required_argument, NULL, O_TBOOT_CMDLINE },
        { "sinit", required_argument, NULL, O_SINIT },
        { "sinit-key", required_argument, NULL, O_SINIT_KEY },
        { "lcp-data", required_argument, NULL, O_LCP_DATA },
        { "reboot", no_argument, NULL, O_REBOOT },
        { "qemu", required_argument, NULL, O_QEMU },
        { "bios", required_argument, NULL, O_BIOS },
        { "smp", required_argument, NULL, O_SMP },
        { "memory", required_argument, NULL, O_MEMORY },
        { "machine", required_argument, NULL, O_MACHINE },
        { "tpm-state", required_argument, NULL, O_TPM_STATE },
        { "no-tpm", no_argument, NULL, O_NO_TPM },
        { "no-drtm", no_argument, NULL, O_NO_DRTM },
        { "timeout", required_argument, NULL, O_TIMEOUT },
        { "serial-log", required_argument, NULL, O_SERIAL_LOG },
        { "keep-temp", no_argument, NULL, O_KEEP_TEMP },
        { "print-modules", no_argument, NULL, O_PRINT_MODULES },
        { "print-cmdline", no_argument, NULL, O_PRINT_CMDLINE },
        { "policy", required_argument, NULL, O_POLICY },
        { "provision-only", no_argument, NULL, O_PROVISION_ONLY },
        { "pcr-banks", required_argument, NULL, O_PCR_BANKS },
        { "qmp", required_argument, NULL, O_QMP },
        { "gdb", required_argument, NULL, O_GDB },
        { "tpm-fault", required_argument, NULL, O_TPM_FAULT },
        { "attest", no_argument, NULL, O_ATTEST + ATTEST_OPT_ATTEST },
        { "attest-dir", required_argument, NULL, O_ATTEST + ATTEST_OPT_DIR },
        { "attest-ca", required_argument, NULL, O_ATTEST + ATTEST_OPT_CA },
        { "expect-kernel", required_argument, NULL, O_ATTEST + ATTEST_OPT_KERNEL },
        { "expect-initrd", required_argument, NULL, O_ATTEST + ATTEST_OPT_INITRD },
        { "expect-cmdline", required_argument, NULL, O_ATTEST + ATTEST_OPT_CMDLINE },
        { "expect-vtboot", required_argument, NULL, O_ATTEST + ATTEST_OPT_VTBOOT },
        { "expect-vtboot-cmdline", required_argument, NULL, O_ATTEST + ATTEST_OPT_VTBOOT_CMDLINE },
        { "expect-policy", required_argument, NULL, O_ATTEST + ATTEST_OPT_POLICY },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char *dir;
    int c;

    memset(o, 0, sizeof(*o));
    o->cmdline = "console=ttyS0 panic=-1";
    o->vtboot_cmdline = "logging=serial,memory loglvl=all";
    o->smp = 1;
    o->memory_mb = 512;
    o->machine = "q35";
    o->timeout_s = 600;
    o->pcr_banks = "sha1,sha256";
    while ((c = getopt_long(argc, argv, "+vh", lo, NULL)) != -1) {
        switch (c) {
        case O_KERNEL: o->kernel = optarg; o->kernel_set = true; break;
        case O_INITRD: o->initrd = optarg; o->initrd_set = true; break;
        case O_CMDLINE: o->cmdline = optarg; o->cmdline_set = true; break;
        case O_VTBOOT: o->vtboot = optarg; o->vtboot_set = true; break;
        case O_VTBOOT_CMDLINE:
            o->vtboot_cmdline = optarg;
            o->vtboot_cmdline_set = true;
            break;
        case O_GRUB: o->grub = true; break;
        case O_GRUB_MB1: o->grub = o->grub_mb1 = true; break;
        case O_GRUB_PRELUDE: o->grub_prelude = optarg; break;
        case O_MAKE_ISO: o->make_iso = optarg; break;
        case O_DISK:
            if (!*optarg) {
                log_err("--disk: expected a disk image file");
                return -1;
            }
            o->disk = optarg;
            break;
        case O_DATA_DISK: {
            struct stat st;

            /* absolute: QEMU runs in the temp dir */
            free(o->data_disk);
            o->data_disk = realpath(optarg, NULL);
            if (!o->data_disk || stat(o->data_disk, &st) || !S_ISREG(st.st_mode)) {
                log_err("--data-disk %s: expected an existing disk image file", optarg);
                return -1;
            }
            break;
        }
        case O_XEN: o->xen = *optarg ? optarg : NULL; break;
        case O_XEN_CMDLINE: o->xen_cmdline = optarg; break;
        case O_CPU:
            if (!*optarg || strchr(optarg, ' ')) {
                log_err("--cpu: expected a QEMU CPU model, got '%s'", optarg);
                return -1;
            }
            o->cpu = optarg;
            break;
        case O_TXT: o->txt = true; break;
        case O_TBOOT:
            if (!*optarg) {
                log_err("--tboot: expected tboot's file (e.g. /boot/tboot.gz)");
                return -1;
            }
            o->tboot = optarg;
            break;
        case O_TBOOT_CMDLINE: o->tboot_cmdline = optarg; break;
        case O_SINIT:
        case O_SINIT_KEY:
        case O_LCP_DATA:
            if (!*optarg) {
                log_err("--%s: expected a file",
                        c == O_SINIT ? "sinit" : c == O_SINIT_KEY ? "sinit-key" : "lcp-data");
                return -1;
            }
            *(c == O_SINIT ? &o->sinit : c == O_SINIT_KEY ? &o->sinit_key : &o->lcp_data) = optarg;
            break;
        case O_REBOOT: o->reboot = true; break;
        case O_QEMU:
        case O_BIOS:
            if (!*optarg) {
                log_err(c == O_QEMU ? "--qemu: expected a QEMU binary"
                                    : "--bios: expected a firmware image");
                return -1;
            }
            *(c == O_QEMU ? &o->qemu_bin : &o->bios) = optarg;
            break;
        case O_SMP:
            if (parse_int("--smp", optarg, 1, 64, &o->smp) != 0)
                return -1;
            break;
        case O_MEMORY:
            if (parse_int("--memory", optarg, 16, 65536, &o->memory_mb) != 0)
                return -1;
            break;
        case O_MACHINE:
            if (strcmp(optarg, "q35") && strcmp(optarg, "pc")) {
                log_err("--machine: expected q35 or pc, got '%s'", optarg);
                return -1;
            }
            o->machine = optarg;
            break;
        case O_TPM_STATE: o->tpm_state = optarg; break;
        case O_NO_TPM: o->no_tpm = true; break;
        case O_NO_DRTM: o->no_drtm = true; break;
        case O_TIMEOUT: {
            char *end;

            o->timeout_s = strtod(optarg, &end);
            if (!*optarg || *end || o->timeout_s < 0 || o->timeout_s > 1e7) {
                log_err("--timeout: expected seconds, got '%s'", optarg);
                return -1;
            }
            break;
        }
        case O_SERIAL_LOG: o->serial_log = optarg; break;
        case O_KEEP_TEMP: o->keep_temp = true; break;
        case O_PRINT_MODULES: o->print_modules = true; break;
        case O_PRINT_CMDLINE: o->print_cmdline = true; break;
        case O_POLICY:
            if (!*optarg) {
                log_err("--policy: expected a file name");
                return -1;
            }
            o->policy = optarg;
            break;
        case O_PROVISION_ONLY: o->provision_only = true; break;
        case O_PCR_BANKS:
            if (parse_banks(optarg, &o->pcr_banks) != 0)
                return -1;
            o->pcr_banks_set = true;
            break;
        case O_QMP:
        case O_GDB:
            if (!*optarg) {
                log_err("--%s: expected a socket path", c == O_QMP ? "qmp" : "gdb");
                return -1;
            }
            if (c == O_QMP)
                o->qmp_path = optarg;
            else
                o->gdb_path = optarg;
            break;
        case O_TPM_FAULT: {
            char err[256];

            if (!strcmp(optarg, "list")) {
                uint32_t cc;
                const char *name;

                for (size_t i = 0; tpmfault_cc_entry(i, &cc, &name); i++)
                    printf("0x%08x %s\n", cc, name);
                return fflush(stdout) == 0 ? 1 : -1;
            }
            if (tpmfault_add(&o->tpm_faults, optarg, err, sizeof(err)) != 0) {
                log_err("--tpm-fault %s", err);
                return -1;
            }
            break;
        }
        case O_ATTEST ... O_ATTEST + ATTEST_OPT_N - 1:
            if (attest_opt(&o->attest, c - O_ATTEST, optarg) != 0)
                return -1;
            break;
        case 'v': log_verbose = 1; break;
        case 'h': usage(stdout); return 1;
        default:
            fprintf(stderr, "Try 'vtboot-qemu --help'.\n");
            return -1;
        }
    }
    if (optind < argc && strcmp(argv[optind - 1], "--") != 0) {
        log_err("unexpected argument '%s' (QEMU arguments go after --)", argv[optind]);
        return -1;
    }
    o->extra = argv + optind;
    o->nextra = argc - optind;
    if (!o->txt && (o->tboot || o->tboot_cmdline || o->qemu_bin || o->bios || o->sinit ||
                    o->sinit_key || o->lcp_data || o->reboot)) {
        log_err("--tboot, --tboot-cmdline, --sinit, --sinit-key, --lcp-data, --reboot, --qemu "
                "and --bios go with --txt (the TXT platform)");
        return -1;
    }
    if (o->sinit && !o->sinit_key) {
        log_err("--sinit needs --sinit-key K: the key whose hash the chipset holds as "
                "PUBLIC.KEY (vtboot-acm key-hash K)");
        return -1;
    }
    if (o->txt) {
        const char *why = NULL;

        if (strcmp(o->machine, "q35"))
            why = "--machine pc: the TXT chipset exists on q35 only (-machine q35,txt=on)";
        else if (o->xen)
            why = "--xen: Xen through tboot on the TXT platform is a later step (Xen with "
                  "CONFIG_TBOOT; docs/txt-platform.md section 5)";
        else if (o->disk && (o->tboot || o->tboot_cmdline || o->lcp_data || o->attest.on))
            why = "--tboot, --tboot-cmdline, --lcp-data and --attest with --disk: the disk's "
                  "own GRUB loads tboot, its command line, the kernel, the SINIT and the "
                  "policy data from the disk's /boot";
        else if (o->no_tpm)
            why = "--no-tpm: a TXT platform has a TPM (tboot and the SINIT use it)";
        else if (o->tpm_faults.n)
            why = "--tpm-fault: it needs the TPM control-channel proxy of the virtual SENTER, "
                  "which --txt does not run";
        else if (o->vtboot_set || o->vtboot_cmdline_set)
            why = "--vtboot/--vtboot-cmdline: --txt boots tboot; use --tboot and --tboot-cmdline";
        if (why) {
            log_err("--txt excludes %s", why);
            return -1;
        }
        /* the device set of --no-drtm: no VSENTER UART, no control-channel proxy */
        o->no_drtm = true;
        if (!o->tboot)
            o->tboot = "/boot/tboot.gz";
        if (!o->tboot_cmdline)
            o->tboot_cmdline = "logging=serial,memory loglvl=all ap_wake_mwait=true";
        o->vtboot = o->tboot;
        o->vtboot_cmdline = o->tboot_cmdline;
    }
    if (o->no_tpm && (o->tpm_state || o->policy || o->pcr_banks_set || o->provision_only)) {
        log_err("--no-tpm excludes --tpm-state, --policy, --pcr-banks and --provision-only");
        return -1;
    }
    if (o->attest.on && (o->no_tpm || (o->kernel && !*o->kernel))) {
        log_err("--attest needs a TPM and a kernel (the guest quotes)");
        return -1;
    }
    if (o->tpm_faults.n && (o->no_tpm || o->no_drtm)) {
        log_err("--tpm-fault needs the TPM control-channel proxy, which --no-tpm and "
                "--no-drtm turn off");
        return -1;
    }
    if (o->qmp_path && o->gdb_path && !strcmp(o->qmp_path, o->gdb_path)) {
        log_err("--qmp and --gdb need two different socket paths");
        return -1;
    }
    if (o->provision_only && !o->tpm_state) {
        log_err("--provision-only needs --tpm-state DIR (the state to provision)");
        return -1;
    }
    if (o->disk && (o->kernel_set || o->initrd_set || o->cmdline_set || o->vtboot_set ||
                    o->vtboot_cmdline_set || o->grub || o->grub_prelude || o->make_iso ||
                    o->print_modules || o->print_cmdline)) {
        log_err("--disk boots the disk's own loader, which picks vtboot, the kernel, the "
                "initrd and their command lines: it excludes --kernel, --initrd, --cmdline, "
                "--vtboot, --vtboot-cmdline, --grub, --grub-mb1, --grub-prelude, --make-iso, "
                "--print-modules and --print-cmdline");
        return -1;
    }
    if (o->xen && (o->disk || (o->kernel && !*o->kernel))) {
        log_err("--xen needs a dom0 kernel (--kernel) and excludes --disk");
        return -1;
    }
    if (o->xen && !o->cmdline_set)
        o->cmdline = "console=hvc0 panic=-1";
    if (!o->xen_cmdline)
        o->xen_cmdline = "console=com1 com1=115200,8n1";
    if (!o->cpu)
        o->cpu = o->xen ? "Nehalem" : "max,vendor=GenuineIntel";
    if (o->kernel && !*o->kernel) {
        /* no modules at all; the default initrd goes with the default kernel only */
        if (o->initrd && *o->initrd) {
            log_err("--kernel \"\" (no modules) cannot take an initrd (--initrd %s): module 0 "
                    "is always the kernel", o->initrd);
            return -1;
        }
        o->no_kernel = true;
        o->initrd = "";
    }
    if (o->make_iso)
        o->grub = true;

    dir = self_dir();
    o->outdir = dir ? xasprintf("%s/..", dir) : xstrdup("out");
    free(dir);
    if (o->txt && !o->qemu_bin) {
        const char *env = getenv("VTBOOT_QEMU_TXT");

        o->qemu_bin = env && *env ? env : xasprintf("%s/bin/qemu-system-x86_64-txt", o->outdir);
    }
    if (o->txt && !o->bios) {
        const char *env = getenv("VTBOOT_BIOS_TXT");

        o->bios = env && *env ? env : xasprintf("%s/bios-txt.bin", o->outdir);
    }
    if (!o->kernel)
        o->kernel = xasprintf("%s/bzImage", o->outdir);
    if (!o->initrd)     /* --attest: the initramfs with vtboot-attest (guest/guest.mk) */
        o->initrd = xasprintf("%s/%s", o->outdir, o->attest.on ? "initrd-attest.img" : "initrd.img");
    if (!o->vtboot) {
        o->vtboot = xasprintf("%s/%s", o->outdir, o->grub ? "vtboot.gz" : "vtboot");
        /* installed by the vtboot-host package: /usr/bin/.., /usr/lib/vtboot/vtboot.gz */
        if (access(o->vtboot, F_OK) != 0) {
            char *lib = xasprintf("%s/lib/vtboot/vtboot.gz", o->outdir);

            if (access(lib, F_OK) == 0) {
                free((char *)o->vtboot);
                o->vtboot = lib;
            } else {
                free(lib);
            }
        }
    }
    return 0;
}
