# SPDX-License-Identifier: MIT
"""Issue 5: the kernel hands power transitions to vtboot: power off, reboot and halt end the
launch (PCRs capped), a CPU taken offline parks in vtboot, and S3 keeps the kernel's memory
under a MAC whose key is sealed to the launched PCRs."""

import os
import re
import tempfile

import pytest

import vtb
from kpatch import kernel_lines
from vtb import boot

PARKED = "shutdown_entry: CPU 1 parks in wait-for-SIPI (1 parked)"

GUEST = "console=ttyS0 panic=-1 no_console_suspend"


def check_capped(run, why, launched_pcr17):
    assert run.has_vtboot_line(rf"^capped PCRs 17-19 \({why}\)$")
    after = [l for l in run.vtboot_lines() if l.startswith("  PCR 17 after the cap, sha256: ")]
    assert len(after) == 1
    assert after[0].split(": ")[1] != launched_pcr17


@pytest.mark.parametrize("end,type_line,rc", [
    ("poweroff", "S5 (power off) (type 1)", vtb.POWERED_OFF),
    ("reboot", "reboot (type 0)", vtb.RESET),
    ("halt", "halt (type 4)", vtb.POWERED_OFF),
])
def test_shutdown_goes_through_vtboot(end, type_line, rc):
    run = boot("--cmdline", f"console=ttyS0 panic=-1 vtboot.end={end}")
    assert run.rc == rc, run.stderr
    assert run.has_vtboot_line(rf"^shutdown_entry: {re.escape(type_line)} on CPU 0$")
    why = {"poweroff": "power off", "reboot": "reboot", "halt": "halt"}[end]
    check_capped(run, why, run.guest["pcr-sha256-17"])


def test_sealed_secret_does_not_survive_the_launch():
    """Sealed to the launched PCR 17/18 it unseals in that launch; after a reboot into a
    platform without a dynamic launch it does not."""
    with tempfile.TemporaryDirectory() as state:
        first = boot("--tpm-state", state,
                     "--cmdline", "console=ttyS0 panic=-1 vtboot.guest=seal,unseal vtboot.end=reboot")
        assert first.rc == vtb.RESET, first.stderr
        secret = first.guest["seal-secret-sha256"]
        assert first.guest["unseal"] == f"unseal=ok secret-sha256={secret}"
        check_capped(first, "reboot", first.guest["pcr-sha256-17"])
        blob = first.guest["seal-sealed"]
        second = boot("--tpm-state", state, "--no-drtm",
                      "--cmdline", f"console=ttyS0 panic=-1 vtboot.guest=unseal vtboot.blob={blob}")
        assert second.rc == vtb.POWERED_OFF, second.stderr
        assert second.guest["pcr-sha256-17"] == "ff" * 32
        assert second.guest["unseal"].startswith("unseal=failed rc=0x99d ")   # TPM_RC_POLICY_FAIL


def s3_run(cycles, machine="q35", memory=128, tamper=None):
    """Suspends `cycles` times, waking the guest through QMP after each suspend; tamper(gdb)
    runs while the guest sleeps."""
    r = vtb.Running("--machine", machine, "--memory", str(memory),
                    "--cmdline", f"{GUEST} vtboot.guest=s3 vtboot.s3={cycles}")
    return r.sleep_cycles(cycles, tamper and (lambda i, gdb, qmp: tamper(gdb)))


@pytest.mark.slow
def test_s3_cycles_resume_with_verified_memory():
    cycles = 20
    run = s3_run(cycles)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    verified = [l for l in run.vtboot_lines() if l.startswith("S3: memory integrity verified: ")]
    assert len(verified) == cycles
    assert len([l for l in run.vtboot_lines() if l.startswith("S3: resuming Linux at 0x")]) == cycles
    assert run.values("s3-resumed") == [f"{i} rc=0 " for i in range(1, cycles + 1)]
    # every re-launch put PCR 17 and 18 back where the boot's launch left them, read by the
    # guest after each resume
    for p in (17, 18):
        assert run.values(f"s3-pcr-sha256-{p}") == [f"{i} {run.guest[f'pcr-sha256-{p}']}"
                                                     for i in range(1, cycles + 1)]
    assert run.guest["pcr-sha256-17"] != "ff" * 32
    assert run.has_vtboot_line(r"^shutdown_entry: S5 \(power off\) \(type 1\) on CPU 0$")


def test_s3_tamper_is_detected():
    """One byte of kernel text changed through the gdbstub while the guest sleeps."""
    where = {}

    def flip_kernel_text(gdb):
        addr = vtb.kernel_in_memory(gdb, os.path.join(vtb.OUT, "bzImage")) + 0x2000   # its text
        byte = gdb.read_phys(addr, 1)
        gdb.write_phys(addr, bytes([byte[0] ^ 0xff]))
        where["addr"] = addr

    run = s3_run(1, tamper=flip_kernel_text)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    m = [re.match(r"^ERROR: S3: memory integrity FAILED: MAC region (\d+) \(0x([0-9a-f]+)\+0x([0-9a-f]+)\) "
                  r"changed while suspended$", l) for l in run.vtboot_lines()]
    m = [x for x in m if x]
    assert len(m) == 1, run.serial[-3000:]
    start, size = int(m[0].group(2), 16), int(m[0].group(3), 16)
    assert start <= where["addr"] < start + size
    assert run.has_vtboot_line(r"^ERROR: HALT: S3 integrity check failed$")
    assert not run.has_vtboot_line(r"^S3: resuming Linux")
    assert "s3-resumed" not in run.guest


def test_cpu_offline_online_parks_in_vtboot():
    """CPU 1 offline then online, twice: each offline ends in vtboot's wait-for-SIPI, each
    online brings the CPU back with INIT-SIPI-SIPI and it works."""
    run = boot("--smp", "2", "--cmdline", "console=ttyS0 panic=-1 vtboot.guest=cpuhp,memlog,dmesg vtboot.cpuhp=2")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    # the parked CPU logs to vtboot's memory log only (Linux owns COM1 by then)
    assert run.memlog_lines().count(PARKED) == 2
    offline = run.values("cpuhp-offline")
    online = run.values("cpuhp-online")
    assert [o.split()[:2] for o in offline] == [["1", "rc=0"], ["2", "rc=0"]]
    assert [o.split()[:2] for o in online] == [["1", "rc=0"], ["2", "rc=0"]]
    assert all("state=0" in o for o in offline) and all("state=1" in o for o in online)
    assert kernel_lines(run).count("smpboot: Booting Node 0 Processor 1 APIC 0x1") == 2


def test_s3_with_an_offline_cpu_and_two_cpus():
    """With two CPUs, Linux parks the second in vtboot before S3 and brings it back after."""
    run = vtb.Running("--smp", "2", "--memory", "128",
                      "--cmdline", f"{GUEST} vtboot.guest=s3,memlog vtboot.s3=2").sleep_cycles(2)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.values("s3-resumed") == ["1 rc=0 ", "2 rc=0 "]
    assert run.memlog_lines().count(PARKED) == 2
    assert len([l for l in run.vtboot_lines() if l.startswith("S3: memory integrity verified")]) == 2
