# SPDX-License-Identifier: MIT
"""Debian's tboot.gz (1.10.5-4) trusts data it never measured (issue 38, attack 7;
docs/tboot-debian-report.md): its TPM function-pointer table tpm_20_if_fp lies after the MLE
(`vtboot-pcr audit-mle` flags it). This is Debian's binary, not our platform; the test shows
what it means on our platform, with our firmware, our SINIT and the halt policy, so that users
are told with evidence.

The attacker owns everything before the launch. The host plays it through the gdbstub: stopped
at tboot's pre-launch begin_launch (its image loaded by GRUB), it writes a stub of its own into
low RAM that prints a line on COM1 and then jumps on to tboot's tpm20_pcr_extend, and points
tpm_20_if_fp's pcr_extend entry at the stub. The launch measures none of this: after
"measured launch succeeded" tboot's own measurements run the attacker's code, and Linux boots
with PCRs 17 and 18 equal to the prediction of the genuine files.

Control: the same kind of write inside the measured range (tboot's string "measured launch
succeeded" turned upper case) runs too (the line shows it), but PCR 17 no longer equals the
prediction: what the SINIT measures covers it.
"""
import subprocess
import struct

import kpatch
import vtb
from test_txt_launch import tboot_lines
from test_txt_sinit import PCR_TOOL, need, prediction, txt_launch
from test_txt_tboot_attacks import finished

SYMS = "/boot/tboot-syms"               # Debian's tboot package: nm's view of tboot.gz
STUB = 0x7000                           # low RAM the loader owns; the stub's 32-bit code
STUB_LINE = b"\r\nSTUB: the loader's code runs in the measured launch\r\n"
PCR_EXTEND_SLOT = 8                     # tpm_if: init, pcr_read, pcr_extend, ...
LAUNCHED = "measured launch succeeded"


def tboot_symbol(name):
    with open(SYMS) as f:
        for line in f:
            addr, _, sym = line.split()
            if sym == name:
                return int(addr, 16)
    raise AssertionError(f"{SYMS} has no {name}")


def stub_code(then):
    """push eax/edx; every byte of STUB_LINE out to COM1; pop; push then; ret."""
    code = bytes([0x50, 0x52, 0xBA, 0xF8, 0x03, 0x00, 0x00])     # push eax; push edx; mov edx, 0x3f8
    for c in STUB_LINE:
        code += bytes([0xB0, c, 0xEE])                          # mov al, c; out dx, al
    return code + bytes([0x5A, 0x58, 0x68]) + struct.pack("<I", then) + bytes([0xC3])


def attacked_boot(writes):
    """Debian's kernel through GRUB with our SINIT under the halt policy; at tboot's
    begin_launch the attacker makes writes ([(address, bytes)]) with the gdbstub."""
    kernel = vtb.debian_generic_kernel()
    running = vtb.Running(*txt_launch("--grub", kernel), timeout=300)
    begin = tboot_symbol("begin_launch")
    dbg = kpatch.Debugger(running.gdb_path, timeout=30)
    try:
        dbg.run_to(begin, 240)
        for at, data in writes:
            dbg.write_phys(at, data)
    finally:
        dbg.close(resume=True)
    return finished(running, kernel)


def guest_pcrs(run):
    return {(p, b): run.guest.get(f"pcr-{b}-{p}") for p in (17, 18) for b in ("sha1", "sha256")}


def test_audit_mle_flags_the_table_the_attack_uses():
    p = subprocess.run([need(PCR_TOOL, "make out/bin/vtboot-pcr"), "audit-mle", "--symbols",
                        SYMS, "/boot/tboot.gz"], capture_output=True, text=True)
    assert p.returncode == 1, p.stdout + p.stderr
    slot = tboot_symbol("tpm_20_if_fp") + PCR_EXTEND_SLOT
    assert (f"pointer {slot:#010x} (tpm_20_if_fp+0x8) -> code "
            f"{tboot_symbol('tpm20_pcr_extend'):#010x} (tpm20_pcr_extend)") in \
        p.stdout.splitlines(), p.stdout


def test_a_pointer_tboot_never_measured_runs_the_loaders_code_under_clean_pcrs():
    slot = tboot_symbol("tpm_20_if_fp") + PCR_EXTEND_SLOT
    run = attacked_boot([(STUB, stub_code(tboot_symbol("tpm20_pcr_extend"))),
                         (slot, struct.pack("<I", STUB))])
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    lines = run.serial.splitlines()
    launched = lines.index("TBOOT: " + LAUNCHED)
    stub = STUB_LINE.decode().strip()
    assert stub in lines[launched:], "the attacker's stub did not run after the launch"
    assert run.linux_ran()
    assert guest_pcrs(run) == prediction(run)


def test_control_the_same_write_inside_the_mle_is_measured():
    elf = subprocess.run(["zcat", "/boot/tboot.gz"], check=True, capture_output=True).stdout
    phoff, = struct.unpack_from("<I", elf, 28)
    p_type, offset, vaddr = struct.unpack_from("<III", elf, phoff)
    assert p_type == 1, "tboot.gz's first program header is not its loaded image"
    at = vaddr + elf.index(LAUNCHED.encode()) - offset
    assert 0x804000 <= at < 0x84D000, f"{at:#x}: outside tboot's MLE"
    run = attacked_boot([(at + len("measured launch "), b"SUCCEEDED")])
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert "measured launch SUCCEEDED" in tboot_lines(run)
    assert run.linux_ran()
    want, got = prediction(run), guest_pcrs(run)
    assert [got[(17, b)] != want[(17, b)] for b in ("sha1", "sha256")] == [True, True]
    assert [got[(18, b)] == want[(18, b)] for b in ("sha1", "sha256")] == [True, True]
