#!/bin/sh
# guest/mkinitrd.sh OUTPUT: build the guest initramfs (gzip'd newc cpio) into OUTPUT.
#
# Contents: busybox-static with every applet as a symlink, guest/init as /init, vtboot's guest tools
# (GUEST_TOOLS, static binaries into /usr/bin; GUEST_DYN_TOOLS, dynamic ones with their
# libraries, e.g. vtboot-attest), and Debian's /usr/sbin/txt-stat and txt-acminfo (package
# tboot) with the shared libraries and dynamic loader that ldd reports, at their own paths.
# Owners are 0:0, mtimes are fixed (SOURCE_DATE_EPOCH, default 0), the file order is sorted and
# gzip stores no name or time, so the same inputs give the same bytes.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: guest/mkinitrd.sh OUTPUT}
busybox=${BUSYBOX:-/bin/busybox}
txtstat=${TXT_STAT:-/usr/sbin/txt-stat}
txtacminfo=${TXT_ACMINFO:-/usr/sbin/txt-acminfo}
epoch=${SOURCE_DATE_EPOCH:-0}

die() { echo "guest: ERROR: $*" >&2; exit 1; }
[ -x "$busybox" ] || die "$busybox missing (apt-get install busybox-static)"
"$busybox" --list-full >/dev/null 2>&1 || die "$busybox is not a busybox with --list-full"
if ldd "$busybox" >/dev/null 2>&1 && ! ldd "$busybox" 2>&1 | grep -q 'not a dynamic executable'; then
    die "$busybox is dynamically linked; install busybox-static"
fi
[ -x "$txtstat" ] || die "$txtstat missing (apt-get install tboot)"
[ -x "$txtacminfo" ] || die "$txtacminfo missing (apt-get install tboot)"

mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "$out.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
r="$tmp/root"

for d in bin sbin usr/bin usr/sbin lib lib64 dev proc sys tmp run root etc mnt var; do
    mkdir -p "$r/$d"
done
chmod 1777 "$r/tmp"
chmod 700 "$r/root"

install -m 755 "$busybox" "$r/bin/busybox"
"$busybox" --list-full | while read -r p; do
    # No busybox init/linuxrc: /init is ours, and an inittab-less busybox init would wait forever.
    case "$p" in bin/busybox|sbin/init|linuxrc) continue ;; esac
    mkdir -p "$r/$(dirname "$p")"
    ln -sf /bin/busybox "$r/$p"
done

install -m 755 "$here/init" "$r/init"

# vtboot's own guest tools (static binaries): GUEST_TOOLS="path ...", into /usr/bin.
for tool in ${GUEST_TOOLS:-}; do
    [ -x "$tool" ] || die "guest tool $tool missing"
    install -m 755 "$tool" "$r/usr/bin/$(basename "$tool")"
done

# copy_libs BINARY: what it links against, at the same paths. ldd prints "name => /path (addr)"
# and "/path/ld.so (addr)".
copy_libs() {
    libs=$(ldd "$1" | sed -n -e 's/^.*=> \(\/[^ ]*\) (0x[0-9a-f]*)$/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (0x[0-9a-f]*)$/\1/p')
    [ -n "$libs" ] || die "ldd found no libraries for $1"
    interp_ok=0
    for lib in $libs; do
        mkdir -p "$r$(dirname "$lib")"
        cp -L "$lib" "$r$lib"
        chmod 755 "$r$lib"
        case "$lib" in */ld-linux*) interp_ok=1 ;; esac
    done
    [ "$interp_ok" = 1 ] || die "ldd did not report the dynamic loader of $1"
}

# txt-stat and txt-acminfo, and what they link against.
install -m 755 "$txtstat" "$r/usr/sbin/txt-stat"
copy_libs "$txtstat"
install -m 755 "$txtacminfo" "$r/usr/sbin/txt-acminfo"
copy_libs "$txtacminfo"

# vtboot's dynamically linked tools (GUEST_DYN_TOOLS="path ...", into /usr/bin without their
# debug information) and their libraries.
for tool in ${GUEST_DYN_TOOLS:-}; do
    [ -x "$tool" ] || die "guest tool $tool missing"
    strip -g -o "$r/usr/bin/$(basename "$tool")" "$tool" || die "cannot strip $tool"
    chmod 755 "$r/usr/bin/$(basename "$tool")"
    copy_libs "$tool"
done

cat > "$r/etc/passwd" <<'PW'
root:x:0:0:root:/root:/bin/sh
PW
echo 'root:x:0:' > "$r/etc/group"

find "$r" -exec touch -h -d "@$epoch" {} +
(
    cd "$r"
    find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort |
        cpio -o -H newc -R 0:0 --reproducible --quiet
) | gzip -n -9 > "$tmp/initrd.img"

# Sanity: it lists, and has /init and the loader.
gzip -dc "$tmp/initrd.img" | cpio -it --quiet > "$tmp/list"
grep -qx init "$tmp/list" || die "built archive has no /init"
grep -qx usr/sbin/txt-stat "$tmp/list" || die "built archive has no txt-stat"
grep -qx usr/sbin/txt-acminfo "$tmp/list" || die "built archive has no txt-acminfo"
for tool in ${GUEST_DYN_TOOLS:-}; do
    grep -qx "usr/bin/$(basename "$tool")" "$tmp/list" || die "built archive has no $(basename "$tool")"
done

mv -f "$tmp/initrd.img" "$out"
echo "guest: built $out ($(wc -c < "$out") bytes, $(wc -l < "$tmp/list") entries)"
