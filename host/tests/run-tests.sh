#!/bin/bash
# SPDX-License-Identifier: MIT
# Tests of vtboot-qemu with testk (host/tests/guest), a tiny multiboot kernel: every exit
# status, QEMU -kernel and GRUB (multiboot2 and multiboot1), the module strings, no modules,
# the TPM state's PCR banks and the policy in NV (checked with tpm2-tools and from the guest),
# cleanup on signals, the virtual SENTER, and S3 with --qmp/--gdb (driven through
# tests/qemu/qemuctl.py by qemuctl-drive.py).
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
    # ownerwrite 0x2 | ownerread 0x20000 | authread 0x40000 | written 0x20000000; no ppwrite (0x1)
    if grep -q "value: 0x20060002" <<< "$pub" && grep -q "size: $size\$" <<< "$pub" &&
       grep -q "friendly: ownerwrite|ownerread|authread|written" <<< "$pub" && ! grep -q ppwrite <<< "$pub"; then
        ok "$name: attributes ownerwrite|ownerread|authread (no ppwrite), size $size"
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
expect_out nvboot "TESTK: nv public: attributes=0x20060002 size=$(stat -c %s "$P/halt.pol")"
expect_out nvboot "TESTK: nv data=$(hex "$P/halt.pol")"
expect_out nvboot "TESTK: pcr before: PCR17 sha1=$(printf 'f%.0s' {1..40})"
grep -a "TESTK: nv read: TPM_RC_RETRY" "$T/nvboot.out" | tr -d '\r' | sed 's/^/     (libtpms) /'
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
tpm2_changeauth -c o secret -T "$TCTI" > /dev/null
tpm_down
run pol-toolfail 1 --provision-only --tpm-state "$T/tpm-owned" --policy "$P/halt.pol"
expect_err pol-toolfail "tpm2_nvundefine failed (exit status 1): tpm2_nvundefine 0x01200001 -C o -T swtpm:path="
expect_err pol-toolfail "ERROR: Esys_NV_UndefineSpace(0x9A2)"
run pol-toolfail-boot 1 "${BASE[@]}" --tpm-state "$T/tpm-owned" --policy "$P/halt.pol"
expect_err pol-toolfail-boot "tpm2_nvundefine failed"
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

echo "# virtual SENTER"
# what the host must measure: testk's read-only image, exactly as in its ELF file
objcopy -O binary -j .mle "$TESTK" "$T/mle.bin"
pcr_expect() {   # FILE-or-"-HEX" -> "sha256 sha1" of PCR 17 after one launch
    python3 - "$1" <<'PY'
import hashlib, sys
a = sys.argv[1]
if a.startswith('-'):
    print(hashlib.sha256(b'\0' * 32 + bytes.fromhex(a[1:])).hexdigest(), '-')
else:
    m = open(a, 'rb').read()
    print(hashlib.sha256(b'\0' * 32 + hashlib.sha256(m).digest()).hexdigest(),
          hashlib.sha1(b'\0' * 20 + hashlib.sha1(m).digest()).hexdigest(), hashlib.sha256(m).hexdigest())
PY
}
read -r W256 W1 MLE256 <<< "$(pcr_expect "$T/mle.bin")"
ZERO256=$(printf '0%.0s' {1..64})
check_launch() {  # NAME
    expect_out "$1" "TESTK: vsenter reply: VSENTER-OK 1 sha256=$MLE256"
    expect_out "$1" "TESTK: pcr after: PCR17 sha256=$W256"
    expect_out "$1" "TESTK: pcr after: PCR17 sha1=$W1"
    expect_out "$1" "TESTK: pcr after: PCR18 sha256=$ZERO256"
    expect_err "$1" "vtboot-qemu: virtual SENTER: mle 0x00100000+0x$(printf %08x "$(stat -c %s "$T/mle.bin")") sha256=$MLE256"
}
run vsenter 0 "${BASE[@]}" --vtboot-cmdline "action=vsenter pcr"
expect_out vsenter "TESTK: pcr before: PCR17 sha256=$(printf 'f%.0s' {1..64})"
check_launch vsenter
run vstwice 0 "${BASE[@]}" --vtboot-cmdline "action=vstwice"
check_launch vstwice
run vsgarbage 0 "${BASE[@]}" --vtboot-cmdline "action=vsgarbage"
for want in "bad 0: VSENTER-ERR 1 not a VSENTER request" "bad 1: VSENTER-ERR 1 unsupported protocol 2" \
            "bad 2: VSENTER-ERR 1 mle_size is 0" "bad 3: VSENTER-ERR 1 MLE range crosses 4 GiB" \
            "bad 4: VSENTER-ERR 1 mle_size above 0x1000000" "bad 5: VSENTER-ERR 1 malformed request" \
            "bad 6: VSENTER-ERR 1 MLE range not in guest RAM" "bad long: VSENTER-ERR 1 line too long" \
            "bad binary: VSENTER-ERR 1 not a VSENTER request"; do
    expect_out vsgarbage "TESTK: vsenter $want"
done
check_launch vsgarbage
run vsgrub 0 "${BASE[@]}" --grub --vtboot-cmdline "action=vsenter"
check_launch vsgrub
run vspc 0 "${BASE[@]}" --machine pc --vtboot-cmdline "action=vsenter"
check_launch vspc
run vsbig 0 "${BASE[@]}" --vtboot-cmdline "action=vsbig" -v
big=$(grep -a -o 'VSENTER-OK 1 sha256=[0-9a-f]*' "$T/vsbig.out" | sed 's/.*=//')
read -r B256 _ <<< "$(pcr_expect "-${big:-00}")"
expect_out vsbig "TESTK: pcr after: PCR17 sha256=$B256"
grep -a "virtual SENTER took" "$T/vsbig.err" | sed 's/^/     16 MiB: /'
run vsnotpm 0 "${BASE[@]}" --no-tpm --vtboot-cmdline "action=vsenter"
expect_out vsnotpm "TESTK: vsenter reply: VSENTER-ERR 1 no TPM"
run vsnodrtm 0 "${BASE[@]}" --no-drtm --vtboot-cmdline "action=vsenter pcr"
expect_out vsnodrtm "TESTK: no VSENTER UART"
run vsnodrtm2 0 "${BASE[@]}" --no-drtm --vtboot-cmdline "action=poweroff pcr"
expect_out vsnodrtm2 "TESTK: pcr before: PCR17 sha256=$(printf 'f%.0s' {1..64})"
check_clean "virtual SENTER"

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

echo
[ $FAIL = 0 ] || printf 'failed: %s\n' "${FAILED[@]}"
echo "host: $PASS passed, $FAIL failed"
[ $FAIL = 0 ]
