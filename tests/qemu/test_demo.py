# SPDX-License-Identifier: MIT
"""Issue 21: `make run`'s demo (scripts/demo.sh, the same launcher invocation) launches Debian's
own distribution kernel, the linux-image-6.1.0-*-amd64 package linux-image-amd64 depends on
(scripts/fetch-dist-kernel.sh), with the demo initramfs; the PCRs 17-19 the guest reads equal
vtboot-pcr predict and this suite's own prediction for that kernel, and so does what the demo
prints."""

import os
import re
import subprocess

import pytest

import vtb

SCRIPTS = os.path.join(vtb.ROOT, "scripts")


def fetch(*args):
    return subprocess.run([os.path.join(SCRIPTS, "fetch-dist-kernel.sh"), *args], check=True,
                          capture_output=True, text=True).stdout.strip()


@pytest.mark.slow
def test_demo_pcrs_equal_predictions():
    kernel = fetch()
    package, version = fetch("--print-package").split(" ")
    abi = package[len("linux-image-"):]
    assert re.fullmatch(r"6\.1\.0-\d+-amd64", abi)
    assert os.path.basename(kernel) == f"vmlinuz-{abi}"

    p = subprocess.run([os.path.join(SCRIPTS, "demo.sh")], env={**os.environ, "OUT": vtb.OUT},
                       capture_output=True, text=True, errors="replace", timeout=600)
    serial = vtb.untangle_console(p.stdout.replace("\r\n", "\n"))
    run = vtb.parse_run(p.returncode, serial, p.stderr)
    assert run.rc == 0, p.stdout[-3000:] + p.stderr

    # the demo booted what it says, as make run does
    launcher_args = ["--kernel", kernel, "--timeout", "300"]
    assert f"demo: the launcher: {vtb.OUT}/bin/vtboot-qemu {' '.join(launcher_args)}" in serial
    assert "vtboot-qemu: guest powered off (SHUTDOWN guest-shutdown" in run.stderr
    banner = serial.split("Linux version ", 1)[1].splitlines()[0]
    assert banner.startswith(f"{abi} (debian-kernel@lists.debian.org)")
    assert f" Debian {version} " in banner
    modules = vtb.module_strings(*launcher_args)
    assert modules == [f"vmlinuz-{abi} console=ttyS0 panic=-1", "initrd.img"]
    assert run.has_vtboot_line(r"^measured launch: 4 extends into PCRs 17-19, event log at 0x")
    assert run.guest["tboot-cpuhp-state"] == "present"

    # the PCRs the guest read equal two predictions from the files
    vcmd = subprocess.run([vtb.LAUNCHER, "--print-cmdline", *launcher_args], check=True,
                          capture_output=True, text=True).stdout.rstrip("\n")
    initrd = os.path.join(vtb.OUT, "initrd.img")
    tool = vtb.vtboot_pcr("--kernel", kernel, "--cmdline", modules[0], "--initrd", initrd,
                          "--initrd-cmdline", modules[1], "--vtboot-cmdline", vcmd)
    ours = vtb.predict([(modules[0], vtb.image_bytes(kernel)),
                        (modules[1], vtb.image_bytes(initrd))], vcmd)
    assert ours == tool
    assert vtb.guest_pcrs(run) == tool
    assert tool[(19, "sha256")] == "00" * 32

    # and the demo's own comparison printed exactly these values
    printed = [l for l in serial.splitlines() if re.match(r"^demo:   PCR ", l)]
    assert printed == [f"demo:   PCR {pcr} {bank} {tool[(pcr, bank)]}  equal"
                       for pcr in (17, 18, 19) for bank in ("sha1", "sha256")]
    assert serial.rstrip("\n").endswith("demo: line and the initramfs before it ran Linux")


# ---- which kernel, offline (no boot): apt-get and apt-cache replaced by scripts -------------

FAKE_APT_CACHE = """#!/bin/sh
case "$1" in
depends) echo "linux-image-amd64"; echo "  Depends: linux-image-6.1.0-99-amd64" ;;
policy) echo "linux-image-6.1.0-99-amd64:"; echo "  Installed: (none)"; echo "  Candidate: 6.1.999-1" ;;
esac
"""
FAKE_APT_GET = """#!/bin/sh
echo "E: offline" >&2
exit 100
"""


def offline_fetch(tmp_path, cached, without_msr=()):
    """fetch-dist-kernel.sh with apt's lists naming linux-image-6.1.0-99-amd64 6.1.999-1 and
    every download failing, on a cache holding the finished directories `cached`; those also in
    `without_msr` are as an older fetch left them, without msr.ko (and the virtio modules)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("apt-cache", FAKE_APT_CACHE), ("apt-get", FAKE_APT_GET)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    cache = tmp_path / "cache"
    for d in cached:
        abi = d.split("_")[0][len("linux-image-"):]
        (cache / "dist-kernel" / d).mkdir(parents=True)
        (cache / "dist-kernel" / d / f"vmlinuz-{abi}").write_bytes(b"kernel")
        (cache / "dist-kernel" / d / ".done").write_bytes(b"")
        if d not in without_msr:
            (cache / "dist-kernel" / d / "msr.ko").write_bytes(b"module")
            (cache / "dist-kernel" / d / "modules").mkdir()
            (cache / "dist-kernel" / d / "modules" / "order").write_text("virtio_blk.ko\n")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "VTBOOT_CACHE": str(cache)}
    env.pop("VTBOOT_DIST_KERNEL", None)
    p = subprocess.run([os.path.join(SCRIPTS, "fetch-dist-kernel.sh")], env=env,
                       capture_output=True, text=True)
    return p, f"{cache}/dist-kernel"


def test_offline_the_cached_version_needs_no_download(tmp_path):
    p, cache = offline_fetch(tmp_path, ["linux-image-6.1.0-99-amd64_6.1.999-1"])
    assert (p.returncode, p.stderr) == (0, "")
    assert p.stdout == f"{cache}/linux-image-6.1.0-99-amd64_6.1.999-1/vmlinuz-6.1.0-99-amd64\n"


def test_offline_the_newest_cached_kernel_instead(tmp_path):
    # the newest one of all has no msr.ko (an older fetch): not complete, not used
    p, cache = offline_fetch(tmp_path, ["linux-image-6.1.0-9-amd64_6.1.27-1",
                                        "linux-image-6.1.0-50-amd64_6.1.170-1",
                                        "linux-image-6.1.0-60-amd64_6.1.180-1"],
                             without_msr=["linux-image-6.1.0-60-amd64_6.1.180-1"])
    assert p.returncode == 0, p.stderr
    assert p.stdout == f"{cache}/linux-image-6.1.0-50-amd64_6.1.170-1/vmlinuz-6.1.0-50-amd64\n"
    assert p.stderr.splitlines() == [
        "dist-kernel: fetching linux-image-6.1.0-99-amd64 6.1.999-1 (apt-get download, about "
        f"70 MB) into {cache}",
        "E: offline",
        "dist-kernel: WARNING: cannot download linux-image-6.1.0-99-amd64=6.1.999-1; using the "
        "newest cached kernel, linux-image-6.1.0-50-amd64_6.1.170-1"]


def test_offline_with_an_empty_cache_fails_and_says_why(tmp_path):
    p, cache = offline_fetch(tmp_path, [])
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr.splitlines()[-1] == (
        "dist-kernel: ERROR: cannot download linux-image-6.1.0-99-amd64=6.1.999-1, and no kernel "
        f"is cached in {cache}: the first run needs the network (apt-get download of "
        "linux-image-amd64's kernel, about 70 MB)")
