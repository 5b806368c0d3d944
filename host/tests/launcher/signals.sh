# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE) after tpm-state.sh ($P).
echo "# signals and crashes"
# signalled NAME SIG AFTER RC ARGS...: the launcher of a hanging guest gets SIG AFTER seconds in,
# exits RC and leaves nothing behind
signalled() {
    local name=$1 sig=$2 after=$3 want=$4 pid rc
    shift 4
    "$LAUNCHER" "${BASE[@]}" "$@" --vtboot-cmdline "action=hang" > /dev/null 2> "$T/$name.err" &
    pid=$!
    sleep "$after"
    kill -"$sig" $pid
    wait $pid
    rc=$?
    if [ $rc = "$want" ]; then ok "$name: exit $rc"; else bad "$name: exit $rc, expected $want" "$(tail -3 "$T/$name.err")"; fi
    check_clean "$name"
}
signalled sigterm TERM 2 143
signalled sigint INT 2 130
signalled "sigterm early" TERM 0.1 143 --grub
# during swtpm_setup and the tpm2-tools provisioning (0.1 s in; all of it takes ~0.25 s)
signalled "sigterm provisioning" TERM 0.1 143 --policy "$P/max.pol"
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
