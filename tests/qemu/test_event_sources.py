# SPDX-License-Identifier: MIT
"""Issue 19, event sources armed before the launch: timers, interrupt controllers, devices and
debug registers that the unmeasured pre-launch code leaves armed must not reach the launched
system. badload (host/tests/guest/badload.c) arms each source (arm=...) and plays the attacker
who controls the pre-launch code: it patches vtboot's prelaunch_quiesce to return at once
(after quiescing what the firmware left, so that the armed source is the only one). The patch is
in the measured image, so a launch of it has its own clean PCR values: the tests predict them
for the patched image (quiesce=keep boots the image as built, whose prelaunch_quiesce must
disarm everything).

Each source gets its exact outcome: the host refuses the launch naming the source (vsenter.h
1a) and vtboot says so, PCR 17 never leaves its unlaunched value; or, for a source that is
absent or that the MLE resets, a launch whose PCRs 17-19 equal the prediction, with every AP
checked in and no badload code running after it. Everywhere: code of the loader's that runs
through an armed source ("BADLOAD: PWNED") never runs with clean PCRs."""

import hashlib
import os
import re
import struct
import threading

import pytest

import kpatch
import vtb
from vtb import boot

BADLOAD = os.path.join(vtb.OUT, "host", "tests", "badload.elf")
WORDS = "logging=serial,memory loglvl=all"
REFUSED = "vtboot-qemu: virtual SENTER: refused: "
LAUNCHED = "vtboot-qemu: virtual SENTER: launched CPU 0 at "
ALL_FF = {"sha1": "ff" * 20, "sha256": "ff" * 32}
RET0 = bytes.fromhex("31c0c3")                 # badload's patch: xor %eax,%eax; ret
MLE_LINE = re.compile(r"^measured launch: 4 extends into PCRs 17-19, event log at 0x[0-9a-f]{8} "
                      r"\(\d+ bytes\)$")


def checked_in(smp):
    """The MLE's line once every other CPU ran its code and checked in (src/mle)."""
    ids = " ".join(str(i) for i in range(1, smp)) or "none"
    return f"MLE: {smp - 1} other CPUs checked in (APIC IDs {ids}) and park under the MLE's IDT"


def badload_carries_vtboot():
    """badload.elf was built from the out/vtboot the predictions read."""
    with open(BADLOAD, "rb") as f:
        carried = f.read()
    with open(vtb.VTBOOT_ELF, "rb") as f:
        built = f.read()
    same = built in carried
    assert same, "badload.elf carries another vtboot than out/vtboot: make out/host/tests/badload.elf"


# VTB_EVENT_QUIESCE=baseline: for a vtboot from before issue 19's fix, which has no
# prelaunch_quiesce (and quiesces nothing): badload arms as usual and patches nothing, the
# predictions are for the image as built. This is how the attacks were shown to work there.
BEFORE_THE_FIX = os.environ.get("VTB_EVENT_QUIESCE") == "baseline"


def patched_elf(tmp_path):
    """out/vtboot with prelaunch_quiesce patched as badload patches it: the image a launch
    measures when badload plays the attacker."""
    from elftools.elf.elffile import ELFFile
    if BEFORE_THE_FIX:
        return vtb.VTBOOT_ELF
    addr = vtb.elf_symbols()["prelaunch_quiesce"]
    raw = bytearray(open(vtb.VTBOOT_ELF, "rb").read())
    with open(vtb.VTBOOT_ELF, "rb") as f:
        seg = next(s for s in ELFFile(f).iter_segments() if s["p_type"] == "PT_LOAD" and
                   s["p_paddr"] <= addr < s["p_paddr"] + s["p_filesz"])
    off = seg["p_offset"] + addr - seg["p_paddr"]
    raw[off:off + len(RET0)] = RET0
    path = tmp_path / "vtboot-quiesce-patched"
    path.write_bytes(bytes(raw))
    return str(path)


def badload(arms, *args, quiesce=None, grub=False, alarm=None, timeout=300):
    """Boots badload with these arm= words; vtboot's command line (what badload leaves of it)
    is in run.vtboot_cmdline, the launcher arguments for the module strings in run.loader."""
    badload_carries_vtboot()
    if BEFORE_THE_FIX and quiesce is None:
        quiesce = "baseline"
    words = " ".join(f"arm={a}" for a in arms) + (f" quiesce={quiesce}" if quiesce else "") + \
        (f" alarm={alarm}" if alarm is not None else "")
    loader = ("--grub-mb1",) if grub else ()
    run = boot(*loader, "--vtboot", BADLOAD, "--vtboot-cmdline", f"fault=none {words} {WORDS}",
               *args, timeout=timeout)
    assert run.rc != vtb.TIMED_OUT, run.stderr      # names the file with the serial log
    failed = [l for l in run.serial.splitlines() if l.startswith("BADLOAD: FAILED")]
    assert not failed, failed
    m = re.search(r"^BADLOAD: fault=none, command line \[(.*)\]$", run.serial, re.M)
    assert m, run.serial[-3000:]
    run.vtboot_cmdline = m.group(1)
    # QEMU's -kernel command line starts with the file's name, GRUB's multiboot1 one does not
    assert run.vtboot_cmdline == (WORDS if grub else "badload.elf " + WORDS)
    run.loader = (*loader, "--vtboot", BADLOAD)
    assert "BADLOAD: entering vtboot" in run.serial
    if quiesce is None:
        assert f"BADLOAD: patched prelaunch_quiesce at " \
               f"{vtb.elf_symbols()['prelaunch_quiesce']:#x} to return at once" in run.serial
    return run


def armed_lines(run):
    return [l for l in run.serial.splitlines() if l.startswith("BADLOAD: armed ")]


def after_entering(run):
    """The serial lines after badload entered vtboot."""
    lines = run.serial.splitlines()
    return lines[lines.index("BADLOAD: entering vtboot") + 1:]


def modules(loader):
    strings = vtb.module_strings(*loader)
    k, i = os.path.join(vtb.OUT, "bzImage"), os.path.join(vtb.OUT, "initrd.img")
    return [(strings[0], vtb.image_bytes(k)), (strings[1], vtb.image_bytes(i))]


def pcr17_chain(mods, cmdline, elf):
    """Every value PCR 17 (sha256) takes in a launch of this MLE: H(0 || H(MLE)), then the
    policy and module extends (tboot's default DA policy)."""
    H = lambda d: hashlib.sha256(d).digest()
    pcr = H(bytes(32) + H(vtb.mle_bytes(cmdline, elf)))
    chain = [pcr.hex()]
    p = vtb.DEFAULT_POLICY_DA
    _, size = vtb.policy_entries(p, 32)
    pm = H(p[3:7] + H(p[:size]) if int.from_bytes(p[3:7], "little") & 1 else p[3:7] + bytes(32))
    for d in [pm] + [H(H(s.encode()) + H(img)) for s, img in mods]:
        pcr = H(pcr + d)
        chain.append(pcr.hex())
    return chain


def never_pwned_with_clean_pcrs(run, elf):
    """Wherever the loader's code ran through an armed source, the PCRs the guest (Linux, or
    badload on the launching CPU) reports are none of a clean launch's."""
    if "BADLOAD: PWNED" not in run.serial:
        return
    clean = pcr17_chain(modules(run.loader), run.vtboot_cmdline, elf)
    pwned = [l for l in run.serial.splitlines() if l.startswith("BADLOAD: PWNED")]
    reported = [l.rsplit(" ", 1)[1] for l in run.serial.splitlines()
                if l.startswith("BADLOAD: PCR 17 sha256 ")]
    if "pcr-sha256-17" in run.guest:
        reported.append(run.guest["pcr-sha256-17"])
    assert reported, f"the loader's code ran ({pwned}) and no PCR 17 was reported"
    for value in reported:
        assert value not in clean, \
            f"the loader's code ran after the launch with clean PCR 17 {value}: {pwned}"


def refused(run, elf, source):
    """The host refused every request naming the source (a regular expression for the part
    after "refused: "), vtboot said so, PCR 17 kept its unlaunched value. Returns the line."""
    never_pwned_with_clean_pcrs(run, elf)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    lines = [l[len(REFUSED):] for l in run.launcher_lines(REFUSED)]
    assert lines, run.stderr
    assert all(re.fullmatch(source, l) for l in lines), (source, lines)
    assert len(set(lines)) == 1, lines
    assert not run.launcher_lines(LAUNCHED), run.stderr
    vl = run.vtboot_lines()
    assert [l for l in vl if l.startswith("WARNING: the host refused the launch: ")] == \
        [f"WARNING: the host refused the launch: {lines[0]}"] * len(lines), vl
    assert f"ERROR: NO DYNAMIC LAUNCH: the host refused: {lines[0]}" in vl, vl
    assert not run.has_vtboot_line(r"^dynamic launch confirmed")
    assert "BADLOAD: PWNED" not in run.serial
    # no launch: PCR 17 as the guest or badload read it is the unlaunched all-ones. Which of
    # them reads it depends on when an INIT armed on the RTC alarm (the host's clock) lands in
    # the unmeasured boot: it can cut Linux short before Linux reprograms the I/O APIC, and then
    # badload's code reads PCR 17 and powers off instead of the guest's /init
    reported = [(bank, run.guest[f"pcr-{bank}-17"]) for bank in ("sha1", "sha256")
                if f"pcr-{bank}-17" in run.guest]
    reported += [("sha256", l.rsplit(" ", 1)[1]) for l in run.serial.splitlines()
                 if l.startswith("BADLOAD: PCR 17 sha256 ")]
    assert reported, "neither the guest nor badload's code reported PCR 17: " + run.serial[-3000:]
    assert all(value == ALL_FF[bank] for bank, value in reported), reported
    return lines[0]


def launched_clean(run, elf, smp=1):
    """A launch of this MLE whose PCRs 17-19 equal the prediction, every AP checked in, the
    MLE's lines and Linux's command line intact, and no loader code after the launch."""
    never_pwned_with_clean_pcrs(run, elf)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert not run.launcher_lines(REFUSED), run.stderr
    mle = hashlib.sha256(vtb.mle_bytes(run.vtboot_cmdline, elf)).hexdigest()
    launched = run.launcher_lines(LAUNCHED)
    assert len(launched) == 1 and launched[0].endswith(" sha256=" + mle), (launched, mle)
    assert run.has_vtboot_line(r"^dynamic launch confirmed: PCR 17 = H\(0 \|\| H\(MLE\)\) in "
                               r"every bank$")
    assert len([l for l in run.vtboot_lines() if MLE_LINE.match(l)]) == 1, run.vtboot_lines()
    mods = modules(run.loader)
    assert run.vtboot_lines().count(f"Linux command line: '{mods[0][0]}'") == 1
    assert run.guest["cmdline"] == mods[0][0]
    assert vtb.guest_pcrs(run) == vtb.predict(mods, run.vtboot_cmdline, elf_path=elf)
    assert [l for l in run.vtboot_lines() if l.startswith("MLE: ") and " checked in " in l] == \
        [checked_in(smp)]
    assert not [l for l in after_entering(run) if l.startswith("BADLOAD: ")]


# ---- the control ------------------------------------------------------------------------------

@pytest.mark.parametrize("smp,grub", [(1, False), (4, False), (2, True)],
                         ids=["smp1", "smp4", "grub-mb1"])
def test_control_launches_with_the_prediction(tmp_path, smp, grub):
    """Nothing armed, prelaunch_quiesce patched out: the patched image launches with its
    predicted PCRs (through GRUB's multiboot1 too: badload has no multiboot2 header)."""
    run = badload(["none"], "--smp", str(smp), grub=grub)
    assert armed_lines(run) == ["BADLOAD: armed none"]
    launched_clean(run, patched_elf(tmp_path), smp)


# ---- sources the host refuses -----------------------------------------------------------------

def ioapic_entry(mode, dest):
    """The host's line for an unmasked edge-triggered I/O APIC entry in this mode."""
    return rf"0x{dest:02x}00000000000{mode:x}00"


REFUSALS = {
    # the PIT through pin 2, NMI to APIC 1 (IVT[2] is badload's)
    "nmi": r"IOAPIC pin 2: NMI delivery, not masked \(entry " + ioapic_entry(4, 1) + r"\)",
    # the RTC alarm through pin 8, INIT to APIC 0 (CMOS 0x0f = 0x0a, 40:67 is badload's)
    "init": r"IOAPIC pin 8: INIT delivery, not masked \(entry " + ioapic_entry(5, 0) + r"\)",
    "pcinmi": r"PCI 00:1f\.2: bus mastering enabled",
    "pciinit": r"PCI 00:01\.0: bus mastering enabled",     # edu: the first free slot
    "dr7": r"CPU 0: DR7 0x00000403: breakpoints armed",
    "hpet": r"HPET: present in the machine",
    # APIC 1's LVTs (prelaunch_quiesce would have INITed it)
    "lapic": r"LAPIC 1 LINT0: NMI delivery, not masked \(LVT 0x00000400\)",
    # the same, with the APIC base moved as well
    "lapic,apicbase": r"LAPIC 1 LINT0: NMI delivery, not masked \(LVT 0x00000400\)",
}
ARMED = {
    "nmi": "BADLOAD: armed nmi: IVT[2] -> 0x7008, PIT -> I/O APIC pin 2, NMI to APIC 1",
    "init": "BADLOAD: armed init: CMOS 0x0f = 0x0a, 40:67 -> 0x7010, RTC alarm in 250 ms -> "
            "I/O APIC pin 8, INIT to APIC 0",
    "pcinmi": "BADLOAD: armed pcinmi: PCI 00:1f.2 bus mastering and MSI on, NMI to APIC 0",
    "pciinit": "BADLOAD: armed pciinit: PCI 00:01.0 bus mastering and MSI on, INIT to APIC 0",
}


@pytest.mark.parametrize("arm,args", [
    ("nmi", ("--smp", "2")),
    ("nmi", ("--smp", "4")),
    ("nmi", ("--smp", "2", "--grub-mb1")),
    ("init", ()),
    ("init", ("--smp", "4")),
    ("pcinmi", ()),
    ("pciinit", ("--", "-device", "edu")),
    ("dr7", ()),
    ("dr7", ("--grub-mb1",)),
    ("hpet", ("--", "-machine", "hpet=on")),
    ("lapic", ("--smp", "2")),
    ("lapic", ("--smp", "4")),
    ("lapic,apicbase", ("--smp", "2")),
    ("lapic,apicbase", ("--smp", "4")),
], ids=lambda v: v if isinstance(v, str) else "-".join(a.strip("-") for a in v) or "smp1")
def test_armed_source_is_refused(tmp_path, arm, args):
    """The armed source reaches the host's check (vtboot's quiesce patched out): the host
    refuses each request naming it, vtboot boots on unmeasured (the default policy), PCR 17 is
    all ones, and no loader code ever ran with a launch's PCRs."""
    grub = "--grub-mb1" in args
    # the INIT comes 900 ms after the entry into vtboot: after the refusals (the attack, in
    # the MLE, needs 250 ms: test_vtboots_quiesce_disarms_the_source)
    alarm = 900 if arm == "init" else None
    run = badload(arm.split(","), *[a for a in args if a != "--grub-mb1"], grub=grub, alarm=alarm)
    if arm in ARMED:
        assert armed_lines(run) == [ARMED[arm].replace("250 ms", f"{alarm} ms")]
    refused(run, patched_elf(tmp_path), REFUSALS[arm])
    if arm == "init":
        # the alarm's INIT sent the unlaunched CPU into badload's code (or Linux had masked
        # the pin by then)
        hit = [l for l in after_entering(run) if l.startswith("BADLOAD: ")]
        assert hit in ([], ["BADLOAD: an INIT sent APIC 0 through the warm-reset vector into "
                            "the loader's code; no MLE ran",
                            "BADLOAD: PCR 17 sha256 " + ALL_FF["sha256"],
                            "BADLOAD: powering off"]), hit


# ---- sources that are absent, or that the MLE resets ------------------------------------------

def test_absent_hpet_writes_nothing(tmp_path):
    """The launcher runs QEMU without an HPET: badload finds none at 0xfed00000 (its
    capabilities read as 0) and arms nothing; the launch is clean and its FSB writes (into the
    MLE's .rodata and Linux's command line) never happen."""
    run = badload(["hpet"])
    assert "BADLOAD: no HPET (capabilities 0x0)" in run.serial.splitlines()
    assert armed_lines(run) == []
    launched_clean(run, patched_elf(tmp_path))
    assert "PWN!" not in run.serial


def test_hpet_in_the_machine_is_refused_even_to_vtboots_quiesce():
    """An HPET the host owner put back (-machine hpet=on) is refused however well the guest
    quiesces (the host checks that there is none, not how it is programmed). badload's FSB
    writes, 250 ms on, land in a system that never launched: PCR 17 stays all ones."""
    run = badload(["hpet"], "--", "-machine", "hpet=on", quiesce="keep")
    assert re.fullmatch(r'BADLOAD: armed hpet: timers 0 and 1 write "PWN!" to 0x[0-9a-f]+ and '
                        r'0x[0-9a-f]+', armed_lines(run)[0]), armed_lines(run)
    refused(run, vtb.VTBOOT_ELF, REFUSALS["hpet"])


@pytest.mark.parametrize("smp", [2, 4])
def test_moved_apic_base_is_reset_by_the_mle(tmp_path, smp):
    """The launching CPU's APIC base moved into RAM: vtboot's INITs there reach no CPU, so the
    MLE resets the base and starts every AP into its own code, which checks in."""
    run = badload(["apicbase"], "--smp", str(smp))
    assert re.fullmatch(r"BADLOAD: armed apicbase: MSR 0x1b 0xfee00900 -> 0x[0-9a-f]+900",
                        armed_lines(run)[0]), armed_lines(run)
    launched_clean(run, patched_elf(tmp_path), smp)


# ---- vtboot as built quiesces them --------------------------------------------------------------

@pytest.mark.parametrize("arm,args", [
    ("nmi", ("--smp", "2")),
    ("init", ()),
    ("lapic", ("--smp", "2")),
    ("pcinmi", ()),
    ("pciinit", ("--", "-device", "edu")),
    ("dr7", ()),
    ("apicbase", ("--smp", "2")),
], ids=lambda v: v if isinstance(v, str) else "-".join(a.strip("-") for a in v) or "smp1")
def test_vtboots_quiesce_disarms_the_source(arm, args):
    """The same sources, and the firmware's own, with vtboot's prelaunch_quiesce running: it
    disarms them all, and the image as built launches with its predicted PCRs."""
    run = badload([arm], *args, quiesce="keep")
    smp = int(args[1]) if args[:1] == ("--smp",) else 1
    launched_clean(run, vtb.VTBOOT_ELF, smp)


# ---- S3: the waking code changed while the VM sleeps ----------------------------------------------

GUEST = "console=ttyS0 panic=-1 no_console_suspend"
STUB = 0x7000
S3_PIN = 5                                     # an ISA IRQ nothing in the machine raises


def arm_init_stub(resume):
    """32-bit code: I/O APIC pin S3_PIN to INIT delivery to APIC 0, unmasked, then on into
    prelaunch_resume as if nothing happened. Like badload, it first masks what the firmware
    armed again on the wake-up (LINT1 in NMI mode on the BSP), so that the pin is the only
    armed source."""
    code = b"\x81\x0d" + struct.pack("<II", 0xfee00360, 0x10000)         # orl $0x10000, LINT1
    for reg, val in ((0x11 + 2 * S3_PIN, 0), (0x10 + 2 * S3_PIN, 5 << 8)):
        code += b"\xc7\x05" + struct.pack("<II", 0xfec00000, reg)          # movl $reg, IOREGSEL
        code += b"\xc7\x05" + struct.pack("<II", 0xfec00010, val)          # movl $val, IOWIN
    code += b"\xb8" + struct.pack("<I", resume) + b"\xff\xe0"              # mov $resume, %eax; jmp *%eax
    return code


def test_s3_resume_with_an_armed_source_is_refused():
    """While the VM wakes from S3, vtboot's resume pre-launch (prelaunch_resume) is stopped at
    its start: a stub the test wrote into RAM arms I/O APIC pin 5 for an INIT to the launching
    CPU, prelaunch_quiesce returns at once (patched after QEMU re-copied the image), and the
    CPU goes on through the stub. The resume's launch is refused naming the pin, vtboot halts
    without resuming Linux and nothing is unsealed."""
    syms = vtb.elf_symbols()
    resume, quiesce = syms["prelaunch_resume"], syms.get("prelaunch_quiesce")
    assert quiesce or BEFORE_THE_FIX, "vtboot has no prelaunch_quiesce"
    r = vtb.Running("--cmdline", f"{GUEST} vtboot.guest=s3 vtboot.s3=1", "--", "-S",
                    timeout=300)
    woke = []
    waker = threading.Thread(target=lambda: woke.append(vtb.wake_cycles(r.qmp_path, 1, 240)),
                             daemon=True)
    try:
        dbg = kpatch.Debugger(r.gdb_path, timeout=30)
        try:
            dbg.break_at(resume)
            waker.start()
            dbg.resume_until_break(240)
            assert dbg.regs()["rip"] == resume
            dbg.clear_break(resume)
            dbg.write_phys(STUB, arm_init_stub(resume))
            if quiesce:
                dbg.write_phys(quiesce, RET0)
            dbg.set_rip(STUB)
        finally:
            dbg.close(resume=True)
        waker.join(240)
    except BaseException as e:
        raise AssertionError(f"{e!r}; {r.abandon('the S3 test did not finish')}") from e
    run = r.finish()
    assert run.rc != vtb.TIMED_OUT, run.stderr
    assert woke == [1]
    assert run.rc == vtb.POWERED_OFF, run.stderr
    source = f"IOAPIC pin {S3_PIN}: INIT delivery, not masked (entry 0x0000000000000500)"
    lines = [l[len(REFUSED):] for l in run.launcher_lines(REFUSED)]
    assert lines and set(lines) == {source}, run.stderr
    assert len(run.launcher_lines(LAUNCHED)) == 1          # the boot's, not the resume's
    vl = run.vtboot_lines()
    # the suspend sealed the key and capped PCRs 17-19 before the sleep
    assert run.has_vtboot_line(r"^S3: key sealed to PCR 17 and 18 \(sha256\) as launched")
    assert "capped PCRs 17-19 (entering S3)" in vl
    woke_at = vl.index("S3 resume: the firmware entered the waking vector")
    request = ("requesting the dynamic launch (virtual SENTER) of the MLE at "
               f"0x{syms['_mle_start']:08x} (header 0x{syms['mle_header']:08x})")
    warn = f"WARNING: the host refused the launch: {source}"
    refusal = f"ERROR: NO DYNAMIC LAUNCH: the host refused: {source}"
    after = vl[woke_at + 1:]
    first = after.index(request)
    # the chipset, ACPI and timer set up again, then only the refused requests and the halt:
    # no launch, nothing unsealed, no resume of Linux
    assert all(l.startswith(("S3: ICH9 LPC ", "ACPI: RSDP ", "timer: ")) for l in after[:first]), \
        after
    assert after[first:] == [request, warn] * len(lines) + [
        refusal, "ERROR: HALT: S3: no launch to resume in"], after
    assert "s3-resumed" not in run.guest
