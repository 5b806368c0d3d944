# SPDX-License-Identifier: MIT
"""Issue 39 item 5: hibernation (S4) through tboot on the TXT platform, with Debian's tboot and
kernel through GRUB under the halt policy. Linux writes its image to the swap on a virtio disk
(`vtboot-qemu --data-disk`; the disk's drivers are Debian's modules, appended to the initrd) and
enters S4 through tboot's shutdown entry (ACPI S4 → TB_SHUTDOWN_S4): tboot caps PCRs 17-19,
clears SECRETS, leaves the measured environment and writes S4, and QEMU powers off. The next
boot is a new measured launch of the same files; its kernel finds the image and restores it,
and the restored system reads the PCRs that launch left, `vtboot-pcr predict --sinit`'s
values. Nothing measures the image itself: the PCRs prove the kernel that restored it (as
with tboot on hardware; docs/trust-model.md)."""

import os

import pytest

import vtb
from test_txt_launch import boot_txt, tboot_lines
from test_txt_sinit import CMDLINE, halt_policy, prediction, txt_launch

SWAP_BYTES = 256 << 20
PAGE = 4096


def swap_signature(path):
    """The 10 bytes at the end of the swap header's page: SWAPSPACE2, or S1SUSPEND with an
    image."""
    with open(path, "rb") as f:
        f.seek(PAGE - 10)
        return f.read(10).rstrip(b"\0")


@pytest.mark.slow
def test_hibernation_through_tboot_and_a_new_launch_that_restores_the_image(tmp_path):
    swap = tmp_path / "swap.img"
    with open(swap, "wb") as f:
        f.truncate(SWAP_BYTES)
    kernel = vtb.debian_generic_kernel()
    initrd = vtb.initrd_with(str(tmp_path), vtb.debian_generic_virtio_modules())
    cmdline = f"{CMDLINE} vtboot.guest=s4"
    args = [*txt_launch("--grub", kernel, cmdline), "--initrd", initrd, "--data-disk", str(swap)]

    first = boot_txt(*args)
    assert first.rc == vtb.POWERED_OFF, first.stderr[-2000:] + "\n" + first.serial[-3000:]
    assert "guest suspended to disk (S4" in first.stderr
    assert first.guest.get("s4-hibernate") == "platform", first.serial[-3000:]
    assert "s4-resumed" not in first.guest
    lines = tboot_lines(first)
    s4 = lines.index("shutdown_system() called for shutdown_type: TB_SHUTDOWN_S4")
    capped = lines.index("cap'ed dynamic PCRs")
    assert capped < lines.index("executing GETSEC[SEXIT]...", capped) < s4
    assert swap_signature(swap) == b"S1SUSPEND"

    second = boot_txt(*args)
    assert second.rc == vtb.POWERED_OFF, second.stderr[-2000:] + "\n" + second.serial[-3000:]
    assert "measured launch succeeded" in tboot_lines(second)
    assert second.values("s4-resume") == ["254:0"]
    assert second.guest.get("s4-resumed") == "rc=0 ", second.serial[-3000:]
    # the restored system reads what the second launch measured: the prediction
    second.loader, second.kernel, second.cmdline, second.initrd, second.policy = \
        "--grub", kernel, cmdline, initrd, halt_policy()
    want = prediction(second)
    for p in (17, 18):
        assert second.guest[f"s4-pcr-sha256-{p}"] == want[(p, "sha256")]
    # the restored system powers off through the second launch's tboot
    after = tboot_lines(second)
    assert after.index("shutdown_system() called for shutdown_type: TB_SHUTDOWN_S5") > \
        after.index("measured launch succeeded")
    assert swap_signature(swap) == b"SWAPSPACE2"
