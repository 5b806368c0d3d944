# SPDX-License-Identifier: MIT
"""Authenticated-code mode of the emulated Intel TXT CPU (issue 20, docs/txt-platform.md "0005",
qemu/patches 0005): host/tests/guest/getsec_acmode.c copies an ACM (a multiboot module) to
SINIT.BASE and runs GETSEC[ENTERACCS] on out/bin/qemu-system-x86_64-txt, whose chipset holds the
SHA-256 of the test key (-global intel-txt.sinit-key-hash, from `vtboot-acm key-hash` of the key
file, never of the ACM; test-key.pem signs the test ACMs, never out/sinit.bin). The ACM is out/test/echo.bin (sinit/test/echo.S): it reports the
state it was entered with and leaves with GETSEC[EXITAC].

Every expected value is computed here: from the SDM's ENTERACCS entry state, the chipset's
layout for -m 128 (test_txt_chipset.layout), echo.bin's header and getsec.elf's symbols. The
broken ACMs are made here from echo.bin, each changed in one thing and, where the chipset checks
the thing after the signature, signed again (with this file's own RSASSA-PKCS1-v1_5 signer, which
is checked to reproduce vtboot-acm's signature of echo.bin byte for byte)."""
import os
import struct
import subprocess

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

import getsec_guest
from getsec_guest import need, symbol, txt_qemu
from test_txt_chipset import layout
from vtb import OUT

MEM = 128
ACM_TOOL = os.path.join(OUT, "bin", "vtboot-acm")
ECHO = os.path.join(OUT, "test", "echo.bin")
KEYDIR = os.path.join(os.environ.get("VTBOOT_CACHE") or
                      os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                   os.path.expanduser("~/.cache"), "vtboot"), "sinit")
PROJECT_KEY = os.path.join(KEYDIR, "project-key.pem")
OTHER_KEY = os.path.join(KEYDIR, "other-key.pem")
# the test ACMs' key (sinit/sinit.mk): echo.bin and every ACM a test makes are signed with it,
# and only the tests' platforms hold its hash; out/sinit.bin's key signs none of them
TEST_KEY = os.path.join(KEYDIR, "test-key.pem")

ECHO_MAGIC = 0x4F484345                          # "ECHO", sinit/test/echo.h
# the header fields (include/abi/txt.h struct txt_acm_hdr): offsets
HDR_MODULE_TYPE, HDR_GDT_LIMIT, HDR_GDT_BASE, HDR_SEG_SEL, HDR_ENTRY = 0, 40, 44, 48, 52
SIG_OFF, SIG_LEN, SCRATCH_END = 0x184, 256, 0x4C0   # signed: [0, 0x184) and [0x4C0, size)
# the SDM's entry state (ENTERACCS table) and the chipset's STS
CR0_PG, CR0_AM, CR0_WP = 1 << 31, 1 << 18, 1 << 16
CR4_AT_ENTRY = 0x4000                            # SMXE only
EFLAGS_AT_ENTRY = 0x2
DR7_AT_ENTRY = 0x400
STS_PRIVATE_OPEN = 1 << 7
# IA32_MISC_ENABLE: the guest sets every bit the SDM's ENTERACCS table clears (0, 2, 4, 8, 9, 15,
# 18 MONITOR, 19) and two it keeps (7, 16); in the ACM those are clear and bit 3 (thermal
# monitor) is set, TM2 (13) being off
MISC_ENABLE_CLEARED = sum(1 << b for b in (0, 2, 4, 8, 9, 15, 18, 19))
MISC_ENABLE_GUEST = MISC_ENABLE_CLEARED | 1 << 7 | 1 << 16
MISC_ENABLE_IN_ACM = 1 << 3 | 1 << 7 | 1 << 16
# getsec.S's GDT (null, code 0x08, data 0x10) and 16 KiB stack; the guest's CR0 at its
# GETSEC: multiboot's PE, ET (fixed), and the NE it sets for ENTERACCS
GUEST_GDT_LIMIT, GUEST_CS, GUEST_STACK = 23, 0x08, 16384
GUEST_CR0 = 1 << 0 | 1 << 4 | 1 << 5
# no TPM on these machines: TIS MMIO is unassigned, and q35 reads that as 0 (docs "0004")
TIS_NO_DEVICE = 0
# TPM_ACCESS bits where a TPM answers: tpmRegValidSts, tpmEstablishment (1: no DRTM has run)
TIS_REG_VALID, TIS_ESTABLISHMENT = 0x80, 0x01
# tboot's errorcode.h processor error codes, as TXT-SHUTDOWN writes them (valid bit 31)
ERR_UNSUPPORTED_ACM, ERR_AUTH_FAIL, ERR_INVALID_ACM_FORMAT = 6, 7, 8
ESTS_TXT_RESET = 1 << 0
# getsec_acmode.c's enteraccs-dma: the ACM's spin (EDI) and what edu writes
DMA_SPIN, DMA_MARK = 0x00800000, 0xEDEDEDED


def acm_tool(*args):
    return subprocess.run([need(ACM_TOOL, "make out/bin/vtboot-acm"), *args], check=True,
                          capture_output=True, text=True).stdout


def key_hash(key=TEST_KEY):
    """The hash the platform holds as PUBLIC.KEY: the test key's, or key's (PROJECT_KEY for a
    test of out/sinit.bin)."""
    return acm_tool("key-hash", need(key, "`make` makes it")).strip()


def echo_bytes():
    with open(need(ECHO, "make out/test/echo.bin"), "rb") as f:
        return f.read()


def u32(data, off):
    return struct.unpack_from("<I", data, off)[0]


def sign(data, key_path):
    """data signed with the key at key_path the way docs 3.3 defines it: RSASSA-PKCS1-v1_5 with
    SHA-256 over [0, 0x184) and [0x4C0, size), the signature stored little-endian."""
    with open(key_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    sig = key.sign(data[:SIG_OFF] + data[SCRATCH_END:], padding.PKCS1v15(), hashes.SHA256())
    return data[:SIG_OFF] + sig[::-1] + data[SIG_OFF + SIG_LEN:]


def run_acm(case, module, smp=1, reboot=False, devices=()):
    """getsec's lines for case=CASE with `module` as the ACM, on the TXT machine with the
    test key's hash in PUBLIC.KEY."""
    lines, _ = getsec_guest.run_getsec(
        txt_qemu(), case, machine="q35,txt=on", mem=MEM, smp=smp, reboot=reboot,
        modules=[module],
        extra=["-global", f"intel-txt.sinit-key-hash={key_hash()}", *devices])
    return lines


def value(lines, key):
    found = [l.split(" = ", 1)[1] for l in lines if l.startswith(key + " = ")]
    assert len(found) == 1, f"not one line '{key} = ...' in {lines}"
    return int(found[0], 16)


def echo_report(data, base, esp, leaf_regs, tis_loc3, misc_enable):
    """What echo.bin reports, in its order (sinit/test/echo.h), entered by ENTERACCS or SENTER
    at ACBASE `base` with ESP `esp`: leaf_regs are the EAX, EBX, ECX and EDX the leaf gives it;
    the rest is the entry state both leaves set (EBP = ACBASE, ESI/EDI/ESP passed through,
    CR0.PG/AM/WP clear, CR4 = SMXE, EFLAGS = 2, DR7 = 0x400, the module's GDT and selectors,
    the private space open), then what it reads: locality 3's ACCESS (tis_loc3), its first
    dword, IA32_MISC_ENABLE (misc_enable), the private space closed and opened again."""
    seg_sel = u32(data, HDR_SEG_SEL)
    eax, ebx, ecx, edx = leaf_regs
    return {
        "magic": ECHO_MAGIC,
        "EIP": base + u32(data, HDR_ENTRY),
        "EAX": eax, "EBX": ebx, "ECX": ecx, "EDX": edx,
        "ESI": symbol("acm_results"),
        "EDI": 0,
        "EBP": base,
        "ESP": esp,
        "EFLAGS": EFLAGS_AT_ENTRY,
        "CR0": GUEST_CR0 & ~(CR0_PG | CR0_AM | CR0_WP),
        "CR4": CR4_AT_ENTRY,
        "DR7": DR7_AT_ENTRY,
        "CS": seg_sel, "DS": seg_sel + 8, "ES": seg_sel + 8, "SS": seg_sel + 8,
        "GDTR.limit": u32(data, HDR_GDT_LIMIT),
        "GDTR.base": base + u32(data, HDR_GDT_BASE),
        "private STS": STS_PRIVATE_OPEN,
        "public STS": STS_PRIVATE_OPEN,
        "TIS locality 3 ACCESS": tis_loc3,
        "image dword": u32(data, 0),
        "IA32_MISC_ENABLE": misc_enable,
        "private STS after CMD.CLOSE-PRIVATE": 0xFFFFFFFF,
        "private STS after CMD.OPEN-PRIVATE": STS_PRIVATE_OPEN,
    }


def test_this_files_signer_makes_vtboot_acms_signature():
    """The broken ACMs below are signed here: this signer must sign as vtboot-acm does, so it
    reproduces echo.bin's signature byte for byte (host side; host/tests/acm-tests.sh checks
    echo.bin itself with txt-acminfo, vtboot-acm info and OpenSSL)."""
    data = echo_bytes()
    assert sign(data, TEST_KEY) == data


def test_enteraccs_entry_state_and_exitac():
    """ENTERACCS with echo.bin at SINIT.BASE: the ACM runs at ACBASE + entry_point with the
    SDM's entry state (EBP = ACBASE, EBX = the instruction after GETSEC, ECX = the guest's GDTR
    limit and CS, EDX = its GDTR base, EAX/ESI/EDI/ESP passed through, CR0.PG/AM/WP clear,
    CR4 = SMXE, EFLAGS = 2, DR7 = 0x400, CS = seg_sel, DS = ES = SS = seg_sel + 8, GDTR = the
    ACM's), sees the private space open (closed by CMD.CLOSE-PRIVATE it reads all-ones;
    CMD.OPEN-PRIVATE from AC mode opens it again), its own first dword and IA32_MISC_ENABLE as the SDM's
    table has ENTERACCS set it (every bit the guest set that the table clears is clear, the
    thermal monitor bit set, bits 7 and 16 kept), and comes back through EXITAC to the return
    address; outside AC mode the private space reads all-ones (the ACM closed it, and the
    guest's own CMD.OPEN-PRIVATE is ignored),
    IA32_MISC_ENABLE stays as the ACM saw it (EXITAC restores nothing: tboot restores it from
    OsMleData) and a second ENTERACCS works (EXITAC left AC mode)."""
    data = echo_bytes()
    lines = run_acm("enteraccs", ECHO)
    base = layout(MEM)["SINIT.BASE"]
    gdt = symbol("gdt")
    esp = value(lines, "guest ESP at GETSEC")
    seg_sel = u32(data, HDR_SEG_SEL)
    acm = echo_report(data, base, esp, (2, symbol("acmode_return"),      # EAX: ENTERACCS
                                        GUEST_GDT_LIMIT << 16 | GUEST_CS, gdt),
                      TIS_NO_DEVICE, MISC_ENABLE_IN_ACM)
    assert seg_sel == 0x08
    assert symbol("stack_top") - GUEST_STACK < esp < symbol("stack_top")
    assert lines == [
        "start",
        f"SINIT.BASE = {base:#x}",
        f"module size = {len(data):#x}",
        f"guest GDTR.limit = {GUEST_GDT_LIMIT:#x}",
        f"guest GDTR.base = {gdt:#x}",
        f"guest CS = {GUEST_CS:#x}",
        f"guest CR0 = {GUEST_CR0:#x}",
        "WRMSR 0x1a0: ok",
        f"RDMSR 0x1a0 = {MISC_ENABLE_GUEST:#x}",
        "ENTERACCS: ok",
        f"guest ESP at GETSEC = {esp:#x}",
        *[f"ACM {k} = {v:#x}" for k, v in acm.items()],
        "private STS outside AC mode = 0xffffffff",
        "public STS outside AC mode = 0x0",
        f"TIS locality 3 ACCESS outside AC mode = {TIS_NO_DEVICE:#x}",
        f"RDMSR 0x1a0 = {MISC_ENABLE_IN_ACM:#x}",
        "ENTERACCS again: ok",
        f"ACM magic = {ECHO_MAGIC:#x}",
        "done"]


def test_tis_locality_3_answers_the_acm_only():
    """With a TPM (tpm-tis on a fresh swtpm) the chipset decodes TIS locality 3 for the CPU in
    authenticated-code mode only (patches 0005 and 0008): the ACM reads locality 3's ACCESS as
    the TPM answers it (tpmRegValidSts, and tpmEstablishment: no DRTM has run; not active),
    the same guest outside AC mode reads all-ones (not decoded)."""
    with getsec_guest.swtpm_tis() as tpm:
        lines = run_acm("enteraccs", ECHO, devices=tpm)
    assert value(lines, "ACM TIS locality 3 ACCESS") == TIS_REG_VALID | TIS_ESTABLISHMENT, lines
    assert value(lines, "TIS locality 3 ACCESS outside AC mode") == 0xFF, lines
    assert lines[-1] == "done", lines


def test_enteraccs_runs_its_authenticated_copy_while_a_device_writes_ram():
    """ACRAM: edu's DMA (started just before ENTERACCS, landing 100 ms later while the ACM
    spins) overwrites the first bytes of the module at SINIT.BASE; the ACM still completes,
    reads its own first dword unchanged, and the RAM copy holds edu's bytes afterwards."""
    data = echo_bytes()
    assert run_acm("enteraccs-dma", ECHO, devices=["-device", "edu"]) == [
        "start", "edu: found", "ENTERACCS: ok",
        "edu DMA finished inside AC mode = 0x1",
        f"ACM magic = {ECHO_MAGIC:#x}",
        f"ACM EDI = {DMA_SPIN:#x}",
        f"ACM image dword = {u32(data, 0):#x}",
        f"RAM at SINIT.BASE = {DMA_MARK:#x}",
        "done"]


def gp_lines(what="ENTERACCS"):
    return [f"{what}: #GP(0) at {symbol('acmode_getsec_insn'):#x}"]


@pytest.mark.parametrize("case", ["cr0cd", "unaligned-base", "size-not-64", "size-too-big"])
def test_enteraccs_faults(case):
    """ENTERACCS with echo.bin and one condition the SDM faults: CR0.CD set, EBX not 4 KiB
    aligned, ECX not a multiple of 64, ECX above 256 KiB: #GP(0) at the GETSEC, before AC
    mode (the run has -no-reboot: a TXT reset would end it without the lines)."""
    assert run_acm(case, ECHO) == ["start", *gp_lines(), "done"]


def test_enteraccs_at_cpl3():
    """ENTERACCS from ring 3 (getsec_acmode.c's own GDT, TSS and call gate): #GP(0) at the
    GETSEC, taken in ring 0."""
    assert run_acm("cpl3", ECHO) == [
        "start", f"ENTERACCS at CPL 3: #GP(0) at {symbol('acmode_cpl3_getsec_insn'):#x}", "done"]


def test_enteraccs_with_an_ap_running():
    """-smp 2: the AP, started by INIT-SIPI into a loop that enables its caches and counts, is
    stopped by another INIT (wait-for-SIPI, caches still on: an INIT keeps CR0.CD and NW), and
    ENTERACCS runs the ACM; started again by a SIPI, the AP counts and ENTERACCS is #GP(0)."""
    assert run_acm("ap-running", ECHO, smp=2) == [
        "start",
        "AP counting = 0x1",
        "AP stopped by INIT = 0x1",
        "AP in wait-for-SIPI: ENTERACCS: ok",
        f"AP in wait-for-SIPI: ACM magic = {ECHO_MAGIC:#x}",
        "AP counting again = 0x1",
        *gp_lines("AP running: ENTERACCS"),
        "done"]


def flipped_byte(data):
    """one byte of the payload inverted: the signature no longer matches"""
    off = u32(data, HDR_ENTRY) + 1
    return data[:off] + bytes([data[off] ^ 0xFF]) + data[off + 1:]


def other_key(data):
    """signed with other-key.pem: PUBLIC.KEY names another key"""
    return sign(data[:0x80] + other_modulus() + data[0x180:], need(OTHER_KEY, "`make` makes it"))


def other_modulus():
    with open(need(OTHER_KEY, "`make` makes it"), "rb") as f:
        n = serialization.load_pem_private_key(f.read(), password=None).public_key() \
            .public_numbers().n
    return n.to_bytes(256, "little")


def module_type_3(data):
    """module_type 3 (not a chipset ACM), signed again: refused before the signature matters"""
    d = bytearray(data)
    struct.pack_into("<H", d, HDR_MODULE_TYPE, 3)
    return sign(bytes(d), TEST_KEY)


def bad_seg_sel(data):
    """seg_sel 0x18, signed again: its data selector 0x20 lies past the 4-entry GDT (limit
    0x1f), a header check after the signature"""
    d = bytearray(data)
    struct.pack_into("<I", d, HDR_SEG_SEL, 0x18)
    return sign(bytes(d), TEST_KEY)


@pytest.mark.parametrize("broken, code", [
    (flipped_byte, ERR_AUTH_FAIL),
    (other_key, ERR_AUTH_FAIL),
    (module_type_3, ERR_UNSUPPORTED_ACM),
    (bad_seg_sel, ERR_INVALID_ACM_FORMAT),
], ids=["flipped-byte", "other-key", "module-type-3", "bad-seg-sel"])
def test_enteraccs_broken_acm_is_a_txt_reset(tmp_path, broken, code):
    """ENTERACCS with a broken echo.bin does not return: TXT-SHUTDOWN writes ERRORCODE =
    0x80000000 | code (tboot's processor error codes) and resets the platform; the guest's
    next boot in the same QEMU finds ESTS.TXT_RESET set and the code kept."""
    data = echo_bytes()
    bad = broken(data)
    assert len(bad) == len(data) and bad != data
    path = tmp_path / "acm.bin"
    path.write_bytes(bad)
    assert run_acm("bad-acm", str(path), reboot=True) == [
        "start", "boot 1",
        "start", "boot 2",
        f"ERRORCODE = {0x80000000 | code:#x}",
        f"ESTS = {ESTS_TXT_RESET:#x}",
        "done"]
