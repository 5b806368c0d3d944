"""Debian's unmodified tboot launched by our SINIT on the emulated TXT platform (issue 20:
`vtboot-qemu --txt --sinit F --sinit-key K`).

The ACM is out/sinit.bin (sinit/, laid out and signed by vtboot-acm with the project key),
loaded as the entry's last module the way Debian's 20_linux_tboot loads /boot/*sinit*, through
GRUB's multiboot2 and multiboot1 paths, with Debian's own 6.1 kernel, and with the project's
patched kernel (out/bzImage) through multiboot2. tboot's
does_acmod_match_platform() compares its lists with our chipset and CPU, GETSEC[SENTER] (patch
0006) authenticates it and measures it into PCR 17, the SINIT does its work (docs/txt-platform.md
3.4: heap, MTRRs, PMRs, the MLE's measurement, the launch control policy, PCRs 17/18 and the
event log, SinitMleData) and enters tboot, which finds the launch good and boots Linux with its
shared page. Asserted: the SINIT's and tboot's own lines, Debian's txt-stat in the guest, PCRs 17
and 18 in both banks against `vtboot-pcr predict --sinit`, and the event log the guest reads from
the heap against tpm2_eventlog's replay and the PCRs. An ACM whose list names another chipset is
refused by tboot before SENTER (no SINIT, no launch).
"""
import os
import struct
import subprocess
import tempfile

import pytest

import vtb
from test_kernel_patches import securityfs
from test_txt_launch import LINUX_CMDLINE, MEMORY_MB, SINIT_BASE, TBOOT_HALTED, TBOOT_HALTS, boot_txt, tboot_lines

ACM_TOOL = os.path.join(vtb.OUT, "bin", "vtboot-acm")
PCR_TOOL = os.path.join(vtb.OUT, "bin", "vtboot-pcr")
TB_POLGEN = "/usr/sbin/tb_polgen"
SINIT = os.path.join(vtb.OUT, "sinit.bin")
ECHO = os.path.join(vtb.OUT, "test", "echo.bin")
PROJECT_KEY = os.path.join(os.environ.get("VTBOOT_CACHE") or
                           os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                        os.path.expanduser("~/.cache"), "vtboot"),
                           "sinit", "project-key.pem")
# the test ACMs' key (sinit/sinit.mk): what a test makes is signed with it, never with the project
# key, and the platform that runs it holds its hash
TEST_KEY = os.path.join(os.path.dirname(PROJECT_KEY), "test-key.pem")
CMDLINE = LINUX_CMDLINE
TBOOT_CMDLINE = "logging=serial,memory loglvl=all ap_wake_mwait=true"   # vtboot-qemu's default
# does_acmod_match_platform() as tboot and txt-acminfo print it: the emulated platform (our
# chipset's DIDVID and FSBIF, the CPU's signature and IA32_PLATFORM_ID), then our ACM's lists
PLATFORM = [
    "chipset production fused: 1",
    "chipset ids: vendor: 0x8086, device: 0xb00f, revision: 0x1",
    "processor family/model/stepping: 0x60fb1",
    "platform id: 0x4000000000000"]
OUR_LISTS = [
    "\t 1 ACM chipset id entries:",
    "\t     vendor: 0x8086, device: 0xb00f, flags: 0x0, revision: 0x1, extended: 0x0",
    "\t 1 ACM processor id entries:",
    "\t     fms: 0x60fb0, fms_mask: 0xfff3ff0, platform_id: 0x4000000000000, "
    "platform_mask: 0x1c000000000000"]
# acm_hdr_t (include/abi/txt.h): date at 20, size (dwords) at 24, seg_sel at 48, entry at 52
HDR_DATE, HDR_SIZE, HDR_SEG_SEL, HDR_ENTRY = 20, 24, 48, 52


def need(path, how):
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing ({how})")
    return path


def polgen(path, *commands):
    """Debian's tb_polgen, once per command (its arguments without the file) on path."""
    for args in commands:
        subprocess.run([TB_POLGEN, *args, path], check=True, capture_output=True)


def halt_policy():
    """tb_polgen's policy of type halt allowing any kernel and modules (the entries of tboot's
    default policy): every TXT test that launches tboot runs under it, so that any tboot check
    that fails halts the boot, where tboot's default policy goes on (issue 38). Written once
    into out/tests/ (atomically: the test workers share it)."""
    path = os.path.join(vtb.OUT, "tests", "txt-halt-any.pol")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with tempfile.TemporaryDirectory(dir=os.path.dirname(path)) as tmp:
            pol = os.path.join(tmp, "halt.pol")
            polgen(pol, ["--create", "--type", "halt", "--alg", "sha256"],
                   ["--add", "--num", "0", "--pcr", "none", "--hash", "any"],
                   ["--add", "--num", "any", "--pcr", "17", "--hash", "any"])
            os.replace(pol, path)
    return path


def txt_launch(loader, kernel, cmdline=CMDLINE, acm=SINIT, key=PROJECT_KEY, policy=None):
    """vtboot-qemu's arguments for tboot with this SINIT through the loader, on a platform that
    holds key's hash, under the halt policy (or policy)."""
    return ["--txt", loader, "--kernel", kernel, "--memory", str(MEMORY_MB), "--cmdline", cmdline,
            "--sinit", need(acm, "make out/sinit.bin"), "--sinit-key", need(key, "`make` makes it"),
            "--policy", policy or halt_policy()]


def boot_with(acm, loader, cmdline=CMDLINE, *more, kernel=None, policy=None, key=PROJECT_KEY):
    run = boot_txt(*txt_launch(loader, kernel or vtb.debian_generic_kernel(), cmdline, acm, key,
                               policy), *more)
    run.policy = policy or halt_policy()
    return run


# (loader, kernel): Debian's kernel through GRUB's multiboot2 and multiboot1 paths; the
# project's patched kernel (out/bzImage) through multiboot2
LAUNCHES = [("--grub", "debian"), ("--grub-mb1", "debian"), ("--grub", "project")]


def kernel_file(which):
    return vtb.debian_generic_kernel() if which == "debian" else \
        need(os.path.join(vtb.OUT, "bzImage"), "make out/bzImage")


def acminfo_initrd(directory, acm):
    """The test initrd with what the guest's txt-acminfo action needs: Debian's kernel's msr.ko
    (the project's kernel has the driver built in, and /init then loads nothing) and the ACM
    file at /boot/sinit.bin (where Debian's tboot package wants a SINIT)."""
    return vtb.initrd_with(directory, {"/lib/modules/msr.ko": vtb.debian_generic_msr_module(),
                                       "/boot/sinit.bin": acm})


@pytest.fixture(scope="module", params=LAUNCHES,
                ids=lambda p: f"{p[1]}-{'mb1' if p[0] == '--grub-mb1' else 'mb2'}")
def launch(request, tmp_path_factory):
    loader, which = request.param
    # the project's kernel also shows what its series (patch 0009) says of the launch
    actions = "txt-evlog,txt-acminfo" + (",securityfs" if which == "project" else "")
    # (the action fails without the directory: Debian's kernel reports only its absence)
    cmdline = f"{CMDLINE} vtboot.guest={actions}"
    initrd = acminfo_initrd(str(tmp_path_factory.mktemp("initrd")), need(SINIT, "make out/sinit.bin"))
    kernel = kernel_file(which)
    run = boot_with(SINIT, loader, cmdline, "--initrd", initrd, kernel=kernel)
    run.loader, run.cmdline, run.initrd, run.kernel, run.which = loader, cmdline, initrd, kernel, which
    return run


def test_tboot_takes_our_acm_as_the_platforms_sinit(launch):
    with open(SINIT, "rb") as f:
        acm = f.read()
    u32 = lambda off: struct.unpack_from("<I", acm, off)[0]
    lines = tboot_lines(launch)
    assert launch.rc == vtb.POWERED_OFF, launch.stderr[-2000:] + "\n" + launch.serial[-1500:]
    # does_acmod_match_platform(): our chipset and CPU against the ACM's lists
    i = lines.index("checking if module  is an SINIT for this platform...")
    assert lines[i + 1:i + 10] == PLATFORM + OUR_LISTS + ["SINIT matches platform"], \
        "\n".join(lines[i:i + 12])
    # copy_sinit(): the whole file to SINIT.BASE, then the header dump of what it copied
    assert f"copied SINIT (size={len(acm):x}) to {SINIT_BASE:#x}" in lines
    assert u32(HDR_SIZE) * 4 == len(acm)
    assert f"\t date: {u32(HDR_DATE):#010x}" in lines
    assert f"\t size*4: {len(acm):#x} ({len(acm)})" in lines
    assert f"\t entry point: 0x{u32(HDR_SEG_SEL):08x}:{u32(HDR_ENTRY):08x}" in lines
    assert "\t\t capabilities: 0x00000261" in lines
    # module 0 the kernel, 1 the initrd, 2 the ACM: the order of 20_linux_tboot
    assert "got sinit match on module #2" in lines
    assert not [l for l in lines if "chipset id mismatch" in l or "processor id mismatch" in l]


def test_our_sinit_launches_tboot_into_linux(launch):
    lines = tboot_lines(launch)
    sinit = [l for l in launch.serial.splitlines() if l.startswith("sinit: ")]
    # tboot's post-launch entry, as it printed it before GETSEC[SENTER]
    entry = int(next(l for l in lines if l.startswith("\t &_post_launch_entry=")).split("=")[1],
                16)
    assert sinit == [
        sinit[0],                                     # timer: TSC at ... MHz
        f"sinit: entered at {SINIT_BASE:#x}, SENTER EDX 0x0",
        "sinit: no launch control policy in TPM NV",
        f"sinit: MLE measured, SinitMleData written (0x16c bytes); entering the MLE at {entry:#x}",
    ], "\n".join(sinit)
    assert sinit[0].startswith("sinit: timer: TSC at ")
    # tboot's own verdicts on the launch (txt_post_launch, the heap's SinitMleData)
    assert lines.index("executing GETSEC[SENTER]...") < lines.index("SINIT ACM successfully returned...")
    assert "measured launch succeeded" in lines
    assert "TXT.ERRORCODE: 0x0" in lines
    assert launch.linux_ran()
    # Linux's tboot driver found the shared page tboot handed it: tboot is active
    assert "tboot: found shared page at phys addr" in launch.serial
    # Debian's txt-stat in the guest, through the chipset's registers and the heap
    stat = launch.values("txt-stat")
    assert launch.guest.get("txt-stat-rc") == "0", "\n".join(stat)
    assert "\t TXT measured launch: TRUE" in stat, "\n".join(stat)
    assert "\t secrets flag set: TRUE" in stat, "\n".join(stat)


def test_the_kernel_takes_tboots_shared_page(launch):
    """Both kernels find tboot's shared page; the project's series (patch 0001) checks it and
    says what it holds, and patch 0009 shows it in securityfs with the launch's state: the
    values tboot printed when it built the page, its memory log as the log file. Debian's kernel
    has no such view."""
    if launch.which == "debian":
        assert launch.guest["securityfs-tboot"] == "absent"
        return
    sp = vtb.parse_shared_page(bytes.fromhex(launch.guest["shared-page-hex"]))
    lines = tboot_lines(launch)
    assert [f"\t shutdown_entry: {sp.shutdown_entry:#010x}",
            f"\t tboot_base: {sp.tboot_base:#010x}"] == \
        [l for l in lines if l.startswith(("\t shutdown_entry: ", "\t tboot_base: "))]
    # the MLE tboot measured begins at its base
    assert f"\t &_mle_start={sp.tboot_base:#x}" in lines
    assert f"tboot: version 6, log_addr 0x00060000, shutdown_entry {sp.shutdown_entry:#010x}, " \
           f"tboot [mem {sp.tboot_base:#010x}-{sp.tboot_base + sp.tboot_size - 1:#010x}]" \
        in launch.serial
    assert launch.guest["securityfs-tboot"] == "present"
    assert launch.guest.get("action-securityfs-rc") == "0"
    text, binary = securityfs(launch)
    assert {k: v for k, v in text.items() if k != "log"} == {
        "version": ["6"], "log_addr": ["0x00060000"],
        "shutdown_entry": [f"{sp.shutdown_entry:#010x}"], "tboot_base": [f"{sp.tboot_base:#010x}"],
        "tboot_size": [f"{sp.tboot_size:#010x}"], "num_in_wfs": ["0"], "measured": ["1"]}
    # tboot's memory log: what it printed on the serial port, from its banner on
    assert text["log"][:2] == ["TBOOT: *********************** TBOOT ***********************",
                               "TBOOT:    2022-03-04 12:00 +0100 1.10.5"]
    assert "TBOOT: measured launch succeeded" in text["log"]
    assert binary == {}      # no event_log file: that is vtboot's (tboot's log is in the heap)


def host_acminfo(acm, guest_path):
    """Debian's txt-acminfo on this machine: the file's part (no /dev/mem access here), its
    first line naming the file as the guest has it."""
    out = subprocess.run(["txt-acminfo", acm], capture_output=True, text=True).stdout
    lines = out.splitlines()
    assert lines[0] == f"AC module header dump for {acm}:" and \
        lines[-1] == "ERROR: cannot open /dev/mem", out[-500:]
    return [f"AC module header dump for {guest_path}:"] + lines[1:-1]


def test_txt_acminfo_in_the_guest_says_our_acm_matches_the_platform(launch):
    """Debian's txt-acminfo in the launched guest: the file read as on the host, then its lists
    against the platform's registers (DIDVID, VER.FSBIF), IA32_PLATFORM_ID (msr.ko) and CPUID."""
    info = launch.values("txt-acminfo")
    assert launch.guest.get("action-txt-acminfo-rc") == "0", "\n".join(info)
    file_part = host_acminfo(SINIT, "/boot/sinit.bin")
    assert info[:len(file_part)] == file_part, "\n".join(info)
    assert info[len(file_part):] == PLATFORM + OUR_LISTS + ["ACM matches platform"], \
        "\n".join(info[len(file_part):])


def txt_shutdown(run, shutdown_type):
    """Linux's power off or reboot calls tboot's shutdown entry: PCRs capped, SECRETS cleared,
    the private space closed, GETSEC[SEXIT] (patch 0007), then the shutdown itself."""
    lines = tboot_lines(run)
    i = lines.index("wait until all APs ready for txt shutdown")
    assert [l for l in lines[i:] if not l.startswith(("IA32_FEATURE", "CPU is", "SMX is",
                                                        "TXT chipset", "\t"))][:8] == [
        "wait until all APs ready for txt shutdown", "cap'ed dynamic PCRs",
        "secrets flag cleared", "memory configuration unlocked", "private config space closed",
        "executing GETSEC[SEXIT]...", "measured environment torn down",
        f"shutdown_system() called for shutdown_type: {shutdown_type}"], "\n".join(lines[i:])


def test_poweroff_goes_through_tboots_sexit(launch):
    assert launch.rc == vtb.POWERED_OFF, launch.stderr[-2000:]
    txt_shutdown(launch, "TB_SHUTDOWN_S5")        # then S5 through the PM1 registers


def test_reboot_goes_through_tboots_sexit():
    """The guest's `reboot -f`: Linux calls tboot's shutdown entry, which leaves the measured
    environment and resets the machine (QEMU, without --reboot, ends on the reset)."""
    run = boot_with(SINIT, "--grub", CMDLINE + " vtboot.end=reboot", kernel=kernel_file("project"))
    assert run.rc == vtb.RESET, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert "measured launch succeeded" in tboot_lines(run)
    txt_shutdown(run, "TB_SHUTDOWN_REBOOT")


def guest_pcrs(run, pcrs=(17, 18)):
    return {(p, bank): run.guest.get(f"pcr-{bank}-{p}") for p in pcrs
            for bank in ("sha1", "sha256")}


def prediction(run, *more, pcrs=(17, 18)):
    """vtboot-pcr predict --sinit for this run's files and strings: {(pcr, bank): hex}."""
    kernel_str, initrd_str, *_ = vtb.module_strings(
        "--txt", run.loader, "--kernel", run.kernel, "--cmdline", run.cmdline)
    p = subprocess.run([need(PCR_TOOL, "make out/bin/vtboot-pcr"), "predict", "--sinit", SINIT,
                        "--vtboot", "/boot/tboot.gz", "--vtboot-cmdline", TBOOT_CMDLINE,
                        "--kernel", run.kernel, "--cmdline", kernel_str,
                        "--initrd", run.initrd, "--initrd-cmdline", initrd_str,
                        "--policy", run.policy, *more],
                       check=True, capture_output=True, text=True)
    want = {}
    for line in p.stdout.splitlines():
        pcr, rest = line.split(":")
        bank, value = rest.split("=")
        if int(pcr) in pcrs:
            want[(int(pcr), bank)] = value
    return want


def test_pcrs_17_18_equal_vtboot_pcr_prediction(launch):
    assert guest_pcrs(launch) == prediction(launch)


def test_the_heaps_event_log_replays_to_the_pcrs(launch):
    log = bytes.fromhex("".join(launch.values("txt-evlog")))
    assert launch.guest.get("action-txt-evlog-rc") == "0", launch.values("txt-evlog")
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(log)
        f.flush()
        replay = vtb.eventlog_pcrs(f.name)
        events = vtb.eventlog_events(f.name)
    assert {(p, bank): replay[bank][p] for p in (17, 18) for bank in ("sha1", "sha256")} == \
        guest_pcrs(launch)
    # the SINIT's records first (src/txt/drtm.c's order), in both banks; then tboot's, SHA-256
    # only (its extend policy with our ACM: one algorithm)
    kinds = [(e["PCRIndex"], e["EventType"] if isinstance(e["EventType"], int) else None,
              len(e["Digests"])) for e in events[1:]]
    assert [(p, n) for p, _, n in kinds[:7]] == [(17, 2)] * 5 + [(18, 2)] * 2, kinds
    assert kinds[7:] and all(n == 1 for _, _, n in kinds[7:]), kinds


@pytest.mark.parametrize("allowed", [True, False], ids=["this-kernel", "another-kernel"])
def test_tboots_policy_is_read_from_the_index_it_reads(allowed, tmp_path):
    """--policy with --txt writes tboot's policy into the index our SINIT's tpm_nv_index_set
    makes tboot read (0x01C10131): a halt policy naming the kernel boots it, the predicted PCRs
    include the policy; the same policy naming another image as module 0 halts the launched
    tboot after it caps PCRs 17 and 18 (written into 0x01200001 before, it was never read)."""
    kernel = vtb.debian_generic_kernel()
    kernel_str = vtb.module_strings("--txt", "--grub", "--kernel", kernel, "--cmdline",
                                    CMDLINE)[0]
    pol = str(tmp_path / "vl.pol")
    polgen(pol, ["--create", "--type", "halt", "--alg", "sha256"],
           ["--add", "--num", "0", "--pcr", "none", "--hash", "image", "--cmdline", kernel_str,
            "--image", kernel if allowed else os.path.join(vtb.OUT, "initrd.img")],
           ["--add", "--num", "any", "--pcr", "17", "--hash", "any"])
    run = boot_with(need(SINIT, "make out/sinit.bin"), "--grub", CMDLINE, policy=pol)
    tb = tboot_lines(run)
    i = tb.index("measured launch succeeded")
    if allowed:
        assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
        assert "all modules are verified" in tb[i:]
        run.loader, run.cmdline, run.kernel = "--grub", CMDLINE, kernel
        run.initrd = os.path.join(vtb.OUT, "initrd.img")
        assert guest_pcrs(run) == prediction(run)
        return
    assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    j = tb.index("verifying module against policy failed.", i)
    assert tb.index("cap'ed dynamic PCRs", j) < tb.index(TBOOT_HALTS[len("TBOOT: "):], j)
    assert not run.linux_ran()


def test_tboot_refuses_an_acm_for_another_chipset():
    with tempfile.TemporaryDirectory() as tmp:
        other = os.path.join(tmp, "sinit-b00e.bin")
        subprocess.run([need(ACM_TOOL, "make out/bin/vtboot-acm"), "break",
                        need(SINIT, "make out/sinit.bin"), "--chipset", "8086:b00e", "--key",
                        need(TEST_KEY, "`make` makes it"), "-o", other], check=True,
                       capture_output=True)
        run = boot_with(other, "--grub", CMDLINE + " vtboot.guest=txt-acminfo",
                        "--initrd", acminfo_initrd(tmp, other), key=TEST_KEY)
        file_part = host_acminfo(other, "/boot/sinit.bin")
    lines = tboot_lines(run)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    i = lines.index("\t     vendor: 0x8086, device: 0xb00e, flags: 0x0, revision: 0x1, extended: 0x0")
    assert lines[i + 1] == "\t chipset id mismatch"
    assert "SINIT matches platform" not in lines
    assert "no SINIT AC module found" in lines
    assert "SINIT ACM not provided." in lines
    assert run.linux_ran()
    # Debian's txt-acminfo in the (unmeasured) guest comes to the same verdict
    info = run.values("txt-acminfo")
    assert info[:len(file_part)] == file_part, "\n".join(info)
    assert info[len(file_part):] == PLATFORM + [
        "\t 1 ACM chipset id entries:",
        "\t     vendor: 0x8086, device: 0xb00e, flags: 0x0, revision: 0x1, extended: 0x0",
        "\t chipset id mismatch",
        "ACM does not match platform"], "\n".join(info[len(file_part):])


@pytest.mark.parametrize("how,code", [
    (["--flip-byte", "0x1000"], 0x80000007),        # in the payload: the signature fails
    (["--resign", "OTHER"], 0x80000007),            # another key than PUBLIC.KEY's
], ids=["flipped-byte", "other-key"])
def test_a_sinit_the_cpu_refuses_is_a_txt_reset_that_tboot_reports(how, code):
    """tboot takes any module whose lists match (it checks no signature); GETSEC[SENTER] then
    refuses it before it runs (TXT-SHUTDOWN, processor error 7, AUTH_FAIL) and resets the
    platform. With --reboot, tboot's next boot reports it and, under the halt policy, halts
    (its default policy would boot Linux unmeasured)."""
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "sinit-bad.bin")
        args = [a if a != "OTHER" else os.path.join(os.path.dirname(PROJECT_KEY),
                                                    "other-key.pem") for a in how]
        subprocess.run([need(ACM_TOOL, "make out/bin/vtboot-acm"), "break",
                        need(SINIT, "make out/sinit.bin"), *args, "--key", PROJECT_KEY,
                        "-o", bad], check=True, capture_output=True)
        run = boot_with(bad, "--grub", CMDLINE, "--reboot")
    lines = tboot_lines(run)
    assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert not [l for l in run.serial.splitlines() if l.startswith("sinit: ")]
    i = lines.index("executing GETSEC[SENTER]...")
    assert lines[i:].count("executing GETSEC[SENTER]...") == 1
    j = lines.index(f"TXT.ERRORCODE: {code:#x}")
    assert j > i and lines[j + 1] == f"\t processor error {code & 0x3fffffff:#x}", lines[j:j + 3]
    k = lines.index("TXT_RESET.STS is set and SENTER is disabled (0x01)", j)
    assert lines.index(TBOOT_HALTS[len("TBOOT: "):], k) > k
    assert "measured launch succeeded" not in lines and not run.linux_ran()
    # Debian's txt-parse_err on the host reads the code the same way
    p = subprocess.run(["txt-parse_err", f"{code:#x}"], check=True, capture_output=True,
                       text=True)
    assert [l.strip() for l in p.stdout.splitlines() if l.strip()] == [
        f"ERRORCODE: {code:#x}", f"processor error {code & 0x3fffffff:#x}"], p.stdout


@pytest.mark.parametrize("args,err", [
    (["--sinit", ECHO], "--tboot, --tboot-cmdline, --sinit, --sinit-key, --lcp-data, --reboot, --qemu and --bios go "
                        "with --txt (the TXT platform)"),
    (["--txt", "--sinit", ECHO], "--sinit needs --sinit-key K: the key whose hash the chipset "
                                 "holds as PUBLIC.KEY (vtboot-acm key-hash K)"),
    (["--txt", "--sinit", ECHO, "--sinit-key", ECHO], None),
], ids=["no-txt", "no-key", "not-a-key"])
def test_sinit_options_are_refused_without_what_they_need(args, err):
    p = subprocess.run([vtb.LAUNCHER, *args], capture_output=True, text=True, timeout=60)
    lines = p.stderr.splitlines()
    assert p.returncode == 1 and len(lines) == 1, p.stderr
    if err:
        assert lines[0] == "vtboot-qemu: error: " + err
    else:
        # an ACM is no PEM key: refused before anything starts, naming the file
        assert lines[0].startswith(f"vtboot-qemu: error: --sinit-key {ECHO}: "), lines[0]
