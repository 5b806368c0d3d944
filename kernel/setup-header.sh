#!/bin/sh
# kernel/setup-header.sh BZIMAGE: print the x86 boot protocol setup header fields a loader needs
# (Documentation/x86/boot.rst), as "name=value" lines.
set -eu
f=${1:?usage: kernel/setup-header.sh BZIMAGE}
u() { # u OFFSET SIZE -> unsigned little-endian integer, printed as hex
    od -A n -t "x$2" -j "$(($1))" -N "$2" "$f" | tr -d ' \n'
}
[ "$(dd if="$f" bs=1 skip=$((0x202)) count=4 2>/dev/null)" = HdrS ] || { echo "$f: no HdrS signature" >&2; exit 1; }
v=$(( 0x$(u 0x206 2) ))
printf 'boot_protocol=%d.%02d\n' $((v >> 8)) $((v & 0xff))
printf 'setup_sects=%d\n' $(( 0x$(u 0x1f1 1) ))
printf 'loadflags=0x%02x\n' $(( 0x$(u 0x211 1) ))
printf 'code32_start=0x%x\n' $(( 0x$(u 0x214 4) ))
printf 'initrd_addr_max=0x%x\n' $(( 0x$(u 0x22c 4) ))
printf 'kernel_alignment=0x%x\n' $(( 0x$(u 0x230 4) ))
printf 'relocatable_kernel=%d\n' $(( 0x$(u 0x234 1) ))
printf 'min_alignment=%d\n' $(( 0x$(u 0x235 1) ))
printf 'xloadflags=0x%x\n' $(( 0x$(u 0x236 2) ))
printf 'cmdline_size=%d\n' $(( 0x$(u 0x238 4) ))
printf 'payload_offset=0x%x\n' $(( 0x$(u 0x248 4) ))
printf 'payload_length=0x%x\n' $(( 0x$(u 0x24c 4) ))
printf 'pref_address=0x%x\n' $(( 0x$(u 0x258 8) ))
printf 'init_size=0x%x\n' $(( 0x$(u 0x260 4) ))
printf 'handover_offset=0x%x\n' $(( 0x$(u 0x264 4) ))
printf 'kernel_info_offset=0x%x\n' $(( 0x$(u 0x268 4) ))
printf 'file_size=%d\n' "$(wc -c < "$f")"
