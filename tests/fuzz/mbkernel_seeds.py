#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed inputs of the mbkernel, mbplan and mbinfo fuzzers into tests/fuzz/corpus/
(run from the top of the checkout: python3 tests/fuzz/mbkernel_seeds.py). The layouts are those
of the fuzzers' input formats (see each *_fuzz.c); the ELF images are shaped like Xen's."""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def out(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def xen_mb2_tags():
    t = struct.pack("<HHIII", 1, 0, 16, 4, 6)                      # info request: meminfo, mmap
    t += struct.pack("<HHI", 6, 0, 8)                              # module alignment
    t += struct.pack("<HHIIIII", 10, 1, 24, 0x200000, 0xffffffff, 0x200000, 2)
    t += struct.pack("<HHII", 4, 1, 12, 2) + b"\0" * 4             # console flags
    t += struct.pack("<HHIIII", 5, 1, 20, 0, 0, 0) + b"\0" * 4     # framebuffer
    t += struct.pack("<HHI", 7, 1, 8)                              # EFI boot services
    t += struct.pack("<HHII", 9, 1, 12, 0x200010) + b"\0" * 4      # EFI64 entry
    t += struct.pack("<HHI", 0, 0, 8)
    return t


def elf(cls=32, segs=((0x80, 0x200000, 0x200000, 0x3000, 0x8000),), entry=0x200000,
        size=0x3080, mb1=0x80, mb2=0x90, mb1_flags=3, tags=None):
    img = bytearray((i * 7 + 3) & 0xff for i in range(size))
    if cls == 32:
        hdr = b"\x7fELF\x01\x01\x01" + b"\0" * 9 + struct.pack(
            "<HHIIIIIHHHHHH", 2, 3, 1, entry, 52, 0, 0, 52, 32, len(segs), 40, 0, 0)
        ph = b"".join(struct.pack("<IIIIIIII", 1, o, v, p, fs, ms, 7, 0x1000)
                      for o, v, p, fs, ms in segs)
        phoff = 52
    else:
        hdr = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack(
            "<HHIQQQIHHHHHH", 2, 62, 1, entry, 64, 0, 0, 64, 56, len(segs), 64, 0, 0)
        ph = b"".join(struct.pack("<IIQQQQQQ", 1, 7, o, v, p, fs, ms, 0x1000)
                      for o, v, p, fs, ms in segs)
        phoff = 64
    img[0:len(hdr)] = hdr
    img[phoff:phoff + len(ph)] = ph
    if mb1:
        img[mb1:mb1 + 12] = struct.pack("<III", 0x1BADB002, mb1_flags,
                                        (-(0x1BADB002 + mb1_flags)) & 0xffffffff)
    if mb2:
        tags = xen_mb2_tags() if tags is None else tags
        n = 16 + len(tags)
        img[mb2:mb2 + n] = struct.pack("<IIII", 0xE85250D6, 0, n,
                                       (-(0xE85250D6 + n)) & 0xffffffff) + tags
    return bytes(img)


out("mbkernel", "xen-like", elf())
out("mbkernel", "elf64", elf(cls=64, segs=((0x1000, 0xffffffff81000000, 0x1000000, 0x800, 0x1000),),
                             entry=0xffffffff81000010, size=0x1800, mb1=0, mb2=0x100))
out("mbkernel", "two-segments", elf(segs=((0x80, 0x200000, 0x200000, 0x1000, 0x1000),
                                          (0x1080, 0x400000, 0x400000, 0x1000, 0x3000)),
                                    size=0x2080))
out("mbkernel", "mb1-only-kludge", elf(mb2=0, mb1_flags=0x10003))
out("mbkernel", "mb2-required-framebuffer",
    elf(mb1=0, tags=struct.pack("<HHIIII", 5, 0, 20, 0, 0, 0) + b"\0" * 4 + struct.pack("<HHI", 0, 0, 8)))
out("mbkernel", "bzimage-header", b"\0" * 0x1fe + b"\x55\xaa\xeb\x66HdrS\x0f\x02" + b"\0" * 64)

# mbplan: header (ne, no, ns, nm, entry segment, entry offset u16, pad), then 6-byte records
def rec(page, n16, b4=0, b5=0):
    return struct.pack("<HHBB", page, n16, b4, b5)

qemu_map = [rec(0, 0x9e, 1), rec(0x100, 0x7eff, 1), rec(0xfed1, 3, 0)]   # 128 MiB
own = [rec(0x800, 0xe20 - 1), rec(0x60, 0x7f), rec(0x68, 0xf)]
segs = [rec(0x200, 0x3a70 - 1, 0)]
mods = [rec(0x8e3, 0x271a, 2), rec(0xb55, 0x7dd7, 2), rec(0x1333, 0x5a34, 2)]
hdr = bytes([len(qemu_map), len(own) - 1, len(segs) - 1, len(mods), 0, 0, 0, 0])
out("mbplan", "qemu", hdr + b"".join(qemu_map + own + segs + mods))
grub_mods = [rec(0x100, 0x271a, 2), rec(0x372, 0x7dd7, 2), rec(0x1000, 0x5a34, 3, 0x10)]
out("mbplan", "grub-low-modules", hdr + b"".join(qemu_map + own + segs + grub_mods))

# mbinfo: header, e820 records (10 bytes), modules (8 bytes), RSDP, strings
def e820(addr, length, kind):
    return struct.pack("<IIBB", addr >> 4, (length >> 4) - 1, kind - 1, 0)

m = [e820(0, 0x60000, 1), e820(0x60000, 0x9000, 2), e820(0x100000, 0x700000, 1),
     e820(0x800000, 0xe2000, 5), e820(0x8e2000, 0x3f000000, 1)]
mm = [struct.pack("<IHH", 0xb55000, 0x7dd7, 0), struct.pack("<IHH", 0x1333000, 0x5a34, 0)]
strings = b"xen console=com1 tboot=0x801000\0qemu\0vmlinuz console=hvc0 panic=-1\0initrd.img\0"
for proto in (0, 1):
    h = bytes([proto | 0x10, len(m), len(mm)]) + struct.pack("<H", 0x1000) + \
        struct.pack("<I", 0x50) + bytes([2, 1, 0])
    out("mbinfo", f"xen-mb{proto + 1}", h + b"".join(m + mm) + b"RSD PTR " + bytes(28) + strings)
print("mbkernel seeds written")
