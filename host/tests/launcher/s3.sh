# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE) after vsenter.sh (its symbols and PCR values).
echo "# S3, --qmp and --gdb (tests/qemu/qemuctl.py)"
DRIVE=$HERE/qemuctl-drive.py
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
import sys; sys.path.insert(0, '$HERE/../../tests/qemu'); import qemuctl
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
