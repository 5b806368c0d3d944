# SPDX-License-Identifier: MIT
"""The TXT reset, the scrub of memory left with secrets, and the power cycle of the emulated
Intel TXT platform (issue 20, docs/txt-platform.md "0011", qemu/patches 0011):
host/tests/guest/getsec_reset.c, over several boots of one QEMU process, has the echo ACM
(out/test/echo.bin, the only code that reaches the closed private space) write CMD.SECRETS,
CMD.NO-SECRETS, ERRORCODE and CMD.RESET, writes markers into RAM and the TXT heap, and reads in
the next boot what the platform kept.

What hardware does, and the model with it: a TXT reset sets ESTS.TXT_RESET.STS, which only a
power cycle clears, and keeps ERRORCODE; a reset of any kind with E2STS.SECRETS set scrubs
memory before anything runs again (the BIOS's SCLEAN ACM on hardware) and leaves SECRETS clear;
without SECRETS memory stays; tboot's 0xCF9 sequence with FULL_RST is a power cycle, which clears
ESTS, ERRORCODE and E2STS."""
from test_txt_acmode import ECHO, ESTS_TXT_RESET, run_acm
from getsec_guest import need

E2STS_SLP_ENTRY_ERROR, E2STS_SECRETS = 1 << 0, 1 << 1
ESTS_WAKE_ERROR = 1 << 6
MARKER = 0x5243534D                              # getsec_reset.c's "MSCR"
SW_ERRORCODE = 0xC0008001                        # written by the ACM in case=powercycle
MARKERS = ("marker at 64 MiB", "marker at the top of RAM", "marker in the heap")


def platform(ests, errorcode, e2sts, marker):
    """getsec_reset.c's show_platform() lines"""
    return [f"ESTS = {ests:#x}", f"ERRORCODE = {errorcode:#x}", f"E2STS = {e2sts:#x}",
            *[f"{m} = {marker:#x}" for m in MARKERS]]


def run_reset(case):
    return run_acm(case, need(ECHO, "make out/test/echo.bin"), reboot=True)


def test_txt_reset_with_secrets_scrubs_memory():
    """CMD.SECRETS, markers, CMD.RESET: the next boot finds ESTS.TXT_RESET set, ERRORCODE as it
    was (0), SECRETS clear and every marker zero."""
    assert run_reset("secrets-reset") == [
        "start", "boot 1", "CMD.SECRETS: ok", f"E2STS = {E2STS_SECRETS:#x}", "CMD.RESET",
        "start", "boot 2", *platform(ESTS_TXT_RESET, 0, 0, 0),
        "done"]


def test_txt_reset_without_secrets_keeps_memory():
    """The control: SECRETS set and cleared again (tboot's txt_shutdown) before CMD.RESET: a TXT
    reset still (ESTS.TXT_RESET), but no scrub: the markers are there in the next boot."""
    assert run_reset("nosecrets-reset") == [
        "start", "boot 1", "CMD.SECRETS, CMD.NO-SECRETS: ok", "E2STS = 0x0", "CMD.RESET",
        "start", "boot 2", *platform(ESTS_TXT_RESET, 0, 0, MARKER),
        "done"]


def test_plain_reset_with_secrets_scrubs_memory():
    """A reset that bypasses tboot (0xCF9 = 0x06, as Debian's Xen reboots) with SECRETS set: not
    a TXT reset (ESTS stays 0), but memory is scrubbed all the same."""
    assert run_reset("secrets-cf9") == [
        "start", "boot 1", "CMD.SECRETS: ok", f"E2STS = {E2STS_SECRETS:#x}",
        "reset through 0xCF9",
        "start", "boot 2", *platform(0, 0, 0, 0),
        "done"]


def test_s3_with_secrets_is_refused_and_scrubbed():
    """S3 entered with SECRETS set (PM1a_CNT SLP_TYP 1, SLP_EN): the chipset does not keep RAM
    powered with secrets in it: the platform resets instead, with ESTS.WAKE_ERROR and
    E2STS.SLP_ENTRY_ERROR set and memory scrubbed. Without the chipset's refusal the guest
    would sleep for ever (the run times out)."""
    assert run_reset("secrets-s3") == [
        "start", "boot 1", "CMD.SECRETS: ok", f"E2STS = {E2STS_SECRETS:#x}",
        "S3 through PM1a_CNT",
        "start", "boot 2", *platform(ESTS_WAKE_ERROR, 0, E2STS_SLP_ENTRY_ERROR, 0),
        "done"]


def test_power_cycle_clears_the_txt_reset_and_errorcode():
    """A TXT reset after SINIT's ERRORCODE keeps both (boot 2); tboot's 0xCF9 0x0A, 0x0E
    (FULL_RST) power-cycles: ESTS.TXT_RESET, ERRORCODE and SECRETS clear, memory scrubbed
    (SECRETS was set)."""
    assert run_reset("powercycle") == [
        "start", "boot 1", "CMD.RESET",
        "start", "boot 2", *platform(ESTS_TXT_RESET, SW_ERRORCODE, 0, 0),
        "CMD.SECRETS: ok", f"E2STS = {E2STS_SECRETS:#x}", "power cycle through 0xCF9",
        "start", "boot 3", *platform(0, 0, 0, 0),
        "done"]
