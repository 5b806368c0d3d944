# SPDX-License-Identifier: MIT
"""Helpers for the QEMU tests: run the launcher, parse what the guest and vtboot print, and
decode the ABI structures at the offsets Linux 6.1 and tboot 1.10 use (written out here,
independently of vtboot's own headers)."""

import os
import re
import struct
import subprocess
import tempfile
from dataclasses import dataclass, field

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.environ.get("VTBOOT_OUT", os.path.join(ROOT, "out"))
LAUNCHER = os.path.join(OUT, "bin", "vtboot-qemu")
VTBOOT_ELF = os.path.join(OUT, "vtboot")

# exit statuses of vtboot-qemu
POWERED_OFF, SETUP_ERROR, RESET, TIMED_OUT, CRASHED = 0, 1, 2, 3, 4

SHARED_UUID = bytes.fromhex("ff8d3c66b3e8824bbfaa19ea4d057a08")
MEMLOG_UUID = bytes.fromhex("262519c0306bb44d4c84a3e953b88174")
EXT_UUID = bytes.fromhex("3c1f5a8e2d7b9e4ca6f05d4b3c2a1908")


@dataclass
class Run:
    rc: int
    serial: str
    stderr: str
    guest: dict = field(default_factory=dict)      # key -> last value
    guest_lines: list = field(default_factory=list)  # (key, value) in order

    def values(self, key):
        return [v for k, v in self.guest_lines if k == key]

    def vtboot_lines(self):
        return [l[len("vtboot: "):] for l in self.serial.splitlines() if l.startswith("vtboot: ")]

    def has_vtboot_line(self, pattern):
        return any(re.search(pattern, l) for l in self.vtboot_lines())

    def linux_ran(self):
        return "Linux version" in self.serial


def boot(*args, timeout=420):
    """Runs vtboot-qemu with args; returns its exit status and the guest's serial output."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "serial.log")
        p = subprocess.run([LAUNCHER, "--serial-log", log, "--timeout", str(timeout), *args],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           errors="replace", timeout=timeout + 120)
        with open(log, "r", errors="replace") as f:
            serial = f.read().replace("\r\n", "\n")
    run = Run(p.returncode, serial, p.stderr)
    for line in serial.splitlines():
        m = re.match(r"^VTBOOT-GUEST: ([A-Za-z0-9_.-]+)[=:] ?(.*)$", line)
        if m:
            run.guest_lines.append((m.group(1), m.group(2)))
            run.guest[m.group(1)] = m.group(2)
    return run


def module_strings(*args):
    """The exact module strings vtboot will get for these launcher arguments."""
    p = subprocess.run([LAUNCHER, "--print-modules", *args], check=True, capture_output=True,
                       text=True)
    return p.stdout.rstrip("\n").split("\n")


def elf_symbols(path=VTBOOT_ELF):
    out = subprocess.run(["nm", path], check=True, capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16)
    return syms


@dataclass
class SharedPage:
    uuid: bytes
    version: int
    log_addr: int
    shutdown_entry: int
    shutdown_type: int
    tboot_base: int
    tboot_size: int
    num_mac_regions: int
    num_in_wfs: int
    flags: int
    ap_wake_addr: int
    ap_wake_trigger: int


def parse_shared_page(raw):
    """struct tboot (Linux 6.1 include/linux/tboot.h) plus tboot's v6 tail."""
    assert len(raw) >= 0x248
    uuid = raw[0:16]
    version, log_addr, entry, stype = struct.unpack_from("<IIII", raw, 0x10)
    base, size = struct.unpack_from("<II", raw, 0x68)
    nmac = raw[0x70]
    (wfs,) = struct.unpack_from("<I", raw, 0x234)
    flags, wake_addr, wake_trig = struct.unpack_from("<IQI", raw, 0x238)
    return SharedPage(uuid, version, log_addr, entry, stype, base, size, nmac, wfs, flags,
                      wake_addr, wake_trig)


def parse_boot_e820(serial):
    """The kernel's 'BIOS-e820: [mem 0x..-0x..] type' lines."""
    out = []
    for m in re.finditer(r"BIOS-e820: \[mem 0x([0-9a-f]+)-0x([0-9a-f]+)\] (\w+)", serial):
        out.append((int(m.group(1), 16), int(m.group(2), 16) + 1, m.group(3)))
    return out


def covered_by(e820, start, end, kind):
    """True if [start, end) lies inside one entry of the given kind."""
    return any(a <= start and end <= b and t == kind for a, b, t in e820)
