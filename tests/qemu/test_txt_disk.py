# SPDX-License-Identifier: MIT
"""Issue 39 item 6: an installed guest on the TXT platform (`vtboot-qemu --txt --disk`).

The installed-guest image of test_disk.py with Debian's tboot package installed by dpkg inside
it and our SINIT as /boot/vtboot-sinit.bin (scripts/build-disk-image-txt.sh, `make
disk-image-txt`, cached): update-grub's 20_linux_tboot entry is GRUB's default. The platform's
BIOS boots the disk's MBR, its GRUB loads tboot, the kernel, the initrd and the SINIT from the
disk, our SINIT launches tboot under the halt policy, and Debian's kernel boots to systemd and
its serial login prompt (a second boot, left running until the prompt). Asserted: the entry update-grub wrote, tboot's verdicts, systemd and the
getty, Debian's txt-stat in the guest, PCRs 17-19 of both banks read in the guest equal to
`vtboot-pcr predict --sinit` from the image's own files and the strings GRUB passed, and the
power off through tboot's SEXIT. Every expected value comes from the image (debugfs)."""
import os
import re
import subprocess
import tempfile

import pytest

import vtb
from test_disk import (Image, action_args, disk_lines, disk_value, eventlog_replay, grub_words,
                       make_disk_image, overlay, pcrread, report)
from test_txt_launch import MEMORY_MB, TIMEOUT, assert_platform_verified, boot_txt, tboot_lines
from test_txt_sinit import PROJECT_KEY, SINIT, halt_policy, need, txt_shutdown

SINIT_ON_DISK = "/boot/vtboot-sinit.bin"
# scripts/disk-image/setup-txt.sh: /etc/default/grub-tboot's additions
TBOOT_CMDLINE = "logging=serial,memory loglvl=all ap_wake_mwait=true"


@pytest.fixture(scope="module")
def image():
    need(SINIT, "make out/sinit.bin")
    return Image(make_disk_image("disk-image-txt", "disk-txt.img", "VTBOOT_TXT_DISK_IMAGE"))


def tboot_entry(cfg, title):
    """The lines of the menuentry titled so (20_linux_tboot writes no ids)."""
    lines, cur = None, False
    for line in cfg.splitlines():
        s = line.strip()
        if s.startswith(f"menuentry '{title}' "):
            lines, cur = [], True
        elif cur and s == "}":
            cur = False
        elif cur:
            lines.append(s)
    assert lines, f"no menuentry '{title}' in grub.cfg"
    return lines


class Entry:
    """The default tboot entry of the image and its files, extracted into tmp."""

    def __init__(self, image, tmp):
        default = re.search(r'^GRUB_DEFAULT="([^"\n]+)"$',
                            image.text("/etc/default/grub.d/60-vtboot-txt-image.cfg"), re.M)
        self.submenu, self.title = default.group(1).split(">")
        self.version = self.title.rsplit(" ", 1)[1]
        self.cfg = image.text("/boot/grub/grub.cfg")
        self.lines = tboot_entry(self.cfg, self.title)
        mb = [grub_words(l) for l in self.lines if l.startswith("multiboot2")]
        mods = [grub_words(l) for l in self.lines if l.startswith("module2")]
        # Debian's /etc/default/grub-tboot (1.10.5-4) lists the SINIT globs twice: every SINIT
        # is loaded twice, and tboot takes the first that matches the platform
        assert len(mb) == 1 and len(mods) == 4 and mods[2] == mods[3], self.lines
        (tb, self.tboot_cmdline), (k, self.kernel_cmdline), (i, self.initrd_cmdline), \
            (s, self.sinit_cmdline) = [(w[1], " ".join(w[2:])) for w in mb + mods[:3]]
        self.paths = (tb, k, i, s)
        self.tboot = image.dump(tb, os.path.join(tmp, "tboot.gz"))
        self.kernel = image.dump(k, os.path.join(tmp, os.path.basename(k)))
        self.initrd = image.dump(i, os.path.join(tmp, os.path.basename(i)))
        self.sinit = image.dump(s, os.path.join(tmp, "sinit.bin"))

    def predict(self):
        """PCRs 17-19 of both banks by vtboot-pcr predict --sinit, from the image's files."""
        return vtb.vtboot_pcr("--sinit", self.sinit, "--vtboot", self.tboot, "--vtboot-cmdline",
                              self.tboot_cmdline, "--kernel", self.kernel, "--cmdline",
                              self.kernel_cmdline, "--initrd", self.initrd, "--initrd-cmdline",
                              self.initrd_cmdline, "--policy", halt_policy())


def txt_disk_args(disk, action):
    """--txt --disk with our SINIT's key on the chipset and the halt policy in the index our
    SINIT makes tboot read (--sinit names the SINIT the disk holds: only for that index)."""
    return ["--txt", "--disk", disk, "--memory", str(MEMORY_MB), "--sinit", SINIT,
            "--sinit-key", need(PROJECT_KEY, "`make` makes it"), "--policy", halt_policy(),
            *action_args(action)]


@pytest.fixture(scope="module")
def booted(image):
    with tempfile.TemporaryDirectory() as tmp:
        entry = Entry(image, tmp)
        pcrs = entry.predict()
        run = boot_txt(*txt_disk_args(overlay(image.path, tmp), "poweroff"))
        yield entry, pcrs, run


LOGGED_IN = 101         # the boot below ended by the test at the login prompt


@pytest.mark.slow
def test_disk_boots_to_the_serial_login_prompt(image):
    """The same launch left running (report.sh's action "none", as a user's boot): systemd
    starts the serial getty, whose login prompt comes after the launch tboot verified; the test
    ends the VM there (the image has no ACPI button driver for a power-button shutdown)."""
    with tempfile.TemporaryDirectory() as tmp:
        r = vtb.Running(*txt_disk_args(overlay(image.path, tmp), "none"), timeout=TIMEOUT)
        # the prompt, and report.sh's lines (systemd starts both in multi-user.target)
        r.wait_serial("vtboot-guest login: ", TIMEOUT)
        run = r.finish_at("VTBOOT-DISK: report-end: boot", LOGGED_IN)
    assert run.rc == LOGGED_IN, run.stderr[-3000:] + "\n" + run.serial[-3000:]
    assert_platform_verified(run.serial)
    assert "measured launch succeeded" in tboot_lines(run)
    assert disk_value(run, "action") == ["none"]
    i = run.serial.index("TBOOT: transfering control to kernel")
    assert run.serial.index("Debian GNU/Linux 12 vtboot-guest ttyS0", i) < \
        run.serial.index("vtboot-guest login: ", i)
    assert "\t TXT measured launch: TRUE" in disk_lines(run, "txt-stat")


def test_update_grub_wrote_the_tboot_entry_with_our_sinit(image):
    """dpkg -i tboot and update-grub in the image wrote 20_linux_tboot's entry: tboot.gz of the
    package (the same file as this machine's), the kernel with no_timer_check after Debian's
    default intel_iommu=on was replaced, the initrd, and our SINIT found by the /boot/*sinit*
    glob; it is GRUB's default."""
    with tempfile.TemporaryDirectory() as tmp:
        e = Entry(image, tmp)
        assert e.submenu == "tboot 1.10.5"
        assert e.title == f"Debian GNU/Linux, with tboot 1.10.5 and Linux {e.version}"
        assert not e.version.endswith("-rt-amd64")
        assert e.paths == ("/boot/tboot.gz", f"/boot/vmlinuz-{e.version}",
                           f"/boot/initrd.img-{e.version}", SINIT_ON_DISK)
        assert e.tboot_cmdline == TBOOT_CMDLINE
        # GRUB_CMDLINE_LINUX (the image's), Debian's GRUB_CMDLINE_LINUX_DEFAULT, then
        # GRUB_CMDLINE_LINUX_TBOOT (setup-txt.sh's, in place of Debian's intel_iommu=on)
        assert re.fullmatch(r"root=UUID=[0-9a-f-]+ ro console=ttyS0,115200 quiet no_timer_check",
                            e.kernel_cmdline), e.kernel_cmdline
        assert e.initrd_cmdline == "" and e.sinit_cmdline == ""
        with open(e.sinit, "rb") as a, open(SINIT, "rb") as b:
            assert a.read() == b.read()
        with open(e.tboot, "rb") as a, open("/boot/tboot.gz", "rb") as b:
            assert a.read() == b.read()
        # the setup boot's copy of grub.cfg right after update-grub: nothing rewrote it since
        assert image.text("/var/lib/vtboot-image/grub.cfg.tboot") == e.cfg
    status = image.text("/var/lib/dpkg/status")
    assert re.search(r"^Package: tboot\nStatus: install ok installed\n", status, re.M)


@pytest.mark.slow
def test_disk_boots_its_grub_tboot_entry_to_systemd(booted):
    entry, pcrs, run = booted
    assert run.rc == vtb.POWERED_OFF, run.stderr[-3000:] + "\n" + run.serial[-3000:]
    lines = tboot_lines(run)
    # GRUB passed the entry: tboot's own line, three modules, our SINIT matched as module 2
    assert f"command line: {TBOOT_CMDLINE}" in lines
    assert "SINIT matches platform" in lines and "got sinit match on module #2" in lines
    assert "measured launch succeeded" in lines and "TXT.ERRORCODE: 0x0" in lines
    assert [l for l in run.serial.splitlines() if l.startswith("sinit: MLE measured")]
    # Debian's kernel under systemd, up to the serial getty's login prompt
    rep = report(run, "boot", ("init", "kernel", "cmdline", "multi-user.target", "dmesg",
                               "pcrread", "stat"))
    assert rep["init"] == ["systemd"] and rep["multi-user.target"] == ["active"]
    assert rep["kernel"] == [entry.version]
    assert rep["cmdline"] == [entry.kernel_cmdline]
    # Linux's tboot driver took tboot's shared page
    assert [l.split("] ", 1)[1] for l in rep["dmesg"]][:1] == [
        re.search(r"tboot: found shared page at phys addr 0x[0-9a-f]+:", run.serial).group(0)]
    # vtboot's tool in the guest sees tboot's shared page, and no vtboot block in it
    assert "vtboot: no vtboot block in the shared page (tboot, or an older vtboot)" in rep["stat"]
    # Debian's txt-stat in the guest: the launch, the secrets flag
    stat = disk_lines(run, "txt-stat")
    assert "\t TXT measured launch: TRUE" in stat, "\n".join(stat)
    assert "\t secrets flag set: TRUE" in stat, "\n".join(stat)
    # PCRs 17-19 in both banks = vtboot-pcr predict --sinit from the image's files
    got = eventlog_replay(disk_value(run, "txt-pcrread"))
    assert {(p, b): got[(b, p)] for p in (17, 18, 19) for b in ("sha1", "sha256")} == pcrs
    assert pcrread(rep["pcrread"]) == {p: pcrs[(p, "sha256")] for p in (17, 18, 19)}
    # systemd's power off through tboot's shutdown entry: PCRs capped, SEXIT, S5
    assert disk_value(run, "action") == ["poweroff"]
    txt_shutdown(run, "TB_SHUTDOWN_S5")


@pytest.mark.parametrize("more,err", [
    (["--tboot", "/boot/tboot.gz"], "--txt excludes --tboot, --tboot-cmdline, --lcp-data and "
     "--attest with --disk: the disk's own GRUB loads tboot, its command line, the kernel, the "
     "SINIT and the policy data from the disk's /boot"),
    (["--attest"], "--txt excludes --tboot, --tboot-cmdline, --lcp-data and --attest with "
     "--disk: the disk's own GRUB loads tboot, its command line, the kernel, the SINIT and the "
     "policy data from the disk's /boot"),
    (["--kernel", "k"], "--disk boots the disk's own loader, which picks vtboot, the kernel, the "
     "initrd and their command lines: it excludes --kernel, --initrd, --cmdline, --vtboot, "
     "--vtboot-cmdline, --grub, --grub-mb1, --grub-prelude, --make-iso, --print-modules and "
     "--print-cmdline"),
], ids=["tboot", "attest", "kernel"])
def test_txt_disk_refuses_what_the_disk_decides(more, err):
    p = subprocess.run([vtb.LAUNCHER, "--txt", "--disk", "x.img", *more], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 1 and p.stderr == f"vtboot-qemu: error: {err}\n", p.stderr
