# SPDX-License-Identifier: MIT
"""Issue 14: vtboot in a real installed guest. The Debian packages (make deb), and a Debian 12
disk image (scripts/build-disk-image.sh, cached) with the vtboot package installed by dpkg in
the guest and GRUB in its MBR, booted by `vtboot-qemu --disk` through the disk's own GRUB and
its "with vtboot" entry to systemd. Every expected value comes from the image's own files,
read back with debugfs (nothing is mounted)."""

import fcntl
import gzip
import hashlib
import os
import re
import subprocess
import tempfile

import pytest

import vtb

PART_OFFSET = 2048 * 512            # scripts/build-disk-image.sh: the root partition at 1 MiB
VTBOOT_CMDLINE = "logging=serial,memory"    # packaging/default/vtboot.cfg
BOOT_TIMEOUT = 900                  # a Debian systemd boot under TCG takes a minute or more
TB_POLGEN = "/usr/sbin/tb_polgen"
DEB_DIR = os.path.join(vtb.OUT, "deb")


# ---- the image ----------------------------------------------------------------------------

def make_env():
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES"):
        env.pop(k, None)
    return env


def make_disk_image(target="disk-image", name="disk.img", env_var="VTBOOT_DISK_IMAGE"):
    """make TARGET (make deb first), once per pytest worker; the lock keeps two workers
    from building the packages into OUT/deb at the same time (the image builder has its own).
    $env_var=FILE boots that image instead (a copy of one built so, for debugging). Returns
    OUT/disk/NAME's target."""
    if os.environ.get(env_var):
        return os.environ[env_var]
    os.makedirs(vtb.OUT, exist_ok=True)
    with open(os.path.join(vtb.OUT, ".disk-image.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # OUT= as VTBOOT_OUT says: pytest run by hand with VTBOOT_OUT alone once built the
        # image into out/ and booted the one in VTBOOT_OUT, which that build had evicted
        p = subprocess.run(["make", "--no-print-directory", "-s", "-C", vtb.ROOT,
                            f"OUT={os.path.abspath(vtb.OUT)}", target],
                           env=make_env(), capture_output=True, text=True, timeout=3600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-5000:]
    return os.path.realpath(os.path.join(vtb.OUT, "disk", name))


@pytest.fixture(scope="session")
def built():
    return make_disk_image()


class Image:
    """The root file system of a raw disk image, read with debugfs."""

    def __init__(self, path):
        self.path = path
        self.fs = f"{path}?offset={PART_OFFSET}"

    def debugfs(self, *cmds, write=False):
        """Runs debugfs commands (a command file) on the file system; returns their output."""
        with tempfile.NamedTemporaryFile("w", suffix=".cmds") as f:
            f.write("\n".join(cmds) + "\n")
            f.flush()
            return subprocess.run(["debugfs"] + (["-w"] if write else []) + ["-f", f.name,
                                  self.fs], capture_output=True, check=True).stdout

    def read(self, path):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "f")
            self.debugfs(f"dump {path} {out}")
            assert os.path.exists(out), f"{path} not in the image"
            with open(out, "rb") as f:
                return f.read()

    def dump(self, path, dest):
        with open(dest, "wb") as f:
            f.write(self.read(path))
        return dest

    def text(self, path):
        return self.read(path).decode()

    def ls(self, path):
        out = self.debugfs(f"ls -p {path}").decode()
        return sorted(f.split("/")[5] for f in out.splitlines() if f.count("/") >= 6
                      and f.split("/")[5] not in (".", ".."))

    def write(self, path, data):
        with tempfile.NamedTemporaryFile(suffix=".new") as f:
            f.write(data)
            f.flush()
            self.debugfs(f"rm {path}", f"write {f.name} {path}", write=True)
        assert self.read(path) == data


@pytest.fixture(scope="session")
def image(built):
    return Image(built)


# ---- grub.cfg -----------------------------------------------------------------------------

def grub_entries(cfg):
    """{id: (title, [lines])} of every menuentry, and the submenus' ids in order."""
    entries, submenus = {}, []
    cur = None
    for line in cfg.splitlines():
        s = line.strip()
        m = re.match(r"^submenu '([^']*)' .*\$menuentry_id_option '([^']+)'", s)
        if m:
            submenus.append(m.group(2))
            continue
        m = re.match(r"^menuentry '([^']*)' .*\$menuentry_id_option '([^']+)'", s)
        if m:
            cur = m.group(2)
            entries[cur] = (m.group(1), [])
            continue
        if cur and s == "}":
            cur = None
        elif cur:
            entries[cur][1].append(s)
    return entries, submenus


def vtboot_entries(cfg):
    entries, _ = grub_entries(cfg)
    return {k: v for k, v in entries.items() if k.startswith("vtboot-")}


def grub_words(line):
    """A grub.cfg command's words as GRUB passes them to the loader (the entries quote nothing:
    GRUB splits at whitespace and joins the arguments with one space)."""
    return line.split()


def entry_files(lines):
    """(vtboot path, its args), (kernel path, its module string), (initrd path, its string)."""
    mb = [grub_words(l) for l in lines if l.startswith("multiboot2")]
    mods = [grub_words(l) for l in lines if l.startswith("module2")]
    assert len(mb) == 1 and len(mods) == 2, lines
    return [(w[1], " ".join(w[2:])) for w in mb + mods]


def kernels_in(image):
    """Kernel versions in /boot, and which have CONFIG_INTEL_TXT=y (20_linux_vtboot's rule)."""
    boot = image.ls("/boot")
    versions = sorted(f[len("vmlinuz-"):] for f in boot if f.startswith("vmlinuz-"))
    txt = [v for v in versions
           if "CONFIG_INTEL_TXT=y" in image.text(f"/boot/config-{v}").splitlines()]
    return versions, txt


# ---- booting the image --------------------------------------------------------------------

def overlay(base, tmp):
    """A qcow2 overlay on the cached raw image, so that boots never change it."""
    path = os.path.join(tmp, "guest.qcow2")
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b", base, path],
                   check=True)
    return path


def action_args(action):
    # report.sh reads what to do from QEMU's fw_cfg
    return ["--", "-fw_cfg", f"name=opt/vtboot/action,string={action}"]


def disk_report_lines(run):
    """(key, value) of each report.sh line; a line may follow what another writer on ttyS0 left
    without a newline (the serial getty's "vtboot-guest login: " prompt)."""
    out = []
    for l in run.serial.splitlines():
        m = re.search(r"VTBOOT-DISK: ([a-z.-]+): ?(.*)$", l)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def disk_lines(run, key):
    return [v for k, v in disk_report_lines(run) if k == key]


def disk_value(run, key):
    v = disk_lines(run, key)
    assert v, f"no 'VTBOOT-DISK: {key}:' line; serial tail:\n{run.serial[-4000:]}"
    return v


REPORT_KEYS = ("init", "kernel", "cmdline", "multi-user.target", "dmesg", "pcrread", "stat",
               "eventlog")


def report(run, which, keys=REPORT_KEYS):
    """The report lines between 'report: which' and 'report-end: which'; each of keys there."""
    lines = disk_report_lines(run)
    assert ("report", which) in lines and ("report-end", which) in lines, run.serial[-5000:]
    out = {}
    for k, v in lines[lines.index(("report", which)) + 1:lines.index(("report-end", which))]:
        out.setdefault(k, []).append(v)
    for k in keys:
        assert k in out, (k, out)
    return out


def pcrread(lines):
    """tpm2_pcrread sha256:17,18,19 output -> {pcr: hex}."""
    out = {}
    for l in lines:
        m = re.match(r"^\s*(\d+)\s*:\s*0x([0-9A-Fa-f]+)$", l)
        if m:
            out[int(m.group(1))] = m.group(2).lower()
    return out


def eventlog_replay(lines):
    """tpm2_eventlog's 'pcrs:' section -> {(bank, pcr): hex}."""
    out, bank = {}, None
    for l in lines:
        m = re.match(r"^\s*(sha1|sha256|sha384|sha512)\s*:\s*$", l)
        if m:
            bank = m.group(1)
            continue
        m = re.match(r"^\s*(\d+)\s*:\s*0x([0-9A-Fa-f]+)$", l)
        if m and bank:
            out[(bank, int(m.group(1)))] = m.group(2).lower()
    return out


def vtboot_modules(run):
    """vtboot's 'module N: 0x... - 0x... (N bytes) 'string'' lines -> [(size, string)]."""
    out = []
    for l in run.vtboot_lines():
        m = re.match(r"^module (\d+): 0x[0-9a-f]+ - 0x[0-9a-f]+ \((\d+) bytes\) '(.*)'$", l)
        if m:
            assert int(m.group(1)) == len(out)
            out.append((int(m.group(2)), m.group(3)))
    return out


class Guest:
    """The default vtboot entry of the image and its files, extracted into tmp."""

    def __init__(self, image, tmp):
        self.image = image
        cfg = image.text("/boot/grub/grub.cfg")
        default = re.search(r'^GRUB_DEFAULT="?([^"\n]+)"?$',
                            image.text("/etc/default/grub.d/50-vtboot-test-image.cfg"), re.M)
        self.entry_id = default.group(1).split(">")[1]
        self.version = self.entry_id[len("vtboot-"):]
        self.lines = vtboot_entries(cfg)[self.entry_id][1]
        (vt, self.vtboot_cmdline), (k, self.kernel_cmdline), (i, self.initrd_cmdline) = \
            entry_files(self.lines)
        self.vtboot = image.dump(vt, os.path.join(tmp, "vtboot.gz"))
        self.kernel = image.dump(k, os.path.join(tmp, os.path.basename(k)))
        self.initrd = image.dump(i, os.path.join(tmp, os.path.basename(i)))
        self.vtboot_elf = os.path.join(tmp, "vtboot")
        with open(self.vtboot_elf, "wb") as f:
            f.write(gzip.decompress(open(self.vtboot, "rb").read()))

    def predict(self, policy=None):
        """PCRs 17-19 by vtboot-pcr, checked against the tests' own model (vtb.predict)."""
        args = ["--vtboot", self.vtboot, "--vtboot-cmdline", self.vtboot_cmdline,
                "--kernel", self.kernel, "--cmdline", self.kernel_cmdline,
                "--initrd", self.initrd, "--initrd-cmdline", self.initrd_cmdline]
        if policy:
            args += ["--policy", policy]
        tool = vtb.vtboot_pcr(*args)
        modules = [(self.kernel_cmdline, vtb.image_bytes(self.kernel)),
                   (self.initrd_cmdline, vtb.image_bytes(self.initrd))]
        kw = {"policy": open(policy, "rb").read()} if policy else {}
        ours = predict_with_elf(modules, self.vtboot_cmdline, self.vtboot_elf, **kw)
        assert tool == ours
        return tool


def predict_with_elf(modules, cmdline, elf, **kw):
    """vtb.predict with the MLE of this vtboot ELF (vtb's default is out/vtboot)."""
    return vtb.predict(modules, cmdline, elf_path=elf, **kw)


@pytest.fixture
def guest(image):
    with tempfile.TemporaryDirectory() as tmp:
        yield Guest(image, tmp)


def boot_disk(disk, *args, action="poweroff"):
    with tempfile.TemporaryDirectory() as tmp:
        return vtb.boot("--disk", overlay(disk, tmp), *args, *action_args(action),
                        timeout=BOOT_TIMEOUT)


def check_boot_report(run, guest, which, pcrs):
    rep = report(run, which)
    assert rep["init"] == ["systemd"]
    assert rep["multi-user.target"] == ["active"]
    assert rep["kernel"] == [guest.version]
    # Linux got module 0's string as its command line, verbatim
    assert rep["cmdline"] == [guest.kernel_cmdline]
    # the kernel's tboot lines (Linux 6.1 tboot_probe): it found vtboot's shared page
    assert [l.split("] ", 1)[1] for l in rep["dmesg"]] == [
        "tboot: found shared page at phys addr 0x801000:"]
    # vtboot-stat (the package's guest tool) reads the launch state
    assert "shared page: 0x00801000" in rep["stat"]
    assert any(re.match(r"^  flags: 0x[0-9a-f]{8} tpm launched measured", l) for l in rep["stat"])
    # tpm2_pcrread in the guest: PCR 17 and 18 (and 19) as predicted from the image's files
    got = pcrread(rep["pcrread"])
    assert {p: got[p] for p in (17, 18, 19)} == {p: pcrs[(p, "sha256")] for p in (17, 18, 19)}
    # and the D-RTM event log vtboot-stat extracted replays to them (tpm2_eventlog)
    replay = eventlog_replay(rep["eventlog"])
    assert {p: replay[("sha256", p)] for p in (17, 18)} == {p: got[p] for p in (17, 18)}
    return rep


def check_grub_passed_the_entry(run, guest):
    assert run.has_vtboot_line(r"^loader: GRUB 2\.06[^ ]* \(multiboot2\)$")
    assert run.has_vtboot_line(rf"^command line: {re.escape(guest.vtboot_cmdline)}$")
    mods = vtboot_modules(run)
    assert [s for _, s in mods] == [guest.kernel_cmdline, guest.initrd_cmdline]
    assert mods[0][0] == os.path.getsize(guest.kernel)
    assert mods[1][0] == len(vtb.image_bytes(guest.initrd))


def check_powered_off_through_vtboot(run):
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert run.has_vtboot_line(r"^shutdown_entry: S5 \(power off\) \(type 1\) on CPU 0$")
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(power off\)$")


# ---- tests --------------------------------------------------------------------------------

@pytest.mark.slow
def test_disk_boots_its_grub_vtboot_entry_to_systemd(image, guest):
    """The user's recipe: the installed guest's disk, its own GRUB, the vtboot entry update-grub
    wrote, no policy; PCR 17/18 in the guest equal vtboot-pcr's prediction from the image's own
    vtboot.gz, kernel, initrd and the exact strings GRUB passed."""
    pcrs = guest.predict()
    run = boot_disk(image.path)
    check_grub_passed_the_entry(run, guest)
    assert run.has_vtboot_line(r"^transferring control to Linux at ")
    check_boot_report(run, guest, "boot", pcrs)
    assert disk_value(run, "action") == ["poweroff"]
    check_powered_off_through_vtboot(run)


def test_update_grub_writes_an_entry_per_kernel(image):
    """What the image's setup boot did, step by step (scripts/disk-image/setup.sh), on a
    system with two kernels: grub.cfg after update-grub without vtboot, after `dpkg -i
    vtboot` (an entry pair per kernel), after `dpkg -r vtboot`, after installing it again."""
    versions, txt = kernels_in(image)
    assert len(versions) == 2 and txt == versions, versions      # amd64 and rt-amd64, both TXT
    uuid = image.text("/etc/fstab").split()[0][len("UUID="):]
    cfg = {s: image.text(f"/var/lib/vtboot-image/grub.cfg.{s}")
           for s in ("initial", "vtboot", "removed", "final")}
    assert vtboot_entries(cfg["initial"]) == {} and "vtboot.gz" not in cfg["initial"]
    first = [v for v in versions if v.endswith("-amd64") and not v.endswith("-rt-amd64")]

    def expect(vs):
        out = {}
        for v in vs:
            for rec in (False, True):
                args = f"root=UUID={uuid} ro " + ("single console=ttyS0,115200" if rec
                                                  else "console=ttyS0,115200 quiet")
                out[f"vtboot-{v}" + ("-recovery" if rec else "")] = [
                    ("/boot/vtboot.gz", VTBOOT_CMDLINE), (f"/boot/vmlinuz-{v}", args),
                    (f"/boot/initrd.img-{v}", "")]
        return out

    def got(c):
        return {k: entry_files(lines) for k, (_, lines) in vtboot_entries(c).items()}

    assert len(first) == 1, versions
    assert got(cfg["vtboot"]) == expect(versions)
    assert got(cfg["removed"]) == {} and "vtboot.gz" not in cfg["removed"]
    assert got(cfg["final"]) == expect(versions)
    assert image.text("/boot/grub/grub.cfg") == cfg["final"]
    # the entries' shape: 20_linux_tboot's, in a "vtboot" submenu, titles naming both versions
    entries, submenus = grub_entries(cfg["final"])
    assert "vtboot" in submenus
    title, lines = entries[f"vtboot-{first[0]}"]
    assert re.match(rf"^Debian GNU/Linux, with vtboot [^ ]+ and Linux {re.escape(first[0])}$", title)
    assert "insmod multiboot2" in lines and "insmod gzio" in lines
    # Debian's own entries are untouched by the package's removal
    for c in cfg.values():
        assert f"/boot/vmlinuz-{first[0]}" in c
    # the package as dpkg has it, and the file it installed
    status = image.text("/var/lib/dpkg/status")
    assert re.search(r"^Package: vtboot\nStatus: install ok installed$", status, re.M)
    deb = [f for f in os.listdir(DEB_DIR) if re.match(r"^vtboot_.*_amd64\.deb$", f)][0]
    data = subprocess.run(["dpkg-deb", "--fsys-tarfile", os.path.join(DEB_DIR, deb)],
                          check=True, capture_output=True).stdout
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "data.tar"), "wb") as f:
            f.write(data)
        subprocess.run(["tar", "-xf", "data.tar", "./boot/vtboot.gz"], cwd=d, check=True)
        assert image.read("/boot/vtboot.gz") == open(os.path.join(d, "boot", "vtboot.gz"), "rb").read()
    # GRUB's boot.img in the MBR (the partition table kept), core.img after it
    with open(image.path, "rb") as f:
        mbr = f.read(1024)
    assert mbr[510:512] == b"\x55\xaa" and b"GRUB \0" in mbr[:440]
    assert mbr[0x1be] == 0x80 and mbr[0x1be + 4] == 0x83          # bootable, Linux


def tb_polgen(path, *args):
    subprocess.run([TB_POLGEN, *args, path], check=True, capture_output=True)


def halt_policy(guest, path):
    """tb_polgen's halt policy for the image's default entry: kernel + its command line (module
    0, as GRUB passes it), initrd (module 1, empty string)."""
    tb_polgen(path, "--create", "--type", "halt", "--alg", "sha256")
    tb_polgen(path, "--add", "--num", "0", "--pcr", "none", "--hash", "image",
              "--cmdline", guest.kernel_cmdline, "--image", guest.kernel)
    tb_polgen(path, "--add", "--num", "1", "--pcr", "17", "--hash", "image",
              "--cmdline", guest.initrd_cmdline, "--image", guest.initrd)
    return path


def test_halt_policy_stops_an_edited_kernel_command_line(image, guest, tmp_path):
    """The policy made for the image's kernel and command line, the same image with one word
    added to the Linux line of its vtboot entry (what anyone at GRUB's menu can do): vtboot
    names the mismatch, caps the PCRs and powers off; Linux never runs. (Its positive control,
    the same policy booting the unedited entry, is the S3 test.)"""
    pol = halt_policy(guest, str(tmp_path / "halt.pol"))
    copy = str(tmp_path / "edited.img")
    subprocess.run(["cp", "--sparse=always", image.path, copy], check=True)
    edited = Image(copy)
    cfg = edited.text("/boot/grub/grub.cfg")
    old = f"{guest.kernel_cmdline}\n"
    line = [l for l in cfg.splitlines(True) if l.lstrip().startswith("module2")
            and l.endswith(old) and f"vmlinuz-{guest.version} " in l]
    assert len(line) == 1, line       # the default entry's line (recovery says "single")
    evil = guest.kernel_cmdline + " init=/bin/sh"
    edited.write("/boot/grub/grub.cfg",
                 cfg.replace(line[0], line[0][:-len(old)] + evil + "\n").encode())

    run = vtb.boot("--disk", copy, "--policy", pol, *action_args("poweroff"),
                   timeout=BOOT_TIMEOUT)
    assert run.rc == vtb.POWERED_OFF, run.stderr
    assert [s for _, s in vtboot_modules(run)] == [evil, ""]
    h = hashlib.sha256
    digest = h(h(evil.encode()).digest() + h(vtb.image_bytes(guest.kernel)).digest()).hexdigest()
    assert run.has_vtboot_line(rf"^ERROR: module 0: verification FAILED, sha256 {digest} is not "
                               r"among the policy's 1 hash\(es\)$")
    assert run.has_vtboot_line(r"^ERROR: HALT: module verification failed$")
    assert run.has_vtboot_line(r"^capped PCRs 17-19 \(halt\)$")
    assert not run.has_vtboot_line(r"^transferring control to Linux")
    assert "VTBOOT-DISK:" not in run.serial


@pytest.mark.slow
def test_s3_from_the_installed_system(image, guest, tmp_path):
    """`systemctl suspend` in the installed system (the halt policy of the image's own entry
    provisioned: it boots), woken over QMP: vtboot verifies the memory, re-launches and resumes
    Linux; the PCRs are back at the launch's values, and the system powers off through vtboot."""
    pol = halt_policy(guest, str(tmp_path / "halt.pol"))
    pcrs = guest.predict(policy=pol)
    with tempfile.TemporaryDirectory() as tmp:
        r = vtb.Running("--disk", overlay(image.path, tmp), "--policy", pol,
                        *action_args("s3"), timeout=BOOT_TIMEOUT)
        run = r.sleep_cycles(1, timeout=BOOT_TIMEOUT)
    # the policy's positive control
    assert run.has_vtboot_line(r"^module 0: verified, sha256 [0-9a-f]{64} matches the policy$")
    assert run.has_vtboot_line(r"^module 1: verified, sha256 [0-9a-f]{64} matches the policy$")
    check_grub_passed_the_entry(run, guest)
    check_boot_report(run, guest, "boot", pcrs)
    # the suspend and the resume, through vtboot
    assert disk_value(run, "sleep") == ["pre suspend", "post suspend"]
    assert len([l for l in run.vtboot_lines() if l.startswith("S3: memory integrity verified")]) == 1
    assert len([l for l in run.vtboot_lines() if l.startswith("S3: resuming Linux at 0x")]) == 1
    assert disk_value(run, "resumed")[0] != "no"
    check_boot_report(run, guest, "resume", pcrs)
    check_powered_off_through_vtboot(run)


# ---- the packages and the option, without booting -----------------------------------------

def deb_contents(name):
    deb = [f for f in os.listdir(DEB_DIR) if re.match(rf"^{name}_.*_amd64\.deb$", f)]
    assert len(deb) == 1, os.listdir(DEB_DIR)
    out = subprocess.run(["dpkg-deb", "-c", os.path.join(DEB_DIR, deb[0])], check=True,
                         capture_output=True, text=True).stdout
    return os.path.join(DEB_DIR, deb[0]), sorted(l.split()[5][1:] for l in out.splitlines()
                                                 if not l.startswith("d"))


def test_packages(built, tmp_path):
    _, guest_files = deb_contents("vtboot")
    assert guest_files == sorted([
        "/boot/vtboot.gz", "/etc/default/grub.d/vtboot.cfg", "/etc/grub.d/20_linux_vtboot",
        "/usr/sbin/vtboot-stat", "/usr/share/doc/vtboot/changelog.gz",
        "/usr/share/doc/vtboot/copyright", "/usr/share/man/man8/vtboot-stat.8.gz"])
    host_deb, host_files = deb_contents("vtboot-host")
    assert host_files == sorted([
        "/usr/bin/vtboot-attest", "/usr/bin/vtboot-pcr", "/usr/bin/vtboot-qemu",
        "/usr/lib/vtboot/vtboot.gz", "/usr/share/doc/vtboot-host/changelog.gz",
        "/usr/share/doc/vtboot-host/copyright", "/usr/share/man/man1/vtboot-attest.1.gz",
        "/usr/share/man/man1/vtboot-pcr.1.gz", "/usr/share/man/man1/vtboot-qemu.1.gz"])
    lintian = open(os.path.join(DEB_DIR, "lintian.txt")).read()
    assert not re.search(r"^E: ", lintian, re.M), lintian
    # the man pages carry every option of the installed tools' --help
    subprocess.run(["dpkg-deb", "-x", host_deb, str(tmp_path)], check=True)
    for tool in ("vtboot-qemu", "vtboot-pcr", "vtboot-attest"):
        exe = str(tmp_path / "usr" / "bin" / tool)
        helptext = subprocess.run([exe, "--help"], capture_output=True, text=True).stdout
        if tool == "vtboot-attest":            # and each command's own --help
            for c in ("enroll", "quote", "verify"):
                helptext += subprocess.run([exe, c, "--help"], capture_output=True,
                                           text=True).stdout
        man = gzip.decompress((tmp_path / "usr/share/man/man1" / f"{tool}.1.gz").read_bytes())
        man = man.decode().replace("\\-", "-")
        opts = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)", helptext))
        assert {"vtboot-qemu": "--disk", "vtboot-pcr": "--policy",
                "vtboot-attest": "--owner-auth"}[tool] in opts
        assert sorted(o for o in opts if o not in man) == []
    # the installed launcher finds the packaged vtboot (/usr/lib/vtboot/vtboot.gz)
    p = subprocess.run([str(tmp_path / "usr/bin/vtboot-qemu"), "--kernel", "/nonexistent"],
                       capture_output=True, text=True)
    assert p.returncode == vtb.SETUP_ERROR
    assert "vtboot-qemu: error: kernel /nonexistent: No such file or directory" in p.stderr
    assert "vtboot-qemu: error: vtboot " not in p.stderr


@pytest.mark.parametrize("other", [["--kernel", "x"], ["--grub"], ["--cmdline", "x"],
                                   ["--print-modules"], ["--vtboot", "x"]])
def test_disk_option_excludes_the_direct_boot(other):
    p = subprocess.run([vtb.LAUNCHER, "--disk", "x.img", *other], capture_output=True, text=True)
    assert p.returncode == vtb.SETUP_ERROR
    assert p.stderr == ("vtboot-qemu: error: --disk boots the disk's own loader, which picks "
                        "vtboot, the kernel, the initrd and their command lines: it excludes "
                        "--kernel, --initrd, --cmdline, --vtboot, --vtboot-cmdline, --grub, "
                        "--grub-mb1, --grub-prelude, --make-iso, --print-modules and "
                        "--print-cmdline\n")


def test_disk_must_exist(tmp_path):
    p = subprocess.run([vtb.LAUNCHER, "--disk", str(tmp_path / "none.img")], capture_output=True,
                       text=True)
    assert p.returncode == vtb.SETUP_ERROR
    assert p.stderr == f"vtboot-qemu: error: disk {tmp_path / 'none.img'}: No such file or directory\n"
