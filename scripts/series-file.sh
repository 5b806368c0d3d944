#!/bin/sh
# SPDX-License-Identifier: MIT
# series-file.sh PATCHDIR PATH: print the file PATH as the patch series in PATCHDIR (the patches
# its `series` file names, in order) leaves it: each patch's section for PATH, from its
# "diff --git a/PATH b/PATH" line to the next file's, applied with patch(1) in a temporary
# directory. Fails when no patch touches PATH or a section does not apply. tests/fuzz.mk uses it
# to compile QEMU sources out of qemu/patches/ without unpacking QEMU (the series creates
# the files it extracts, so nothing of QEMU's own is needed).
set -eu
[ $# -eq 2 ] || { echo "usage: $0 PATCHDIR PATH" >&2; exit 2; }
dir=$1
path=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree"
n=0
for p in $(sed -e 's/#.*//' "$dir/series"); do
    awk -v path="$path" '/^diff --git / { on = ($0 == "diff --git a/" path " b/" path) } on' \
        "$dir/$p" > "$tmp/section"
    [ -s "$tmp/section" ] || continue
    patch -s -p1 -d "$tmp/tree" --no-backup-if-mismatch -i "$tmp/section" || {
        echo "series-file.sh: $p: its change of $path does not apply" >&2; exit 1; }
    n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "series-file.sh: no patch in $dir changes $path" >&2; exit 1; }
cat "$tmp/tree/$path"
