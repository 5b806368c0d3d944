# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE).
echo "# no modules (--kernel \"\")"
run nomods 0 --vtboot "$F/testk.elf" --kernel ""
expect_out nomods "TESTK: cmdline=[testk.elf logging=serial,memory loglvl=all]"
if grep -aq "TESTK: module" "$T/nomods.out"; then bad "nomods: has modules"; else ok "nomods: no module"; fi
check_strings nomods --vtboot "$F/testk.elf" --kernel ""
if [ -z "$("$LAUNCHER" --vtboot "$F/testk.elf" --kernel "" --print-modules)" ]; then
    ok "nomods: --print-modules prints nothing"
else
    bad "nomods: --print-modules printed something"
fi
run nomods-grub2 0 --vtboot "$F/testk.elf.gz" --kernel "" --initrd "" --grub
expect_out nomods-grub2 "TESTK: loader=multiboot2"
if grep -aq "TESTK: module" "$T/nomods-grub2.out"; then bad "nomods-grub2: has modules"; else ok "nomods-grub2: no module"; fi
run nomods-grub1 0 --vtboot "$F/testk.elf" --kernel "" --grub-mb1
expect_out nomods-grub1 "TESTK: loader=multiboot1"
check_strings nomods-grub1 --vtboot "$F/testk.elf" --kernel "" --grub-mb1
run nomods-initrd 1 --vtboot "$F/testk.elf" --kernel "" --initrd "$F/initrd.img"
expect_err nomods-initrd 'cannot take an initrd'
# the real vtboot, if it is built: it says why it cannot boot, halts cleanly and powers off
if [ -f "$OUTDIR/vtboot" ]; then
    run nomods-vtboot 0 --vtboot "$OUTDIR/vtboot" --kernel "" --timeout 60
    expect_out nomods-vtboot "vtboot: ERROR: no kernel: no modules: the first module must be a Linux bzImage"
    last_err_line nomods-vtboot "vtboot-qemu: guest powered off"
else
    echo "     (no $OUTDIR/vtboot: the vtboot no-modules check is skipped)"
fi
check_clean "no modules"
