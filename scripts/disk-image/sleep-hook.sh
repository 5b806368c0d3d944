#!/bin/sh
# /usr/lib/systemd/system-sleep/vtboot-report: marks a resume for vtboot-report (s3)
case "$1/$2" in
pre/suspend) echo "VTBOOT-DISK: sleep: $1 $2" > /dev/ttyS0 ;;
post/suspend)
    echo "VTBOOT-DISK: sleep: $1 $2" > /dev/ttyS0
    date +%s > /run/vtboot-resumed
    ;;
esac
exit 0
