# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE).
echo "# GRUB"
run grub2 0 "${BASE[@]}" --vtboot "$F/testk.elf.gz" --grub "${ODD[@]}" -v
expect_out grub2 "TESTK: loader=multiboot2"
expect_out grub2 "TESTK: module 1=[] size=$(gzip -dcf "$F/initrd.img" | wc -c)"
check_strings grub2 "${BASE[@]}" --vtboot "$F/testk.elf.gz" --grub "${ODD[@]}"
grep -a "ISO .* built in" "$T/grub2.err" | sed 's/^/     /'
run grub1 0 "${BASE[@]}" --grub-mb1 "${ODD[@]}"
expect_out grub1 "TESTK: loader=multiboot1"
check_strings grub1 "${BASE[@]}" --grub-mb1 "${ODD[@]}"
run grubreset 2 "${BASE[@]}" --grub --vtboot-cmdline "action=triple"

# the default files out/... next to the launcher, and the prebuilt out/vtboot.iso
O=$T/out
mkdir -p "$O/bin"
cp "$LAUNCHER" "$O/bin/vtboot-qemu"
cp "$F/testk.elf.gz" "$O/vtboot.gz"
cp "$F/testk.elf" "$O/vtboot"
cp "$F/bzImage" "$O/bzImage"
cp "$F/initrd.img" "$O/initrd.img"
(cd / && timeout 60 "$O/bin/vtboot-qemu" --make-iso "$O/vtboot.iso" > "$T/mkiso.out" 2> "$T/mkiso.err")
if [ -s "$O/vtboot.iso" ] && [ -s "$O/vtboot.iso.grub.cfg" ]; then ok "make-iso: wrote the ISO and its grub.cfg"; else bad "make-iso" "$(cat "$T/mkiso.err")"; fi
sed 's/^/     /' "$T/mkiso.err"
(cd / && timeout 60 "$O/bin/vtboot-qemu" --grub -v > "$T/prebuilt.out" 2> "$T/prebuilt.err" < /dev/null)
expect_err prebuilt "booting the prebuilt $O/bin/../vtboot.iso"
expect_out prebuilt "TESTK: loader=multiboot2"
touch "$O/bzImage"
(cd / && timeout 60 "$O/bin/vtboot-qemu" --grub -v > "$T/stale.out" 2> "$T/stale.err" < /dev/null)
if grep -q "booting the prebuilt" "$T/stale.err"; then bad "stale ISO used"; else ok "stale ISO rebuilt"; fi
(cd / && timeout 60 "$O/bin/vtboot-qemu" > "$T/defaults.out" 2> "$T/defaults.err" < /dev/null)
expect_out defaults "TESTK: cmdline=[vtboot logging=serial,memory loglvl=all]"
check_clean "GRUB"
