# SPDX-License-Identifier: MIT
"""The CPUs of the TXT platform under Debian's unmodified tboot (issue 39, item 2): our SINIT
launches tboot with --smp 2 and --smp 4, tboot's GETSEC[WAKEUP] (qemu/patches 0007) joins every
RLP to the MLE, which parks it in tboot's MONITOR/MWAIT loop (vtboot-qemu's
`ap_wake_mwait=true`), and Debian's kernel brings each up with INIT-SIPI-SIPI.

On hardware INIT leaves the MTRRs as they were (SDM vol. 3A, table 10-1), so every AP keeps
what tboot's wakeup path gave it (txt_cpu_wakeup: the BSP's saved MTRRs) and Linux finds them
all alike. QEMU 7.2 cleared them on INIT (stock QEMU too, under TCG): Linux reported "your CPUs
had inconsistent fixed/variable MTRR settings, MTRRdefType settings" on every --smp boot;
qemu/patches 0013 keeps them. The control is Debian's stock QEMU, which still prints the lines.

CPU 1 offline goes through tboot: Linux's play_dead calls tboot's shutdown entry with
TB_SHUTDOWN_WFS, and tboot parks the CPU in its MWAIT loop again ("shutdown(): TB_SHUTDOWN_WFS",
"cpu 1 mwait'ing" on COM1, which tboot writes beside Linux); online is Linux's INIT-SIPI-SIPI to
that CPU. Power off and reboot go through tboot's shutdown, which first waits until every AP it
counted is in its loop ("wait until all APs ready for txt shutdown"), then caps the PCRs and
leaves the measured environment. The control of the hotplug is the same kernel on a platform
without a SINIT: tboot is not launched, Linux's tboot driver is off and the CPU never reaches
tboot."""
import os
import re
import struct
import time

import pytest

import kpatch
import vtb
from qemuctl import Qmp
from test_txt_launch import assert_platform_verified, boot_txt, tboot_lines
from test_txt_sinit import CMDLINE, guest_pcrs, prediction, txt_launch, txt_shutdown
from test_txt_tboot_attacks import (STUB, arm_msi, edu_bus_master, finished, raise_edu_interrupt,
                                    start, stub_code, tboots_kernel_address)

MTRR_WARNINGS = ("mtrr: your CPUs had inconsistent fixed MTRR settings",
                 "mtrr: your CPUs had inconsistent variable MTRR settings",
                 "mtrr: your CPUs had inconsistent MTRRdefType settings")
PARKS = "TBOOT: shutdown(): TB_SHUTDOWN_WFS"
kernel_lines = kpatch.kernel_lines


def tboot_count(run, line):
    """How often tboot wrote line on COM1. Linux's console on the other CPUs writes beside the
    parked CPU's tboot (a line may come out as "T[BOOT: ..."), so its characters are taken out:
    what is left of each line must be tboot's line. The guest's txt-stat lines (tboot's memory
    log, read before any hotplug) are not counted. Linux's console may also write a whole
    record of its own, line end included, into the middle of tboot's line ("TBOOT: [    5.49]
    smpboot: CPU 1 is now offline" then "shutdown(): ..."): such records are taken out first."""
    n = 0
    serial = re.sub(r"\[ *\d+\.\d{6}\] [^\n]*\n", "", run.serial)
    for l in serial.splitlines():
        if l.startswith("VTBOOT-GUEST: "):
            continue
        n += is_tboots(l, line)
    return n


def is_tboots(text, line):
    """text is line, or line with up to 40 characters of another writer's in it: line's
    characters appear in text in order, and text begins with line's first one."""
    if text == line:
        return True
    it = iter(text)
    return len(line) < len(text) < len(line) + 40 and text[0] == line[0] and \
        all(c in it for c in line)


def mtrr_warnings(run):
    return [l for l in kernel_lines(run) if l.startswith("mtrr: ")]


def smp_boot(cpus, guest, end="poweroff", txt=True):
    """Debian's kernel through GRUB and tboot with our SINIT (txt_launch, the halt policy) on
    `cpus` CPUs, the guest's actions `guest`; txt=False: the same without a SINIT."""
    kernel = vtb.debian_generic_kernel()
    cmdline = f"{CMDLINE} vtboot.guest={guest} vtboot.end={end}"
    args = txt_launch("--grub", kernel, cmdline)
    if not txt:
        i = args.index("--sinit")
        args = args[:i] + args[i + 4:]          # no --sinit F --sinit-key K: no launch
    run = boot_txt(*args, "--smp", str(cpus))
    run.loader, run.cmdline, run.kernel = "--grub", cmdline, kernel
    run.initrd = vtb.OUT + "/initrd.img"
    run.policy = args[args.index("--policy") + 1]
    return run


def assert_all_cpus_up(run, cpus):
    lines = tboot_lines(run)
    assert "measured launch succeeded" in lines, run.serial[-3000:]
    # every RLP joined the MLE and parked in tboot's loop before Linux started
    for cpu in range(1, cpus):
        assert f"cpu {cpu} waking up from TXT sleep" in lines, "\n".join(lines)
    i = lines.index("GETSEC[WAKEUP] completed")
    assert sorted(l for l in lines[:i] if l.endswith(" mwait'ing")) == \
        [f"cpu {c} mwait'ing" for c in range(1, cpus)]
    assert lines.index(f"waiting for all APs ({cpus - 1}) to enter wait-for-sipi...") > i
    assert "all APs in wait-for-sipi" in lines
    k = kernel_lines(run)
    assert f"smp: Brought up 1 node, {cpus} CPUs" in k, "\n".join(k[:200])
    assert "tboot: found shared page at phys addr" in run.serial


@pytest.fixture(scope="module", params=[2, 4], ids=lambda n: f"smp{n}")
def smp(request):
    """--smp 2: CPU 1 offline and online three times (guest/init's cpuhp), then offline for
    the power off; --smp 4: the same hotplug, then a reboot with every CPU online."""
    cpus = request.param
    if cpus == 2:
        run = smp_boot(2, "cpuhp,cpu1-off", "poweroff")
    else:
        run = smp_boot(4, "cpuhp", "reboot")
    run.cpus = cpus
    return run


@pytest.mark.slow
def test_every_cpu_comes_up_with_the_same_mtrrs(smp):
    assert smp.rc == (vtb.POWERED_OFF if smp.cpus == 2 else vtb.RESET), \
        smp.stderr[-2000:] + "\n" + smp.serial[-1500:]
    assert_all_cpus_up(smp, smp.cpus)
    assert mtrr_warnings(smp) == []


def test_pcrs_are_the_prediction_with_every_cpu(smp):
    assert guest_pcrs(smp) == prediction(smp)


def test_cpu1_offline_parks_in_tboot_and_online_comes_back(smp):
    offline, online = smp.values("cpuhp-offline"), smp.values("cpuhp-online")
    assert [o.split()[:2] for o in offline] == [[str(i), "rc=0"] for i in (1, 2, 3)], offline
    assert [o.split()[:2] for o in online] == [[str(i), "rc=0"] for i in (1, 2, 3)], online
    assert all("state=0" in o for o in offline) and all("state=1" in o for o in online)
    # each offline ended in tboot's shutdown entry, which parked the CPU in its loop again
    assert tboot_count(smp, PARKS) == 3 + (smp.cpus == 2), "\n".join(tboot_lines(smp)[-40:])
    assert tboot_count(smp, "TBOOT: cpu 1 mwait'ing") == 1 + 3 + (smp.cpus == 2)
    # and each online was Linux's INIT-SIPI-SIPI (its own count)
    assert kernel_lines(smp).count("smpboot: Booting Node 0 Processor 1 APIC 0x1") == 3


def test_tboots_shutdown_gathers_the_aps(smp):
    """tboot waits for the APs it counted before it caps the PCRs and leaves the measured
    environment; with --smp 2 CPU 1 is parked in tboot (cpu1-off) as the power off comes."""
    if smp.cpus == 2:
        assert smp.guest.get("cpu1-off") == "rc=0 ", smp.serial[-2000:]
        lines = smp.serial.splitlines()
        parked = max(i for i, l in enumerate(lines) if is_tboots(l, PARKS))
        assert lines.index("TBOOT: wait until all APs ready for txt shutdown") > parked
    txt_shutdown(smp, "TB_SHUTDOWN_S5" if smp.cpus == 2 else "TB_SHUTDOWN_REBOOT")


@pytest.mark.slow
def test_control_stock_qemu_clears_the_aps_mtrrs_on_init():
    """Debian's own QEMU (no patch 0013) with the same kernel on two CPUs, vtboot's paravirtual
    launch: Linux finds the APs' MTRRs cleared by its INIT and says so."""
    run = vtb.boot("--kernel", vtb.debian_generic_kernel(), "--smp", "2",
                   "--cmdline", CMDLINE)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:]
    assert "smp: Brought up 1 node, 2 CPUs" in kernel_lines(run)
    assert mtrr_warnings(run)[:3] == list(MTRR_WARNINGS), mtrr_warnings(run)


@pytest.mark.slow
def test_control_without_a_launch_cpu1_never_reaches_tboot():
    run = smp_boot(2, "cpuhp", txt=False)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert "SINIT ACM not provided." in tboot_lines(run)
    assert run.guest.get("tboot-cpuhp-state") == "absent"
    assert [o.split()[1] for o in run.values("cpuhp-offline") + run.values("cpuhp-online")] == \
        ["rc=0"] * 6
    assert PARKS not in run.serial.splitlines()
    assert "TBOOT: cpu 1 mwait'ing" not in run.serial.splitlines()


# ---- S3 through tboot with CPU 1 offline and online before each suspend ---------------------

# `make soak` sets VTBOOT_SOAK_CYCLES (tests/tests.mk): many cycles for rare hangs; `make test`
# runs a few
S3_CYCLES = int(os.environ.get("VTBOOT_SOAK_CYCLES", "2"))


@pytest.mark.slow
def test_s3_cycles_through_tboot_with_cpu_hotplug():
    """--smp 2, Debian's kernel under tboot with our SINIT: before each suspend CPU 1 goes
    offline (into tboot's loop) and online again; Linux then parks it in tboot once more
    (freeze_secondary_cpus), tboot seals its MAC of kernel memory and enters S3; the host wakes
    the guest (QMP), tboot's S3 path runs GETSEC[SENTER] again, checks the MAC and resumes Linux,
    which brings CPU 1 back. Every resume returns 0, CPU 1 takes timer interrupts again, PCRs 17
    and 18 after each resume equal the boot's, which equal the prediction."""
    cycles = S3_CYCLES
    kernel = vtb.debian_generic_kernel()
    cmdline = f"{CMDLINE} no_console_suspend vtboot.guest=s3 vtboot.s3={cycles} vtboot.s3cpu=1 vtboot.s3flush=1"
    args = txt_launch("--grub", kernel, cmdline)
    run = vtb.Running(*args, "--smp", "2", timeout=300 + 60 * cycles).sleep_cycles(
        cycles, timeout=300)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-2000:]
    assert_platform_verified(run.serial)
    lines = tboot_lines(run)
    assert run.values("s3-resumed") == [f"{i} rc=0 " for i in range(1, cycles + 1)], \
        run.serial[-3000:]
    assert run.values("s3-cpu1") == [f"{i} online={v} rc=0 " for i in range(1, cycles + 1)
                                     for v in (0, 1)]
    assert run.values("s3-cpu1-timer") == [f"{i} rc=0" for i in range(1, cycles + 1)]
    # one launch at boot and one at each resume, each with CPU 1 joined by WAKEUP
    assert lines.count("measured launch succeeded") == 1 + cycles
    assert lines.count("cpu 1 waking up from TXT sleep") == 1 + cycles
    assert mtrr_warnings(run) == []
    run.loader, run.cmdline, run.kernel, run.policy = "--grub", cmdline, kernel, args[
        args.index("--policy") + 1]
    run.initrd = vtb.OUT + "/initrd.img"
    want = prediction(run)
    assert guest_pcrs(run) == want
    for p in (17, 18):
        assert run.values(f"s3-pcr-sha256-{p}") == [f"{i} {want[(p, 'sha256')]}"
                                                     for i in range(1, cycles + 1)]


# ---- the APs under attack: INIT then SIPI by MSI, NMI before and after WAKEUP ---------------

MSI_APIC1 = 0xFEE01000                  # destination APIC ID 1, physical mode
MSI_INIT, MSI_NMI = 0x0500, 0x0400      # delivery modes INIT (101b), NMI (100b)
MSI_SIPI_STUB = 0x0600 | (STUB >> 12)   # StartUp (110b), vector 0x07: 0700:0000 = the stub
EDU_ACK = 0x64                          # edu: lower the interrupt (its status bits)


def cpu1_state(running):
    """CPU 1's CS selector and EIP as the monitor shows them."""
    with Qmp(running.qmp_path, connect_timeout=30) as qmp:
        regs = qmp.command("human-monitor-command", timeout=30,
                           **{"command-line": "info registers", "cpu-index": 1})
    m = re.search(r"EIP=([0-9a-f]{8})", regs)
    assert m, regs
    eip = int(m.group(1), 16)
    c = re.search(r"^CS =([0-9a-f]{4})", regs, re.M)
    assert c, regs
    return int(c.group(1), 16), eip


def send_msi(gdb, bar0, data):
    """edu's next interrupt as an MSI to APIC 1 with `data`, raised now."""
    arm_msi(gdb, MSI_APIC1, data)
    gdb.write_phys(bar0 + EDU_ACK, struct.pack("<I", 1))
    raise_edu_interrupt(gdb, bar0)


def test_init_then_sipi_by_msi_to_an_ap_parked_in_tboot_is_harmless():
    """After the launch CPU 1 waits in tboot's MWAIT loop with INIT unmasked (ap_wake_mwait).
    With the BSP stopped where tboot hands over to Linux (CPU 1 parked for sure), edu, armed by
    the attacker's loader, sends CPU 1 an INIT by MSI, then a StartUp by MSI with the vector of
    the attacker's stub. The INIT lands (CPU 1 at the reset vector, waiting for SIPI, as soon as
    the VM runs); the StartUp does not (an MSI cannot carry a SIPI: the delivery mode is reserved,
    SDM vol. 3A 11.11.2, and QEMU's APIC drops it): the stub never runs, and Linux later starts
    CPU 1 with its own INIT-SIPI-SIPI. The run goes on to PCRs equal to the prediction."""
    running, kernel = start("--smp", "2")
    with vtb.Gdb(running.gdb_path) as gdb:
        _, bar0 = edu_bus_master(gdb)
        gdb.write_phys(STUB, stub_code())
    with open(kernel, "rb") as f:
        entry = tboots_kernel_address(f.read())
    dbg = kpatch.Debugger(running.gdb_path, timeout=30)
    try:
        dbg.run_to(entry, 240)
        assert "TBOOT: cpu 1 mwait'ing" in running.serial().splitlines()
        cs_parked, eip_parked = cpu1_state(running)
        send_msi(dbg, bar0, MSI_INIT)
        send_msi(dbg, bar0, MSI_SIPI_STUB)
    finally:
        dbg.close(resume=True)
    states = []
    for _ in range(50):                     # CPU 1 takes the INIT as the VM runs again
        states.append(cpu1_state(running))
        if states[-1][0] == 0xf000 or "smpboot: Booting Node 0" in running.serial():
            break
        time.sleep(0.1)
    assert "smpboot: Booting Node 0 Processor 1" not in running.serial(), \
        "Linux started CPU 1 before the host saw it after the INIT"
    run = finished(running, kernel)
    # parked: in tboot's code (its image, as it protected it in the e820 map)
    lo, hi = (int(x, 16) for x in re.search(
        r"^TBOOT: protecting tboot \(([0-9a-f]+) - ([0-9a-f]+)\)", run.serial, re.M).groups())
    assert cs_parked != 0xf000 and lo <= eip_parked <= hi, (hex(cs_parked), hex(eip_parked))
    # the INIT took CPU 1 to the reset vector; no StartUp moved it to the stub (0700:0000)
    assert states[-1] == (0xf000, 0xfff0), states
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert "STUB: PWNED" not in run.serial
    assert "smp: Brought up 1 node, 2 CPUs" in kernel_lines(run)
    assert guest_pcrs(run) == prediction(run)


def tboots_post_launch_entry():
    """Where our SINIT enters tboot (the ILP, before tboot's GETSEC[WAKEUP]): its MLE header's
    entry point past the MLE's start, from /boot/tboot.gz (tboot prints it only shortly before
    SENTER, too late for a breakpoint)."""
    import gzip
    import tempfile
    with tempfile.NamedTemporaryFile() as f:
        f.write(gzip.open("/boot/tboot.gz").read())
        f.flush()
        image, base = vtb.mle_image(f.name)
    _, hdr = vtb.mle_header(image)
    return base + hdr["mle_start_off"] + hdr["entry_point"]


def nmi_boot(before_wakeup, send=True):
    """The project's kernel through tboot on two CPUs with an edu armed by the attacker's
    loader, which sends CPU 1 an NMI by MSI with the BSP stopped at tboot's post-launch entry
    (CPU 1 asleep in SENTER's rendezvous, before GETSEC[WAKEUP]) or at Linux's entry (CPU 1 in
    tboot's MWAIT loop, NMIs enabled by tboot); send=False: the same stop, no NMI (the
    control). Returns the finished run."""
    running, kernel = start("--smp", "2")
    with vtb.Gdb(running.gdb_path) as gdb:
        _, bar0 = edu_bus_master(gdb)
    if before_wakeup:
        where = tboots_post_launch_entry()
    else:
        with open(kernel, "rb") as f:
            where = tboots_kernel_address(f.read())
    dbg = kpatch.Debugger(running.gdb_path, timeout=30)
    try:
        dbg.run_to(where, 240)
        lines = running.serial().splitlines()
        assert ("TBOOT: cpu 1 waking up from TXT sleep" in lines) != before_wakeup
        if send:
            send_msi(dbg, bar0, MSI_NMI)
    finally:
        dbg.close(resume=True)
    return finished(running, kernel)


# what tboot's BSP prints between CPU 1's NMI unmask and the APs' wait-for-SIPI
BSP_WAITS_FOR_THE_AP = {"GETSEC[WAKEUP] completed",
                        "waiting for all APs (1) to enter wait-for-sipi...", "."}


def test_an_nmi_to_an_rlp_before_wakeup_resets_the_platform_before_secrets():
    """CPU 1 sleeps in SENTER's rendezvous: the NMI stays pending (patch 0006) until tboot
    unmasks NMIs on it after WAKEUP (txt_cpu_wakeup's __enable_nmi); taking it there ends in a
    platform reset (QEMU's guest-reset) before tboot sets SECRETS or hands anything to Linux:
    the reset takes PCRs 17 and 18 back to their reset value (only a new SENTER extends them)."""
    run = nmi_boot(before_wakeup=True)
    lines = tboot_lines(run)
    assert run.rc == vtb.RESET, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert "guest reset" in run.stderr
    assert lines.count("measured launch succeeded") == 1
    i = lines.index("enabling SMIs and NMI on cpu 1")
    # the reset comes while the BSP waits for CPU 1 (how far the BSP got depends on when TCG
    # runs CPU 1 again: evidence 20261208-022422 reached the wait's first dot)
    assert set(lines[i + 1:]) <= BSP_WAITS_FOR_THE_AP, lines[i:]
    assert "set TXT.CMD.SECRETS flag" not in lines and "cpu 1 mwait'ing" not in lines
    assert "STUB: PWNED" not in run.serial and not run.linux_ran()


def test_an_nmi_to_an_rlp_after_wakeup_caps_the_pcrs_and_resets():
    """CPU 1 in tboot's MWAIT loop, NMIs enabled: the NMI brings it back through tboot's own
    entry ("entry processor is not BSP", tboot's TB_ERR_FATAL), whose policy caps PCRs 17 and
    18 and ends the measured environment from that CPU; the platform resets under Linux, which
    never reaches its init. (How the NMI leads CPU 1 into tboot's entry was not traced.)"""
    run = nmi_boot(before_wakeup=False)
    assert run.rc == vtb.RESET, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    # in the serial text, not line by line: Linux, booting on CPU 0, writes beside CPU 1's tboot
    # ("[    0.000000] rcu: srcu_inTBOOT: generic fatal error.", evidence 20261208-0235)
    ser = run.serial
    i = ser.index("TBOOT: entry processor is not BSP")
    assert i < ser.index("TBOOT: generic fatal error.", i) < \
        ser.index("TBOOT: cap'ed dynamic PCRs", i) < \
        ser.index("TBOOT: calling txt_shutdown on AP", i), ser[i:i + 3000]
    assert "VTBOOT-GUEST: begin" not in run.serial and "STUB: PWNED" not in run.serial


@pytest.mark.slow
def test_control_the_same_stops_without_an_nmi_boot_to_the_predicted_pcrs():
    for before_wakeup in (True, False):
        run = nmi_boot(before_wakeup, send=False)
        assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
        assert "entry processor is not BSP" not in tboot_lines(run)
        assert "smp: Brought up 1 node, 2 CPUs" in kernel_lines(run)
        assert guest_pcrs(run) == prediction(run)
