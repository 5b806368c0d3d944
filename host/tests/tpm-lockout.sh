#!/bin/bash
# SPDX-License-Identifier: MIT
# A swtpm TPM 2.0 state whose policy index is locked out by dictionary-attack protection, for
# the test "a halt policy whose index is locked out" (issue 9). What a user's own provisioning
# without `no_da` plus a few bad passwords leads to:
#
#   1. STATE_DIR gets a fresh state if it has none (swtpm_setup, banks sha1,sha256, as the
#      launcher makes them);
#   2. a DA lockout from before is cleared (tpm2_dictionarylockout --clear-lockout);
#      NV index 0x01200001 is (re)defined WITHOUT no_da (ownerwrite|authread|ownerread) and
#      POLICY_FILE is written into it;
#   3. DA parameters: tpm2_dictionarylockout --setup-parameters --max-tries=1
#      --recovery-time=86400 --lockout-recovery-time=86400 (one failure locks; healing would
#      take a day of TPM run time);
#   4. one read of the index with a wrong password (TPM_RC_AUTH_FAIL, 0x98e): the TPM is now
#      in lockout;
#   5. checked, after a clean shutdown and a new swtpm + TPM2_Startup, as a boot will see it:
#      TPM2_PT_PERMANENT inLockout = 1, TPM2_PT_LOCKOUT_COUNTER >= TPM2_PT_MAX_AUTH_FAIL = 1, and
#      a read with the right (empty) password fails with TPM_RC_LOCKOUT (0x921); the index's
#      public area has no no_da (attributes 0x20060002).
#
# The owner and lockout authorizations are those vtboot-qemu keeps in STATE_DIR
# (vtboot-owner.auth, vtboot-lockout.auth: host/lib/tpmprov.h), or empty in a state without them.
#
# swtpm runs as tpmprov.c runs it (--flags not-need-init, unix data socket S and S.ctrl,
# tpm2-tools with -T swtpm:path=S). Every command is printed; any failure exits 1.
# usage: tpm-lockout.sh STATE_DIR POLICY_FILE
set -u

if [ $# != 2 ]; then
    echo "usage: $0 STATE_DIR POLICY_FILE" >&2
    exit 2
fi
STATE=$1
POLICY=$2
INDEX=0x01200001
NO_NODA_ATTRS="ownerwrite|authread|ownerread"
W=$(mktemp -d /tmp/tpm-lockout.XXXXXX)
SOCK=$W/tpm.sock
TCTI="swtpm:path=$SOCK"
SWTPM_PID=

fail() {
    echo "tpm-lockout: FAILED: $*" >&2
    exit 1
}
stop_swtpm() {
    if [ -n "$SWTPM_PID" ]; then
        kill "$SWTPM_PID" 2> /dev/null
        wait "$SWTPM_PID" 2> /dev/null
        SWTPM_PID=
    fi
    rm -f "$SOCK" "$SOCK.ctrl"
}
trap 'stop_swtpm; rm -rf "$W"' EXIT

# run CMD...: prints it, runs it, fails (with its output) unless it exits 0; output in $W/out
run() {
    echo "+ $*"
    if ! "$@" > "$W/out" 2>&1; then
        sed 's/^/    /' "$W/out" >&2
        fail "$1 exited non-zero"
    fi
}
# must_fail RC CMD...: CMD must fail, and its output must name TPM response code RC
must_fail() {
    local rc=$1
    shift
    echo "+ $*   (must fail with $rc)"
    if "$@" > "$W/out" 2>&1; then
        fail "$1 succeeded"
    fi
    grep -qi -- "$rc" "$W/out" || { sed 's/^/    /' "$W/out" >&2; fail "$1 did not fail with $rc"; }
    echo "  failed as expected: $(grep -i -m1 -- "$rc" "$W/out")"
}
start_swtpm() {
    echo "+ swtpm socket --tpm2 --tpmstate=dir=$STATE --server=type=unixio,path=$SOCK" \
         "--ctrl=type=unixio,path=$SOCK.ctrl --flags=not-need-init"
    swtpm socket --tpm2 --tpmstate="dir=$STATE" --server="type=unixio,path=$SOCK" \
          --ctrl="type=unixio,path=$SOCK.ctrl" --flags=not-need-init 2> "$W/swtpm.err" &
    SWTPM_PID=$!
    for _ in $(seq 300); do
        [ -S "$SOCK" ] && [ -S "$SOCK.ctrl" ] && return 0
        kill -0 "$SWTPM_PID" 2> /dev/null || break
        sleep 0.01
    done
    cat "$W/swtpm.err" >&2
    fail "swtpm did not come up"
}
getcap_var() {    # NAME: the value of a TPM2_PT_ line, or of a TPM2_PT_PERMANENT field
    sed -n "s/^ *$1: *\([0-9a-fx]*\).*/\1/p" "$W/props" | head -1
}

command -v swtpm > /dev/null && command -v tpm2_nvdefine > /dev/null ||
    fail "needs swtpm and tpm2-tools"
[ -f "$POLICY" ] || fail "$POLICY: no such file"
SIZE=$(stat -c %s "$POLICY")
[ "$SIZE" -ge 1 ] && [ "$SIZE" -le 2048 ] || fail "$POLICY: $SIZE bytes (1 to 2048)"
mkdir -p "$STATE" || fail "cannot make $STATE"
case "$STATE" in *,*) fail "swtpm cannot take a ',' in $STATE";; esac

if [ ! -f "$STATE/tpm2-00.permall" ]; then
    run swtpm_setup --tpm2 --tpmstate "$STATE" --pcr-banks sha1,sha256
fi

OWNER=()
LOCKOUT=()
[ -f "$STATE/vtboot-owner.auth" ] && OWNER=(-P "file:$STATE/vtboot-owner.auth")
[ -f "$STATE/vtboot-lockout.auth" ] && LOCKOUT=(-p "file:$STATE/vtboot-lockout.auth")

# provisioning without no_da, the DA parameters, one bad password
start_swtpm
run tpm2_startup -c -T "$TCTI"
# a state this script locked before
run tpm2_dictionarylockout --clear-lockout "${LOCKOUT[@]}" -T "$TCTI"
run tpm2_getcap handles-nv-index -T "$TCTI"
if grep -qiE "0x0*$(printf %x "$INDEX")\$" "$W/out"; then
    run tpm2_nvundefine "$INDEX" -C o "${OWNER[@]}" -T "$TCTI"
fi
run tpm2_nvdefine "$INDEX" -C o "${OWNER[@]}" -s "$SIZE" -a "$NO_NODA_ATTRS" -T "$TCTI"
run tpm2_nvwrite "$INDEX" -C o "${OWNER[@]}" -i "$POLICY" -T "$TCTI"
run tpm2_dictionarylockout --setup-parameters --max-tries=1 --recovery-time=86400 \
    --lockout-recovery-time=86400 "${LOCKOUT[@]}" -T "$TCTI"
must_fail 0x98e tpm2_nvread "$INDEX" -C "$INDEX" -P wrong-password -s "$SIZE" -T "$TCTI" -o "$W/nv.bin"
run tpm2_shutdown -c -T "$TCTI"
stop_swtpm

# as the next boot sees it
start_swtpm
run tpm2_startup -c -T "$TCTI"
run tpm2_getcap properties-variable -T "$TCTI"
cp "$W/out" "$W/props"
in_lockout=$(getcap_var inLockout)
counter=$(getcap_var TPM2_PT_LOCKOUT_COUNTER)
max=$(getcap_var TPM2_PT_MAX_AUTH_FAIL)
echo "  inLockout=$in_lockout TPM2_PT_LOCKOUT_COUNTER=$counter TPM2_PT_MAX_AUTH_FAIL=$max"
[ "$in_lockout" = 1 ] || fail "inLockout is '$in_lockout', not 1"
[ -n "$counter" ] && [ -n "$max" ] && [ "$max" = 0x1 ] && [ $((counter)) -ge $((max)) ] ||
    fail "lockout counter '$counter', max tries '$max'"
run tpm2_nvreadpublic "$INDEX" -T "$TCTI"
grep -q "value: 0x20060002" "$W/out" || { cat "$W/out" >&2; fail "index attributes are not 0x20060002"; }
echo "  index $INDEX: attributes 0x20060002 (ownerwrite|ownerread|authread|written, no no_da)"
must_fail 0x921 tpm2_nvread "$INDEX" -C "$INDEX" -s "$SIZE" -T "$TCTI" -o "$W/nv.bin"
run tpm2_shutdown -c -T "$TCTI"
stop_swtpm
echo "tpm-lockout: $STATE: index $INDEX ($SIZE bytes of $POLICY, no no_da) is locked out" \
     "(TPM in dictionary-attack lockout, max tries 1, recovery 86400 s)"
