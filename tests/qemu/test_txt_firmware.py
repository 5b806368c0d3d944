# SPDX-License-Identifier: MIT
"""The TXT platform's firmware (issue 38, seabios/): SMRAM locked and MMIO uncached, as a TXT
BIOS leaves the platform, and what our SINIT and tboot make of a firmware that does neither.

The attacker owns everything before the launch; the host plays it through the gdbstub while
GRUB starts the entry (before tboot runs) and makes the one write that would open SMRAM: 0x4a
(D_OPEN | G_SMRAME | C_BASE_SEG) into the MCH's SMRAMC (0:0.0 offset 0x9d) through q35's ECAM
window. An open SMRAM lets pre-launch code replace the SMI handler, which keeps running after
the launch. Every boot runs Debian's tboot and kernel with our SINIT under a halt policy.

- Our firmware (out/bios-txt.bin): SMRAMC reads 0x1a before and after the write (enabled,
  locked, closed); the launch goes on, tboot's own checks pass (its MTRR check among them), and
  PCRs 17/18 equal the prediction.
- Control, Debian's SeaBIOS: SMRAMC reads 0x0a and then 0x4a, SMRAM is the attacker's; our SINIT
  refuses the launch (ERRORCODE 0xC0001421), and tboot's next boot reports it and halts.
- Control, Debian's SeaBIOS with SMRAM locked by the attacker's loader itself (0x1a, which
  passes the SINIT's check): the launch succeeds, and tboot's own post-launch verification finds
  q35's MMCONFIG window write-back and, under the halt policy, caps the PCRs and halts; under
  its default policy it would go on (issue 38 item 3).

The PMR request (issue 38 item 4), now that tboot's checks run to their end: at tboot's
GETSEC[SENTER] (a breakpoint) the attacker, who owns the pre-launch tboot, shrinks OsSinitData's
low PMR to 44 MiB (tboot's MLE and page tables, not its modules). Our SINIT, which enforces
Intel's floor (the MLE and its tables inside the PMR), sets it; tboot finds after the launch that
the PMRs are not what it asked for, caps the PCRs and halts. Control: the same write of tboot's
own value launches to the predicted PCRs.
"""
import struct
import subprocess

import kpatch
import vtb
from test_txt_launch import HEAP_BASE, TBOOT_HALTED, TBOOT_HALTS, tboot_lines, \
    tboot_platform_failures
from test_txt_lcp import sinit_lines
from test_txt_sinit import prediction, txt_launch
from test_txt_tboot_attacks import GRUB_BOOTS, cfg, finished

SMRAMC = cfg(0, 0x9D)                   # the MCH's SMRAM control, through q35's ECAM window
OPEN = 0x4A                             # D_OPEN | G_SMRAME | C_BASE_SEG
LOCKED = 0x1A                           # D_LCK | G_SMRAME | C_BASE_SEG
DEBIAN_SEABIOS = "/usr/share/seabios/bios-256k.bin"


def attacked_boot(write, *more):
    """Debian's kernel through GRUB with our SINIT under the halt policy; while GRUB starts the
    entry the attacker writes `write` into SMRAMC. Returns SMRAMC before and after the write,
    and the finished run (ended when tboot halts)."""
    kernel = vtb.debian_generic_kernel()
    running = vtb.Running(*txt_launch("--grub", kernel), "--reboot", *more, timeout=300)
    if not running.wait_serial(GRUB_BOOTS, 240):
        raise TimeoutError(running.abandon("GRUB did not start the entry"))
    with vtb.Gdb(running.gdb_path) as gdb:
        before = gdb.read_phys(SMRAMC, 1)[0]
        gdb.write_phys(SMRAMC, bytes([write]))
        after = gdb.read_phys(SMRAMC, 1)[0]
    return before, after, finished(running, kernel, verified=False)


def test_the_txt_firmware_keeps_smram_locked_and_the_launch_verified():
    before, after, run = attacked_boot(OPEN)
    assert (before, after) == (LOCKED, LOCKED)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert "measured launch succeeded" in tboot_lines(run)
    assert tboot_platform_failures(run.serial) == []
    assert "TB_POLTYPE_HALT" in "\n".join(tboot_lines(run))       # the policy tboot applied
    assert run.linux_ran()
    assert {(p, b): run.guest.get(f"pcr-{b}-{p}") for p in (17, 18)
            for b in ("sha1", "sha256")} == prediction(run)


def test_control_debians_seabios_leaves_smram_open_and_our_sinit_refuses():
    before, after, run = attacked_boot(OPEN, "--bios", DEBIAN_SEABIOS)
    assert (before, after) == (0x0A, OPEN)
    assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert sinit_lines(run)[-1] == (
        "sinit: ERROR: MCH SMRAMC 0x4a: SMRAM unlocked (D_LCK clear); ERRORCODE 0xc0001421, "
        "TXT reset"), "\n".join(sinit_lines(run))
    tb = tboot_lines(run)
    i = tb.index("TXT.ERRORCODE: 0xc0001421")
    assert tb[i + 1] == "AC module error : acm_type=0x1, progress=0x02, error=0x5", tb[i:i + 3]
    assert tb.index("TXT_RESET.STS is set and SENTER is disabled (0x01)", i) < \
        tb.index(TBOOT_HALTS[len("TBOOT: "):], i)
    assert "measured launch succeeded" not in tb and not run.linux_ran()


def test_control_debians_seabios_fails_tboots_own_mtrr_check():
    before, after, run = attacked_boot(LOCKED, "--bios", DEBIAN_SEABIOS)
    assert (before, after) == (0x0A, LOCKED)
    assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    tb = tboot_lines(run)
    i = tb.index("measured launch succeeded")
    j = tb.index("MMIO space(b0000000) for PCI config space should be UC", i)
    k = tb.index("verification of post-launch failed.", j)
    assert tb.index("cap'ed dynamic PCRs", k) < tb.index(TBOOT_HALTS[len("TBOOT: "):], k)
    assert tboot_platform_failures(run.serial) and not run.linux_ran()


# ---- the PMR request: tboot's own check, reachable now that its MTRR check passes ----------------

SENTER_CODE = bytes.fromhex("b8040000000f37")          # mov $4, %eax; getsec: SENTER
OS_SINIT_PMR_LO_SIZE = 8 + 40           # OsSinitData's vtd_pmr_lo_size, after its size field
SHRUNK = 0x2C00000                      # 44 MiB: tboot's MLE and page tables, not its modules


def tboots_senter():
    """Where Debian's tboot executes GETSEC[SENTER] for its first launch: the first
    `mov $4, %eax; getsec` of /boot/tboot.gz's loadable image, as an address."""
    elf = subprocess.run(["zcat", "/boot/tboot.gz"], check=True, capture_output=True).stdout
    at = elf.index(SENTER_CODE) + 5
    phoff, _, _, _, _, phentsize, phnum = struct.unpack_from("<IIIHHHH", elf, 28)
    for i in range(phnum):
        p_type, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIIII", elf,
                                                                    phoff + i * phentsize)
        if p_type == 1 and p_offset <= at < p_offset + p_filesz:
            return p_vaddr + at - p_offset
    raise AssertionError("tboot's SENTER is in no loadable segment")


def pmr_boot(lo_size):
    """Our firmware and SINIT, the halt policy: at tboot's GETSEC[SENTER] the attacker (who
    owns the pre-launch tboot) writes lo_size (None: the value tboot asked for, unchanged) into
    OsSinitData's low PMR size. Returns what tboot asked for and the finished run."""
    kernel = vtb.debian_generic_kernel()
    running = vtb.Running(*txt_launch("--grub", kernel), timeout=300)
    senter = tboots_senter()
    dbg = kpatch.Debugger(running.gdb_path, timeout=30)
    try:
        dbg.run_to(senter, 240)
        bios, os_mle = (struct.unpack("<Q", dbg.read_phys(at, 8))[0]
                        for at in (HEAP_BASE, HEAP_BASE + struct.unpack(
                            "<Q", dbg.read_phys(HEAP_BASE, 8))[0]))
        field = HEAP_BASE + bios + os_mle + OS_SINIT_PMR_LO_SIZE
        asked = struct.unpack("<Q", dbg.read_phys(field, 8))[0]
        dbg.write_phys(field, struct.pack("<Q", asked if lo_size is None else lo_size))
    finally:
        dbg.close(resume=True)
    return asked, finished(running, kernel, verified=False)


def test_tboot_halts_on_a_pmr_the_loader_shrank():
    """Our SINIT sets any low PMR that holds the MLE and its tables (Intel's documented floor,
    docs/txt-platform.md 3.4 step 9); what else must be kept from DMA only the MLE knows. tboot
    checks after the launch that the SINIT got what it asked for (txt/verify.c); its MTRR check
    no longer fails first, and under the halt policy it caps the PCRs and halts."""
    asked, run = pmr_boot(SHRUNK)
    assert asked > SHRUNK, f"tboot asked for a low PMR of {asked:#x}"
    assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    tb = tboot_lines(run)
    i = tb.index("measured launch succeeded")
    j = tb.index("OS to SINIT data VT-d PMR settings do not match:", i)
    assert f"\t vtd_pmr_lo_size: {SHRUNK:#x}" in tb[i:j + 12], tb[j:j + 12]
    assert tb.index("cap'ed dynamic PCRs", j) < tb.index(TBOOT_HALTS[len("TBOOT: "):], j)
    assert not run.linux_ran()


def test_control_the_same_write_of_tboots_own_request_launches():
    asked, run = pmr_boot(None)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert f"\t vtd_pmr_lo_size: {asked:#x}" in tboot_lines(run)
    assert tboot_platform_failures(run.serial) == [] and run.linux_ran()
    assert {(p, b): run.guest.get(f"pcr-{b}-{p}") for p in (17, 18)
            for b in ("sha1", "sha256")} == prediction(run)
