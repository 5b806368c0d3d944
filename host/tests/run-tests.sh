#!/bin/bash
# SPDX-License-Identifier: MIT
# Tests of vtboot-qemu with testk (host/tests/guest), a tiny multiboot kernel: every exit
# status, QEMU -kernel and GRUB (multiboot2 and multiboot1), the module strings, cleanup on
# signals, and (unless the launcher was built without it) the virtual SENTER.
# usage: run-tests.sh path/to/vtboot-qemu path/to/testk.elf
set -u

LAUNCHER=$(realpath "$1")
TESTK=$(realpath "$2")
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
expect_out poweroff "TESTK: module 1=[initrd.img] size=$(stat -c %s "$F/initrd.img")"
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
expect_out grub2 "TESTK: module 1=[] size=$(stat -c %s "$F/initrd.img")"
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

echo
[ $FAIL = 0 ] || printf 'failed: %s\n' "${FAILED[@]}"
echo "host: $PASS passed, $FAIL failed"
[ $FAIL = 0 ]
