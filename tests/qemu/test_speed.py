# SPDX-License-Identifier: MIT
"""Issue 13: a long hash is never silent (a line per 10% past 16 MiB), vtboot says which crypto
paths it picked, and each jump says how long vtboot ran and how much of it was hashing. No
timing assertions: the figures are printed; the tests check the lines' values and order."""

import json
import os
import sys

import pytest

import vtb
from vtb import boot
from test_measured_launch import predictions

MIB = 1 << 20


def test_large_module_reports_progress_and_timing(tmp_path):
    initrd, size = vtb.padded_initrd(tmp_path, 20 * MIB)
    args = ("--initrd", initrd)
    run = boot(*args)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    # the PCRs still equal the prediction: the progress lines changed nothing measured
    assert vtb.guest_pcrs(run) == predictions(*args)

    progress = [l for l in run.vtboot_lines() if l.startswith("hashing module ")]
    assert progress == [f"hashing module 1 ({size} bytes, every bank): {p}%"
                        for p in range(10, 101, 10)]      # the kernel (< 16 MiB) is quiet

    crypto = [l for l in run.vtboot_lines() if l.startswith("crypto: ")]
    # the MLE's start and shutdown_entry (the power off) each choose
    assert crypto == 2 * ["crypto: portable code (QEMU TCG: SIMD is slower there): "
                          "sha1=portable sha256=portable sha512=portable poly1305=portable"]

    jump = vtb.timings(run.vtboot_lines())
    assert len(jump) == 1 and jump[0], run.vtboot_lines()
    j = jump[0]
    assert j.tsc - j.entry == j.ran and 0 < j.hashing < j.ran and j.mhz > 0
    assert j.ran_us == j.ran // j.mhz and j.hashing_us == j.hashing // j.mhz
    assert vtb.entry_tsc(run.vtboot_lines(), "MLE") == [j.entry]
    # the pre-launch half ran first (the boot bench's figure starts there)
    assert 0 < vtb.entry_tsc(run.vtboot_lines(), "pre-launch")[0] < j.entry
    print(f"\nvtboot (MLE) ran {j.ran_us} us, of which hashing {j.hashing_us} us: "
          f"{j.ran / j.hashing:.2f}x the hashing alone, {size} bytes of initrd")


# ---- the boot bench's reading (tests/bench/boot_bench.py): no boot, no clock ------------------

def boot_bench():
    sys.path.insert(0, os.path.join(vtb.ROOT, "tests", "bench"))
    import boot_bench
    return boot_bench


BOOT_LINES = ["timing: pre-launch entry at TSC 1000000",
              "timing: MLE entry at TSC 2000000",
              "timing: jump into Linux at TSC 12000000: 10000000 ticks (10000 us) since the entry "
              "at TSC 2000000, hashing 9000000 ticks (9000 us); TSC 1000 MHz"]
S3_LINES = ["timing: S3 sleep at TSC 30000000: 4000000 ticks (4000 us) since the entry at TSC "
            "26000000, hashing 3000000 ticks (3000 us); TSC 1000 MHz",
            "timing: jump into Linux's S3 resume vector at TSC 40000000: 2000000 ticks (2000 us) "
            "since the entry at TSC 38000000, hashing 1000000 ticks (1000 us); TSC 1000 MHz"]


def test_boot_bench_reads_vtboots_timing_lines():
    b = boot_bench()
    # from the pre-launch entry; an S3 resume's jump is not the boot's
    assert b.guest_run_and_hashing(BOOT_LINES + S3_LINES) == (11.0, 9.0, 10.0)
    assert b.guest_s3_run_and_macing(BOOT_LINES + S3_LINES, 1) == [(6.0, 4.0)]


@pytest.mark.parametrize("lines", [
    BOOT_LINES[1:],                                            # no pre-launch entry
    BOOT_LINES + BOOT_LINES[2:],                               # two jumps
    [BOOT_LINES[0].replace("1000000", "3000000")] + BOOT_LINES[1:],   # entered after the MLE
    BOOT_LINES[:2] + [BOOT_LINES[2].replace(" us)", " ms)")],  # the line's format changed
])
def test_boot_bench_refuses_timing_lines_it_cannot_read(lines):
    with pytest.raises(ValueError):
        boot_bench().guest_run_and_hashing(lines)


def test_boot_bench_refuses_missing_s3_lines():
    with pytest.raises(ValueError):
        boot_bench().guest_s3_run_and_macing(BOOT_LINES + S3_LINES, 2)


def test_boot_bench_waits_for_a_line_only_while_there_is_output():
    """An output that ends without the line fails at once, not after the timeout."""
    r, w = os.pipe()
    os.write(w, b"vtboot: timing: MLE entry at TSC 1\r\nVTBOOT-GUEST: begin\r\n")
    os.close(w)
    lines = vtb.TimedLines(os.fdopen(r, "rb"))
    assert lines.wait(r"VTBOOT-GUEST: begin$", 600) > 0
    with pytest.raises(TimeoutError, match="the output ended"):
        lines.wait(r"VTBOOT-GUEST: s3-resumed=1 ", 600)


def test_boot_bench_direct_boot_drops_only_what_serves_vtboot():
    launcher = ["qemu-system-x86_64", "-nodefaults", "-machine", "pc", "-m", "128",
                "-device", "pvpanic", "-chardev", "pipe,id=com1,path=/t/com1",
                "-serial", "chardev:com1", "-tpmdev", "emulator,id=tpm0,chardev=chrtpm",
                "-device", "tpm-tis,tpmdev=tpm0",
                "-device", "isa-serial,chardev=vsenter,iobase=0x2f8,irq=3",
                "-kernel", "vtboot", "-append", "logging=serial", "-initrd", "bzImage,initrd.img"]
    assert boot_bench().direct_qemu_argv(launcher, "K", "I", "C", "Q") == [
        "qemu-system-x86_64", "-nodefaults", "-machine", "pc", "-m", "128", "-device", "pvpanic",
        "-serial", "stdio", "-chardev", "socket,id=qmp,path=Q,server=on,wait=off",
        "-mon", "chardev=qmp,mode=control", "-kernel", "K", "-initrd", "I", "-append", "C"]


def test_boot_bench_rows(tmp_path):
    b = boot_bench()
    path = str(tmp_path / "bench.json")
    with open(path, "w") as f:
        json.dump([{"figure": "sha1 64KiB MB/s vs OpenSSL"},
                   {"figure": "boot to /init vs -kernel", "ours": 0}], f)
    rows = [b.figure("boot to /init vs -kernel", 12.0, 10.0, "s", 1.1),
            b.figure("S3 cycle vs without vtboot", 3.0, 0.05, "s", None)]
    assert [(r["ratio"], r["met"], r["better"]) for r in rows] == [(1.2, False, "lower"),
                                                                   (60.0, None, "lower")]
    b.merge_json(path, rows)
    with open(path) as f:
        assert json.load(f) == [{"figure": "sha1 64KiB MB/s vs OpenSSL"}] + rows
