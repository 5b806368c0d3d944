#!/bin/sh
# vtboot-report.service: prints what the tests check, as "VTBOOT-DISK: key: value" lines on
# the serial console, then does what the host asked for through QEMU's fw_cfg
# (-fw_cfg name=opt/vtboot/action,string=ACTION): poweroff, s3 (systemctl suspend, the same
# report after the resume, then poweroff), or nothing (a user's boot: the system stays up).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
tty=/dev/ttyS0
say() { echo "VTBOOT-DISK: $*" > "$tty"; }
each() {
    # each line of a command's output (stdout and stderr), prefixed
    prefix=$1
    shift
    "$@" 2>&1 | while IFS= read -r line; do say "$prefix: $line"; done
}

report() {
    say "report: $1"
    say "init: $(cat /proc/1/comm)"
    say "kernel: $(uname -r)"
    say "cmdline: $(cat /proc/cmdline)"
    say "multi-user.target: $(systemctl is-active multi-user.target)"
    each dmesg sh -c 'dmesg | grep " tboot: "'
    each pcrread tpm2_pcrread sha256:17,18,19
    each stat vtboot-stat
    if vtboot-stat --eventlog /run/vtboot-eventlog > /dev/null 2>&1; then
        each eventlog sh -c 'tpm2_eventlog /run/vtboot-eventlog | sed -n "/^pcrs:/,\$p"'
    fi
    say "report-end: $1"
}

modprobe qemu_fw_cfg 2> /dev/null
f=/sys/firmware/qemu_fw_cfg/by_name/opt/vtboot/action/raw
action=$(cat "$f" 2> /dev/null || echo none)
say "action: $action"
report boot
case "$action" in
poweroff)
    say "powering off"
    systemctl --no-block poweroff
    ;;
s3)
    rm -f /run/vtboot-resumed
    say "suspending"
    systemctl suspend
    # the system-sleep hook marks the resume
    i=0
    while [ ! -e /run/vtboot-resumed ] && [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done
    say "resumed: $(cat /run/vtboot-resumed 2> /dev/null || echo no)"
    report resume
    say "powering off"
    systemctl --no-block poweroff
    ;;
esac
exit 0
