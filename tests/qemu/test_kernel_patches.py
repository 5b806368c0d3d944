# SPDX-License-Identifier: MIT
"""Issue 6, the kernel patch series (kernel/patches/): every test runs one scenario on the stock
kernel (out/bzImage-stock: Debian's 6.1 with our config, the "before" figure, asserted as
precisely as the "after" one) and on the patched kernel (out/bzImage)."""

import os
import re
import struct
import tempfile

import pytest

import kpatch
import vtb
from kpatch import boot, kernel_lines, tboot_lines

BOTH = pytest.mark.parametrize("kernel", ["stock", "patched"])
# an oops panics at once (pvpanic: the launcher reports "crashed") instead of leaving a guest
# that hangs in the next, nested, oops
OOPS_PANIC = "console=ttyS0 panic=-1 oops=panic"
# the kernel's log through the guest's dmesg action (see kpatch.kernel_lines), last
DMESG = "vtboot.guest=dmesg"


def layout():
    syms = vtb.elf_symbols()
    base, end = syms["_region_start"], syms["_end"]
    return {"page": syms["_shared_page"], "base": base, "size": end - base, "end": end,
            "entry": syms["shutdown_entry"]}


def found_line(page):
    return f"tboot: found shared page at phys addr {page:#x}:"


def summary_line(version, lay):
    return (f"tboot: version {version}, log_addr 0x00060000, shutdown_entry {lay['entry']:#010x}, "
            f"tboot [mem {lay['base']:#010x}-{lay['end'] - 1:#010x}]")


def check_without_tboot(run):
    """The kernel ran without tboot: no tboot hooks, and it powered off by itself (ACPI S5)
    without calling vtboot's shutdown_entry."""
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert "VTBOOT-GUEST: end" in run.serial
    assert run.guest["tboot-cpuhp-state"] == "absent"
    assert run.guest["debugfs-tboot-log"] == "absent"
    assert not run.has_vtboot_line(r"^shutdown_entry")


def check_tboot_poweroff(run):
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert "VTBOOT-GUEST: end" in run.serial
    assert run.guest["tboot-cpuhp-state"] == "present"
    assert run.has_vtboot_line(r"^shutdown_entry: S5 \(power off\) \(type 1\) on CPU 0$")


def check_oops_at_poweroff(run, bug_line, rip):
    """The stock kernel jumped to a bad shutdown_entry at power off (oops=panic: panicked)."""
    lines = kernel_lines(run)
    assert "VTBOOT-GUEST: end" in run.serial
    assert bug_line in lines, run.serial[-3000:]
    assert f"RIP: 0010:{rip:#x}" in lines
    assert " ? tboot_shutdown+0x10d/0x122" in lines
    assert "Kernel panic - not syncing: Fatal exception" in lines
    assert run.rc == vtb.CRASHED, run.stderr
    assert not run.has_vtboot_line(r"^shutdown_entry")


# ---- patch 1: validate the shared page at probe ----------------------------------------------------

REJECTED = ["uuid", "version4", "entry-outside", "entry-zero", "size-zero", "size-overflow",
            "unaligned", "region-ram"]


def patched_reject_message(name, lay):
    span = f"[mem {lay['base']:#010x}-{lay['end'] - 1:#010x}]"
    page = lay["page"] + (0x100 if name == "unaligned" else 0)
    why = {
        "uuid": "uuid does not match",
        "version4": "version 4 is older than 5",
        "entry-outside": f"shutdown_entry {lay['end'] + 0x1000:#x} is outside "
                         f"tboot_base/tboot_size {span}",
        "entry-zero": f"shutdown_entry 0x0 is outside tboot_base/tboot_size {span}",
        "size-zero": "tboot_size is 0",
        "size-overflow": f"tboot_base {lay['base']:#x} + tboot_size "
                         f"{0xffffffff - lay['base'] + 0x2000:#x} is above 4 GiB",
        "unaligned": "tboot_addr is not page aligned",
        "region-ram": f"tboot_base/tboot_size {span} is not reserved in the e820 map",
    }[name]
    return f"tboot: shared page at {page:#x} rejected: {why}; not using tboot"


@BOTH
@pytest.mark.parametrize("name", REJECTED)
def test_malformed_shared_page_is_rejected(kernel, name):
    lay = layout()
    # the stock kernel with vtboot's region left RAM may hang at power off (below): 60 s, not
    # the default 180, bound the wait for an outcome allowed anyway (the guest's end comes
    # after about 4 s on an idle machine)
    timeout = 60 if (kernel, name) == ("stock", "region-ram") else 180
    run = boot(kernel, cmdline=f"{OOPS_PANIC} {DMESG}", vtboot_cmdline=kpatch.vtboot_cmdline(name),
               timeout=timeout)
    assert run.has_vtboot_line(rf"^WARNING: TESTING: the hand-over to Linux is deliberately "
                               rf"malformed: {name}$")
    if kernel == "patched":
        assert tboot_lines(run) == [patched_reject_message(name, lay)]
        check_without_tboot(run)
        return
    # the stock kernel: what each malformation does to it
    if name == "uuid":
        assert tboot_lines(run) == [f"tboot: tboot at {lay['page']:#x} is invalid"]
        check_without_tboot(run)
    elif name == "version4":
        assert tboot_lines(run) == ["tboot: tboot version is invalid: 4"]
        check_without_tboot(run)
    elif name == "unaligned":
        # accepted, "found" 0x100 into the page: the fixmap silently maps the page frame
        assert tboot_lines(run) == [found_line(lay["page"] + 0x100)]
        check_tboot_poweroff(run)
    elif name == "size-overflow":
        # accepted: the identity map for the call spans [tboot_base, 4 GiB + 8 KiB)
        assert tboot_lines(run) == [found_line(lay["page"])]
        check_tboot_poweroff(run)
    else:
        assert tboot_lines(run)[0] == found_line(lay["page"])
        if name == "entry-zero":
            check_oops_at_poweroff(run, "BUG: kernel NULL pointer dereference, address: "
                                        "0000000000000000", 0)
        elif name == "entry-outside":
            entry = lay["end"] + 0x1000        # not identity-mapped
            check_oops_at_poweroff(run, f"BUG: unable to handle page fault for address: "
                                        f"{entry:016x}", entry)
        elif name == "size-zero":
            # nothing identity-mapped: the call faults on the (valid) entry point
            check_oops_at_poweroff(run, f"BUG: unable to handle page fault for address: "
                                        f"{lay['entry']:016x}", lay["entry"])
        elif name == "region-ram":
            # vtboot's region is RAM in the e820 map and the stock kernel takes the page anyway
            # (the found line above; the patched kernel refuses it). At power off it calls
            # whatever the region and tboot's page tables hold by then, and that depends on
            # which pages the kernel reused: seen in cold runs, an oops inside the region, a
            # triple fault (QEMU resets), vtboot's own power off, and (a clean-clone run,
            # 2026-12-05) a silent hang after "reboot: Power down", the launcher's timeout
            # ending it. So only the acceptance and the guest's run to its end are asserted
            # here, and that the VM ended in one of those ways.
            assert "VTBOOT-GUEST: end" in run.serial, run.serial[-3000:]
            assert run.rc in (vtb.CRASHED, vtb.RESET, vtb.POWERED_OFF, vtb.TIMED_OUT), run.stderr


@BOTH
def test_version_7_is_accepted(kernel):
    lay = layout()
    run = boot(kernel, cmdline=f"console=ttyS0 panic=-1 {DMESG}",
               vtboot_cmdline=kpatch.vtboot_cmdline("version7"))
    if kernel == "patched":
        assert tboot_lines(run)[:3] == [
            "tboot: shared page version 7 is newer than 6; using its version 6 fields",
            found_line(lay["page"]), summary_line(7, lay)]
    else:
        assert tboot_lines(run) == [found_line(lay["page"])]      # silently
    check_tboot_poweroff(run)


@BOTH
def test_shared_page_at_the_start_of_its_reserved_entry(kernel):
    """The page starts its reserved e820 entry ([tboot_base, page) is ACPI NVS)."""
    lay = layout()
    run = boot(kernel, cmdline=f"console=ttyS0 panic=-1 {DMESG}",
               vtboot_cmdline=kpatch.vtboot_cmdline("first-page"))
    e820 = vtb.parse_boot_e820(run.serial)
    assert (lay["base"], lay["page"], "ACPI") in e820, e820
    assert any(a == lay["page"] and t == "reserved" for a, b, t in e820), e820
    if kernel == "patched":
        assert tboot_lines(run)[:2] == [found_line(lay["page"]), summary_line(6, lay)]
        check_tboot_poweroff(run)
    else:
        # e820__mapped_any(addr, addr, ...) is an empty range: only an entry that has the page
        # strictly inside it matches
        assert tboot_lines(run) == ["tboot: non-0 tboot_addr but it is not of type "
                                    "E820_TYPE_RESERVED"]
        check_without_tboot(run)


# ---- patch 2: use the validated copies; re-check the UUID before calling tboot --------------------

@BOTH
def test_shutdown_entry_changed_after_boot(kernel):
    """The guest zeroes shutdown_entry in the shared page (through /dev/mem), then powers off."""
    lay = layout()
    run = boot(kernel, cmdline=f"{OOPS_PANIC} vtboot.guest=poke vtboot.poke=18:00000000")
    assert run.guest["poke"] == f"{lay['page'] + 0x18:#x}:00000000 rc=0"
    if kernel == "patched":
        check_tboot_poweroff(run)                  # the entry point validated at boot
    else:
        check_oops_at_poweroff(run, "BUG: kernel NULL pointer dereference, address: "
                                    "0000000000000000", 0)


@BOTH
def test_shared_page_lost_its_uuid(kernel):
    """The guest zeroes the UUID (as if tboot's page were gone), then powers off."""
    lay = layout()
    run = boot(kernel, cmdline=f"{OOPS_PANIC} vtboot.guest=poke vtboot.poke=0:{'00' * 16}")
    assert run.guest["poke"] == f"{lay['page']:#x}:{'00' * 16} rc=0"
    if kernel == "patched":
        assert "tboot: shared page lost tboot's UUID; not calling tboot (shutdown type 1)" in \
            kernel_lines(run)
        assert run.rc == vtb.POWERED_OFF, run.stderr
        assert not run.has_vtboot_line(r"^shutdown_entry")
        assert "reboot: Power down" in kernel_lines(run)
    else:
        # the kernel called in anyway; vtboot noticed and halted
        assert run.has_vtboot_line(rf"^ERROR: shutdown_entry on CPU 0: the shared page at "
                                   rf"{lay['page']:#010x} lost its UUID$")
        assert run.has_vtboot_line(r"^ERROR: HALT: shared page corrupted$")


# ---- patch 3: interrupts (and IBT) off for the call ------------------------------------------------

@BOTH
def test_interrupts_are_off_when_tboot_is_called(kernel):
    """reboot=force skips machine_shutdown(): the restart path reaches tboot_shutdown() with
    interrupts on. The gdbstub stops the CPU on vtboot's first instruction."""
    stop = kpatch.Stopped(kernel, "--smp", "2",
                          cmdline="console=ttyS0 panic=-1 reboot=force vtboot.end=reboot",
                          types={0})
    regs, run = stop.go(lambda dbg: dbg.regs())
    assert regs["rip"] == kpatch.shutdown_entry()
    assert "reboot: Restarting system" in kernel_lines(run)
    assert run.has_vtboot_line(r"^shutdown_entry: reboot \(type 0\) on CPU 0$")
    assert run.rc == vtb.RESET, run.stderr
    if kernel == "patched":
        assert regs["eflags"] & 0x200 == 0, hex(regs["eflags"])
    else:
        assert regs["eflags"] & 0x200, hex(regs["eflags"])


# ---- patch 4: the S3 MAC list ----------------------------------------------------------------------

@BOTH
def test_s3_with_more_than_32_ram_ranges(kernel):
    """vtboot cuts RAM above 64 MiB into more than 32 e820 entries."""
    run = boot(kernel, cmdline="console=ttyS0 panic=-1 no_console_suspend vtboot.guest=s3,dmesg",
               vtboot_cmdline=kpatch.vtboot_cmdline("e820-split"))
    ram = kpatch.ram_ranges(run)
    assert len(ram) > 32, ram
    lines = kernel_lines(run)
    assert "ACPI: PM: Preparing to enter system sleep state S3" in lines
    if kernel == "patched":
        assert f"tboot: S3 needs {len(kpatch.merged(ram))} MAC regions, tboot takes 32; " \
               f"not suspending" in lines
        assert run.guest["s3-resumed"] == "1 rc=1 sh: write error: No space left on device"
        assert not run.has_vtboot_line(r"^shutdown_entry: S3")
        check_tboot_poweroff(run)
    else:
        assert "Kernel panic - not syncing: tboot: Too many MAC regions" in lines
        assert "s3-resumed" not in run.guest
        assert run.rc == vtb.CRASHED, run.stderr


@BOTH
def test_s3_mac_regions_cover_all_ram(kernel):
    """8 GiB of RAM (6 GiB above 4 GiB): the MAC list as the kernel wrote it into the shared
    page, read when it calls vtboot's shutdown_entry for S3."""
    stop = kpatch.Stopped(kernel, "--memory", "8192",
                          cmdline="console=ttyS0 panic=-1 no_console_suspend vtboot.guest=s3",
                          types={3})
    regions, run = stop.go(kpatch.mac_regions, kill=True)
    ram = kpatch.ram_ranges(run)
    assert (0x100000000, 0x280000000) in ram, ram
    want = [kpatch.inward(a, b) for a, b in kpatch.merged(ram)]
    if kernel == "patched":
        assert f"tboot: S3: {len(regions)} MAC regions, " \
               f"{sum(s for _, s in regions)} bytes of RAM" in kernel_lines(run)
        # rounded inward, adjacent ranges merged, split where the u32 size does not reach
        got = kpatch.merged([(a, a + s) for a, s in regions])
        assert got == want, (regions, want)
        assert all(s % 0x1000 == 0 and 0 < s <= 0xfffff000 for _, s in regions), regions
        assert (0x100000000, 0xfffff000) in regions
    else:
        # one region per entry, rounded outward, the size truncated to 32 bits: of the 6 GiB
        # above 4 GiB, 2 GiB are MAC'd
        assert [(a, s) for a, s in regions if a >= 0x100000000] == [(0x100000000, 0x80000000)]
        # the low range ends at the EBDA (0x9fc00): outward rounding covers its page
        low = [(a, s) for a, s in regions if a < 0x100000]
        assert low and low[-1][0] + low[-1][1] == 0xa0000, regions


# ---- patch 5: the waking vector from X_FACS -------------------------------------------------------

@BOTH
def test_waking_vector_from_x_facs(kernel):
    """Before Linux starts, the FADT is changed through the gdbstub to carry the FACS address in
    X_FIRMWARE_CTRL only; at power off tboot_sleep() tells vtboot where the waking vector is."""
    facs = {}

    def patch_fadt(dbg):
        facs["addr"] = kpatch.move_facs_to_x_facs(dbg)

    # at vtboot's jump into Linux
    stop = kpatch.Stopped(kernel, types={1}, before=[(vtb.elf_symbols()["linux_enter"], patch_fadt)])
    vector, run = stop.go(kpatch.wakeup_vector)
    check_tboot_poweroff(run)
    if kernel == "patched":
        assert vector == facs["addr"] + 0xc
    else:
        assert vector == 0xc                      # FIRMWARE_CTRL (0) + 12: the real-mode IVT


# ---- patch 6: waiting for APs in wait-for-SIPI ------------------------------------------------------

@BOTH
def test_cpu_offline_online(kernel):
    cycles = 3
    run = boot(kernel, "--smp", "2",
               cmdline=f"console=ttyS0 panic=-1 vtboot.guest=cpuhp,memlog,cpu1-off,dmesg "
                       f"vtboot.cpuhp={cycles}")
    cycle = re.compile(r"^(\d+) rc=(\d+) ms=(\d+) state=(\d) $")
    offline = [cycle.match(v) for v in run.values("cpuhp-offline")]
    online = [cycle.match(v) for v in run.values("cpuhp-online")]
    assert [(m.group(1), m.group(2), m.group(4)) for m in offline] == \
        [(str(i), "0", "0") for i in range(1, cycles + 1)]
    assert [(m.group(1), m.group(2), m.group(4)) for m in online] == \
        [(str(i), "0", "1") for i in range(1, cycles + 1)]
    assert run.guest["cpu1-off"] == "rc=0 "
    # each offline went through vtboot's wait-for-SIPI
    assert run.memlog_lines().count("shutdown_entry: CPU 1 parks in wait-for-SIPI (1 parked)") == cycles
    ms = [int(m.group(3)) for m in offline]
    down_failed = [l for l in kernel_lines(run)
                   if re.match(r"^CPU 1 DOWN state .* failed \(-16\)$", l)]
    if kernel == "patched":
        assert down_failed == []
        assert min(ms) < 250, ms
        assert not any("waiting for APs" in l for l in tboot_lines(run))
    else:
        # each offline waited for CPU 1 itself: 250 x mdelay(1) (HZ=250), then failed
        assert down_failed == ["CPU 1 DOWN state hrtimers:dying (149) failed (-16)"] * (cycles + 1)
        assert min(ms) >= 250, ms
    # power off with CPU 1 parked: the wait before the call finds it there
    check_tboot_poweroff(run)


# ---- patch 7: debugfs tboot_log ------------------------------------------------------------------

@BOTH
def test_debugfs_tboot_log(kernel):
    run = boot(kernel, cmdline="console=ttyS0 panic=-1 vtboot.guest=tboot-log,dmesg")
    mem = re.match(r"^size=(\d+) sha256=([0-9a-f]{64})$", run.guest["tboot-log-mem"])
    header = bytes.fromhex(run.guest["memlog-hex"])
    assert int(mem.group(1)) == struct.unpack_from("<H", header, 18)[0] > 0      # curr_pos
    read = re.match(r"^rc=(\d+) size=(\d+) sha256=([0-9a-f]{64})$", run.guest["tboot-log-read"])
    if kernel == "patched":
        # exactly the log's text, buf[0, curr_pos) at offset 61
        assert (read.group(1), read.group(2), read.group(3)) == ("0", mem.group(1), mem.group(2))
        assert run.guest["tboot-log-first"] == \
            "vtboot: *********************** vtboot ***********************"
    else:
        # max_size read as u32 = curr_pos << 16 | max_size; the 8th 4 KiB read runs off the
        # 0x8000 mapping and oopses; dd is killed
        lines = kernel_lines(run)
        assert any(re.match(r"^BUG: unable to handle page fault for address: ffffc9000[0-9a-f]{7}$", l)
                   for l in lines), run.serial[-3000:]
        assert "RIP: 0010:memcpy_fromio+0x28/0x38" in lines
        assert (read.group(1), read.group(2)) == ("137", str(7 * 4096))
        assert run.guest["tboot-log-error"] == "Killed"
        # and what it gave is not the text: it starts in the header's zip fields
        assert read.group(3) != mem.group(2)
    assert run.rc == vtb.POWERED_OFF, run.stderr


# ---- patch 8: DMAR under tboot without a TXT heap ---------------------------------------------------

@BOTH
def test_intel_iommu_without_txt_heap(kernel):
    run = boot(kernel, "--", "-device", "intel-iommu", cmdline=f"console=ttyS0 panic=-1 {DMESG}")
    lines = kernel_lines(run)
    assert any(l.startswith("ACPI: DMAR 0x") for l in lines)
    if kernel == "patched":
        assert "tboot: no TXT heap (HEAP.BASE 0x0, HEAP.SIZE 0x0): using the firmware's DMAR " \
               "table, which no SINIT has checked" in lines
        assert "DMAR: dmar0: reg_base_addr fed90000 ver 1:0 cap d2008c22260206 ecap f00f4a" in lines
        assert "DMAR: dmar0: Using Queued invalidation" in lines
        check_tboot_poweroff(run)
    else:
        # a panic before tboot's late_initcall: a plain reset, not through tboot
        assert "Kernel panic - not syncing: tboot: Failed to initialize DMAR table" in lines
        assert run.rc == vtb.RESET, run.stderr
        assert "VTBOOT-GUEST: begin" not in run.serial
        assert not run.has_vtboot_line(r"^shutdown_entry")


# ---- patch 9: securityfs --------------------------------------------------------------------------

def securityfs(run):
    """{file: [lines]} and {file: bytes} from the guest's securityfs action."""
    text, binary = {}, {}
    for v in run.values("securityfs"):
        name, _, line = v.partition(": ")
        text.setdefault(name, []).append(line)
    for v in run.values("securityfs-hex"):
        name, _, data = v.partition("=")
        binary[name] = bytes.fromhex(data)
    return text, binary


@BOTH
def test_securityfs_launch_state(kernel):
    run = boot(kernel, cmdline="console=ttyS0 panic=-1 vtboot.guest=securityfs,tboot-log,dmesg")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    if kernel == "stock":
        assert run.guest["securityfs-tboot"] == "absent"
        assert run.guest["securityfs"] == "absent"
        return
    assert run.guest["securityfs-tboot"] == "present"
    sp = vtb.parse_shared_page(bytes.fromhex(run.guest["shared-page-hex"]))
    ext = vtb.parse_ext(run)
    text, binary = securityfs(run)
    assert {k: v for k, v in text.items() if k != "log"} == {
        "version": ["6"], "log_addr": ["0x00060000"],
        "shutdown_entry": [f"{sp.shutdown_entry:#010x}"], "tboot_base": [f"{sp.tboot_base:#010x}"],
        "tboot_size": [f"{sp.tboot_size:#010x}"], "num_in_wfs": ["0"], "measured": ["1"]}
    assert ext.flags & (vtb.EXT_LAUNCHED | vtb.EXT_MEASURED) == vtb.EXT_LAUNCHED | vtb.EXT_MEASURED
    assert f"tboot: vtboot block: flags {ext.flags:#x}, event log at {ext.evtlog_addr:#x} " \
           f"({ext.evtlog_used} bytes)" in tboot_lines(run)
    # the memory log: the same text as debugfs
    assert text["log"][0] == "vtboot: *********************** vtboot ***********************"
    sums = dict(v.split("=", 1) for v in run.values("securityfs-sha256"))
    read = re.match(r"^rc=0 size=(\d+) sha256=([0-9a-f]{64})$", run.guest["tboot-log-read"])
    assert sums["log"] == f"{read.group(2)} size={read.group(1)}"
    # the event log: the bytes vtboot wrote, and tpm2_eventlog replays it to the TPM's PCRs
    assert list(binary) == ["event_log"]
    assert binary["event_log"] == bytes.fromhex(run.guest["evtlog-hex"])
    assert len(binary["event_log"]) == ext.evtlog_used
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "event_log")
        with open(path, "wb") as f:
            f.write(binary["event_log"])
        replay = vtb.eventlog_pcrs(path)
    for bank in ("sha1", "sha256"):
        for pcr in (17, 18):
            assert replay[bank][pcr] == run.guest[f"pcr-{bank}-{pcr}"], (bank, pcr)


@BOTH
def test_securityfs_without_dynamic_launch(kernel):
    """--no-drtm: vtboot still hands over the page, and its block says there was no launch."""
    run = boot(kernel, "--no-drtm", cmdline="console=ttyS0 panic=-1 vtboot.guest=securityfs,dmesg")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^ERROR: NO DYNAMIC LAUNCH: ")
    if kernel == "stock":
        assert run.guest["securityfs"] == "absent"
        return
    text, binary = securityfs(run)
    assert text["measured"] == ["0"]
    ext = vtb.parse_ext(run)
    assert ext.flags & (vtb.EXT_LAUNCHED | vtb.EXT_MEASURED) == 0
    assert f"tboot: vtboot block: flags {ext.flags:#x}, event log at {ext.evtlog_addr:#x} " \
           f"({ext.evtlog_used} bytes)" in tboot_lines(run)
    # no launch, no D-RTM event log: vtboot's block names none, and securityfs has none
    assert (ext.evtlog_addr, ext.evtlog_size, ext.evtlog_used) == (0, 0, 0)
    assert "event_log" not in binary and "evtlog-hex" not in run.guest
