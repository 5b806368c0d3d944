# SPDX-License-Identifier: MIT
"""GETSEC[WAKEUP] and [SEXIT], and an INIT of the BSP, on the emulated Intel TXT platform (issue 20, docs/txt-platform.md
"0007", qemu/patches 0007): after SENTER with the echo ACM (test_txt_senter.py), the guest plays
the MLE: it writes a join structure (its own GDT, a selector, the entry wakeup_ap_entry) to
MLE.JOIN through the private space the ACM left open and runs WAKEUP; the AP, asleep since the
rendezvous, starts at the entry with the SDM's WAKEUP state and reports it. SEXIT then leaves the
measured environment. Expected values: the SDM's tables, getsec.elf's symbols and GDT."""
import pytest

from getsec_guest import symbol
from test_txt_acmode import ECHO_MAGIC, ESTS_TXT_RESET
from test_txt_senter import run_senter

GETSEC_FAULT_AT = "probe_getsec_insn"
WAKEUP_MAGIC = 0x504B4157               # "WAKP", getsec_acmode.c
STS_SEXIT_DONE = 1 << 1
ERR_INVALID_JOIN_FORMAT = 11            # tboot's errorcode.h processor error
# getsec.S's GDT: null, code 0x08, data 0x10
GUEST_GDT_LIMIT = 23


def gp(what):
    return f"{what}: #GP(0) at {symbol(GETSEC_FAULT_AT):#x}"


def test_wakeup_starts_the_sleeping_ap_at_the_join_entry_and_sexit_ends():
    """-smp 2: SENTER, the join structure at MLE.JOIN, WAKEUP: the AP runs wakeup_ap_entry with
    CR0 = PE | ET | NE (paging, caches-off and the rest clear), CR4 = SMXE, EFLAGS = 2, DR7 =
    0x400, CS = the join selector, DS = ES = SS = selector + 8, GDTR = the join structure's.
    SEXIT: STS.SEXIT.DONE set and SENTER.DONE clear, the private space closed; SEXIT and WAKEUP
    again are #GP(0) (SENTERFLAG clear)."""
    lines = run_senter("wakeup", smp=2)
    join = next(l for l in lines if l.startswith("MLE.JOIN = "))
    ap = {
        "magic": WAKEUP_MAGIC,
        "EIP": symbol("wakeup_ap_entry"),
        "CR0": 1 << 0 | 1 << 4 | 1 << 5,
        "CR4": 1 << 14,
        "EFLAGS": 0x2,
        "CS": 0x08, "DS": 0x10, "ES": 0x10, "SS": 0x10,
        "DR7": 0x400,
        "GDTR.limit": GUEST_GDT_LIMIT,
        "GDTR.base": symbol("gdt"),
    }
    assert join == f"MLE.JOIN = {symbol('mle_join'):#x}"
    assert lines == [
        "start", "SENTER: ok", join, "WAKEUP: ok",
        *[f"AP {k} = {v:#x}" for k, v in ap.items()],
        "SEXIT: ok",
        f"public STS after SEXIT = {STS_SEXIT_DONE:#x}",
        "private STS after SEXIT = 0xffffffff",
        gp("SEXIT again"), gp("WAKEUP after SEXIT"),
        "done"]


def test_wakeup_and_sexit_outside_the_measured_environment_are_gp0():
    """Before any SENTER: WAKEUP and SEXIT are #GP(0)."""
    assert run_senter("wakeup-before-senter") == [
        "start", gp("WAKEUP"), gp("SEXIT"), "done"]


@pytest.mark.parametrize("case", ["join-bad-selector", "join-wrapping-selector"])
def test_wakeup_with_a_bad_join_selector_is_a_txt_reset(case):
    """A join selector whose data selector lies past the GDT (0x18 with limit 23; 0xfffffff8,
    whose + 15 wraps to 7 in 32 bits): WAKEUP ends in TXT-SHUTDOWN with ERRORCODE 0x8000000B
    (INVALID_JOIN_FORMAT) and ESTS.TXT_RESET in the next boot."""
    lines = run_senter(case, smp=2, reboot=True)
    join = next(l for l in lines if l.startswith("MLE.JOIN = "))
    assert lines == [
        "start", "boot 1", "SENTER: ok", join,
        "start", "boot 2",
        f"ERRORCODE = {0x80000000 | ERR_INVALID_JOIN_FORMAT:#x}",
        f"ESTS = {ESTS_TXT_RESET:#x}",
        "done"]


def test_init_of_the_bsp_after_a_launch_resets_the_platform_and_scrubs():
    """The `init` attack of the paravirtual launch on the TXT platform: after SENTER (EXITAC
    unmasked INIT) the guest sets SECRETS, writes markers, points the warm-reset vector (CMOS
    shutdown code 0x0A, 40:67) at a stub that prints on COM1 and INITs the BSP. SeaBIOS would
    jump there with memory and PCR 17 as the launch left them; the platform resets instead
    (a TXT BIOS scrubs at the reset vector): the stub never runs, the next boot finds the
    markers zeroed, SECRETS and SENTER.DONE clear and PCR 17 at its reset value. On QEMU
    without this rule the stub's line appears and the boot hangs in it."""
    lines = run_senter("init-bsp", reboot=True)
    assert lines == [
        "start", "boot 1", "SENTER: ok",
        "E2STS = 0x2",
        "INIT to the BSP",
        "start", "boot 2",
        "public STS = 0x0",
        f"PCR 17 = {'ff' * 32}",
        "ESTS = 0x0", "ERRORCODE = 0x0", "E2STS = 0x0",
        "marker at 64 MiB = 0x0", "marker at the top of RAM = 0x0", "marker in the heap = 0x0",
        "done"]


def test_init_sipi_sent_to_a_sleeping_ap_does_not_start_it_after_wakeup():
    """-smp 2: the AP counting before SENTER sleeps from the rendezvous; an INIT-SIPI-SIPI to
    its counting loop while it sleeps, then WAKEUP: the latched INIT is taken once WAKEUP
    unmasks it and the SIPIs, sent while it was not waiting for one, were dropped: the AP
    neither counts again nor reaches the join entry (it waits for SIPI). On QEMU that kept the
    SIPIs the attacker's loop runs again (checked by hand)."""
    lines = run_senter("wakeup-after-init-sipi", smp=2)
    join = next(l for l in lines if l.startswith("MLE.JOIN = "))
    assert lines == [
        "start", "AP counting = 0x1", "SENTER: ok", f"ACM magic = {ECHO_MAGIC:#x}",
        "AP stopped = 0x1", join, "WAKEUP: ok",
        "AP counting after WAKEUP = 0x0", "AP magic = 0x0", "done"]
