#!/bin/sh
# Runs tests/unit/crypto/m32_selfcheck.c's 32-bit ELF (vtboot's crypto, built with vtboot's
# flags): natively when this kernel runs 32-bit programs (the CPU's own SIMD paths), and under
# QEMU TCG (qemu-i386 -cpu max: the paths TCG reports) when qemu-i386 is installed. Fails if
# neither could run it, or if either run fails. tests/unit.mk writes the ELF's path below.
elf="@ELF@"
ran=0 rc=0
"$elf"
r=$?
if [ $r -ne 126 ] && [ $r -ne 127 ]; then     # 126: this kernel cannot execute 32-bit code
    ran=1
    [ $r -eq 0 ] || rc=1
fi
if command -v qemu-i386 >/dev/null 2>&1; then
    qemu-i386 -cpu max "$elf" || rc=1
    ran=1
fi
if [ $ran = 0 ]; then
    echo "m32_selfcheck: cannot run a 32-bit program here and qemu-i386 (qemu-user) is missing"
    exit 1
fi
exit $rc
