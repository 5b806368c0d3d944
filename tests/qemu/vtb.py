# SPDX-License-Identifier: MIT
"""Helpers for the QEMU tests: run the launcher, parse what the guest and vtboot print, and
decode the ABI structures at the offsets Linux 6.1 and tboot 1.10 use (written out here,
independently of vtboot's own headers)."""

import os
import re
import shutil
import struct
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field

from qemuctl import Gdb, Qmp

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.environ.get("VTBOOT_OUT", os.path.join(ROOT, "out"))
LAUNCHER = os.path.join(OUT, "bin", "vtboot-qemu")
VTBOOT_ELF = os.path.join(OUT, "vtboot")

# exit statuses of vtboot-qemu
POWERED_OFF, SETUP_ERROR, RESET, TIMED_OUT, CRASHED = 0, 1, 2, 3, 4

SHARED_UUID = bytes.fromhex("ff8d3c66b3e8824bbfaa19ea4d057a08")
MEMLOG_UUID = bytes.fromhex("262519c0306bb44d4c84a3e953b88174")
EXT_UUID = bytes.fromhex("3c1f5a8e2d7b9e4ca6f05d4b3c2a1908")


@dataclass
class Run:
    rc: int
    serial: str
    stderr: str
    guest: dict = field(default_factory=dict)      # key -> last value
    guest_lines: list = field(default_factory=list)  # (key, value) in order
    kept: bool = False                              # its evidence is on disk (keep_evidence)

    def values(self, key):
        return [v for k, v in self.guest_lines if k == key]

    def launcher_lines(self, prefix):
        """The launcher's own lines (its stderr) that start with prefix."""
        return [l for l in self.stderr.splitlines() if l.startswith(prefix)]

    def vtboot_lines(self):
        return [l[len("vtboot: "):] for l in self.serial.splitlines() if l.startswith("vtboot: ")]

    def has_vtboot_line(self, pattern):
        return any(re.search(pattern, l) for l in self.vtboot_lines())

    def memlog_lines(self):
        """vtboot's memory log as the guest's memlog action printed it, without "vtboot: "."""
        return [l[len("vtboot: "):] for l in self.values("memlog") if l.startswith("vtboot: ")]

    def linux_ran(self):
        return "Linux version" in self.serial


# a record the kernel prints on its console: "[    2.212207] tsc: Refined TSC ...\n"
_PRINTK_RECORD = re.compile(r"\[ *\d+\.\d{6}\] ")
_REPORT_PREFIXES = ("VTBOOT-GUEST: ", "VTBOOT-DISK: ")
# the guest's dmesg action prints kernel records as its values, right after the key
_DMESG_HEADS = tuple(p + "dmesg: " for p in _REPORT_PREFIXES)


def _inserted_record(line):
    """Where a kernel record starts inside a report line, or None."""
    for m in _PRINTK_RECORD.finditer(line):
        head = line[:m.start()]
        if m.start() == 0 or head in _DMESG_HEADS:
            continue
        if head.startswith(_REPORT_PREFIXES) or any(p.startswith(head) for p in _REPORT_PREFIXES):
            return m.start()
    return None


def untangle_console(serial):
    """The kernel prints on ttyS0 whenever it likes, also between two characters of a line the
    guest is still sending (a 1 KiB hex value takes a while under TCG):
    "VTBOOT-GUEST: k=ab[    2.212207] tsc: ...\ncd\n". Such records (one or more whole lines)
    move to before the report line they cut, which is joined again; everything else stays as
    it arrived."""
    lines = serial.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        moved = []
        while (cut := _inserted_record(line)) is not None and i < len(lines):
            moved.append(line[cut:])
            while i < len(lines) - 1 and _PRINTK_RECORD.match(lines[i]):
                moved.append(lines[i])
                i += 1
            line = line[:cut] + lines[i]
            i += 1
        out.extend(moved)
        out.append(line)
    return "\n".join(out)


def read_serial(path):
    """A serial log as text: line ends as \\n, kernel records cut into report lines moved out."""
    with open(path, "r", errors="replace") as f:
        return untangle_console(f.read().replace("\r\n", "\n"))


# where a boot that timed out, or any boot of a test that failed, leaves its serial log and
# launcher output (the failure names it)
EVIDENCE_DIR = os.path.join(OUT, "tests", "evidence")

# the boots of the running test, for the evidence of one that fails (conftest.py)
TEST_RUNS = []


def keep_evidence(serial, stderr, why, test=None):
    """Writes a boot's serial log and launcher output under EVIDENCE_DIR, named after the test
    (by default the running one); returns the sentence a failure message carries."""
    test = test or os.environ.get("PYTEST_CURRENT_TEST", "boot").split(" ")[0]
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", test)[-120:]
    os.makedirs(EVIDENCE_DIR, exist_ok=True)
    path = os.path.join(EVIDENCE_DIR, f"{name}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log")
    with open(path, "w") as f:
        f.write(f"# {why}\n# ---- launcher (stderr) ----\n{stderr}\n# ---- serial ----\n{serial}")
    return f"vtb: {why}; serial log and launcher output kept in {path}"


def parse_run(rc, serial, stderr):
    timed_out = rc == TIMED_OUT
    if timed_out:
        stderr += "\n" + keep_evidence(serial, stderr, "the boot timed out") + "\n"
    run = Run(rc, serial, stderr, kept=timed_out)
    TEST_RUNS.append(run)
    for line in serial.splitlines():
        m = re.match(r"^VTBOOT-GUEST: ([A-Za-z0-9_.-]+)[=:] ?(.*)$", line)
        if m:
            run.guest_lines.append((m.group(1), m.group(2)))
            run.guest[m.group(1)] = m.group(2)
    return run


def boot(*args, timeout=420):
    """Runs vtboot-qemu with args; returns its exit status and the guest's serial output."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "serial.log")
        p = subprocess.run([LAUNCHER, "--serial-log", log, "--timeout", str(timeout), *args],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           errors="replace", timeout=timeout + 120)
        serial = read_serial(log)
    return parse_run(p.returncode, serial, p.stderr)


class Running:
    """A boot in the background, for tests that act on the VM while it runs (QMP, gdbstub)."""

    def __init__(self, *args, timeout=420):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, "serial.log")
        self.qmp_path = os.path.join(self.tmp.name, "qmp.sock")
        self.gdb_path = os.path.join(self.tmp.name, "gdb.sock")
        self.proc = subprocess.Popen(
            [LAUNCHER, "--serial-log", self.log, "--timeout", str(timeout), "--qmp",
             self.qmp_path, "--gdb", self.gdb_path, *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
        self.timeout = timeout

    def serial(self):
        try:
            return read_serial(self.log)
        except FileNotFoundError:
            return ""

    def wait_serial(self, text, timeout):
        import time
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if text in self.serial():
                return True
            if self.proc.poll() is not None:
                return text in self.serial()
            time.sleep(0.2)
        return False

    def finish(self):
        _, err = self.proc.communicate(timeout=self.timeout + 120)
        run = parse_run(self.proc.returncode, self.serial(), err)
        self.tmp.cleanup()
        return run

    def finish_at(self, text, rc):
        """finish(), or, as soon as the serial log shows text (a guest that will do nothing
        more: tboot halting for good), the boot ended there with exit status rc."""
        if not self.wait_serial(text, self.timeout) or self.proc.poll() is not None:
            return self.finish()
        self.proc.terminate()       # the launcher stops QEMU and swtpm
        _, err = self.proc.communicate(timeout=120)
        run = parse_run(rc, self.serial(), err)
        self.tmp.cleanup()
        return run

    def abandon(self, why, state=""):
        """Ends a boot the test gave up waiting for; returns the evidence sentence (keep_evidence)
        for the failure message. state: what capture_state took from the VM before, kept too."""
        self.proc.kill()
        _, err = self.proc.communicate(timeout=60)
        if state:
            err += "\n# ---- VM state when the test gave up (vtb.capture_state) ----\n" + state
        note = keep_evidence(self.serial(), err, why)
        self.tmp.cleanup()
        return note

    def stalled(self):
        """The guest kernel's own report that a CPU stopped taking interrupts, or tboot's halt
        (STALL_MARKERS): the line, or None."""
        return stall_line(self.serial())

    def sleep_cycles(self, cycles, during_sleep=None, timeout=300):
        """At each of the guest's first `cycles` suspends calls during_sleep(i, gdb, qmp) while it
        sleeps (i from 1), then wakes it through QMP; stops early when the VM ends (its lines say
        how). Returns the finished run. One cycle may take CYCLE_TIMEOUT seconds at most (or
        `timeout`, if less): a longer one is a hang, given up with the VM's state captured while
        QEMU still runs; a many-cycle run's launcher timeout would otherwise end QEMU first and
        leave no state (the issue 21 hang in CI, 2026-12-05)."""
        def asleep(i, qmp):
            if during_sleep:
                with Gdb(self.gdb_path) as gdb:
                    during_sleep(i, gdb, qmp)
        try:
            wake_cycles(self.qmp_path, cycles, min(timeout, CYCLE_TIMEOUT), asleep,
                        stalled=self.stalled)
        except Stalled as e:
            raise TimeoutError(f"{e}; {self.abandon(str(e), e.state)}") from e
        except TimeoutError as e:
            raise TimeoutError(f"{e}; {self.abandon('no suspend came in time')}") from e
        return self.finish()


# the longest one suspend-and-wake cycle of sleep_cycles may take (the first includes the boot;
# the others take seconds)
CYCLE_TIMEOUT = 300

# what Linux prints when a CPU stops taking (timer) interrupts: the issue 21 hang. A boot that
# shows one is given up at once, its state captured (capture_state), instead of after the timeout.
STALL_MARKERS = ("rcu: INFO: rcu_sched detected stalls", "rcu_sched kthread timer wakeup didn't",
                 "rcu: INFO: rcu_preempt detected stalls", "watchdog: BUG: soft lockup")
# tboot halting for good (a failed S3 check under a halt policy): a line that starts with it
TBOOT_HALT_MARKER = "TBOOT: shutdown_system() called for shutdown_type: TB_SHUTDOWN_HALT"


def stall_line(serial):
    for line in serial.splitlines():
        if any(m in line for m in STALL_MARKERS) or line.startswith(TBOOT_HALT_MARKER):
            return line.strip()
    return None


class Stalled(TimeoutError):
    """The guest reported a stall while the test waited (wake_cycles); .state is capture_state's."""

    def __init__(self, message, state):
        super().__init__(message)
        self.state = state


# the monitor commands capture_state runs (QEMU 7.2's HMP: `info lapic` takes an APIC ID)
CAPTURE_COMMANDS = ("info cpus", "info status", "info lapic 0", "info lapic 1",
                    "info registers -a", "info pic", "info irq")


def capture_state(qmp, commands=CAPTURE_COMMANDS):
    """The VM's CPU and interrupt state over QMP (human-monitor-command), as text for the
    evidence file; a command that fails is recorded with its error."""
    out = []
    for cmd in commands:
        try:
            text = qmp.command("human-monitor-command", timeout=30, **{"command-line": cmd})
        except Exception as e:              # noqa: BLE001 - evidence, whatever went wrong
            text = f"(failed: {e!r})"
        out.append(f"## {cmd}\n{text}")
    return "\n".join(out)


def _wait_suspend(qmp, timeout, stalled, slice_s=2.0):
    """qmp.wait_event("SUSPEND", timeout), looking at stalled() every slice_s seconds: raises
    Stalled (with the VM's state) as soon as it returns a line. A passing run waits no longer."""
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        try:
            return qmp.wait_event("SUSPEND", min(left, slice_s) if stalled else left)
        except TimeoutError:
            line = stalled() if stalled else None
            if line is not None:
                time.sleep(3)               # the rest of the kernel's report onto the serial
                raise Stalled(f"the guest stalled or halted: {line!r}", capture_state(qmp)) from None
            if time.monotonic() >= end:
                state = capture_state(qmp) if stalled else ""
                if stalled:
                    raise Stalled(f"no SUSPEND event in {timeout:g} s", state) from None
                raise


def wake_cycles(qmp_path, cycles, timeout, asleep=None, awake=None, stalled=None):
    """Over the QMP socket at qmp_path, for each of the guest's first `cycles` suspends: waits
    for QMP's SUSPEND, calls asleep(i, qmp) (i from 1), wakes the guest (system_wakeup), calls
    awake(i). Returns how many cycles that was: fewer if the VM ended first. stalled: a callable
    returning a stall line (Running.stalled) or None; with it a stall or a timeout raises Stalled
    carrying the VM's state (capture_state)."""
    with Qmp(qmp_path, connect_timeout=60) as qmp:
        for i in range(1, cycles + 1):
            try:
                _wait_suspend(qmp, timeout, stalled)
            except EOFError:
                return i - 1
            if asleep:
                asleep(i, qmp)
            qmp.command("system_wakeup")
            if awake:
                awake(i)
    return cycles


class TimedLines:
    """A process's output (a binary pipe) line by line, each line with the host's
    time.monotonic() when it arrived: read in a thread, so that the caller can wait for a line
    while the process runs (the benches time a boot by the guest's serial lines)."""

    def __init__(self, stream):
        self.lines = []                  # (arrival time, line without its line end)
        self.ended = False
        self._cond = threading.Condition()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for raw in iter(stream.readline, b""):
            line = raw.decode(errors="replace").rstrip("\r\n")
            with self._cond:
                self.lines.append((time.monotonic(), line))
                self._cond.notify_all()
        with self._cond:
            self.ended = True
            self._cond.notify_all()

    def wait(self, pattern, timeout):
        """The arrival time of the first line that pattern (a regular expression) matches at
        its start; TimeoutError if none came in time or the output ended without one."""
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                for t, line in self.lines:
                    if re.match(pattern, line):
                        return t
                left = end - time.monotonic()
                if self.ended or left <= 0:
                    raise TimeoutError(f"no line matching {pattern!r}"
                                       f"{' (the output ended)' if self.ended else ''}")
                self._cond.wait(left)

    def text(self):
        with self._cond:
            return "\n".join(line for _, line in self.lines)


def module_strings(*args):
    """The exact module strings vtboot will get for these launcher arguments."""
    p = subprocess.run([LAUNCHER, "--print-modules", *args], check=True, capture_output=True,
                       text=True)
    return p.stdout.split("\n")[:-1]          # one line each, possibly empty


def elf_symbols(path=VTBOOT_ELF):
    out = subprocess.run(["nm", path], check=True, capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16)
    return syms


@dataclass
class SharedPage:
    uuid: bytes
    version: int
    log_addr: int
    shutdown_entry: int
    shutdown_type: int
    tboot_base: int
    tboot_size: int
    num_mac_regions: int
    num_in_wfs: int
    flags: int
    ap_wake_addr: int
    ap_wake_trigger: int


def parse_shared_page(raw):
    """struct tboot (Linux 6.1 include/linux/tboot.h) plus tboot's v6 tail."""
    assert len(raw) >= 0x248
    uuid = raw[0:16]
    version, log_addr, entry, stype = struct.unpack_from("<IIII", raw, 0x10)
    base, size = struct.unpack_from("<II", raw, 0x68)
    nmac = raw[0x70]
    (wfs,) = struct.unpack_from("<I", raw, 0x234)
    flags, wake_addr, wake_trig = struct.unpack_from("<IQI", raw, 0x238)
    return SharedPage(uuid, version, log_addr, entry, stype, base, size, nmac, wfs, flags,
                      wake_addr, wake_trig)


EXT_TPM, EXT_LAUNCHED, EXT_MEASURED, EXT_POLICY_NV = 1, 2, 4, 8


@dataclass
class Ext:
    version: int
    flags: int
    evtlog_addr: int
    evtlog_size: int
    evtlog_used: int
    memlog_addr: int


def parse_ext(run):
    """vtboot's block at offset 0x800 of the shared page (include/abi/vtboot_ext.h)."""
    raw = bytes.fromhex(run.guest["ext-hex"])
    assert raw[:16] == EXT_UUID
    version, size, flags, addr, cap, used, memlog = struct.unpack_from("<IIIIIII", raw, 16)
    assert size == 0x40
    return Ext(version, flags, addr, cap, used, memlog)


def eventlog_yaml(path):
    import yaml
    out = subprocess.run(["tpm2_eventlog", path], check=True, capture_output=True,
                         text=True).stdout
    return yaml.safe_load(out)


def eventlog_pcrs(path):
    """tpm2_eventlog's replay: {bank: {pcr: hex}}."""
    pcrs = eventlog_yaml(path)["pcrs"]
    return {bank: {int(p): format(v, "x").zfill(2 * {"sha1": 20, "sha256": 32, "sha384": 48,
                                                       "sha512": 64}[bank])
                   if isinstance(v, int) else str(v).lower().removeprefix("0x")
                   for p, v in values.items()} for bank, values in pcrs.items()}


def eventlog_events(path):
    return eventlog_yaml(path)["events"]


@dataclass
class Event:
    pcr: int
    type: int
    digests: dict
    data: bytes


def parse_event_log(raw):
    """TCG_PCR_EVENT2 records after the Spec ID event (TCG PC Client PFP 1.05 §10.2)."""
    (spec_size,) = struct.unpack_from("<I", raw, 28)
    spec = raw[32:32 + spec_size]
    assert spec[:16] == b"Spec ID Event03\0"
    (nalg,) = struct.unpack_from("<I", spec, 24)
    sizes = dict(struct.unpack_from("<HH", spec, 28 + 4 * i) for i in range(nalg))
    names = {4: "sha1", 0xB: "sha256", 0xC: "sha384", 0xD: "sha512"}
    off, events = 32 + spec_size, []
    while off < len(raw):
        pcr, etype, count = struct.unpack_from("<III", raw, off)
        off += 12
        digests = {}
        for _ in range(count):
            (alg,) = struct.unpack_from("<H", raw, off)
            digests[names[alg]] = raw[off + 2: off + 2 + sizes[alg]].hex()
            off += 2 + sizes[alg]
        (size,) = struct.unpack_from("<I", raw, off)
        events.append(Event(pcr, etype, digests, raw[off + 4: off + 4 + size]))
        off += 4 + size
    return events


def parse_boot_e820(serial):
    """The kernel's 'BIOS-e820: [mem 0x..-0x..] type' lines."""
    out = []
    for m in re.finditer(r"BIOS-e820: \[mem 0x([0-9a-f]+)-0x([0-9a-f]+)\] (\w+)", serial):
        out.append((int(m.group(1), 16), int(m.group(2), 16) + 1, m.group(3)))
    return out


def covered_by(e820, start, end, kind):
    """True if [start, end) lies inside one entry of the given kind."""
    return any(a <= start and end <= b and t == kind for a, b, t in e820)


# ---- an independent prediction of PCRs 17-19 (hashlib, pyelftools), for checking both vtboot
# and vtboot-pcr: tboot 1.10's order with a TPM 2.0, in every bank --------------------------

# tboot 1.10's default policy for TPM 2.0 (policy.c _def_policy_da): nonfatal, SHA-256,
# EXTEND_PCR17; module 0 no extra PCR, any other module PCR 17, NV_RAW 0x40000010 PCR 22.
DEFAULT_POLICY_DA = bytes.fromhex(
    "02000b01000000000000000300ff00000000000081110000000000008316001000004000")
# ... and _def_policy (legacy mapping): any other module into PCR 19
DEFAULT_POLICY_LEGACY = bytes.fromhex(
    "02000b01000000000000000300ff00000000000081130000000000008316001000004000")


MLE_HDR_UUID = bytes.fromhex("5aac82906f47a7740f5c55a2cb51b642")


def mle_image(elf_path=VTBOOT_ELF):
    """The ELF's loadable bytes laid out from its lowest address (what a loader leaves in memory),
    and that address."""
    from elftools.elf.elffile import ELFFile
    with open(elf_path, "rb") as f:
        elf = ELFFile(f)
        segs = [s for s in elf.iter_segments() if s["p_type"] == "PT_LOAD"]
        base = min(s["p_paddr"] for s in segs)
        end = max(s["p_paddr"] + s["p_memsz"] for s in segs)
        image = bytearray(end - base)
        for seg in segs:
            data = seg.data()
            off = seg["p_paddr"] - base
            image[off:off + len(data)] = data
    return bytes(image), base


def mle_header(image):
    """The MLE header (Intel TXT, tboot's mle_hdr_t 2.1) found as tboot's lcp2_mlehash finds it:
    its UUID at a 16-byte boundary. Returns (offset, fields)."""
    for off in range(0, len(image) - 0x34 + 1, 16):
        if image[off:off + 16] == MLE_HDR_UUID:
            names = ("length", "version", "entry_point", "first_valid_page", "mle_start_off",
                     "mle_end_off", "capabilities", "cmdline_start_off", "cmdline_end_off")
            return off, dict(zip(names, struct.unpack_from("<9I", image, off + 16)))
    raise AssertionError("no MLE header")


def mle_bytes(cmdline, elf_path=VTBOOT_ELF):
    """What the virtual SENTER measures: [mle_start_off, mle_end_off) with the command line
    area zero-filled and the command line copied in (at most the area's size - 1 bytes)."""
    image, _ = mle_image(elf_path)
    _, h = mle_header(image)
    image = bytearray(image)
    a, b = h["cmdline_start_off"], h["cmdline_end_off"]
    c = cmdline.encode()[:b - a - 1]
    image[a:b] = c + b"\0" * (b - a - len(c))
    return bytes(image[h["mle_start_off"]:h["mle_end_off"]])


def policy_entries(policy, hash_size):
    """(mod_num, pcr) of each entry of a tb_policy_t."""
    n = policy[11]
    off, out = 12, []
    for _ in range(n):
        mod, pcr, num = policy[off], policy[off + 1], policy[off + 7]
        out.append((mod, pcr))
        off += 8 + num * hash_size
    return out, off


def predict(modules, vtboot_cmdline, policy=DEFAULT_POLICY_DA, legacy=False, banks=("sha1", "sha256"),
            elf_path=VTBOOT_ELF):
    """modules: [(module string, bytes)]. Returns {(pcr, bank): hex} for PCRs 17-19 of a launch
    of the MLE in elf_path."""
    import hashlib
    mle = mle_bytes(vtboot_cmdline, elf_path)
    out = {}
    for bank in banks:
        H = lambda data: hashlib.new(bank, data).digest()
        n = hashlib.new(bank).digest_size
        pcr = {17: b"\0" * n, 18: b"\0" * n, 19: b"\0" * n}
        ext = lambda p, d: pcr.__setitem__(p, H(pcr[p] + d)) if p in pcr else None
        ext(17, H(mle))
        pol_alg = {4: "sha1", 0: "sha1", 0x0B: "sha256", 0x0C: "sha384", 0x0D: "sha512"}[policy[2]]
        entries, size = policy_entries(policy, hashlib.new(pol_alg).digest_size)
        control = int.from_bytes(policy[3:7], "little")
        pol_hash = H(policy[:size]) if control & 1 else b"\0" * n
        pm = H(policy[3:7] + pol_hash)
        ext(17, pm)
        if not legacy:
            ext(18, pm)
        for i, (string, image) in enumerate(modules):
            d = H(H(string.encode()) + H(image))
            if i == 0:
                ext(18 if legacy else 17, d)
            entry = next((e for e in entries if e[0] in (i, 129)), None)
            if entry and entry[1] != 255:
                ext(entry[1], d)
        for p, v in pcr.items():
            out[(p, bank)] = v.hex()
    return out


def image_bytes(path):
    """A module's bytes as vtboot gets them: GRUB (and the launcher) unpack gzip modules, and so
    does tb_polgen when it hashes an image."""
    import gzip
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def padded_initrd(directory, pad):
    """The test initrd's archive, uncompressed (the launcher would unpack a gzip'd one, and gzip
    drops trailing zeros), followed by `pad` zero bytes (Linux skips zeros between archives),
    written into directory. Returns its path and size."""
    data = image_bytes(os.path.join(OUT, "initrd.img")) + bytes(pad)
    path = os.path.join(directory, "initrd-padded.img")
    with open(path, "wb") as f:
        f.write(data)
    return path, len(data)


def newc_archive(entries):
    """A newc cpio archive (what the kernel's initramfs unpacker reads) of entries, a list of
    (path, bytes or None for a directory), owners 0:0, mtime 0, with its trailer."""
    out = bytearray()
    for ino, (path, data) in enumerate(list(entries) + [("TRAILER!!!", b"")], start=1):
        mode = 0o040755 if data is None else 0o100644
        body = b"" if data is None else data
        name = path.encode() + b"\0"
        fields = (ino, mode, 0, 0, 2 if data is None else 1, 0, len(body), 0, 0, 0, 0, len(name), 0)
        out += b"070701" + b"".join(b"%08x" % f for f in fields) + name
        out += bytes(-len(out) % 4) + body + bytes(-len(body) % 4)
    return bytes(out)


def initrd_with(directory, files):
    """The test initrd's archive, uncompressed, followed by a second archive with files
    ({path in the guest: host path}, their directories made), written into directory: how the
    kernel's own initramfs takes more files (one archive after another). Returns its path."""
    dirs, entries = set(), []
    for guest_path, host_path in sorted(files.items()):
        parts = guest_path.strip("/").split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            if d not in dirs:
                dirs.add(d)
                entries.append((d, None))
        with open(host_path, "rb") as f:
            entries.append(("/".join(parts), f.read()))
    path = os.path.join(directory, "initrd-more.img")
    with open(path, "wb") as f:
        f.write(image_bytes(os.path.join(OUT, "initrd.img")) + newc_archive(entries))
    return path


@dataclass
class Timing:
    """vtboot's line before a jump into a kernel or the S3 sleep (src/drivers/timer.c
    timer_log_jump)."""
    tsc: int            # the TSC at the jump
    ran: int            # ticks since this half's entry
    ran_us: int
    entry: int          # the TSC at this half's entry
    hashing: int        # ticks spent hashing (or MACing) since then
    hashing_us: int
    mhz: int            # the calibrated TSC rate


def timings(vtboot_lines, what="jump into Linux"):
    """Each "timing: <what> at TSC ..." line (without "vtboot: ") parsed, or None for one that
    starts like it and does not parse."""
    prefix = f"timing: {what} at "
    line_re = re.compile(rf"^{re.escape(prefix)}TSC (\d+): (\d+) ticks \((\d+) us\) since the "
                         r"entry at TSC (\d+), hashing (\d+) ticks \((\d+) us\); TSC (\d+) MHz$")
    out = []
    for line in vtboot_lines:
        if line.startswith(prefix):
            m = line_re.match(line)
            out.append(Timing(*map(int, m.groups())) if m else None)
    return out


def entry_tsc(vtboot_lines, half):
    """The TSC of a half's entry ("pre-launch", "MLE") from its "timing: ... entry" lines."""
    return [int(l.rsplit(" ", 1)[1]) for l in vtboot_lines
            if re.fullmatch(rf"timing: {re.escape(half)} entry at TSC \d+", l)]


def guest_pcrs(run, banks=("sha1", "sha256")):
    return {(p, b): run.guest[f"pcr-{b}-{p}"] for p in (17, 18, 19) for b in banks}


def vtboot_pcr(*args):
    p = subprocess.run([os.path.join(OUT, "bin", "vtboot-pcr"), "predict", *args], check=True,
                       capture_output=True, text=True)
    out = {}
    for line in p.stdout.split():
        pcr, rest = line.split(":")
        bank, value = rest.split("=")
        out[(int(pcr), bank)] = value
    return out


def debian_kernel(metapackage, cache_name):
    """The vmlinuz of the kernel Debian's `metapackage` depends on (apt-get download, unpacked with
    dpkg-deb), fetched once into the cache."""
    cache = os.path.join(os.environ.get("VTBOOT_CACHE", os.path.expanduser("~/.cache/vtboot")),
                         cache_name)
    vmlinuz = os.path.join(cache, "vmlinuz")
    if os.path.exists(vmlinuz):
        return vmlinuz
    os.makedirs(cache, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        dep = subprocess.run(["apt-cache", "depends", metapackage], check=True,
                             capture_output=True, text=True).stdout
        pkg = [l.split()[-1] for l in dep.splitlines() if "Depends: linux-image-" in l][0]
        subprocess.run(["apt-get", "download", pkg], cwd=tmp, check=True, capture_output=True)
        deb = [f for f in os.listdir(tmp) if f.endswith(".deb")][0]
        subprocess.run(["dpkg-deb", "-x", deb, "x"], cwd=tmp, check=True)
        boot_dir = os.path.join(tmp, "x", "boot")
        image = [f for f in os.listdir(boot_dir) if f.startswith("vmlinuz-")][0]
        shutil.move(os.path.join(boot_dir, image), vmlinuz + ".tmp")
        os.rename(vmlinuz + ".tmp", vmlinuz)
    return vmlinuz


def debian_generic_kernel():
    """Debian's generic 6.1 kernel (linux-image-amd64: about 8 MB, Xen dom0 support built in):
    the demo's kernel, fetched once into the cache by scripts/fetch-dist-kernel.sh (the one
    download for `make run` and the tests)."""
    vmlinuz = subprocess.run([os.path.join(ROOT, "scripts", "fetch-dist-kernel.sh")], check=True,
                             capture_output=True, text=True).stdout.strip()
    config = os.path.join(os.path.dirname(vmlinuz),
                          os.path.basename(vmlinuz).replace("vmlinuz-", "config-", 1))
    with open(config) as f:
        assert "CONFIG_XEN_DOM0=y\n" in f.read(), f"{config}: no Xen dom0 support"
    return vmlinuz


def bzimage_protected_mode(data):
    """Where a bzImage's protected-mode part starts in the file: after the boot sector and
    setup_sects sectors of setup (boot protocol; every kernel built here sets setup_sects)."""
    return (data[0x1F1] + 1) * 512


def kernel_text_head(bzimage, n=64):
    """The setup header's pref_address and the first n bytes the kernel runs from (its first
    loadable segment: startup_64), from the bzImage's payload: gzip (the project's kernel,
    CONFIG_KERNEL_GZIP) or xz (Debian's)."""
    import lzma
    import zlib
    from io import BytesIO
    from elftools.elf.elffile import ELFFile
    with open(bzimage, "rb") as f:
        data = f.read()
    pm = bzimage_protected_mode(data)
    off, length = struct.unpack_from("<II", data, 0x248)
    payload = data[pm + off:pm + off + length]
    if payload[:2] == b"\x1f\x8b":
        vmlinux = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(payload)
    else:
        assert payload[:6] == b"\xfd7zXZ\x00", f"{bzimage}: the payload is neither gzip nor xz"
        vmlinux = lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(payload)
    elf = ELFFile(BytesIO(vmlinux))
    seg = next(s for s in elf.iter_segments() if s["p_type"] == "PT_LOAD")
    pref_address = struct.unpack_from("<Q", data, 0x258)[0]
    return pref_address, vmlinux[seg["p_offset"]:seg["p_offset"] + n]


def kernel_in_memory(gdb, bzimage, span=0xF000000):
    """The physical address the (relocatable) kernel runs at: the 2 MiB boundary at or above
    its pref_address where the loader put it (vtboot: the lowest one free of modules) or where
    KASLR moved it, found by its first bytes within `span` bytes (240 MiB)."""
    # 16 bytes: startup_64's first instructions are RIP-relative, the next ones hold absolute
    # addresses that KASLR's relocation changes
    pref_address, head = kernel_text_head(bzimage, 16)
    for addr in range(pref_address, pref_address + span, 0x200000):
        if gdb.read_phys(addr, len(head)) == head:
            return addr
    raise AssertionError(f"{bzimage}'s text is at no 2 MiB boundary from {pref_address:#x} on")


def debian_generic_virtio_modules():
    """{path in the guest: host path}: the virtio disk's modules of debian_generic_kernel()'s
    package (fetched with it, scripts/fetch-dist-kernel.sh) under /lib/modules/virtio/, with
    the file "order" that lists them in the order they load (guest/init's s4 action)."""
    d = os.path.join(os.path.dirname(debian_generic_kernel()), "modules")
    with open(os.path.join(d, "order")) as f:
        names = f.read().split()
    return {f"/lib/modules/virtio/{n}": os.path.join(d, n) for n in names + ["order"]}


def debian_generic_msr_module():
    """msr.ko of debian_generic_kernel()'s package (fetched with it): the /dev/cpu/N/msr driver,
    a module in Debian's config, which Debian's txt-acminfo needs."""
    return os.path.join(os.path.dirname(debian_generic_kernel()), "msr.ko")
