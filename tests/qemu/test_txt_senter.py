# SPDX-License-Identifier: MIT
"""GETSEC[SENTER] on the emulated Intel TXT platform (issue 20, docs/txt-platform.md "0006",
qemu/patches 0006): host/tests/guest/getsec_acmode.c copies the echo ACM (out/test/echo.bin) to
SINIT.BASE and runs SENTER on out/bin/qemu-system-x86_64-txt with tpm-tis on a fresh swtpm. The
ACM reports the state it was entered with and leaves with EXITAC to the address the guest gave
it (SENTER passes none).

PCR 17 is predicted here from echo.bin's bytes alone (hashlib): SENTER hashes, at locality 4,
the SHA-256 of the signed bytes ([0, 0x184) and [0x4C0, size)) followed by EDX, and the TPM
resets PCR 17 to zeros and extends it with the hash of that: PCR17 = H(0^32 || H(digest || EDX)).
The other expected values come from the SDM's SENTER entry state, the chipset's layout for
-m 128 and getsec.elf's symbols, as in test_txt_acmode.py."""
import hashlib
import os
import re
import subprocess

import getsec_guest
from getsec_guest import symbol, txt_qemu
from test_txt_acmode import (ECHO, ECHO_MAGIC, ERR_AUTH_FAIL, ESTS_TXT_RESET, MEM, PROJECT_KEY,
                             SCRATCH_END, SIG_OFF, STS_PRIVATE_OPEN, echo_bytes, echo_report,
                             flipped_byte, key_hash, value)
from test_txt_chipset import layout
from vtb import OUT

GETSEC_SENTER = 4
STS_SENTER_DONE = 1 << 0
# TPM_ACCESS: tpmRegValidSts; tpmEstablishment is 0 once a DRTM ran
TIS_REG_VALID = 0x80
# IA32_MISC_ENABLE as the guest finds it (QEMU's default: fast strings, MONITOR FSM), after
# SENTER: both are bits the SDM's table clears; the thermal monitor bit (3) is set
MISC_ENABLE_IN_ACM = 1 << 3
PCR17_RESET = "ff" * 32                 # a DRTM PCR before any launch (TPM2_Startup(CLEAR))


def senter_event_data(acm, edx=0):
    """what SENTER's locality-4 sequence hashes: SHA-256 of the signed bytes, then EDX"""
    return hashlib.sha256(acm[:SIG_OFF] + acm[SCRATCH_END:]).digest() + edx.to_bytes(4, "little")


def predicted_pcr17(acm, edx=0):
    event = hashlib.sha256(senter_event_data(acm, edx)).digest()
    return hashlib.sha256(bytes(32) + event).hexdigest()


def run_senter(case, module=ECHO, smp=1, cpu="max", tpm=True, reboot=False, key=None):
    """getsec's lines for case=CASE with `module` as the ACM on the TXT machine (the test key's
    hash in PUBLIC.KEY, or key's), with tpm-tis on a fresh swtpm unless tpm is False."""
    extra = ["-global", f"intel-txt.sinit-key-hash={key_hash(key) if key else key_hash()}"]
    if not tpm:
        return getsec_guest.run_getsec(txt_qemu(), case, cpu=cpu, machine="q35,txt=on",
                                       mem=MEM, smp=smp, reboot=reboot, modules=[module],
                                       extra=extra)[0]
    with getsec_guest.swtpm_tis() as tis:
        return getsec_guest.run_getsec(txt_qemu(), case, cpu=cpu, machine="q35,txt=on",
                                       mem=MEM, smp=smp, reboot=reboot, modules=[module],
                                       extra=extra + tis)[0]


def assert_txt_parse_err(code, decoded):
    """Debian's txt-parse_err reads the ERRORCODE as our SINIT's (progress, error)."""
    p = subprocess.run(["txt-parse_err", f"{code:#x}"], check=True, capture_output=True,
                       text=True)
    assert [l.strip() for l in p.stdout.splitlines() if l.strip()] == [
        f"ERRORCODE: {code:#x}", decoded], p.stdout


def gp_line(what="SENTER"):
    return f"{what}: #GP(0) at {symbol('acmode_getsec_insn'):#x}"


def test_senter_measures_the_acm_into_pcr17_and_enters_it():
    """SENTER with echo.bin: PCR 17 goes from its reset value to the prediction (the TPM's
    locality-4 sequence over the module's signed digest and EDX); the ACM runs at ACBASE +
    entry_point with SENTER's entry state (EAX = 4, EBX = ACBASE, EDX = the SENTER flags 0, EBP
    = ACBASE, ECX/ESI/EDI/ESP passed through, CR0.PG/AM/WP clear, CR4 = SMXE, EFLAGS = 2, DR7 =
    0x400, the module's GDT and selectors), with the private space open and TIS locality 3
    decoded for it (tpmEstablishment now clear: a DRTM ran); after EXITAC STS.SENTER.DONE is
    set, the private space still open (the ACM, as SINIT, leaves it to the MLE), locality 3
    closed, and a second SENTER is #GP(0) (SENTERFLAG)."""
    data = echo_bytes()
    lines = run_senter("senter")
    base = layout(MEM)["SINIT.BASE"]
    esp = value(lines, "guest ESP at GETSEC")
    acm = echo_report(data, base, esp, (GETSEC_SENTER, base, len(data), 0), TIS_REG_VALID,
                      MISC_ENABLE_IN_ACM)
    pcr17 = predicted_pcr17(data)
    assert pcr17 != PCR17_RESET
    assert lines == [
        "start",
        f"SINIT.BASE = {base:#x}",
        f"module size = {len(data):#x}",
        "public STS before = 0x0",
        f"PCR 17 before = {PCR17_RESET}",
        "SENTER: ok",
        f"guest ESP at GETSEC = {esp:#x}",
        *[f"ACM {k} = {v:#x}" for k, v in acm.items()],
        f"public STS after = {STS_SENTER_DONE | STS_PRIVATE_OPEN:#x}",
        f"private STS after = {STS_SENTER_DONE | STS_PRIVATE_OPEN:#x}",
        "TIS locality 3 ACCESS after = 0xff",
        f"PCR 17 after = {pcr17}",
        gp_line("SENTER again"),
        "done"]


def test_senter_puts_a_running_ap_to_sleep_for_good():
    """-smp 2, the AP counting in a loop: SENTER's rendezvous stops it (SENTER sleep), the ACM
    runs and PCR 17 is the prediction; an INIT-SIPI-SIPI sent to the AP afterwards is latched,
    not taken: the AP does not run again (only GETSEC[WAKEUP] ends the sleep)."""
    assert run_senter("senter-ap-running", smp=2) == [
        "start",
        "AP counting = 0x1",
        "SENTER: ok",
        f"ACM magic = {ECHO_MAGIC:#x}",
        "AP stopped = 0x1",
        "AP counting after INIT-SIPI-SIPI = 0x0",
        f"PCR 17 after = {predicted_pcr17(echo_bytes())}",
        "done"]


def test_an_nmi_sent_to_a_sleeping_ap_is_not_taken():
    """-smp 2, the AP counting in real mode with an NMI handler of its own that counts too: an
    NMI sent to it before SENTER is taken (the control); after SENTER the AP sleeps, and the
    same NMI sent again (an attacker's NMI source aimed at a CPU the MLE has not woken) runs
    neither its handler nor its loop; PCR 17 is the prediction."""
    assert run_senter("senter-ap-nmi", smp=2) == [
        "start",
        "AP counting = 0x1",
        "AP NMIs before SENTER = 0x1",
        "SENTER: ok",
        "AP stopped = 0x1",
        "AP NMIs after SENTER = 0x1",
        "AP counting after the NMI = 0x0",
        f"PCR 17 after = {predicted_pcr17(echo_bytes())}",
        "done"]


def test_senter_with_edx_set_is_gp0():
    """EDX = 1: no SENTER function is supported (PARAMETERS reports no type 4): #GP(0), no
    launch."""
    assert run_senter("senter-edx1") == ["start", gp_line("SENTER with EDX = 1"), "done"]


def test_senter_needs_feature_control_locked_with_senter_enabled():
    """IA32_FEATURE_CONTROL as a BIOS that did not enable SENTER leaves it: unlocked (0xff00)
    or locked without SENTER's global enable (0x1): #GP(0) both times."""
    for fc in (0xFF00, 0x1):
        assert run_senter("senter-unlocked", cpu=f"max,feature-control={fc:#x}") == [
            "start", f"RDMSR 0x3a = {fc:#x}", gp_line(), "done"], fc


def test_senter_without_a_tpm_is_gp0():
    """No TPM interface: nothing could measure the ACM, so SENTER is #GP(0) (the SDM's check
    for a TPM interface), never an unmeasured launch."""
    lines = run_senter("senter", tpm=False)
    assert lines[-3:] == [
        "PCR 17 before: the TPM did not answer TPM2_PCR_Read", gp_line(), "done"], lines


def test_senter_with_a_broken_acm_is_a_txt_reset(tmp_path):
    """SENTER with one byte of echo.bin flipped: the signature fails after the rendezvous,
    TXT-SHUTDOWN writes ERRORCODE 0x80000007 and resets the platform; the next boot finds
    ESTS.TXT_RESET and the code, and PCR 17 at its reset value (nothing was launched)."""
    path = tmp_path / "acm.bin"
    path.write_bytes(flipped_byte(echo_bytes()))
    assert run_senter("senter-bad-acm", module=str(path), reboot=True) == [
        "start", "boot 1",
        "start", "boot 2",
        f"ERRORCODE = {0x80000000 | ERR_AUTH_FAIL:#x}",
        f"ESTS = {ESTS_TXT_RESET:#x}",
        f"PCR 17 = {PCR17_RESET}",
        "done"]


def test_our_sinit_refuses_a_heap_with_a_wrong_size_field():
    """Our SINIT (out/sinit.bin) launched with OsMleData's size field 4 GiB: its heap check
    fails the launch with ERRORCODE progress 0x03 (heap) error 1, which Debian's txt-parse_err
    decodes as an AC module error, and a TXT reset; the next boot finds PCR 17 at its reset
    value (nothing was launched: the SINIT capped nothing it had not extended)."""
    sinit = os.path.join(OUT, "sinit.bin")
    assert os.path.exists(sinit), "make out/sinit.bin"
    code = 0xC0000431
    assert run_senter("senter-bad-heap", module=sinit, reboot=True, key=PROJECT_KEY) == [
        "start", "boot 1",
        "start", "boot 2",
        f"ERRORCODE = {code:#x}",
        f"ESTS = {ESTS_TXT_RESET:#x}",
        f"PCR 17 = {PCR17_RESET}",
        "done"]
    assert_txt_parse_err(code, "AC module error : acm_type=0x1, progress=0x03, error=0x1")


def test_senter_leaves_nmi_blocked_until_the_first_iret():
    """After SENTER and EXITAC an NMI sent to the launching CPU is held until the MLE's first
    IRET (tboot lifts the block with an IRET to itself once its IDT is in place); the control:
    after ENTERACCS and EXITAC the same NMI is taken at once."""
    assert run_senter("nmi-after-senter") == [
        "start", "SENTER: ok",
        "NMIs taken before an IRET = 0x0", "NMIs taken after an IRET = 0x1", "done"]
    assert run_senter("nmi-after-enteraccs") == [
        "start", "ENTERACCS: ok",
        "NMIs taken before an IRET = 0x1", "NMIs taken after an IRET = 0x1", "done"]


def test_vtboot_pcr_predicts_senters_extend_in_every_bank():
    """vtboot-pcr predict --sinit (its own code: src/txt/acm.c's signed ranges, src/txt/drtm.c,
    OpenSSL) lists as PCR 17's first extend the digest of what this file computes SENTER hashes
    (the same event the TPM extended in the test above), in the SHA-1 and the SHA-256 bank: the
    platform's measurement and the prediction of a TXT launch agree."""
    data = echo_bytes()
    p = subprocess.run([os.path.join(OUT, "bin", "vtboot-pcr"), "predict", "--sinit", ECHO,
                        "--vtboot", os.path.join(OUT, "vtboot"),
                        "--kernel", os.path.join(OUT, "bzImage"),
                        "--bank", "sha1", "--bank", "sha256", "-v"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    first = {}
    bank = None
    for l in p.stderr.splitlines():
        m = re.match(r"bank (\w+):$", l)
        if m:
            bank = m.group(1)
        m = re.match(r"  PCR 17 \+= ([0-9a-f]+)  SINIT event 0x402$", l)
        if m and bank not in first:
            first[bank] = m.group(1)
    event = senter_event_data(data)
    assert first == {"sha1": hashlib.sha1(event).hexdigest(),
                     "sha256": hashlib.sha256(event).hexdigest()}, p.stderr


def our_sinit_refused(case, code, decoded):
    """Our SINIT (out/sinit.bin, the project key's hash in PUBLIC.KEY, a TPM) run by getsec's
    case=CASE must end in a TXT reset with ERRORCODE code, which txt-parse_err decodes so."""
    sinit = os.path.join(OUT, "sinit.bin")
    assert os.path.exists(sinit), "make out/sinit.bin"
    assert run_senter(case, module=sinit, reboot=True, key=PROJECT_KEY) == [
        "start", "boot 1",
        "start", "boot 2",
        f"ERRORCODE = {code:#x}",
        f"ESTS = {ESTS_TXT_RESET:#x}",
        "done"]
    assert_txt_parse_err(code, decoded)


def test_our_sinit_run_by_enteraccs_does_nothing_for_its_caller():
    """GETSEC[ENTERACCS] runs any ACM signed with the platform's key, our SINIT among them, in
    authenticated-code mode with TPM locality 3 open, but never resets PCR 17. Our SINIT, run
    so (at SINIT.BASE, with a TPM), finds PCR 17 not what SENTER leaves for it and fails before
    it reads anything of its caller's: ERRORCODE 0xC0001411 (entry, error 5, bank 0) and a TXT
    reset. Before, it ran its whole flow and opened locality 2 for its caller (issue 38)."""
    our_sinit_refused("bad-acm", 0xC0001411,
                      "AC module error : acm_type=0x1, progress=0x01, error=0x5")


def test_our_sinit_runs_only_at_sinit_base():
    """ENTERACCS runs a module at any 4 KiB-aligned ACBASE; our SINIT, run 64 KiB above
    SINIT.BASE, refuses before it touches the TPM or its caller's data: ERRORCODE 0xC0001011
    (entry, error 4). The same module at SINIT.BASE gets as far as PCR 17
    (test_our_sinit_run_by_enteraccs_does_nothing_for_its_caller: 0xC0001411)."""
    our_sinit_refused("bad-acm-elsewhere", 0xC0001011,
                      "AC module error : acm_type=0x1, progress=0x01, error=0x4")
