# SPDX-License-Identifier: MIT
"""The TPM localities as the emulated TXT chipset gates them (issue 20, docs/txt-platform.md
"0008", qemu/patches 0008): out/bin/qemu-system-x86_64-txt with `-machine q35,txt=on` and
tpm-tis on swtpm boots host/tests/guest/getsec.elf, whose case=tpm-loc (getsec_tpm.c) reads
TPM_ACCESS of localities 0-4 and TPM_DID_VID, writes REQUEST_USE to locality 4 and then to
locality 1, reading the ACCESS bytes after each. Before any launch the chipset opens only
locality 0: 1 and 2 wait for OPEN-LOCALITY1/2 (private space, an MLE), 3 for a CPU in
authenticated-code mode (patch 0005), 4 is never reached from MMIO; a closed locality reads
all-ones and ignores writes. The controls, which must differ: txt=off on the same binary and
Debian's stock QEMU, where every locality answers (and REQUEST_USE at locality 1 is pending).

The patched binary is part of `make` (BUILD, qemu/qemu.mk): when it is missing these tests
fail, they never skip."""
import pytest

import getsec_guest
from getsec_guest import stock_qemu, txt_qemu

# TPM_ACCESS bits (TCG PC Client PTP / TIS): tpmRegValidSts, activeLocality, pendingRequest,
# requestUse, tpmEstablishment (1: no DRTM has run)
REG_VALID, ACTIVE, PENDING, REQUEST_USE, ESTABLISHMENT = 0x80, 0x20, 0x04, 0x02, 0x01
DID_VID = 0x00011014                    # QEMU's tpm-tis: IBM (0x1014), device 0x0001


def run(qemu, machine):
    """case=tpm-loc's lines on `qemu` with tpm-tis on a fresh swtpm."""
    with getsec_guest.swtpm_tis() as tpm:
        lines, _ = getsec_guest.run_getsec(qemu, "tpm-loc", machine=machine, extra=tpm)
    assert lines[-1] == "done", f"case=tpm-loc did not run to its end: {lines}"
    return lines


def access(prefix, values):
    return [f"{prefix}locality {l} ACCESS = {v:#x}" for l, v in enumerate(values)]


def expected(txt):
    # SeaBIOS leaves locality 0 active; the TPM has seen no DRTM (tpmEstablishment 1)
    idle = REG_VALID | ESTABLISHMENT
    loc0 = idle | ACTIVE
    closed = 0xFF
    if txt:
        before = [loc0, closed, closed, closed, closed]
        did = [DID_VID, 0xFFFFFFFF, 0xFFFFFFFF]
        after4 = before
        after1 = before                 # the write to a closed locality 1 went nowhere
    else:
        before = [loc0, idle, idle, idle, idle]
        did = [DID_VID, DID_VID, DID_VID]
        after4 = before                 # QEMU drops MMIO writes to locality 4 anyway
        # locality 1's request is pending behind locality 0; everybody sees pendingRequest
        after1 = [loc0 | PENDING, idle | REQUEST_USE, idle | PENDING, idle | PENDING,
                  idle | PENDING]
    return ["start", *access("", before),
            *[f"locality {l} DID_VID = {v:#x}" for l, v in zip((0, 1, 4), did)],
            "write REQUEST_USE to locality 4", *access("after: ", after4),
            "write REQUEST_USE to locality 1", *access("after: ", after1),
            "done"]


def test_txt_tpm_only_locality_0_is_open_before_a_launch():
    """txt=on, no launch: locality 0 answers (ACCESS 0xa1, DID_VID); localities 1-4 read
    all-ones, and REQUEST_USE written to locality 4 or 1 changes no ACCESS byte."""
    assert run(txt_qemu(), "q35,txt=on") == expected(txt=True)


@pytest.mark.parametrize("which", ["txt=off", "stock"])
def test_txt_tpm_without_txt_every_locality_answers(which):
    """The controls: txt=off on the patched binary and Debian's stock QEMU: all five
    localities answer, REQUEST_USE at locality 1 is pending behind locality 0."""
    qemu = txt_qemu() if which == "txt=off" else stock_qemu()
    assert run(qemu, "q35") == expected(txt=False)


def test_txt_tpm_localities_1_and_2_open_after_a_launch_and_close_with_the_private_space():
    """After SENTER (echo.bin; its private space left open, as SINIT leaves it): locality 0
    reads tpmEstablishment clear (a DRTM ran), 1-4 are closed; CMD.OPEN-LOCALITY1 opens 1 (it
    answers, not active), CMD.OPEN-LOCALITY2 opens 2; CMD.CLOSE-PRIVATE closes both again; 3
    (AC mode only) and 4 (never from MMIO) stay closed throughout."""
    from test_txt_senter import run_senter
    loc0 = REG_VALID | ACTIVE               # SeaBIOS left it active; tpmEstablishment now 0
    closed, open_ = 0xFF, REG_VALID
    steps = [("", [closed, closed]),
             ("after CMD.OPEN-LOCALITY1: ", [open_, closed]),
             ("after CMD.OPEN-LOCALITY2: ", [open_, open_]),
             ("after CMD.CLOSE-PRIVATE: ", [closed, closed])]
    assert run_senter("tpm-loc-launched") == [
        "start", "SENTER: ok",
        *[l for prefix, (l1, l2) in steps
          for l in access(prefix, [loc0, l1, l2, closed, closed])],
        "done"]
