# SPDX-License-Identifier: MIT
"""The emulated Intel TXT CPU (issue 20, docs/txt-platform.md section 2, qemu/patches 0002):
out/bin/qemu-system-x86_64-txt (qemu/build.sh) boots host/tests/guest/getsec.c with -kernel,
which probes the CPU the way tboot and Linux do and prints exact lines on COM1; Debian's stock
QEMU is the control.

The patched binary is part of `make` (BUILD, qemu/qemu.mk): when it is missing these tests fail,
they never skip."""
import re

import pytest

from getsec_guest import run_getsec, stock_qemu, symbol, txt_qemu

# IA32_FEATURE_CONTROL at reset: LOCK (0), SENTER local enables (14:8), SENTER global (15)
FEATURE_CONTROL = 0xFF01
# IA32_PLATFORM_ID: the "platform-id" CPU property's default, platform ID bits 52:50 = 1
PLATFORM_ID = 0x0004000000000000


def value(lines, key):
    """The value of the line "<key> = <value>"."""
    found = [l.split(" = ", 1)[1] for l in lines if l.startswith(key + " = ")]
    assert len(found) >= 1, f"no line '{key} = ...' in {lines}"
    return found


def test_txt_cpu_has_smx_cr4_smxe_and_locked_feature_control():
    lines, _ = run_getsec(txt_qemu(), "cpuid")
    wrmsr = symbol("probe_wrmsr_insn")
    body = [l for l in lines if not l.startswith(("CPUID.1:EAX", "CPUID.1:ECX ="))]
    assert body == [
        "start",
        "CPUID.1:ECX.SSE3 = 1",
        "CPUID.1:ECX.MONITOR = 1",
        "CPUID.1:ECX.SMX = 1",
        "CR4 = 0x0",
        "MOV CR4 |= SMXE: ok",
        "CR4.SMXE = 1",
        f"RDMSR 0x3a = {FEATURE_CONTROL:#x}",
        f"WRMSR 0x3a (the value read): #GP(0) at {wrmsr:#x}",
        f"RDMSR 0x3a = {FEATURE_CONTROL:#x}",
        f"RDMSR 0x17 = {PLATFORM_ID:#x}",
        "done",
    ], lines


def test_txt_cpu_platform_id_is_the_cpu_property():
    other = 0x0010000000000000          # platform ID bits 52:50 = 4
    lines, _ = run_getsec(txt_qemu(), "cpuid", cpu=f"max,platform-id={other:#x}")
    assert value(lines, "RDMSR 0x17") == [f"{other:#x}"], lines
    assert value(lines, "CPUID.1:ECX.SMX") == ["1"], lines
    assert lines[-1] == "done", lines


def test_txt_cpu_without_smx_cr4_smxe_is_gp0():
    """-cpu max,-smx on the patched binary: CR4.SMXE is reserved, MOV CR4 is #GP(0); the
    feature-control MSR reads 0 and ignores writes as stock TCG does."""
    lines, _ = run_getsec(txt_qemu(), "cpuid", cpu="max,-smx")
    cr4 = symbol("probe_write_cr4_insn")
    body = [l for l in lines if not l.startswith(("CPUID.1:EAX", "CPUID.1:ECX ="))]
    assert body == [
        "start",
        "CPUID.1:ECX.SSE3 = 1",
        "CPUID.1:ECX.MONITOR = 1",
        "CPUID.1:ECX.SMX = 0",
        "CR4 = 0x0",
        f"MOV CR4 |= SMXE: #GP(0) at {cr4:#x}",
        "RDMSR 0x3a = 0x0",
        "WRMSR 0x3a (the value read): ok",
        "RDMSR 0x3a = 0x0",
        f"RDMSR 0x17 = {PLATFORM_ID:#x}",
        "done",
    ], lines


def test_stock_qemu_has_no_smx_and_no_cr4_smxe():
    """The control: Debian's QEMU 7.2 has no CPUID.SMX, and MOV to CR4 with SMXE never
    completes: stock 7.2 handles a reserved CR4 bit as an SVM #VMEXIT (cpu_vmexit with
    SVM_EXIT_ERR) even outside an SVM guest, so the guest gets neither SMXE nor the #GP(0) the
    SDM gives (patch 0002 makes it #GP(0), the test above). The boot is expected to hang there."""
    lines, timed_out = run_getsec(stock_qemu(), "cpuid",
                                  timeout=15, expect_timeout=True)
    assert value(lines, "CPUID.1:ECX.SMX") == ["0"], lines
    assert value(lines, "CPUID.1:ECX.SSE3") == ["1"], lines
    assert lines[-1] == "CR4 = 0x0", lines
    assert timed_out, lines


# ---- GETSEC (patch 0003) ----------------------------------------------------------------------
# GETSEC[CAPABILITIES] (SDM vol. 2D 7.x): bit 0 "chipset present", then one bit per leaf:
# ENTERACCS 2, EXITAC 3, SENTER 4, SEXIT 5, PARAMETERS 6, SMCTRL 7, WAKEUP 8
LEAF_BITS = sum(1 << leaf for leaf in (2, 3, 4, 5, 6, 7, 8))
LEAVES = {0: "CAPABILITIES", 2: "ENTERACCS", 3: "EXITAC", 4: "SENTER", 5: "SEXIT",
          6: "PARAMETERS", 7: "SMCTRL", 8: "WAKEUP"}
SMXE_ON = ["MOV CR4 |= SMXE: ok", "CR4.SMXE = 1"]


def getsec_line(name, ebx, eax=None, ebx_out=None, ecx=0, fault=None):
    if fault:
        return f"GETSEC[{name}] EBX={ebx:#x}: {fault} at {symbol('probe_getsec_insn'):#x}"
    return (f"GETSEC[{name}] EBX={ebx:#x}: EAX={eax:#x} EBX={ebx if ebx_out is None else ebx_out:#x} "
            f"ECX={ecx:#x}")


def txt_machine():
    """q35 with the TXT chipset (patch 0004); a binary without it fails here, never skips."""
    return "q35,txt=on"


@pytest.mark.parametrize("chipset", [True, False])
def test_getsec_capabilities(chipset):
    """CAPABILITIES: every leaf, and bit 0 only with the TXT chipset (-machine q35,txt=on, patch
    0004); EBX != 0 asks for an index that does not exist: EAX = 0."""
    lines, _ = run_getsec(txt_qemu(), "caps", machine=txt_machine() if chipset else "q35")
    assert lines == ["start", *SMXE_ON,
                     getsec_line("CAPABILITIES", 0, eax=LEAF_BITS | int(chipset)),
                     getsec_line("CAPABILITIES", 1, eax=0),
                     "done"], lines


def test_getsec_parameters_as_tboot_reads_them():
    """PARAMETERS by index (SDM GETSEC[PARAMETERS], docs/txt-platform.md 0003): AC module
    header version 0 only, 256 KiB of AC execution area, WB the AC-mode memory type, TXT
    extensions without processor S-CRTM or MCE preservation, then type 0 (no more); checked
    the way tboot's get_parameters decodes them."""
    lines, _ = run_getsec(txt_qemu(), "params", machine=txt_machine())
    got = {}
    for l in lines[3:-1]:
        m = re.fullmatch(r"GETSEC\[PARAMETERS\] EBX=(0x[0-9a-f]+): EAX=(0x[0-9a-f]+) "
                         r"EBX=(0x[0-9a-f]+) ECX=(0x[0-9a-f]+)", l)
        assert m, lines
        got[int(m.group(1), 16)] = tuple(int(g, 16) for g in m.groups()[1:])
    assert lines[:3] == ["start", *SMXE_ON] and lines[-1] == "done", lines
    assert sorted(got) == [0, 1, 2, 3, 4, 5], lines
    types = {i: eax & 0x1f for i, (eax, _, _) in got.items()}
    assert types == {0: 1, 1: 2, 2: 3, 3: 5, 4: 0, 5: 0}, got
    # type 1: version mask and version; tboot compares acm header_ver & mask == version
    assert got[0][1:] == (0xFFFFFFFF, 0), got
    # type 2: EAX[31:5] * 32 bytes = the largest SINIT
    assert got[1][0] & ~0x1f == 256 * 1024, got
    # type 3: EAX[31:8], bit 8 + MTRR type: write-back (6) only
    assert got[2][0] & ~0xff == 1 << (8 + 6), got
    # type 5: bit 5 processor S-CRTM, bit 6 MCE handling: neither
    assert got[3][0] & 0x60 == 0, got
    assert got[4] == got[5] == (0, 0, 0), got


def test_getsec_other_leaves_fault_before_a_launch():
    """With EBX = ECX = 0: ENTERACCS is #GP(0) for a module of size 0 and EXITAC outside
    authenticated-code mode (patch 0005; test_txt_acmode.py runs a module); SENTER, SEXIT and
    WAKEUP until patches 0006-0007; SMCTRL outside the measured environment."""
    lines, _ = run_getsec(txt_qemu(), "leaves", machine=txt_machine())
    assert lines == ["start", *SMXE_ON,
                     *[getsec_line(LEAVES[leaf], 0, fault="#GP(0)") for leaf in (2, 3, 4, 5, 7, 8)],
                     "done"], lines


def test_getsec_without_cr4_smxe_is_ud():
    lines, _ = run_getsec(txt_qemu(), "nosmxe", machine=txt_machine())
    assert lines == ["start", "MOV CR4 &= ~SMXE: ok", "CR4.SMXE = 0",
                     *[getsec_line(LEAVES.get(leaf, "1"), 0, fault="#UD") for leaf in range(9)],
                     "done"], lines


def test_getsec_without_smx_is_ud():
    """-cpu max,-smx: CR4.SMXE cannot be set, so GETSEC is #UD."""
    lines, _ = run_getsec(txt_qemu(), "caps", cpu="max,-smx", machine=txt_machine())
    cr4 = symbol("probe_write_cr4_insn")
    assert lines == ["start", f"MOV CR4 |= SMXE: #GP(0) at {cr4:#x}",
                     getsec_line("CAPABILITIES", 0, fault="#UD"),
                     getsec_line("CAPABILITIES", 1, fault="#UD"), "done"], lines


def test_getsec_unknown_leaves_are_ud():
    lines, _ = run_getsec(txt_qemu(), "leaf9", machine=txt_machine())
    assert lines == ["start", *SMXE_ON, getsec_line("1", 0, fault="#UD"),
                     getsec_line("9", 0, fault="#UD"), getsec_line("0x80000000", 0, fault="#UD"),
                     "done"], lines


def test_getsec_with_a_prefix_is_ud():
    lines, _ = run_getsec(txt_qemu(), "prefix", machine=txt_machine())
    assert lines == ["start", *SMXE_ON, "GETSEC[CAPABILITIES] without a prefix: ok",
                     f"LOCK GETSEC: #UD at {symbol('probe_getsec_lock_insn'):#x}",
                     f"REPNE GETSEC: #UD at {symbol('probe_getsec_repne_insn'):#x}",
                     f"REP GETSEC: #UD at {symbol('probe_getsec_rep_insn'):#x}",
                     f"66 GETSEC: #UD at {symbol('probe_getsec_opsize_insn'):#x}",
                     "done"], lines
