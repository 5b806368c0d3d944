# SPDX-License-Identifier: MIT
"""Issue 13: a long hash is never silent (a line per 10% past 16 MiB), vtboot says which crypto
paths it picked, and each jump says how long vtboot ran and how much of it was hashing. No
timing assertions: the figures are printed; the tests check the lines' values and order."""

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

