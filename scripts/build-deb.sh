#!/bin/sh
# scripts/build-deb.sh OUTDIR: builds vtboot's Debian packages (vtboot, vtboot-host) with
# `dpkg-buildpackage -b -us -uc` in a copy of the checkout in a temp dir (so that nothing lands
# beside the checkout or in it), checks them with lintian (no errors allowed; its whole report
# goes to OUTDIR/lintian.txt) and puts the .debs into OUTDIR (the old ones removed).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
outdir=$1
version=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)
jobs=$(nproc 2>/dev/null || echo 1)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vtboot-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
t0=$(date +%s)

mkdir "$tmp/vtboot"
# the tree as make builds it (work in progress included), without build output and git data
tar -C "$root" --exclude=./out --exclude=./.git -cf - . | tar -C "$tmp/vtboot" -xf -
# as by hand: not a sub-make of the caller's (`make -j2 disk-image` would hand debian/rules a
# jobserver it cannot reach, and it fell back to -j1)
if ! (cd "$tmp/vtboot" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL VTBOOT_VERSION="$version" \
        dpkg-buildpackage -b -us -uc -j"$jobs") >"$tmp/build.log" 2>&1; then
    tail -n 60 "$tmp/build.log" >&2
    echo "build-deb: dpkg-buildpackage failed (the last 60 lines are above)" >&2
    exit 1
fi
changes=$(ls "$tmp"/*.changes)
# lintian: errors fail the build; warnings and notes are in lintian.txt
lintian --allow-root --fail-on error "$changes" >"$tmp/lintian.txt" 2>&1 || {
    cat "$tmp/lintian.txt" >&2
    echo "build-deb: lintian found errors" >&2
    exit 1
}
mkdir -p "$outdir"
rm -f "$outdir"/*.deb
cp "$tmp"/*.deb "$outdir"/
cp "$tmp/lintian.txt" "$outdir/lintian.txt"
cp "$tmp/build.log" "$outdir/build.log"
echo "build-deb: $(cd "$outdir" && ls *.deb | tr '\n' ' ')($(($(date +%s) - t0)) s, lintian: $(grep -c '^[EWI]:' "$outdir/lintian.txt" || true) tags, no errors)"
