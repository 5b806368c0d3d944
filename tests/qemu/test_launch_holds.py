# SPDX-License-Identifier: MIT
"""Issue 9, a launch that holds: PCR 17 starts from zero only with a transfer of control to the
measured MLE at its entry point; the MLE covers everything that runs; every failure after the
launch caps PCRs 17-19 before the machine ends."""

import hashlib
import os
import re
import struct
import subprocess

import pytest

import kpatch
import vtb
from vtb import boot


def launch_value(bank, cmdline, elf=vtb.VTBOOT_ELF):
    """PCR 17 right after a launch of this MLE: H(0 || H(MLE))."""
    mle = vtb.mle_bytes(cmdline, elf)
    n = hashlib.new(bank).digest_size
    return hashlib.new(bank, b"\0" * n + hashlib.new(bank, mle).digest()).hexdigest()


def vtboot_cmdline(*args):
    return subprocess.run([vtb.LAUNCHER, "--print-cmdline", *args], check=True,
                          capture_output=True, text=True).stdout.rstrip("\n")


# ---- the MLE: what the launch measures -----------------------------------------------------------

def test_mle_hash_matches_tboots_lcp2_mlehash():
    """tboot's own lcp2_mlehash (Debian's tboot package) finds vtboot's MLE header and hashes
    the same bytes as the independent Python reading of it and as the launch (the event log's
    first event)."""
    cmdline = vtboot_cmdline()
    for alg in ("sha1", "sha256"):
        out = subprocess.run(["/usr/sbin/lcp2_mlehash", "--create", "--alg", alg, "--cmdline", cmdline,
                              vtb.VTBOOT_ELF], check=True, capture_output=True, text=True)
        theirs = out.stdout.replace(" ", "").strip()
        assert theirs == hashlib.new(alg, vtb.mle_bytes(cmdline)).hexdigest()
    run = boot()
    assert run.rc == vtb.POWERED_OFF, run.stderr
    events = vtb.parse_event_log(bytes.fromhex(run.guest["evtlog-hex"]))
    assert events[0].pcr == 17 and events[0].type == 0x404
    assert events[0].digests["sha256"] == hashlib.sha256(vtb.mle_bytes(cmdline)).hexdigest()
    line = run.launcher_lines("vtboot-qemu: virtual SENTER: launched CPU 0 at ")
    assert len(line) == 1, run.stderr
    assert line[0].endswith(" sha256=" + events[0].digests["sha256"])


def test_every_loaded_byte_is_measured():
    """vtboot's ELF loads file bytes only inside the MLE its header describes; everything else
    it occupies is zero-filled (NOBITS)."""
    from elftools.elf.elffile import ELFFile
    image, base = vtb.mle_image()
    _, h = vtb.mle_header(image)
    start, end = base + h["mle_start_off"], base + h["mle_end_off"]
    with open(vtb.VTBOOT_ELF, "rb") as f:
        for seg in ELFFile(f).iter_segments():
            if seg["p_type"] == "PT_LOAD" and seg["p_filesz"]:
                assert start <= seg["p_paddr"] and seg["p_paddr"] + seg["p_filesz"] <= end
    out = subprocess.run([os.path.join(vtb.OUT, "bin", "vtboot-pcr"), "check-mle",
                          vtb.VTBOOT_ELF], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def elf_with_data_outside_the_mle(tmp_path):
    """vtboot's ELF with one more loadable segment of file bytes past the MLE (room for its
    program header is there: the first section starts at file offset 0x1000)."""
    raw = bytearray(open(vtb.VTBOOT_ELF, "rb").read())
    phoff, = struct.unpack_from("<I", raw, 28)
    phentsize, phnum = struct.unpack_from("<HH", raw, 42)
    at = phoff + phentsize * phnum
    assert at + phentsize <= 0x1000 and raw[at:at + phentsize] == bytes(phentsize)
    _, base = vtb.mle_image()
    struct.pack_into("<8I", raw, at, 1, 0x1000, 0x900000, 0x900000, 0x100, 0x100, 6, 0x1000)
    struct.pack_into("<H", raw, 44, phnum + 1)
    path = tmp_path / "vtboot-data-outside"
    path.write_bytes(bytes(raw))
    return str(path)


def test_check_mle_refuses_file_bytes_outside_the_mle(tmp_path):
    out = subprocess.run([os.path.join(vtb.OUT, "bin", "vtboot-pcr"), "check-mle",
                          elf_with_data_outside_the_mle(tmp_path)], capture_output=True,
                         text=True)
    assert out.returncode == 1
    assert "segment 2 loads 0x100 bytes at 0x00900000, outside the MLE" in out.stderr


def test_link_refuses_initialized_writable_data(tmp_path):
    """The linker script fails the build for any initialized writable data (it would lie outside
    what the launch measures, or change it)."""
    objs = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(vtb.OUT, "obj", "vtboot"))
                  for f in fs if f.endswith(".o"))
    src = tmp_path / "data.c"
    src.write_text("int vtboot_test_counter = 1;\n")
    obj = tmp_path / "data.o"
    subprocess.run(["gcc", "-m32", "-fno-pic", "-c", str(src), "-o", str(obj)], check=True)
    ld = subprocess.run(["gcc", "-m32", "-nostdlib", "-static", "-no-pie",
                         "-Wl,-T," + os.path.join(vtb.ROOT, "src/arch/x86/vtboot.ld"),
                         "-Wl,--no-warn-rwx-segments", "-o", str(tmp_path / "vtboot"), *objs,
                         str(obj)], capture_output=True, text=True)
    assert ld.returncode != 0
    assert "vtboot has initialized writable data" in ld.stderr


def test_flipped_byte_in_writable_data_changes_pcr17(tmp_path):
    """One flipped byte in vtboot's initialized writable data (its .mle.data section, past the
    command line area, which the pre-launch code rewrites): PCR 17 is not the pristine image's
    launch value, and it is what vtboot-pcr predicts for the changed image."""
    from elftools.elf.elffile import ELFFile
    with open(vtb.VTBOOT_ELF, "rb") as f:
        sec = ELFFile(f).get_section_by_name(".mle.data")
        off, size = sec["sh_offset"], sec["sh_size"]
    image, base = vtb.mle_image()
    _, h = vtb.mle_header(image)
    cmd_end_file = off + (h["cmdline_end_off"] - (sec["sh_addr"] - base))
    assert cmd_end_file < off + size
    raw = bytearray(open(vtb.VTBOOT_ELF, "rb").read())
    raw[cmd_end_file + 5] ^= 0x40
    bad = tmp_path / "vtboot"
    bad.write_bytes(bytes(raw))
    cmdline = vtboot_cmdline("--vtboot", str(bad))
    run = boot("--vtboot", str(bad))
    assert run.rc == vtb.POWERED_OFF, run.stderr
    for bank in ("sha1", "sha256"):
        assert launch_value(bank, cmdline, str(bad)) != launch_value(bank, cmdline)
    events = vtb.parse_event_log(bytes.fromhex(run.guest["evtlog-hex"]))
    assert events[0].digests["sha256"] == hashlib.sha256(vtb.mle_bytes(cmdline, str(bad))).hexdigest()
    assert events[0].digests["sha256"] != hashlib.sha256(vtb.mle_bytes(cmdline)).hexdigest()
    strings = vtb.module_strings("--vtboot", str(bad))
    k, i = os.path.join(vtb.OUT, "bzImage"), os.path.join(vtb.OUT, "initrd.img")
    mods = ["--kernel", k, "--cmdline", strings[0], "--initrd", i, "--initrd-cmdline", strings[1],
            "--vtboot-cmdline", cmdline]
    pristine = vtb.vtboot_pcr(*mods)
    changed = vtb.vtboot_pcr(*mods, "--vtboot", str(bad))
    got = vtb.guest_pcrs(run)
    assert got == changed
    assert got[(17, "sha256")] != pristine[(17, "sha256")]


# ---- who can ask for a launch -------------------------------------------------------------------

def mle_addresses():
    syms = vtb.elf_symbols()
    return syms["_mle_start"], syms["mle_header"]


@pytest.mark.parametrize("smp,reasons", [
    (1, r"CPU 0 has paging on"),
    # the other CPU is busy, or idle (halted, interrupts on), when the request arrives, or
    # the request comes from CPU 1, which is not the BSP, or the writer already sleeps on the
    # UART's answer and both CPUs idle when the host looks (seen once in a clean-clone run)
    (2, r"CPUs 0 and 1 are both running: every CPU but the launching one must be halted|"
        r"CPU [01] is halted with interrupts on|"
        r"CPU 1: the launching CPU is not the BSP \(CPU 0\)|"
        r"every CPU is halted: none is launching")])
def test_root_in_a_launched_guest_cannot_launch_again(smp, reasons):
    """Root writes a launch request for vtboot's MLE in place to the virtual SENTER UART. The host
    refuses (this CPU is in long mode with paging; with two CPUs the other one idles with
    interrupts on), the running kernel keeps its measured PCR 17, never a fresh-launch value."""
    base, hdr = mle_addresses()
    run = boot("--smp", str(smp), "--cmdline",
               f"console=ttyS0 panic=-1 vtboot.guest=vsenter vtboot.vsenter={base:#x}:{hdr:#x}")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    reply = run.guest["vsenter-reply"]
    head = "VSENTER-ERR 4 id=0x726f6f74 "          # the id guest/init sends
    assert re.fullmatch(re.escape(head) + "(" + reasons + ")", reply), reply
    refused = run.launcher_lines("vtboot-qemu: virtual SENTER: refused: ")
    assert [l.split("refused: ", 1)[1] for l in refused] == [reply[len(head):]]
    assert len(run.launcher_lines("vtboot-qemu: virtual SENTER: launched CPU")) == 1
    fresh = {b: launch_value(b, vtboot_cmdline()) for b in ("sha1", "sha256")}
    for bank in ("sha1", "sha256"):
        after = run.guest[f"vsenter-pcr-{bank}-17"]
        assert after == run.guest[f"pcr-{bank}-17"]          # what the kernel booted with
        assert after != fresh[bank]
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(power off\)$")


def test_grub_cannot_ask_for_a_launch_of_itself(tmp_path):
    """GRUB (the loader, before vtboot) loads vtboot and sends two well-formed requests for its
    MLE from its own script: its CPU state (GRUB's GDT) is no launch requester's, the host
    refuses both; GRUB never reads the answers, which still wait in the UART when vtboot asks.
    vtboot takes only the answer with its own request's id: it sees no refusal and the boot
    launches it as usual with the predicted PCRs (protocol 3 took any refusal as its own: a
    stale one turned up once in CI, and vtboot gave up a try)."""
    base, hdr = mle_addresses()
    lines = "".join(f"VSENTER 4 id=0x6772756{n} mle_base=0x{base:08x} mle_hdr=0x{hdr:08x}\n"
                    for n in (1, 2))
    prelude = tmp_path / "prelude.cfg"
    prelude.write_text("insmod multiboot2\ninsmod gzio\nmultiboot2 /vtboot.gz\ninsmod iorw\n" +
                       "".join(f"outb 0x2f8 {ord(c)}\n" for c in lines) + "sleep 2\n")
    run = boot("--grub", "--grub-prelude", str(prelude))
    assert run.rc == vtb.POWERED_OFF, run.stderr
    refused = run.launcher_lines("vtboot-qemu: virtual SENTER: refused: ")
    assert len(refused) == 2, run.stderr
    # GRUB runs in protected mode with its own GDT, and in real mode or SMM for BIOS calls (its
    # sleep polls the BIOS, SeaBIOS switches modes through SMM): either way its CPU is no
    # requester's; nor did it quiesce what SeaBIOS armed (LINT1 in NMI mode), which the host
    # may find first
    for line in refused:
        assert re.fullmatch(r"vtboot-qemu: virtual SENTER: refused: (CPU 0('s GDT 0x[0-9a-f]{8}-"
                            r"0x[0-9a-f]{8} is outside the MLE| is not in protected mode| is in SMM)|"
                            r"LAPIC 0 LINT1: NMI delivery, not masked \(LVT 0x[0-9a-f]{8}\))",
                            line), line
    assert not [l for l in run.vtboot_lines() if "refused" in l], run.vtboot_lines()
    assert len(run.launcher_lines("vtboot-qemu: virtual SENTER: launched CPU 0 at ")) == 1
    assert run.has_vtboot_line(r"^dynamic launch confirmed: PCR 17 = H\(0 \|\| H\(MLE\)\) in every bank$")
    strings = vtb.module_strings("--grub")
    k, i = os.path.join(vtb.OUT, "bzImage"), os.path.join(vtb.OUT, "initrd.img")
    want = vtb.predict([(strings[0], vtb.image_bytes(k)), (strings[1], vtb.image_bytes(i))],
                       vtboot_cmdline("--grub"))
    assert vtb.guest_pcrs(run) == want


# ---- fail closed ---------------------------------------------------------------------------------

def test_failed_tpm_command_after_the_launch_caps_first():
    """The launch is confirmed, then the first PCR_Extend of the measurements fails: vtboot halts,
    PCRs 17-19 capped (the cap's own extends work), and Linux never runs."""
    run = boot("--tpm-fault", "PCR_Extend:17@1=0x101")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^dynamic launch confirmed")
    assert run.has_vtboot_line(r"^ERROR: extending PCR 17: TPM2_PCR_Extend: TPM returned 0x101")
    assert run.has_vtboot_line(r"^ERROR: HALT: fatal error$")
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(halt\)$")
    lines = run.vtboot_lines()
    assert lines.index("ERROR: HALT: fatal error") < lines.index("capped PCRs 17-19 (halt)")
    after = [l for l in lines if l.startswith("  PCR 17 after the cap, sha256: ")]
    assert len(after) == 1
    assert after[0].rsplit(" ", 1)[1] != launch_value("sha256", vtboot_cmdline())
    assert not run.linux_ran()
    assert run.launcher_lines("vtboot-qemu: TPM fault: PCR_Extend")


def test_unconfirmed_launch_caps_first():
    """The host launched, but the MLE's read of PCR 17 fails: it cannot confirm the launch, caps
    PCRs 17-19 and halts; nothing else ran."""
    run = boot("--tpm-fault", "PCR_Read@1=0x101")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^ERROR: reading PCR 17: TPM2_PCR_Read: TPM returned 0x101")
    assert run.has_vtboot_line(r"^ERROR: HALT: the launch cannot be confirmed$")
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(halt\)$")
    assert not run.has_vtboot_line(r"^policy: ")
    assert not run.linux_ran()


def test_locked_out_policy_index_halts(tmp_path):
    """A halt policy in an index without noda, and a TPM in dictionary-attack lockout (a few bad
    passwords): the index exists but cannot be read. vtboot halts with PCRs capped (tboot 1.10
    would boot any kernel under its nonfatal default)."""
    k, i = os.path.join(vtb.OUT, "bzImage"), os.path.join(vtb.OUT, "initrd.img")
    strings = vtb.module_strings()
    pol = str(tmp_path / "halt.pol")
    for args in (["--create", "--type", "halt", "--alg", "sha256"],
                 ["--add", "--num", "0", "--pcr", "none", "--hash", "image", "--cmdline",
                  strings[0], "--image", k],
                 ["--add", "--num", "1", "--pcr", "17", "--hash", "image", "--cmdline",
                  strings[1], "--image", i]):
        subprocess.run(["/usr/sbin/tb_polgen", *args, pol], check=True, capture_output=True)
    state = tmp_path / "tpm"
    subprocess.run([vtb.LAUNCHER, "--tpm-state", str(state), "--provision-only"], check=True,
                   capture_output=True)
    lock = subprocess.run([os.path.join(vtb.ROOT, "host", "tests", "tpm-lockout.sh"), str(state),
                           pol], capture_output=True, text=True)
    assert lock.returncode == 0, lock.stdout + lock.stderr
    run = boot("--tpm-state", str(state))
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^ERROR: policy: NV index 0x01200001 exists but cannot be read: "
                               r"TPM2_NV_Read: TPM returned 0x921")
    assert run.has_vtboot_line(r"^ERROR: HALT: launch policy unusable$")
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(halt\)$")
    assert not run.linux_ran()


def test_mle_checks_the_modules_again():
    """The pre-launch half is not measured: what it (or anything before the launch) leaves in the
    loader's information, the MLE checks again. At the MLE's entry, after the launch, the test
    moves module 1 onto vtboot's loaded image in the loader's multiboot info (found from EBX at
    vtboot's multiboot entry, where the pre-launch half's own check passed): the MLE refuses it,
    caps PCRs 17-19 and halts; Linux never runs."""
    syms = vtb.elf_symbols()
    multiboot_entry, mle_entry, image = syms["_start"], syms["mle_entry"], syms["_mle_start"]
    r = vtb.Running("--", "-S", timeout=240)
    moved = {}
    try:
        dbg = kpatch.Debugger(r.gdb_path, timeout=30)
        try:
            dbg.break_at(multiboot_entry)
            dbg.resume_until_break(240)
            mbi = dbg.regs()["rbx"] & 0xffffffff
            dbg.clear_break(multiboot_entry)
            dbg.break_at(mle_entry)
            dbg.resume_until_break(240)
            count, mods = struct.unpack("<II", dbg.read_phys(mbi + 20, 8))
            assert count == 2
            start, end = struct.unpack("<II", dbg.read_phys(mods + 16, 8))
            moved["size"] = end - start
            dbg.write_phys(mods + 16, struct.pack("<II", image, image + end - start))
            dbg.clear_break(mle_entry)
        finally:
            dbg.close(resume=True)
    finally:
        run = r.finish()
    assert run.rc == vtb.POWERED_OFF, run.stderr
    lines = run.vtboot_lines()
    refusal = (f"ERROR: bad module: module 1 at {image:#x}+{moved['size']:#x} overlaps vtboot's "
               f"loaded image {image:#x}-{syms['_end']:#x}")
    assert refusal in lines, lines[-20:]
    assert lines.index(refusal) < lines.index("ERROR: HALT: bad module") < \
        lines.index("capped PCRs 17-19 (halt)")
    assert run.has_vtboot_line(r"^dynamic launch confirmed")
    assert not run.linux_ran()
