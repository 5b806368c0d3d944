#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Issue 13's boot figures, each measured side by side in one run (QEMU under TCG):

  vtboot run / its hashing   vtboot's own TSC lines in the guest: from its pre-launch entry
                             (its first instruction) to its jump into Linux, against the
                             ticks it spent hashing in that same boot. Debian's generic 6.1
                             kernel (about 8 MB) and the test initrd, uncompressed and padded
                             with zeros to 50 MiB (the launcher would unpack a gzip'd initrd).
                             The boot with the median ratio is kept.
  boot to /init              host time from starting vtboot-qemu, and from starting QEMU
                             with -kernel/-initrd/-append directly, to the guest's first /init
                             line ("VTBOOT-GUEST: begin") on serial: the same kernel, initrd
                             and command line, and the launcher's own QEMU options without
                             what serves vtboot (its TPM, the virtual SENTER's UART, sockets).
                             Runs alternate; the best of each is kept (the other core's load
                             only ever adds time, to either side).
  TXT launch to Linux        host time from tboot's "executing GETSEC[SENTER]..." line to
                             its "transfering control to kernel" line on the TXT platform
                             (Debian's tboot and our SINIT: the SINIT's checks and
                             measurements, tboot's post-launch work and its hashing of the
                             kernel and initrd), against vtboot's "requesting the dynamic
                             launch" line to its "jump into Linux" line in the paravirtual
                             boot of the same kernel, initrd and command line. The best of
                             each, from the boots to /init below.
  TXT boot to /init          host time from starting vtboot-qemu --txt (QEMU's multiboot
                             loader starting tboot; its own hashing too) to the first /init
                             line, against the paravirtual boot and the direct boot: the same
                             runs, alternating with them; the best of each.
  S3 cycle                   host time from the guest's "s3-suspend=N" line to its
                             "s3-resumed=N" line, the host waking it (QMP system_wakeup) as
                             soon as QMP reports SUSPEND: through vtboot (memory MACed, key
                             sealed, re-launch, unseal, verify) and the same guest booted by
                             QEMU directly. 128 MB as in the S3 tests, but `-machine pc`: on
                             q35 a guest without vtboot cannot suspend twice (docs/s3.md). The
                             best cycle of alternating boots. The issue sets no target.
  S3 vtboot run/MACing       where that cycle's time goes, from vtboot's TSC lines: its
                             suspend (shutdown_entry to the sleep) and its resume's MLE (entry
                             to the jump into Linux's resume vector), against the MACing of
                             RAM in both. No target either.

Appends its rows to the bench JSON (replacing rows of the same figure; `make bench` runs the
crypto bench first, which writes the file), and prints them in the crypto bench's table.
Nothing here asserts on speed.

Usage: boot_bench.py [--json FILE] [--runs N] [--s3-boots N] [--cycles N]
"""

import argparse
import functools
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qemu"))
import vtb                                    # noqa: E402
from test_txt_sinit import PROJECT_KEY, SINIT  # noqa: E402

MIB = 1 << 20
INITRD_SIZE = 50 * MIB
BOOT_TIMEOUT = 300                            # seconds, per boot or S3 cycle
S3_GUEST = "console=ttyS0 panic=-1 no_console_suspend vtboot.guest=s3"
INIT_BEGIN = r"VTBOOT-GUEST: begin$"
# the launch's start and the jump into Linux, on each platform
PV_LAUNCH = (r"^vtboot: requesting the dynamic launch", r"^vtboot: timing: jump into Linux at ")
TXT_LAUNCH = (r"^TBOOT: executing GETSEC\[SENTER\]\.\.\.$", r"^TBOOT: transfering control to kernel ")

# the launcher's QEMU options that serve vtboot, each with its value (a -device serving vtboot
# names one of its chardevs or its TPM backend)
VTBOOT_ONLY = {"-chardev", "-serial", "-mon", "-gdb", "-tpmdev", "-kernel", "-append", "-initrd"}


class Boot:
    """A VM whose serial output (its stdout) is timed line by line, with QMP on qmp_path."""

    def __init__(self, argv, qmp_path):
        self.qmp_path = qmp_path
        self.started = time.monotonic()
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.lines = vtb.TimedLines(self.proc.stdout)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.terminate()             # the launcher ends QEMU and swtpm with it
        self.proc.wait(timeout=120)

    def vtboot_lines(self):
        return vtb.Run(0, self.lines.text(), "").vtboot_lines()


@functools.lru_cache
def launcher_qemu_argv(*args):
    """The QEMU command the launcher runs for these arguments, from its -v line (it starts the
    VM, and is stopped by its --timeout after a second; once for each set of arguments)."""
    p = subprocess.run([vtb.LAUNCHER, "-v", "--timeout", "1", *args], capture_output=True,
                       text=True, errors="replace")
    lines = [l for l in p.stderr.splitlines() if l.startswith("vtboot-qemu: qemu: ")]
    if not lines:
        raise RuntimeError(f"vtboot-qemu -v printed no QEMU command line:\n{p.stderr}")
    return tuple(shlex.split(lines[0][len("vtboot-qemu: qemu: "):]))


def direct_qemu_argv(launcher_argv, kernel, initrd, cmdline, qmp_path):
    """The launcher's QEMU command without what serves vtboot, booting kernel and initrd
    directly, serial on stdout and QMP on qmp_path."""
    argv, skip = [], False
    for i, a in enumerate(launcher_argv):
        if skip:
            skip = False
        elif a in VTBOOT_ONLY or (a == "-device" and any(
                k in launcher_argv[i + 1] for k in ("chardev=", "tpmdev="))):
            skip = True
        else:
            argv.append(a)
    return argv + ["-serial", "stdio",
                   "-chardev", f"socket,id=qmp,path={qmp_path},server=on,wait=off",
                   "-mon", "chardev=qmp,mode=control",
                   "-kernel", kernel, "-initrd", initrd, "-append", cmdline]


def vtboot_boot(tmp, *args):
    qmp = os.path.join(tmp, "vtboot-qmp.sock")
    return Boot([vtb.LAUNCHER, "--timeout", str(BOOT_TIMEOUT), "--qmp", qmp, *args], qmp)


def direct_boot(tmp, *args):
    """The same boot as vtboot_boot(*args) (the launcher's options --kernel, --initrd,
    --cmdline, --machine, --memory), by QEMU directly; Linux gets module 0's string, the
    command line it gets through vtboot."""
    qmp = os.path.join(tmp, "direct-qmp.sock")
    opts = dict(zip(args[::2], args[1::2]))
    cmdline = vtb.module_strings(*args)[0]
    return Boot(direct_qemu_argv(launcher_qemu_argv(*args), opts["--kernel"],
                                 opts["--initrd"], cmdline, qmp), qmp)


def boot_figures(tmp, runs):
    """vtboot's run against its hashing in the guest, and boot to /init against QEMU's direct
    boot, from the same vtboot boots."""
    kernel = vtb.debian_generic_kernel()
    initrd, size = vtb.padded_initrd(tmp, INITRD_SIZE - len(vtb.image_bytes(
        os.path.join(vtb.OUT, "initrd.img"))))
    args = ("--kernel", kernel, "--initrd", initrd, "--cmdline", "console=ttyS0 panic=-1")
    print(f"boot: kernel {os.path.basename(kernel)} {os.path.getsize(kernel)} bytes "
          f"(Debian's generic 6.1), initrd {size} bytes; {runs} runs each, alternating")
    txt_args = ("--txt", "--sinit", SINIT, "--sinit-key", PROJECT_KEY, *args)
    in_guest, ours, reference, txt, pv_launch, txt_launch = [], [], [], [], [], []
    for run in range(1, runs + 1):
        with vtboot_boot(tmp, *args) as b:
            pv_launch.append(launch_time(b, PV_LAUNCH))
            ours.append(b.lines.wait(INIT_BEGIN, BOOT_TIMEOUT) - b.started)
            in_guest.append(guest_run_and_hashing(b.vtboot_lines()))
        with direct_boot(tmp, *args) as b:
            reference.append(b.lines.wait(INIT_BEGIN, BOOT_TIMEOUT) - b.started)
        with vtboot_boot(tmp, *txt_args) as b:
            txt_launch.append(launch_time(b, TXT_LAUNCH))
            txt.append(b.lines.wait(INIT_BEGIN, BOOT_TIMEOUT) - b.started)
        run_ms, hash_ms, mle_ms = in_guest[-1]
        print(f"  run {run}: to /init {ours[-1]:.2f} s with vtboot, {reference[-1]:.2f} s "
              f"direct, {txt[-1]:.2f} s on TXT; launch to Linux {pv_launch[-1]:.2f} s with "
              f"vtboot, {txt_launch[-1]:.2f} s on TXT; in the guest vtboot ran {run_ms:.0f} ms "
              f"(its MLE {mle_ms:.0f} ms), hashing {hash_ms:.0f} ms", flush=True)
    run_ms, hash_ms = median_ratio([g[:2] for g in in_guest])
    return [figure("vtboot run/hashing, in guest", run_ms, hash_ms, "ms", 1.1),
            figure("boot to /init vs -kernel", min(ours), min(reference), "s", 1.2),
            figure("TXT launch to Linux vs vtboot", min(txt_launch), min(pv_launch), "s", None),
            figure("TXT boot to /init vs vtboot", min(txt), min(ours), "s", None),
            figure("TXT boot to /init vs -kernel", min(txt), min(reference), "s", None)]


def launch_time(boot, marks):
    """Host seconds between the serial lines marks = (the launch's start, the jump into
    Linux)."""
    start = boot.lines.wait(marks[0], BOOT_TIMEOUT)
    return boot.lines.wait(marks[1], BOOT_TIMEOUT) - start


def guest_run_and_hashing(vtboot_lines):
    """(vtboot's run from its pre-launch entry to the jump into Linux, its hashing, its MLE's
    run) in ms, from its timing lines; ValueError if they are not there exactly once."""
    jumps = vtb.timings(vtboot_lines)
    entries = vtb.entry_tsc(vtboot_lines, "pre-launch")
    if len(jumps) != 1 or not jumps[0] or len(entries) != 1 or not entries[0] < jumps[0].entry:
        raise ValueError(f"vtboot's timing lines are not one pre-launch entry and one jump "
                         f"into Linux after it: {jumps}, {entries}")
    j = jumps[0]
    ms = lambda ticks: ticks / j.mhz / 1000
    return ms(j.tsc - entries[0]), ms(j.hashing), ms(j.ran)


def s3_cycle_times(boot, cycles):
    """Seconds from each "s3-suspend=N" line to its "s3-resumed=N rc=0" line, waking the
    guest as soon as QMP reports it suspended."""
    asked, times = {}, []

    def asleep(i, qmp):
        asked[i] = boot.lines.wait(rf"VTBOOT-GUEST: s3-suspend={i}$", BOOT_TIMEOUT)

    def awake(i):
        times.append(boot.lines.wait(rf"VTBOOT-GUEST: s3-resumed={i} rc=0 ", BOOT_TIMEOUT)
                     - asked[i])
    done = vtb.wake_cycles(boot.qmp_path, cycles, BOOT_TIMEOUT, asleep, awake)
    if done != cycles:
        raise RuntimeError(f"the guest ended after {done} of {cycles} S3 cycles")
    return times


def guest_s3_run_and_macing(vtboot_lines, cycles):
    """Each cycle's (vtboot's run, its MACing) in ms, from its timing lines: the suspend (from
    shutdown_entry to the sleep) and the resume's MLE (from its entry to the jump into Linux's
    resume vector); ValueError if there is not one of each per cycle."""
    sleeps = vtb.timings(vtboot_lines, "S3 sleep")
    resumes = vtb.timings(vtboot_lines, "jump into Linux's S3 resume vector")
    if len(sleeps) != cycles or len(resumes) != cycles or not all(sleeps + resumes):
        raise ValueError(f"vtboot's S3 timing lines are not one sleep and one resume for each "
                         f"of {cycles} cycles: {sleeps}, {resumes}")
    return [((s.ran / s.mhz + r.ran / r.mhz) / 1000, (s.hashing / s.mhz + r.hashing / r.mhz) / 1000)
            for s, r in zip(sleeps, resumes)]


def s3_figures(tmp, boots, cycles):
    args = ("--kernel", os.path.join(vtb.OUT, "bzImage"),
            "--initrd", os.path.join(vtb.OUT, "initrd.img"), "--machine", "pc",
            "--memory", "128", "--cmdline", f"{S3_GUEST} vtboot.s3={cycles}")
    print(f"S3: out/bzImage, -machine pc, 128 MB; {boots} boots each, {cycles} cycles a boot, "
          f"alternating")
    ours, reference, in_guest = [], [], []
    for _ in range(boots):
        with vtboot_boot(tmp, *args) as b:
            ours += s3_cycle_times(b, cycles)
            in_guest += guest_s3_run_and_macing(b.vtboot_lines(), cycles)
        with direct_boot(tmp, *args) as b:
            reference += s3_cycle_times(b, cycles)
    print("  cycles with vtboot: " + " ".join(f"{t:.2f}" for t in ours) + " s; direct: " +
          " ".join(f"{t:.2f}" for t in reference) + " s; vtboot in the guest: " +
          " ".join(f"{r:.0f}/{m:.0f}" for r, m in in_guest) + " ms run/MACing", flush=True)
    run_ms, mac_ms = median_ratio(in_guest)
    return [figure("S3 cycle vs without vtboot", min(ours), min(reference), "s", None),
            figure("S3 vtboot run/MACing, guest", run_ms, mac_ms, "ms", None)]


def median_ratio(pairs):
    """The (ours, reference) pair whose ratio is the median: both from one boot or cycle."""
    return sorted(pairs, key=lambda p: p[0] / p[1])[len(pairs) // 2]


def figure(name, ours, reference, unit, target):
    """A row of the bench JSON; lower is better; without a target, met is null."""
    ratio = ours / reference
    return {"figure": name, "ours": round(ours, 3), "reference": round(reference, 3),
            "unit": unit, "ratio": round(ratio, 3), "target": target, "better": "lower",
            "met": None if target is None else ratio <= target}


def print_table(rows):
    """crypto_bench's table; a figure without a target shows "-"."""
    print(f"{'figure':<30} {'ours':>10} {'reference':>10} {'ratio':>7} {'target':>7} {'met':>4}")
    for r in rows:
        target = "-" if r["target"] is None else f"{r['target']:.2f}"
        met = "-" if r["met"] is None else "yes" if r["met"] else "NO"
        print(f"{r['figure']:<30} {r['ours']:>10.2f} {r['reference']:>10.2f} "
              f"{r['ratio']:>7.2f} {target:>7} {met:>4}")


def merge_json(path, rows):
    """The file's rows (if it exists) with these added, replacing rows of the same figure."""
    old = []
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
    names = {r["figure"] for r in rows}
    merged = [r for r in old if r["figure"] not in names] + rows
    with open(path + ".tmp", "w") as f:
        json.dump(merged, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="append the rows to this bench JSON")
    ap.add_argument("--runs", type=int, default=5, help="boots to /init each (default 5)")
    ap.add_argument("--s3-boots", type=int, default=2, help="S3 boots each (default 2)")
    ap.add_argument("--cycles", type=int, default=3, help="S3 cycles a boot (default 3)")
    a = ap.parse_args()
    print(f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start "
          f"(whatever else runs shares them with both sides alike)", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        rows = boot_figures(tmp, a.runs) + s3_figures(tmp, a.s3_boots, a.cycles)
    print(f"host: load average {os.getloadavg()[0]:.2f} at the end")
    print_table(rows)
    unmet = sum(r["met"] is False for r in rows)
    print(f"bench: {len(rows)} boot figures, {sum(r['met'] is True for r in rows)} met, "
          f"{unmet} not met, {sum(r['met'] is None for r in rows)} without a target")
    if a.json:
        merge_json(a.json, rows)
        print(f"bench: added to {a.json}")


if __name__ == "__main__":
    main()
