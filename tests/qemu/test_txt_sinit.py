"""Debian's unmodified tboot takes our ACM as the platform's SINIT (issue 20: `vtboot-qemu --txt
--sinit F --sinit-key K`).

The ACM is out/test/echo.bin (sinit/test/echo.S, laid out and signed by vtboot-acm with the
project key), loaded as the entry's last module the way Debian's 20_linux_tboot loads
/boot/*sinit*. tboot's does_acmod_match_platform() compares its chipset and processor lists with
our chipset's DIDVID and the CPU's CPUID.1/PLATFORM_ID, then tboot copies it to SINIT.BASE and
dumps its header: that dump must show the file's own bytes. An ACM whose list names another
chipset is refused there (no SINIT, no launch).

Not yet: the launch itself. Without an intel-iommu (patch 0009 and the DMAR `--txt` will then add)
tboot's verify_platform() finds no DMAR and boots Linux unmeasured; with one, GETSEC[SENTER]
(patch 0006) comes next.
"""
import os
import struct
import subprocess
import tempfile

import pytest

import vtb
from test_txt_launch import MEMORY_MB, SINIT_BASE, boot_txt, tboot_lines

ACM_TOOL = os.path.join(vtb.OUT, "bin", "vtboot-acm")
ECHO = os.path.join(vtb.OUT, "test", "echo.bin")
PROJECT_KEY = os.path.join(os.environ.get("VTBOOT_CACHE") or
                           os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                        os.path.expanduser("~/.cache"), "vtboot"),
                           "sinit", "project-key.pem")
CMDLINE = "console=ttyS0 panic=-1"
# acm_hdr_t (include/abi/txt.h): date at 20, size (dwords) at 24, seg_sel at 48, entry at 52
HDR_DATE, HDR_SIZE, HDR_SEG_SEL, HDR_ENTRY = 20, 24, 48, 52


def need(path, how):
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing ({how})")
    return path


def boot_with(acm, loader):
    return boot_txt("--txt", loader, "--kernel", vtb.debian_generic_kernel(), "--memory",
                    str(MEMORY_MB), "--cmdline", CMDLINE, "--sinit", acm,
                    "--sinit-key", need(PROJECT_KEY, "`make` makes it"))


@pytest.mark.parametrize("loader", ["--grub", "--grub-mb1"])
def test_tboot_takes_our_acm_as_the_platforms_sinit(loader):
    with open(need(ECHO, "make out/test/echo.bin"), "rb") as f:
        acm = f.read()
    u32 = lambda off: struct.unpack_from("<I", acm, off)[0]
    run = boot_with(ECHO, loader)
    lines = tboot_lines(run)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    # does_acmod_match_platform(): our chipset and CPU against the ACM's lists
    i = lines.index("checking if module  is an SINIT for this platform...")
    assert lines[i + 1:i + 10] == [
        "chipset production fused: 1",
        "chipset ids: vendor: 0x8086, device: 0xb00f, revision: 0x1",
        "processor family/model/stepping: 0x60fb1",
        "platform id: 0x4000000000000",
        "\t 1 ACM chipset id entries:",
        "\t     vendor: 0x8086, device: 0xb00f, flags: 0x0, revision: 0x1, extended: 0x0",
        "\t 1 ACM processor id entries:",
        "\t     fms: 0x60fb0, fms_mask: 0xfff3ff0, platform_id: 0x4000000000000, "
        "platform_mask: 0x1c000000000000",
        "SINIT matches platform"], "\n".join(lines[i:i + 12])
    # copy_sinit(): the whole file to SINIT.BASE, then the header dump of what it copied
    assert f"copied SINIT (size={len(acm):x}) to {SINIT_BASE:#x}" in lines
    assert u32(HDR_SIZE) * 4 == len(acm)
    assert f"\t date: {u32(HDR_DATE):#010x}" in lines
    assert f"\t size*4: {len(acm):#x} ({len(acm)})" in lines
    assert f"\t entry point: 0x{u32(HDR_SEG_SEL):08x}:{u32(HDR_ENTRY):08x}" in lines
    assert "\t\t capabilities: 0x00000261" in lines
    # module 0 the kernel, 1 the initrd, 2 the ACM: the order of 20_linux_tboot
    assert "got sinit match on module #2" in lines
    assert not [l for l in lines if "chipset id mismatch" in l or "processor id mismatch" in l]


def test_tboot_refuses_an_acm_for_another_chipset():
    with tempfile.TemporaryDirectory() as tmp:
        other = os.path.join(tmp, "sinit-b00e.bin")
        subprocess.run([need(ACM_TOOL, "make out/bin/vtboot-acm"), "break",
                        need(ECHO, "make out/test/echo.bin"), "--chipset", "8086:b00e", "--key",
                        PROJECT_KEY, "-o", other], check=True, capture_output=True)
        run = boot_with(other, "--grub")
    lines = tboot_lines(run)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    i = lines.index("\t     vendor: 0x8086, device: 0xb00e, flags: 0x0, revision: 0x1, extended: 0x0")
    assert lines[i + 1] == "\t chipset id mismatch"
    assert "SINIT matches platform" not in lines
    assert "no SINIT AC module found" in lines
    assert "SINIT ACM not provided." in lines
    assert run.linux_ran()


@pytest.mark.parametrize("args,err", [
    (["--sinit", ECHO], "--tboot, --tboot-cmdline, --sinit, --sinit-key and --qemu go with --txt "
                        "(the TXT platform)"),
    (["--txt", "--sinit", ECHO], "--sinit needs --sinit-key K: the key whose hash the chipset "
                                 "holds as PUBLIC.KEY (vtboot-acm key-hash K)"),
    (["--txt", "--sinit", ECHO, "--sinit-key", ECHO], None),
], ids=["no-txt", "no-key", "not-a-key"])
def test_sinit_options_are_refused_without_what_they_need(args, err):
    p = subprocess.run([vtb.LAUNCHER, *args], capture_output=True, text=True, timeout=60)
    lines = p.stderr.splitlines()
    assert p.returncode == 1 and len(lines) == 1, p.stderr
    if err:
        assert lines[0] == "vtboot-qemu: error: " + err
    else:
        # an ACM is no PEM key: refused before anything starts, naming the file
        assert lines[0].startswith(f"vtboot-qemu: error: --sinit-key {ECHO}: "), lines[0]
