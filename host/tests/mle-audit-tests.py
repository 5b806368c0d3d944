#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""vtboot-pcr audit-mle against what binutils' readelf, Debian's /boot/tboot-syms and the MLE
header read here say: Debian's tboot.gz 1.10.5 is flagged with exactly the sections that lie
outside its MLE and exactly the code pointers found there (tpm_12_if_fp and tpm_20_if_fp,
each target named from tboot-syms); the control, vtboot's own ELF, audits clean; vtboot with one
more segment of file bytes past its MLE is flagged; files that are not MLE images are errors.

usage: mle-audit-tests.py path/to/vtboot-pcr path/to/vtboot [path/to/tboot.gz path/to/tboot-syms]
"""
import bisect
import gzip
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

PCR = os.path.realpath(sys.argv[1])
VTBOOT = os.path.realpath(sys.argv[2])
TBOOT = sys.argv[3] if len(sys.argv) > 3 else "/boot/tboot.gz"
TBOOT_SYMS = sys.argv[4] if len(sys.argv) > 4 else "/boot/tboot-syms"
MLE_UUID = bytes.fromhex("5aac82906f47a7740f5c55a2cb51b642")
passed = failed = 0


def ok(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok   - " + name)
    else:
        failed += 1
        print("FAIL - " + name + (": " + detail if detail else ""))


def unpacked(path, tmp):
    """the ELF file itself: gzip'd files unpacked into tmp"""
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic != b"\x1f\x8b":
        return path
    out = os.path.join(tmp, os.path.basename(path) + ".elf")
    with gzip.open(path, "rb") as f, open(out, "wb") as o:
        o.write(f.read())
    return out


def readelf(elf):
    """(sections, load segments) as readelf -S -l -W prints them"""
    text = subprocess.run(["readelf", "-S", "-l", "-W", elf], capture_output=True, text=True,
                          check=True).stdout
    sections, segments = [], []
    for line in text.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+([0-9a-f]{8})\s+([0-9a-f]{6,})\s+"
                     r"([0-9a-f]{6,})\s+[0-9a-f]{2}\s+([A-Za-z]*)\s+\d+\s+\d+\s+\d+$", line)
        if m and m.group(1) != "0":
            sections.append({"name": m.group(2), "type": m.group(3), "addr": int(m.group(4), 16),
                             "off": int(m.group(5), 16), "size": int(m.group(6), 16),
                             "flags": m.group(7)})
        m = re.match(r"\s*LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+"
                     r"0x([0-9a-f]+)", line)
        if m:
            segments.append({"off": int(m.group(1), 16), "paddr": int(m.group(3), 16),
                             "filesz": int(m.group(4), 16), "memsz": int(m.group(5), 16)})
    return sections, segments


def mle_range(elf, segments):
    """[start, end) from the MLE header, found as lcp2_mlehash finds it: the UUID at a 16-byte
    boundary from the lowest loaded address"""
    data = open(elf, "rb").read()
    base = min(s["paddr"] for s in segments)
    for s in sorted(segments, key=lambda s: s["paddr"]):
        seg = data[s["off"]:s["off"] + s["filesz"]]
        for o in range((-(s["paddr"] - base)) % 16, len(seg) - 0x34, 16):
            if seg[o:o + 16] == MLE_UUID:
                _, _, _, _, start_off, end_off = struct.unpack_from("<6I", seg, o + 16)
                return base + start_off, base + end_off
    raise SystemExit("no MLE header in " + elf)


def outside(addr, size, start, end):
    """the parts of [addr, addr + size) outside [start, end)"""
    parts = []
    if addr < start:
        parts.append((addr, min(addr + size, start)))
    if addr + size > end:
        parts.append((max(addr, end), addr + size))
    return parts


def audit(*args):
    return subprocess.run([PCR, "audit-mle", *args], capture_output=True, text=True)


def section_lines(sections, start, end):
    """the lines the audit must print for the sections, from readelf's table"""
    lines = []
    for s in sections:
        if "A" not in s["flags"] or not s["size"]:
            continue
        for a, b in outside(s["addr"], s["size"], start, end):
            whole = "" if (a, b) == (s["addr"], s["addr"] + s["size"]) else \
                " of 0x%08x-0x%08x" % (s["addr"], s["addr"] + s["size"])
            flags = "".join(c for c in "WAX" if c in s["flags"])
            if s["type"] == "NOBITS":
                lines.append("note: section %s 0x%08x-0x%08x (0x%x bytes%s) NOBITS %s: "
                             "zero-filled, not measured (the image must clear or check it "
                             "after the launch)" % (s["name"], a, b, b - a, whole, flags))
            else:
                kind = "relocation" if s["type"] in ("REL", "RELA", "RELR") else "initialized"
                lines.append("section %s 0x%08x-0x%08x (0x%x bytes%s) %s %s: %s, not measured"
                             % (s["name"], a, b, b - a, whole, s["type"], flags, kind))
    return lines


def test_tboot(tmp):
    elf = unpacked(TBOOT, tmp)
    sections, segments = readelf(elf)
    start, end = mle_range(elf, segments)
    ok("tboot's MLE is 0x804000-0x84d000 (mle_start_off 0x4000, mle_end_off 0x4d000)",
       (start, end) == (0x804000, 0x84d000), "%x-%x" % (start, end))
    syms = []
    for i, line in enumerate(open(TBOOT_SYMS)):
        a, _, name = line.split()
        syms.append((int(a, 16), i, name))
    syms.sort()
    addrs = [s[0] for s in syms]
    by_name = {s[2]: s[0] for s in syms}

    def name(a):
        i = bisect.bisect_right(addrs, a) - 1
        while i > 0 and addrs[i - 1] == addrs[i]:
            i -= 1
        return syms[i][2] if syms[i][0] == a else "%s+0x%x" % (syms[i][2], a - syms[i][0])

    # the pointers: aligned u32s in the initialized parts outside that point into the
    # executable sections' parts inside
    data = open(elf, "rb").read()
    code = [(max(s["addr"], start), min(s["addr"] + s["size"], end)) for s in sections
            if "X" in s["flags"] and "A" in s["flags"] and s["type"] != "NOBITS"]
    pointers = []
    for s in sections:
        if "A" not in s["flags"] or s["type"] == "NOBITS":
            continue
        for a, b in outside(s["addr"], s["size"], start, end):
            for x in range((a + 3) & ~3, b - 3, 4):
                v, = struct.unpack_from("<I", data, s["off"] + x - s["addr"])
                if any(lo <= v < hi for lo, hi in code):
                    pointers.append((x, v))

    r = audit("--symbols", TBOOT_SYMS, TBOOT)
    ok("tboot.gz: exit status 1 (flagged)", r.returncode == 1, "%d %s" % (r.returncode, r.stderr))
    out = r.stdout.splitlines()
    ok("tboot.gz: first line names the MLE", out[:1] == ["%s: MLE 0x%08x-0x%08x, entry 0x00804010"
                                                         % (TBOOT, start, end)], str(out[:1]))
    want = section_lines(sections, start, end)
    got = [l for l in out if l.startswith("section ") or l.startswith("note: ")]
    ok("tboot.gz: the sections outside the MLE are readelf's", got == want,
       "\n  got  %s\n  want %s" % (got, want))
    flagged = [l.split()[1] for l in got if l.startswith("section ")]
    ok("tboot.gz: flagged .text (its head), .data, .got.plt, .data.rel.ro.local, .data.rel.local",
       flagged == [".text", ".data", ".got.plt", ".data.rel.ro.local", ".data.rel.local"],
       str(flagged))
    ok("tboot.gz: .bss is the one note", [l.split()[2] for l in got if l.startswith("note: ")] ==
       [".bss"])
    want = ["pointer 0x%08x (%s) -> code 0x%08x (%s)" % (a, name(a), v, name(v))
            for a, v in pointers]
    got = [l for l in out if l.startswith("pointer ")]
    ok("tboot.gz: the code pointers are the ones found here (%d)" % len(want), got == want,
       "\n  got  %s\n  want %s" % (got, want))
    table = by_name["tpm_20_if_fp"]
    first = ["pointer 0x%08x (tpm_20_if_fp%s) -> code 0x%08x (%s)" %
             (table + 4 * i, "+0x%x" % (4 * i) if i else "", by_name[f], f)
             for i, f in enumerate(["tpm20_init", "tpm20_pcr_read", "tpm20_pcr_extend"])]
    ok("tboot.gz: tpm_20_if_fp at 0x%08x, first targets tpm20_init, tpm20_pcr_read, "
       "tpm20_pcr_extend" % table, table == 0x02474180 and all(l in got for l in first),
       str(first))
    ok("tboot.gz: every pointer lies in tpm_12_if_fp or tpm_20_if_fp",
       len(got) == 33 and all(re.search(r"\(tpm_(12|20)_if_fp(\+0x[0-9a-f]+)?\) ->", l)
                              for l in got), str(len(got)))
    nbytes = sum(b - a for s in sections if "A" in s["flags"] and s["type"] != "NOBITS"
                 for a, b in outside(s["addr"], s["size"], start, end))
    ok("tboot.gz: the verdict", out[-1:] == [
        "verdict: FLAGGED: 0x%x initialized bytes in 5 places outside the MLE, %d pointers "
        "into its code there: the launch does not measure data its code trusts"
        % (nbytes, len(pointers))], str(out[-1:]))

    r = audit("--symbols", TBOOT_SYMS, "--format", "json", TBOOT)
    j = json.loads(r.stdout)
    ok("tboot.gz --format json: the same sections, pointers and verdict",
       r.returncode == 1 and j["flagged"] is True and j["mle"]["start"] == start and
       [e["name"] for e in j["sections"] if e["flagged"]] == flagged and
       [(p["addr"], p["target"]) for p in j["pointers"]] == pointers and
       j["pointers"][15]["symbol"] == "tpm_20_if_fp" and
       j["pointers"][15]["target_symbol"] == "tpm20_init", r.stdout[:300])

    r = audit(TBOOT)
    ok("tboot.gz without symbols: the same pointers, no names",
       r.returncode == 1 and [l for l in r.stdout.splitlines() if l.startswith("pointer ")] ==
       ["pointer 0x%08x -> code 0x%08x" % p for p in pointers])


def test_vtboot(tmp):
    sections, segments = readelf(VTBOOT)
    start, end = mle_range(VTBOOT, segments)
    r = audit(VTBOOT)
    out = r.stdout.splitlines()
    ok("control: vtboot audits clean, exit status 0", r.returncode == 0,
       "%d %s %s" % (r.returncode, r.stdout, r.stderr))
    want = section_lines(sections, start, end)
    ok("control: vtboot's only lines outside its MLE are notes for NOBITS (.bss, .handoff)",
       want and all(l.startswith("note: ") for l in want) and
       [l for l in out if l.startswith("section ") or l.startswith("note: ")] == want and
       not [l for l in out if l.startswith("pointer ")], str(out))
    ok("control: the verdict", out[-1:] ==
       ["verdict: clean: every initialized byte the image loads is inside the MLE"])

    # vtboot with one more loadable segment of file bytes past the MLE, holding a pointer to
    # its entry (the program header table has room: the first section starts at 0x1000)
    raw = bytearray(open(VTBOOT, "rb").read())
    phoff, = struct.unpack_from("<I", raw, 28)
    phentsize, phnum = struct.unpack_from("<HH", raw, 42)
    at = phoff + phentsize * phnum
    entry, = struct.unpack_from("<I", raw, 24)
    struct.pack_into("<8I", raw, at, 1, len(raw), 0x900000, 0x900000, 0x10, 0x10, 6, 0x1000)
    struct.pack_into("<H", raw, 44, phnum + 1)
    raw += struct.pack("<4I", 0, entry, 0, 0)
    bad = os.path.join(tmp, "vtboot-data-outside")
    open(bad, "wb").write(raw)
    r = audit(bad)
    out = r.stdout.splitlines()
    ok("vtboot with file bytes past its MLE: flagged, exit status 1, the pointer to its entry",
       r.returncode == 1 and
       "segment %d 0x00900000-0x00900010 (0x10 bytes) LOAD RW: initialized, not measured"
       % phnum in out and
       any(re.fullmatch(r"pointer 0x00900004 \(\S+\) -> code 0x%08x \(\S+\)" % entry, l)
           for l in out), r.stdout)


def test_errors(tmp):
    text = os.path.join(tmp, "text")
    open(text, "w").write("not an image\n")
    r = audit(text)
    ok("not an ELF: exit status 2 and why", r.returncode == 2 and
       r.stderr == "vtboot-pcr: %s: not an ELF32 i386 image\n" % text, r.stderr)
    r = audit(os.path.join(tmp, "absent"))
    ok("no file: exit status 2", r.returncode == 2 and "cannot read" in r.stderr, r.stderr)
    r = audit("--symbols", text, VTBOOT)
    ok("symbols not nm's: exit status 2 and the line", r.returncode == 2 and
       r.stderr == "vtboot-pcr: %s: symbols line 1: expected \"ADDRESS TYPE NAME\"\n" % text,
       r.stderr)
    r = audit()
    ok("no file given: usage, exit status 2", r.returncode == 2 and "usage:" in r.stderr)


with tempfile.TemporaryDirectory(prefix="vtmle-audit.") as tmp:
    test_tboot(tmp)
    test_vtboot(tmp)
    test_errors(tmp)
print("mle-audit-tests: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
