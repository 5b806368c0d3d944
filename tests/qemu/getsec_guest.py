# SPDX-License-Identifier: MIT
"""Running host/tests/guest/getsec.elf (the TXT CPU and chipset probes) on a QEMU binary, for
tests/qemu/test_txt_cpu.py and test_txt_chipset.py. The patched binary is part of `make`
(BUILD, qemu/qemu.mk): when it is missing the tests fail, they never skip."""
import contextlib
import os
import subprocess
import tempfile
import time

import pytest

from vtb import OUT, keep_evidence

TXT_QEMU = os.path.join(OUT, "bin", "qemu-system-x86_64-txt")
TXT_BIOS = os.path.join(OUT, "bios-txt.bin")
STOCK_QEMU = "/usr/bin/qemu-system-x86_64"
GETSEC = os.path.join(OUT, "host", "tests", "getsec.elf")


def need(path, how):
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing: {how}", pytrace=False)
    return path


@contextlib.contextmanager
def swtpm_tis():
    """A fresh swtpm for one run: yields the QEMU arguments of a tpm-tis on it."""
    with tempfile.TemporaryDirectory() as tmp:
        state = os.path.join(tmp, "state")
        os.mkdir(state)
        ctrl = os.path.join(tmp, "ctrl.sock")
        sw = subprocess.Popen(["swtpm", "socket", "--tpm2", "--tpmstate", f"dir={state}",
                               "--ctrl", f"type=unixio,path={ctrl}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(200):
                if os.path.exists(ctrl):
                    break
                time.sleep(0.05)
            assert os.path.exists(ctrl), "swtpm did not create its control socket"
            yield ["-chardev", f"socket,id=chrtpm,path={ctrl}",
                   "-tpmdev", "emulator,id=tpm0,chardev=chrtpm", "-device", "tpm-tis,tpmdev=tpm0"]
        finally:
            sw.terminate()
            sw.wait(timeout=10)


def txt_qemu():
    return need(TXT_QEMU, "build it with `make out/bin/qemu-system-x86_64-txt` (qemu/build.sh; "
                          "`make` and `make test` build it)")


def stock_qemu():
    return need(STOCK_QEMU, "apt-get install qemu-system-x86")


def symbol(name):
    """The address of a symbol of getsec.elf (the probes' instructions, getsec.S)."""
    out = subprocess.run(["nm", need(GETSEC, "make out/host/tests/getsec.elf")],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    raise AssertionError(f"getsec.elf has no symbol {name}")


def run_getsec(qemu, case, cpu="max", machine="q35", mem=128, smp=1, extra=(), reboot=False,
               timeout=90, expect_timeout=False, modules=()):
    """Boots getsec.elf with case=CASE on QEMU binary `qemu`; returns its lines for the case
    (without the "GETSEC: <case>: " prefix) and whether it timed out. A timeout that was not
    expected keeps the serial log (vtb.keep_evidence) and fails; so does a run that does not
    start the case or reports a fault outside a probe. With reboot, a guest reset reboots in
    the same process (the case powers off at its end). modules: files QEMU's multiboot loader
    passes as multiboot modules, in order (paths without commas: -initrd separates them with
    commas)."""
    need(GETSEC, "make out/host/tests/getsec.elf")
    # the TXT platform boots its own firmware (seabios/: SMRAM locked, MMIO uncached), as
    # vtboot-qemu --txt does
    firmware = ["-bios", need(TXT_BIOS, "make out/bios-txt.bin")] if qemu == TXT_QEMU else []
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "serial.log")
        cmd = [qemu, "-machine", machine, "-accel", "tcg", "-cpu", cpu, "-m", str(mem),
               "-smp", str(smp), "-display", "none", "-nodefaults", "-monitor", "none",
               "-serial", f"file:{log}", "-kernel", GETSEC, "-append", f"case={case}",
               *firmware, *extra] + ([] if reboot else ["-no-reboot"])
        if modules:
            assert not any("," in m for m in modules), modules
            cmd += ["-initrd", ",".join(modules)]
        timed_out = False
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=timeout)
            out = p.stdout
        except subprocess.TimeoutExpired as e:
            timed_out = True
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        with open(log, errors="replace") as f:
            serial = f.read()
    if timed_out and not expect_timeout:
        pytest.fail(keep_evidence(serial, f"{' '.join(cmd)}\n{out}",
                                  f"getsec case={case} timed out after {timeout}s"),
                    pytrace=False)
    if not timed_out:
        assert p.returncode == 0, f"{' '.join(cmd)} exited {p.returncode}: {out}\n{serial}"
    assert "GETSEC: FAILED" not in serial and "unexpected" not in serial, serial
    prefix = f"GETSEC: {case}: "
    lines = [l[len(prefix):] for l in serial.splitlines() if l.startswith(prefix)]
    assert lines and lines[0] == "start", f"getsec did not start case={case}:\n{serial}"
    return lines, timed_out
