# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE).
echo "# exit statuses (QEMU -kernel, multiboot1)"
run poweroff 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff pcr"
expect_out poweroff "TESTK: loader=multiboot1"
expect_out poweroff "TESTK: cmdline=[testk.elf action=poweroff pcr]"
expect_out poweroff "TESTK: module 0=[bzImage console=ttyS0 panic=-1]"
expect_out poweroff "TESTK: module 1=[initrd.img] size=$(gzip -dcf "$F/initrd.img" | wc -c)"
expect_out poweroff "TESTK: pcr before: PCR17 sha256=$(printf 'f%.0s' {1..64})"
last_err_line poweroff "vtboot-qemu: guest powered off"
run reset 2 "${BASE[@]}" --vtboot-cmdline "action=reset"
last_err_line reset "vtboot-qemu: guest reset"
run triple 2 "${BASE[@]}" --vtboot-cmdline "action=triple"
last_err_line triple "vtboot-qemu: guest reset"
run panic 4 "${BASE[@]}" --vtboot-cmdline "action=panic"
last_err_line panic "vtboot-qemu: guest crashed (GUEST_PANICKED"
run timeout 3 "${BASE[@]}" --vtboot-cmdline "action=hang" --timeout 3
last_err_line timeout "vtboot-qemu: guest timed out"
check_clean "exit statuses"
