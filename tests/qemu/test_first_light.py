# SPDX-License-Identifier: MIT
"""Issue 2, first light: vtboot loads stock Linux 6.1 with a valid tboot shared page, through
QEMU's multiboot1 loader and through GRUB, and refuses bad input with a clean halt."""

import os
import tempfile

import pytest

import vtb
from vtb import boot

TBOOT_LOG = 0x60000
TBOOT_LOG_END = 0x68000


def check_tboot_enabled(run):
    """The shared page as stock Linux found it and as the guest reads it back via /dev/mem."""
    syms = vtb.elf_symbols()
    page = syms["_shared_page"]
    base, end = syms["_region_start"], syms["_end"]

    assert f"tboot: found shared page at phys addr {page:#x}:" in run.serial
    assert int(run.guest["tboot_addr"], 16) == page

    sp = vtb.parse_shared_page(bytes.fromhex(run.guest["shared-page-hex"]))
    assert sp.uuid == vtb.SHARED_UUID
    assert sp.version == 6
    assert sp.log_addr == TBOOT_LOG
    assert sp.shutdown_entry == syms["shutdown_entry"]
    assert sp.tboot_base == base
    assert sp.tboot_size == end - base
    assert base <= sp.shutdown_entry < end
    assert sp.num_in_wfs == 0
    assert sp.num_mac_regions == 0
    assert sp.ap_wake_trigger == 0xFFFFFFFF

    # vtboot's memory, the shared page (not the first page of its entry) and the log are reserved
    e820 = vtb.parse_boot_e820(run.serial)
    assert vtb.covered_by(e820, base, end, "reserved"), e820
    assert vtb.covered_by(e820, TBOOT_LOG, TBOOT_LOG_END, "reserved"), e820
    assert any(a < page < b and t == "reserved" for a, b, t in e820)


def check_memory_log(run):
    """Debian's txt-stat, run in the guest, finds and prints vtboot's memory log."""
    assert run.guest["txt-stat-rc"] == "0"
    lines = run.values("txt-stat")
    assert "TBOOT log:" in lines
    assert "\t max_size=32706" in lines
    assert "\t zip_count=0" in lines
    assert "vtboot: *********************** vtboot ***********************" in lines
    assert any(l.startswith("vtboot: transferring control to Linux at 0x") for l in lines)
    header = bytes.fromhex(run.guest["memlog-hex"])
    assert header[:16] == vtb.MEMLOG_UUID
    assert int.from_bytes(header[16:18], "little") == 32706


def check_clean_poweroff(run):
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert "VTBOOT-GUEST: end" in run.serial
    assert "vtboot: shutdown_entry: S5 (power off) (type 1) on CPU 0" in run.serial


def test_multiboot1_qemu():
    run = boot()
    check_clean_poweroff(run)
    assert run.has_vtboot_line(r"^loader: qemu \(multiboot1\)$")
    check_tboot_enabled(run)
    check_memory_log(run)


def test_multiboot2_grub():
    run = boot("--grub")
    check_clean_poweroff(run)
    assert run.has_vtboot_line(r"^loader: GRUB .* \(multiboot2\)$")
    check_tboot_enabled(run)
    check_memory_log(run)


def test_multiboot1_grub():
    run = boot("--grub-mb1")
    check_clean_poweroff(run)
    assert run.has_vtboot_line(r"^loader: GRUB .* \(multiboot1\)$")
    check_tboot_enabled(run)


def distribution_kernel():
    """Debian's own cloud kernel (relocatable, KASLR, modular), fetched once into the cache."""
    return vtb.debian_kernel("linux-image-cloud-amd64", "distro-kernel")


def test_distribution_kernel():
    run = boot("--kernel", distribution_kernel(), "--memory", "1024")
    check_clean_poweroff(run)
    assert run.has_vtboot_line(r"relocatable, ")
    assert "Debian" in run.serial.split("Linux version", 1)[1].splitlines()[0]
    check_tboot_enabled(run)


@pytest.fixture
def tmpfile():
    with tempfile.TemporaryDirectory() as d:
        yield lambda name, data: _write(os.path.join(d, name), data)


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def check_refused(run, message):
    """A clear error on serial, a clean halt (vtboot powers the VM off), and no Linux."""
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert any(message in l for l in run.vtboot_lines()), run.serial[-3000:]
    assert run.has_vtboot_line(r"^ERROR: HALT: ")
    assert not run.linux_ran()
    assert "transferring control to Linux" not in run.serial


def test_truncated_kernel(tmpfile):
    with open(os.path.join(vtb.OUT, "bzImage"), "rb") as f:
        image = f.read()
    run = boot("--kernel", tmpfile("bzImage", image[: len(image) // 2]))
    check_refused(run, "module 0 is not a usable Linux kernel: kernel image truncated")


def test_kernel_not_a_bzimage(tmpfile):
    run = boot("--kernel", tmpfile("vmlinux", os.urandom(64 * 1024)))
    check_refused(run, "no 'HdrS' setup header (not a bzImage)")


def test_kernel_command_line_too_long():
    args = ("--cmdline", "console=ttyS0 " + "x" * 3000)
    module0 = vtb.module_strings(*args)[0]
    with open(os.path.join(vtb.OUT, "bzImage"), "rb") as f:
        cmdline_size = int.from_bytes(f.read(0x23c)[0x238:0x23c], "little")
    assert len(module0) > cmdline_size
    run = boot(*args)
    check_refused(run, f"kernel command line too long: command line is {len(module0)} bytes, "
                       f"the kernel accepts {cmdline_size}")


def test_no_modules():
    run = boot("--kernel", "", "--initrd", "")
    check_refused(run, "no kernel: no modules: the first module must be a Linux bzImage")
