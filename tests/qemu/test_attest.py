# SPDX-License-Identifier: MIT
"""Issue 11, attestation: vtboot-qemu --attest enrolls an AK (MakeCredential/ActivateCredential
against an EK certificate from swtpm's local CA), the guest quotes PCRs 17-19 with
vtboot-attest over the launcher's nonce, and vtboot-attest verify checks the evidence. Every
failure is asserted with its exact reason line; the quote files are checked with tpm2-tools'
tpm2_checkquote and the PCRs with the Python prediction in vtb.py too. The nonce reaches the
guest outside anything measured (the launcher's page, an ivshmem device: host/lib/hostpage.h),
so PCRs 17-19 are the same on every attested boot of the same files."""

import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import time

import pytest

import vtb

ATTEST = os.path.join(vtb.OUT, "bin", "vtboot-attest")
PCR_TOOL = os.path.join(vtb.OUT, "bin", "vtboot-pcr")
CA_DIR = os.path.join(vtb.OUT, "swtpm-localca")       # vtboot-qemu's default --attest-ca
CA_ROOT = os.path.join(CA_DIR, "swtpm-localca-rootca-cert.pem")
CA_CHAIN = os.path.join(CA_DIR, "issuercert.pem")
ATTEST_FAILED = 5
CHECKS = ["evidence", "ak", "quote", "signature", "nonce", "pcr-digest", "banks", "event-log",
          "launch", "expected"]
PREFIX = "vtboot-qemu: attest: "

# evidence record types (host/lib/evidence.h)
AK_PUBLIC, QUOTE, SIGNATURE, PCR_SELECTION, PCR_VALUES, EVENT_LOG = 1, 2, 3, 4, 5, 6
NONCE = 9


# ---- helpers --------------------------------------------------------------------------------

def attest_boot(d, *args):
    """One round trip; d keeps the enrollment, the evidence and the verify command."""
    run = vtb.boot("--attest", "--attest-dir", str(d), *args)
    run.attest = [l[len(PREFIX):] for l in run.launcher_lines(PREFIX)]
    return run


def last_line(run):
    return run.stderr.rstrip("\n").splitlines()[-1]


def check_lines(lines):
    """{check: 'ok: ...' or 'FAIL: ...'} from verify's output lines."""
    out = {}
    for l in lines:
        name, _, rest = l.partition(": ")
        if name in CHECKS:
            out[name] = rest
    return out


def verify_args(d):
    with open(os.path.join(d, "verify.args")) as f:
        return f.read().split("\n")[:-1]


def with_args(args, **repl):
    """Replaces (or with None drops) --name=value arguments; new names are appended."""
    out, done = [], set()
    for a in args:
        key = a[2:].split("=", 1)[0].replace("-", "_") if a.startswith("--") else None
        if key in repl:
            done.add(key)
            if repl[key] is not None:
                out.append(f"--{key.replace('_', '-')}={repl[key]}")
        else:
            out.append(a)
    for key, value in repl.items():
        if key not in done and value is not None:
            out.append(f"--{key.replace('_', '-')}={value}")
    return out


def verify(args):
    p = subprocess.run(args, capture_output=True, text=True)
    lines = p.stdout.splitlines()
    return p.returncode, lines, check_lines(lines)


def records(ev):
    """The evidence file's records (our own reading of the format in host/lib/evidence.h)."""
    assert ev[:8] == b"VTBEVID1" and struct.unpack_from("<I", ev, 8)[0] == len(ev)
    out, off = {}, 12
    while off < len(ev):
        t, res, n = struct.unpack_from("<HHI", ev, off)
        assert res == 0 and t not in out
        out[t] = ev[off + 8: off + 8 + n]
        off += 8 + n
    return out


def build(recs):
    body = b"".join(struct.pack("<HHI", t, 0, len(v)) + v for t, v in sorted(recs.items()))
    return b"VTBEVID1" + struct.pack("<I", 12 + len(body)) + body


def flip(data, offset, bit=0):
    b = bytearray(data)
    b[offset] ^= 1 << bit
    return bytes(b)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def tampered(honest, tmp_path, change):
    """verify on a changed copy of the honest evidence: (rc, lines, checks)."""
    d, _ = honest
    recs = records(read(os.path.join(d, "evidence.bin")))
    change(recs)
    ev = write(tmp_path / "evidence.bin", build(recs))
    return verify(with_args(verify_args(d), evidence=ev))


def host_page_items(path):
    """The launcher's page for the guest (our own reading of the layout in host/lib/hostpage.h):
    {name: bytes}; the page is 4096 bytes, zero after the used part."""
    pg = read(path)
    assert len(pg) == 4096 and pg[:8] == b"VTBHOST1"
    used, count = struct.unpack_from("<II", pg, 8)
    items, off = {}, 16
    for _ in range(count):
        name = pg[off:off + 24].split(b"\0")[0].decode()
        size, reserved = struct.unpack_from("<II", pg, off + 24)
        assert reserved == 0 and name not in items
        items[name] = pg[off + 32: off + 32 + size]
        off += 32 + size
    assert off == used and pg[used:] == bytes(4096 - used)
    return items


def quoted_pcrs(ev):
    """{(pcr, bank): hex} from the evidence's PCR values (sha1 17-19, then sha256 17-19)."""
    values = records(ev)[PCR_VALUES]
    assert len(values) == 3 * 20 + 3 * 32
    out = {(17 + i, "sha1"): values[20 * i: 20 * i + 20].hex() for i in range(3)}
    out.update({(17 + i, "sha256"): values[60 + 32 * i: 92 + 32 * i].hex() for i in range(3)})
    return out


def polgen(path, *args):
    subprocess.run(["/usr/sbin/tb_polgen", *args, path], check=True, capture_output=True)


def attest_policy(path, ptype="halt"):
    """Module 0 pinned with its exact string (the same on every --attest boot: the nonce is not
    on the command line), module 1 the attest initrd."""
    mod0 = vtb.module_strings("--attest")[0]
    assert mod0 == "bzImage console=ttyS0 panic=-1 vtboot.guest=attest"
    polgen(path, "--create", "--type", ptype, "--alg", "sha256")
    polgen(path, "--add", "--num", "0", "--pcr", "none", "--hash", "image", "--cmdline", mod0,
           "--image", os.path.join(vtb.OUT, "bzImage"))
    polgen(path, "--add", "--num", "1", "--pcr", "17", "--hash", "image", "--cmdline",
           "initrd-attest.img", "--image", os.path.join(vtb.OUT, "initrd-attest.img"))
    return path


# ---- the honest round trip -----------------------------------------------------------------

@pytest.fixture(scope="module")
def honest():
    d = tempfile.mkdtemp(prefix="attest-honest.")
    t0 = time.monotonic()
    run = attest_boot(d)
    run.seconds = time.monotonic() - t0
    yield d, run
    shutil.rmtree(d)


def test_round_trip_passes(honest):
    d, run = honest
    assert run.rc == vtb.POWERED_OFF, run.stderr
    checks = check_lines(run.attest)
    assert list(checks) == CHECKS
    for name in CHECKS:
        assert checks[name].startswith("ok: "), (name, checks[name])
    assert checks["banks"] == "ok: PCRs 17-19 are quoted in every bank the TPM has: sha1,sha256"
    assert checks["event-log"] == "ok: 5 events replay to the quoted PCRs 17-19 in sha1,sha256"
    assert run.attest[-1] == "VERDICT: PASS"
    assert last_line(run).startswith("vtboot-qemu: attestation passed: every check passed (")
    assert run.launcher_lines("vtboot-qemu: attest: AK enrolled in ")
    # the guest's side: the quote, the event log from securityfs (the patched kernel)
    assert run.guest["action-attest-rc"] == "0"
    assert "quote: PCRs 17-19 of sha1,sha256 quoted by the AK at 0x81010002 over a 32-byte nonce" \
        in run.values("attest")
    assert "quote: event log: 638 bytes from securityfs /sys/kernel/security/tboot/event_log" \
        in run.values("attest")
    # what the launcher verified is what the guest printed, and the nonce the launcher chose
    ev = read(os.path.join(d, "evidence.bin"))
    assert ev == bytes.fromhex(run.guest["attest-evidence"])
    nonce = [a for a in verify_args(d) if a.startswith("--nonce=")][0][8:]
    assert records(ev)[NONCE].hex() == nonce
    # ... which reached the guest in the launcher's page, not on the measured command line
    assert run.guest["attest-nonce-from"] == "hostpage"
    assert host_page_items(os.path.join(d, "hostpage.bin")) == {"nonce": bytes.fromhex(nonce)}
    assert run.guest["cmdline"] == "bzImage console=ttyS0 panic=-1 vtboot.guest=attest"
    assert "--cmdline=bzImage console=ttyS0 panic=-1 vtboot.guest=attest" in verify_args(d)


def test_quote_files_pass_tpm2_checkquote(honest, tmp_path):
    """The files the guest wrote for tpm2_checkquote (printed as hex) are the evidence's records,
    and tpm2-tools' own checker accepts them, and refuses a wrong nonce or a changed byte."""
    d, run = honest
    recs = records(read(os.path.join(d, "evidence.bin")))
    msg = write(tmp_path / "quote.msg", bytes.fromhex(run.guest["attest-quote-msg"]))
    sig = write(tmp_path / "quote.sig", bytes.fromhex(run.guest["attest-quote-sig"]))
    pcrs = write(tmp_path / "quote.pcrs", bytes.fromhex(run.guest["attest-quote-pcrs"]))
    assert (read(msg), read(sig), read(pcrs)) == (recs[QUOTE], recs[SIGNATURE], recs[PCR_VALUES])
    nonce = recs[NONCE].hex()
    ak = os.path.join(d, "enrolled", "ak.pub")

    def checkquote(m=msg, s=sig, q=nonce):
        return subprocess.run(["tpm2_checkquote", "-u", ak, "-m", m, "-s", s, "-f", pcrs, "-l",
                               "sha1:17,18,19+sha256:17,18,19", "-g", "sha256", "-q", q],
                              capture_output=True, text=True)

    ok = checkquote()
    assert ok.returncode == 0, ok.stderr
    assert checkquote(q="00" + nonce[2:]).returncode != 0
    assert checkquote(s=write(tmp_path / "bad.sig", flip(read(sig), 100))).returncode != 0
    assert checkquote(m=write(tmp_path / "bad.msg", flip(read(msg), len(read(msg)) - 1))).returncode != 0


def test_quoted_pcrs_equal_independent_prediction(honest):
    """The quoted values are what the guest's sysfs shows and what vtb.py's own prediction
    (hashlib) and vtboot-pcr --format json give for the booted files and strings."""
    d, run = honest
    quoted = quoted_pcrs(read(os.path.join(d, "evidence.bin")))
    assert quoted == vtb.guest_pcrs(run)
    args = verify_args(d)
    get = lambda k: [a for a in args if a.startswith(f"--{k}=")][0].split("=", 1)[1]
    modules = [(get("cmdline"), vtb.image_bytes(get("kernel"))),
               (get("initrd-cmdline"), vtb.image_bytes(get("initrd")))]
    assert quoted == vtb.predict(modules, get("vtboot-cmdline"))
    out = subprocess.run([PCR_TOOL, "predict", "--kernel", get("kernel"), "--cmdline", get("cmdline"),
                          "--initrd", get("initrd"), "--initrd-cmdline", get("initrd-cmdline"),
                          "--vtboot-cmdline", get("vtboot-cmdline"), "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    assert {(int(p), b): v for b, pcrs in json.loads(out).items() for p, v in pcrs.items()} == quoted


def test_pcrs_stable_across_attested_boots(honest, tmp_path):
    """Two --attest boots of the same files with different nonces: the same PCRs 17-19 (the
    nonce is measured nowhere), equal to vtboot-pcr's Keylime tpm_policy and to vtb.py's
    prediction, so a fleet verifier can pin them; each quote is over its own nonce, and each
    replayed with the other's nonce fails."""
    a, run_a = honest
    b = tmp_path / "b"
    run_b = attest_boot(b)
    assert run_b.rc == vtb.POWERED_OFF, run_b.stderr
    assert run_b.attest[-1] == "VERDICT: PASS"
    assert run_b.guest["attest-nonce-from"] == "hostpage"
    assert run_b.guest["cmdline"] == run_a.guest["cmdline"]
    nonce = {}
    for d in (a, b):
        nonce[d] = [x for x in verify_args(d) if x.startswith("--nonce=")][0][8:]
        assert records(read(os.path.join(d, "evidence.bin")))[NONCE].hex() == nonce[d]
        assert host_page_items(os.path.join(d, "hostpage.bin"))["nonce"].hex() == nonce[d]
    assert nonce[a] != nonce[b] and len(nonce[a]) == 64
    pcrs_a = quoted_pcrs(read(os.path.join(a, "evidence.bin")))
    pcrs_b = quoted_pcrs(read(os.path.join(b, "evidence.bin")))
    assert pcrs_a == pcrs_b
    # nor does anything else measure it: every PCR the guest read at boot (0-23, SeaBIOS's 0-7
    # included) is the same on both boots
    every = lambda run: {k: v for k, v in run.guest.items() if k.startswith("pcr-sha")}
    assert len(every(run_a)) == 48 and every(run_a) == every(run_b)
    # everything but the nonce is the same verify command
    assert with_args(verify_args(a), evidence=None, enrolled=None, nonce=None) == \
        with_args(verify_args(b), evidence=None, enrolled=None, nonce=None)
    args = verify_args(a)
    get = lambda k: [x for x in args if x.startswith(f"--{k}=")][0].split("=", 1)[1]
    kl = json.loads(subprocess.run(
        [PCR_TOOL, "predict", "--kernel", get("kernel"), "--cmdline", get("cmdline"), "--initrd",
         get("initrd"), "--initrd-cmdline", get("initrd-cmdline"), "--vtboot-cmdline",
         get("vtboot-cmdline"), "--format", "keylime", "--bank", "sha256", "--bank", "sha1"],
        check=True, capture_output=True, text=True).stdout)
    assert kl == {str(p): [pcrs_a[(p, "sha256")], pcrs_a[(p, "sha1")]] for p in (17, 18, 19)}
    modules = [(get("cmdline"), vtb.image_bytes(get("kernel"))),
               (get("initrd-cmdline"), vtb.image_bytes(get("initrd")))]
    assert vtb.predict(modules, get("vtboot-cmdline")) == pcrs_a
    # each quote is over its own nonce only
    for mine, other in ((a, b), (b, a)):
        rc, lines, c = verify(with_args(verify_args(mine), nonce=nonce[other]))
        assert rc == 1
        assert c["nonce"] == ("FAIL: the quote is over another nonce: a replayed quote, or one "
                              "made for another verifier")
        assert lines[-1] == "VERDICT: FAIL (nonce)"
        rc, lines, c = verify(verify_args(mine))
        assert rc == 0 and lines[-1] == "VERDICT: PASS"


def test_nonce_on_the_command_line_is_measured(honest, tmp_path):
    """vtboot.nonce=HEX (for manual use) overrides the launcher's page, but the command line
    is measured: PCR 17 moves away from the honest boot's (18 and 19 do not), and the quote is
    over that nonce, not the launcher's."""
    a, _ = honest
    mine = os.urandom(32).hex()
    d = tmp_path / "a"
    run = attest_boot(d, "--cmdline", f"console=ttyS0 panic=-1 vtboot.nonce={mine}")
    assert run.rc == ATTEST_FAILED, run.stderr
    assert run.guest["attest-nonce-from"] == "cmdline"
    ev = read(os.path.join(d, "evidence.bin"))
    assert records(ev)[NONCE].hex() == mine
    pcrs, ref = quoted_pcrs(ev), quoted_pcrs(read(os.path.join(a, "evidence.bin")))
    for bank in ("sha1", "sha256"):
        assert pcrs[(17, bank)] != ref[(17, bank)]
        assert (pcrs[(18, bank)], pcrs[(19, bank)]) == (ref[(18, bank)], ref[(19, bank)])
    c = check_lines(run.attest)
    assert c["nonce"] == ("FAIL: the quote is over another nonce: a replayed quote, or one made "
                          "for another verifier")
    assert run.attest[-1] == "VERDICT: FAIL (nonce)"
    rc, lines, c = verify(with_args(verify_args(d), nonce=mine))
    assert rc == 0 and lines[-1] == "VERDICT: PASS"


def test_guest_refuses_a_malformed_host_page(tmp_path):
    """vtboot-hostpage in the guest (the I/O half): of two ivshmem devices, it skips the one
    holding no page and reports the malformed page of the other with the parser's exact reason;
    the attest action then stops without a quote."""
    junk = tmp_path / "zero.bin"
    write(junk, bytes(4096))
    bad = bytearray(4096)
    bad[:16] = b"VTBHOST1" + struct.pack("<II", 4097, 0)
    page = write(tmp_path / "bad.bin", bytes(bad))
    dev = lambda i, path, addr: ["-object", f"memory-backend-file,id=m{i},mem-path={path},"
                                 "size=4096,share=off", "-device",
                                 f"ivshmem-plain,memdev=m{i},addr={addr}"]
    run = vtb.boot("--initrd", os.path.join(vtb.OUT, "initrd-attest.img"), "--cmdline",
                   "console=ttyS0 panic=-1 vtboot.guest=attest", "--",
                   *dev(0, junk, "0x06"), *dev(1, page, "0x05"))
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.guest["error"] == ("attest: no nonce: vtboot-hostpage: 0000:00:05.0: malformed "
                                  "host page: the page says it uses 4097 bytes, outside 16..4096")
    assert run.guest["action-attest-rc"] == "1"
    assert "attest-evidence" not in run.guest and "attest-nonce-from" not in run.guest


def test_vtboot_pcr_json_and_keylime_formats():
    args = [PCR_TOOL, "predict", "--kernel", os.path.join(vtb.OUT, "bzImage"), "--cmdline",
            "bzImage console=ttyS0", "--initrd", os.path.join(vtb.OUT, "initrd.img"),
            "--initrd-cmdline", "initrd.img", "--vtboot-cmdline", "vtboot x"]
    text = vtb.vtboot_pcr(*args[2:])
    js = json.loads(subprocess.run(args + ["--format", "json"], check=True, capture_output=True,
                                   text=True).stdout)
    assert {(int(p), b): v for b, pcrs in js.items() for p, v in pcrs.items()} == text
    kl = json.loads(subprocess.run(args + ["--format", "keylime", "--bank", "sha256", "--bank",
                                           "sha1"], check=True, capture_output=True,
                                   text=True).stdout)
    # Keylime's tpm_policy: PCR numbers as keys (digits only, no "mask"), lists of values
    assert kl == {str(p): [text[(p, "sha256")], text[(p, "sha1")]] for p in (17, 18, 19)}
    bad = subprocess.run(args + ["--format", "yaml"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr == "vtboot-pcr: --format takes text, json or keylime\n"


# ---- each piece of evidence tampered with, verified offline --------------------------------

def test_flipped_bit_in_signature(honest, tmp_path):
    rc, lines, c = tampered(honest, tmp_path, lambda r: r.update({SIGNATURE: flip(r[SIGNATURE], 100)}))
    assert rc == 1
    assert c["signature"] == "FAIL: the quote's signature does not verify with the enrolled AK"
    assert lines[-1] == "VERDICT: FAIL (signature)"


def test_flipped_bit_in_quote(honest, tmp_path):
    # the last byte is in the quote's PCR digest: it still parses, but the TPM did not sign it
    rc, lines, c = tampered(honest, tmp_path, lambda r: r.update({QUOTE: flip(r[QUOTE], len(r[QUOTE]) - 1)}))
    assert rc == 1
    assert c["signature"] == "FAIL: the quote's signature does not verify with the enrolled AK"
    assert c["pcr-digest"] == "FAIL: the PCR values do not match the quote's PCR digest"
    assert lines[-1] == "VERDICT: FAIL (signature, pcr-digest)"


def test_flipped_bit_in_a_pcr_value(honest, tmp_path):
    rc, lines, c = tampered(honest, tmp_path, lambda r: r.update({PCR_VALUES: flip(r[PCR_VALUES], 70)}))
    assert rc == 1
    assert c["pcr-digest"] == "FAIL: the PCR values do not match the quote's PCR digest"
    assert c["signature"].startswith("ok: ")
    assert lines[-1].startswith("VERDICT: FAIL (pcr-digest, ")


def test_flipped_bit_in_an_event_log_digest(honest, tmp_path):
    def change(r):
        log = r[EVENT_LOG]
        ev = vtb.parse_event_log(log)[3]                      # module 0's event
        at = log.index(bytes.fromhex(ev.digests["sha256"]))
        r[EVENT_LOG] = flip(log, at + 5, 3)
    rc, lines, c = tampered(honest, tmp_path, change)
    assert rc == 1
    assert c["event-log"] == "FAIL: replaying the event log does not give the quoted PCR 17 (sha256)"
    assert c["launch"] == "FAIL: not checked: no event log that replays to the quote shows the launch"
    assert c["signature"].startswith("ok: ") and c["pcr-digest"].startswith("ok: ")
    assert lines[-1] == "VERDICT: FAIL (event-log, launch)"


def test_replay_old_quote_new_nonce(honest):
    d, _ = honest
    rc, lines, c = verify(with_args(verify_args(d), nonce=os.urandom(32).hex()))
    assert rc == 1
    assert c["nonce"] == ("FAIL: the quote is over another nonce: a replayed quote, or one made for "
                          "another verifier")
    assert lines[-1] == "VERDICT: FAIL (nonce)"


def software_key_evidence(ev, nonce):
    """The honest evidence re-made with a software RSA key: the new nonce in the quote, signed
    by OpenSSL, the key as the AK (same attributes: restricted, fixedTPM, ... are only words)."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding, rsa
    recs = records(ev)
    quote = bytearray(recs[QUOTE])
    off = 6 + 2 + struct.unpack_from(">H", quote, 6)[0]      # magic, type, qualifiedSigner
    assert struct.unpack_from(">H", quote, off)[0] == len(nonce)
    quote[off + 2: off + 2 + len(nonce)] = nonce
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    sig = key.sign(bytes(quote), padding.PKCS1v15(), hashes.SHA256())
    attrs = recs[AK_PUBLIC][6:10]
    modulus = key.public_key().public_numbers().n.to_bytes(256, "big")
    tpmt = (struct.pack(">HH", 0x0001, 0x000b) + attrs + struct.pack(">H", 0) +
            struct.pack(">HHHHI", 0x0010, 0x0014, 0x000b, 2048, 0) + struct.pack(">H", 256) + modulus)
    recs[QUOTE] = bytes(quote)
    recs[SIGNATURE] = struct.pack(">HHH", 0x0014, 0x000b, len(sig)) + sig
    recs[AK_PUBLIC] = struct.pack(">H", len(tpmt)) + tpmt
    recs[NONCE] = nonce
    pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                        serialization.PublicFormat.SubjectPublicKeyInfo)
    return build(recs), pem


def test_ak_not_enrolled_software_key(honest, tmp_path):
    d, _ = honest
    nonce = os.urandom(32)
    ev, pem = software_key_evidence(read(os.path.join(d, "evidence.bin")), nonce)
    path = write(tmp_path / "forged.bin", ev)
    # the forgery is consistent in itself: tpm2_checkquote accepts it with the forger's key
    out = tmp_path / "parts"
    subprocess.run([ATTEST, "export", path, str(out)], check=True, capture_output=True)
    ok = subprocess.run(["tpm2_checkquote", "-u", write(tmp_path / "sw.pem", pem), "-m",
                         str(out / "quote.msg"), "-s", str(out / "quote.sig"), "-f",
                         str(out / "quote.pcrs"), "-l", "sha1:17,18,19+sha256:17,18,19", "-g",
                         "sha256", "-q", nonce.hex()], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    rc, lines, c = verify(with_args(verify_args(d), evidence=path, nonce=nonce.hex()))
    assert rc == 1
    assert c["ak"] == "FAIL: the quote's AK is not the AK enrolled for this TPM"
    assert c["signature"] == "FAIL: the quote's signature does not verify with the enrolled AK"
    assert c["nonce"].startswith("ok: ") and c["pcr-digest"].startswith("ok: ")
    assert lines[-1] == "VERDICT: FAIL (ak, signature)"


def test_ak_from_another_tpm(honest, tmp_path):
    """A second TPM, enrolled for real (--provision-only --attest), quotes on the host with its
    own AK: the verifier of the first TPM refuses it. And that TPM cannot enroll against the
    first TPM's EK certificate: ActivateCredential fails."""
    d, _ = honest
    state, rec = tmp_path / "tpm-b", tmp_path / "b"
    p = subprocess.run([vtb.LAUNCHER, "--provision-only", "--attest", "--tpm-state", str(state),
                        "--attest-dir", str(rec)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert os.path.exists(rec / "enrolled" / "ak.pub")
    sock = str(tmp_path / "b.sock")
    sw = subprocess.Popen(["swtpm", "socket", "--tpm2", "--tpmstate", f"dir={state}", "--server",
                           f"type=unixio,path={sock}", "--ctrl", f"type=unixio,path={sock}.ctrl",
                           "--flags", "not-need-init"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(sock + ".ctrl"):
                break
            time.sleep(0.05)
        nonce = os.urandom(32).hex()
        log = write(tmp_path / "log.bin", records(read(os.path.join(d, "evidence.bin")))[EVENT_LOG])
        q = subprocess.run([ATTEST, "quote", "--tpm", f"swtpm:path={sock}", "--nonce", nonce,
                            "--event-log", log, "-o", str(tmp_path / "ev-b.bin")],
                           capture_output=True, text=True)
        assert q.returncode == 0, q.stdout + q.stderr
        rc, lines, c = verify(with_args(verify_args(d), evidence=str(tmp_path / "ev-b.bin"),
                                        nonce=nonce))
        assert rc == 1
        assert c["ak"] == "FAIL: the quote's AK is not the AK enrolled for this TPM"
        assert c["signature"] == "FAIL: the quote's signature does not verify with the enrolled AK"
        assert c["nonce"].startswith("ok: ")
        # TPM b with TPM a's EK certificate
        e = subprocess.run([ATTEST, "enroll", "--tpm", f"swtpm:path={sock}", "--ca", CA_ROOT,
                            "--ca-chain", CA_CHAIN, "--out", str(tmp_path / "x"), "--ek-cert",
                            os.path.join(d, "enrolled", "ek-cert.pem"), "--owner-auth",
                            str(state / "vtboot-owner.auth")],
                           capture_output=True, text=True)
        assert e.returncode == 1
        assert e.stdout.splitlines()[-1] == (
            "enroll: FAIL: the TPM could not activate the credential: the AK is not proven to be "
            "in the TPM of the certified EK (TPM2_ActivateCredential: TPM error 0x101; the TPM's "
            "EK is not the certificate's key)")
        assert not os.path.exists(tmp_path / "x" / "ak.pub")
    finally:
        sw.terminate()
        sw.wait(10)


def test_other_kernel_than_expected(honest, tmp_path):
    d, _ = honest
    kernel = flip(read(os.path.join(vtb.OUT, "bzImage")), 0x10)   # boot sector, same file name
    os.mkdir(tmp_path / "k")
    rc, lines, c = verify(with_args(verify_args(d), kernel=write(tmp_path / "k" / "bzImage", kernel)))
    assert rc == 1
    assert c["expected"] == "FAIL: the kernel (module 0) is not the expected one"
    assert lines[-1] == "VERDICT: FAIL (expected)"


def test_other_cmdline_than_expected(honest):
    d, _ = honest
    args = verify_args(d)
    cmdline = [a for a in args if a.startswith("--cmdline=")][0][10:]
    rc, lines, c = verify(with_args(args, cmdline=cmdline.replace("panic=-1", "panic=-2")))
    assert rc == 1
    assert c["expected"] == "FAIL: the command line of the kernel (module 0) is not the expected one"
    i = lines.index("expected: " + c["expected"])
    assert lines[i + 1] == f'    measured: "{cmdline}"'
    assert lines[-1] == "VERDICT: FAIL (expected)"


def test_missing_input_fails(honest, tmp_path):
    d, _ = honest
    args = verify_args(d)
    rc, lines, c = verify(with_args(args, nonce=None))
    assert rc == 1 and c["nonce"] == ("FAIL: no --nonce given: without the verifier's fresh nonce "
                                      "a quote can be a replay")
    rc, lines, c = verify(with_args(args, kernel=None))
    assert rc == 1 and c["expected"] == (
        "FAIL: no expectation: --kernel is missing (--vtboot, --vtboot-cmdline, --kernel, "
        "--cmdline and --policy are needed)")
    rc, lines, c = verify(with_args(args, enrolled=None))
    assert rc == 1 and c["ak"] == "FAIL: no --enrolled DIR: the AK cannot be checked against an enrollment"
    assert c["signature"] == "FAIL: not checked: no enrolled AK"
    missing = str(tmp_path / "none.bin")
    rc, lines, c = verify(with_args(args, evidence=missing))
    assert rc == 1 and c["evidence"] == f"FAIL: cannot read {missing}: No such file or directory"
    assert all(c[n].startswith("FAIL: ") for n in CHECKS if n != "nonce") and c["nonce"] == \
        "FAIL: not checked: no quote"
    assert lines[-1] == "VERDICT: FAIL (" + ", ".join(CHECKS) + ")"
    # the event log left out of the evidence
    rc, lines, c = tampered(honest, tmp_path, lambda r: r.pop(EVENT_LOG))
    assert rc == 1 and c["event-log"] == (
        "FAIL: the evidence has no event log (securityfs /sys/kernel/security/tboot/event_log)")
    # another CA
    rc, lines, c = verify(with_args(args, ca=os.path.join(d, "enrolled", "ek-cert.pem")))
    assert rc == 1 and c["ak"].startswith("FAIL: the enrolled EK certificate does not chain to the CA ")


# ---- boots that must fail, and the other paths that must pass ------------------------------

def test_round_trip_through_grub(tmp_path):
    run = attest_boot(tmp_path / "a", "--grub")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.attest[-1] == "VERDICT: PASS"
    args = verify_args(tmp_path / "a")
    assert "--initrd-cmdline=" in args                          # GRUB passes no file names
    assert [a for a in args if a.startswith("--vtboot=")][0].endswith("/vtboot.gz")
    assert last_line(run).startswith("vtboot-qemu: attestation passed: ")


def test_round_trip_with_a_kernel_record_cut_into_the_evidence(tmp_path):
    """The kernel prints on the console whenever it likes, also into the middle of the line the
    guest is still sending (a cold make test failed on that: the TSC's refined calibration cut
    into the evidence's hex). The guest cuts its evidence line with a record of its own
    (vtboot.attest-cut=1, through /dev/kmsg once the first half has left the console); the
    launcher must read the evidence whole."""
    cmdline = "console=ttyS0 panic=-1 vtboot.attest-cut=1"      # --attest adds the action
    run = attest_boot(tmp_path / "a", "--cmdline", cmdline)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    # the cut as the guest sent it: vtb moved the record before the line it cut, and joined the
    # line again (vtb.untangle_console)
    lines = run.serial.splitlines()
    at = [i for i, l in enumerate(lines) if l.startswith("VTBOOT-GUEST: attest-evidence=")]
    assert len(at) == 1 and re.match(r"^\[ *\d+\.\d{6}\] vtboot-guest: a kernel record cut into "
                                      r"the evidence$", lines[at[0] - 1]), lines[at[0] - 1]
    assert run.attest[-1] == "VERDICT: PASS"
    ev = read(os.path.join(tmp_path / "a", "evidence.bin"))
    assert ev == bytes.fromhex(run.guest["attest-evidence"])
    assert last_line(run).startswith("vtboot-qemu: attestation passed: ")


def test_stock_kernel_event_log_from_guest_memory(tmp_path):
    """A stock kernel has no securityfs event log: quote reads it from the address in vtboot's
    block of the shared page, through /dev/mem."""
    stock = os.path.join(vtb.OUT, "bzImage-stock")
    assert os.path.exists(stock), "out/bzImage-stock missing (make builds it)"
    os.mkdir(tmp_path / "k")
    kernel = str(tmp_path / "k" / "bzImage")
    os.symlink(stock, kernel)
    run = attest_boot(tmp_path / "a", "--kernel", kernel)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.guest["securityfs-tboot"] == "absent"
    src = [v for v in run.values("attest") if v.startswith("quote: event log: ")]
    assert len(src) == 1 and src[0].startswith("quote: event log: 638 bytes from /dev/mem 0x")
    assert src[0].endswith(" (vtboot's block of the shared page at 0x801000)")
    assert run.attest[-1] == "VERDICT: PASS"


def test_no_drtm_fails_launch(tmp_path):
    run = attest_boot(tmp_path / "a", "--no-drtm")
    assert run.rc == ATTEST_FAILED, run.stderr
    c = check_lines(run.attest)
    assert c["launch"] == "FAIL: PCR 17 is all-ones: there was no dynamic launch (an unmeasured boot)"
    assert c["event-log"] == ("FAIL: the evidence has no event log (none: vtboot's block lists no "
                              "event log (flags 0x1: no dynamic launch))")
    assert c["expected"] == "FAIL: PCR 17 is all-ones, not the launch the expectation predicts"
    assert c["signature"].startswith("ok: ") and c["nonce"].startswith("ok: ")
    assert run.attest[-1] == "VERDICT: FAIL (event-log, launch, expected)"
    assert last_line(run) == "vtboot-qemu: attestation FAILED: VERDICT: FAIL (event-log, launch, expected)"


def test_policy_fell_back_to_default(tmp_path):
    """The verifier expects a policy that was never written into NV: vtboot used tboot's
    default policy, and the measurement says so."""
    pol = attest_policy(str(tmp_path / "vl.pol"))
    run = attest_boot(tmp_path / "a", "--expect-policy", pol)
    assert run.rc == ATTEST_FAILED, run.stderr
    assert run.has_vtboot_line(r"^WARNING: policy: using tboot's default policy")
    c = check_lines(run.attest)
    assert c["expected"] == ("FAIL: the boot measured tboot's default policy, not the expected "
                             "policy: the policy index was missing, so vtboot fell back to the default")
    assert run.attest[-1] == "VERDICT: FAIL (expected)"


def test_policy_passes_and_another_policy_fails(tmp_path):
    pol = attest_policy(str(tmp_path / "vl.pol"))
    run = attest_boot(tmp_path / "a", "--policy", pol)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^module 1: verified, sha256 [0-9a-f]{64} matches the policy$")
    assert "--policy=" + pol in verify_args(tmp_path / "a")
    assert run.attest[-1] == "VERDICT: PASS"
    other = attest_policy(str(tmp_path / "other.pol"), ptype="continue")
    rc, lines, c = verify(with_args(verify_args(tmp_path / "a"), policy=other))
    assert rc == 1 and c["expected"] == "FAIL: the policy is not the expected one"
    rc, lines, c = verify(with_args(verify_args(tmp_path / "a"), policy="default"))
    assert rc == 1 and c["expected"] == "FAIL: the boot measured a policy from TPM NV, not tboot's default policy"


def test_other_initrd_booted_than_expected(tmp_path):
    """A real boot of an initrd with one byte changed (a comment of /init), under the same file
    name; the verifier expects out/initrd-attest.img."""
    cpio = gzip.decompress(read(os.path.join(vtb.OUT, "initrd-attest.img")))
    at = cpio.index(b"\n# ") + 3
    os.mkdir(tmp_path / "i")
    initrd = write(tmp_path / "i" / "initrd-attest.img", flip(cpio, at))
    run = attest_boot(tmp_path / "a", "--initrd", initrd, "--expect-initrd",
                      os.path.join(vtb.OUT, "initrd-attest.img"))
    assert run.rc == ATTEST_FAILED, run.stderr
    c = check_lines(run.attest)
    assert c["expected"] == "FAIL: the initrd (module 1) is not the expected one"
    for name in CHECKS[:-1]:
        assert c[name].startswith("ok: "), (name, c[name])
    assert run.attest[-1] == "VERDICT: FAIL (expected)"


def test_quote_leaving_out_a_bank(tmp_path):
    run = attest_boot(tmp_path / "a", "--cmdline", "console=ttyS0 panic=-1 vtboot.attest-banks=sha256")
    assert run.rc == ATTEST_FAILED, run.stderr
    assert "quote: PCRs 17-19 of sha256 quoted by the AK at 0x81010002 over a 32-byte nonce" \
        in run.values("attest")
    c = check_lines(run.attest)
    assert c["banks"] == "FAIL: the quote leaves out the sha1 bank (the TPM has sha1,sha256)"
    assert run.attest[-1] == "VERDICT: FAIL (banks)"
