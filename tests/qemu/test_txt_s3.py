# SPDX-License-Identifier: MIT
"""Issue 39 item 1: S3 through tboot on the TXT platform, with Debian's tboot and kernel through
GRUB under the halt policy. tboot seals its MAC key and MACs the kernel's memory, clears
SECRETS, leaves the measured environment (GETSEC[SEXIT]) and sleeps; the host wakes the VM;
SeaBIOS's resume path locks SMRAM again (seabios patch 0003) and runs tboot's waking vector,
which launches again through GETSEC[SENTER] with our SINIT, unseals the key, checks the MAC and
resumes Linux. PCRs 17 and 18 are then back at the boot's values, which `vtboot-pcr predict
--sinit` gives: the re-launch extends the same SINIT events and tboot extends again what it
measured at the boot. A kernel byte changed while the VM sleeps fails tboot's check: tboot's
policy (halt) caps PCRs 17-19 and halts before Linux runs again.

Debian's tboot 1.10.5 loads its two sealed blobs at each resume and never flushes them (tboot
1.11.0: "flush objects after integrity measurement"): swtpm, like Intel's PTT, holds three
loaded objects, so tboot's seal at the next S3 fails (TPM_RC_OBJECT_MEMORY) and the halt
policy halts. The guest flushing the TPM's transient objects after each resume
(guest/tools/vtboot-tpm-flush) is the workaround the cycles below use."""

import os
import re

import pytest

import vtb
from test_txt_launch import MEMORY_MB, TBOOT_HALTED, TBOOT_HALTS, assert_platform_verified, tboot_lines
from test_txt_sinit import CMDLINE, halt_policy, prediction, txt_launch

CYCLES = 3
RELAUNCHED = "sinit: MLE measured, SinitMleData written"
INTEGRITY_OK = "memory integrity OK"
LEAKED = "".join(f"flushed {h:#x} rc=0x0 " for h in (0x80000000, 0x80000001, 0x80000002))


def s3_launch(cycles, flush=True):
    """The arguments and the run attributes prediction() needs for a boot whose guest suspends
    `cycles` times (guest/init's s3 action), flushing the TPM's objects after each resume."""
    kernel = vtb.debian_generic_kernel()
    cmdline = (f"{CMDLINE} no_console_suspend vtboot.guest=s3 vtboot.s3={cycles}"
               f" vtboot.s3flush={int(flush)}")
    return txt_launch("--grub", kernel, cmdline), dict(
        loader="--grub", kernel=kernel, cmdline=cmdline, policy=halt_policy(),
        initrd=os.path.join(vtb.OUT, "initrd.img"))


def with_files(run, files):
    for k, v in files.items():
        setattr(run, k, v)
    return run


def mac_regions(lines):
    """tboot's "MACing region N:  0xA - 0xB" lines of its last check: [(A, B)]."""
    regions = [tuple(int(x, 16) for x in m.groups()) for m in
               (re.match(r"^MACing region \d+:  0x([0-9a-f]+) - 0x([0-9a-f]+)$", l) for l in lines)
               if m]
    assert regions, "tboot listed no MAC region"
    return regions


@pytest.mark.slow
def test_s3_cycles_relaunch_check_the_mac_and_resume_with_the_predicted_pcrs():
    args, files = s3_launch(CYCLES)
    run = with_files(vtb.Running(*args).sleep_cycles(CYCLES), files)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-2000:]
    assert_platform_verified(run.serial)
    lines = tboot_lines(run)
    assert lines.count("shutdown_system() called for shutdown_type: TB_SHUTDOWN_S3") == CYCLES
    assert lines.count("secrets flag cleared") == CYCLES + 1       # each S3, then the power off
    # every wake is a new launch by our SINIT (SMRAM locked again), checked and resumed by tboot
    assert run.serial.count(RELAUNCHED) == CYCLES + 1, run.serial[-3000:]
    assert lines.count(INTEGRITY_OK) == CYCLES
    assert lines.count("measured launch succeeded") == CYCLES + 1
    assert run.values("s3-resumed") == [f"{i} rc=0 " for i in range(1, CYCLES + 1)]
    # what tboot left loaded at each resume: its primary and the two blobs it unsealed
    assert run.values("s3-flush") == [f"{i} rc=0 {LEAKED}transient-objects=0 "
                                      for i in range(1, CYCLES + 1)]
    # the boot's PCRs and those after each resume: the prediction
    want = prediction(run)
    for p in (17, 18):
        assert run.guest[f"pcr-sha256-{p}"] == want[(p, "sha256")]
        assert run.values(f"s3-pcr-sha256-{p}") == [f"{i} {want[(p, 'sha256')]}"
                                                     for i in range(1, CYCLES + 1)]


@pytest.mark.slow
def test_a_kernel_byte_changed_while_asleep_fails_tboots_check_and_halts():
    """One byte of the kernel's text flipped through the gdbstub while the VM sleeps: the
    re-launch succeeds (tboot and the SINIT are unchanged), tboot's MAC check fails, and under
    the halt policy tboot caps PCRs 17-19 and halts; Linux never runs again."""
    args, files = s3_launch(1)
    running = vtb.Running(*args)
    where = {}

    def flip_kernel_text(_i, qmp):
        with vtb.Gdb(running.gdb_path) as gdb:
            # (Debian's kernel moves itself anywhere in RAM: KASLR)
            addr = vtb.kernel_in_memory(gdb, files["kernel"],
                                        MEMORY_MB * 0x100000 - 0x1000000) + 0x2000
            byte = gdb.read_phys(addr, 1)
            gdb.write_phys(addr, bytes([byte[0] ^ 0xff]))
            where["addr"] = addr

    try:
        vtb.wake_cycles(running.qmp_path, 1, vtb.CYCLE_TIMEOUT, flip_kernel_text)
    except TimeoutError as e:
        raise TimeoutError(f"{e}; {running.abandon('no suspend came in time')}") from e
    run = running.finish_at(TBOOT_HALTS, TBOOT_HALTED)
    assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-3000:]
    lines = tboot_lines(run)
    assert run.serial.count(RELAUNCHED) == 2
    resumed = lines.index("shutdown_system() called for shutdown_type: TB_SHUTDOWN_S3")
    after = lines[resumed:]
    assert INTEGRITY_OK not in after
    assert any(a <= where["addr"] < b for a, b in mac_regions(after)), where
    failed = after.index("memory integrity lost on S3 resume")
    capped = after.index("cap'ed dynamic PCRs", failed)
    assert after.index(TBOOT_HALTS[len("TBOOT: "):], capped) > capped
    assert "s3-resumed" not in run.guest
    assert "ACPI: PM: Waking up from system sleep state S3" not in run.serial


@pytest.mark.slow
def test_debians_tboot_fails_its_second_s3_seal_on_a_three_object_tpm_and_halts():
    """Without the flush: the first S3 resumes, tboot's seal at the second fails with
    TPM_RC_OBJECT_MEMORY (0x902), and the halt policy caps the PCRs and halts."""
    args, _ = s3_launch(2, flush=False)
    running = vtb.Running(*args)
    try:
        vtb.wake_cycles(running.qmp_path, 1, vtb.CYCLE_TIMEOUT)
    except TimeoutError as e:
        raise TimeoutError(f"{e}; {running.abandon('no suspend came in time')}") from e
    run = running.finish_at(TBOOT_HALTS, TBOOT_HALTED)
    assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-3000:]
    assert run.values("s3-resumed") == ["1 rc=0 "]
    lines = tboot_lines(run)
    assert lines.count(INTEGRITY_OK) == 1
    after = lines[lines.index(INTEGRITY_OK):]        # the first resume, then the second S3
    failed = after.index("TPM: Create return value = 00000902")
    assert after[failed + 1:failed + 3] == ["failed to seal data",
                                            "creation or verification of S3 measurements failed."]
    capped = after.index("cap'ed dynamic PCRs", failed)
    assert after.index(TBOOT_HALTS[len("TBOOT: "):], capped) > capped
    assert "shutdown_system() called for shutdown_type: TB_SHUTDOWN_S3" not in after
