# SPDX-License-Identifier: MIT
"""Issue 13: a long hash is never silent (a line per 10% past 16 MiB), vtboot says which crypto
paths it picked, and each jump says how long vtboot ran and how much of it was hashing. No
timing assertions: the figures are printed; the tests check the lines' values and order."""

import os
import re

import vtb
from vtb import boot
from test_measured_launch import predictions

MIB = 1 << 20


def padded_initrd(tmp_path, pad):
    """The test initrd's archive, uncompressed (the launcher would unpack a gzip'd one, and gzip
    drops trailing zeros), followed by `pad` zero bytes (Linux skips zeros between archives)."""
    data = vtb.image_bytes(os.path.join(vtb.OUT, "initrd.img")) + bytes(pad)
    path = tmp_path / "initrd-padded.img"
    path.write_bytes(data)
    return str(path), len(data)


def test_large_module_reports_progress_and_timing(tmp_path):
    initrd, size = padded_initrd(tmp_path, 20 * MIB)
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

    jump = [re.match(r"^timing: jump into Linux at TSC (\d+): (\d+) ticks \((\d+) us\) since the "
                     r"entry at TSC (\d+), hashing (\d+) ticks \((\d+) us\); TSC (\d+) MHz$", l)
            for l in run.vtboot_lines() if l.startswith("timing: jump into Linux")]
    assert len(jump) == 1 and jump[0], run.vtboot_lines()
    now, ran, ran_us, entry, hashing, hashing_us, mhz = map(int, jump[0].groups())
    assert now - entry == ran and 0 < hashing < ran and mhz > 0
    assert ran_us == ran // mhz and hashing_us == hashing // mhz
    entries = [l for l in run.vtboot_lines() if l == f"timing: MLE entry at TSC {entry}"]
    assert len(entries) == 1
    print(f"\nvtboot (MLE) ran {ran_us} us, of which hashing {hashing_us} us: "
          f"{ran / hashing:.2f}x the hashing alone, {size} bytes of initrd")
