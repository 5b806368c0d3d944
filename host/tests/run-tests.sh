#!/bin/bash
# SPDX-License-Identifier: MIT
# Tests of vtboot-qemu with testk (host/tests/guest), a tiny multiboot kernel: every exit
# status, QEMU -kernel and GRUB (multiboot2 and multiboot1), the module strings, no modules,
# the TPM state's PCR banks and the policy in NV (checked with tpm2-tools and from the guest),
# cleanup on signals, the virtual SENTER, a guest that floods it and COM1, and S3 with
# --qmp/--gdb (driven through tests/qemu/qemuctl.py by qemuctl-drive.py).
# usage: run-tests.sh path/to/vtboot-qemu path/to/testk.elf
set -u

LAUNCHER=$(realpath "$1")
TESTK=$(realpath "$2")
OUTDIR=$(dirname "$(dirname "$LAUNCHER")")     # out/ (out/bin/..): out/vtboot, if built
T=$(mktemp -d /tmp/vtq-test.XXXXXX)
export TMPDIR=$T/tmp            # every launcher temp dir lands here: leaks are easy to see
mkdir -p "$TMPDIR"
PASS=0
FAIL=0
FAILED=()

# processes started by this test run: their command lines name our temp dir
ours() { pgrep -f "$T/"; }
kill_ours() { local p; for p in $(ours); do kill -KILL "$p" 2>/dev/null; done; }
cleanup() {
    # nothing of ours may survive; kill stragglers so that a failing run does not leak either
    kill_ours
    rm -rf "$T"
}
trap cleanup EXIT

ok() { PASS=$((PASS + 1)); echo "ok   - $1"; }
bad() { FAIL=$((FAIL + 1)); FAILED+=("$1"); echo "FAIL - $1${2:+: $2}"; }

# no process of ours left and no temp dir left behind
check_clean() {
    local what=$1 n
    sleep 0.3
    n=$(ours | wc -l)
    if [ "$n" != 0 ]; then
        bad "$what: leftover processes" "$(ps -o pid,args -p "$(ours | paste -sd,)")"
        kill_ours
        return
    fi
    if ls "$TMPDIR" | grep -q vtboot-qemu; then
        bad "$what: leftover temp dir" "$(ls "$TMPDIR")"
        rm -rf "$TMPDIR"/vtboot-qemu.*
        return
    fi
    ok "$what: cleaned up"
}

# files as the launcher gets them: names that differ from their targets' names
F=$T/files
mkdir -p "$F"
cp "$TESTK" "$F/testk.elf"
gzip -c "$TESTK" > "$F/testk.elf.gz"
head -c 20000 /dev/urandom > "$F/bzImage"
head -c 5000 /dev/urandom | gzip -c > "$F/initrd.img"

# run NAME EXPECTED_RC ARGS... : stdout in $T/NAME.out, stderr in $T/NAME.err
run() {
    local name=$1 want=$2 rc
    shift 2
    timeout -k 5 120 "$LAUNCHER" "$@" > "$T/$name.out" 2> "$T/$name.err" < /dev/null
    rc=$?
    if [ "$rc" = "$want" ]; then
        ok "$name: exit $rc"
    else
        bad "$name: exit $rc, expected $want" "$(tail -5 "$T/$name.err")"
    fi
}

expect_out() {     # NAME PATTERN (fixed string, in stdout)
    if grep -aqF -- "$2" "$T/$1.out"; then ok "$1: has '$2'"; else bad "$1: no '$2' in stdout"; fi
}
expect_err() {
    if grep -aqF -- "$2" "$T/$1.err"; then ok "$1: stderr has '$2'"; else bad "$1: no '$2' in stderr" "$(tail -3 "$T/$1.err")"; fi
}
last_err_line() {  # NAME PREFIX: the last stderr line starts with PREFIX
    local l
    l=$(tail -1 "$T/$1.err")
    case "$l" in "$2"*) ok "$1: final line '$l'";; *) bad "$1: final line '$l', expected '$2...'";; esac
}

# What testk printed as its command line and module strings, against what --print-* predicts.
check_strings() {  # NAME LAUNCHER-ARGS...
    local name=$1 got want
    shift
    want=$("$LAUNCHER" "$@" --print-cmdline --print-modules | sed 's/^/[/; s/$/]/')
    got=$(grep -a -E '^TESTK: (cmdline|module [0-9])=' "$T/$name.out" | tr -d '\r' |
          sed -E 's/^TESTK: (cmdline|module [0-9])=//; s/ size=[0-9]+$//')
    if [ "$got" = "$want" ]; then
        ok "$name: strings as --print-cmdline/--print-modules say"
    else
        bad "$name: strings differ" "got: $got / predicted: $want"
    fi
}

BASE=(--vtboot "$F/testk.elf" --kernel "$F/bzImage" --initrd "$F/initrd.img")
ODD=(--cmdline "  a,b   c,,d 'q' \"x\\y\" " --vtboot-cmdline "action=poweroff  w,1 v=\"2 3\"")

echo "# exit statuses (QEMU -kernel, multiboot1)"
run poweroff 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff pcr"
expect_out poweroff "TESTK: loader=multiboot1"
expect_out poweroff "TESTK: cmdline=[testk.elf action=poweroff pcr]"
expect_out poweroff "TESTK: module 0=[bzImage console=ttyS0 panic=-1]"
expect_out poweroff "TESTK: module 1=[initrd.img] size=$(gzip -dcf "$F/initrd.img" | wc -c)"
expect_out poweroff "TESTK: pcr before: PCR17 sha256=$(printf 'f%.0s' {1..64})"
last_err_line poweroff "vtboot-qemu: guest powered off"
run reset 2 "${BASE[@]}" --vtboot-cmdline "action=reset"
last_err_line reset "vtboot-qemu: guest reset"
run triple 2 "${BASE[@]}" --vtboot-cmdline "action=triple"
last_err_line triple "vtboot-qemu: guest reset"
run panic 4 "${BASE[@]}" --vtboot-cmdline "action=panic"
last_err_line panic "vtboot-qemu: guest crashed (GUEST_PANICKED"
run timeout 3 "${BASE[@]}" --vtboot-cmdline "action=hang" --timeout 3
last_err_line timeout "vtboot-qemu: guest timed out"
check_clean "exit statuses"

echo "# variants"
run notpm 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff pcr" --no-tpm
expect_out notpm "TESTK: pcr before: no TPM"
run pc 0 "${BASE[@]}" --machine pc --smp 2 --memory 256 --vtboot-cmdline "action=poweroff pcr"
expect_out pc "TESTK: pcr before: PCR17 sha1=$(printf 'f%.0s' {1..40})"
run gzvtboot 0 --vtboot "$F/testk.elf.gz" --kernel "$F/bzImage" --initrd "$F/initrd.img"
expect_out gzvtboot "TESTK: cmdline=[testk.elf logging=serial,memory loglvl=all]"
run noinitrd 0 --vtboot "$F/testk.elf" --kernel "$F/bzImage" --initrd ""
if grep -aq "module 1=" "$T/noinitrd.out"; then bad "noinitrd: has a module 1"; else ok "noinitrd: one module"; fi
run odd 0 "${BASE[@]}" "${ODD[@]}"
check_strings odd "${BASE[@]}" "${ODD[@]}"
run seriallog 0 "${BASE[@]}" --serial-log "$T/serial.log"
if cmp -s "$T/serial.log" "$T/seriallog.out"; then ok "seriallog: log = stdout"; else bad "seriallog: log differs from stdout"; fi
mkdir -p "$T/state"
run tpmstate 0 "${BASE[@]}" --tpm-state "$T/state"
if ls "$T/state" | grep -q permall; then ok "tpmstate: state kept"; else bad "tpmstate: no state in $T/state"; fi
check_clean "variants"

echo "# GRUB"
run grub2 0 "${BASE[@]}" --vtboot "$F/testk.elf.gz" --grub "${ODD[@]}" -v
expect_out grub2 "TESTK: loader=multiboot2"
expect_out grub2 "TESTK: module 1=[] size=$(gzip -dcf "$F/initrd.img" | wc -c)"
check_strings grub2 "${BASE[@]}" --vtboot "$F/testk.elf.gz" --grub "${ODD[@]}"
grep -a "ISO .* built in" "$T/grub2.err" | sed 's/^/     /'
run grub1 0 "${BASE[@]}" --grub-mb1 "${ODD[@]}"
expect_out grub1 "TESTK: loader=multiboot1"
check_strings grub1 "${BASE[@]}" --grub-mb1 "${ODD[@]}"
run grubreset 2 "${BASE[@]}" --grub --vtboot-cmdline "action=triple"

# the default files out/... next to the launcher, and the prebuilt out/vtboot.iso
O=$T/out
mkdir -p "$O/bin"
cp "$LAUNCHER" "$O/bin/vtboot-qemu"
cp "$F/testk.elf.gz" "$O/vtboot.gz"
cp "$F/testk.elf" "$O/vtboot"
cp "$F/bzImage" "$O/bzImage"
cp "$F/initrd.img" "$O/initrd.img"
(cd / && timeout 60 "$O/bin/vtboot-qemu" --make-iso "$O/vtboot.iso" > "$T/mkiso.out" 2> "$T/mkiso.err")
if [ -s "$O/vtboot.iso" ] && [ -s "$O/vtboot.iso.grub.cfg" ]; then ok "make-iso: wrote the ISO and its grub.cfg"; else bad "make-iso" "$(cat "$T/mkiso.err")"; fi
sed 's/^/     /' "$T/mkiso.err"
(cd / && timeout 60 "$O/bin/vtboot-qemu" --grub -v > "$T/prebuilt.out" 2> "$T/prebuilt.err" < /dev/null)
expect_err prebuilt "booting the prebuilt $O/bin/../vtboot.iso"
expect_out prebuilt "TESTK: loader=multiboot2"
touch "$O/bzImage"
(cd / && timeout 60 "$O/bin/vtboot-qemu" --grub -v > "$T/stale.out" 2> "$T/stale.err" < /dev/null)
if grep -q "booting the prebuilt" "$T/stale.err"; then bad "stale ISO used"; else ok "stale ISO rebuilt"; fi
(cd / && timeout 60 "$O/bin/vtboot-qemu" > "$T/defaults.out" 2> "$T/defaults.err" < /dev/null)
expect_out defaults "TESTK: cmdline=[vtboot logging=serial,memory loglvl=all]"
check_clean "GRUB"

echo "# errors"
run badopt 1 --bogus
run badsmp 1 --smp 0
run missing 1 --vtboot "$T/nonexistent" --kernel "$F/bzImage"
expect_err missing "nonexistent"
run samename 1 --vtboot "$F/testk.elf" --kernel "$F/testk.elf" --initrd ""
run qemufail 1 "${BASE[@]}" -- -no-such-qemu-option
expect_err qemufail "QEMU failed to start"
check_clean "errors"

echo "# no modules (--kernel \"\")"
run nomods 0 --vtboot "$F/testk.elf" --kernel ""
expect_out nomods "TESTK: cmdline=[testk.elf logging=serial,memory loglvl=all]"
if grep -aq "TESTK: module" "$T/nomods.out"; then bad "nomods: has modules"; else ok "nomods: no module"; fi
check_strings nomods --vtboot "$F/testk.elf" --kernel ""
if [ -z "$("$LAUNCHER" --vtboot "$F/testk.elf" --kernel "" --print-modules)" ]; then
    ok "nomods: --print-modules prints nothing"
else
    bad "nomods: --print-modules printed something"
fi
run nomods-grub2 0 --vtboot "$F/testk.elf.gz" --kernel "" --initrd "" --grub
expect_out nomods-grub2 "TESTK: loader=multiboot2"
if grep -aq "TESTK: module" "$T/nomods-grub2.out"; then bad "nomods-grub2: has modules"; else ok "nomods-grub2: no module"; fi
run nomods-grub1 0 --vtboot "$F/testk.elf" --kernel "" --grub-mb1
expect_out nomods-grub1 "TESTK: loader=multiboot1"
check_strings nomods-grub1 --vtboot "$F/testk.elf" --kernel "" --grub-mb1
run nomods-initrd 1 --vtboot "$F/testk.elf" --kernel "" --initrd "$F/initrd.img"
expect_err nomods-initrd 'cannot take an initrd'
# the real vtboot, if it is built: it says why it cannot boot, halts cleanly and powers off
if [ -f "$OUTDIR/vtboot" ]; then
    run nomods-vtboot 0 --vtboot "$OUTDIR/vtboot" --kernel "" --timeout 60
    expect_out nomods-vtboot "vtboot: ERROR: no kernel: no modules: the first module must be a Linux bzImage"
    last_err_line nomods-vtboot "vtboot-qemu: guest powered off"
else
    echo "     (no $OUTDIR/vtboot: the vtboot no-modules check is skipped)"
fi
check_clean "no modules"

echo "# TPM state (--pcr-banks) and the policy in NV (--policy, --provision-only)"
# A swtpm on a state directory for tpm2-tools, as the launcher provisions: our listening
# sockets (renamed into place once listening, so nothing needs to wait), --flags
# startup-clear. tpm_up DIR sets $TCTI; tpm_down shuts the TPM down (CLEAR) and stops it.
tpm_up() {
    local sock=$T/tpmq.sock
    rm -f "$sock" "$sock.ctrl"
    python3 -c '
import os, socket, sys
sock, state = sys.argv[1], sys.argv[2]
keep = [os.open("/dev/null", os.O_RDONLY) for _ in range(2)]  # fds 3, 4 stay ours until dup2
socks = []
for i, p in enumerate((sock, sock + ".ctrl")):
    for q in (p, p + ".new"):
        if os.path.exists(q):
            os.unlink(q)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(p + ".new")
    s.listen(4)
    os.rename(p + ".new", p)
    socks.append(s)
for i, s in enumerate(socks):
    os.dup2(s.fileno(), 3 + i)
os.execvp("swtpm", ["swtpm", "socket", "--tpm2", "--tpmstate", "dir=" + state,
                    "--server", "type=unixio,fd=3", "--ctrl", "type=unixio,fd=4",
                    "--flags", "not-need-init,startup-clear"])
' "$sock" "$1" 2> "$T/tpmq.err" &
    TPM_PID=$!
    TCTI="swtpm:path=$sock"
    for _ in $(seq 200); do [ -S "$sock.ctrl" ] && break; sleep 0.01; done
}
tpm_down() {
    tpm2_shutdown -c -T "$TCTI" 2>/dev/null
    kill "$TPM_PID" 2>/dev/null
    wait "$TPM_PID" 2>/dev/null
    rm -f "$T/tpmq.sock" "$T/tpmq.sock.ctrl"
}
banks_of() {     # DIR: the active PCR banks of that state, comma-separated
    tpm_up "$1"
    tpm2_getcap pcrs -T "$TCTI" | sed -n 's/^ *- \(sha[0-9]*\): \[ [0-9].*/\1/p' | paste -sd, -
    tpm_down
}
nv_check() {     # NAME DIR FILE: NV index 0x01200001 holds exactly FILE, with our attributes
    local name=$1 dir=$2 file=$3 size pub
    size=$(stat -c %s "$file")
    tpm_up "$dir"
    if tpm2_nvread 0x01200001 -C 0x01200001 -s "$size" -T "$TCTI" -o "$T/nv.bin" 2> "$T/nv.err" &&
       cmp -s "$T/nv.bin" "$file"; then
        ok "$name: NV index holds the file's $size bytes"
    else
        bad "$name: NV index differs from $file" "$(cat "$T/nv.err")"
    fi
    pub=$(tpm2_nvreadpublic 0x01200001 -T "$TCTI" 2>&1)
    # TPMA_NV: ownerwrite bit 1 (0x2) | ownerread bit 17 (0x20000) | authread bit 18 (0x40000) |
    # no_da bit 25 (0x2000000) | written bit 29 (0x20000000) = 0x22060002; no ppwrite (bit 0)
    if grep -q "value: 0x22060002" <<< "$pub" && grep -q "size: $size\$" <<< "$pub" &&
       grep -q "friendly: ownerwrite|ownerread|authread|no_da|written" <<< "$pub" && ! grep -q ppwrite <<< "$pub"; then
        ok "$name: attributes ownerwrite|ownerread|authread|no_da (no ppwrite), size $size"
    else
        bad "$name: index public area" "$pub"
    fi
    if [ "$(tpm2_getcap handles-nv-index -T "$TCTI" | grep -c .)" = 1 ]; then
        ok "$name: one NV index"
    else
        bad "$name: NV indices" "$(tpm2_getcap handles-nv-index -T "$TCTI")"
    fi
    tpm_down
}

# policies: a real one from tb_polgen if it is installed, and corrupted ones (vtboot's tests
# need those): a bad version byte, a truncated one, 1 byte, 2048 bytes
P=$T/pol
mkdir -p "$P"
if command -v tb_polgen > /dev/null; then
    tb_polgen --create --type halt --alg sha256 "$P/halt.pol" > /dev/null
    tb_polgen --add --num 0 --pcr none --hash image --cmdline "bzImage console=ttyS0 panic=-1" \
              --image "$F/bzImage" "$P/halt.pol" > /dev/null
else
    printf '\002\002\013\001\000\000\000\000\000\000\000\001\000\377\001\000' > "$P/halt.pol"
    head -c 36 /dev/urandom >> "$P/halt.pol"
fi
cp "$P/halt.pol" "$P/badver.pol"
printf '\377' | dd of="$P/badver.pol" bs=1 count=1 conv=notrunc 2> /dev/null
head -c 10 "$P/halt.pol" > "$P/trunc.pol"
printf 'X' > "$P/one.pol"
head -c 2048 /dev/urandom > "$P/max.pol"

S=$T/tpm-a
run prov 0 --provision-only --tpm-state "$S" --policy "$P/halt.pol" -v
expect_err prov "wrote $P/halt.pol ($(stat -c %s "$P/halt.pol") bytes) into NV index 0x01200001"
grep -a -E "swtpm_setup \(PCR banks .*\) took|NV index .* written in" "$T/prov.err" | sed 's/^/     /'
nv_check prov "$S" "$P/halt.pol"
# the owner and lockout authorizations: random, kept in the state directory (0600), set in the
# TPM; taking ownership with the empty owner password is refused (TPM_RC_BAD_AUTH)
own_check() {    # NAME DIR
    local name=$1 dir=$2 f props
    for f in vtboot-owner.auth vtboot-lockout.auth; do
        if [ "$(stat -c %a "$dir/$f" 2>&1)" = 600 ] && grep -qxE '[0-9a-f]{32}' "$dir/$f"; then
            ok "$name: $f: 32 hex digits, mode 0600"
        else
            bad "$name: $f" "$(ls -l "$dir/$f" 2>&1)"
        fi
    done
    tpm_up "$dir"
    props=$(tpm2_getcap properties-variable -T "$TCTI" 2>&1)
    if grep -qx "  ownerAuthSet: *1" <<< "$props" && grep -qx "  lockoutAuthSet: *1" <<< "$props" &&
       grep -qx "  endorsementAuthSet: *0" <<< "$props"; then
        ok "$name: owner and lockout authorizations set, endorsement empty"
    else
        bad "$name: TPMA_PERMANENT" "$(head -4 <<< "$props")"
    fi
    if ! tpm2_changeauth -c o guest -T "$TCTI" > "$T/$name-ca.out" 2>&1 &&
       grep -q "Esys_HierarchyChangeAuth(0x9A2)" "$T/$name-ca.out"; then
        ok "$name: empty owner password refused (0x9A2)"
    else
        bad "$name: empty owner password" "$(cat "$T/$name-ca.out")"
    fi
    tpm_down
}
own_check prov "$S"
# a state from an older vtboot-qemu (empty authorizations, no secrets kept): taken on first use
mkdir -p "$T/tpm-old"
swtpm_setup --tpm2 --tpmstate "$T/tpm-old" --pcr-banks sha256 > /dev/null 2>&1
run own-old 0 --provision-only --tpm-state "$T/tpm-old"
expect_err own-old "took ownership of the TPM state in $T/tpm-old: its owner and lockout authorizations are in $T/tpm-old/vtboot-*.auth"
own_check own-old "$T/tpm-old"
b=$(banks_of "$S")
if [ "$b" = "sha1,sha256" ]; then ok "prov: default banks sha1,sha256"; else bad "prov: banks '$b'"; fi
run reprov 0 --provision-only --tpm-state "$S" --policy "$P/max.pol" -v
expect_err reprov "NV index 0x01200001 exists: undefining it"
grep -a "NV index .* written in" "$T/reprov.err" | sed 's/^/     /'
nv_check reprov "$S" "$P/max.pol"
for c in badver trunc one; do
    run "prov-$c" 0 --provision-only --tpm-state "$S" --policy "$P/$c.pol"
    nv_check "prov-$c" "$S" "$P/$c.pol"
done
# an existing state is used as is: --pcr-banks does not apply to it
run prov-banks-kept 0 --provision-only --tpm-state "$S" --pcr-banks sha256
expect_err prov-banks-kept "--pcr-banks sha256 ignored"
b=$(banks_of "$S")
if [ "$b" = "sha1,sha256" ]; then ok "prov-banks-kept: banks unchanged"; else bad "prov-banks-kept: banks '$b'"; fi
for banks in sha256 sha1,sha256,sha384 sha512,sha1 all; do
    d=$T/tpm-${banks//,/-}      # swtpm cannot take a ',' in the directory name
    run "banks-$banks" 0 --provision-only --tpm-state "$d" --pcr-banks "$banks" -v
    want=$banks
    [ "$banks" = all ] && want=sha1,sha256,sha384,sha512
    [ "$banks" = sha512,sha1 ] && want=sha1,sha512
    b=$(banks_of "$d")
    if [ "$b" = "$want" ]; then ok "banks-$banks: banks $b"; else bad "banks-$banks: banks '$b', expected $want"; fi
done
grep -a "swtpm_setup (PCR banks .*) took" "$T"/banks-*.err | sed 's/^.*vtboot-qemu: /     /'

# what the guest reads through the TIS (testk "nv"): a fresh temp state provisioned, then booted
hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }
run nvboot 0 "${BASE[@]}" --policy "$P/halt.pol" --vtboot-cmdline "action=poweroff nv pcr" -v
expect_out nvboot "TESTK: nv public: attributes=0x22060002 size=$(stat -c %s "$P/halt.pol")"
expect_out nvboot "TESTK: nv data=$(hex "$P/halt.pol")"
expect_out nvboot "TESTK: pcr before: PCR17 sha1=$(printf 'f%.0s' {1..40})"
# no_da: the index is not DA-protected, so libtpms has no TPM_RC_RETRY for its first use
if grep -aq "TESTK: nv read: TPM_RC_RETRY" "$T/nvboot.out"; then bad "nvboot: TPM_RC_RETRY on a no_da index"; else ok "nvboot: no TPM_RC_RETRY (no_da)"; fi
grep -a "policy provisioned in" "$T/nvboot.err" | sed 's/^.*vtboot-qemu: /     /'
# --tpm-state with --policy: provisioned into that dir, then booted from it
run nvboot-state 0 "${BASE[@]}" --tpm-state "$S" --policy "$P/one.pol" --vtboot-cmdline "action=poweroff nv"
expect_out nvboot-state "TESTK: nv data=$(hex "$P/one.pol")"
nv_check nvboot-state "$S" "$P/one.pol"
run nvboot-none 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff nv"
expect_out nvboot-none "TESTK: nv public: TPM error 0x0000018b"
run sha256only 0 "${BASE[@]}" --pcr-banks sha256 --vtboot-cmdline "action=poweroff pcr"
expect_out sha256only "TESTK: pcr before: PCR17 sha256="
if grep -aq "PCR17 sha1=" "$T/sha256only.out"; then bad "sha256only: has a SHA-1 bank"; else ok "sha256only: no SHA-1 bank"; fi

# errors: bad files, bad combinations, a failing tool (its stderr shown)
: > "$P/empty.pol"
head -c 2049 /dev/zero > "$P/big.pol"
run pol-missing 1 --provision-only --tpm-state "$S" --policy "$P/nonexistent"
expect_err pol-missing "nonexistent: No such file"
run pol-empty 1 --provision-only --tpm-state "$S" --policy "$P/empty.pol"
expect_err pol-empty "empty"
run pol-big 1 --provision-only --tpm-state "$S" --policy "$P/big.pol"
expect_err pol-big "more than the 2048 bytes"
run pol-dir 1 --provision-only --tpm-state "$S" --policy "$P"
run pol-boot-missing 1 "${BASE[@]}" --policy "$P/nonexistent"
run provonly-nostate 1 --provision-only --policy "$P/one.pol"
expect_err provonly-nostate "needs --tpm-state"
run notpm-policy 1 "${BASE[@]}" --no-tpm --policy "$P/one.pol"
run banks-bad 1 --pcr-banks sha1,md5
run banks-dup 1 --pcr-banks sha1,sha1
run banks-empty 1 --pcr-banks ""
nv_check "after errors" "$S" "$P/one.pol"
# an owner password the launcher does not know: tpm2_nvundefine -C o fails
cp -r "$S" "$T/tpm-owned"
tpm_up "$T/tpm-owned"
tpm2_changeauth -c o -p "file:$T/tpm-owned/vtboot-owner.auth" secret -T "$TCTI" > /dev/null
tpm_down
run pol-toolfail 1 --provision-only --tpm-state "$T/tpm-owned" --policy "$P/halt.pol"
expect_err pol-toolfail "tpm2_nvundefine failed (exit status 1): tpm2_nvundefine 0x01200001 -C o -P file:$T/tpm-owned/vtboot-owner.auth -T swtpm:path="
expect_err pol-toolfail "ERROR: Esys_NV_UndefineSpace(0x9A2)"
run pol-toolfail-boot 1 "${BASE[@]}" --tpm-state "$T/tpm-owned" --policy "$P/halt.pol"
expect_err pol-toolfail-boot "tpm2_nvundefine failed"
# an older state whose owner password someone else set: refused, nothing booted
rm "$T/tpm-owned"/vtboot-*.auth
run own-other 1 "${BASE[@]}" --tpm-state "$T/tpm-owned"
expect_err own-other "the TPM state in $T/tpm-owned has its owner authorization set, not by vtboot-qemu (which keeps its own in $T/tpm-owned/vtboot-owner.auth): the policy index cannot be kept from the guest; use a new state"
check_clean "policy provisioning"

echo "# signals and crashes"
"$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=hang" > /dev/null 2> "$T/sigterm.err" &
pid=$!
sleep 2
kill -TERM $pid
wait $pid
rc=$?
if [ $rc = 143 ]; then ok "sigterm: exit 143"; else bad "sigterm: exit $rc" "$(tail -3 "$T/sigterm.err")"; fi
check_clean "sigterm"
"$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=hang" > /dev/null 2> "$T/sigint.err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid
rc=$?
if [ $rc = 130 ]; then ok "sigint: exit 130"; else bad "sigint: exit $rc"; fi
check_clean "sigint"
"$LAUNCHER" "${BASE[@]}" --grub --vtboot-cmdline "action=hang" > /dev/null 2> "$T/sigiso.err" &
pid=$!
sleep 0.1
kill -TERM $pid
wait $pid
rc=$?
if [ $rc = 143 ]; then ok "sigterm early: exit 143"; else bad "sigterm early: exit $rc" "$(tail -3 "$T/sigiso.err")"; fi
check_clean "sigterm early"
# during swtpm_setup and the tpm2-tools provisioning (0.1 s in; all of it takes ~0.25 s)
"$LAUNCHER" "${BASE[@]}" --policy "$P/max.pol" --vtboot-cmdline "action=hang" > /dev/null 2> "$T/sigprov.err" &
pid=$!
sleep 0.1
kill -TERM $pid
wait $pid
rc=$?
if [ $rc = 143 ]; then ok "sigterm provisioning: exit 143"; else bad "sigterm provisioning: exit $rc" "$(tail -3 "$T/sigprov.err")"; fi
check_clean "sigterm provisioning"
# a SIGKILLed launcher cannot clean up its temp dir, but its children must die with it
"$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=hang" > /dev/null 2>&1 &
pid=$!
sleep 2
kill -KILL $pid
wait $pid 2>/dev/null
sleep 1
if [ -n "$(ours)" ]; then bad "sigkill: children survived"; kill_ours; else ok "sigkill: children died"; fi
rm -rf "$TMPDIR"/vtboot-qemu.*
# QEMU dies under us
"$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=hang" > /dev/null 2> "$T/qemukill.err" &
pid=$!
sleep 2
kill -KILL "$(pgrep -P $pid -x qemu-system-x86)"
wait $pid
rc=$?
if [ $rc = 4 ]; then ok "qemu killed: exit 4"; else bad "qemu killed: exit $rc" "$(tail -3 "$T/qemukill.err")"; fi
check_clean "qemu killed"

echo "# virtual SENTER (protocol 4: the launch enters the MLE; include/abi/vsenter.h)"
# what the host must measure: testk's read-only image, exactly as in its ELF file, and where
# its MLE header, entry point and GDT are
objcopy -O binary -j .mle "$TESTK" "$T/mle.bin"
sym() { nm "$TESTK" | awk -v s="$1" '$3 == s { print $1 }'; }
hex8() { printf '%08x' "$1"; }
HDR=$(sym testk_mle_hdr)
ENTRY=$(sym post_launch)
GDT=$(sym testk_gdt)
MLESZ=$(hex8 "$(stat -c %s "$T/mle.bin")")
pcr_expect() {   # FILE -> "sha256 sha1 H(MLE)" of PCR 17 after a launch of FILE's bytes
    python3 - "$1" <<'PY'
import hashlib, sys
m = open(sys.argv[1], 'rb').read()
print(hashlib.sha256(b'\0' * 32 + hashlib.sha256(m).digest()).hexdigest(),
      hashlib.sha1(b'\0' * 20 + hashlib.sha1(m).digest()).hexdigest(), hashlib.sha256(m).hexdigest())
PY
}
read -r W256 W1 MLE256 <<< "$(pcr_expect "$T/mle.bin")"
ZERO256=$(printf '0%.0s' {1..64})
FF256=$(printf 'f%.0s' {1..64})
has_line() {     # NAME out|err LINE: that exact line (a trailing \r dropped)
    if tr -d '\r' < "$T/$1.$2" | grep -aqxF -- "$3"; then
        ok "$1: $2 line '$(cut -c 1-110 <<< "$3")'"
    else
        bad "$1: no $2 line '$3'" "$(tr -d '\r' < "$T/$1.$2" | grep -a "TESTK: \(vsenter\|launched\)\|SENTER" | tail -3)"
    fi
}
count_lines() {  # NAME out|err PREFIX N: N lines start with PREFIX
    local n
    n=$(tr -d '\r' < "$T/$1.$2" | awk -v p="$3" 'index($0, p) == 1' | wc -l)
    if [ "$n" = "$4" ]; then ok "$1: $4 $2 lines '$3...'"; else bad "$1: $n $2 lines '$3...', expected $4"; fi
}
# the entry state testk's post_launch found (entry.S saves it before anything else), the PCRs
# it read then, the launcher's line
check_launch() {  # NAME [N [CPUS]]: launch #N (default 1) of testk's own image on CPUS CPUs (1)
    local n=${2:-1}
    has_line "$1" out "TESTK: mle 0x00100000+0x$MLESZ hdr 0x$HDR entry 0x$ENTRY"
    # the host's configuration reads left the requester's CONFIG_ADDRESS as it was
    has_line "$1" out "TESTK: launched #$n: CONFIG_ADDRESS=8000fb34"
    has_line "$1" out "TESTK: launched #$n: eax=544e5356 ebx=00100000 ecx=$HDR edx=$(hex8 "${3:-1}") esi=00000000 edi=00000000 ebp=00000000 esp=00000000"
    has_line "$1" out "TESTK: launched #$n: eflags=00000002 cr0=00000011 cr3=00000000 cr4=00000000 efer=00000000"
    has_line "$1" out "TESTK: launched #$n: cs=0010 ds=0018 es=0018 fs=0018 gs=0018 ss=0018 gdt=$GDT+001f idt=00000000+0000"
    has_line "$1" out "TESTK: pcr after: PCR17 sha256=$W256"
    has_line "$1" out "TESTK: pcr after: PCR17 sha1=$W1"
    has_line "$1" out "TESTK: pcr after: PCR18 sha256=$ZERO256"
    has_line "$1" err "vtboot-qemu: virtual SENTER: launched CPU 0 at 0x$ENTRY: MLE 0x00100000+0x$MLESZ sha256=$MLE256"
    count_lines "$1" err "vtboot-qemu: virtual SENTER: launched " "$n"
    # a launch is not answered on the UART: the requester never runs again
    count_lines "$1" out "TESTK: vsenter launch:" 0
    last_err_line "$1" "vtboot-qemu: guest powered off"
}
# testk's requests carry one id (testk.c), which every refusal of them names
TK_ERR="VSENTER-ERR 4 id=0x7e57c0de"
run vsenter 0 "${BASE[@]}" --vtboot-cmdline "action=vsenter pcr" -v
has_line vsenter out "TESTK: pcr before: PCR17 sha256=$FF256"
check_launch vsenter
grep -a "virtual SENTER took" "$T/vsenter.err" | sed 's/^.*vtboot-qemu: /     testk, 1 CPU: /'
# the launched image asks again: a second launch from the MLE itself, PCR 17 as after one
run vstwice 0 "${BASE[@]}" --vtboot-cmdline "action=vstwice"
check_launch vstwice 2
# malformed lines first, each answered; then the launch
run vsgarbage 0 "${BASE[@]}" --vtboot-cmdline "action=vsgarbage"
for want in "bad 0: VSENTER-ERR 4 not a VSENTER request" "bad 1: VSENTER-ERR 4 unsupported protocol 3" \
            "bad 2: VSENTER-ERR 4 id=0x00000001 malformed request" \
            "bad 3: VSENTER-ERR 4 id=0x00000002 malformed request" \
            "bad 4: VSENTER-ERR 4 id=0x00000003 malformed request" \
            "bad 5: VSENTER-ERR 4 id=0x00000004 MLE header crosses 4 GiB" \
            "bad 6: VSENTER-ERR 4 id=0x00000005 MLE header not in guest RAM" \
            "bad 7: VSENTER-ERR 4 malformed request" "bad long: VSENTER-ERR 4 line too long" \
            "bad binary: VSENTER-ERR 4 not a VSENTER request"; do
    has_line vsgarbage out "TESTK: vsenter $want"
done
has_line vsgarbage err "vtboot-qemu: virtual SENTER: refused: unsupported protocol 3"
count_lines vsgarbage err "vtboot-qemu: virtual SENTER: refused: " 10
check_launch vsgarbage
# MLE headers that must be refused (copies of testk's with one field wrong, in a page-aligned
# fake MLE at testk's `fake`), then a valid header without the GDT in its range; each refusal
# lets testk run on (its next line), then the launch
FK=$((0x$(sym fake)))
run vsbadhdr 0 "${BASE[@]}" --vtboot-cmdline "action=vsbadhdr"
while IFS='|' read -r what why; do
    has_line vsbadhdr out "TESTK: vsenter $what: $TK_ERR $why"
    has_line vsbadhdr err "vtboot-qemu: virtual SENTER: refused: $why"
done <<EOT
no header|MLE header at 0x$(hex8 $FK): bad UUID
bad uuid|MLE header at 0x$(hex8 $FK): bad UUID
bad length|MLE header: length 0x30, expected 0x34
bad version|MLE header: version 0x00020000, expected 0x00020001
first page|MLE header: first_valid_page 0x1, expected 0
empty range|MLE header: empty range (mle_start_off 0x2000, mle_end_off 0x2000)
too big|MLE range of 0x1000001 bytes, above 0x1000000
out of ram|MLE range 0x1fff0000-0x20010000 not in guest RAM
unaligned start|MLE start 0x$(hex8 $((FK + 0x10))) not page-aligned
header outside|MLE header at 0x$(hex8 $FK) outside the measured range 0x$(hex8 $((FK + 0x1000)))-0x$(hex8 $((FK + 0x2000)))
header unaligned|MLE header at 0x$(hex8 $((FK + 0x1008))) not 16-byte aligned in the image
entry outside|entry point 0x$(hex8 $((FK + 0x2000))) outside the measured range
cmdline outside|command line 0x$(hex8 $((FK + 0x1f00)))-0x$(hex8 $((FK + 0x2001))) outside the measured range
cmdline reversed|MLE header: cmdline_end_off 0x1e00 below cmdline_start_off 0x1f00
reserved caps|MLE header: reserved capability bits 0x00000800
gdt outside|CPU 0's GDT 0x$GDT-0x$(hex8 $((0x$GDT + 0x20))) is outside the MLE
EOT
count_lines vsbadhdr err "vtboot-qemu: virtual SENTER: refused: " 16
check_launch vsbadhdr
# CPU states that must be refused: interrupts on, an IDT, paging on (identity-mapped), the GDT
# copied outside the MLE, a GDT without entry 0x18; each undone after the refusal
GC=$((0x$(sym gdt_copy)))
run vsbadstate 0 "${BASE[@]}" --vtboot-cmdline "action=vsbadstate"
while IFS='|' read -r what why; do
    has_line vsbadstate out "TESTK: vsenter $what: $TK_ERR $why"
    has_line vsbadstate err "vtboot-qemu: virtual SENTER: refused: $why"
done <<EOT
interrupts on|CPU 0 has interrupts on
idt|CPU 0 has an IDT (limit 0x7ff): it must be empty
paging|CPU 0 has paging on
gdt copy|CPU 0's GDT 0x$(hex8 $GC)-0x$(hex8 $((GC + 0x20))) is outside the MLE
gdt short|CPU 0's GDT (limit 0x17) has no entry 0x18
EOT
count_lines vsbadstate err "vtboot-qemu: virtual SENTER: refused: " 5
check_launch vsbadstate
# the platform's event sources (vsenter.h 1a): testk quiesces them, arms one again and asks;
# the refusal names it exactly (platstate.h), nothing is measured; the allowed ones launch
while IFS='|' read -r arm why; do
    run "vsarm-$arm" 0 "${BASE[@]}" --vtboot-cmdline "action=vsarm arm=$arm pcr"
    has_line "vsarm-$arm" out "TESTK: armed $arm"
    has_line "vsarm-$arm" out "TESTK: vsenter launch: $TK_ERR $why"
    has_line "vsarm-$arm" err "vtboot-qemu: virtual SENTER: refused: $why"
    has_line "vsarm-$arm" out "TESTK: pcr after: PCR17 sha256=$FF256"
    has_line "vsarm-$arm" out "TESTK: CONFIG_ADDRESS after the answer: 8000fb34"
done <<EOT
lint1-nmi|LAPIC 0 LINT1: NMI delivery, not masked (LVT 0x00000400)
timer-smi|LAPIC 0 timer: SMI delivery, not masked (LVT 0x00000200)
ioapic-nmi|IOAPIC pin 7: NMI delivery, not masked (entry 0x0000000000000400)
pci-bme|PCI 00:1f.2: bus mastering enabled
pci-msi|PCI 00:1f.2: MSI enabled
dr7|CPU 0: DR7 0x00000401: breakpoints armed
EOT
run vsarm-pci-msix 0 "${BASE[@]}" --vtboot-cmdline "action=vsarm arm=pci-msix" -- -device virtio-rng-pci
has_line vsarm-pci-msix out "TESTK: vsenter launch: $TK_ERR PCI 00:01.0: MSI-X enabled"
# behind a pci-bridge: the launcher follows it to bus 1 (a control, then bus mastering there)
BRIDGE=(-device pci-bridge,id=br,chassis_nr=1,addr=5 -device virtio-rng-pci,bus=br,addr=3)
run vsbridge 0 "${BASE[@]}" --vtboot-cmdline "action=vsenter pcr" -v -- "${BRIDGE[@]}"
check_launch vsbridge
# before the hash and after the transfer: 00:00.0, 00:05.0 (the bridge), 00:1f.0/2/3, 01:03.0
count_lines vsbridge err "vtboot-qemu: virtual SENTER: event sources of 1 CPUs, the I/O APIC, the HPET and 6 PCI functions (98 configuration reads) checked in " 2
grep -a "event sources of" "$T/vsbridge.err" | head -1 | sed 's/^.*vtboot-qemu: virtual SENTER: /     testk, bridge: /'
run vsarm-pci-bme-bus1 0 "${BASE[@]}" --vtboot-cmdline "action=vsarm arm=pci-bme-bus1" -- "${BRIDGE[@]}"
has_line vsarm-pci-bme-bus1 out "TESTK: vsenter launch: $TK_ERR PCI 01:03.0: bus mastering enabled"
run vshpet 0 "${BASE[@]}" --vtboot-cmdline "action=vsenter" -- -machine hpet=on
has_line vshpet out "TESTK: vsenter launch: $TK_ERR HPET: present in the machine"
has_line vshpet err "vtboot-qemu: virtual SENTER: refused: HPET: present in the machine"
# the request from CPU 1 while CPU 0 halts
run vsap 0 "${BASE[@]}" --smp 2 --vtboot-cmdline "action=vsap"
has_line vsap out "TESTK: ap vsenter: $TK_ERR CPU 1: the launching CPU is not the BSP (CPU 0)"
count_lines vsap err "vtboot-qemu: virtual SENTER: launched " 0
# controls: LINT0 in ExtINT mode, a Fixed error LVT and a lowest-priority I/O APIC pin launch
for arm in lint0-extint error-fixed ioapic-lowest; do
    run "vsarm-$arm" 0 "${BASE[@]}" --vtboot-cmdline "action=vsarm arm=$arm pcr"
    has_line "vsarm-$arm" out "TESTK: armed $arm"
    check_launch "vsarm-$arm"
done
# the launcher's own machine has no HPET
run hpetoff 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff" -v
if grep -aq -- "-machine q35,hpet=off " "$T/hpetoff.err"; then ok "hpetoff: QEMU gets -machine q35,hpet=off"; else bad "hpetoff: no '-machine q35,hpet=off' in the QEMU command line" "$(grep -a qemu-system "$T/hpetoff.err" | head -1)"; fi
# two CPUs: the second one spinning, then halted with interrupts on (both refused), then in
# wait-for-SIPI after an INIT (launched)
run vssmp 0 "${BASE[@]}" --smp 2 --vtboot-cmdline "action=vssmp pcr" -v
has_line vssmp out "TESTK: vsenter ap spinning: $TK_ERR CPUs 0 and 1 are both running: every CPU but the launching one must be halted"
has_line vssmp out "TESTK: vsenter ap halted with interrupts on: $TK_ERR CPU 1 is halted with interrupts on"
has_line vssmp out "TESTK: ap in wait-for-SIPI"
# on a loaded host the INITed AP may still run when the host looks: testk says so and retries
count_lines vssmp err "vtboot-qemu: virtual SENTER: refused: " \
    $((2 + $(grep -ac "TESTK: vsenter retry after INIT: $TK_ERR CPUs 0 and 1 are both running" "$T/vssmp.out")))
check_launch vssmp 1 2
grep -a "virtual SENTER took" "$T/vssmp.err" | tail -1 | sed 's/^.*vtboot-qemu: /     testk, 2 CPUs: /'
# through GRUB (multiboot2 loads the same ELF at the same addresses), on pc with SeaBIOS's
# second CPU left halted (interrupts off)
run vsgrub 0 "${BASE[@]}" --grub --vtboot-cmdline "action=vsenter pcr"
check_launch vsgrub
run vspc 0 "${BASE[@]}" --machine pc --smp 2 --vtboot-cmdline "action=vsenter pcr"
check_launch vspc 1 2
# 16 MiB at 16 MiB: a copy of testk's header, its GDT at +0x40 and a far jump to post_launch
# at +0x80, zeros after (fresh RAM); the test builds the same bytes
run vsbig 0 "${BASE[@]}" --vtboot-cmdline "action=vsbig pcr" -v
python3 - "$T/mle.bin" "$T/big.bin" "$((0x$HDR - 0x100000))" "$((0x$GDT - 0x100000))" "$((0x$ENTRY))" <<'PY'
import struct, sys
mle, out, hdr, gdt, entry = open(sys.argv[1], 'rb').read(), sys.argv[2], *map(int, sys.argv[3:])
b = bytearray(16 << 20)
h = bytearray(mle[hdr:hdr + 0x34])
struct.pack_into('<I', h, 0x18, 0x80)               # entry_point
struct.pack_into('<I', h, 0x24, 16 << 20)           # mle_end_off
b[0:0x34] = h
b[0x40:0x60] = mle[gdt:gdt + 0x20]
b[0x80:0x87] = b'\xea' + struct.pack('<I', entry) + b'\x10\x00'
open(out, 'wb').write(b)
PY
read -r B256 B1 BIG256 <<< "$(pcr_expect "$T/big.bin")"
has_line vsbig out "TESTK: big mle 0x01000000+0x01000000 entry 0x01000080"
has_line vsbig out "TESTK: launched #1: eax=544e5356 ebx=01000000 ecx=01000000 edx=00000001 esi=00000000 edi=00000000 ebp=00000000 esp=00000000"
has_line vsbig out "TESTK: launched #1: cs=0010 ds=0018 es=0018 fs=0018 gs=0018 ss=0018 gdt=01000040+001f idt=00000000+0000"
has_line vsbig err "vtboot-qemu: virtual SENTER: launched CPU 0 at 0x01000080: MLE 0x01000000+0x01000000 sha256=$BIG256"
has_line vsbig out "TESTK: pcr after: PCR17 sha256=$B256"
has_line vsbig out "TESTK: pcr after: PCR17 sha1=$B1"
grep -a "virtual SENTER took" "$T/vsbig.err" | sed 's/^.*vtboot-qemu: /     16 MiB: /'
# failures that the guest cannot provoke: none before a request reaches the host
run vsnotpm 0 "${BASE[@]}" --no-tpm --vtboot-cmdline "action=vsenter"
has_line vsnotpm out "TESTK: vsenter launch: $TK_ERR no TPM"
has_line vsnotpm err "vtboot-qemu: virtual SENTER: refused: no TPM"
run vsnodrtm 0 "${BASE[@]}" --no-drtm --vtboot-cmdline "action=vsenter pcr"
has_line vsnodrtm out "TESTK: no VSENTER UART"
run vsnodrtm2 0 "${BASE[@]}" --no-drtm --vtboot-cmdline "action=poweroff pcr"
has_line vsnodrtm2 out "TESTK: pcr before: PCR17 sha256=$FF256"
# a failure once the measurement has begun (swtpm killed while testk waits, so the hash
# sequence cannot run): QEMU quits, exit 4, and the requester never runs again
timeout -k 5 60 "$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=vswait" > "$T/vsfatal.out" 2> "$T/vsfatal.err" < /dev/null &
pid=$!
for _ in $(seq 100); do grep -aq "TESTK: waiting" "$T/vsfatal.out" && break; sleep 0.05; done
kill -KILL "$(pgrep -P "$(pgrep -P $pid)" -x swtpm)"
wait $pid
rc=$?
if [ $rc = 4 ]; then ok "vsfatal: exit 4"; else bad "vsfatal: exit $rc, expected 4" "$(tail -3 "$T/vsfatal.err")"; fi
has_line vsfatal err "vtboot-qemu: virtual SENTER failed after the measurement: TPM control channel down"
last_err_line vsfatal "vtboot-qemu: guest crashed (virtual SENTER failed after the measurement: TPM control channel down, "
has_line vsfatal out "TESTK: mle 0x00100000+0x$MLESZ hdr 0x$HDR entry 0x$ENTRY"
l=$(tr -d '\r' < "$T/vsfatal.out" | grep -a "^TESTK: " | tail -1)
if [ "$l" = "TESTK: mle 0x00100000+0x$MLESZ hdr 0x$HDR entry 0x$ENTRY" ]; then
    ok "vsfatal: testk's last line is its request's"
else
    bad "vsfatal: testk ran on after its request" "$l"
fi
check_clean "virtual SENTER"

echo "# a guest that floods the virtual SENTER UART and COM1 and never reads an answer"
# The launcher stays in charge: --timeout and SIGTERM end the run within 2 s of their time.
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
t0=$(date +%s%N)
timeout -k 5 30 "$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=flood" --timeout 10 \
    > "$T/flood.out" 2> "$T/flood.err" < /dev/null
rc=$?
ms=$(ms_since "$t0")
if [ $rc = 3 ]; then ok "flood: exit 3"; else bad "flood: exit $rc, expected 3" "$(tail -3 "$T/flood.err")"; fi
if [ "$ms" -le 12000 ]; then ok "flood: --timeout 10 ended it after $ms ms"; else bad "flood: --timeout 10 ended it after $ms ms (more than 12 s)"; fi
last_err_line flood "vtboot-qemu: guest timed out"
has_line flood out "TESTK: flooding"
# the junk reached the host (refused) and COM1 kept flooding
expect_err flood "vtboot-qemu: virtual SENTER: refused: not a VSENTER request"
n=$(grep -ac "^TESTK: flood [0-9]" "$T/flood.out")
if [ "$n" -ge 100 ]; then ok "flood: $n COM1 lines"; else bad "flood: only $n COM1 lines"; fi
rm -f "$T/flood.out"
check_clean "flood timeout"
"$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=flood" > "$T/floodterm.out" 2> "$T/floodterm.err" < /dev/null &
pid=$!
for _ in $(seq 600); do grep -aq "TESTK: flooding" "$T/floodterm.out" && break; sleep 0.05; done
sleep 3
(sleep 20; kill -KILL $pid 2>/dev/null) &
dog=$!
t0=$(date +%s%N)
kill -TERM $pid
wait $pid
rc=$?
ms=$(ms_since "$t0")
kill $dog 2>/dev/null
wait $dog 2>/dev/null
if [ $rc = 143 ]; then ok "flood sigterm: exit 143"; else bad "flood sigterm: exit $rc, expected 143" "$(tail -3 "$T/floodterm.err")"; fi
if [ "$ms" -le 2000 ]; then ok "flood sigterm: ended $ms ms after SIGTERM"; else bad "flood sigterm: ended $ms ms after SIGTERM (more than 2 s)"; fi
expect_err floodterm "vtboot-qemu: virtual SENTER: refused: not a VSENTER request"
rm -f "$T/floodterm.out"
check_clean "flood sigterm"
# the same with a terminal on stdin (relayed to COM1, which the guest never reads; we keep
# typing) and a stdout that nobody reads
python3 - "$LAUNCHER" "$T/floodtty.err" "${BASE[@]}" --vtboot-cmdline "action=flood" <<'PY' > "$T/floodtty.res"
import fcntl, os, pty, signal, subprocess, sys, time
m, s = pty.openpty()
r, w = os.pipe()
p = subprocess.Popen([sys.argv[1]] + sys.argv[3:], stdin=s, stdout=w, stderr=open(sys.argv[2], 'w'))
os.close(s)
os.close(w)
fcntl.fcntl(m, fcntl.F_SETFL, os.O_NONBLOCK)
sent, end = 0, time.time() + 6
while time.time() < end:
    try:
        sent += os.write(m, b'x' * 99 + b'\n')
    except BlockingIOError:
        time.sleep(0.01)
t0 = time.time()
p.send_signal(signal.SIGTERM)
try:
    rc = p.wait(timeout=20)
except subprocess.TimeoutExpired:
    p.kill()
    rc = p.wait()
print(-rc if rc < 0 else rc, int((time.time() - t0) * 1000), sent)
PY
read -r rc ms sent < "$T/floodtty.res"
if [ "$rc" = 143 ]; then ok "flood tty: exit 143"; else bad "flood tty: exit $rc, expected 143" "$(tail -3 "$T/floodtty.err")"; fi
if [ "$ms" -le 2000 ]; then ok "flood tty: ended $ms ms after SIGTERM ($sent bytes typed)"; else bad "flood tty: ended $ms ms after SIGTERM (more than 2 s)"; fi
check_clean "flood tty"

echo "# S3, --qmp and --gdb (tests/qemu/qemuctl.py)"
DRIVE=$(dirname "$(realpath "$0")")/qemuctl-drive.py
# drive NAME ARGS...: the driver's "ok -"/"FAIL -" lines count as checks of NAME
drive() {
    local name=$1 line
    shift
    timeout -k 5 120 /usr/bin/python3 "$DRIVE" "$@" > "$T/$name.drive" 2>&1
    while IFS= read -r line; do
        case "$line" in
            "ok   - "*) ok "$name: ${line#ok   - }" ;;
            "FAIL - "*) bad "$name: ${line#FAIL - }" ;;
        esac
    done < "$T/$name.drive"
    grep -q '^ok   - ' "$T/$name.drive" || bad "$name: the driver checked nothing" "$(tail -3 "$T/$name.drive")"
}
# bg NAME ARGS...: the launcher in the background (its pid in BG); bgwait NAME EXPECTED_RC
bg() {
    local name=$1
    shift
    timeout -k 5 120 "$LAUNCHER" "$@" > "$T/$name.out" 2> "$T/$name.err" < /dev/null &
    BG=$!
}
bgwait() {
    local rc
    wait "$BG"
    rc=$?
    if [ "$rc" = "$2" ]; then ok "$1: exit $rc"; else bad "$1: exit $rc, expected $2" "$(tail -5 "$T/$1.err")"; fi
}
gone() {   # NAME PATH...: the sockets are removed after the run
    local p name=$1
    shift
    for p; do [ -e "$p" ] && { bad "$name: $p left behind"; return; }; done
    ok "$name: sockets removed"
}
S=$T/socks
mkdir -p "$S"
# q35: two sleeps; memory read and changed over gdb while asleep; QEMU resets the ICH9 LPC's PM
# base on the wake-up and SeaBIOS does not restore it, so testk restores it (pmfix)
bg s3 "${BASE[@]}" --qmp "$S/q" --gdb "$S/g" --vtboot-cmdline "action=s3 s3=2 pmfix tpmshutdown pcr"
drive s3 s3 "$S/q" "$S/g"
bgwait s3 0
expect_out s3 "TESTK: s3: woke up (#1 of 2) mark=22222222"
expect_out s3 "first=54414d5045524544"
expect_out s3 "TESTK: s3: woke up (#2 of 2) mark=22222223"
expect_out s3 "TESTK: ich9-lpc PMBASE(0x40)=0x00000001 ACPI_CNTL(0x44)=0x00"
expect_out s3 "TESTK: s3: TPM2_Shutdown(STATE): 0x00000000"
expect_out s3 "TESTK: pcr resume: PCR17 sha256=$(printf 'f%.0s' {1..64})"
expect_err s3 "vtboot-qemu: guest suspended (S3, #1, at "
expect_err s3 "vtboot-qemu: guest woke up (#2, at "
last_err_line s3 "vtboot-qemu: guest powered off"
gone s3 "$S/q" "$S/g"
# pc keeps the PM base: no pmfix needed
bg s3pc "${BASE[@]}" --machine pc --qmp "$S/q" --gdb "$S/g" --vtboot-cmdline "action=s3 s3=2"
drive s3pc s3 "$S/q" "$S/g"
bgwait s3pc 0
expect_out s3pc "TESTK: piix4-pm PMBA(0x40)=0x00000601 PMREGMISC(0x80)=0x01"
# q35 without the fix: the ACPI poweroff after the wake-up does nothing
bg s3q35 "${BASE[@]}" --qmp "$S/q" --vtboot-cmdline "action=s3" --timeout 10
drive s3q35 asleep "$S/q"
/usr/bin/python3 -c "import sys; sys.path.insert(0, '$(dirname "$DRIVE")/../../tests/qemu'); import qemuctl; qemuctl.Qmp('$S/q').command('system_wakeup')"
bgwait s3q35 3
expect_out s3q35 "TESTK: bye"
expect_err s3q35 "vtboot-qemu: guest woke up (#1"
# the timeout counts while the guest sleeps
bg asleep "${BASE[@]}" --qmp "$S/q" --vtboot-cmdline "action=s3" --timeout 4
drive asleep asleep "$S/q"
bgwait asleep 3
expect_err asleep "vtboot-qemu: guest suspended (S3, #1"
last_err_line asleep "vtboot-qemu: guest timed out"
gone asleep "$S/q"
# gdb on a running guest, a second QMP client, QMP quit
bg gdbrun "${BASE[@]}" --qmp "$S/q" --gdb "$S/g" --vtboot-cmdline "action=hang" -v
drive gdbrun running "$S/q" "$S/g" "$F/testk.elf"
bgwait gdbrun 4
last_err_line gdbrun "vtboot-qemu: guest crashed (SHUTDOWN host-qmp-quit"
expect_err gdbrun "QMP event STOP"
gone gdbrun "$S/q" "$S/g"
# a launch, then S3: the wake-up resets the TPM, PCR 17 is all-FF again
bg vss3 "${BASE[@]}" --qmp "$T/vss3.qmp" --vtboot-cmdline "action=s3 vsenter pmfix tpmshutdown pcr"
timeout -k 5 60 /usr/bin/python3 -c "
import sys; sys.path.insert(0, '$(dirname "$(realpath "$0")")/../../tests/qemu'); import qemuctl
q = qemuctl.Qmp('$T/vss3.qmp'); q.wait_event('SUSPEND', 50); q.command('system_wakeup')" > "$T/vss3.drive" 2>&1
bgwait vss3 0
has_line vss3 out "TESTK: launched #1: eax=544e5356 ebx=00100000 ecx=$HDR edx=00000001 esi=00000000 edi=00000000 ebp=00000000 esp=00000000"
count_lines vss3 out "TESTK: s3: woke up (#1 of 1) mark=11111111 " 1
has_line vss3 out "TESTK: pcr resume: PCR17 sha256=$FF256"
has_line vss3 err "vtboot-qemu: virtual SENTER: launched CPU 0 at 0x$ENTRY: MLE 0x00100000+0x$MLESZ sha256=$MLE256"
last_err_line vss3 "vtboot-qemu: guest powered off"
# a debugger attached from the start (QEMU -S) across a launch, as tests/qemu/kpatch.py does:
# it breaks at the MLE's entry and never sees the launcher's own stop (gdbmux.h)
bg gdblaunch "${BASE[@]}" --qmp "$S/q" --gdb "$S/g" --vtboot-cmdline "action=vsenter pcr" -v -- -S
drive gdblaunch launch "$S/q" "$S/g" "$TESTK"
bgwait gdblaunch 0
has_line gdblaunch err "vtboot-qemu: virtual SENTER: launched CPU 0 at 0x$ENTRY: MLE 0x00100000+0x$MLESZ sha256=$MLE256"
has_line gdblaunch err "vtboot-qemu: gdb: swallowed QEMU's stop reply T02thread:01;"
has_line gdblaunch out "TESTK: pcr after: PCR17 sha256=$W256"
gone gdblaunch "$S/q" "$S/g"
# a debugger attached and idle while QMP lets the VM run through a launch: no stop reply
bg gdbidle "${BASE[@]}" --qmp "$S/q" --gdb "$S/g" --vtboot-cmdline "action=vsenter pcr" -- -S
drive gdbidle launch-idle "$S/q" "$S/g"
bgwait gdbidle 0
has_line gdbidle out "TESTK: pcr after: PCR17 sha256=$W256"
# a stale socket is replaced; a live one, a file that is no socket, one path twice are refused
/usr/bin/python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('$S/stale')"
run stale 0 "${BASE[@]}" --qmp "$S/stale"
gone stale "$S/stale"
: > "$S/file"
run notsock 1 "${BASE[@]}" --qmp "$S/file"
expect_err notsock "exists and is not a socket"
[ -f "$S/file" ] && ok "notsock: the file is untouched" || bad "notsock: the file is gone"
/usr/bin/python3 -c "
import socket, time
s = socket.socket(socket.AF_UNIX); s.bind('$S/live'); s.listen(1); time.sleep(8)" &
LIVE=$!
sleep 0.5
run live 1 "${BASE[@]}" --gdb "$S/live"
expect_err live "a socket somebody is listening on"
kill "$LIVE" 2>/dev/null; wait "$LIVE" 2>/dev/null
run samepath 1 "${BASE[@]}" --qmp "$S/x" --gdb "$S/x"
run emptypath 1 "${BASE[@]}" --qmp ""
run longpath 1 "${BASE[@]}" --gdb "$S/$(printf 'x%.0s' {1..120})"
rm -f "$S/file" "$S/live"
check_clean "S3, --qmp and --gdb"

echo "# TPM fault injection (--tpm-fault), swtpm killed mid-run, a policy index in DA lockout"
# --tpm-fault makes the launcher relay the TPM data channel and answer the named commands
# itself (host/lib/tpmfault.c, ctrlproxy.c). testk's TPM commands: PCR_Read ("pcr": one),
# NV_ReadPublic + NV_Read per 512 bytes ("nv", resending on 0x922); SeaBIOS sends Startup.
TF=$T/tpmfault
mkdir -p "$TF"
TF_HELPER=$(dirname "$(realpath "$0")")/tpm-lockout.sh
tf_hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }
tf_has() {        # NAME out|err LINE: that exact line (a trailing \r dropped)
    if tr -d '\r' < "$T/$1.$2" | grep -qxF -- "$3"; then
        ok "$1: $2 line '$(cut -c 1-120 <<< "$3")'"
    else
        bad "$1: no $2 line '$3'" "$(tail -3 "$T/$1.$2")"
    fi
}
tf_count() {      # NAME out|err PREFIX N: N lines start with PREFIX
    local n
    n=$(tr -d '\r' < "$T/$1.$2" | awk -v p="$3" 'index($0, p) == 1' | wc -l)
    if [ "$n" = "$4" ]; then ok "$1: $4 $2 lines '$3...'"; else bad "$1: $n $2 lines '$3...', expected $4"; fi
}
tf_last() {       # NAME LINE: the only stderr line, exactly
    if [ "$(cat "$T/$1.err")" = "$2" ]; then ok "$1: stderr is '$2'"; else bad "$1: stderr" "$(cat "$T/$1.err")"; fi
}
tf_match() {      # NAME out|err ERE: a line matching ERE
    if tr -d '\r' < "$T/$1.$2" | grep -qE -- "$3"; then ok "$1: $2 matches '$3'"; else bad "$1: no $2 line matching '$3'" "$(tail -3 "$T/$1.$2")"; fi
}
head -c 1100 /dev/urandom > "$TF/pol1100"     # NV_Read at offsets 0, 512, 1024
NVHEX=$(tf_hex "$TF/pol1100")

# every PCR_Read: the guest gets the code, swtpm never sees the command
run fault-pcr 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff pcr" --tpm-fault PCR_Read=0x101
tf_has fault-pcr out "TESTK: pcr before: TPM error 0x00000101"
tf_count fault-pcr out "TESTK: pcr before: PCR" 0
tf_has fault-pcr err "vtboot-qemu: TPM fault: PCR_Read (0x17e) #1 answered 0x101"
tf_count fault-pcr err "vtboot-qemu: TPM fault: " 1
last_err_line fault-pcr "vtboot-qemu: guest powered off"
run fault-hex 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff pcr" --tpm-fault 0x17E=0x9A2
tf_has fault-hex out "TESTK: pcr before: TPM error 0x000009a2"
tf_has fault-hex err "vtboot-qemu: TPM fault: PCR_Read (0x17e) #1 answered 0x9a2"
# Startup never reaches swtpm: the TPM stays un-started, so PCR_Read is TPM_RC_INITIALIZE
run fault-startup 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff pcr" --tpm-fault Startup=0x101
tf_has fault-startup err "vtboot-qemu: TPM fault: Startup (0x144) #1 answered 0x101"
tf_has fault-startup out "TESTK: pcr before: TPM error 0x00000100"
# @N: only the Nth NV_Read (its offset shows which one failed)
run fault-nth 0 "${BASE[@]}" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff nv" \
    --tpm-fault NV_Read@2=0x101
tf_has fault-nth out "TESTK: nv public: attributes=0x22060002 size=1100"
tf_has fault-nth out "TESTK: nv read: TPM error 0x00000101 at offset 512"
tf_has fault-nth err "vtboot-qemu: TPM fault: NV_Read (0x14e) #2 answered 0x101"
tf_count fault-nth err "vtboot-qemu: TPM fault: " 1
run fault-retry 0 "${BASE[@]}" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff nv" \
    --tpm-fault NV_Read@1=0x922
tf_has fault-retry out "TESTK: nv read: TPM_RC_RETRY (0x922) at offset 0, retrying"
tf_count fault-retry out "TESTK: nv read: " 1
tf_has fault-retry out "TESTK: nv data=$NVHEX"
tf_count fault-retry err "vtboot-qemu: TPM fault: " 1
# a spec for the occurrence outranks the one for every occurrence
run fault-both 0 "${BASE[@]}" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff nv" \
    --tpm-fault NV_Read=0x101 --tpm-fault NV_Read@1=0x922
tf_has fault-both out "TESTK: nv read: TPM_RC_RETRY (0x922) at offset 0, retrying"
tf_has fault-both out "TESTK: nv read: TPM error 0x00000101 at offset 0"
tf_has fault-both err "vtboot-qemu: TPM fault: NV_Read (0x14e) #1 answered 0x922"
tf_has fault-both err "vtboot-qemu: TPM fault: NV_Read (0x14e) #2 answered 0x101"
tf_count fault-both err "vtboot-qemu: TPM fault: " 2
# the relay changes nothing else: a fault on a command nobody sends, same lines as without
# the relay; the index has no_da, so no TPM_RC_RETRY from libtpms either (host/README.md)
run fault-none 0 "${BASE[@]}" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff pcr nv"
run fault-idle 0 "${BASE[@]}" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff pcr nv" \
    --tpm-fault Quote=0x101 -v
a=$(tr -d '\r' < "$T/fault-none.out" | grep -a "^TESTK: \(pcr\|nv\)")
b=$(tr -d '\r' < "$T/fault-idle.out" | grep -a "^TESTK: \(pcr\|nv\)")
if [ "$a" = "$b" ] && [ "$(grep -c . <<< "$a")" = 6 ]; then
    ok "fault-idle: the same 6 PCR/NV lines as without the relay"
else
    bad "fault-idle: PCR/NV lines differ from a run without the relay" "$a / $b"
fi
tf_has fault-idle out "TESTK: nv data=$NVHEX"
tf_has fault-idle out "TESTK: pcr before: PCR17 sha256=$(printf 'f%.0s' {1..64})"
tf_count fault-idle out "TESTK: nv read: " 0
tf_count fault-idle err "vtboot-qemu: TPM fault: " 0
tf_has fault-idle err "vtboot-qemu: TPM data channel relayed through us (fault injection)"
tf_match fault-idle err "^vtboot-qemu: TPM data relay: .* \\([0-9]+ commands, 0 answered by faults, 0 malformed\\)$"
if grep -q "TPM data channel relayed" "$T/fault-none.err"; then bad "fault-none: relayed without faults"; else ok "fault-none: no relay without faults"; fi
check_clean "TPM faults"

# a bad SPEC is a setup error before anything starts: one line, exit 1
tf_bad() {        # NAME LINE ARGS...
    local name=$1 line=$2
    shift 2
    run "$name" 1 "${BASE[@]}" "$@"
    tf_last "$name" "$line"
    [ -s "$T/$name.out" ] && bad "$name: stdout not empty" || ok "$name: nothing booted"
}
tf_bad fault-badname "vtboot-qemu: error: --tpm-fault 'Bogus=0x101': unknown TPM 2.0 command 'Bogus' (a name from TPM 2.0 Part 2 such as PCR_Read, or a hex code such as 0x17e; --tpm-fault list shows the names)" \
    --tpm-fault Bogus=0x101
tf_bad fault-badnth "vtboot-qemu: error: --tpm-fault 'PCR_Read@0=0x101': the occurrence after '@' must be a number from 1 to 1000000" \
    --tpm-fault PCR_Read@0=0x101
tf_bad fault-badrc "vtboot-qemu: error: --tpm-fault 'PCR_Read=101': the response code must be hex from 0x1 to 0xffffffff (e.g. 0x101, TPM_RC_FAILURE)" \
    --tpm-fault PCR_Read=101
tf_bad fault-noeq "vtboot-qemu: error: --tpm-fault 'PCR_Read': expected CC[:H][@N]=RC (e.g. PCR_Read=0x101, NV_Read@2=0x922, PCR_Extend:17@1=0x101)" \
    --tpm-fault PCR_Read
tf_bad fault-dup "vtboot-qemu: error: --tpm-fault '0x17e@2=0x1': PCR_Read #2 has a fault already" \
    --tpm-fault PCR_Read@2=0x101 --tpm-fault 0x17e@2=0x1
tf_bad fault-nodrtm "vtboot-qemu: error: --tpm-fault needs the TPM control-channel proxy, which --no-tpm and --no-drtm turn off" \
    --tpm-fault PCR_Read=0x101 --no-drtm
tf_bad fault-notpm "vtboot-qemu: error: --tpm-fault needs the TPM control-channel proxy, which --no-tpm and --no-drtm turn off" \
    --tpm-fault PCR_Read=0x101 --no-tpm
check_clean "TPM fault errors"

# the command names: every command swtpm reports (TPM2_GetCapability(TPM_CAP_COMMANDS)) is
# listed with the name tpm2-tools gives it (tpm2-tools 5.4 has none for 0x197, CertifyX509,
# and prints the attribute value: only the code is checked then)
"$LAUNCHER" --tpm-fault list > "$T/fault-list.out" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(wc -l < "$T/fault-list.out")" = 119 ] && grep -qxF "0x0000017e PCR_Read" "$T/fault-list.out" &&
    ok "fault-list: 119 commands, PCR_Read 0x17e" || bad "fault-list: exit $rc" "$(head -3 "$T/fault-list.out")"
run fault-state 0 --provision-only --tpm-state "$TF/state"
tpm_up "$TF/state"
tpm2_getcap commands -T "$TCTI" 2> /dev/null |
    sed -n 's/^TPM2_CC_\(.*\):$/\1/p; s/^0x[0-9a-fA-F]*:$/?/p; s/^ *commandIndex: *\(0x[0-9a-f]*\)$/\1/p' |
    paste - - | while read -r cc_name cc_index; do printf '0x%08x %s\n' "$cc_index" "$cc_name"; done \
    > "$T/fault-swtpm.cmds"
tpm_down
n=$(grep -c . "$T/fault-swtpm.cmds")
miss=$(while read -r code name; do
           if [ "$name" = "?" ]; then
               grep -q "^$code " "$T/fault-list.out" || echo "$code"
           else
               grep -qxF "$code $name" "$T/fault-list.out" || echo "$code $name"
           fi
       done < "$T/fault-swtpm.cmds")
if [ "$n" -ge 100 ] && [ -z "$miss" ]; then
    ok "fault-list: the names and codes of all $n commands swtpm reports"
else
    bad "fault-list: swtpm's commands not in --tpm-fault list ($n read)" "$miss"
fi

# swtpm killed while the guest runs: a clear line, then the run ends (exit 4) after the grace
for how in direct relay; do
    name=swtpm-killed-$how
    extra=()
    [ $how = relay ] && extra=(--tpm-fault Quote=0x101)
    "$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=hang" --timeout 60 "${extra[@]}" \
        > "$T/$name.out" 2> "$T/$name.err" < /dev/null &
    pid=$!
    for _ in $(seq 200); do grep -aq "TESTK: hanging" "$T/$name.out" && break; sleep 0.1; done
    sw=$(pgrep -P $pid -x swtpm)
    t0=$(date +%s%N)
    [ -n "$sw" ] && kill -KILL "$sw"
    wait $pid
    rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    if [ -n "$sw" ] && [ $rc = 4 ]; then ok "$name: exit 4"; else bad "$name: exit $rc (swtpm pid '$sw')" "$(tail -3 "$T/$name.err")"; fi
    if [ $ms -ge 4500 ] && [ $ms -le 9000 ]; then ok "$name: ended ${ms} ms after the kill (grace 5 s)"; else bad "$name: ended ${ms} ms after the kill"; fi
    tf_match $name err "^vtboot-qemu: swtpm ended while the guest runs \\(killed by signal 9 \\(Killed\\), at [0-9]+\\.[0-9] s\\): the TPM is gone; the run ends in 5 s unless the guest ends first\$"
    tf_match $name err "^vtboot-qemu: guest crashed \\(swtpm ended: killed by signal 9 \\(Killed\\); QEMU stopped, [0-9]+\\.[0-9] s\\)\$"
    last_err_line $name "vtboot-qemu: guest crashed (swtpm ended: killed by signal 9 (Killed); QEMU stopped"
    check_clean "$name"
done

# a policy index WITHOUT no_da in a TPM in dictionary-attack lockout (tpm-lockout.sh): the guest
# cannot read it (TPM_RC_LOCKOUT); the launcher's own provisioning (no_da) stays readable
"$TF_HELPER" "$TF/locked" "$TF/pol1100" > "$T/lockout.out" 2>&1
rc=$?
if [ $rc = 0 ]; then ok "tpm-lockout.sh: exit 0"; else bad "tpm-lockout.sh: exit $rc" "$(tail -5 "$T/lockout.out")"; fi
tf_has lockout out "tpm-lockout: $TF/locked: index 0x01200001 (1100 bytes of $TF/pol1100, no no_da) is locked out (TPM in dictionary-attack lockout, max tries 1, recovery 86400 s)"
tf_has lockout out "  inLockout=1 TPM2_PT_LOCKOUT_COUNTER=0x1 TPM2_PT_MAX_AUTH_FAIL=0x1"
run lockout-boot 0 "${BASE[@]}" --tpm-state "$TF/locked" --vtboot-cmdline "action=poweroff nv"
tf_has lockout-boot out "TESTK: nv public: attributes=0x20060002 size=1100"
tf_has lockout-boot out "TESTK: nv read: TPM error 0x00000921 at offset 0"
run lockout-noda 0 "${BASE[@]}" --tpm-state "$TF/locked" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff nv"
tf_has lockout-noda out "TESTK: nv public: attributes=0x22060002 size=1100"
tf_has lockout-noda out "TESTK: nv data=$NVHEX"
tpm_up "$TF/locked"
tpm2_getcap properties-variable -T "$TCTI" > "$T/lockout-after.out" 2>&1
tpm_down
tf_has lockout-after out "  inLockout:                 1"
"$TF_HELPER" "$TF/locked2" "$TF/nonexistent" > "$T/lockout-bad.out" 2>&1
rc=$?
[ $rc = 1 ] && tf_has lockout-bad out "tpm-lockout: FAILED: $TF/nonexistent: no such file" || bad "tpm-lockout.sh without a policy file: exit $rc"
check_clean "DA lockout"

echo
[ $FAIL = 0 ] || printf 'failed: %s\n' "${FAILED[@]}"
echo "host: $PASS passed, $FAIL failed"
[ $FAIL = 0 ]
