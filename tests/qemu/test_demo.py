# SPDX-License-Identifier: MIT
"""Issue 21: `make run`'s demo (scripts/demo.sh, the same launcher invocation) launches Debian's
own distribution kernel, the linux-image-6.1.0-*-amd64 package linux-image-amd64 depends on
(scripts/fetch-dist-kernel.sh), with the demo initramfs; the PCRs 17-19 the guest reads equal
vtboot-pcr predict and this suite's own prediction for that kernel, and so does what the demo
prints."""

import os
import re
import subprocess

import vtb

SCRIPTS = os.path.join(vtb.ROOT, "scripts")


def fetch(*args):
    return subprocess.run([os.path.join(SCRIPTS, "fetch-dist-kernel.sh"), *args], check=True,
                          capture_output=True, text=True).stdout.strip()


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
