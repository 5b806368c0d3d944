# SPDX-License-Identifier: MIT
"""Issue 38 item 1: our SINIT sets the PMRs on the chipset's VT-d units, never on whatever the
ACPI DMAR names (docs/txt-platform.md 3.4 step 9). The DMAR is RAM the loader owns: the host
plays the pre-launch attacker through the gdbstub while GRUB starts the entry (before tboot
runs, as test_txt_tboot_attacks.py arms its devices), rewrites the DMAR in RAM at its own
length and fixes its checksum, and the machine boots on with `--reboot`:

- the DRHD names 0xFED44000 (TPM locality 4, whose window reads all-ones: it passed the CAP and
  PMEN.PRS checks while the real unit's PMRs stayed off): the SINIT refuses, ERRORCODE
  0xC0021461 (progress 0x06 PMR, error 5 the DRHDs are not the chipset's units, sub-error 2 a
  DRHD naming no unit of the chipset), a TXT reset; the next boot's tboot reports that
  ERRORCODE, sees TXT_RESET, does not launch, and Linux runs unmeasured (PCR 17 as the TPM's
  startup left it): nothing measured ran;
- the real DRHD kept and an extra one for 0xFED44000 (its last two device scopes turned into
  a DRHD): the same refusal, naming DRHD 1;
- the real DRHD gone (its type changed to one no one defines): ERRORCODE 0xC0011461 (sub-error
  1, the chipset's unit missing);
- the control: the DMAR's OEM revision changed, a field the SINIT does not decide on: the
  launch succeeds, PCRs 17 and 18 equal vtboot-pcr's prediction, and Linux reads the changed
  table; it fails differently from each attack (a launch, not a refusal)."""
import struct
import subprocess

import kpatch
import pytest
import vtb
from test_txt_lcp import sinit_lines
from test_txt_launch import tboot_lines
from test_txt_sinit import prediction
from test_txt_tboot_attacks import LAUNCHED, finished, start

UNIT = 0xFED90000                       # q35's intel-iommu (Q35_HOST_BRIDGE_IOMMU_ADDR)
TPM_LOCALITY4 = 0xFED44000              # reads all-ones: no remapping unit
DRHD = 48                               # the first structure, after the DMAR's header
OEM_REVISION = 24
NEW_REVISION = 0x38C0FFEE
PCR17_AT_STARTUP = "ff" * 32            # PCRs 17-22 after TPM2_Startup, before any D-RTM


def qemus_drhd(t):
    """QEMU 7.2's DMAR (build_dmar_q35): one DRHD first, flags 0, segment 0, the unit's base,
    then 8-byte device scopes (the IOAPIC and each device behind the unit); its length."""
    kind, length, flags, segment, base = struct.unpack_from("<HHBxHQ", t, DRHD)
    assert (kind, flags, segment, base) == (0, 0, 0, UNIT), t.hex()
    assert length >= 16 + 3 * 8 and (length - 16) % 8 == 0, length
    return length


def drhd_at_locality4(t):
    qemus_drhd(t)
    struct.pack_into("<Q", t, DRHD + 8, TPM_LOCALITY4)


def extra_drhd(t):
    length = qemus_drhd(t)
    struct.pack_into("<H", t, DRHD + 2, length - 16)
    struct.pack_into("<HHBxHQ", t, DRHD + length - 16, 0, 16, 0, 0, TPM_LOCALITY4)


def no_drhd(t):
    qemus_drhd(t)
    struct.pack_into("<H", t, DRHD, 0x7FFF)


def new_oem_revision(t):
    struct.pack_into("<I", t, OEM_REVISION, NEW_REVISION)


def dmar_boot(edit):
    """The project's kernel through GRUB, tboot and our SINIT, with the DMAR in RAM edited as GRUB
    starts the entry. Returns the table as it was, as edited, and the finished run."""
    running, kernel = start("--reboot")
    with vtb.Gdb(running.gdb_path) as gdb:
        addr, was = kpatch.find_table(gdb, b"DMAR")
        t = bytearray(was)
        edit(t)
        now = kpatch.checksummed(t)
        assert len(now) == len(was) and now != was
        gdb.write_phys(addr, now)
        assert gdb.read_phys(addr, len(now)) == now
    return was, now, finished(running, kernel)


@pytest.mark.parametrize("edit,error", [
    (drhd_at_locality4, "DMAR: DRHD 0 (0xfed44000, segment 0, flags 0x0) is no remapping unit "
                        "of this chipset; ERRORCODE 0xc0021461"),
    (extra_drhd, "DMAR: DRHD 1 (0xfed44000, segment 0, flags 0x0) is no remapping unit of this "
                 "chipset; ERRORCODE 0xc0021461"),
    (no_drhd, "DMAR: no DRHD for the chipset's remapping unit at 0xfed90000; ERRORCODE "
              "0xc0011461"),
], ids=["drhd-at-tpm-locality-4", "extra-drhd", "drhd-missing"])
def test_a_dmar_not_naming_the_chipsets_unit_is_refused(edit, error):
    _, _, run = dmar_boot(edit)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    errorcode = error.rsplit(" ", 1)[1]
    # boot 1: the SINIT refuses before it measures anything, and the platform resets
    assert sinit_lines(run)[-1] == f"sinit: ERROR: {error}, TXT reset", \
        "\n".join(sinit_lines(run))
    assert not [l for l in sinit_lines(run) if "MLE measured" in l]
    assert "machine reset (QMP RESET at " in run.stderr
    # boot 2: tboot reports the ERRORCODE as on hardware, does not launch again, and Linux
    # runs unmeasured
    tb = tboot_lines(run)
    i = tb.index(f"TXT.ERRORCODE: {errorcode}")
    decoded = "AC module error : acm_type=0x1, progress=0x06, error=0x5"
    assert i > tb.index("executing GETSEC[SENTER]...") and tb[i + 1] == decoded, tb[i:i + 3]
    assert "TXT_RESET.STS is set and SENTER is disabled (0x01)" in tb[i:]
    assert tb.count("executing GETSEC[SENTER]...") == 1
    assert LAUNCHED not in run.serial.splitlines() and run.linux_ran()
    assert run.guest.get("pcr-sha256-17") == PCR17_AT_STARTUP
    p = subprocess.run(["txt-parse_err", errorcode], check=True, capture_output=True, text=True)
    assert [l.strip() for l in p.stdout.splitlines() if l.strip()] == [
        f"ERRORCODE: {errorcode}", decoded], p.stdout


def test_control_a_harmless_change_to_the_dmar_still_launches():
    was, now, run = dmar_boot(new_oem_revision)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert LAUNCHED in run.serial.splitlines()
    assert not [l for l in sinit_lines(run) if "ERROR" in l], "\n".join(sinit_lines(run))
    assert "machine reset (QMP RESET at " not in run.stderr
    # the table Linux reads carries the change (the OEM revision, printed %08X)
    acpi = [l for l in run.serial.splitlines() if "ACPI: DMAR 0x" in l]
    assert len(acpi) == 1 and f" {NEW_REVISION:08X} " in acpi[0], acpi
    assert {(p, bank): run.guest.get(f"pcr-{bank}-{p}") for p in (17, 18)
            for bank in ("sha1", "sha256")} == prediction(run)
