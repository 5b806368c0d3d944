# SPDX-License-Identifier: MIT
"""Issue 39 item 3: tboot's verified launch policy on TPM 2.0, on the emulated TXT platform.

Debian's unmodified tboot, launched by our SINIT into Debian's kernel through GRUB (multiboot2,
the layout of 20_linux_tboot), reads its policy from the NV index our SINIT's TPM info names
(0x01C10131, tpm_nv_index_set; the launcher's --policy writes it). The policies are Debian's
tb_polgen's, as tboot documents them (docs/policy_v2.txt, tb_polgen(8)): module 0 (the kernel)
and module 1 (the initrd) by `--hash image` with their command lines, SHA-256. tboot hashes a
module as H(H(its command line) || H(its bytes as loaded)) (common/policy.c hash_module(); GRUB
passes no file name, so the command line is the kernel's own, "" for the initrd) and prints each
policy entry's hashes when it reads the policy; the tests recompute them here.

- halt, the right kernel (into PCR 18 as well as tboot's PCR 17) and initrd (into PCR 19):
  both verified, tboot's list of what it extends recomputed, Linux boots, PCRs 17-19 equal
  `vtboot-pcr predict --sinit --policy` (the control of the next two);
- halt, a kernel changed in one byte: tboot says "verification failed" for module 0, caps the
  dynamic PCRs and halts; Linux never runs;
- halt, the right kernel under another command line (the hash covers it): the same halt;
- continue (`tb_polgen --create --type continue`), the changed kernel: tboot documents the type
  as "ignoring verification errors and halting otherwise" (tb_polgen(8); policy.c's map:
  TB_ERR_MODULE_VERIFICATION_FAILED -> continue): the same failure is printed, Linux boots, and
  PCRs 17 and 18 hold the changed kernel's hash (tboot records a module's hash before it
  checks it), so the PCRs equal the prediction for the changed kernel, not for the policy's;
- continue, "halting otherwise": a policy without an entry for the initrd
  (TB_ERR_MODULES_NOT_IN_POLICY) halts, PCRs capped; the control, nonfatal, boots on with the
  initrd measured nowhere (PCRs 17-19 as predicted).
"""
import hashlib
import os

import pytest

import vtb
from test_txt_launch import TBOOT_HALTED, TBOOT_HALTS, tboot_lines
from test_txt_sinit import (CMDLINE, SINIT, boot_with, guest_pcrs, need, polgen,
                            prediction)

LOADER = "--grub"
INITRD = os.path.join(vtb.OUT, "initrd.img")
OTHER_CMDLINE = CMDLINE + " quiet"
VERIFY_FAILED = "verifying module against policy failed."
PCRS = (17, 18, 19)


def module_hash(cmdline, path):
    """tboot's hash of a module (policy.c hash_module(), SHA-256)."""
    return hashlib.sha256(hashlib.sha256(cmdline.encode()).digest() +
                          hashlib.sha256(vtb.image_bytes(path)).digest()).hexdigest()


def spaced(digest):
    """A digest as tboot's print_hex() prints it: bytes in hex, each followed by a space."""
    return "".join(digest[i:i + 2] + " " for i in range(0, len(digest), 2))


def strings(kernel, cmdline=CMDLINE):
    """The command lines tboot gets for the kernel and the initrd through GRUB."""
    return vtb.module_strings("--txt", LOADER, "--kernel", kernel, "--cmdline", cmdline)[:2]


def vl_policy(path, ptype, kernel):
    """tb_polgen's policy of type ptype: module 0 this kernel under CMDLINE into PCR 18 (as
    well: tboot's DA mapping puts module 0 into PCR 17 anyway), module 1 the test initrd into
    PCR 19, by their image hashes."""
    kernel_str, initrd_str = strings(kernel)
    polgen(path, ["--create", "--type", ptype, "--alg", "sha256"],
           ["--add", "--num", "0", "--pcr", "18", "--hash", "image", "--cmdline", kernel_str,
            "--image", kernel],
           ["--add", "--num", "1", "--pcr", "19", "--hash", "image", "--cmdline", initrd_str,
            "--image", INITRD])
    return path


def changed_kernel(tmp_path):
    """Debian's kernel with one byte of its compressed payload flipped (the setup header and
    the code GRUB reads stay as they are)."""
    data = bytearray(vtb.image_bytes(vtb.debian_generic_kernel()))
    data[len(data) - 0x1000] ^= 0x01
    path = tmp_path / "vmlinuz-changed"
    path.write_bytes(bytes(data))
    return str(path)


def boot(policy, kernel, cmdline=CMDLINE):
    run = boot_with(need(SINIT, "make out/sinit.bin"), LOADER, cmdline, kernel=kernel,
                    policy=policy)
    run.loader, run.cmdline, run.kernel, run.initrd = LOADER, cmdline, kernel, INITRD
    return run


def policy_read(run):
    """The policy tboot read from NV and printed in the launched environment: its type and each entry's
    (mod_num, pcr, hashes)."""
    tb = tboot_lines(run)
    i = tb.index("policy:", tb.index("executing GETSEC[SENTER]..."))
    assert tb[i + 1:i + 4] == ["\t version: 2", tb[i + 2], "\t hash_alg: TB_HALG_SHA256"], \
        tb[i:i + 6]
    ptype = tb[i + 2].split(": ")[1]
    entries = []
    for j, l in enumerate(tb[i:i + 40]):
        if l.startswith("\t policy entry["):
            e = tb[i + j + 1:i + j + 6]
            entries.append((e[0].split(": ")[1], e[1].split(": ")[1], e[2].split(": ")[1],
                            e[4].split(": ")[1]))
    return ptype, entries


def verification(run):
    """tboot's module verification after the launch as it printed it (the command line chunks
    of a module come on lines of their own, without tboot's prefix): from "verifying policy"
    to its verdict."""
    lines = run.serial.splitlines()
    i = lines.index("TBOOT: measured launch succeeded")
    i = lines.index("TBOOT: verifying policy ", i)
    out = []
    for l in lines[i:]:
        out.append(l)
        if l in ("TBOOT: all modules are verified", TBOOT_HALTS):
            return out
    return out


def vl_measurements(run):
    """tboot's list of what it extends (pre_k_s3_state's "VL measurements"): (pcr, sha256)."""
    tb = tboot_lines(run)
    i = tb.index("\t VL measurements:")
    out = []
    for a, b in zip(tb[i + 1::2], tb[i + 2::2]):
        if not a.startswith("\t   PCR "):
            break
        assert a.endswith(" (alg count 1):") and b.startswith("\t\t   alg 000B: "), (a, b)
        out.append((int(a.split()[1]), b.split(": ")[1].replace(" ", "")))
    return out


def policy_hash_entry(policy):
    """tboot's first VL measurement: H(policy_control || H(the policy)) (verify_g_policy)."""
    with open(policy, "rb") as f:
        pol = f.read()
    return hashlib.sha256((1).to_bytes(4, "little") + hashlib.sha256(pol).digest()).hexdigest()


def assert_halted_at_module_0(run):
    """tboot's failed check of module 0 under the halt policy: the dynamic PCRs capped, then
    the halt; Linux never ran."""
    assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    kernel_str = strings(run.kernel, run.cmdline)[0]
    v = verification(run)
    assert v[:5] == ["TBOOT: verifying policy ", 'TBOOT: verifying module "',
                     f'{kernel_str}"...', "TBOOT: \t verification failed",
                     "TBOOT: " + VERIFY_FAILED], "\n".join(v)
    assert v[-1] == TBOOT_HALTS
    tb = [l[len("TBOOT: "):] for l in v if l.startswith("TBOOT: ")]
    assert "cap'ed dynamic PCRs" in tb, "\n".join(v)
    assert "all modules are verified" not in tb and "OK : " not in "".join(v)
    assert not run.linux_ran()


@pytest.fixture(scope="module")
def debian():
    return vtb.debian_generic_kernel()


@pytest.fixture(scope="module")
def good(debian, tmp_path_factory):
    """The halt policy with Debian's kernel's and the initrd's hashes, and the boot under it."""
    pol = vl_policy(str(tmp_path_factory.mktemp("pol") / "halt.pol"), "halt", debian)
    run = boot(pol, debian)
    run.pol = pol
    return run


@pytest.mark.slow
def test_halt_policy_with_the_kernels_and_initrds_hashes_boots(good, debian):
    """The control of the halts: the policy as tboot read it from NV holds our hashes, both
    modules verify, tboot extends the policy's and the modules' hashes, Linux boots, and PCRs
    17 and 18 equal vtboot-pcr's prediction."""
    run = good
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    kernel_str, initrd_str = strings(debian)
    h0, h1 = module_hash(kernel_str, debian), module_hash(initrd_str, INITRD)
    assert policy_read(run) == ("TB_POLTYPE_HALT", [
        ("0", "18", "TB_HTYPE_IMAGE", spaced(h0)), ("1", "19", "TB_HTYPE_IMAGE", spaced(h1))])
    assert verification(run) == [
        "TBOOT: verifying policy ", 'TBOOT: verifying module "', f'{kernel_str}"...',
        f"TBOOT: \t OK : {spaced(h0)}", 'TBOOT: verifying module ""...',
        f"TBOOT: \t OK : {spaced(h1)}", "TBOOT: all modules are verified"]
    p = policy_hash_entry(run.pol)
    assert vl_measurements(run) == [(17, p), (18, p), (17, h0), (18, h0), (19, h1)]
    assert run.linux_ran()
    assert guest_pcrs(run, PCRS) == prediction(run, pcrs=PCRS)


def test_halt_policy_stops_a_changed_kernel(debian, tmp_path):
    pol = vl_policy(str(tmp_path / "halt.pol"), "halt", debian)
    run = boot(pol, changed_kernel(tmp_path))
    assert_halted_at_module_0(run)


def test_halt_policy_stops_the_kernel_under_another_command_line(debian, tmp_path):
    """The kernel's hash covers its command line: the same file with " quiet" added."""
    pol = vl_policy(str(tmp_path / "halt.pol"), "halt", debian)
    run = boot(pol, debian, OTHER_CMDLINE)
    assert strings(debian, OTHER_CMDLINE)[0] == OTHER_CMDLINE
    assert_halted_at_module_0(run)


@pytest.mark.slow
def test_continue_policy_boots_a_changed_kernel_measured_as_it_is(good, debian, tmp_path):
    """`tb_polgen --type continue`: the failure is printed as under halt, then tboot goes on;
    the changed kernel's hash (not the policy's) is what PCR 17 holds."""
    pol = vl_policy(str(tmp_path / "continue.pol"), "continue", debian)
    bad = changed_kernel(tmp_path)
    run = boot(pol, bad)
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    kernel_str, initrd_str = strings(debian)
    h0, h1 = module_hash(kernel_str, debian), module_hash(initrd_str, INITRD)
    hbad = module_hash(kernel_str, bad)
    assert policy_read(run) == ("TB_POLTYPE_CONT_VERIFY_FAIL", [
        ("0", "18", "TB_HTYPE_IMAGE", spaced(h0)), ("1", "19", "TB_HTYPE_IMAGE", spaced(h1))])
    assert verification(run) == [
        "TBOOT: verifying policy ", 'TBOOT: verifying module "', f'{kernel_str}"...',
        "TBOOT: \t verification failed", "TBOOT: " + VERIFY_FAILED,
        'TBOOT: verifying module ""...', f"TBOOT: \t OK : {spaced(h1)}",
        "TBOOT: all modules are verified"]
    p = policy_hash_entry(pol)
    assert vl_measurements(run) == [(17, p), (18, p), (17, hbad), (18, hbad), (19, h1)]
    assert run.linux_ran() and "tboot: found shared page" in run.serial
    got = guest_pcrs(run, PCRS)
    assert got == prediction(run, pcrs=PCRS)
    # the same policy's prediction for the kernel it names differs in PCRs 17 and 18, in the
    # bank tboot extends
    run.kernel = debian
    want_good = prediction(run, pcrs=PCRS)
    assert [k for k in got if got[k] != want_good[k]] == [(17, "sha256"), (18, "sha256")]


def kernel_only_policy(path, ptype, kernel):
    """tb_polgen's policy of type ptype naming module 0 (this kernel, by hash) and nothing for
    module 1."""
    polgen(path, ["--create", "--type", ptype, "--alg", "sha256"],
           ["--add", "--num", "0", "--pcr", "none", "--hash", "image", "--cmdline",
            strings(kernel)[0], "--image", kernel])
    return path


@pytest.mark.parametrize("ptype", ["continue", "nonfatal"])
def test_a_module_the_policy_does_not_name(ptype, debian, tmp_path):
    """The other half of continue's documentation, "halting otherwise": the initrd has no
    entry (TB_ERR_MODULES_NOT_IN_POLICY, not a verification error), so tboot halts, PCRs
    capped. The control, nonfatal ("ignoring all non-fatal errors"), boots on with the same
    line printed, the initrd measured nowhere."""
    pol = kernel_only_policy(str(tmp_path / f"{ptype}.pol"), ptype, debian)
    run = boot(pol, debian)
    kernel_str = strings(debian)[0]
    h0 = module_hash(kernel_str, debian)
    v = verification(run)
    assert v[:7] == ["TBOOT: verifying policy ", 'TBOOT: verifying module "', f'{kernel_str}"...',
                     f"TBOOT: \t OK : {spaced(h0)}",
                     "TBOOT: policy entry for module 1 not found",
                     "TBOOT: modules in mbi but not in policy.",
                     "TBOOT: all modules are verified" if ptype == "nonfatal" else
                     "TBOOT: wait until all APs ready for txt shutdown"], "\n".join(v)
    if ptype == "continue":
        assert run.rc == TBOOT_HALTED, run.stderr[-2000:] + "\n" + run.serial[-1500:]
        assert "TBOOT: cap'ed dynamic PCRs" in v and v[-1] == TBOOT_HALTS, "\n".join(v)
        assert not run.linux_ran()
        return
    assert run.rc == vtb.POWERED_OFF, run.stderr[-2000:] + "\n" + run.serial[-1500:]
    p = policy_hash_entry(pol)
    assert vl_measurements(run) == [(17, p), (18, p), (17, h0)]
    assert guest_pcrs(run, PCRS) == prediction(run, pcrs=PCRS)
