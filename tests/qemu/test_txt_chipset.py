# SPDX-License-Identifier: MIT
"""The emulated Intel TXT chipset (issue 20, docs/txt-platform.md "0004", qemu/patches 0004):
out/bin/qemu-system-x86_64-txt with `-machine q35,txt=on` boots host/tests/guest/getsec.elf,
whose chipset cases (getsec_chipset.c) print the public registers, the closed private space,
BiosData at HEAP.BASE and the multiboot memory map. Every expected value is computed here from
-m, -smp and the design (the layout at the top of low RAM, the register table, BiosData v6),
not copied from the guest. The controls: txt=off on the same binary (nothing there, e820 as
Debian's stock QEMU gives it) and Debian's stock QEMU itself.

The patched binary is part of `make` (BUILD, qemu/qemu.mk): when it is missing these tests
fail, they never skip."""
import hashlib
import subprocess

import pytest

import getsec_guest
from getsec_guest import stock_qemu, txt_qemu

MiB = 1 << 20
GiB = 1 << 30
E820_RAM, E820_RESERVED = 1, 2

# the design's layout: DPR = [T-4M, T) = HEAP (1 MiB), SINIT (256 KiB), spare
DPR_SIZE = 4 * MiB
HEAP_SIZE = 1 * MiB
SINIT_SIZE = 256 * 1024
# the identity registers (docs/txt-platform.md "0004", tboot's txt/config_regs.h offsets)
VER_FSBIF = 0x80000000                          # production fused
VER_QPIIF = 0xFFFFFFFF
DIDVID = 0x8086 | 0xB00F << 16 | 0x0001 << 32   # vendor, device, revision, id-ext 0
# BiosData: u64 size + v6 body (36) + BIOS_SPEC_VER (14) + END (8)
BIOS_DATA_SIZE = 8 + 36 + 14 + 8
PLATFORM_TYPE_CLIENT = 1
# the public registers getsec prints, at tboot's offsets
REGS = [("STS", 0x0), ("ESTS", 0x8), ("ERRORCODE", 0x30), ("VER.FSBIF", 0x100),
        ("DIDVID", 0x110), ("VER.QPIIF", 0x200), ("SINIT.BASE", 0x270), ("SINIT.SIZE", 0x278),
        ("MLE.JOIN", 0x290), ("HEAP.BASE", 0x300), ("HEAP.SIZE", 0x308), ("MSEG.BASE", 0x310),
        ("MSEG.SIZE", 0x318), ("DPR", 0x330), ("PUBLIC.KEY[0]", 0x400),
        ("PUBLIC.KEY[1]", 0x408), ("PUBLIC.KEY[2]", 0x410), ("PUBLIC.KEY[3]", 0x418),
        ("E2STS", 0x8F0)]


def below_4g(mem_mib):
    """q35's RAM below 4 GiB (pc_q35_init): all of it up to 2.75 GiB, else 2 GiB."""
    ram = mem_mib * MiB
    lowmem = 0x80000000 if ram >= 0xB0000000 else 0xB0000000
    return min(ram, lowmem)


def layout(mem_mib):
    t = below_4g(mem_mib)
    return {"T": t, "HEAP.BASE": t - DPR_SIZE, "HEAP.SIZE": HEAP_SIZE,
            "SINIT.BASE": t - DPR_SIZE + HEAP_SIZE, "SINIT.SIZE": SINIT_SIZE,
            "DPR": (t & 0xFFF00000) | (DPR_SIZE // MiB) << 4 | 1}


def run_getsec(qemu, case, machine="q35,txt=on", **kw):
    """getsec's lines for case=CASE on the TXT machine by default; the case must run to its
    end."""
    lines, _ = getsec_guest.run_getsec(qemu, case, machine=machine, **kw)
    assert lines[-1] == "done", f"case={case} did not run to its end: {lines}"
    return lines


def public_regs(values):
    """getsec's lines for the public registers, from a name -> value dict."""
    return [f"public {name} ({off:#x}) = {values.get(name, 0):#x}" for name, off in REGS]


def txtregs_expected(mem, key=bytes(32)):
    lay = layout(mem)
    values = {"VER.FSBIF": VER_FSBIF, "DIDVID": DIDVID, "VER.QPIIF": VER_QPIIF,
              **{k: lay[k] for k in ("SINIT.BASE", "SINIT.SIZE", "HEAP.BASE", "HEAP.SIZE",
                                     "DPR")}}
    for i in range(4):
        values[f"PUBLIC.KEY[{i}]"] = int.from_bytes(key[8 * i:8 * i + 8], "little")
    ones = (1 << 64) - 1
    join = 0x9ABCDEF012345678
    return ["start", *public_regs(values),
            f"public DIDVID byte at 0x112 = {(DIDVID >> 16) & 0xFF:#x}",
            f"public DIDVID word at 0x112 = {(DIDVID >> 16) & 0xFFFF:#x}",
            "public 0x1000 (no register) = 0x0",
            f"private STS = {ones:#x}",
            f"private HEAP.BASE = {ones:#x}",
            "private byte at 0x300 = 0xff",
            "after private writes: public ERRORCODE = 0x0",
            "after private writes: public E2STS = 0x0",
            "read-only registers changed by public writes = 0",
            f"public MLE.JOIN after writing {join:#x} = {join:#x}",
            f"public MLE.JOIN after writing byte 0xaa at 0x291 = "
            f"{(join & ~0xFF00) | 0xAA00:#x}",
            "public MLE.JOIN after writing 0 = 0x0",
            "done"]


def test_txt_chipset_public_registers_and_closed_private_space():
    """Every public register's exact value for -m 128; the private space (closed: nothing
    opens it before SENTER) reads all-ones and drops writes; public writes to read-only
    registers are ignored; MLE.JOIN takes dword and byte writes."""
    assert run_getsec(txt_qemu(), "txtregs") == txtregs_expected(128)


def test_txt_chipset_public_key_is_the_property_and_layout_follows_memory():
    """-global intel-txt.sinit-key-hash=<sha256> shows in PUBLIC.KEY byte for byte; with 3 GiB
    q35 keeps 2 GiB below 4 GiB, and HEAP, SINIT and DPR move to its top."""
    key = hashlib.sha256(b"vtboot test_txt_chipset key").digest()
    lines = run_getsec(txt_qemu(), "txtregs", mem=3072,
                       extra=["-global", f"intel-txt.sinit-key-hash={key.hex()}"])
    assert layout(3072)["T"] == 2 * GiB
    assert lines == txtregs_expected(3072, key)


def test_txt_chipset_bad_key_hash_is_refused():
    p = subprocess.run([txt_qemu(), "-machine", "q35,txt=on", "-display", "none", "-nodefaults",
                        "-S", "-global", "intel-txt.sinit-key-hash=00ff"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    assert "sinit-key-hash must be 64 hex digits" in p.stderr, p.stderr


def bios_data_expected(mem, cpus):
    return [f"HEAP.BASE = {layout(mem)['HEAP.BASE']:#x}",
            f"BiosDataSize = {BIOS_DATA_SIZE}",
            "BiosData.version = 6",
            "BiosData.bios_sinit_size = 0",
            "BiosData.lcp_pd_base = 0x0",
            "BiosData.lcp_pd_size = 0x0",
            f"BiosData.num_logical_procs = {cpus}",
            f"BiosData.flags = {PLATFORM_TYPE_CLIENT << 33:#x}",
            f"BiosData.flags.platform_type = {PLATFORM_TYPE_CLIENT}",
            "element type 1 size 14: spec_ver 2.0.0",
            "element type 0 size 8",
            f"BiosData end offset = {BIOS_DATA_SIZE}"]


def test_txt_chipset_bios_data_at_heap_base():
    assert run_getsec(txt_qemu(), "biosdata") == ["start", *bios_data_expected(128, 1), "done"]


def test_txt_chipset_bios_data_rewritten_at_every_reset():
    """The guest overwrites BiosData, leaves a marker further in the heap and resets through
    0xcf9: the next boot finds BiosData as the "BIOS" writes it (num_logical_procs = -smp 2)
    and the marker kept (the rest of the heap is not touched)."""
    lines = run_getsec(txt_qemu(), "biosdata-reset", smp=2, reboot=True)
    bd = bios_data_expected(128, 2)
    assert lines == ["start", "boot 1", *bd, "BiosData overwritten, resetting",
                     "start", "boot 2", "marker = 0x52545856", *bd, "done"], lines


def e820(lines):
    """getsec's memory map lines -> [(addr, len, type)]."""
    out = []
    for l in lines[1:-1]:
        addr, rest = l.split(" + ")
        length, _, typ = rest.split(" ")
        out.append((int(addr, 16), int(length, 16), int(typ)))
    return out


@pytest.mark.parametrize("mem", [128, 3072])
def test_txt_chipset_e820_reserves_the_top_4m_of_low_ram(mem):
    """txt=on: the map is txt=off's with low RAM 4 MiB shorter: whatever SeaBIOS keeps for
    itself at the top of RAM (its high zone, reserved) moves down with it, and one reserved
    range reaches T, covering HEAP, SINIT and the rest of DPR; no RAM entry touches [T-4M, T)."""
    t = layout(mem)["T"]
    off = e820(run_getsec(txt_qemu(), "e820", machine="q35,txt=off", mem=mem))
    on = e820(run_getsec(txt_qemu(), "e820", mem=mem))
    # txt=off: RAM up to the high zone, the high zone reserved up to T
    low_ram = [e for e in off if e[2] == E820_RAM and e[0] < t]
    ram_end = max(a + n for a, n, _ in low_ram)
    zone = t - ram_end
    assert (ram_end, zone, E820_RESERVED) in off, off
    expected = []
    for a, n, typ in off:
        if a + n == ram_end and typ == E820_RAM:
            expected.append((a, n - DPR_SIZE, E820_RAM))
        elif a == ram_end:
            expected.append((a - DPR_SIZE, zone + DPR_SIZE, E820_RESERVED))
        else:
            expected.append((a, n, typ))
    assert on == expected, (on, expected)
    for a, n, typ in on:
        if typ == E820_RAM:
            assert a + n <= t - DPR_SIZE or a >= 4 * GiB, (a, n)


def test_txt_off_is_stock_qemu():
    """The control: txt=off (the default) maps nothing at 0xfed20000/0xfed30000 (unassigned
    memory reads 0 on q35, writes vanish, MLE.JOIN too) and gives the memory map of Debian's
    stock QEMU byte for byte; stock QEMU prints the same registers."""
    absent = ["start", *public_regs({}),
              "public DIDVID byte at 0x112 = 0x0", "public DIDVID word at 0x112 = 0x0",
              "public 0x1000 (no register) = 0x0", "private STS = 0x0",
              "private HEAP.BASE = 0x0", "private byte at 0x300 = 0x0",
              "after private writes: public ERRORCODE = 0x0",
              "after private writes: public E2STS = 0x0",
              "read-only registers changed by public writes = 0",
              "public MLE.JOIN after writing 0x9abcdef012345678 = 0x0",
              "public MLE.JOIN after writing byte 0xaa at 0x291 = 0x0",
              "public MLE.JOIN after writing 0 = 0x0", "done"]
    stock = stock_qemu()
    assert run_getsec(txt_qemu(), "txtregs", machine="q35,txt=off") == absent
    assert run_getsec(txt_qemu(), "txtregs", machine="q35") == absent
    assert run_getsec(stock, "txtregs", machine="q35") == absent
    ours = run_getsec(txt_qemu(), "e820", machine="q35")
    assert ours == run_getsec(stock, "e820", machine="q35")
    t = layout(128)["T"]
    assert not any(a <= t - DPR_SIZE < a + n and typ == E820_RESERVED
                   for a, n, typ in e820(ours)), ours


def test_device_dma_does_not_reach_the_txt_spaces():
    """The chipset decodes its spaces for processor cycles only (docs "0004"): edu's DMA (its
    mask widened to 32 bits, so that it reaches 0xfed2xxxx) reads all-ones where the CPU reads
    DIDVID, its write to MLE.JOIN, the one publicly writable register, leaves the CPU's value,
    and its writes of CMD.OPEN-PRIVATE and CMD.RESET to the private space neither open it nor
    reset the platform (STS and ESTS 0; with -no-reboot a reset would have ended the run
    before "done")."""
    assert run_getsec(txt_qemu(), "txt-dma",
                      extra=["-device", "edu,dma_mask=0xffffffff"]) == [
        "start", "edu: found",
        "DIDVID as edu read it = 0xffffffff", f"DIDVID as the CPU reads it = {DIDVID & 0xFFFFFFFF:#x}",
        "MLE.JOIN after the CPU wrote it = 0x11112222", "MLE.JOIN after edu wrote it = 0x11112222",
        "STS after edu wrote CMD.OPEN-PRIVATE and CMD.RESET = 0x0", "ESTS = 0x0",
        "done"]
