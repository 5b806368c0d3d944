# SPDX-License-Identifier: MIT
"""VT-d's protected memory regions on the emulated TXT platform (issue 20, docs/txt-platform.md
"0009", qemu/patches 0009): out/bin/qemu-system-x86_64-txt with `-machine q35,txt=on`,
`-device intel-iommu` and `-device edu` boots host/tests/guest/getsec.elf, whose PMR cases
(getsec_pmr.c) find the remapping unit through the ACPI DMAR table, program PLMBASE/PLMLIMIT
over [0x400000, 0x600000), set PMEN.EPM and let edu copy 64 bytes into pages inside and around
the region: a DMA into the region leaves the guest's bytes (0xee) alone, one outside lands,
with translation off (case=pmr) and on (case=pmr-te: edu in pass-through, then remapped to an
IOVA whose page is protected); EPM cleared, it lands again. The chipset's locked DPR (heap and
SINIT) is closed to DMA always (case=dpr). The controls, which must differ:
`x-pmr=off` on the same binary, txt=off (the property follows the machine) and Debian's stock
QEMU: CAP.PLMR/PHMR 0, the registers read 0 and every copy lands.

The patched binary is part of `make` (BUILD, qemu/qemu.mk): when it is missing these tests
fail, they never skip."""
import hashlib
import os

import pytest

import getsec_guest
from getsec_guest import GETSEC, need, stock_qemu, symbol, txt_qemu
from test_txt_acmode import PROJECT_KEY, key_hash
from test_txt_chipset import layout
from test_txt_senter import senter_event_data
from vtb import OUT

COPY = 64
FILL = 0xEE
SECRET = 0x5A
PATTERN = bytes((i * 7 + 1) & 0xFF for i in range(COPY))   # getsec_pmr.c's pattern()
DEVICES = ["-device", "intel-iommu", "-device", "edu"]
VTD_BASE = 0xFED90000                   # q35's DRHD (Q35_HOST_BRIDGE_IOMMU_ADDR), from the DMAR
EDU_IDENT = 0x010000ED
PMR_BASE = 0x400000                     # PLMBASE = PLMLIMIT: one 2 MiB block
GRAN = 2 << 20
AW_BITS = 39                            # intel-iommu's default aw-bits
PMEN_EPM, PMEN_PRS = 1 << 31, 1


def u64(b):
    return int.from_bytes(b[:8], "little")


def landed(what):
    return f"DMA to {what} = {u64(PATTERN):#x}, {COPY}/{COPY} bytes copied"


def blocked(what):
    return f"DMA to {what} = {u64(bytes([FILL] * 8)):#x}, 0/{COPY} bytes copied"


def run(qemu, case, machine="q35,txt=on", devices=DEVICES):
    lines, _ = getsec_guest.run_getsec(qemu, case, machine=machine, extra=devices)
    assert lines[-1] == "done", f"case={case} did not run to its end: {lines}"
    return lines


def head(pmr):
    return ["start", f"DMAR DRHD register base = {VTD_BASE:#x}", "edu: found",
            f"edu ident = {EDU_IDENT:#x}", f"CAP.PLMR = {int(pmr):#x}",
            f"CAP.PHMR = {int(pmr):#x}"]


def pmr_expected(pmr=True):
    """case=pmr's lines: with the PMRs (pmr) or without them (the registers read-only 0)."""
    low_mask = 0xFFFFFFFF & ~(GRAN - 1)
    high_mask = ((1 << AW_BITS) - 1) & ~(GRAN - 1)
    r = (lambda v: v) if pmr else (lambda v: 0)
    stop = blocked if pmr else landed
    return [*head(pmr), "PMEN = 0x0",
            f"PLMLIMIT after all-ones = {r(low_mask):#x}",
            f"PHMLIMIT after all-ones = {r(high_mask):#x}",
            f"PHMBASE = {r(GRAN):#x}", "PHMLIMIT = 0x0",
            f"PLMBASE = {r(PMR_BASE):#x}", f"PLMLIMIT = {r(PMR_BASE):#x}",
            landed("0x401000 before EPM"),
            f"PMEN after EPM=1 = {r(PMEN_EPM | PMEN_PRS):#x}",
            # the range registers do not change while the regions are enabled
            f"PLMBASE after writing 0 while enabled = {r(PMR_BASE):#x}",
            stop("0x401000 (protected)"),
            # the limit is inclusive of its 2 MiB block
            stop("0x5ff000 (the region's last page)"),
            landed("0x3ff000 (below the region)"),
            landed("0x600000 (above the region)"),
            # a blocked DMA read gives edu zeros (QEMU's unassigned memory), not the secret
            f"edu's copy of the protected buffer = {0 if pmr else u64(bytes([SECRET] * 8)):#x}",
            "PMEN after EPM=0 = 0x0",
            landed("0x401000 after EPM=0"),
            "done"]


def pmr_te_expected(pmr=True):
    r = (lambda v: v) if pmr else (lambda v: 0)
    stop = blocked if pmr else landed
    return [*head(pmr), "ECAP.PT = 0x1",
            f"PLMBASE = {r(PMR_BASE):#x}", f"PLMLIMIT = {r(PMR_BASE):#x}",
            "GSTS after TE = 0xc0000000",   # TES and RTPS
            f"PMEN after EPM=1 = {r(PMEN_EPM | PMEN_PRS):#x}",
            "edu in pass-through",
            stop("0x401000 (protected)"),
            landed("0x600000 (above the region)"),
            "edu remapped",
            stop("IOVA 0xa000000 -> 0x401000 (protected)"),
            landed("IOVA 0xa001000 -> 0x600000 (above the region)"),
            "PMEN after EPM=0 = 0x0",
            landed("IOVA 0xa000000 -> 0x401000 after EPM=0"),
            "done"]


def dpr_expected(blocking=True, mem=128):
    """case=dpr's lines on txt=on: the chipset's DPR (layout of test_txt_chipset) and edu's
    copies into it, blocked by intel-iommu with the PMRs (blocking) or landing without."""
    dpr = layout(mem)["DPR"]
    stop = blocked if blocking else landed
    return [*head(blocking), f"TXT DPR = {dpr:#x}", "PMEN = 0x0", "GSTS = 0x0",
            stop("HEAP.BASE + 0x10000"), stop("the DPR's last page"),
            landed("0x600000 (outside)"), "done"]


def test_txt_dma_pmr_blocks_dma_with_translation_off():
    """txt=on gives intel-iommu the PMRs: 2 MiB granularity, PRS mirrors EPM, base/limit
    frozen while enabled; edu's DMA into the region (its first and last page) is dropped, DMA
    around it lands, a DMA read of it gets no secret, and with EPM cleared it lands again."""
    assert run(txt_qemu(), "pmr") == pmr_expected()


def test_txt_dma_pmr_blocks_pass_through_and_remapped_dma():
    """Translation on (root and context tables inside the protected region: the remapping
    unit's own reads are not subject to the PMRs): edu in pass-through and remapped to an IOVA
    whose page is protected is blocked; the page above lands; EPM cleared, it lands."""
    assert run(txt_qemu(), "pmr-te") == pmr_te_expected()


def test_txt_dma_dpr_is_blocked_always():
    """The TXT chipset's locked DPR (heap, SINIT) is closed to DMA with EPM clear and
    translation off: edu's copies into the heap and the DPR's last page are dropped."""
    assert run(txt_qemu(), "dpr") == dpr_expected()


def test_txt_dma_dpr_without_pmr_lands():
    """The control: with x-pmr=off intel-iommu knows nothing of the DPR, the copies land."""
    devices = ["-device", "intel-iommu,x-pmr=off", "-device", "edu"]
    assert run(txt_qemu(), "dpr", devices=devices) == dpr_expected(blocking=False)


@pytest.mark.parametrize("machine,iommu", [
    ("q35,txt=on", "intel-iommu,x-pmr=off"),
    ("q35", "intel-iommu"),
], ids=["x-pmr=off", "txt=off"])
def test_txt_dma_without_pmr_every_copy_lands(machine, iommu):
    """The controls on the same binary: no PMRs (CAP bits 0, registers read 0), so the copies
    the PMR tests expect blocked land; the secret is read back."""
    devices = ["-device", iommu, "-device", "edu"]
    assert run(txt_qemu(), "pmr", machine=machine, devices=devices) == pmr_expected(pmr=False)


def test_txt_dma_x_pmr_on_without_txt():
    """x-pmr=on gives the PMRs on a plain q35 too (the property, not the TXT device, does)."""
    devices = ["-device", "intel-iommu,x-pmr=on", "-device", "edu"]
    assert run(txt_qemu(), "pmr-te", machine="q35", devices=devices) == pmr_te_expected()


def test_stock_qemu_has_no_pmr():
    """The control on Debian's QEMU: the same guest sees no PMRs and every copy lands."""
    assert run(stock_qemu(), "pmr", machine="q35") == pmr_expected(pmr=False)
    assert run(stock_qemu(), "pmr-te", machine="q35") == pmr_te_expected(pmr=False)


def mle_bytes():
    """getsec.elf's .mle section: the MLE our SINIT measures (getsec.S)."""
    from elftools.elf.elffile import ELFFile
    with open(need(GETSEC, "make out/host/tests/getsec.elf"), "rb") as f:
        return ELFFile(f).get_section_by_name(".mle").data()


def test_our_sinit_sets_pmrs_that_keep_dma_out_of_the_measured_mle():
    """case=sinit-dma: out/sinit.bin launched by GETSEC[SENTER] into getsec's own MLE (heap,
    MTRRs and page table laid out as tboot does, getsec_launch.c). The SINIT measured the MLE
    (PCR 17 recomputed here: SENTER's event, then the SINIT's details events over S-CRTM status
    0, OsSinitData capabilities 0x201, policy control 0, and the MLE's two pages) and set the
    low PMR [0, 8 MiB) on the DRHD; edu, loaded before the launch, copies into the MLE's
    measured page: blocked, the guest sees its own 0xee; above the region the copy lands."""
    with open(need(os.path.join(OUT, "sinit.bin"), "make out/sinit.bin"), "rb") as f:
        acm = f.read()
    e = lambda p, data: hashlib.sha256(p + hashlib.sha256(data).digest()).digest()
    pcr17 = bytes(32)
    for data in (senter_event_data(acm), bytes(4), (0x201).to_bytes(4, "little"), bytes(4),
                 mle_bytes()):
        pcr17 = e(pcr17, data)
    with getsec_guest.swtpm_tis() as tis:
        lines, _ = getsec_guest.run_getsec(
            txt_qemu(), "sinit-dma", machine="q35,txt=on",
            extra=DEVICES + ["-global", f"intel-txt.sinit-key-hash={key_hash(PROJECT_KEY)}"] + tis,
            modules=[os.path.join(OUT, "sinit.bin")])
    entry = symbol("mle_entry")
    assert lines == head(True) + [
        "SENTER: ok", f"MLE entered at = {entry:#x}", f"MLE entry = {entry:#x}",
        "ERRORCODE = 0x0",
        "public STS = 0x10081",              # SENTER.DONE, private space open, locality 2 open
        f"PCR 17 = {pcr17.hex()}",
        f"PMEN = {PMEN_EPM | PMEN_PRS:#x}", "PLMBASE = 0x0", "PLMLIMIT = 0x600000",
        blocked("the MLE's page"), landed("the page above the low PMR"), "done"], lines
