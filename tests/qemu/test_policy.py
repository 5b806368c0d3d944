# SPDX-License-Identifier: MIT
"""Issue 4, verified launch policy: policies made with Debian's tb_polgen, written into the TPM's
NV index 0x01200001 by the launcher with tpm2-tools, enforced by vtboot as tboot does."""

import os
import subprocess

import pytest

import vtb
from vtb import boot

TB_POLGEN = "/usr/sbin/tb_polgen"


def read(path):
    with open(path, "rb") as f:
        return f.read()


def polgen(path, *args):
    subprocess.run([TB_POLGEN, *args, path], check=True, capture_output=True)


def make_policy(tmp_path, name, ptype, entries, alg="sha256"):
    """entries: (num, pcr, hash, cmdline, image) as tb_polgen --add takes them."""
    path = str(tmp_path / name)
    polgen(path, "--create", "--type", ptype, "--alg", alg)
    for num, pcr, htype, cmdline, image in entries:
        args = ["--add", "--num", str(num), "--pcr", str(pcr), "--hash", htype]
        if htype == "image":
            args += ["--cmdline", cmdline, "--image", image]
        polgen(path, *args)
    return path


def kernel_and_initrd():
    return os.path.join(vtb.OUT, "bzImage"), os.path.join(vtb.OUT, "initrd.img")


def exact_policy(tmp_path, ptype, *launch_args, kernel=None, initrd=None):
    """A policy with the right hashes of kernel+cmdline (module 0) and initrd (module 1)."""
    k, i = kernel_and_initrd()
    strings = vtb.module_strings(*launch_args)
    return make_policy(tmp_path, f"{ptype}.pol", ptype,
                       [(0, "none", "image", strings[0], kernel or k),
                        (1, 17, "image", strings[1], initrd or i)])


def expected_pcrs(policy, *launch_args):
    strings = vtb.module_strings(*launch_args)
    k, i = kernel_and_initrd()
    args = dict(zip(launch_args[::2], launch_args[1::2]))
    k, i = args.get("--kernel", k), args.get("--initrd", i)
    cmdline = subprocess.run([vtb.LAUNCHER, "--print-cmdline", *launch_args], check=True,
                             capture_output=True, text=True).stdout.rstrip("\n")
    modules = [(strings[0], vtb.image_bytes(k)), (strings[1], vtb.image_bytes(i))]
    ours = vtb.predict(modules, cmdline, policy=read(policy))
    tool = vtb.vtboot_pcr("--kernel", k, "--cmdline", strings[0], "--initrd", i,
                          "--initrd-cmdline", strings[1], "--vtboot-cmdline", cmdline,
                          "--policy", policy)
    assert ours == tool
    return ours


def test_matching_policy_boots(tmp_path):
    pol = exact_policy(tmp_path, "halt")
    run = boot("--policy", pol)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^policy: \d+ bytes from NV index 0x01200001: type halt, hash "
                               r"sha256, control 0x1, 2 entries$")
    assert run.has_vtboot_line(r"^module 0: verified, sha256 [0-9a-f]{64} matches the policy$")
    assert run.has_vtboot_line(r"^module 1: verified, sha256 [0-9a-f]{64} matches the policy$")
    assert vtb.guest_pcrs(run) == expected_pcrs(pol)
    assert vtb.parse_ext(run).flags & vtb.EXT_POLICY_NV


def test_matching_policy_through_grub(tmp_path):
    pol = exact_policy(tmp_path, "halt", "--grub")
    run = boot("--grub", "--policy", pol)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^module 1: verified")
    assert vtb.guest_pcrs(run) == expected_pcrs(pol, "--grub")


def flipped(tmp_path, path, name):
    data = bytearray(vtb.image_bytes(path))
    data[0x10 if name == "bzImage" else len(data) // 2] ^= 1
    out = tmp_path / name
    out.write_bytes(bytes(data))
    return str(out)


@pytest.mark.parametrize("what", ["kernel", "initrd", "cmdline"])
def test_halt_policy_stops_a_changed_module(tmp_path, what):
    pol = exact_policy(tmp_path, "halt")
    k, i = kernel_and_initrd()
    args = {"kernel": ("--kernel", flipped(tmp_path, k, "bzImage")),
            "initrd": ("--initrd", flipped(tmp_path, i, "initrd.img")),
            "cmdline": ("--cmdline", "console=ttyS0 panic=-2")}[what]
    run = boot("--policy", pol, *args)
    module = 1 if what == "initrd" else 0
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(rf"^ERROR: module {module}: verification FAILED, sha256 "
                               r"[0-9a-f]{64} is not among the policy's 1 hash\(es\)$")
    assert run.has_vtboot_line(r"^ERROR: module verification failed: the halt policy says halt$")
    assert run.has_vtboot_line(r"^ERROR: HALT: module verification failed$")
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(halt\)$")
    assert not run.linux_ran()


@pytest.mark.parametrize("ptype", ["continue", "nonfatal"])
def test_continue_policy_boots_a_changed_kernel(tmp_path, ptype):
    pol = exact_policy(tmp_path, ptype)
    k, _ = kernel_and_initrd()
    bad = flipped(tmp_path, k, "bzImage")
    run = boot("--policy", pol, "--kernel", bad)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^ERROR: module 0: verification FAILED")
    assert run.has_vtboot_line(rf"^WARNING: module verification failed: the {ptype} policy says "
                               r"continue$")
    got = vtb.guest_pcrs(run)
    assert got == expected_pcrs(pol, "--kernel", bad)
    assert got != expected_pcrs(pol)                 # the changed kernel shows in PCR 17


def corrupt(tmp_path, name, fn):
    """Damaged bytes of a halt policy: module 0 any hash, module 1 (the initrd) by its hash,
    12 + 8 + (8 + 32) = 60 bytes."""
    _, i = kernel_and_initrd()
    strings = vtb.module_strings()
    good = make_policy(tmp_path, "good.pol", "halt", [(0, "none", "any", "", ""),
                                                      (1, 17, "image", strings[1], i)])
    pol = bytearray(read(good))
    assert len(pol) == 60
    out = tmp_path / name
    out.write_bytes(bytes(fn(pol)))
    return str(out)


@pytest.mark.parametrize("name,fn,reason", [
    ("version", lambda p: p[:0] + b"\x03" + p[1:], "policy version 3, only version 2 is supported"),
    ("truncated", lambda p: p[:50], "policy entry 1: 1 hashes of 32 bytes do not fit in 50 bytes"),
    ("hash-size", lambda p: p[:2] + b"\x0c" + p[3:],
     "policy entry 1: 1 hashes of 48 bytes do not fit in 60 bytes"),
    ("entries", lambda p: p[:11] + b"\xc8" + p[12:], "policy entry 2 of 200: header truncated at byte 60"),
    ("header", lambda p: p[:11], "policy is 11 bytes, shorter than its 12-byte header"),
    ("type", lambda p: p[:1] + b"\x03" + p[2:], r"policy type 3 is not nonfatal \(0\), continue \(1\) or halt \(2\)"),
])
def test_corrupt_policy_in_nv(tmp_path, name, fn, reason):
    """An invalid policy in NV is reported and stops the boot, PCRs capped: vtboot fails
    closed where tboot 1.10 applies its default (nonfatal) policy."""
    run = boot("--policy", corrupt(tmp_path, name, fn))
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^ERROR: policy in NV index 0x01200001 is invalid: " + reason)
    assert run.has_vtboot_line(r"^ERROR: HALT: launch policy unusable$")
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(halt\)$")
    assert not run.has_vtboot_line(r"using tboot's default policy")
    assert not run.linux_ran()


def test_corrupt_nonfatal_policy_halts_too(tmp_path):
    """Whatever type the damaged policy would have had: a nonfatal policy whose hash algorithm
    is damaged halts as well."""
    run = boot("--policy", corrupt(tmp_path, "nonfatal-damaged",
                                   lambda p: p[:1] + b"\x00\x0c" + p[3:]))
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^ERROR: policy in NV index 0x01200001 is invalid: ")
    assert run.has_vtboot_line(r"^ERROR: HALT: launch policy unusable$")
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(halt\)$")
    assert not run.linux_ran()


# ---- the index belongs to the host (issue 19, item 5) ------------------------------------------

# vtboot-policy-attack's commands and the TPM's answers: TPM_RC_BAD_AUTH (0x0a2) for session 1
# where the owner's or the platform's authorization is wrong (hierarchies are exempt from
# dictionary-attack protection), TPM_RC_AUTH_UNAVAILABLE (0x12f) where the index allows no
# write with its own authorization, TPM_RC_AUTH_FAIL (0x08e) for session 1 for the lockout's
# (counted: the lockout authorization is then blocked for a while)
REFUSED = ["nv-write-owner rc=0x9a2", "nv-write-index rc=0x12f", "nv-undefine-owner rc=0x9a2",
           "changeauth-owner rc=0x9a2", "clear-lockout rc=0x98e", "clear-platform rc=0x9a2"]


def test_guest_cannot_rewrite_or_delete_the_policy(tmp_path):
    """Root in the guest tries, with the empty passwords, to rewrite the host's halt policy as
    nonfatal (with the owner's authorization and with the index's own), to delete it, to take
    the owner's authorization and to TPM2_Clear the TPM: the TPM refuses each. The next boot on
    the same TPM state runs under the host's policy (PCR 18 as predicted for it)."""
    _, i = kernel_and_initrd()
    strings = vtb.module_strings()
    pol = make_policy(tmp_path, "host.pol", "halt", [(0, "none", "any", "", ""),
                                                     (1, 17, "image", strings[1], i)])
    state = str(tmp_path / "tpm")
    attack = ("--cmdline", "console=ttyS0 panic=-1 vtboot.guest=policy-attack")
    run = boot("--tpm-state", state, "--policy", pol, *attack)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.values("policy-attack") == ["policy-type=2", *REFUSED, "policy-type=2"]
    assert run.guest["action-policy-attack-rc"] == "0"

    after = boot("--tpm-state", state)
    assert after.rc == vtb.POWERED_OFF, after.stderr
    assert after.has_vtboot_line(r"^policy: 60 bytes from NV index 0x01200001: type halt, hash "
                                 r"sha256, control 0x1, 2 entries$")
    assert vtb.guest_pcrs(after) == expected_pcrs(pol)
