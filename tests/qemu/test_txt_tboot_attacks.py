# SPDX-License-Identifier: MIT
"""Attacks armed before the launch, against Debian's unmodified tboot on the emulated TXT
platform (issue 20), launched by our SINIT into the project's kernel: the paravirtual launch's
INIT attack (issue 19's `pciinit`, tests/qemu/test_event_sources.py), and a device's DMA into
the measured MLE.

The attacker controls everything before the launch; here the host plays it, through the gdbstub
(physical memory, PCI configuration through q35's ECAM window) and the monitor (CMOS), while
GRUB loads the entry, before tboot runs: QEMU's edu device gets bus mastering and MSI in INIT
mode to APIC 0, and the warm-reset vector (CMOS shutdown code 0x0A, 40:67) points at a stub of
the attacker's that prints on COM1 and powers off. edu raises its interrupt once tboot reports the measured launch.
An INIT of the BSP in the measured environment resets the platform (qemu/patches 0012; with
SECRETS set the reset scrubs memory, 0011), so the stub never runs with the launch's PCRs: the
machine starts again, tboot launches anew and Linux reports PCRs equal to the prediction. The
control raises the interrupt before the launch: there the INIT takes the CPU through the
warm-reset vector into the stub, which shows that the arming reaches the CPU.

The DMA: before the launch edu copies 64 bytes of the attacker's into its own buffer; once tboot
reports the launch it is told to copy them over a page of tboot's measured MLE. The PMRs our
SINIT set (over all low RAM, as tboot asks in OsSinitData) keep the page as it was, and the
boot goes on to PCRs equal to the prediction. The control copies them out again before the
launch, to low RAM: the copy lands (the device and its DMA work).

The same DMA into the kernel tboot measured: the host stops the CPU where tboot hands over to
Linux (its breakpoint at the kernel's 32-bit entry; tboot has hashed the kernel and copied it
there), has edu copy its bytes over a page of that kernel while the CPU waits in a loop of the
host's, then lets Linux start. Blocked by the PMRs: the page is the bzImage's as measured, and
Linux boots to the predicted PCRs. The control clears PMEN.EPM first (as only the MLE could,
in the DRHD), and the copy lands in the kernel."""
import os
import struct

import kpatch
import vtb
from test_txt_launch import TBOOT_HALTED, TBOOT_HALTS, assert_platform_verified
from test_txt_sinit import CMDLINE, halt_policy, need, prediction, txt_launch

ECAM = 0xB0000000                       # q35's MMCONFIG window (the MCFG table)
EDU_ID = 0x11E81234                     # device 0x11e8, vendor 0x1234
MSI_INIT_DATA = 0x0500                  # delivery mode INIT (101b), vector 0
MSI_ADDRESS_APIC0 = 0xFEE00000
STUB = 0x7000                           # the attacker's real-mode stub, below 1 MiB
STUB_LINE = b"\r\nSTUB: PWNED: the attacker's code runs\r\n"
GRUB_BOOTS = "Booting `GNU/Linux, with vtboot and Linux'"      # once a boot
LAUNCHED = "TBOOT: measured launch succeeded"


def stub_code():
    """16-bit code: every byte of STUB_LINE out to COM1, then S5 through q35's PM1a_CNT
    (SeaBIOS puts the PM base at 0x600; SLP_TYP 0 is QEMU's S5), as badload powers off."""
    code = bytes([0xBA, 0xF8, 0x03])                        # mov dx, 0x3f8
    for c in STUB_LINE:
        code += bytes([0xB0, c, 0xEE])                       # mov al, c; out dx, al
    code += bytes([0xBA, 0x04, 0x06, 0xB8, 0x00, 0x20, 0xEF])  # mov dx, 0x604; mov ax, 0x2000; out dx, ax
    return code + bytes([0xF4, 0xEB, 0xFD])                 # hlt; jmp hlt


def cfg(dev, off):
    return ECAM + (dev << 15) + off


def find_edu(gdb):
    for dev in range(32):
        if struct.unpack("<I", gdb.read_phys(cfg(dev, 0), 4))[0] == EDU_ID:
            return dev
    raise AssertionError("no edu on bus 0 (-device edu)")


def msi_cap(gdb, dev):
    at = gdb.read_phys(cfg(dev, 0x34), 1)[0]
    while at:
        cap_id, nxt = gdb.read_phys(cfg(dev, at), 2)
        if cap_id == 0x05:
            return at
        at = nxt
    raise AssertionError("edu has no MSI capability")


def edu_bus_master(gdb):
    """edu with memory decoding and bus mastering on, as the attacker's loader leaves it;
    returns its slot and BAR 0 (the firmware assigned it)."""
    dev = find_edu(gdb)
    command = struct.unpack("<H", gdb.read_phys(cfg(dev, 4), 2))[0]
    gdb.write_phys(cfg(dev, 4), struct.pack("<H", command | 0x6))     # memory, bus master
    bar0 = struct.unpack("<I", gdb.read_phys(cfg(dev, 0x10), 4))[0] & ~0xF
    assert bar0, "edu's BAR 0 is not assigned"
    return dev, bar0


def arm_msi(gdb, address=MSI_ADDRESS_APIC0, data=MSI_INIT_DATA):
    """edu's MSI enabled, its message the 64-bit address and data given (INIT to APIC 0 by
    default)."""
    dev = find_edu(gdb)
    cap = msi_cap(gdb, dev)
    control = struct.unpack("<H", gdb.read_phys(cfg(dev, cap + 2), 2))[0]
    assert control & 0x80, "edu's MSI has no 64-bit address"
    gdb.write_phys(cfg(dev, cap + 4), struct.pack("<IIH", address, 0, data))
    gdb.write_phys(cfg(dev, cap + 2), struct.pack("<H", control | 1))


def arm(gdb):
    """What the attacker's loader leaves armed; returns edu's BAR 0."""
    _, bar0 = edu_bus_master(gdb)
    arm_msi(gdb)
    gdb.write_phys(STUB, stub_code())
    gdb.write_phys(0x467, struct.pack("<HH", STUB, 0))                 # 40:67 = 0000:7000
    gdb.monitor("o /b 0x70 0x0f")
    gdb.monitor("o /b 0x71 0x0a")                                      # jump via 40:67
    return bar0


def raise_edu_interrupt(gdb, bar0):
    gdb.write_phys(bar0 + 0x60, struct.pack("<I", 1))                  # edu: raise interrupt


# edu's DMA engine (hw/misc/edu.c): source, destination, count, command; its buffer is at
# 0x40000 in its own address space; the copy runs 100 ms (virtual) after the command
EDU_DMA_SRC, EDU_DMA_DST, EDU_DMA_CNT, EDU_DMA_CMD = 0x80, 0x88, 0x90, 0x98
EDU_BUFFER = 0x40000
DMA_RUN, DMA_TO_RAM = 0x1, 0x2
PATTERN = bytes((i * 7 + 1) & 0xFF for i in range(64))
STAGING = 0x7000                        # low RAM the attacker's loader owns before the launch


def edu_dma(gdb, bar0, src, dst, cmd):
    gdb.write_phys(bar0 + EDU_DMA_SRC, struct.pack("<Q", src))
    gdb.write_phys(bar0 + EDU_DMA_DST, struct.pack("<Q", dst))
    gdb.write_phys(bar0 + EDU_DMA_CNT, struct.pack("<Q", len(PATTERN)))
    gdb.write_phys(bar0 + EDU_DMA_CMD, struct.pack("<Q", cmd | DMA_RUN))


def edu_dma_done(running, bar0, what, timeout=60):
    """Waits (the VM running) until edu's command says the copy ran."""
    import time
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        time.sleep(0.3)
        with vtb.Gdb(running.gdb_path) as gdb:
            if not struct.unpack("<I", gdb.read_phys(bar0 + EDU_DMA_CMD, 4))[0] & DMA_RUN:
                return
    raise TimeoutError(running.abandon(f"edu's DMA {what} did not run"))


def start(*more, kernel=None, cmdline=CMDLINE):
    """The project's kernel (or kernel, under cmdline) through GRUB and tboot with our SINIT
    and an edu, stopped in the gdbstub's hands as GRUB starts the entry: the firmware has given
    edu its BAR, and GRUB's loading of the entry's files lies between there and tboot (the
    host's poll may miss the short way from tboot's banner to SENTER). Returns the boot and the
    kernel."""
    kernel = kernel or need(os.path.join(vtb.OUT, "bzImage"), "make out/bzImage")
    running = vtb.Running(*txt_launch("--grub", kernel, cmdline), *more, "--", "-device", "edu",
                          timeout=300)
    if not running.wait_serial(GRUB_BOOTS, 240):
        raise TimeoutError(running.abandon("GRUB did not start the entry"))
    return running, kernel


def wait_for_the_launch(running):
    if not running.wait_serial(LAUNCHED, 240):
        raise TimeoutError(running.abandon("tboot did not report the launch"))


def finished(running, kernel, verified=True, cmdline=CMDLINE):
    """The finished run, with what prediction() needs to know of it; tboot must have found the
    platform as a TXT platform must be (test_txt_launch.TBOOT_PLATFORM_FAILURES) unless the test
    provokes its failures itself (verified=False). A boot that tboot ends by halting (the halt
    policy) ends there, with status TBOOT_HALTED."""
    run = running.finish_at(TBOOT_HALTS, TBOOT_HALTED)
    if verified:
        assert_platform_verified(run.serial)
    run.loader, run.cmdline, run.kernel, run.policy = "--grub", cmdline, kernel, halt_policy()
    run.initrd = os.path.join(vtb.OUT, "initrd.img")
    return run


def start_with_edu_loaded(**how):
    """start(**how), then edu with bus mastering takes PATTERN into its buffer, as the
    attacker's loader leaves it. Returns the boot, the kernel and edu's BAR 0."""
    running, kernel = start(**how)
    with vtb.Gdb(running.gdb_path) as gdb:
        _, bar0 = edu_bus_master(gdb)
        gdb.write_phys(STAGING, PATTERN)
        edu_dma(gdb, bar0, STAGING, EDU_BUFFER, 0)                     # RAM -> edu
    edu_dma_done(running, bar0, "into its buffer")
    return running, kernel, bar0


def dma_boot(after_launch):
    """edu takes PATTERN into its buffer before the launch, then copies it over tboot's MLE once
    tboot reports the launch (after_launch), or to low RAM before it. Returns (the destination's
    bytes after the copy, the bytes before, the finished run)."""
    running, kernel, bar0 = start_with_edu_loaded()
    if after_launch:
        assert LAUNCHED not in running.serial().splitlines(), "the launch came before the copy"
        wait_for_the_launch(running)
        mle = int(next(l for l in running.serial().splitlines()
                       if l.startswith("TBOOT: \t &_mle_start=")).split("=")[1], 16)
        target = mle + 0x1000                                          # a page of its code
    else:
        target = STAGING + 0x100
    with vtb.Gdb(running.gdb_path) as gdb:
        before = gdb.read_phys(target, len(PATTERN))
        edu_dma(gdb, bar0, EDU_BUFFER, target, DMA_TO_RAM)            # edu -> RAM
    edu_dma_done(running, bar0, "out of its buffer")
    with vtb.Gdb(running.gdb_path) as gdb:
        after = gdb.read_phys(target, len(PATTERN))
    if not after_launch:
        assert LAUNCHED not in running.serial().splitlines(), "the launch came before the copy"
    return after, before, finished(running, kernel)


def boot(before_launch):
    """edu armed as GRUB starts the entry; its interrupt raised then (before_launch) or when
    tboot reports the launch. Returns the finished run."""
    running, kernel = start("--reboot")
    try:
        with vtb.Gdb(running.gdb_path) as gdb:
            bar0 = arm(gdb)
            assert gdb.read_phys(STUB, len(stub_code())) == stub_code()
            if before_launch:
                raise_edu_interrupt(gdb, bar0)
    except (BrokenPipeError, ConnectionResetError, EOFError):
        # the control's stub powers the VM off as soon as the gdbstub lets it run: the
        # connection breaks on a write or (qemuctl's EOFError) on a read, whichever comes first
        assert before_launch, "the gdbstub's connection broke"
    if not before_launch:
        wait_for_the_launch(running)
        with vtb.Gdb(running.gdb_path) as gdb:
            # the stub is still there: what keeps it from running is the platform
            assert gdb.read_phys(STUB, len(stub_code())) == stub_code()
            raise_edu_interrupt(gdb, bar0)
    return finished(running, kernel)


def test_an_init_after_tboots_launch_resets_the_platform():
    run = boot(before_launch=False)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert "STUB: PWNED" not in run.serial
    # the INIT reset the platform: tboot started and launched again, and this time Linux
    # reached /init once, with PCRs 17 and 18 of a clean launch
    lines = run.serial.splitlines()
    assert len([l for l in lines if GRUB_BOOTS in l]) == 2, run.serial[-3000:]
    assert lines.count(LAUNCHED) == 2
    assert lines.count("VTBOOT-GUEST: begin") == 1
    assert {(p, bank): run.guest.get(f"pcr-{bank}-{p}") for p in (17, 18)
            for bank in ("sha1", "sha256")} == prediction(run)


def test_control_an_init_before_the_launch_runs_the_attackers_stub():
    run = boot(before_launch=True)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert "STUB: PWNED: the attacker's code runs" in run.serial, run.serial[-3000:]
    assert LAUNCHED not in run.serial.splitlines()
    assert not run.linux_ran()


def test_dma_armed_before_the_launch_cannot_write_tboots_mle():
    after, before, run = dma_boot(after_launch=True)
    assert before != PATTERN
    assert after == before, "edu's copy landed in tboot's measured MLE"
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert LAUNCHED in run.serial.splitlines()
    assert {(p, bank): run.guest.get(f"pcr-{bank}-{p}") for p in (17, 18)
            for bank in ("sha1", "sha256")} == prediction(run)


def test_control_dma_before_the_launch_lands():
    after, before, run = dma_boot(after_launch=False)
    assert before != PATTERN and after == PATTERN
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]


# ---- DMA into the kernel tboot measured, at the hand-over to Linux --------------------------

VTD_PMEN = 0xFED90000 + 0x64            # q35's DRHD, its protected memory enable register
PMEN_EPM = 1 << 31
LOOP = 0x7200                           # the host's wait loop, in low RAM the kernel does not use


def loop_code():
    """32-bit code: count ECX down from 2^28, then the instruction the host breaks at."""
    return bytes([0xB9, 0, 0, 0, 0x10, 0x49, 0x75, 0xFD, 0x90])   # mov ecx; dec ecx; jnz; nop


def tboots_kernel_address(image):
    """Where tboot 1.10.5 puts a relocatable kernel (the bzImage's bytes) in protected mode: its
    own image's end (the ELF's one loadable segment, bss included) rounded up to the kernel's
    alignment."""
    import gzip
    from io import BytesIO
    from elftools.elf.elffile import ELFFile
    with gzip.open("/boot/tboot.gz") as f:
        elf = ELFFile(BytesIO(f.read()))
    end = max(s["p_paddr"] + s["p_memsz"] for s in elf.iter_segments() if s["p_type"] == "PT_LOAD")
    align = struct.unpack_from("<I", image, 0x230)[0]
    assert image[0x234], "the kernel is not relocatable"
    return (end + align - 1) // align * align


def kernel_dma_boot(pmr_off):
    """edu takes PATTERN into its buffer before the launch; at Linux's entry (the CPU stopped
    there) it copies them over the kernel a page past its entry, PMEN.EPM cleared first if
    pmr_off. Returns (the page's bytes after, before, the bzImage's bytes there, PMEN at the
    entry, the finished run)."""
    running, kernel, bar0 = start_with_edu_loaded()
    with open(kernel, "rb") as f:
        image = f.read()
    entry = tboots_kernel_address(image)
    target = entry + 0x1000
    at = vtb.bzimage_protected_mode(image) + 0x1000                    # the same bytes in the file
    measured = image[at:at + len(PATTERN)]
    dbg = kpatch.Debugger(running.gdb_path, timeout=30)
    try:
        dbg.run_to(entry, 240)
        assert LAUNCHED in running.serial().splitlines(), "Linux's entry came before the launch"
        pmen = struct.unpack("<I", dbg.read_phys(VTD_PMEN, 4))[0]
        if pmr_off:
            dbg.write_phys(VTD_PMEN, struct.pack("<I", 0))
        before = dbg.read_phys(target, len(PATTERN))
        saved = dbg.read_phys(LOOP, len(loop_code()))
        dbg.write_phys(LOOP, loop_code())
        edu_dma(dbg, bar0, EDU_BUFFER, target, DMA_TO_RAM)            # edu -> the kernel
        done = LOOP + len(loop_code()) - 1
        dbg.break_at(done)
        for _ in range(20):                 # edu copies 100 ms (virtual) after the command
            dbg.set_rip(LOOP)
            dbg.resume_until_break(120)
            if not struct.unpack("<I", dbg.read_phys(bar0 + EDU_DMA_CMD, 4))[0] & DMA_RUN:
                break
        else:
            raise AssertionError(running.abandon("edu's DMA into the kernel did not run"))
        dbg.clear_break(done)
        after = dbg.read_phys(target, len(PATTERN))
        dbg.write_phys(LOOP, saved)
        dbg.set_rip(entry)
    finally:
        dbg.close(resume=not pmr_off)
    if pmr_off:
        running.proc.terminate()            # a kernel with the attacker's bytes: not booted
    run = finished(running, kernel)
    assert f"TBOOT: Kernel (protected mode) from {entry:#x}" in run.serial, \
        "tboot put the kernel elsewhere"
    return after, before, measured, pmen, run


def test_dma_armed_before_the_launch_cannot_write_the_kernel_tboot_measured():
    after, before, measured, pmen, run = kernel_dma_boot(pmr_off=False)
    assert pmen & PMEN_EPM, f"PMEN {pmen:#x} at Linux's entry: the PMRs are off"
    assert before == measured != PATTERN
    assert after == before, "edu's copy landed in the kernel tboot measured"
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert {(p, bank): run.guest.get(f"pcr-{bank}-{p}") for p in (17, 18)
            for bank in ("sha1", "sha256")} == prediction(run)


def test_control_dma_into_the_kernel_with_the_pmrs_off_lands():
    after, before, measured, pmen, run = kernel_dma_boot(pmr_off=True)
    assert pmen & PMEN_EPM
    assert before == measured != PATTERN and after == PATTERN
    assert not run.linux_ran()
