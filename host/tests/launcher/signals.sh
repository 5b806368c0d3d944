# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE) after tpm-state.sh ($P).
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
