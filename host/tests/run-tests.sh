#!/bin/bash
# SPDX-License-Identifier: MIT
# Tests of vtboot-qemu with testk (host/tests/guest), a tiny multiboot kernel: every exit
# status, QEMU -kernel and GRUB (multiboot2 and multiboot1), the module strings, no modules,
# the TPM state's PCR banks and the policy in NV (checked with tpm2-tools and from the guest),
# cleanup on signals, the virtual SENTER, a guest that floods it and COM1, and S3 with
# --qmp/--gdb (driven through tests/qemu/qemuctl.py by qemuctl-drive.py), and TPM faults.
#
# The checks live in host/tests/launcher/NAME.sh, one file per topic, sourced in the order of
# PARTS below: a file may use what an earlier one of its part set up (s3.sh and flood.sh use
# vsenter.sh's symbols, tpm-fault.sh uses tpm-state.sh's TPM helpers). The two parts run side
# by side, each in a process and temp dir of its own: most of their time is waiting (for
# guests that sleep or hang until a signal, for --timeout), so a second part costs little
# CPU, and `make test` gets the time back. Each part's output is printed whole.
# usage: run-tests.sh path/to/vtboot-qemu path/to/testk.elf [--part N]
#   without --part: both parts side by side, then the total; with it: part N alone
set -u

HERE=$(dirname "$(realpath "$0")")
PARTS=("exit-status variants grub errors no-modules tpm-state signals tpm-fault"
       "vsenter flood s3")

if [ $# = 2 ]; then
    logs=$(mktemp -d /tmp/vtq-parts.XXXXXX)
    trap 'rm -rf "$logs"' EXIT
    pids=()
    for i in "${!PARTS[@]}"; do
        "$0" "$1" "$2" --part $((i + 1)) > "$logs/$i" 2>&1 &
        pids+=($!)
    done
    rc=0
    for i in "${!PARTS[@]}"; do
        wait "${pids[$i]}" || rc=1
        cat "$logs/$i"
    done
    # each part's last line: "host part N (...): P passed, F failed"
    sed -n 's/^host part [0-9]* (.*): \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$logs"/* |
        awk -v parts=${#PARTS[@]} '{ p += $1; f += $2; n++ }
            END { if (n != parts) { print "host: a part ended without its summary"; exit 1 }
                  print "host: " p " passed, " f " failed" }' || rc=1
    exit $rc
fi
[ $# = 4 ] && [ "$3" = --part ] && [ "$4" -ge 1 ] 2>/dev/null && [ "$4" -le ${#PARTS[@]} ] || {
    echo "usage: $0 LAUNCHER TESTK [--part 1..${#PARTS[@]}]" >&2; exit 2; }
PART=$4
SECTIONS=${PARTS[$((PART - 1))]}

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

# testk's and the launcher's lines, exactly
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

BASE=(--vtboot "$F/testk.elf" --kernel "$F/bzImage" --initrd "$F/initrd.img")
ODD=(--cmdline "  a,b   c,,d 'q' \"x\\y\" " --vtboot-cmdline "action=poweroff  w,1 v=\"2 3\"")

for s in $SECTIONS; do
    . "$HERE/launcher/$s.sh"
done

echo
[ $FAIL = 0 ] || printf 'failed: %s\n' "${FAILED[@]}"
echo "host part $PART ($SECTIONS): $PASS passed, $FAIL failed"
[ $FAIL = 0 ]
