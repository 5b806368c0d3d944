# SPDX-License-Identifier: MIT
"""Helpers for the kernel patch tests (test_kernel_patches.py): boot the stock and the patched
kernel in the same scenario, read the kernel's own lines, and stop the guest at vtboot's
shutdown_entry (or anywhere) through QEMU's gdbstub to see what the kernel handed over at that
moment: the CPU's registers and the shared page as the kernel just wrote it."""

import os
import re
import struct
import time

import vtb
from qemuctl import Gdb, GdbError

KERNELS = {
    "stock": os.path.join(vtb.OUT, "bzImage-stock"),
    "patched": os.path.join(vtb.OUT, "bzImage"),
}

# the kernel's printk lines on the console: "[    1.234567] text"
_PRINTK = re.compile(r"^\[\s*\d+\.\d+\] (.*)$")


DMESG = "VTBOOT-GUEST: dmesg: "


def kernel_lines(run):
    """The kernel's log lines without their timestamps: what the guest's dmesg action printed,
    then what the console printed after that: dmesg is the kernel's own record, the console
    only what reached COM1 at its log level. Without a dmesg action: the console's lines only."""
    serial = run.serial.splitlines()
    last = max((i for i, l in enumerate(serial) if l.startswith(DMESG)), default=-1)
    dmesg = [l[len(DMESG):] for l in serial[:last + 1] if l.startswith(DMESG)]
    return [m.group(1) for m in map(_PRINTK.match, dmesg + serial[last + 1:]) if m]


def tboot_lines(run):
    """The kernel's "tboot: ..." lines."""
    return [l for l in kernel_lines(run) if l.startswith("tboot: ")]


def boot(kernel, *args, cmdline="console=ttyS0 panic=-1", vtboot_cmdline=None, timeout=180):
    """vtb.boot with the given kernel ("stock" or "patched") and command lines."""
    extra = ["--kernel", KERNELS[kernel], "--cmdline", cmdline]
    if vtboot_cmdline is not None:
        extra += ["--vtboot-cmdline", vtboot_cmdline]
    return vtb.boot(*extra, *args, timeout=timeout)


def vtboot_cmdline(test_shared=None):
    c = "logging=serial,memory loglvl=all"
    return c + (f" test_shared={test_shared}" if test_shared else "")


def shutdown_entry():
    return vtb.elf_symbols()["shutdown_entry"]


def shared_page_addr():
    return vtb.elf_symbols()["_shared_page"]


# ---- the gdbstub, with breakpoints ---------------------------------------------------------------

class Debugger(Gdb):
    """qemuctl.Gdb plus breakpoints: break_at(addr), resume_until_break(), regs()."""

    _target_xml_read = False            # on this connection (set_rip)

    def break_at(self, addr):
        if self._command(b"Z0,%x,1" % addr) != b"OK":
            raise GdbError("cannot set a breakpoint at 0x%x" % addr)

    def clear_break(self, addr):
        self._command(b"z0,%x,1" % addr)

    def run_to(self, addr, timeout):
        """Lets the VM run until the CPU reaches addr, and leaves it stopped there."""
        self.break_at(addr)
        self.resume_until_break(timeout)
        assert self.regs()["rip"] == addr, f"stopped at {self.regs()['rip']:#x}, not {addr:#x}"
        self.clear_break(addr)

    def resume_until_break(self, timeout):
        """Lets the VM run until a breakpoint hits (stop reply T05). Other stop replies, e.g.
        T02 when the launcher pauses the VM for the virtual SENTER, are skipped: whoever paused
        it also resumes it."""
        self._send_packet(b"c")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_packet(deadline)
            if reply.startswith(b"T05") or reply.startswith(b"S05"):
                return reply

    def step_over(self, addr, timeout):
        """Moves the CPU stopped at the breakpoint at addr past it (QEMU would stop there again
        at once): clear, single-step, set again."""
        self.clear_break(addr)
        self._send_packet(b"s")
        deadline = time.monotonic() + timeout
        while not self._read_packet(deadline)[:3] in (b"T05", b"S05"):
            pass
        self.break_at(addr)

    def set_rip(self, value):
        """Writes the stopped CPU's instruction pointer (register 16 of the x86-64 layout; QEMU
        takes its low 4 bytes outside long mode). QEMU's gdbstub takes 'P' only from a client
        that read its target description on this connection, so that is read first."""
        if not self._target_xml_read:
            self._check(self._command(b"qXfer:features:read:target.xml:0,ffb"), "target.xml")
            self._target_xml_read = True
        reply = self._command(b"P10=" + struct.pack("<Q", value).hex().encode())
        if reply != b"OK":
            raise GdbError("cannot write rip: %r" % reply)

    def regs(self):
        """rbx, rip and eflags of the CPU that stopped (x86-64 'g' layout: rax, rbx, ... 16
        GPRs, rip, eflags)."""
        raw = bytes.fromhex(self._check(self._command(b"g"), "read registers").decode())
        rbx = struct.unpack_from("<Q", raw, 8)[0]
        rip, eflags = struct.unpack_from("<QI", raw, 16 * 8)
        return {"rbx": rbx, "rip": rip, "eflags": eflags}


class Stopped:
    """A boot that runs until `where` is executed (by default vtboot's shutdown_entry, on a
    call whose shutdown_type is in `types`), then calls look(dbg) with the VM stopped there.
    QEMU starts paused (-S) so that breakpoints are set before anything runs; `before` is an
    optional list of (addr, fn(dbg)) run when addr is first reached. After look() the VM goes on
    (detach) unless kill is True, in which case the launcher is stopped; finish(running) ends the
    boot (Running.sleep_cycles for a guest that suspends)."""

    def __init__(self, kernel, *args, cmdline="console=ttyS0 panic=-1", vtboot_cmdline=None,
                 types=None, before=(), timeout=240):
        extra = ["--kernel", KERNELS[kernel], "--cmdline", cmdline]
        if vtboot_cmdline is not None:
            extra += ["--vtboot-cmdline", vtboot_cmdline]
        self.run = vtb.Running(*extra, *args, "--", "-S", timeout=timeout)
        self.types = types
        self.before = list(before)
        self.timeout = timeout

    def go(self, look, kill=False, finish=vtb.Running.finish):
        entry = shutdown_entry()
        page = shared_page_addr()
        result = None
        try:
            dbg = Debugger(self.run.gdb_path, timeout=30)
            try:
                for addr, _ in self.before:
                    dbg.break_at(addr)
                dbg.break_at(entry)
                while True:
                    dbg.resume_until_break(self.timeout)
                    rip = dbg.regs()["rip"]
                    hook = [fn for addr, fn in self.before if addr == rip]
                    if hook:
                        dbg.clear_break(rip)
                        self.before = [(a, f) for a, f in self.before if a != rip]
                        hook[0](dbg)
                        continue
                    if rip != entry:
                        continue
                    stype = struct.unpack("<I", dbg.read_phys(page + 0x1c, 4))[0]
                    if self.types is None or stype in self.types:
                        result = look(dbg)
                        break
                    dbg.step_over(entry, self.timeout)
                dbg.clear_break(entry)
            finally:
                if kill:
                    dbg.close(resume=False)
                else:
                    dbg.close(resume=True)
        finally:
            if kill:
                self.run.proc.terminate()
            run = finish(self.run)
        return result, run


# ---- ACPI tables in guest memory (the X_FACS test, test_txt_dmar.py) ------------------------------

def find_table(dbg, sig):
    """(address, bytes) of the ACPI table with signature sig (bytes), found from the RSDP in the
    BIOS area through the XSDT or RSDT."""
    area = dbg.read_phys(0xE0000, 0x20000)
    off = next(i for i in range(0, len(area), 16) if area[i:i + 8] == b"RSD PTR "
               and sum(area[i:i + 20]) & 0xFF == 0)
    rsdp = area[off:off + 36]
    if rsdp[15] >= 2 and struct.unpack_from("<Q", rsdp, 24)[0]:
        root, width = struct.unpack_from("<Q", rsdp, 24)[0], 8
    else:
        root, width = struct.unpack_from("<I", rsdp, 16)[0], 4
    length = struct.unpack("<I", dbg.read_phys(root + 4, 4))[0]
    table = dbg.read_phys(root, length)
    for i in range(36, length, width):
        addr = int.from_bytes(table[i:i + width], "little")
        if dbg.read_phys(addr, 4) == sig:
            n = struct.unpack("<I", dbg.read_phys(addr + 4, 4))[0]
            return addr, dbg.read_phys(addr, n)
    raise AssertionError(f"no {sig.decode()} table")


def checksummed(table):
    t = bytearray(table)
    t[9] = 0
    t[9] = (-sum(t)) & 0xFF
    return bytes(t)


def move_facs_to_x_facs(dbg):
    """FADT.FIRMWARE_CTRL (32-bit FACS address, offset 36) to 0, X_FIRMWARE_CTRL (offset 132)
    to the FACS address, checksum fixed. Returns the FACS address."""
    addr, fadt = find_table(dbg, b"FACP")
    assert len(fadt) >= 140, len(fadt)
    facs = struct.unpack_from("<I", fadt, 36)[0]
    assert facs, "the FADT has no 32-bit FACS address"
    t = bytearray(fadt)
    struct.pack_into("<I", t, 36, 0)
    struct.pack_into("<Q", t, 132, facs)
    dbg.write_phys(addr, checksummed(t))
    return facs


# ---- struct tboot fields at the moment of the call ------------------------------------------------

def mac_regions(dbg):
    """(start, size) of the MAC regions the kernel wrote into the shared page."""
    page = shared_page_addr()
    raw = dbg.read_phys(page + 0x70, 1 + 32 * 12)
    return [struct.unpack_from("<QI", raw, 1 + 12 * i) for i in range(raw[0])]


def wakeup_vector(dbg):
    return struct.unpack("<Q", dbg.read_phys(shared_page_addr() + 0x54, 8))[0]


# ---- e820 as the kernel got it -------------------------------------------------------------------

def ram_ranges(run):
    """The e820 RAM ranges the kernel was given (its BIOS-e820 lines), as [start, end)."""
    return [(a, b) for a, b, t in vtb.parse_boot_e820("\n".join(kernel_lines(run)))
            if t == "usable"]


def merged(ranges):
    out = []
    for a, b in sorted(ranges):
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def inward(a, b, page=0x1000):
    return (max(-(-a // page) * page, page), b // page * page)
