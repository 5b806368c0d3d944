# SPDX-License-Identifier: MIT
"""Issue 12, Xen: vtboot loads the Xen hypervisor (a multiboot ELF, module 0) with a dom0 kernel
and initrd as tboot does, measures the three modules as tboot 1.10 does, and Xen's own tboot
support (out/xen-tboot.gz, built by xen/build.sh) finds the shared page and powers off, reboots
and suspends through vtboot.

Debian's Xen is /boot/xen-4.17-amd64.gz (xen-hypervisor-4.17-amd64, built without tboot
support); dom0 is Debian's generic 6.1 kernel (CONFIG_XEN_DOM0, built-in TPM TIS driver), fetched
once into the cache; the initrd is out/initrd.img, whose /init prints on /dev/console, which
is hvc0 under Xen and reaches COM1 through Xen's console (console=com1). QEMU runs -cpu Nehalem:
dom0 dies under TCG with -cpu max."""

import os
import re
import struct
import subprocess

import pytest

import vtb
from vtb import boot

DEBIAN_XEN = "/boot/xen-4.17-amd64.gz"
TBOOT_XEN = os.path.join(vtb.OUT, "xen-tboot.gz")
TB_POLGEN = "/usr/sbin/tb_polgen"
XEN_CMDLINE = "console=com1 com1=115200,8n1"     # the launcher's default with --xen
DOM0_CMDLINE = "console=hvc0 panic=-1"


dom0_kernel = vtb.debian_generic_kernel


def xen_args(xen, *extra, kernel=None, memory="1024"):
    return ("--xen", xen, "--kernel", kernel or dom0_kernel(), "--memory", memory, *extra)


def xen_lines(run):
    return [l[len("(XEN) "):] for l in run.serial.splitlines() if l.startswith("(XEN) ")]


def has_xen_line(run, pattern):
    return any(re.search(pattern, l) for l in xen_lines(run))


def symbols():
    return vtb.elf_symbols()


def read(path):
    with open(path, "rb") as f:
        return f.read()


def files_of(args):
    """Xen, dom0 kernel and initrd host paths of a launcher argument list."""
    a = dict(zip(args[::2], args[1::2]))
    return a["--xen"], a["--kernel"], a.get("--initrd", os.path.join(vtb.OUT, "initrd.img"))


def predictions(args, policy=None):
    """PCRs 17-19 from tests/qemu/vtb.py's independent prediction (hashlib) and from vtboot-pcr
    --xen; the two must agree."""
    strings = vtb.module_strings(*args)
    assert len(strings) == 3
    cmdline = subprocess.run([vtb.LAUNCHER, "--print-cmdline", *args], check=True,
                             capture_output=True, text=True).stdout.rstrip("\n")
    xen, kernel, initrd = files_of(args)
    modules = [(strings[0], vtb.image_bytes(xen)), (strings[1], vtb.image_bytes(kernel)),
               (strings[2], vtb.image_bytes(initrd))]
    kw = {"policy": read(policy)} if policy else {}
    ours = vtb.predict(modules, cmdline, **kw)
    tool = vtb.vtboot_pcr("--xen", xen, "--xen-cmdline", strings[0], "--kernel", kernel,
                          "--cmdline", strings[1], "--initrd", initrd, "--initrd-cmdline",
                          strings[2], "--vtboot-cmdline", cmdline,
                          *(("--policy", policy) if policy else ()))
    assert ours == tool
    return ours


def elf_load_range(path):
    """(lowest paddr, end, entry, segments) of an ELF file's PT_LOAD segments, read here."""
    img = vtb.image_bytes(path)
    assert img[:4] == b"\x7fELF" and img[4] == 1
    entry, phoff = struct.unpack_from("<II", img, 24)
    phentsize, phnum = struct.unpack_from("<HH", img, 42)
    loads = []
    for i in range(phnum):
        p_type, _, _, paddr, _, memsz = struct.unpack_from("<IIIIII", img, phoff + i * phentsize)
        if p_type == 1 and memsz:
            loads.append((paddr, memsz))
    return min(p for p, _ in loads), max(p + m for p, m in loads), entry, len(loads)


def check_xen_launched(run, args, mb_kind):
    """vtboot loaded Xen as a multiboot kernel and handed it tboot= and the map."""
    syms = symbols()
    strings = vtb.module_strings(*args)
    xen = files_of(args)[0]
    low, high, entry, nseg = elf_load_range(xen)
    assert run.has_vtboot_line(r"^module 0 is an ELF image: loading it as a multiboot kernel$")
    assert run.has_vtboot_line(
        rf"^multiboot kernel: ELF32 i386, {nseg} loadable segment\(s\) in 0x{low:08x} - "
        rf"0x{high:08x}, entry 0x{entry:08x}; headers: multiboot1\+multiboot2$")
    assert run.has_vtboot_line(
        "^multiboot kernel command line: '" + re.escape(strings[0]) +
        f" tboot=0x{syms['_shared_page']:x}'$")
    assert run.has_vtboot_line(rf"^transferring control to the multiboot kernel at 0x{entry:08x} "
                               rf"\(multiboot{mb_kind} information at 0x[0-9a-f]{{8}}, \d+ bytes\)$")
    # Xen's own view: its command line with tboot= (QEMU's module string starts with the file
    # name, which Xen drops for a loader that is not GRUB 2), vtboot's region unusable
    xen_cmdline = strings[0].split(" ", 1)[1] if mb_kind == 1 else strings[0]
    assert has_xen_line(run, "^Command line: " + re.escape(xen_cmdline) +
                        f" tboot=0x{syms['_shared_page']:x}$")
    region = syms["_region_start"]
    assert f" [{region:016x}, {syms['_end'] - 1:016x}] (unusable)" in xen_lines(run)


def check_dom0_init(run):
    lines = run.serial.splitlines()
    assert "VTBOOT-GUEST: begin" in lines and "VTBOOT-GUEST: end" in lines
    assert run.guest["cmdline"].startswith(DOM0_CMDLINE)
    m = re.search(r"\[ *([0-9.]+)\] Run /init as init process", run.serial)
    assert m, run.serial[-2000:]
    print(f"dom0 ran /init at {m.group(1)} s of its uptime; {run.stderr.strip().splitlines()[-1]}")


def make_policy(tmp_path, ptype, args):
    strings = vtb.module_strings(*args)
    xen, kernel, initrd = files_of(args)
    path = str(tmp_path / f"{ptype}.pol")
    subprocess.run([TB_POLGEN, "--create", "--type", ptype, "--alg", "sha256", path], check=True,
                   capture_output=True)
    for num, pcr, cmdline, image in ((0, "none", strings[0], xen), (1, "17", strings[1], kernel),
                                     (2, "17", strings[2], initrd)):
        subprocess.run([TB_POLGEN, "--add", "--num", str(num), "--pcr", pcr, "--hash", "image",
                        "--cmdline", cmdline, "--image", image, path], check=True,
                       capture_output=True)
    return path


# ---- Debian's Xen (no tboot support in it) ---------------------------------------------------

@pytest.mark.slow
def test_debian_xen_measured_launch(tmp_path):
    """Xen + dom0 + initrd through QEMU (multiboot1), under a tb_polgen halt policy that names
    all three: each verified, PCRs as predicted, dom0 reaches /init."""
    args = xen_args(DEBIAN_XEN)
    pol = make_policy(tmp_path, "halt", args)
    run = boot(*args, "--policy", pol)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    for i in range(3):
        assert run.has_vtboot_line(rf"^module {i}: verified, sha256 [0-9a-f]{{64}} matches the "
                                   r"policy$")
    assert run.has_vtboot_line(r"^measured launch: 5 extends into PCRs 17-19, event log at 0x")
    check_xen_launched(run, args, 1)
    assert has_xen_line(run, r"^Bootloader: qemu$")
    assert not has_xen_line(run, r"TBOOT")          # Debian's Xen ignores tboot=
    check_dom0_init(run)
    assert run.guest["cmdline"] == DOM0_CMDLINE
    # module 0 measured with its string as the loader gave it, without " tboot=..." (tboot
    # verifies and measures the modules before launch_kernel appends it)
    assert vtb.guest_pcrs(run) == predictions(args, pol)


@pytest.mark.slow
def test_grub_multiboot2_layout():
    """Through GRUB as Debian's 20_linux_xen_tboot lays it out (multiboot2 vtboot.gz, module2
    xen.gz, vmlinuz, initrd): Xen gets multiboot2 information, the same measurements."""
    args = xen_args(DEBIAN_XEN, "--grub")
    run = boot(*args)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^loader: GRUB .* \(multiboot2\)$")
    check_xen_launched(run, args, 2)
    assert has_xen_line(run, r"^Bootloader: GRUB 2\.06")
    check_dom0_init(run)
    assert vtb.guest_pcrs(run) == predictions(args)


def flipped(tmp_path, path, name, at=0x10):
    data = bytearray(vtb.image_bytes(path))
    data[at] ^= 1
    out = tmp_path / name
    out.write_bytes(bytes(data))
    return str(out)


def test_halt_policy_stops_a_changed_dom0_kernel(tmp_path):
    args = xen_args(DEBIAN_XEN)
    pol = make_policy(tmp_path, "halt", args)
    bad = flipped(tmp_path, dom0_kernel(), "vmlinuz")
    run = boot(*xen_args(DEBIAN_XEN, kernel=bad), "--policy", pol)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^module 0: verified")
    assert run.has_vtboot_line(r"^ERROR: module 1: verification FAILED, sha256 [0-9a-f]{64} is "
                               r"not among the policy's 1 hash\(es\)$")
    assert run.has_vtboot_line(r"^ERROR: module verification failed: the halt policy says halt$")
    assert run.has_vtboot_line(r"^ERROR: HALT: module verification failed$")
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(halt\)$")
    assert not xen_lines(run)
    assert "transferring control" not in run.serial


# ---- the Xen built with tboot support (xen/build.sh) -----------------------------------------

def check_shared_page_found(run):
    syms = symbols()
    lines = xen_lines(run)
    i = lines.index(f"TBOOT: found shared page at phys addr {syms['_shared_page']:#x}:")
    assert lines[i + 1:i + 7] == [
        "  version: 6", "  log_addr: 0x60000", f"  shutdown_entry: {syms['shutdown_entry']:#x}",
        f"  tboot_base: {syms['_region_start']:#x}",
        f"  tboot_size: {syms['_end'] - syms['_region_start']:#x}", "  flags: 0"]
    # xen/patches/0001: without it Xen panics here ("Could not protect TXT memory regions")
    assert "TBOOT: no TXT heap (HEAP.BASE 0x0, HEAP.SIZE 0x0): no TXT memory to protect" in lines


def check_capped(run, why):
    assert run.has_vtboot_line(rf"^capped PCRs 17-19 \({why}\)$")
    after = [l for l in run.vtboot_lines() if l.startswith("  PCR 17 after the cap, sha256: ")]
    assert len(after) == 1
    assert after[0].split(": ")[1] != run.guest["pcr-sha256-17"]


@pytest.mark.slow
def test_tboot_xen_finds_the_shared_page_and_powers_off_through_vtboot():
    args = xen_args(TBOOT_XEN)
    run = boot(*args)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    check_xen_launched(run, args, 1)
    check_shared_page_found(run)
    check_dom0_init(run)
    assert vtb.guest_pcrs(run) == predictions(args)
    # dom0's power off: Xen's acpi_enter_sleep_state -> tboot_sleep(S5) -> shutdown_entry
    assert has_xen_line(run, r"^Entering ACPI S5 state\.$")
    assert run.has_vtboot_line(r"^shutdown_entry: S5 \(power off\) \(type 1\) on CPU 0$")
    check_capped(run, "power off")


@pytest.mark.slow
def test_tboot_xen_reboots_through_vtboot():
    run = boot(*xen_args(TBOOT_XEN, "--cmdline", f"{DOM0_CMDLINE} vtboot.end=reboot"))
    assert run.rc == vtb.RESET, run.stderr
    check_shared_page_found(run)
    # dom0's reboot: Xen's machine_restart -> tboot_shutdown(TB_SHUTDOWN_REBOOT)
    assert run.has_vtboot_line(r"^shutdown_entry: reboot \(type 0\) on CPU 0$")
    check_capped(run, "reboot")


@pytest.mark.slow
def test_tboot_xen_uses_the_firmware_dmar_without_a_txt_heap():
    """xen/patches/0002: with an IOMMU (QEMU intel-iommu), tboot's Xen reads the DMAR table only
    from the TXT heap; without one it ran with 'I/O virtualisation disabled'."""
    run = boot(*xen_args(TBOOT_XEN), "--", "-device", "intel-iommu,intremap=off")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    check_shared_page_found(run)
    assert has_xen_line(run, r"^TBOOT: no TXT heap: using the firmware's DMAR table, which no "
                             r"SINIT has checked$")
    assert has_xen_line(run, r"^Intel VT-d iommu 0 supported page sizes: ")
    assert has_xen_line(run, r"^I/O virtualisation enabled$")
    assert not has_xen_line(run, r"^I/O virtualisation disabled$")
    check_dom0_init(run)


def s3_run(cycles, tamper=None, cmdline=""):
    """dom0 suspends `cycles` times, woken through QMP after each suspend; tamper(gdb, serial)
    runs while it sleeps."""
    r = vtb.Running(*xen_args(TBOOT_XEN, "--cmdline",
                              f"{DOM0_CMDLINE} vtboot.guest=s3 vtboot.s3={cycles} {cmdline}"))
    return r.sleep_cycles(cycles, tamper and (lambda i, gdb, qmp: tamper(gdb, r.serial())))


MAC_REGION = re.compile(r"^S3: MAC region (\d+): 0x([0-9a-f]+)\+0x([0-9a-f]+)$")


@pytest.mark.slow
def test_tboot_xen_s3_three_cycles():
    """Xen's own MACs (Xen heap, frame table, domains: VMAC with tboot's s3_key) and vtboot's
    (the regions Xen lists) both verify on every resume. xen/patches/0003 lists the stack Xen
    runs on for vtboot instead of its own heap MAC: without it every resume ended in
    'Memory integrity was lost on resume (-1)' (measured: one page differed, the top page of
    CPU 0's stack)."""
    cycles = 3
    run = s3_run(cycles)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    check_shared_page_found(run)
    assert run.values("s3-resumed") == [f"{i} rc=0 " for i in range(1, cycles + 1)]
    verified = [l for l in run.vtboot_lines() if l.startswith("S3: memory integrity verified: ")]
    assert len(verified) == cycles
    assert len([l for l in xen_lines(run) if l == "Finishing wakeup from ACPI S3 state."]) == cycles
    assert not has_xen_line(run, r"MAC for|Memory integrity was lost")
    # Xen's regions: the trampoline, .text/.rodata, .data/.bss (in two), and its stack
    regions = [MAC_REGION.match(l) for l in run.vtboot_lines()]
    regions = [(int(m.group(1)), int(m.group(3), 16)) for m in regions if m]
    assert len(regions) == 5 * cycles
    assert [r for r in regions if r[0] == 4] == [(4, 0x8000)] * cycles   # STACK_SIZE
    for p in (17, 18):
        assert run.values(f"s3-pcr-sha256-{p}") == [f"{i} {run.guest[f'pcr-sha256-{p}']}"
                                                    for i in range(1, cycles + 1)]
    assert run.has_vtboot_line(r"^shutdown_entry: S5 \(power off\) \(type 1\) on CPU 0$")


@pytest.mark.slow
def test_tboot_xen_s3_tampered_xen_text_is_detected_by_vtboot():
    where = {}

    def flip_xen_text(gdb, serial):
        m = [MAC_REGION.match(l[len("vtboot: "):]) for l in serial.splitlines()
             if l.startswith("vtboot: S3: MAC region 1: ")]
        addr = int(m[0].group(2), 16) + 0x1000
        byte = gdb.read_phys(addr, 1)
        gdb.write_phys(addr, bytes([byte[0] ^ 0xff]))
        where["addr"] = addr

    run = s3_run(1, tamper=flip_xen_text)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(
        rf"^ERROR: S3: memory integrity FAILED: MAC region 1 \(0x{where['addr'] - 0x1000:x}\+0x"
        r"[0-9a-f]+\) changed while suspended$")
    assert run.has_vtboot_line(r"^ERROR: HALT: S3 integrity check failed$")
    assert not has_xen_line(run, r"^Finishing wakeup from ACPI S3 state\.$")
    assert "s3-resumed" not in run.guest


@pytest.mark.slow
def test_tboot_xen_s3_tampered_dom0_is_detected_by_xen():
    """A byte of dom0's memory (not in the regions Xen lists for vtboot): vtboot's check passes,
    Xen's own domain MAC fails, Xen panics and reboots through vtboot."""
    def flip_dom0(gdb, serial):
        m = re.search(r"\(XEN\)  Dom0 alloc\.: +([0-9a-f]{16})->", serial)
        addr = int(m.group(1), 16) + 0x400000
        byte = gdb.read_phys(addr, 1)
        gdb.write_phys(addr, bytes([byte[0] ^ 0xff]))

    run = s3_run(1, tamper=flip_dom0)
    assert run.rc == vtb.RESET, run.stderr
    assert run.has_vtboot_line(r"^S3: memory integrity verified: 5 regions")
    assert has_xen_line(run, r"^MAC for domains before S3 is: 0x[0-9a-f]+$")
    assert has_xen_line(run, r"Memory integrity was lost on resume \(-3\)$")
    assert run.has_vtboot_line(r"^shutdown_entry: reboot \(type 0\) on CPU 0$")
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(reboot\)$")
    assert "s3-resumed" not in run.guest


# ---- bad module 0 ----------------------------------------------------------------------------

def elf32(paddr, memsz, filesz=0x100, entry=None, mb1=True, size=None):
    """An ELF32 i386 executable: one PT_LOAD at paddr (file offset 0x80), a multiboot1 header
    (flags 3) at 0x80."""
    size = size or 0x80 + filesz
    img = bytearray(size)
    img[0:52] = b"\x7fELF\x01\x01\x01" + b"\0" * 9 + struct.pack(
        "<HHIIIIIHHHHHH", 2, 3, 1, paddr if entry is None else entry, 52, 0, 0, 52, 32, 1, 40, 0, 0)
    img[52:84] = struct.pack("<IIIIIIII", 1, 0x80, paddr, paddr, filesz, memsz, 7, 0x1000)
    if mb1:
        img[0x80:0x8c] = struct.pack("<III", 0x1BADB002, 3, (-(0x1BADB002 + 3)) & 0xffffffff)
    return bytes(img)


@pytest.mark.parametrize("name,what,reason", [
    ("over-vtboot", "no room for the multiboot kernel",
     "ELF segment 0 (0x700000+0x200000) overlaps vtboot (0x800000+{vtboot_size})"),
    ("outside-ram", "no room for the multiboot kernel",
     "ELF segment 0 (0xc0000000+0x10000) is not RAM in the loader's memory map"),
    ("truncated", "module 0 is not a usable multiboot kernel",
     "ELF segment 0: file bytes 0x80+{filesz} lie beyond the image's {half} bytes (truncated ELF?)"),
    ("no-multiboot-header", "module 0 is not a usable multiboot kernel",
     "no multiboot header (a multiboot1 header in its first 8 KiB or a multiboot2 header in its "
     "first 32 KiB)"),
    ("neither", "module 0 is not a kernel",
     "neither a Linux bzImage nor a multiboot ELF kernel (65536 bytes): no 'HdrS' setup header "
     "(not a bzImage), no ELF magic"),
])
def test_bad_module0_is_refused(tmp_path, name, what, reason):
    """A clear line and the policy's outcome for a failed kernel load: fatal under every policy
    (tboot's launch_kernel failing is TB_ERR_FATAL), so a halt with the PCRs capped."""
    syms = symbols()
    xen = vtb.image_bytes(DEBIAN_XEN)
    data = {
        "over-vtboot": lambda: elf32(0x700000, 0x200000),
        "outside-ram": lambda: elf32(0xc0000000, 0x10000),
        "truncated": lambda: xen[:len(xen) // 2],
        "no-multiboot-header": lambda: elf32(0x200000, 0x1000, mb1=False),
        "neither": lambda: os.urandom(65536).replace(b"\x7fELF", b"\0ELF"),
    }[name]()
    path = tmp_path / "xen"
    path.write_bytes(data)
    filesz = struct.unpack_from("<I", xen, struct.unpack_from("<I", xen, 28)[0] + 16)[0]
    reason = reason.format(vtboot_size=hex(syms["_end"] - syms["_region_start"]),
                           filesz=hex(filesz), half=len(xen) // 2)
    run = boot(*xen_args(str(path), memory="512"))
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert f"ERROR: {what}: {reason}" in run.vtboot_lines(), run.serial[-3000:]
    assert run.has_vtboot_line(rf"^ERROR: HALT: {re.escape(what)}$")
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(halt\)$")
    assert "transferring control" not in run.serial
    assert not xen_lines(run) and not run.linux_ran()
