#!/bin/sh
# vtboot-txt-report.service (the TXT test image, scripts/build-disk-image-txt.sh): Debian's
# txt-stat and PCRs 17-19 of both banks, each line "VTBOOT-DISK: <key>: <line>" on the serial
# console, before vtboot-report.service (ordered after this) reports and does the action.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
tty=/dev/ttyS0
txt-stat 2>&1 | sed 's/^/VTBOOT-DISK: txt-stat: /' > "$tty"
tpm2_pcrread sha1:17,18,19+sha256:17,18,19 2>&1 | sed 's/^/VTBOOT-DISK: txt-pcrread: /' > "$tty"
exit 0
