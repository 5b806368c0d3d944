#!/bin/sh
# The --help that help2man reads for vtboot-attest(1) (packaging.mk installs this as
# out/pkg/help/vtboot-attest, @VTBOOT_ATTEST@ the built tool): the tool's own usage as a
# synopsis, then each command's own --help text, so the man page cannot drift from the tool.
set -eu
b='@VTBOOT_ATTEST@'
[ "${1:-}" = --help ] || { echo "usage: vtboot-attest --help" >&2; exit 2; }
# usage lines: a wrapped one (indented, not a new "vtboot-attest ...") joined to the one before
"$b" --help | awk 'NR > 1 && /^ / && !/^ *vtboot-attest / { sub(/^ +/, " "); printf "%s", $0; next }
                   NR > 1 { print "" } { printf "%s", $0 } END { print "" }' |
    sed -e '1s/^usage: /Usage: /' -e '2,$s/^ *vtboot-attest/  or:  vtboot-attest/'
echo
echo "Commands:"
for c in enroll quote verify; do
    printf '  %s  ' "$c"
    # the text after the command's usage lines, as one paragraph
    "$b" "$c" --help | sed -e '1,/^[^ u]/{/^[^ u]/!d}' | tr '\n' ' '
    echo
done
