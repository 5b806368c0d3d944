# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE).
echo "# variants"
run notpm 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff pcr" --no-tpm
expect_out notpm "TESTK: pcr before: no TPM"
run pc 0 "${BASE[@]}" --machine pc --smp 2 --memory 256 --vtboot-cmdline "action=poweroff pcr"
expect_out pc "TESTK: pcr before: PCR17 sha1=$(printf 'f%.0s' {1..40})"
run gzvtboot 0 --vtboot "$F/testk.elf.gz" --kernel "$F/bzImage" --initrd "$F/initrd.img"
expect_out gzvtboot "TESTK: cmdline=[testk.elf logging=serial,memory loglvl=all]"
run noinitrd 0 --vtboot "$F/testk.elf" --kernel "$F/bzImage" --initrd ""
if grep -aq "module 1=" "$T/noinitrd.out"; then bad "noinitrd: has a module 1"; else ok "noinitrd: one module"; fi
run odd 0 "${BASE[@]}" "${ODD[@]}"
check_strings odd "${BASE[@]}" "${ODD[@]}"
run seriallog 0 "${BASE[@]}" --serial-log "$T/serial.log"
if cmp -s "$T/serial.log" "$T/seriallog.out"; then ok "seriallog: log = stdout"; else bad "seriallog: log differs from stdout"; fi
mkdir -p "$T/state"
run tpmstate 0 "${BASE[@]}" --tpm-state "$T/state"
if ls "$T/state" | grep -q permall; then ok "tpmstate: state kept"; else bad "tpmstate: no state in $T/state"; fi
check_clean "variants"
