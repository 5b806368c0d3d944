# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# A Debian source package with one of this project's patch series on top, fetched and unpacked
# the same way for qemu/build.sh and xen/build.sh: sourced after cache-lib.sh, not run. The
# caller defines say and die and sets $cache.

# series_patches PATCHDIR: the patches PATCHDIR/series names (blank lines and comments
# skipped), one per line; dies on one that is not in PATCHDIR.
series_patches() {
    local p list=""
    [ ! -f "$1/series" ] ||
        list=$(sed -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//' "$1/series" | grep -v -e '^#' -e '^$' || true)
    for p in $list; do
        [ -f "$1/$p" ] || die "$1/series lists $p, but $1/$p does not exist"
    done
    printf '%s\n' "$list"
}

# deb_source PKG VERSION SRCDIR DSC DSC_SHA PINNED_BY: the source package PKG=VERSION in SRCDIR,
# downloaded once (apt-get source --download-only through a private apt configuration in
# $cache/PKG-src/apt: its own deb-src list of bookworm, its updates and security suites and its
# own lists directory; the machine's sources are not touched), its DSC checked against DSC_SHA,
# the pin PINNED_BY sets.
deb_source() {
    local pkg=$1 version=$2 srcdir=$3 dsc=$4 dsc_sha=$5 pinned_by=$6 apt_dir got
    if [ ! -f "$dsc" ]; then
        command -v dpkg-source >/dev/null || die "dpkg-source is missing (apt-get install dpkg-dev)"
        apt_dir="$cache/$pkg-src/apt"
        rm -rf "$srcdir.tmp"
        mkdir -p "$apt_dir/parts" "$apt_dir/lists/partial" "$srcdir.tmp"
        cat > "$apt_dir/parts/vtboot-debian-src.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
        set -- -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt_dir/parts" \
               -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" \
               -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)"
        say "apt-get update (private deb-src list in $apt_dir)"
        apt-get -q "$@" update > "$apt_dir/update.log" 2>&1 || {
            cat "$apt_dir/update.log" >&2; die "apt-get update with the private deb-src list failed"; }
        say "apt-get source --download-only $pkg=$version"
        (cd "$srcdir.tmp" && apt-get -q "$@" source --download-only "$pkg=$version") \
            > "$apt_dir/source.log" 2>&1 || {
            cat "$apt_dir/source.log" >&2; die "apt-get source $pkg=$version failed"; }
        rm -rf "$srcdir"
        mv "$srcdir.tmp" "$srcdir"
    fi
    got=$(sha < "$dsc")
    [ "$got" = "$dsc_sha" ] || die "$dsc has sha256 $got, $pinned_by pins $dsc_sha"
}

# unpack_patched DSC DEST PATCHDIR PATCHES: DSC unpacked into DEST (dpkg-source: Debian's own
# patches applied, the log in DEST.unpack.log), then each of PATCHES (words) from PATCHDIR.
unpack_patched() {
    local dsc=$1 dest=$2 patchdir=$3 patches=$4 t0 p
    t0=$(date +%s)
    say "unpacking $dsc (dpkg-source: Debian's patches applied)"
    run dpkg-source -q -x "$dsc" "$dest" > "$dest.unpack.log" 2>&1 || {
        cat "$dest.unpack.log" >&2; die "dpkg-source -x failed"; }
    for p in $patches; do
        say "applying $p"
        patch -d "$dest" -p1 --batch --forward --no-backup-if-mismatch -s < "$patchdir/$p" \
            || die "patch $p does not apply"
    done
    say "unpacked and patched in $(( $(date +%s) - t0 ))s"
}
