# SPDX-License-Identifier: MIT
"""Control a running QEMU from a test: QMP and the gdbstub, over unix sockets.

Standard library only (Debian's /usr/bin/python3). Made for `vtboot-qemu --qmp PATH --gdb PATH`,
which creates both sockets before QEMU starts, but works with any QEMU that serves them
(`-chardev socket,id=m,path=P,server=on,wait=off -mon chardev=m,mode=control`,
`-chardev socket,id=g,path=P,server=on,wait=off -gdb chardev:g`).

    from qemuctl import Qmp, Gdb

    with Qmp("/tmp/t/qmp.sock") as qmp:
        qmp.wait_event("SUSPEND", timeout=60)       # the guest wrote SLP_TYP=S3|SLP_EN
        with Gdb("/tmp/t/gdb.sock") as gdb:          # guest memory by physical address
            old = gdb.read_phys(0x500000, 16)
            gdb.write_phys(0x500000, b"tampered")
        qmp.command("system_wakeup")
        qmp.wait_event("WAKEUP", timeout=10)

QEMU 7.2 facts this relies on (measured, see host/README.md):
- QMP: one client at a time per socket; a new client gets a new greeting (reconnecting is
  fine). Events go to every QMP client that negotiated capabilities, so a second client sees
  the same SUSPEND/WAKEUP/SHUTDOWN as the launcher's own. An event emitted while a client
  connects can reach it before the greeting (Qmp keeps it; see Qmp.__init__).
- gdbstub: a debugger connecting stops a *running* VM (QMP STOP, run state "paused"); 'D'
  (detach) starts it again (QMP RESUME). A *suspended* (S3) VM is not stopped by the
  connection, but 'D' would start its vCPUs: QEMU 7.2's vm_start() does not know the
  suspended state, and the guest would run on after its PM1a_CNT write without any
  wake-up. So Gdb.close() detaches only if the VM was running when we connected, and
  otherwise just closes the socket, which leaves the run state as it was (see Gdb.close).
- `Qqemu.PhyMemMode:1` switches the m/M packets from virtual (through the current CPU's page
  tables) to guest-physical addresses (QEMU >= 4.1). In that mode QEMU 7.2 never answers
  an error: unbacked addresses read as zeros, writes to them or to ROM are dropped.
"""

import errno
import json
import socket
import time

__all__ = ["Qmp", "QmpError", "Gdb", "GdbError"]


def _connect_unix(path, timeout):
    """Connects to a unix stream socket, retrying until it exists and accepts."""
    end = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.settimeout(max(0.1, end - time.monotonic()))
            s.connect(path)
            return s
        except OSError as e:
            s.close()
            if e.errno not in (errno.ENOENT, errno.ECONNREFUSED, errno.EAGAIN) or \
                    time.monotonic() >= end:
                raise
            time.sleep(0.05)


class QmpError(Exception):
    """QEMU answered a command with an error: .klass ("GenericError", ...), .desc."""

    def __init__(self, command, klass, desc):
        super().__init__("QMP %s: %s: %s" % (command, klass, desc))
        self.command = command
        self.klass = klass
        self.desc = desc


class Qmp:
    """A QMP client. Connects (waiting up to connect_timeout for the socket and QEMU's greeting;
    QEMU greets only from its main loop; events sent before the greeting are kept), negotiates
    capabilities, then:

    command(name, **args)      runs a command; returns its "return" value, raises QmpError on
                               an "error" answer and TimeoutError. Argument names are passed as
                               they are: use command("x", **{"cpu-index": 0}) for dashes.
    wait_event(name, timeout)  the next event called name (the oldest not yet taken), as a
                               dict {"event", "data", "timestamp"}; TimeoutError if none came.
                               Events that arrive while a command waits are kept for it.
    events                     every event received so far, in order (never cleared).
    """

    def __init__(self, path, timeout=30.0, connect_timeout=30.0):
        self.path = path
        self.timeout = timeout
        self.events = []
        self._pending = []          # events not yet taken by wait_event
        self._buf = b""
        self._id = 0
        self.sock = _connect_unix(path, connect_timeout)
        try:
            # QEMU 7.2 can write an event before the greeting: monitor_qmp_event() sets the
            # monitor's command list (which gates events) only when it handles the connection,
            # and an event emitted between the accept and that (a RESUME when a debugger
            # continues the VM) goes out first. Such events are kept like any other.
            deadline = time.monotonic() + connect_timeout
            while True:
                self.greeting = self._read_msg(deadline)
                if "QMP" in self.greeting:
                    break
                if not self._take(self.greeting):
                    raise OSError("QMP %s: no greeting: %r" % (path, self.greeting))
            self.command("qmp_capabilities")
        except BaseException:
            self.sock.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _read_msg(self, deadline):
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("QMP %s: no message in time" % self.path)
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise TimeoutError("QMP %s: no message in time" % self.path) from None
            if not chunk:
                raise EOFError("QMP %s: connection closed by QEMU" % self.path)
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def _take(self, msg):
        if "event" in msg:
            self.events.append(msg)
            self._pending.append(msg)
            return True
        return False

    def command(self, name, timeout=None, **args):
        self._id += 1
        cid = "qemuctl-%d" % self._id
        req = {"execute": name, "id": cid}
        if args:
            req["arguments"] = args
        self.sock.sendall(json.dumps(req).encode() + b"\n")
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            msg = self._read_msg(deadline)
            if self._take(msg) or msg.get("id") != cid:
                continue
            if "error" in msg:
                raise QmpError(name, msg["error"].get("class"), msg["error"].get("desc"))
            return msg.get("return")

    def wait_event(self, name, timeout=30.0):
        deadline = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self._pending):
                if ev["event"] == name:
                    del self._pending[i]
                    return ev
            try:
                msg = self._read_msg(deadline)
            except TimeoutError:
                raise TimeoutError("QMP %s: no %s event in %g s (got %s)" % (
                    self.path, name, timeout,
                    [e["event"] for e in self._pending] or "none")) from None
            self._take(msg)

    def status(self):
        """query-status's "status": "running", "paused", "suspended", ..."""
        return self.command("query-status")["status"]


class GdbError(Exception):
    pass


def _checksum(data):
    return b"%02x" % (sum(data) & 0xff)


class Gdb:
    """A GDB remote-serial-protocol client for QEMU's gdbstub, in physical-memory mode.

    read_phys(addr, n) -> bytes    m packets, in chunks that fit QEMU's packet size
    write_phys(addr, data)         M packets (hex), same chunking
    monitor(cmd) -> str            an HMP command through qRcmd ("info status", ...)
    close()                        leave the VM in the run state it had before we connected

    Every packet is sent as $data#xx with its checksum and must be acknowledged with '+'
    (resent on '-'); every packet received is checked and acknowledged the same way. Stop
    replies (T../S..) that QEMU sends by itself, e.g. when our connection stopped the VM,
    are acknowledged and skipped.
    """

    RETRIES = 3

    def __init__(self, path, timeout=10.0, connect_timeout=30.0):
        self.path = path
        self.timeout = timeout
        self._buf = b""
        self.sock = _connect_unix(path, connect_timeout)
        self.packet_size = 4096
        try:
            feats = self._command(b"qSupported:xmlRegisters=i386").decode()
            for f in feats.split(";"):
                if f.startswith("PacketSize="):
                    self.packet_size = int(f[11:], 16)
            # QEMU runs HMP through qRcmd; "paused (suspended)" while the guest sleeps in S3,
            # "paused" when our connection stopped it (or somebody else had)
            self.status_at_connect = self.monitor("info status").strip()
            self._resume_on_close = self.status_at_connect == "VM status: paused" and \
                self._stopped_by_us
            if self._command(b"Qqemu.PhyMemMode:1") != b"OK":
                raise GdbError("gdbstub %s: no physical memory mode (Qqemu.PhyMemMode)" % path)
        except BaseException:
            self.sock.close()
            raise

    # stop replies seen right after connecting tell us that the connection stopped a running VM
    _stopped_by_us = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- framing ----
    def _recv_more(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("gdbstub %s: no answer in time" % self.path)
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            raise TimeoutError("gdbstub %s: no answer in time" % self.path) from None
        if not chunk:
            raise EOFError("gdbstub %s: connection closed by QEMU" % self.path)
        self._buf += chunk

    def _read_ack(self, deadline):
        """Returns True for '+', False for '-'; packets met on the way are handled."""
        while True:
            while not self._buf:
                self._recv_more(deadline)
            c = self._buf[:1]
            if c in (b"+", b"-"):
                self._buf = self._buf[1:]
                return c == b"+"
            if c == b"$":
                self._note(self._read_packet(deadline))
                continue
            self._buf = self._buf[1:]            # noise (e.g. a stray ^C echo)

    def _read_packet(self, deadline):
        """One packet's payload, checksum checked ('-' and wait for a resend if wrong), acked."""
        while True:
            while b"$" not in self._buf:
                self._buf = b""
                self._recv_more(deadline)
            self._buf = self._buf[self._buf.index(b"$"):]
            while True:
                h = self._buf.find(b"#")
                if h >= 0 and len(self._buf) >= h + 3:
                    break
                self._recv_more(deadline)
            raw, cs = self._buf[1:h], self._buf[h + 1:h + 3]
            self._buf = self._buf[h + 3:]
            if _checksum(raw) == cs.lower():
                self.sock.sendall(b"+")
                return self._decode(raw)
            self.sock.sendall(b"-")

    @staticmethod
    def _decode(raw):
        out = bytearray()
        i = 0
        while i < len(raw):
            c = raw[i]
            if c == 0x7d:                          # '}' escape
                out.append(raw[i + 1] ^ 0x20)
                i += 2
            elif c == 0x2a and out:                # '*' run length: repeat the last byte
                out.extend(out[-1:] * (raw[i + 1] - 29))
                i += 2
            else:
                out.append(c)
                i += 1
        return bytes(out)

    def _note(self, payload):
        if payload[:1] in (b"T", b"S"):
            self._stopped_by_us = True

    def _send_packet(self, payload):
        pkt = b"$" + payload + b"#" + _checksum(payload)
        deadline = time.monotonic() + self.timeout
        for _ in range(self.RETRIES):
            self.sock.sendall(pkt)
            if self._read_ack(deadline):
                return
        raise GdbError("gdbstub %s: packet refused %d times" % (self.path, self.RETRIES))

    def _command(self, payload, want_reply=True):
        self._send_packet(payload)
        if not want_reply:
            return None
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_packet(deadline)
            if reply[:1] in (b"T", b"S") and not payload.startswith(b"?"):
                self._note(reply)                  # an asynchronous stop reply
                continue
            return reply

    def _check(self, reply, what):
        if reply.startswith(b"E") and len(reply) == 3:
            raise GdbError("gdbstub %s: %s: error %s" % (self.path, what, reply.decode()))
        if reply == b"":
            raise GdbError("gdbstub %s: %s: not supported" % (self.path, what))
        return reply

    # ---- API ----
    def _chunk(self):
        # reply "$" + 2 hex per byte + "#xx"; QEMU 7.2 also caps m at MAX_PACKET_LENGTH / 2
        return max(16, min(2048, (self.packet_size - 32) // 2))

    def read_phys(self, addr, n):
        out = bytearray()
        step = self._chunk()
        while len(out) < n:
            k = min(step, n - len(out))
            a = addr + len(out)
            reply = self._check(self._command(b"m%x,%x" % (a, k)), "read 0x%x+%d" % (a, k))
            data = bytes.fromhex(reply.decode())
            if len(data) != k:
                raise GdbError("gdbstub %s: read 0x%x+%d gave %d bytes" % (self.path, a, k,
                                                                           len(data)))
            out += data
        return bytes(out)

    def write_phys(self, addr, data):
        data = bytes(data)
        step = self._chunk() - 16
        for off in range(0, len(data), step):
            part = data[off:off + step]
            a = addr + off
            reply = self._command(b"M%x,%x:" % (a, len(part)) + part.hex().encode())
            if self._check(reply, "write 0x%x+%d" % (a, len(part))) != b"OK":
                raise GdbError("gdbstub %s: write 0x%x: %r" % (self.path, a, reply))

    def monitor(self, cmd):
        """Runs an HMP command through qRcmd; returns its output."""
        self._send_packet(b"qRcmd," + cmd.encode().hex().encode())
        deadline = time.monotonic() + self.timeout
        out = b""
        while True:
            reply = self._read_packet(deadline)
            if reply[:1] in (b"T", b"S"):
                self._note(reply)
            elif reply.startswith(b"O") and reply != b"OK":
                out += bytes.fromhex(reply[1:].decode())
            elif reply == b"OK":
                return out.decode(errors="replace")
            else:
                self._check(reply, "qRcmd %s" % cmd)
                return out.decode(errors="replace")

    def close(self, resume=None):
        """Ends the session. resume=None: as the VM was before we connected — detach ('D',
        which starts the VM) if our connection stopped a running VM, else just close the
        socket (a suspended or paused VM stays so). resume=True/False forces it."""
        if self.sock is None:
            return
        try:
            if resume is None:
                resume = self._resume_on_close
            try:
                self._command(b"Qqemu.PhyMemMode:0")
            except (OSError, EOFError, GdbError):
                pass
            if resume:
                self._command(b"D")
        finally:
            self.sock.close()
            self.sock = None

    def detach(self):
        """'D': QEMU starts the VM (also a suspended one, see the module's note)."""
        self.close(resume=True)


if __name__ == "__main__":
    import sys
    with Qmp(sys.argv[1]) as q:
        print(q.status())
