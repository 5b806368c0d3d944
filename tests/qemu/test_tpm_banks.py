# SPDX-License-Identifier: MIT
"""Issue 13: TPMs with other PCR banks than the default sha1+sha256. vtboot measures into every
active bank: a TPM with only a SHA-256 bank, and one with all four (SHA-1/256/384/512), launch,
and PCRs 17-19 of each bank equal the independent prediction; the power off caps each bank."""

import re

import vtb
from vtb import boot
from test_measured_launch import launch_inputs

GUEST = "console=ttyS0 panic=-1 vtboot.guest=pcr-all"


def check_banks(banks, pcr_banks_option):
    args = ("--cmdline", GUEST)
    run = boot("--pcr-banks", pcr_banks_option, *args)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    lines = [l for l in run.vtboot_lines() if re.match(r"^TPM 2\.0 \(DID/VID 0x[0-9a-f]{8}\) at locality 2, ", l)]
    assert len(lines) >= 1 and all(l.endswith(f"{len(banks)} PCR bank(s): {' '.join(banks)}")
                                   for l in lines), lines
    modules, cmdline, _, _ = launch_inputs(*args)
    want = vtb.predict(modules, cmdline, banks=banks)
    assert vtb.guest_pcrs(run, banks) == want
    # no other bank appeared in the guest
    others = {k for k in run.guest if k.startswith("pcr-")} - {f"pcr-{b}-{p}" for b in banks
                                                                 for p in range(24)}
    assert not others, others
    assert run.has_vtboot_line(r"^shutdown_entry: S5 \(power off\) \(type 1\) on CPU 0$")
    return run


def test_sha256_only():
    check_banks(("sha256",), "sha256")


def test_four_banks():
    check_banks(("sha1", "sha256", "sha384", "sha512"), "all")
