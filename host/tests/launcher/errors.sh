# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE).
echo "# errors"
run badopt 1 --bogus
run badsmp 1 --smp 0
run missing 1 --vtboot "$T/nonexistent" --kernel "$F/bzImage"
expect_err missing "nonexistent"
run samename 1 --vtboot "$F/testk.elf" --kernel "$F/testk.elf" --initrd ""
run qemufail 1 "${BASE[@]}" -- -no-such-qemu-option
expect_err qemufail "QEMU failed to start"
check_clean "errors"
