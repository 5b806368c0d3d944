#!/bin/sh
# SPDX-License-Identifier: MIT
# patch-new-file.sh PATCH PATH: print the content of the file PATH that the git patch PATCH
# creates (a "new file mode" hunk "@@ -0,0 +1,N @@"), exactly as the patch would write it.
# Fails when PATCH does not create PATH or its hunk is not whole. tests/fuzz.mk uses it to
# compile QEMU sources out of qemu/patches/ without unpacking QEMU.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 PATCH PATH" >&2; exit 2; }
awk -v path="$2" '
    BEGIN { state = 0; want = -1; got = 0; nonl = 0 }
    state == 0 && $0 == "diff --git a/" path " b/" path { state = 1; next }
    state == 1 && /^diff --git / { exit 3 }
    state == 1 && $0 == "--- /dev/null" { state = 2; next }
    state == 2 && $0 == "+++ b/" path { state = 3; next }
    state == 3 {
        if (match($0, /^@@ -0,0 \+1(,[0-9]+)? @@/)) {
            n = substr($0, 11, RLENGTH - 13)
            want = (n == "") ? 1 : substr(n, 2) + 0
            state = 4
            next
        }
        exit 3
    }
    state == 4 {
        if (got == want) {
            if ($0 == "\\ No newline at end of file") nonl = 1
            state = 5
            exit 0
        }
        if (substr($0, 1, 1) != "+") exit 4
        line[got++] = substr($0, 2)
        next
    }
    END {
        if (state < 4 || got != want) {
            printf "patch-new-file.sh: %s does not create %s whole\n", FILENAME, path > "/dev/stderr"
            exit 1
        }
        for (i = 0; i < got; i++)
            printf "%s%s", line[i], (i < got - 1 || !nonl) ? "\n" : ""
    }
' "$1"
