# SPDX-License-Identifier: MIT
"""Issue 39 item 4: Linux's IOMMU under tboot on the emulated TXT platform.

`vtboot-qemu --txt` gives q35 QEMU's intel-iommu (its DRHD at 0xFED90000, the only remapping
unit); our SINIT copies the ACPI DMAR into SinitMleData (docs/txt-platform.md 3.4 step 9) and
sets the PMRs tboot asked for. Debian's 6.1 kernel, launched by Debian's tboot through GRUB:

- DMA remapping from tboot's DMAR copy: with tboot active, Linux's DMAR parser takes the table
  from the TXT heap (arch/x86/kernel/tboot.c tboot_get_dmar_table(): SinitMleData +
  vtd_dmars_off), not from ACPI. tboot 1.10.5 leaves the ACPI DMAR where it is (it hides it only
  around S3 with `save_vtd=true`: common/vtd.c), so the host shows which one Linux reads: at
  Linux's entry (after the SINIT made its copy) it changes the ACPI table's host address width
  (checksum fixed): Linux still prints the copy's "Host address width 39"; the control changes
  the copy in the heap instead, and Linux prints the changed width.
- The take-over: with `intel_iommu=on` Linux enables translation on the unit (GSTS.TES, read
  by the host through the gdbstub) and turns the PMRs off (PMEN 0; 6.1 prints nothing for that:
  iommu_disable_protect_mem_regions()); its dmesg says so in the lines asserted below. tboot
  forces it on in any case (tboot_force_iommu(): `intel_iommu=off` gets "Forcing Intel-IOMMU
  to enabled"); only `intel_iommu=off,tboot_noforce` keeps it off, and then Linux turns the
  PMRs off itself (the kernel is "expected to reset/tear down the PMRs").
- The DMA: the host plays a device armed before the launch (edu with bus mastering and 64
  bytes of the attacker's in its buffer, test_txt_tboot_attacks.py); once Linux has taken
  over (the guest waits in its edu-hold action) edu copies them over the first bytes of the
  kernel's code (where /proc/iomem says it begins; `nokaslr` keeps it where tboot put it,
  below the 256 MiB edu's DMA reaches). With
  translation on, the unit faults it (Linux's dmesg names edu and the address) and the code is
  as it was; the control with `intel_iommu=off,tboot_noforce` lands.
"""
import re
import struct

import pytest

import kpatch
import vtb
from test_txt_launch import LINUX_CMDLINE
from test_txt_sinit import guest_pcrs, prediction
from test_txt_tboot_attacks import (DMA_TO_RAM, EDU_BUFFER, LAUNCHED, PATTERN, edu_dma,
                                    edu_dma_done, finished, start, start_with_edu_loaded,
                                    tboots_kernel_address)

UNIT = 0xFED90000                       # q35's intel-iommu (Q35_HOST_BRIDGE_IOMMU_ADDR)
GSTS, PMEN = 0x1C, 0x64
GSTS_TES, PMEN_EPM, PMEN_PRS = 1 << 31, 1 << 31, 1
EDU_LIVENESS = 0x04
RELEASE = 0x600DF00D                    # guest/init's edu-hold waits for it
HOLDING = "VTBOOT-GUEST: edu-hold=waiting"
DMAR_WIDTH = 36                         # the DMAR's host address width - 1, after its header


def in_order(lines, wanted):
    """The lines of wanted that are in lines in that order (all of them when they are)."""
    out, at = [], 0
    for w in wanted:
        if w in lines[at:]:
            at = lines.index(w, at) + 1
            out.append(w)
    return out


def kernel_code(run):
    """The kernel's code as the guest's /proc/iomem shows it: (start, end)."""
    m = re.fullmatch(r"([0-9a-f]{8})-([0-9a-f]{8}) : Kernel code", run.guest["iomem-kernel-code"])
    assert m, run.guest.get("iomem-kernel-code")
    return int(m.group(1), 16), int(m.group(2), 16)


def dma_after_takeover(option):
    """Debian's kernel under tboot with `option` for its IOMMU; edu, loaded before the launch,
    copies PATTERN over the kernel's first code bytes once the guest holds. Returns (the
    target, GSTS, PMEN, the bytes before, after, the finished run)."""
    kernel = vtb.debian_generic_kernel()
    cmdline = f"{LINUX_CMDLINE} nokaslr {option} vtboot.guest=edu-hold".replace("  ", " ")
    running, kernel, bar0 = start_with_edu_loaded(kernel=kernel, cmdline=cmdline)
    if not running.wait_serial(HOLDING, 240):
        raise TimeoutError(running.abandon("the guest did not reach its edu-hold"))
    line = next(l for l in running.serial().splitlines()
                if l.startswith("VTBOOT-GUEST: iomem-kernel-code="))
    target = int(line.split("=")[1].split("-")[0], 16)
    assert target + len(PATTERN) < 1 << 28, line          # within edu's DMA mask
    with vtb.Gdb(running.gdb_path) as gdb:
        gsts = struct.unpack("<I", gdb.read_phys(UNIT + GSTS, 4))[0]
        pmen = struct.unpack("<I", gdb.read_phys(UNIT + PMEN, 4))[0]
        before = gdb.read_phys(target, len(PATTERN))
        edu_dma(gdb, bar0, EDU_BUFFER, target, DMA_TO_RAM)              # edu -> the kernel
    edu_dma_done(running, bar0, "into the kernel")
    with vtb.Gdb(running.gdb_path) as gdb:
        after = gdb.read_phys(target, len(PATTERN))
        gdb.write_phys(bar0 + EDU_LIVENESS, struct.pack("<I", RELEASE))
    run = finished(running, kernel, cmdline=cmdline)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert run.guest.get("edu-hold") == "released"
    assert kernel_code(run)[0] == target
    return target, gsts, pmen, before, after, run


# what 6.1 prints as it takes the unit over from tboot's DMAR copy (the first line depends on
# how it came to be on)
TAKEOVER = [
    "DMAR: Host address width 39",
    f"DMAR: DRHD base: {UNIT:#016x} flags: 0x0",
    f"DMAR: dmar0: reg_base_addr {UNIT:x} ver 1:0 cap d2008c22260266 ecap f00f4a",
    f"DMAR-IR: IOAPIC id 0 under DRHD base  {UNIT:#x} IOMMU 0",
    "DMAR-IR: Enabled IRQ remapping in xapic mode",
    "iommu: Default domain type: Translated ",
    "DMAR: dmar0: Using Queued invalidation",
    "pci 0000:00:01.0: Adding to iommu group 1",          # edu
    "DMAR: Intel(R) Virtualization Technology for Directed I/O"]


def fault(target):
    """The unit's fault for edu's write, as Linux reports it."""
    return ["DMAR: DRHD: handling fault status reg 2",
            f"DMAR: [DMA Write NO_PASID] Request device [00:01.0] fault addr {target:#x} "
            "[fault reason 0x05] PTE Write access is not set"]


@pytest.mark.parametrize("option,said", [
    ("intel_iommu=on", ["DMAR: IOMMU enabled"] + TAKEOVER),
    # the user's "off" is overruled under tboot (tboot_force_iommu(), as intel_iommu_init()
    # begins)
    ("intel_iommu=off", ["DMAR: IOMMU disabled"] + TAKEOVER[:6] +
     ["DMAR: Forcing Intel-IOMMU to enabled"] + TAKEOVER[6:]),
], ids=["intel_iommu=on", "intel_iommu=off"])
@pytest.mark.slow
def test_a_device_dma_into_the_kernel_after_linux_took_over_is_blocked(option, said):
    target, gsts, pmen, before, after, run = dma_after_takeover(option)
    assert before != PATTERN
    assert after == before, "edu's copy landed in the kernel's code"
    assert gsts & GSTS_TES, f"GSTS {gsts:#x}: translation is off"
    assert pmen & (PMEN_EPM | PMEN_PRS) == 0, f"PMEN {pmen:#x}: Linux left the PMRs on"
    lines = kpatch.kernel_lines(run)
    want = said + fault(target)
    assert in_order(lines, want) == want, \
        "\n".join(l for l in lines if "DMAR" in l or "iommu" in l)
    assert guest_pcrs(run) == prediction(run)


@pytest.mark.slow
def test_control_with_tboot_noforce_the_same_dma_lands():
    """intel_iommu=off,tboot_noforce: translation stays off and Linux turns the PMRs off (the
    kernel owns them after tboot), so nothing stands between edu and the kernel."""
    target, gsts, pmen, before, after, run = dma_after_takeover("intel_iommu=off,tboot_noforce")
    lines = kpatch.kernel_lines(run)
    noforce = ["DMAR: IOMMU disabled", "DMAR: Intel-IOMMU: not forcing on after tboot. This "
               "could expose security risk for tboot"]
    assert in_order(lines, noforce) == noforce, "\n".join(l for l in lines if "DMAR" in l)
    assert "DMAR: Intel(R) Virtualization Technology for Directed I/O" not in lines
    assert not [l for l in lines if "fault" in l and "DMAR" in l]
    assert not gsts & GSTS_TES, f"GSTS {gsts:#x}"
    assert pmen & (PMEN_EPM | PMEN_PRS) == 0, f"PMEN {pmen:#x}"
    assert before != PATTERN and after == PATTERN


# ---- which DMAR Linux reads -------------------------------------------------------------------

NEW_REVISION = 0x39C0FFEE
OEM_REVISION = 24


def heap_dmar(serial):
    """The DMAR copy's address in SinitMleData, from what tboot printed after the launch (its
    data's address, after the u64 size; vtd_dmars_off counts from the size, as Linux reads it)."""
    lines = serial.splitlines()
    i = max(k for k, l in enumerate(lines) if l.startswith("TBOOT: sinit_mle_data (@0x"))
    data = int(lines[i].split("@")[1].split(",")[0], 16)
    off = next(l for l in lines[i:] if l.startswith("TBOOT: \t vtd_dmars_off: "))
    return data - 8 + int(off.rsplit(": ", 1)[1], 16)


def dmar_changed_at_linuxs_entry(which):
    """Debian's kernel with intel_iommu=on; at its entry (tboot done, the SINIT's copy made)
    the host changes the DMAR's host address width to 48 bits and its OEM revision, in the
    ACPI table or in tboot's copy in the heap (which), checksum fixed. Returns the run."""
    kernel = vtb.debian_generic_kernel()
    cmdline = f"{LINUX_CMDLINE} intel_iommu=on"
    running, kernel = start(kernel=kernel, cmdline=cmdline)
    with open(kernel, "rb") as f:
        entry = tboots_kernel_address(f.read())
    dbg = kpatch.Debugger(running.gdb_path, timeout=30)
    try:
        dbg.run_to(entry, 240)
        serial = running.serial()
        assert LAUNCHED in serial.splitlines(), "Linux's entry came before the launch"
        acpi_addr, acpi = kpatch.find_table(dbg, b"DMAR")
        copy_addr = heap_dmar(serial)
        # the SINIT's copy is the ACPI table, byte for byte
        assert dbg.read_phys(copy_addr, len(acpi)) == acpi
        assert acpi[DMAR_WIDTH] == 38
        t = bytearray(acpi)
        t[DMAR_WIDTH] = 47
        struct.pack_into("<I", t, OEM_REVISION, NEW_REVISION)
        addr = acpi_addr if which == "acpi" else copy_addr
        dbg.write_phys(addr, kpatch.checksummed(t))
        assert dbg.read_phys(addr, len(t)) == kpatch.checksummed(t)
    finally:
        dbg.close(resume=True)
    run = finished(running, kernel, cmdline=cmdline)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert f"TBOOT: Kernel (protected mode) from {entry:#x}" in run.serial
    return run


@pytest.mark.slow
def test_linux_reads_the_dmar_from_tboots_copy_not_from_acpi():
    """The ACPI table changed after the launch: Linux's ACPI sees it (the revision it lists),
    its DMAR driver reads the copy in the heap (width 39)."""
    run = dmar_changed_at_linuxs_entry("acpi")
    lines = kpatch.kernel_lines(run)
    acpi = [l for l in lines if l.startswith("ACPI: DMAR 0x")]
    assert len(acpi) == 1 and f" {NEW_REVISION:08X} " in acpi[0], acpi
    assert in_order(lines, ["DMAR: IOMMU enabled"] + TAKEOVER) == \
        ["DMAR: IOMMU enabled"] + TAKEOVER, "\n".join(l for l in lines if "DMAR" in l)
    assert guest_pcrs(run) == prediction(run)


@pytest.mark.slow
def test_control_the_copy_changed_in_the_heap_is_what_linux_prints():
    run = dmar_changed_at_linuxs_entry("heap")
    lines = kpatch.kernel_lines(run)
    acpi = [l for l in lines if l.startswith("ACPI: DMAR 0x")]
    assert len(acpi) == 1 and " 00000001 BXPC " in acpi[0], acpi
    assert "DMAR: Host address width 48" in lines, "\n".join(l for l in lines if "DMAR" in l)
    assert "DMAR: Host address width 39" not in lines
    assert "DMAR: Intel(R) Virtualization Technology for Directed I/O" in lines
