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
  ERRORCODE, sees TXT_RESET, does not launch, and halts (the halt policy every TXT test runs):
  nothing measured ran;
- the real DRHD kept and an extra one for 0xFED44000 (its last two device scopes turned into
  a DRHD): the same refusal, naming DRHD 1;
- the real DRHD gone (its type changed to one no one defines): ERRORCODE 0xC0011461 (sub-error
  1, the chipset's unit missing);
- the control: the DMAR's OEM revision changed, a field the SINIT does not decide on: the
  launch succeeds, PCRs 17 and 18 equal vtboot-pcr's prediction, and Linux reads the changed
  table; it fails differently from each attack (a launch, not a refusal).

And the read-back of each PMR register: the attacker enables the real unit's PMRs over empty
regions before the launch (the range registers then ignore writes); the SINIT's PLMBASE does
not take, and the launch is refused with ERRORCODE 0xC0001861 (error 6, a register that did not
hold its write). The control writes the same registers without enabling them: the SINIT's
values take and the launch succeeds with the predicted PCRs."""
import struct
import subprocess

import kpatch
import pytest
import vtb
from test_txt_lcp import sinit_lines
from test_txt_launch import TBOOT_HALTED, TBOOT_HALTS, tboot_lines
from test_txt_sinit import prediction
from test_txt_tboot_attacks import LAUNCHED, finished, start

UNIT = 0xFED90000                       # q35's intel-iommu (Q35_HOST_BRIDGE_IOMMU_ADDR)
TPM_LOCALITY4 = 0xFED44000              # reads all-ones: no remapping unit
DRHD = 48                               # the first structure, after the DMAR's header
OEM_REVISION = 24
NEW_REVISION = 0x38C0FFEE


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


def attacked_boot(arm):
    """The project's kernel through GRUB, tboot and our SINIT, with `--reboot`; arm(gdb) is the
    attacker's doing as GRUB starts the entry. Returns the finished run."""
    running, kernel = start("--reboot")
    with vtb.Gdb(running.gdb_path) as gdb:
        arm(gdb)
    return finished(running, kernel)


def rewrite_dmar(edit):
    """An arm(): the DMAR in RAM edited in place, its length kept and its checksum fixed."""
    def arm(gdb):
        addr, was = kpatch.find_table(gdb, b"DMAR")
        t = bytearray(was)
        edit(t)
        now = kpatch.checksummed(t)
        assert len(now) == len(was) and now != was
        gdb.write_phys(addr, now)
        assert gdb.read_phys(addr, len(now)) == now
    return arm


def assert_refused(run, error, number):
    """Boot 1: the SINIT refused with `error` (its reason and ERRORCODE) before it measured
    anything, a TXT reset; boot 2: tboot reports the ERRORCODE (progress 0x06, error number)
    as on hardware, does not launch again, and halts under the halt policy."""
    assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    errorcode = error.rsplit(" ", 1)[1]
    assert sinit_lines(run)[-1] == f"sinit: ERROR: {error}, TXT reset", \
        "\n".join(sinit_lines(run))
    assert not [l for l in sinit_lines(run) if "MLE measured" in l]
    assert "machine reset (QMP RESET at " in run.stderr
    tb = tboot_lines(run)
    i = tb.index(f"TXT.ERRORCODE: {errorcode}")
    decoded = f"AC module error : acm_type=0x1, progress=0x06, error={number:#x}"
    assert i > tb.index("executing GETSEC[SENTER]...") and tb[i + 1] == decoded, tb[i:i + 3]
    k = tb.index("TXT_RESET.STS is set and SENTER is disabled (0x01)", i)
    assert tb.index(TBOOT_HALTS[len("TBOOT: "):], k) > k
    assert tb.count("executing GETSEC[SENTER]...") == 1
    assert LAUNCHED not in run.serial.splitlines() and not run.linux_ran()
    p = subprocess.run(["txt-parse_err", errorcode], check=True, capture_output=True, text=True)
    assert [l.strip() for l in p.stdout.splitlines() if l.strip()] == [
        f"ERRORCODE: {errorcode}", decoded], p.stdout


def assert_launched(run):
    """The launch succeeded and Linux's PCRs 17 and 18 equal vtboot-pcr's prediction."""
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert LAUNCHED in run.serial.splitlines()
    assert not [l for l in sinit_lines(run) if "ERROR" in l], "\n".join(sinit_lines(run))
    assert "machine reset (QMP RESET at " not in run.stderr
    assert {(p, bank): run.guest.get(f"pcr-{bank}-{p}") for p in (17, 18)
            for bank in ("sha1", "sha256")} == prediction(run)


@pytest.mark.parametrize("edit,error", [
    (drhd_at_locality4, "DMAR: DRHD 0 (0xfed44000, segment 0, flags 0x0) is no remapping unit "
                        "of this chipset; ERRORCODE 0xc0021461"),
    (extra_drhd, "DMAR: DRHD 1 (0xfed44000, segment 0, flags 0x0) is no remapping unit of this "
                 "chipset; ERRORCODE 0xc0021461"),
    (no_drhd, "DMAR: no DRHD for the chipset's remapping unit at 0xfed90000; ERRORCODE "
              "0xc0011461"),
], ids=["drhd-at-tpm-locality-4", "extra-drhd", "drhd-missing"])
def test_a_dmar_not_naming_the_chipsets_unit_is_refused(edit, error):
    assert_refused(attacked_boot(rewrite_dmar(edit)), error, 5)


def test_control_a_harmless_change_to_the_dmar_still_launches():
    run = attacked_boot(rewrite_dmar(new_oem_revision))
    assert_launched(run)
    # the table Linux reads carries the change (the OEM revision, printed %08X)
    acpi = [l for l in run.serial.splitlines() if "ACPI: DMAR 0x" in l]
    assert len(acpi) == 1 and f" {NEW_REVISION:08X} " in acpi[0], acpi


# ---- PMRs the attacker enabled before the launch --------------------------------------------

PMEN, PLMBASE, PLMLIMIT, PHMBASE, PHMLIMIT = 0x64, 0x68, 0x6C, 0x70, 0x78
PMEN_EPM = 1 << 31


def pmrs_of_its_own(enable):
    """An arm(): the real unit's PMRs made empty regions (limit below base, so that the
    loader's own disk DMA still lands), then enabled if `enable`. While EPM is set the range
    registers ignore writes (qemu/patches 0009): the SINIT's would not take."""
    def arm(gdb):
        regs = struct.pack("<IIQQ", 0xFFE00000, 0, 0x7FFFE00000, 0)
        gdb.write_phys(UNIT + PLMBASE, regs)
        if enable:
            gdb.write_phys(UNIT + PMEN, struct.pack("<I", PMEN_EPM))
        assert gdb.read_phys(UNIT + PLMBASE, len(regs)) == regs
        assert struct.unpack("<I", gdb.read_phys(UNIT + PMEN, 4))[0] == (PMEN_EPM | 1 if enable
                                                                         else 0)
    return arm


def test_pmrs_enabled_before_the_launch_fail_the_read_back():
    """The SINIT writes tboot's low PMR (base 0) and reads it back: the register still holds
    the attacker's 0xFFE00000, so the launch is refused (error 6, sub-error 0: unit 0's
    PLMBASE), where a SINIT that did not read back would have launched behind the attacker's
    empty regions."""
    assert_refused(attacked_boot(pmrs_of_its_own(enable=True)),
                   "VT-d unit at 0xfed90000: register 0x68 reads 0xffe00000 after 0x0 was "
                   "written; ERRORCODE 0xc0001861", 6)


def test_control_pmrs_written_but_not_enabled_are_the_sinits_to_set():
    assert_launched(attacked_boot(pmrs_of_its_own(enable=False)))
