# SPDX-License-Identifier: MIT
"""The emulated Intel TXT CPU (issue 20, docs/txt-platform.md section 2, qemu/patches 0002):
out/bin/qemu-system-x86_64-txt (qemu/build.sh) boots host/tests/guest/getsec.c with -kernel,
which probes the CPU the way tboot and Linux do and prints exact lines on COM1; Debian's stock
QEMU is the control.

The patched binary is part of `make` (BUILD, qemu/qemu.mk): when it is missing these tests fail,
they never skip."""
import os
import subprocess
import tempfile

import pytest

from vtb import OUT, keep_evidence

TXT_QEMU = os.path.join(OUT, "bin", "qemu-system-x86_64-txt")
STOCK_QEMU = "/usr/bin/qemu-system-x86_64"
GETSEC = os.path.join(OUT, "host", "tests", "getsec.elf")

# IA32_FEATURE_CONTROL at reset: LOCK (0), SENTER local enables (14:8), SENTER global (15)
FEATURE_CONTROL = 0xFF01
# IA32_PLATFORM_ID: the "platform-id" CPU property's default, platform ID bits 52:50 = 1
PLATFORM_ID = 0x0004000000000000


def need(path, how):
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing: {how}", pytrace=False)
    return path


def txt_qemu():
    return need(TXT_QEMU, "build it with `make out/bin/qemu-system-x86_64-txt` (qemu/build.sh; "
                          "`make` and `make test` build it)")


def symbol(name):
    """The address of a symbol of getsec.elf (the probes' instructions, getsec.S)."""
    out = subprocess.run(["nm", need(GETSEC, "make out/host/tests/getsec.elf")],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    raise AssertionError(f"getsec.elf has no symbol {name}")


def run_getsec(qemu, case, cpu="max", timeout=30, expect_timeout=False):
    """Boots getsec.elf with case=CASE on QEMU binary `qemu`; returns its GETSEC: lines for the
    case (without the "GETSEC: <case>: " prefix) and whether it timed out. A timeout that was
    not expected keeps the serial log (vtb.keep_evidence) and fails."""
    need(GETSEC, "make out/host/tests/getsec.elf")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "serial.log")
        cmd = [qemu, "-machine", "q35", "-accel", "tcg", "-cpu", cpu, "-m", "128",
               "-display", "none", "-nodefaults", "-no-reboot", "-monitor", "none",
               "-serial", f"file:{log}", "-kernel", GETSEC, "-append", f"case={case}"]
        timed_out = False
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=timeout)
            stderr = p.stdout
        except subprocess.TimeoutExpired as e:
            timed_out = True
            stderr = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        with open(log, errors="replace") as f:
            serial = f.read()
    if timed_out and not expect_timeout:
        pytest.fail(keep_evidence(serial, f"{' '.join(cmd)}\n{stderr}",
                                  f"getsec case={case} timed out after {timeout}s"),
                    pytrace=False)
    if not timed_out:
        assert p.returncode == 0, f"{qemu} exited {p.returncode}: {stderr}\nserial:\n{serial}"
    prefix = f"GETSEC: {case}: "
    assert "GETSEC: FAILED" not in serial, serial
    lines = [l[len(prefix):] for l in serial.splitlines() if l.startswith(prefix)]
    assert lines and lines[0] == "start", f"getsec did not start case={case}:\n{serial}"
    return lines, timed_out


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
    lines, timed_out = run_getsec(need(STOCK_QEMU, "apt-get install qemu-system-x86"), "cpuid",
                                  timeout=15, expect_timeout=True)
    assert value(lines, "CPUID.1:ECX.SMX") == ["0"], lines
    assert value(lines, "CPUID.1:ECX.SSE3") == ["1"], lines
    assert lines[-1] == "CR4 = 0x0", lines
    assert timed_out, lines
