#!/bin/sh
# scripts/demo.sh [LAUNCHER OPTIONS...]: `make run`'s boot. vtboot launches Debian's own
# distribution kernel (scripts/fetch-dist-kernel.sh) with the demo initramfs (out/initrd.img)
# in QEMU with a swtpm TPM; the guest's console is on stdout. Afterwards the PCRs 17-19 the guest
# read from the TPM are compared with `vtboot-pcr predict` computed on the host from the same
# files. Exit status: the launcher's if the boot failed, 1 if a PCR differs, else 0.
# Extra options go to vtboot-qemu (tests/qemu/test_demo.py passes --serial-log).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/../out}
launcher="$out/bin/vtboot-qemu"
say() { echo "demo: $*"; }

kernel=$("$here/fetch-dist-kernel.sh")
set -- --kernel "$kernel" --timeout 300 "$@"
d=$(basename "$(dirname "$kernel")")     # <package>_<version>
say "vtboot launches Debian's ${d%_*} ${d##*_} ($kernel) with $out/initrd.img"
say "the launcher: $launcher $*"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vtboot-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
rc=0
"$launcher" --serial-log "$tmp/serial.log" "$@" || rc=$?
[ "$rc" = 0 ] || { say "the boot failed (vtboot-qemu exit status $rc)"; exit "$rc"; }

# The exact module strings and vtboot command line this boot had, as the launcher makes them.
"$launcher" --print-modules "$@" > "$tmp/modules"
kcmd=$(sed -n 1p "$tmp/modules")
icmd=$(sed -n 2p "$tmp/modules")
vcmd=$("$launcher" --print-cmdline "$@")
"$out/bin/vtboot-pcr" predict --vtboot "$out/vtboot" --vtboot-cmdline "$vcmd" \
    --kernel "$kernel" --cmdline "$kcmd" --initrd "$out/initrd.img" --initrd-cmdline "$icmd" \
    > "$tmp/predicted"

echo
say "PCRs 17-19: predicted on the host by vtboot-pcr predict, and read by the guest from the TPM"
# The guest's report lines as sent: a kernel message that arrived inside one is taken out
# ("VTBOOT-GUEST: pcr-sha1-17=85[    2.2] random: ...\n18...").
tr -d '\r' < "$tmp/serial.log" | perl -0pe 's/\[ *\d+\.\d{6}\] [^\n]*\n//g' > "$tmp/report"
bad=0
while IFS= read -r line; do              # 17:sha256=<hex>
    pcr=${line%%:*}; rest=${line#*:}; bank=${rest%%=*}; want=${rest#*=}
    got=$(sed -n "s/^VTBOOT-GUEST: pcr-$bank-$pcr=\([0-9a-f]*\)\$/\1/p" "$tmp/report" | tail -n 1)
    if [ "$got" = "$want" ]; then
        say "  PCR $pcr $bank $want  equal"
    else
        say "  PCR $pcr $bank $want  DIFFERS: the guest read ${got:-nothing}"
        bad=1
    fi
done < "$tmp/predicted"
if [ "$bad" = 0 ]; then
    say "the measured launch is what the files predict: the host launched vtboot's MLE (PCR 17"
    say "reset to H(0 || H(MLE))), and vtboot measured the policy, the kernel with its command"
    say "line and the initramfs before it ran Linux"
else
    say "FAILED: a PCR differs from the prediction"
fi
exit "$bad"
