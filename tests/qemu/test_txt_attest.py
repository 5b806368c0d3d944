# SPDX-License-Identifier: MIT
"""Issue 39 item 6: attestation of an Intel TXT launch (`vtboot-qemu --txt --attest`).

Debian's unmodified tboot is launched by our SINIT (out/sinit.bin) through GRUB's multiboot2
path, under the halt policy, with the project's kernel and the attest initramfs. The launcher
enrolls an AK as for a paravirtual launch (test_attest.py), the guest quotes PCRs 17-19 of both
banks over the launcher's nonce (the ivshmem page, unmeasured) and sends the TXT heap's event log
(OsSinitData's element: the SINIT's records in both banks, then tboot's in SHA-256 only), and
`vtboot-attest verify --sinit` checks the quote against `vtboot-pcr predict --sinit`'s values
and replays the heap's log (the launch at the SINIT's 0x402 record). The honest run passes; the
quoted values are checked against vtboot-pcr's CLI, the guest's own PCR reads and tpm2-tools'
replay of the log; then a wrong nonce, an edited log, another kernel, initrd or SINIT, a log read
as vtboot's, and a real boot of a changed initrd are each refused with their exact reason line.
"""
import gzip
import os
import re
import struct
import shutil
import tempfile
import time

import pytest

import vtb
from test_attest import (ATTEST_FAILED, CHECKS, EVENT_LOG, NONCE, PREFIX, check_lines, flip,
                         last_line, quoted_pcrs, read, records, tampered, verify, verify_args,
                         with_args, write)
from test_txt_launch import HEAP_BASE, HEAP_SIZE, LINUX_CMDLINE, boot_txt, tboot_lines
from test_txt_sinit import SINIT, TBOOT_CMDLINE, halt_policy, need, txt_launch

KERNEL = os.path.join(vtb.OUT, "bzImage")
INITRD = os.path.join(vtb.OUT, "initrd-attest.img")
# the heap's log of this launch: the SINIT's 7 records (5 on PCR 17, 2 on 18, both banks), then
# tboot's 4 in SHA-256 (the policy on 17 and 18, module 0 on 17, module 1 on 17: DA mapping)
SINIT_RECORDS, TBOOT_RECORDS = 7, 4
HEADER = 76                     # the Spec ID event of two banks (evlog.h's strict header)


def txt_attest_boot(d, *args, initrd=None):
    """One --txt --attest round trip under the halt policy; d keeps what test_attest's do."""
    more = ["--initrd", initrd] if initrd else []
    run = boot_txt("--attest", "--attest-dir", str(d), *txt_launch("--grub", KERNEL), *more,
                   *args)
    run.attest = [l[len(PREFIX):] for l in run.launcher_lines(PREFIX)]
    return run


@pytest.fixture(scope="module")
def honest():
    d = tempfile.mkdtemp(prefix="txt-attest-honest.")
    t0 = time.monotonic()
    run = txt_attest_boot(d)
    run.seconds = time.monotonic() - t0
    yield d, run
    shutil.rmtree(d)


def arg(d, name):
    return [a for a in verify_args(d) if a.startswith(f"--{name}=")][0].split("=", 1)[1]


def log_records(log):
    """(offset, pcr, type, banks) of each record after the header (our own reading of the TCG
    format: a count of digests, each an algorithm ID and its digest)."""
    out, off = [], HEADER
    while off < len(log):
        pcr, typ, count = struct.unpack_from("<III", log, off)
        p, banks = off + 12, []
        for _ in range(count):
            alg = struct.unpack_from("<H", log, p)[0]
            banks.append({4: "sha1", 11: "sha256"}[alg])
            p += 2 + (20 if alg == 4 else 32)
        size = struct.unpack_from("<I", log, p)[0]
        out.append((off, pcr, typ, banks))
        off = p + 4 + size
    assert off == len(log)
    return out


def test_txt_round_trip_passes(honest):
    d, run = honest
    assert run.rc == vtb.POWERED_OFF, run.stderr[-3000:] + "\n" + run.serial[-1500:]
    lines = tboot_lines(run)
    assert "measured launch succeeded" in lines and "TXT.ERRORCODE: 0x0" in lines
    checks = check_lines(run.attest)
    assert list(checks) == CHECKS
    for name in CHECKS:
        assert checks[name].startswith("ok: "), (name, checks[name])
    assert checks["banks"] == "ok: PCRs 17-19 are quoted in every bank the TPM has: sha1,sha256"
    assert checks["event-log"] == (f"ok: {SINIT_RECORDS + TBOOT_RECORDS} events replay to the "
                                   "quoted PCRs 17-19 in sha1,sha256")
    assert checks["launch"] == ("ok: PCR 17 starts at the SINIT's launch (event type 0x402: "
                                "GETSEC[SENTER]'s hash of the ACM) in every bank")
    assert checks["expected"] == ("ok: PCRs 17-19 in sha1,sha256 are vtboot-pcr's prediction for "
                                  "the expected SINIT, tboot, modules, command lines and the "
                                  "given policy")
    assert run.attest[-1] == "VERDICT: PASS"
    assert last_line(run).startswith("vtboot-qemu: attestation passed: every check passed (")
    # the guest read the log from the heap: the shared page is tboot's, not vtboot's
    assert run.guest["action-attest-rc"] == "0"
    log = records(read(os.path.join(d, "evidence.bin")))[EVENT_LOG]
    page = re.search(r"tboot: found shared page at phys addr (0x[0-9a-f]+)", run.serial).group(1)
    src = [v for v in run.values("attest") if v.startswith("quote: event log: ")]
    m = re.fullmatch(rf"quote: event log: {len(log)} bytes from /dev/mem 0x([0-9a-f]{{8}}) \(the "
                     rf"TXT heap's, OsSinitData's event log element; the shared page at {page} is "
                     r"not vtboot's\)", src[0] if len(src) == 1 else "")
    assert m and HEAP_BASE <= int(m.group(1), 16) < HEAP_BASE + HEAP_SIZE, src
    assert run.guest["attest-nonce-from"] == "hostpage"
    # the verifier was told the SINIT, and the modules tboot measures: the ACM is not one
    args = verify_args(d)
    assert f"--sinit={SINIT}" in args and "--vtboot=/boot/tboot.gz" in args
    assert not [a for a in args if a.startswith("--module=")]
    assert f"--vtboot-cmdline={TBOOT_CMDLINE}" in args
    assert f"--cmdline={LINUX_CMDLINE} vtboot.guest=attest" in args
    assert f"--policy={halt_policy()}" in args
    print(f"honest --txt --attest round trip: {run.seconds:.1f} s")


def test_txt_quoted_pcrs_equal_prediction_and_replay(honest, tmp_path):
    """The quoted PCRs 17-19 are the guest's own reads, `vtboot-pcr predict --sinit`'s values
    for the verify command's files (PCR 19: never extended, zero after the launch), and what
    tpm2-tools' tpm2_eventlog replays from the heap's log (17, 18; 19 has no record); the log's records are the SINIT's in
    both banks, then tboot's in SHA-256 only."""
    d, run = honest
    ev = records(read(os.path.join(d, "evidence.bin")))
    quoted = quoted_pcrs(read(os.path.join(d, "evidence.bin")))
    assert quoted == vtb.guest_pcrs(run)
    want = vtb.vtboot_pcr("--sinit", arg(d, "sinit"), "--vtboot", arg(d, "vtboot"),
                          "--vtboot-cmdline", arg(d, "vtboot-cmdline"), "--kernel",
                          arg(d, "kernel"), "--cmdline", arg(d, "cmdline"), "--initrd",
                          arg(d, "initrd"), "--initrd-cmdline", arg(d, "initrd-cmdline"),
                          "--policy", arg(d, "policy"))
    assert quoted == want
    assert quoted[(19, "sha1")] == "00" * 20 and quoted[(19, "sha256")] == "00" * 32
    log = write(tmp_path / "log.bin", ev[EVENT_LOG])
    replay = vtb.eventlog_pcrs(log)
    assert {(p, b): replay[b][p] for p in (17, 18) for b in ("sha1", "sha256")} == \
        {k: v for k, v in quoted.items() if k[0] != 19}
    assert 19 not in replay["sha1"] and 19 not in replay["sha256"]     # no record extends it
    recs = log_records(ev[EVENT_LOG])
    assert [(p, t, b) for _, p, t, b in recs[:SINIT_RECORDS]] == [
        (17, 0x402, ["sha1", "sha256"]), (17, 0x40b, ["sha1", "sha256"]),
        (17, 0x40f, ["sha1", "sha256"]), (17, 0x40c, ["sha1", "sha256"]),
        (17, 0x404, ["sha1", "sha256"]), (18, 0x410, ["sha1", "sha256"]),
        (18, 0x411, ["sha1", "sha256"])]
    assert [(p, b) for _, p, _, b in recs[SINIT_RECORDS:]] == [
        (17, ["sha256"]), (18, ["sha256"]), (17, ["sha256"]), (17, ["sha256"])]


def test_txt_wrong_nonce_refused(honest):
    d, _ = honest
    rc, lines, c = verify(with_args(verify_args(d), nonce=os.urandom(32).hex()))
    assert rc == 1
    assert c["nonce"] == ("FAIL: the quote is over another nonce: a replayed quote, or one made "
                          "for another verifier")
    assert lines[-1] == "VERDICT: FAIL (nonce)"
    # control: the launcher's own nonce, which the quote carries
    rc, lines, _ = verify(verify_args(d))
    assert rc == 0 and lines[-1] == "VERDICT: PASS"
    assert records(read(os.path.join(d, "evidence.bin")))[NONCE].hex() == arg(d, "nonce")


@pytest.mark.parametrize("edit,pcr,bank,verdict", [
    # a bit of tboot's module-0 digest (its third record: SHA-256 only)
    ("tboot-record", 17, "sha256", "event-log, launch"),
    # a bit of the SINIT's PCR 18 record (the ACM key's hash), in its SHA-1 digest
    ("sinit-record", 18, "sha1", "event-log, launch"),
    # tboot's records cut off: the SINIT's alone
    ("tboot-records-dropped", 17, "sha256", "event-log, launch"),
], ids=["tboot-record", "sinit-record", "tboot-records-dropped"])
def test_txt_edited_log_refused(honest, tmp_path, edit, pcr, bank, verdict):
    """The heap's log is outside input: any change the quote does not sign fails its replay,
    and the launch then has no log to show it; the prediction still holds (the PCRs are
    signed)."""
    d, _ = honest
    log = records(read(os.path.join(d, "evidence.bin")))[EVENT_LOG]
    recs = log_records(log)

    def change(r):
        if edit == "tboot-record":
            off = recs[SINIT_RECORDS + 2][0]
            r[EVENT_LOG] = flip(log, off + 12 + 2 + 5)
        elif edit == "sinit-record":
            off = recs[5][0]
            r[EVENT_LOG] = flip(log, off + 12 + 2 + 3)
        else:
            r[EVENT_LOG] = log[:recs[SINIT_RECORDS][0]]
    rc, lines, c = tampered(honest, tmp_path, change)
    assert rc == 1
    assert c["event-log"] == (f"FAIL: replaying the event log does not give the quoted PCR {pcr} "
                              f"({bank})")
    assert c["launch"] == "FAIL: not checked: no event log that replays to the quote shows the launch"
    assert c["expected"].startswith("ok: ")
    assert lines[-1] == f"VERDICT: FAIL ({verdict})"


def test_txt_log_read_as_vtboots_refused(honest):
    """Without --sinit the verifier expects vtboot's launch: tboot's one-bank records make the
    heap's log malformed for it, and the PCRs are not vtboot's prediction."""
    d, _ = honest
    rc, lines, c = verify(with_args(verify_args(d), sinit=None))
    assert rc == 1
    assert c["event-log"] == ("FAIL: the event log is malformed: event 8 at byte 692: 1 digests, "
                              "the header names 2 algorithms")
    assert c["launch"] == "FAIL: not checked: no event log that replays to the quote shows the launch"
    assert c["expected"] == ("FAIL: PCRs 17-19 are not the predicted values (without an event log "
                             "that replays to the quote, the measurement that differs is unknown)")
    assert lines[-1] == "VERDICT: FAIL (event-log, launch, expected)"


def test_txt_other_files_than_expected_refused(honest, tmp_path):
    """The honest evidence against another kernel, initrd or SINIT (a byte changed, the same
    file names): each measurement is named."""
    d, _ = honest
    os.mkdir(tmp_path / "k")
    kernel = write(tmp_path / "k" / "bzImage", flip(read(KERNEL), 0x10))
    rc, lines, c = verify(with_args(verify_args(d), kernel=kernel))
    assert rc == 1 and lines[-1] == "VERDICT: FAIL (expected)"
    assert c["expected"] == "FAIL: the kernel (module 0) is not the expected one"
    os.mkdir(tmp_path / "i")
    initrd = write(tmp_path / "i" / "initrd-attest.img",
                   flip(gzip.decompress(read(INITRD)), 1000))
    rc, lines, c = verify(with_args(verify_args(d), initrd=initrd))
    assert rc == 1 and lines[-1] == "VERDICT: FAIL (expected)"
    assert c["expected"] == "FAIL: the initrd (module 1) is not the expected one"
    # a byte of the ACM's payload: the SINIT's first record (GETSEC[SENTER]'s hash of it)
    os.mkdir(tmp_path / "s")
    sinit = write(tmp_path / "s" / "sinit.bin", flip(read(SINIT), 0x1000))
    rc, lines, c = verify(with_args(verify_args(d), sinit=sinit))
    assert rc == 1 and lines[-1] == "VERDICT: FAIL (expected)"
    assert c["expected"] == ("FAIL: the SINIT's measurement 0 is not the expected one (another "
                             "SINIT, MLE or launch request)")
    # the policy: tboot's default instead of the halt policy that was written
    rc, lines, c = verify(with_args(verify_args(d), policy="default"))
    assert rc == 1 and c["expected"] == ("FAIL: the boot measured a policy from TPM NV, not "
                                         "tboot's default policy")


def test_txt_boot_of_a_changed_initrd_refused(tmp_path):
    """A real launch of an initrd with one byte changed (a comment of /init) under the same file
    name: tboot's halt policy allows any module, the launch succeeds, and the verifier that
    expects out/initrd-attest.img names the initrd."""
    cpio = gzip.decompress(read(need(INITRD, "make out/initrd-attest.img")))
    at = cpio.index(b"\n# ") + 3
    os.mkdir(tmp_path / "i")
    initrd = write(tmp_path / "i" / "initrd-attest.img", flip(cpio, at))
    run = txt_attest_boot(tmp_path / "a", "--expect-initrd", INITRD, initrd=initrd)
    assert run.rc == ATTEST_FAILED, run.stderr[-3000:] + "\n" + run.serial[-1500:]
    assert "measured launch succeeded" in tboot_lines(run)
    c = check_lines(run.attest)
    assert c["expected"] == "FAIL: the initrd (module 1) is not the expected one"
    for name in CHECKS[:-1]:
        assert c[name].startswith("ok: "), (name, c[name])
    assert run.attest[-1] == "VERDICT: FAIL (expected)"
    assert last_line(run) == "vtboot-qemu: attestation FAILED: VERDICT: FAIL (expected)"
