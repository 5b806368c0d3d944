"""Debian's unmodified tboot on the emulated TXT platform, without a SINIT (issue 20, step 2).

`vtboot-qemu --txt` runs out/bin/qemu-system-x86_64-txt (or $VTBOOT_QEMU_TXT) with
`-machine q35,txt=on` and boots /boot/tboot.gz through GRUB in the layout of Debian's
20_linux_tboot (multiboot2 and multiboot1), Debian's own 6.1 kernel and out/initrd.img as its
modules, and no SINIT module. The milestone of docs/txt-platform.md section 5, step 2: tboot finds
SMX (patch 0002), GETSEC[CAPABILITIES] with the chipset present (0003 + 0004), no SINIT, and
boots Linux without a measured launch, as on a board without one; Linux's tboot driver stays off,
and Debian's txt-stat in the guest reads our registers and (guest/init's txt action, --heap) the
BiosData in our heap.

A TXT QEMU without 0003 (GETSEC is #UD) or without 0004 (no chipset) fails these tests: the
first as soon as tboot is seen looping on the #UD (boot_txt), the second by tboot's "ERR:
TXT-capable chipset not present" and txt-stat's zero registers.
"""
import os
import re
import subprocess
import tempfile
import time

import pytest

import vtb

MEMORY_MB = 512
# Linux's command line on the TXT platform. no_timer_check: with intel-iommu's interrupt
# remapping Linux panics when its boot check of the timer interrupt fails ("timer doesn't work
# through Interrupt-remapped IO-APIC"), and the check counts ticks against a TSC busy-wait of
# about 60 ms of host time: under TCG on a loaded host QEMU may not run that long (3 of 130 TXT
# boots panicked with four QEMUs on two cores, 2026-12-07). Linux skips the check in KVM guests
# the same way (arch/x86/kernel/kvm.c sets no_timer_check).
LINUX_CMDLINE = "console=ttyS0 panic=-1 no_timer_check"
# the layout of docs/txt-platform.md 0004: T = low RAM top (all of -m 512 is below 4 GiB on q35),
# DPR = [T-4M, T), HEAP = [T-4M, T-3M), SINIT = [T-3M, T-3M+256K)
T = MEMORY_MB << 20
MIB = 1 << 20
HEAP_BASE, HEAP_SIZE = T - 4 * MIB, MIB
SINIT_BASE, SINIT_SIZE = T - 3 * MIB, 256 << 10
DPR = T | 4 << 4 | 1

TIMEOUT = 480
# Without 0003 GETSEC[CAPABILITIES] is #UD and tboot comes back to its SMX check again and again
# (measured: "SMX is enabled" thousands of times, never a reset); the boot is given up once tboot
# printed it this often with neither verdict of the chipset check (1-2 times in a good run)
SMX_LOOP = 20
# tboot under a halt policy (tb_polgen --type halt) ends a boot whose checks failed here and
# then halts for good: the boot ends with this line, and boot_txt gives it this status (the
# launcher's own are 0-5)
TBOOT_HALTS = vtb.TBOOT_HALT_MARKER
TBOOT_HALTED = 100
# tboot's verdicts that the platform is not what a TXT platform must be (txt/verify.c,
# txt/mtrrs.c: MTRRs, PMRs, e820 against the MDRs, the heap): no boot on our platform may
# print one (issue 38); test_txt_firmware.py provokes them with another firmware
TBOOT_PLATFORM_FAILURES = ("should be UC", "verification of post-launch failed",
                           "failed to verify platform", "settings do not match", "var MTRRs ")


def tboot_platform_failures(serial):
    return [l for l in serial.splitlines() if l.startswith("TBOOT: ") and
            any(f in l for f in TBOOT_PLATFORM_FAILURES)]


def assert_platform_verified(serial):
    failures = tboot_platform_failures(serial)
    assert not failures, "tboot found the platform wanting:\n" + "\n".join(failures)


def boot_txt(*args):
    """vtb.boot, given up early (and failed) when tboot loops on GETSEC's #UD, and ended early
    with status TBOOT_HALTED when tboot halts. A boot in which tboot found the platform wanting
    (TBOOT_PLATFORM_FAILURES) fails the test whatever it asserts."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "serial.log")
        p = subprocess.Popen([vtb.LAUNCHER, "--serial-log", log, "--timeout", str(TIMEOUT), *args],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             errors="replace")
        looping = halted = False
        while p.poll() is None and not looping and not halted:
            time.sleep(1)
            serial = vtb.read_serial(log) if os.path.exists(log) else ""
            looping = (serial.count("TBOOT: SMX is enabled") >= SMX_LOOP and
                       "TBOOT: TXT chipset and all needed capabilities present" not in serial and
                       "TBOOT: ERR: " not in serial)
            halted = TBOOT_HALTS in serial
        if looping or halted:
            p.terminate()       # the launcher stops QEMU and swtpm (exit 143)
        _, err = p.communicate(timeout=TIMEOUT + 120)
        serial = vtb.read_serial(log)
    if looping:
        err += "\n" + vtb.keep_evidence(serial, err, "tboot loops on its SMX check: GETSEC faults "
                                         "(a QEMU without patch 0003?)") + "\n"
        return vtb.parse_run(vtb.CRASHED, serial, err)
    assert_platform_verified(serial)
    return vtb.parse_run(TBOOT_HALTED if halted else p.returncode, serial, err)


def tboot_lines(run):
    return [l[len("TBOOT: "):] for l in run.serial.splitlines() if l.startswith("TBOOT: ")]


# Debian's own 6.1 kernel through GRUB's multiboot2 (what 20_linux_tboot writes) and multiboot1
# (the project's kernel through tboot: test_txt_sinit.py).
@pytest.fixture(scope="module", params=["--grub", "--grub-mb1"],
                ids=lambda loader: "debian-mb1" if loader == "--grub-mb1" else "debian-mb2")
def run(request):
    return boot_txt("--txt", request.param, "--kernel", vtb.debian_generic_kernel(),
                    "--memory", str(MEMORY_MB), "--cmdline", LINUX_CMDLINE + " vtboot.guest=txt")


def test_tboot_finds_smx_and_the_chipset(run):
    lines = tboot_lines(run)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n---- serial (tail) ----\n" + run.serial[-1500:]
    assert "CPU is SMX-capable" in lines
    assert "SMX is enabled" in lines
    assert "IA32_FEATURE_CONTROL_MSR: 0000ff01" in lines
    # GETSEC[CAPABILITIES] (0003) with the chipset present (0004): txt/verify.c supports_txt()
    assert "TXT chipset and all needed capabilities present" in lines, "\n".join(lines[:40])
    assert not [l for l in lines if l.startswith("ERR: ")]


def test_txt_stat_reads_biosdata(run):
    # guest/init's txt action: txt-stat --heap, the BiosData our chipset wrote at HEAP.BASE (tboot
    # reads it only on the way to SENTER, which it never takes without a SINIT)
    heap = run.values("txt-heap")
    assert run.guest.get("action-txt-rc") == "0", "\n".join(heap)
    i = next(i for i, l in enumerate(heap) if l.startswith("bios_data (@"))
    # the u64 size field before BiosData: 8 + 36 + 14 + 8 = 66 (docs/txt-platform.md 0004)
    assert re.fullmatch(r"bios_data \(@0x[0-9a-f]+, 42\):", heap[i]), heap[i]
    assert heap[i + 1:i + 13] == [
        "\t version: 6",
        "\t bios_sinit_size: 0x0 (0)",
        "\t lcp_pd_base: 0x0",
        "\t lcp_pd_size: 0x0 (0)",
        "\t num_logical_procs: 1",
        "\t flags: 0x200000000",         # platform_type client (1) << 33
        "\t ext_data_elts[]:",
        "\t\t BIOS_SPEC_VER:",
        "\t\t     major: 0x2",
        "\t\t     minor: 0x0",
        "\t\t     rev: 0x0",
        "TBOOT log:",                    # tboot's memory log at 0x60000: tboot ran
    ], "\n".join(heap)


def test_tboot_sees_the_txt_region_reserved(run):
    # the e820 map tboot got from GRUB (SeaBIOS's, from QEMU's etc/e820): DPR = [T-4M, T) inside
    # one reserved entry, no RAM entry touching it (docs/txt-platform.md 0004, "Layout and e820")
    lines = tboot_lines(run)
    i = lines.index("original e820 map:")
    e820 = []
    for l in lines[i + 1:]:
        m = re.fullmatch(r"\t([0-9a-f]{16}) - ([0-9a-f]{16})  \((\d+)\)", l)
        if not m:
            break
        e820.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3))))
    assert [e for e in e820 if e[2] == 2 and e[0] <= T - 4 * MIB and e[1] >= T], e820
    assert not [e for e in e820 if e[2] == 1 and e[0] < T and e[1] > T - 4 * MIB], e820
    assert max(e[1] for e in e820 if e[2] == 1 and e[0] < 1 << 32) <= T - 4 * MIB


def test_no_sinit_no_measured_launch(run):
    lines = tboot_lines(run)
    assert "no SINIT AC module found" in lines, "\n".join(lines)
    i = lines.index("no SINIT AC module found")
    # copy_sinit(): the BIOS-reserved region, then TB_ERR_SINIT_NOT_PRESENT under the default
    # policy (continue without a measured launch)
    assert lines[i + 1:i + 4] == [f"TXT.SINIT.BASE: {SINIT_BASE:#x}",
                                 f"TXT.SINIT.SIZE: {SINIT_SIZE:#x} ({SINIT_SIZE})",
                                 "SINIT ACM not provided."]
    assert not [l for l in lines if "measured launch succeeded" in l or "SENTER" in l]
    assert [l for l in lines if re.fullmatch(r"transfering control to kernel @0x[0-9a-f]+\.\.\.", l)]
    # Debian's own kernel ran, and its tboot driver did not find a shared page
    assert run.linux_ran()
    version = run.serial.split("Linux version", 1)[1].splitlines()[0]
    assert "(debian-kernel@lists.debian.org)" in version, version
    assert run.guest.get("tboot_addr") == "0x0000000000000000"
    assert run.guest.get("tboot-cpuhp-state") == "absent"
    assert run.guest.get("debugfs-tboot-log") == "absent"
    assert "tboot: found shared page" not in run.serial


def test_txt_stat_reads_our_registers(run):
    stat = run.values("txt-stat")
    assert run.guest.get("txt-stat-rc") == "0", "\n".join(stat)
    assert "\tDIDVID: 0x00000001b00f8086" in stat, "\n".join(stat)
    i = stat.index("\tDIDVID: 0x00000001b00f8086")
    assert stat[i:i + 16] == [
        "\tDIDVID: 0x00000001b00f8086",
        "\t    vendor_id: 0x8086",
        "\t    device_id: 0xb00f",
        "\t    revision_id: 0x1",
        "\tFSBIF: 0x0000000080000000",
        "\tQPIIF: 0x00000000ffffffff",
        f"\tSINIT.BASE: {SINIT_BASE:#x}",
        f"\tSINIT.SIZE: {SINIT_SIZE}B ({SINIT_SIZE:#x})",
        f"\tHEAP.BASE: {HEAP_BASE:#x}",
        f"\tHEAP.SIZE: {HEAP_SIZE}B ({HEAP_SIZE:#x})",
        f"\tDPR: {DPR:#018x}",
        "\t    lock: TRUE",
        f"\t    top: {T:#x}",
        "\t    size: 4MB (4194304B)",
        "\tPUBLIC.KEY:",
        "\t    " + "00 " * 16,
    ], "\n".join(stat)
    assert "\tSTS: 0x00000000" in stat
    assert "\t    senter_done: FALSE" in stat
    assert "\t TXT measured launch: FALSE" in stat
