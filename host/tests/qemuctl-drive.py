#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Drives a running `vtboot-qemu --qmp Q --gdb G` with testk through tests/qemu/qemuctl.py, for
host/tests/run-tests.sh. Prints one "ok - ..." or "FAIL - ..." line per check.

usage: qemuctl-drive.py s3 Q G          testk action=s3 s3=2: tamper while asleep, wake twice
       qemuctl-drive.py running Q G ELF testk action=hang: gdb on a running VM, then QMP quit
       qemuctl-drive.py asleep Q        testk action=s3: wait for the suspend, never wake it
       qemuctl-drive.py launch Q G ELF  QEMU -S, testk action=vsenter: a debugger attached from
                                        the start breaks at the MLE's entry across the launch
       qemuctl-drive.py launch-idle Q G QEMU -S, testk action=vsenter: a debugger attached and
                                        idle while QMP runs the VM through the launch
"""
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "qemu"))
from qemuctl import Gdb, Qmp, QmpError  # noqa: E402

S3_BOX = 0x500000
PATTERN = bytes((i * 7 + 3) & 0xff for i in range(4096))
failed = 0


def check(cond, what, detail=""):
    global failed
    if cond:
        print("ok   - %s" % what)
    else:
        failed += 1
        print("FAIL - %s%s" % (what, ": " + str(detail) if detail else ""))


def s3(qpath, gpath):
    q = Qmp(qpath)
    try:
        q.command("system_wakeup")
        check(False, "system_wakeup while running is refused")
    except QmpError as e:
        check("not in suspended state" in e.desc, "system_wakeup while running is refused",
              e.desc)
    for cycle in (1, 2):
        q.wait_event("SUSPEND", 60)
        check(q.status() == "suspended", "#%d: query-status says suspended" % cycle)
        with Gdb(gpath) as g:
            check(g.status_at_connect == "VM status: paused (suspended)",
                  "#%d: gdb connects to a suspended VM" % cycle, g.status_at_connect)
            box = g.read_phys(S3_BOX, 32)
            check(box[:4] == b"TKS3", "#%d: read_phys: testk's mailbox" % cycle, box.hex())
            check(int.from_bytes(box[8:12], "little") == cycle - 1,
                  "#%d: mailbox counts %d sleeps" % (cycle, cycle - 1), box.hex())
            pat = g.read_phys(S3_BOX + 0x1000, 4096)
            if cycle == 1:
                check(pat == PATTERN, "#1: read_phys: 4 KiB pattern (several m packets)")
                g.write_phys(S3_BOX + 0x1000, b"TAMPERED" * 512)
                check(g.read_phys(S3_BOX + 0x1000, 4096) == b"TAMPERED" * 512,
                      "#1: write_phys: 4 KiB (several M packets) read back")
            else:
                check(pat == b"TAMPERED" * 512, "#2: the tampered bytes survived the wake-up")
            g.write_phys(S3_BOX + 24, (0x22222222 + cycle - 1).to_bytes(4, "little"))
            # QEMU 7.2's physical mode never fails a read: unbacked addresses read as zeros
            junk = g.read_phys(0xfff000000, 16)
            check(junk == bytes(16), "#%d: read_phys of unbacked memory gives zeros" % cycle,
                  junk.hex())
        time.sleep(0.3)
        check(q.status() == "suspended", "#%d: still suspended after the gdb session" % cycle)
        q.command("system_wakeup")
        q.wait_event("WAKEUP", 10)
    names = [e["event"] for e in q.events]
    check(names[:4] == ["SUSPEND", "WAKEUP", "SUSPEND", "WAKEUP"],
          "QMP events SUSPEND, WAKEUP, SUSPEND, WAKEUP", names)
    q.close()


def running(qpath, gpath, elf):
    # testk's image at its load address: the start of its .mle section
    raw = subprocess.run(["objcopy", "-O", "binary", "-j", ".mle", elf, "/dev/stdout"],
                         check=True, stdout=subprocess.PIPE).stdout
    q = Qmp(qpath)
    deadline = time.time() + 30
    while q.status() != "running" and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)                        # testk reaches its hlt loop
    g = Gdb(gpath)
    check(g.status_at_connect == "VM status: paused", "gdb connecting pauses a running VM",
          g.status_at_connect)
    check(q.status() == "paused", "query-status: paused while gdb is attached")
    got = g.read_phys(0x100000, len(raw))
    check(got == raw, "read_phys 0x100000: testk's image (%d bytes)" % len(raw))
    check(g.monitor("info status").strip() == "VM status: paused", "monitor (qRcmd) works")
    g.close()
    check(q.status() == "running", "gdb detach lets the VM run again")
    names = [e["event"] for e in q.events]
    check("STOP" in names and "RESUME" in names[names.index("STOP"):],
          "QMP events STOP then RESUME around the gdb session", names)
    # a second client on the same socket after this one
    q.close()
    q = Qmp(qpath)
    check(q.status() == "running", "QMP: a second connection works")
    try:
        q.command("quit")
    except EOFError:
        pass
    q.close()


def asleep(qpath):
    q = Qmp(qpath)
    q.wait_event("SUSPEND", 60)
    check(q.status() == "suspended", "suspended, not woken")
    q.close()


def symbols(elf):
    out = subprocess.run(["nm", elf], check=True, stdout=subprocess.PIPE, text=True).stdout
    return {p[2]: int(p[0], 16) for p in (line.split() for line in out.splitlines())
            if len(p) == 3}


def launch(qpath, gpath, elf):
    """Like tests/qemu/kpatch.py's Stopped: QEMU starts paused (-S), the debugger sets a
    breakpoint and continues; the launcher's own QMP stop (a T02 to this connection) must not
    reach it: the first stop reply it sees is the breakpoint at the entry, in the entry state."""
    sym = symbols(elf)
    entry, hdr = sym["post_launch"], sym["testk_mle_hdr"]
    q = Qmp(qpath)
    g = Gdb(gpath, timeout=30)
    check(g.status_at_connect == "VM status: paused (prelaunch)", "gdb connects to a -S VM",
          g.status_at_connect)
    # QEMU 7.2's stub has no QStartNoAckMode: it answers "" (unsupported), acks stay on
    check(g._command(b"QStartNoAckMode") == b"", "QStartNoAckMode is not supported")
    check(g._command(b"Z0,%x,1" % entry) == b"OK", "breakpoint at the MLE entry 0x%x" % entry)
    g._send_packet(b"c")
    first = g._read_packet(time.monotonic() + 60)
    check(first.startswith(b"T05"), "the first stop reply is the breakpoint's T05", first)
    raw = bytes.fromhex(g._command(b"g").decode())
    gpr = struct.unpack_from("<16Q", raw, 0)
    rip, eflags = struct.unpack_from("<QI", raw, 128)
    segs = struct.unpack_from("<6I", raw, 140)
    check(rip == entry, "rip = the entry 0x%x" % entry, hex(rip))
    check(gpr[:8] == (0x544e5356, 0x100000, hdr, 1, 0, 0, 0, 0),
          "eax..esp = VSNT, mle_base, mle_hdr, 1 CPU, 0, ...", [hex(x) for x in gpr[:8]])
    check(eflags == 2, "eflags = 0x2", hex(eflags))
    check(segs == (0x10, 0x18, 0x18, 0x18, 0x18, 0x18), "cs 0x10, ss ds es fs gs 0x18", segs)
    check(g.read_phys(hdr, 4) == bytes((0x5a, 0xac, 0x82, 0x90)), "the MLE header in memory")
    check(q.status() == "debug", "run state debug at the breakpoint")
    check(g._command(b"z0,%x,1" % entry) == b"OK", "breakpoint removed")
    g.close(resume=True)                   # 'D': the guest reads its PCRs and powers off
    q.close()


def launch_idle(qpath, gpath):
    """A debugger attached but idle while the VM runs (QMP cont) and launches: it must see
    no stop reply at all."""
    q = Qmp(qpath)
    g = Gdb(gpath, timeout=30)
    check(g.status_at_connect == "VM status: paused (prelaunch)", "gdb connects to a -S VM",
          g.status_at_connect)
    q.command("cont")
    got = b""
    g.sock.settimeout(60)
    try:
        while True:
            chunk = g.sock.recv(65536)
            if not chunk:
                break
            got += chunk
    except OSError:
        pass
    check(b"$T" not in got and b"$S" not in got, "no stop reply reached the idle debugger", got)
    try:
        q.wait_event("SHUTDOWN", 10)
    except (TimeoutError, EOFError, OSError):
        pass
    names = [e["event"] for e in q.events]
    # cont, the launcher's stop and cont around the launch, the guest's poweroff
    check(names == ["RESUME", "STOP", "RESUME", "SHUTDOWN"],
          "QMP events RESUME, STOP, RESUME, SHUTDOWN", names)
    g.sock.close()
    q.close()


def main():
    mode = sys.argv[1]
    if mode == "s3":
        s3(sys.argv[2], sys.argv[3])
    elif mode == "running":
        running(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "asleep":
        asleep(sys.argv[2])
    elif mode == "launch":
        launch(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "launch-idle":
        launch_idle(sys.argv[2], sys.argv[3])
    else:
        sys.exit("unknown mode %s" % mode)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:                 # a broken protocol exchange is a failed check
        print("FAIL - %s: %s" % (type(e).__name__, e))
        sys.exit(1)
