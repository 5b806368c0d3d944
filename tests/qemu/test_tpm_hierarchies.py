# SPDX-License-Identifier: MIT
"""Issue 19, item 5: the launcher owns every TPM state (random owner and lockout
authorizations, kept with the state), while the endorsement hierarchy keeps its empty
authorization for vtboot's S3 seal and vtboot-attest's keys. What the guest can still do
there costs availability only: vtboot fails closed."""

import tempfile

import pytest

import vtb
from vtb import boot

GUEST = "console=ttyS0 panic=-1 no_console_suspend"


def s3_once(state, actions):
    """Boots on the TPM state, runs the guest's actions (the last one s3) and wakes it once if
    it sleeps."""
    return vtb.Running("--tpm-state", state, "--cmdline",
                       f"{GUEST} vtboot.guest={actions}").sleep_cycles(1)


def halted_at_suspend(run):
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.guest["s3-suspend"] == "1"
    # TPM_RC_BAD_AUTH for session 1: the endorsement hierarchy's authorization is not empty
    assert run.has_vtboot_line(r"^ERROR: S3: sealing the memory key: TPM2_CreatePrimary: TPM "
                               r"returned 0x9a2$"), run.serial[-3000:]
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(S3 integrity\)$")
    assert run.has_vtboot_line(r"^ERROR: HALT: S3 integrity check failed$")
    assert "s3-resumed" not in run.guest


@pytest.mark.slow
def test_endorsement_auth_set_by_the_guest_halts_s3():
    """On a state the launcher owns, a suspend and resume work (vtboot needs no owner
    authorization). Then root sets the endorsement hierarchy's authorization (the TPM lets it)
    and suspends: vtboot cannot make its storage primary, says so, caps PCRs 17-19 and halts
    instead of sleeping. The authorization stays with the state: the next boot runs, and its
    suspend halts the same way."""
    with tempfile.TemporaryDirectory() as tmp:
        state = tmp + "/tpm"
        run = s3_once(state, "s3")
        assert run.rc == vtb.POWERED_OFF, run.stderr
        assert run.values("s3-resumed") == ["1 rc=0 "]
        run = s3_once(state, "endorsement-auth,s3")
        assert run.values("endorsement-auth") == ["changeauth-endorsement rc=0x0"]
        assert run.guest["action-endorsement-auth-rc"] == "0"
        halted_at_suspend(run)
        halted_at_suspend(s3_once(state, "s3"))
