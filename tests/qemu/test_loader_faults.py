# SPDX-License-Identifier: MIT
"""Issue 13, bad loader input in a real boot: badload (host/tests/guest/badload.c), a multiboot1
loader with vtboot built in, loads vtboot's ELF itself and hands it malformed information, as
whoever controls the loader can. Each fault gets vtboot's own line and the policy's outcome."""

import hashlib
import os

import vtb
from vtb import boot

BADLOAD = os.path.join(vtb.OUT, "host", "tests", "badload.elf")
# what vtboot gets: badload takes its fault=... word out of QEMU's command line
VTBOOT_CMDLINE = "badload.elf logging=serial,memory loglvl=all"


def badload(fault, *args):
    run = boot("--vtboot", BADLOAD,
               "--vtboot-cmdline", f"fault={fault} logging=serial,memory loglvl=all", *args,
               timeout=300)
    assert f"BADLOAD: fault={fault}, command line [{VTBOOT_CMDLINE}]" in run.serial, run.serial
    assert "BADLOAD: entering vtboot" in run.serial
    return run


def badload_map(run):
    """The memory map badload handed over: [(addr, len, type)] in its order."""
    return [tuple(int(v, 16) for v in l.split()[2:5]) for l in run.serial.splitlines()
            if l.startswith("BADLOAD: mmap ")]


def vtboots_map(run):
    """The map vtboot uses, as it printed it (its "memory map from the loader" lines)."""
    lines = run.vtboot_lines()
    i = lines.index("memory map from the loader:") + 1
    return lines[i:next(j for j in range(i, len(lines)) if not lines[j].startswith("  0x"))]


def launched_with_vtboots_mle(run):
    """The host launched vtboot's MLE (with this command line) before anything below ran."""
    mle = hashlib.sha256(vtb.mle_bytes(VTBOOT_CMDLINE)).hexdigest()
    return any(l.endswith(" sha256=" + mle)
               for l in run.launcher_lines("vtboot-qemu: virtual SENTER: launched CPU 0 at "))


def test_unsorted_overlapping_map_is_sanitised():
    """A map in reverse order, its largest RAM entry split into two halves that overlap, and a
    RAM entry over the BIOS area that the map also calls reserved: vtboot says so and Linux
    boots with exactly the map it gets from QEMU's well-formed one."""
    control = badload("none")
    assert control.rc == vtb.POWERED_OFF, control.stderr
    assert not control.has_vtboot_line(r"memory map .* unsorted")
    good = badload_map(control)
    assert good == sorted(good)

    run = badload("mmap")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    bad = badload_map(run)
    assert bad != sorted(bad) and len(bad) == len(good) + 2
    assert (0xf0000, 0x10000, 1) in bad and (0xf0000, 0x10000, 2) in bad
    # sanitised, the map has the control's entries again
    assert run.has_vtboot_line(
        rf"^WARNING: the loader's memory map \({len(bad)} entries\) is unsorted or has "
        rf"overlapping entries; vtboot uses it sanitised \({len(good)} entries: sorted, each "
        r"overlap given to the non-RAM type\)$")
    e820 = vtb.parse_boot_e820(run.serial)
    assert vtboots_map(run) == vtboots_map(control) and len(vtboots_map(control)) == len(good)
    assert e820 == vtb.parse_boot_e820(control.serial) and e820
    assert (0xf0000, 0x100000, "reserved") in e820
    assert "\nVTBOOT-GUEST: end\n" in run.serial      # the guest's /init ran to its end


def test_module_over_vtboots_image_is_refused():
    """Module 1 (the initrd) claimed at vtboot's own load address: its bytes there are vtboot's.
    The pre-launch half refuses it and halts without asking for a launch, so there is nothing
    to cap; Linux never runs. (vtboot used to move its own image out as the initrd, measure and
    boot it.) The MLE checks the modules again, as the pre-launch half is not measured:
    test_launch_holds.py::test_mle_checks_the_modules_again."""
    syms = vtb.elf_symbols()
    run = badload("modimage")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    claimed = [l.split()[3] for l in run.serial.splitlines() if l.startswith("BADLOAD: module 0x1 ")]
    start, end = (int(v, 16) for v in claimed[0].split("-"))
    assert start == syms["_mle_start"] == 0x840000
    initrd_size = end - start
    assert "virtual SENTER" not in run.stderr, run.stderr
    lines = run.vtboot_lines()
    refusal = (f"ERROR: bad module: module 1 at 0x840000+{initrd_size:#x} overlaps vtboot's "
               f"loaded image {syms['_mle_start']:#x}-{syms['_end']:#x}")
    assert lines[lines.index("   pre-launch (not measured)"):] == [
        "   pre-launch (not measured)", "*" * 54,
        "command line: " + VTBOOT_CMDLINE] + [
        l for l in lines if l.startswith("timing: pre-launch entry at TSC ")] + [
        refusal, "ERROR: HALT: bad module"] + [
        l for l in lines if l.startswith("ACPI: RSDP ")]
    assert not run.linux_ran()


def test_acpi_without_facs():
    """A FADT without a FACS: vtboot boots on and says that S3 is impossible and that a suspend
    would halt with PCRs capped; the guest's suspend request then gets exactly that. QEMU runs
    without its HPET: the HPET's _STA in QEMU's DSDT reads a field that takes the ACPI global
    lock, which lives in the FACS, and Linux 6.1 oopses there (a NULL FACS in
    __acpi_acquire_global_lock) long before any suspend."""
    run = badload("nofacs", "--cmdline", "console=ttyS0 panic=-1 no_console_suspend vtboot.guest=s3",
                  "--", "-machine", "hpet=off")
    assert "BADLOAD: FADT at 0x" in run.serial
    assert ": FIRMWARE_CTRL 0x" in run.serial and "-> 0, checksum fixed" in run.serial
    assert launched_with_vtboots_mle(run), run.stderr
    assert run.has_vtboot_line(r"^ACPI: RSDP 0x[0-9a-f]+ FACS 0x0 PM1a_CNT io 0x604, ")
    assert run.has_vtboot_line(
        r"^WARNING: ACPI: no FACS \(the FADT's FIRMWARE_CTRL and X_FIRMWARE_CTRL are 0\): no "
        r"waking vector, so no S3; a suspend request will halt with PCRs capped$")
    assert run.values("s3-suspend") == ["1"]
    lines = run.vtboot_lines()
    request = "shutdown_entry: S3 (suspend to RAM) (type 3) on CPU 0"
    refusal = ("ERROR: S3: refused: no FACS waking vector to point at vtboot (the resume could "
               "not go through a launch)")
    capped = "capped PCRs 17-19 (S3 integrity)"
    assert request in lines and refusal in lines and capped in lines
    assert lines.index(request) < lines.index(refusal) < lines.index(capped)
    after = lines[lines.index(capped) + 1:]
    assert [l.split(": ")[0] for l in after] == [
        "  PCR 17 after the cap, sha1", "  PCR 17 after the cap, sha256", "ERROR"]
    assert after[1].split(": ")[1] != run.guest["pcr-sha256-17"]     # as the guest read it
    assert after[2] == "ERROR: HALT: S3 integrity check failed"
    # nothing was sealed, no waking vector written, the guest never resumed
    assert not run.has_vtboot_line(r"^S3: (key sealed|waking vector|MAC region)")
    assert not run.values("s3-resumed")
    assert run.rc == vtb.POWERED_OFF, run.stderr
