"""Launch control policy on the emulated TXT platform (issue 20): a policy made with Debian's
lcp2_crtpol and written with tpm2-tools to the TPM's PO index (0x01C10106) is what our SINIT
reads at locality 3 (docs/txt-platform.md 3.4 step 6) before it lets tboot run.

- A policy of type ANY allows the launch; the SINIT measures its control into PCR 17 (event
  0x40C) and its bytes into PCR 18 (0x411), asserted from the heap's event log against hashes
  of the file lcp2_crtpol wrote, and the log replays to the PCRs.
- A policy that asks for a newer SINIT (--minver 9; ours is version 1) fails the launch:
  ERRORCODE 0xC0050501 (LCP, minor 5), which Debian's txt-parse_err decodes, and a TXT reset;
  with `--reboot` the machine boots again in the same QEMU and tboot reports the error as on
  hardware (ERRORCODE decoded, TXT_RESET set, SENTER disabled) and, under the halt policy every
  TXT test runs, halts (its default policy would boot Linux unmeasured).

- A LIST policy with one MLE2 element (lcp2_mlehash's digest of tboot with its command line;
  lcp2_crtpolelt, lcp2_crtpollist, lcp2_crtpol's policy and data file, the data given to tboot
  as a module with --lcp-data) allows the launch, and PCRs 17/18 equal vtboot-pcr's prediction;
  the same for tboot with another command line fails it with ERRORCODE 0xC0020501 (MLE not
  allowed), which tboot's next boot reports.
- With no PO policy, the platform supplier's index (PS, 0x01C10103) decides: the same refusal
  from it carries index 1 in the ERRORCODE (0xC0420501).
"""
import hashlib
import os
import struct
import subprocess
import tempfile
import time

import pytest

import vtb
from test_txt_launch import TBOOT_HALTED, TBOOT_HALTS, tboot_lines
from test_txt_sinit import CMDLINE, TBOOT_CMDLINE, boot_with, need, prediction, SINIT

PO_INDEX = "0x01C10106"
PS_INDEX = "0x01C10103"


def list_of_mle(tmp, tboot_cmdline):
    """lcp2_*'s policy list (tmp/list.lst) of one MLE2 element: tboot's MLE with this command
    line as Debian's lcp2_mlehash hashes it (SHA-256)."""
    run = lambda *a: subprocess.run(list(a), check=True, capture_output=True, text=True)
    elf = os.path.join(tmp, "tboot.elf")
    with open(elf, "wb") as f:
        f.write(subprocess.run(["zcat", "/boot/tboot.gz"], check=True,
                               capture_output=True).stdout)
    digest = run("lcp2_mlehash", "--create", "--cmdline", tboot_cmdline, "--alg", "sha256",
                 elf).stdout.splitlines()[-1]
    with open(os.path.join(tmp, "mle.hash"), "w") as f:
        f.write(digest.strip() + "\n")
    run("lcp2_crtpolelt", "--create", "--type", "mle2", "--alg", "sha256", "--out",
        os.path.join(tmp, "mle.elt"), os.path.join(tmp, "mle.hash"))
    run("lcp2_crtpollist", "--create", "--listver", "0x200", "--out",
        os.path.join(tmp, "list.lst"), os.path.join(tmp, "mle.elt"))
    return os.path.join(tmp, "list.lst")


def tpm_state_with_policy(tmp, *crtpol_args, index=PO_INDEX):
    """A provisioned TPM state in tmp/st whose PO index (or PS_INDEX: the platform supplier's,
    defined under the platform hierarchy before any firmware locks it) holds lcp2_crtpol's
    policy (tmp/pol.pol; a LIST policy's data file is tmp/pol.data); its bytes."""
    state, pol = os.path.join(tmp, "st"), os.path.join(tmp, "pol.pol")
    subprocess.run([vtb.LAUNCHER, "--tpm-state", state, "--provision-only"], check=True,
                   capture_output=True)
    subprocess.run(["lcp2_crtpol", "--create", "--alg", "sha256", "--sign", "rsa-2048-sha256",
                    "--pol", pol, *crtpol_args], check=True, capture_output=True)
    sock = os.path.join(tmp, "tpm.sock")
    sw = subprocess.Popen(["swtpm", "socket", "--tpm2", "--tpmstate", f"dir={state}",
                           "--server", f"type=unixio,path={sock}",
                           "--ctrl", f"type=unixio,path={sock}.ctrl",
                           "--flags", "startup-clear,not-need-init"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if os.path.exists(sock) and os.path.exists(sock + ".ctrl"):
                break
            time.sleep(0.05)
        env = dict(os.environ, TPM2TOOLS_TCTI=f"swtpm:path={sock}")
        owner = "file:" + os.path.join(state, "vtboot-owner.auth")
        tpm2 = lambda *a: subprocess.run(list(a), check=True, capture_output=True, env=env)
        if index == PS_INDEX:
            hierarchy, attrs = ["-C", "p"], "ppwrite|ppread|authread|platformcreate"
        else:
            hierarchy, attrs = ["-C", "o", "-P", owner], "ownerwrite|ownerread|authread"
        tpm2("tpm2_nvdefine", index, *hierarchy, "-s", str(os.path.getsize(pol)), "-a", attrs)
        tpm2("tpm2_nvwrite", index, *hierarchy, "-i", pol)
        tpm2("tpm2_shutdown")
    finally:
        sw.terminate()
        sw.wait(timeout=10)
    with open(pol, "rb") as f:
        return state, f.read()


def predicted(run, pol_path):
    # what boot_with booted: Debian's kernel and the test initrd through GRUB's multiboot2
    run.loader, run.kernel = "--grub", vtb.debian_generic_kernel()
    run.initrd = os.path.join(vtb.OUT, "initrd.img")
    return prediction(run, "--lcp-policy", pol_path)


def sinit_lines(run):
    return [l for l in run.serial.splitlines() if l.startswith("sinit: ")]


def test_an_any_policy_allows_the_launch_and_is_measured():
    with tempfile.TemporaryDirectory() as tmp:
        state, pol = tpm_state_with_policy(tmp, "--type", "any", "--ctrl", "0x2")
        pol_path = os.path.join(tmp, "pol.pol")
        run = boot_with(need(SINIT, "make out/sinit.bin"), "--grub",
                        CMDLINE + " vtboot.guest=txt-evlog", "--tpm-state", state)
        log = os.path.join(tmp, "evlog.bin")
        with open(log, "wb") as f:
            f.write(bytes.fromhex("".join(run.values("txt-evlog"))))
        events = vtb.eventlog_events(log)
        replay = vtb.eventlog_pcrs(log)
        run.cmdline = CMDLINE + " vtboot.guest=txt-evlog"
        pred = predicted(run, pol_path)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert "sinit: launch control policy 0x01c10106 allows the MLE" in sinit_lines(run)
    assert "measured launch succeeded" in tboot_lines(run)
    # lcp_policy_t2 (include/abi/lcp.h): version 0x0300, hash_alg, policy_type ANY (1) at 4,
    # policy_control at 14
    assert struct.unpack_from("<HHB", pol, 0) == (0x300, 0xb, 1), pol.hex()
    control = struct.unpack_from("<I", pol, 22)[0]
    assert control == 2
    sha256 = lambda e: next(d["Digest"] for d in e["Digests"] if d["AlgorithmId"] == "sha256")
    # the SINIT's records (src/txt/drtm.c): 0x40C LCP_CONTROL_HASH fourth, 0x411 LCP_HASH last
    assert sha256(events[4]) == hashlib.sha256(struct.pack("<I", control)).hexdigest()
    assert sha256(events[7]) == hashlib.sha256(pol).hexdigest()
    got = {(p, b): run.guest.get(f"pcr-{b}-{p}") for p in (17, 18) for b in ("sha1", "sha256")}
    assert {(p, b): replay[b][p] for p in (17, 18) for b in ("sha1", "sha256")} == got
    # and vtboot-pcr predicts them from the files, the policy among them
    assert pred == got


def test_a_policy_asking_for_a_newer_sinit_fails_the_launch():
    with tempfile.TemporaryDirectory() as tmp:
        state, _ = tpm_state_with_policy(tmp, "--type", "any", "--minver", "9")
        run = boot_with(need(SINIT, "make out/sinit.bin"), "--grub", CMDLINE,
                        "--tpm-state", state, "--reboot")
    lines = sinit_lines(run)
    assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    # boot 1: the SINIT refuses, the platform resets (TXT reset); tboot never runs again
    assert lines[1:] == [
        "sinit: entered at 0x1fd00000, SENTER EDX 0x0",
        "sinit: ERROR: LCP index 0x01c10106: the policy asks for SINIT version 9, ours is 1; "
        "ERRORCODE 0xc0050501, TXT reset"], "\n".join(lines)
    assert "machine reset (QMP RESET at " in run.stderr
    tb = tboot_lines(run)
    first = tb.index("executing GETSEC[SENTER]...")
    # boot 2: tboot reports the failed launch as on hardware, does not try again, and halts
    # under the halt policy
    i = tb.index("TXT.ERRORCODE: 0xc0050501")
    assert i > first and tb[i + 1:i + 4] == [
        "AC module error : acm_type=0x1, progress=0x10, error=0x1",
        "LCP2 error:  minor error = 0x5, index = 0", "TXT.ESTS: 0x1"], tb[i:i + 5]
    k = tb.index("TXT_RESET.STS is set and SENTER is disabled (0x01)", i)
    assert tb.index(TBOOT_HALTS[len("TBOOT: "):], k) > k
    assert tb.count("executing GETSEC[SENTER]...") == 1
    assert "measured launch succeeded" not in tb
    assert not run.linux_ran()
    p = subprocess.run(["txt-parse_err", "0xc0050501"], check=True, capture_output=True,
                       text=True)
    assert [l.strip() for l in p.stdout.splitlines() if l.strip()] == [
        "ERRORCODE: 0xc0050501",
        "AC module error : acm_type=0x1, progress=0x10, error=0x1",
        "LCP2 error:  minor error = 0x5, index = 0"], p.stdout


def test_a_list_policy_naming_tboots_mle_allows_it():
    """A LIST policy whose one MLE2 element is lcp2_mlehash's digest of tboot with the command
    line it is given: tboot hands the data file (--lcp-data, its signature) to the SINIT in the
    heap, the SINIT checks the file against the policy's hash and finds the MLE it measured."""
    with tempfile.TemporaryDirectory() as tmp:
        lst = list_of_mle(tmp, TBOOT_CMDLINE)
        state, _ = tpm_state_with_policy(tmp, "--type", "list", "--data",
                                     os.path.join(tmp, "pol.data"), lst)
        run = boot_with(need(SINIT, "make out/sinit.bin"), "--grub", CMDLINE,
                        "--tpm-state", state, "--lcp-data", os.path.join(tmp, "pol.data"))
        run.cmdline = CMDLINE
        pred = predicted(run, os.path.join(tmp, "pol.pol"))
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert "sinit: launch control policy 0x01c10106 allows the MLE" in sinit_lines(run)
    assert "measured launch succeeded" in tboot_lines(run)
    assert {(p, b): run.guest.get(f"pcr-{b}-{p}") for p in (17, 18)
            for b in ("sha1", "sha256")} == pred


@pytest.mark.parametrize("index,errorcode", [(PO_INDEX, 0xc0020501), (PS_INDEX, 0xc0420501)],
                         ids=["PO", "PS"])
def test_a_list_policy_naming_another_mle_fails_the_launch(index, errorcode):
    """The same policy for tboot with another command line (another MLE digest): the SINIT
    refuses, ERRORCODE 0xC0020501 (LCP minor 2, MLE not allowed; docs 3.4's example), a TXT
    reset; tboot's next boot reports it and halts (the halt policy). PS: no PO policy, the
    platform supplier's index (0x01C10103) holds it: the SINIT reads PS when PO is absent and
    names it in the ERRORCODE (index 1: 0xC0420501)."""
    nr = [PO_INDEX, PS_INDEX].index(index)
    with tempfile.TemporaryDirectory() as tmp:
        lst = list_of_mle(tmp, TBOOT_CMDLINE + " loglvl=none")
        state, _ = tpm_state_with_policy(tmp, "--type", "list", "--data",
                                     os.path.join(tmp, "pol.data"), lst, index=index)
        run = boot_with(need(SINIT, "make out/sinit.bin"), "--grub", CMDLINE,
                        "--tpm-state", state, "--lcp-data", os.path.join(tmp, "pol.data"),
                        "--reboot")
    lines = sinit_lines(run)
    assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    assert lines[-1].startswith(f"sinit: ERROR: LCP index {int(index, 16):#010x}: ") and \
        lines[-1].endswith(f"; ERRORCODE {errorcode:#x}, TXT reset"), "\n".join(lines)
    tb = tboot_lines(run)
    i = tb.index(f"TXT.ERRORCODE: {errorcode:#x}")
    decoded = ["AC module error : acm_type=0x1, progress=0x10, error=0x1",
               f"LCP2 error:  minor error = 0x2, index = {nr}"]
    assert tb[i + 1:i + 3] == decoded, tb[i:i + 4]
    assert "measured launch succeeded" not in tb and not run.linux_ran()
    p = subprocess.run(["txt-parse_err", f"{errorcode:#x}"], check=True, capture_output=True,
                       text=True)
    assert [l.strip() for l in p.stdout.splitlines() if l.strip()][1:] == decoded, p.stdout
