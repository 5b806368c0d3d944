#!/bin/sh
# kernel/build.sh: build the guest Linux kernel (Debian linux-source-6.1) for vtboot.
#
#   kernel/build.sh [--stock] [--out DIR]
#
# --stock: unpacks /usr/src/linux-source-6.1.tar.xz into $VTBOOT_CACHE/linux-<stock key>/, merges
# kernel/config/*.config onto `make ARCH=x86_64 tinyconfig`, runs olddefconfig, checks that every
# fragment option survived, builds bzImage and copies it to DIR/bzImage-stock and the .config to
# DIR/kernel-stock.config.
# Without --stock: the same plus the patches listed in kernel/patches/series, into
# $VTBOOT_CACHE/linux-<patched key>/, copied to DIR/bzImage and DIR/kernel.config. The patched tree
# is built incrementally on top of the stock one (built first if needed): a hard-linked copy of it
# with the patches applied, so only what they touch is recompiled.
#
# <stock key> is a sha256 over the package version, every config fragment and this script; the
# <patched key> also covers the patches actually applied (names and contents, in order). An empty
# series gives the stock key. A finished tree is never modified again; if linux-<key>/ exists, its
# bzImage is just copied. Builds run in a temporary directory next to it and are renamed into
# place only on success. See kernel/README.md.
set -eu

t_start=$(date +%s)
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
self="$here/build.sh"

stock=0
out="${OUT:-$root/out}"
while [ $# -gt 0 ]; do
    case "$1" in
        --stock) stock=1 ;;
        --out) out="$2"; shift ;;
        --out=*) out="${1#--out=}" ;;
        -h|--help) sed -n '2,20p' "$self" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "kernel/build.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done

cache="${VTBOOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vtboot}"
pkg=linux-source-6.1
tarball=/usr/src/linux-source-6.1.tar.xz
patchdir="$here/patches"
series="$patchdir/series"
confdir="$here/config"

if [ "$stock" = 1 ]; then
    name=bzImage-stock; cfgname=kernel-stock.config; flavour=stock
else
    name=bzImage; cfgname=kernel.config; flavour=patched
fi

say() { echo "kernel: $*"; }
die() { echo "kernel: ERROR: $*" >&2; exit 1; }
# shellcheck source=../scripts/cache-lib.sh
. "$here/../scripts/cache-lib.sh"
elapsed() { echo "$(( $(date +%s) - t_start ))s"; }

pkgver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) || pkgver=""
[ -n "$pkgver" ] || die "package $pkg is not installed (apt-get install $pkg, or run 'make deps')"
[ -r "$tarball" ] || die "$tarball is missing (reinstall $pkg)"

# Patches to apply: the series file minus comments and blank lines; none for --stock.
patches=""
if [ "$stock" = 0 ] && [ -f "$series" ]; then
    patches=$(sed -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//' "$series" | grep -v -e '^#' -e '^$' || true)
fi
for p in $patches; do
    [ -f "$patchdir/$p" ] || die "kernel/patches/series lists $p, but kernel/patches/$p does not exist"
done

fragments=$(find "$confdir" -maxdepth 1 -name '*.config' -type f | LC_ALL=C sort)
[ -n "$fragments" ] || die "no config fragments in $confdir"

# ---- cache keys ---------------------------------------------------------------------------------
# The stock key covers what every tree shares; the patched key adds the patches, in order. The two
# manifests differ only by the patch lines, so with an empty series they are the same key.
manifest() {   # manifest [PATCHES]
    echo "vtboot-kernel-key v2"
    echo "package $pkg $pkgver"
    for f in $fragments; do echo "config $(basename "$f") $(sha < "$f")"; done
    echo "build.sh $(sha < "$self")"
    echo "cache-lib.sh $(sha < "$here/../scripts/cache-lib.sh")"
    for p in ${1:-}; do echo "patch $p $(sha < "$patchdir/$p")"; done
}
stock_key=$(manifest | sha)
key=$(manifest "$patches" | sha)
final="$cache/linux-$key"
stock_final="$cache/linux-$stock_key"

outputs() { install_outputs "$final" "$out" "arch/x86/boot/bzImage:$name" ".config:$cfgname"; }

# Fast path: the finished tree for this key exists.
if [ -f "$final/arch/x86/boot/bzImage" ]; then
    outputs
    say "$flavour kernel up to date: $out/$name (cached $final) [$(elapsed)]"
    exit 0
fi

# A patched tree starts from the finished stock tree: build that first (it also installs
# $out/bzImage-stock). Its lock is taken and released there, before we take ours.
if [ "$key" != "$stock_key" ]; then
    "$self" --stock --out "$out" || die "the stock kernel (the base of the patched one) failed to build"
    [ -f "$stock_final/arch/x86/boot/bzImage" ] || die "no stock tree $stock_final after building it"
fi

# ---- slow path: build -----------------------------------------------------------------------------
mkdir -p "$cache"
# One builder per key (e.g. `make -j out/bzImage out/bzImage-stock` with an empty series).
cache_lock "$cache" "linux-$key"
if [ -f "$final/arch/x86/boot/bzImage" ]; then   # built by whoever held the lock
    outputs
    say "$flavour kernel up to date: $out/$name (cached $final) [$(elapsed)]"
    exit 0
fi
# Leftovers of an interrupted build of this key are stale (we hold its lock).
rm -rf "$cache/tmp-linux-$key".*
[ ! -e "$final" ] || rm -rf "$final"   # exists without a bzImage: not ours, never finished

say "building $flavour kernel, key $key"
# shellcheck disable=SC2086 # one line
say "package $pkg $pkgver; patches: $(echo ${patches:-none})"
temp_build_tree kernel "$cache/tmp-linux-$key"

if [ "$key" = "$stock_key" ]; then
    say "unpacking $tarball"
    run tar -C "$tmp" -I 'xz -T0' -xf "$tarball" --strip-components=1 || die "unpacking $tarball failed"
    # The files of the source tree, for a patched tree that shares them (see below).
    (cd "$tmp" && find . -type f | LC_ALL=C sort > .vtboot-sources)
else
    # Incremental: a copy of the finished stock tree, sources and objects, where every file is a hard
    # link to the stock one. A file the build may write (anything that is not a pristine source:
    # objects, .cmd files, the .config, generated headers, host tools) is then unlinked and copied
    # (with its mtime), and patch(1) replaces the files it patches with new ones, so
    # nothing written here reaches the stock tree; this is checked at the end. kbuild, building in
    # place with relative paths, then recompiles only what the patches touch. The one place with
    # absolute paths is tools/objtool (built with O=<abs path>): its .cmd files name the stock
    # tree's build directory and are rewritten to ours, or objtool, and with it every object, would
    # be rebuilt.
    say "copying the stock tree $stock_final (hard links)"
    t_copy=$(date +%s)
    run cp -al "$stock_final/." "$tmp/" || die "copying $stock_final failed"
    (cd "$tmp" && find . -type f ! -path ./.vtboot-generated | LC_ALL=C sort |
        LC_ALL=C comm -23 - .vtboot-sources > .vtboot-generated &&
        tr '\n' '\0' < .vtboot-generated | xargs -0 rm -f) || die "unlinking the build outputs failed"
    tr '\n' '\0' < "$tmp/.vtboot-generated" | (cd "$stock_final" && xargs -0 -r cp -a --parents -t "$tmp") ||
        die "copying the stock tree's build outputs failed"
    old_dir=$(cat "$stock_final/.vtboot-build-dir")
    (cd "$tmp" && grep '^\./tools/' .vtboot-generated | tr '\n' '\0' |
        xargs -0 -r grep -lIF -- "$old_dir" | tr '\n' '\0' |
        xargs -0 -r sed -i "s|$old_dir|$tmp|g") || die "rewriting objtool's paths failed"
    say "copied in $(( $(date +%s) - t_copy ))s ($(wc -l < "$tmp/.vtboot-generated") build files copied, sources linked)"
    touch "$tmp/.vtboot-incremental-start"
fi
echo "$tmp" > "$tmp/.vtboot-build-dir"
manifest "$patches" > "$tmp/vtboot-key.txt"
[ "$key" = "$stock_key" ] || echo "base linux-$stock_key" >> "$tmp/vtboot-key.txt"

for p in $patches; do
    say "applying $p"
    patch -d "$tmp" -p1 --batch --forward --no-backup-if-mismatch -s < "$patchdir/$p" \
        || die "patch $p does not apply"
done

# Keep the kernel's own make independent of the make (and environment) that called us.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL KBUILD_OUTPUT O CROSS_COMPILE CC LD KCONFIG_CONFIG 2>/dev/null || true
export LOCALVERSION=
export KBUILD_BUILD_USER=vtboot KBUILD_BUILD_HOST=vtboot KBUILD_BUILD_VERSION=1
export KBUILD_BUILD_TIMESTAMP='2000-01-01 00:00:00 UTC'
kmake() { make -C "$tmp" ARCH=x86_64 "$@"; }

say "configuring: tinyconfig + $(for f in $fragments; do printf '%s ' "$(basename "$f")"; done)"
kmake -s tinyconfig >"$tmp/tinyconfig.log" 2>&1 || { cat "$tmp/tinyconfig.log" >&2; die "make tinyconfig failed"; }
for f in $fragments; do
    printf '\n# ---- vtboot fragment %s\n' "$(basename "$f")"
    cat "$f"
done >> "$tmp/.config"
kmake -s olddefconfig >/dev/null 2>"$tmp/olddefconfig.log" || {
    cat "$tmp/olddefconfig.log" >&2; die "olddefconfig failed"; }

# Every option a fragment sets must have the same value in the final .config. Later fragments
# override earlier ones (that is how kconfig reads the concatenation), so check the last setting.
wanted=$(for f in $fragments; do
    sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1 \2 '"$(basename "$f")"'/p' \
           -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set.*$/\1 n '"$(basename "$f")"'/p' "$f"
done | awk '{ v[$1] = $2; src[$1] = $3; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
            END { for (i = 0; i < n; i++) print order[i], v[order[i]], src[order[i]] }')
echo "$wanted" | {
    bad=0
    while read -r opt val src; do
        got=$(sed -n -e "s/^$opt=\\(.*\\)\$/\\1/p" -e "s/^# $opt is not set\$/n/p" "$tmp/.config" | tail -n 1)
        [ -n "$got" ] || got=n   # absent from .config: unset or unavailable
        if [ "$got" != "$val" ]; then
            echo "kernel: ERROR: $opt=$val (from $src) did not survive olddefconfig: got ${got}" >&2
            bad=1
        fi
    done
    exit $bad
} || {
    mkdir -p "$out"; cp "$tmp/.config" "$out/$cfgname.rejected" 2>/dev/null || true
    die "config fragments not satisfied (missing dependencies?); resulting config: $out/$cfgname.rejected"
}
rm -f "$out/$cfgname.rejected"
say "config check: all $(echo "$wanted" | wc -l) fragment options survived"

jobs=$(nproc 2>/dev/null || echo 2)
say "make -j$jobs bzImage (log: $tmp/build.log)"
t_build=$(date +%s)
if ! run make -C "$tmp" ARCH=x86_64 -j"$jobs" bzImage > "$tmp/build.log" 2>&1; then
    tail -n 40 "$tmp/build.log" >&2
    keep_tmp=1
    die "kernel build failed"
fi
grep -i 'warning:' "$tmp/build.log" >&2 || true
say "compiled in $(( $(date +%s) - t_build ))s ($(grep -c '^  CC ' "$tmp/build.log" || true) files compiled)"

if [ -f "$tmp/.vtboot-incremental-start" ]; then
    # Nothing that is still shared with the stock tree may have been written.
    shared_written=$(find "$tmp" -type f -links +1 -newer "$tmp/.vtboot-incremental-start" | head -n 5)
    if [ -n "$shared_written" ]; then
        keep_tmp=1
        die "the build wrote files shared with $stock_final (remove that tree too): $shared_written"
    fi
fi

# Publish atomically. mv -T refuses to move into an existing directory.
sync -f "$tmp/arch/x86/boot/bzImage" 2>/dev/null || true
mv -T "$tmp" "$final"
tmp=""
outputs
say "$flavour kernel built: $out/$name ($(wc -c < "$final/arch/x86/boot/bzImage") bytes), tree $final"
say "setup header: $("$here/setup-header.sh" "$out/$name" | grep -v file_size | tr '\n' ' ')"
old=$(find "$cache" -maxdepth 1 -name 'linux-*' -type d ! -name "linux-$key" ! -name "linux-$stock_key" \
      2>/dev/null | LC_ALL=C sort)
# shellcheck disable=SC2086 # one path per word
[ -z "$old" ] || say "other cached kernel trees (safe to delete):$(printf '\n  %s' $old)"
say "build wall time $(elapsed)"
