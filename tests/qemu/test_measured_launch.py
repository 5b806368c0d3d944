# SPDX-License-Identifier: MIT
"""Issue 3, measured launch: the host performs the dynamic launch, vtboot measures policy and
modules into PCRs 17-19 in every bank, and the values equal two independent predictions."""

import gzip
import os
import shutil
import subprocess
import tempfile

import pytest

import vtb
from vtb import boot

ALL_FF = {"sha1": "ff" * 20, "sha256": "ff" * 32}


def read(path):
    with open(path, "rb") as f:
        return f.read()


def launch_inputs(*args):
    """Module strings and images, and vtboot's command line, for these launcher arguments."""
    strings = vtb.module_strings(*args)
    kernel = dict(zip(args[::2], args[1::2])).get("--kernel", os.path.join(vtb.OUT, "bzImage"))
    initrd = dict(zip(args[::2], args[1::2])).get("--initrd", os.path.join(vtb.OUT, "initrd.img"))
    cmdline = subprocess.run([vtb.LAUNCHER, "--print-cmdline", *args], check=True,
                             capture_output=True, text=True).stdout.rstrip("\n")
    return ([(strings[0], vtb.image_bytes(kernel)), (strings[1], vtb.image_bytes(initrd))],
            cmdline, kernel, initrd)


def predictions(*args, legacy=False):
    modules, cmdline, kernel, initrd = launch_inputs(*args)
    policy = vtb.DEFAULT_POLICY_LEGACY if legacy else vtb.DEFAULT_POLICY_DA
    ours = vtb.predict(modules, cmdline, policy=policy, legacy=legacy)
    tool = vtb.vtboot_pcr("--kernel", kernel, "--cmdline", modules[0][0], "--initrd", initrd,
                          "--initrd-cmdline", modules[1][0], "--vtboot-cmdline", cmdline,
                          "--pcr-map", "legacy" if legacy else "da")
    assert ours == tool
    return ours


def test_pcrs_equal_predictions():
    run = boot()
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^dynamic launch confirmed: PCR 17 = H\(0 \|\| H\(MLE\)\) in every bank$")
    assert run.has_vtboot_line(r"^measured launch: 4 extends into PCRs 17-19, event log at 0x")
    assert vtb.guest_pcrs(run) == predictions()
    ext = vtb.parse_ext(run)
    assert ext.flags == vtb.EXT_TPM | vtb.EXT_LAUNCHED | vtb.EXT_MEASURED


def test_grub_launch_equals_prediction():
    run = boot("--grub")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert vtb.guest_pcrs(run) == predictions("--grub")


def test_event_log_replays_to_the_tpm(tmp_path):
    run = boot()
    assert run.rc == vtb.POWERED_OFF, run.stderr
    ext = vtb.parse_ext(run)
    log = bytes.fromhex(run.guest["evtlog-hex"])
    assert len(log) == ext.evtlog_used
    path = tmp_path / "evtlog.bin"
    path.write_bytes(log)
    replay = vtb.eventlog_pcrs(str(path))       # tpm2-tools' own parser and replay
    for (pcr, bank), value in vtb.guest_pcrs(run).items():
        if pcr == 19:                            # no events: still zero from the launch
            assert pcr not in replay[bank] and value == "00" * (len(value) // 2)
        else:
            assert replay[bank][pcr] == value, (pcr, bank)
    assert [e["EventType"] for e in vtb.eventlog_events(str(path))][0] == "EV_NO_ACTION"
    events = vtb.parse_event_log(log)            # and our own reading of the records
    assert [(e.pcr, e.type) for e in events] == [
        (17, 0x404),                             # TXT EVTYPE_MLE_HASH: the virtual SENTER
        (17, 0x501), (18, 0x501),                # tboot EVTYPE_TB_MEASUREMENT: policy
        (17, 0x501), (17, 0x501)]                # module 0, module 1
    assert events[3].data == b"vtboot: module 0: " + vtb.module_strings()[0].encode()


def flip(data, offset):
    b = bytearray(data)
    b[offset] ^= 0x01
    return bytes(b)


@pytest.fixture(scope="module")
def variants():
    """One byte changed in the kernel (its boot sector, which the 32-bit entry never runs), in the
    initrd (a comment of /init, in an uncompressed copy of the archive), and in the command line."""
    d = tempfile.mkdtemp()
    kernel = read(os.path.join(vtb.OUT, "bzImage"))
    at = 0x10
    cpio = gzip.decompress(read(os.path.join(vtb.OUT, "initrd.img")))
    comment = cpio.index(b"\n# ") + 3
    paths = {}
    for name, data in (("bzImage", kernel), ("bzImage-1", flip(kernel, at)),
                       ("initrd.cpio", cpio), ("initrd-1.cpio", flip(cpio, comment))):
        paths[name] = os.path.join(d, name)
        with open(paths[name], "wb") as f:
            f.write(data)
    yield paths
    shutil.rmtree(d)


LEGACY = ("--vtboot-cmdline", "logging=serial,memory loglvl=all pcr_map=legacy")


def boot_legacy(kernel, initrd, cmdline="console=ttyS0 panic=-1"):
    args = ("--kernel", kernel, "--initrd", initrd, "--cmdline", cmdline, *LEGACY)
    run = boot(*args)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    pcrs = vtb.guest_pcrs(run)
    assert pcrs == predictions(*args, legacy=True)
    return pcrs


def differing(a, b):
    return sorted({pcr for (pcr, bank) in a if a[(pcr, bank)] != b[(pcr, bank)]})


def test_one_byte_changes_exactly_its_pcr(variants):
    """With tboot's legacy map the kernel (and its command line) is in PCR 18, the initrd in 19."""
    base = boot_legacy(variants["bzImage"], variants["initrd.cpio"])
    kernel = boot_legacy(variants["bzImage-1"], variants["initrd.cpio"])
    initrd = boot_legacy(variants["bzImage"], variants["initrd-1.cpio"])
    cmdline = boot_legacy(variants["bzImage"], variants["initrd.cpio"], "console=ttyS0 panic=-2")
    assert differing(base, kernel) == [18]
    assert differing(base, initrd) == [19]
    assert differing(base, cmdline) == [18]


def test_no_drtm_leaves_pcr17_unlaunched():
    run = boot("--no-drtm")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(
        r"^ERROR: NO DYNAMIC LAUNCH: no virtual SENTER channel \(platform without TXT\)$")
    assert run.has_vtboot_line(r"^ERROR: UNMEASURED LAUNCH: PCRs 17-19 untouched")
    for bank in ("sha1", "sha256"):
        for pcr in (17, 18, 19):
            assert run.guest[f"pcr-{bank}-{pcr}"] == ALL_FF[bank]
    assert vtb.parse_ext(run).flags == vtb.EXT_TPM
    assert "tboot: found shared page at phys addr" in run.serial   # unmeasured, but tboot-enabled


def test_no_tpm():
    run = boot("--no-tpm")
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^ERROR: TPM: no TPM at 0xfed40000 \(DID/VID reads 0x[0-9a-f]{8}\)$")
    assert run.has_vtboot_line(r"^ERROR: UNMEASURED LAUNCH: no TPM")
    assert run.guest["tpm"] == "absent"
    assert vtb.parse_ext(run).flags == 0
