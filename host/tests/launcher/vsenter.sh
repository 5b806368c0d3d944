# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE).
echo "# virtual SENTER (protocol 4: the launch enters the MLE; include/abi/vsenter.h)"
# what the host must measure: testk's read-only image, exactly as in its ELF file, and where
# its MLE header, entry point and GDT are
objcopy -O binary -j .mle "$TESTK" "$T/mle.bin"
sym() { nm "$TESTK" | awk -v s="$1" '$3 == s { print $1 }'; }
hex8() { printf '%08x' "$1"; }
HDR=$(sym testk_mle_hdr)
ENTRY=$(sym post_launch)
GDT=$(sym testk_gdt)
MLESZ=$(hex8 "$(stat -c %s "$T/mle.bin")")
pcr_expect() {   # FILE -> "sha256 sha1 H(MLE)" of PCR 17 after a launch of FILE's bytes
    python3 - "$1" <<'PY'
import hashlib, sys
m = open(sys.argv[1], 'rb').read()
print(hashlib.sha256(b'\0' * 32 + hashlib.sha256(m).digest()).hexdigest(),
      hashlib.sha1(b'\0' * 20 + hashlib.sha1(m).digest()).hexdigest(), hashlib.sha256(m).hexdigest())
PY
}
read -r W256 W1 MLE256 <<< "$(pcr_expect "$T/mle.bin")"
ZERO256=$(printf '0%.0s' {1..64})
FF256=$(printf 'f%.0s' {1..64})
# the entry state testk's post_launch found (entry.S saves it before anything else), the PCRs
# it read then, the launcher's line
check_launch() {  # NAME [N [CPUS]]: launch #N (default 1) of testk's own image on CPUS CPUs (1)
    local n=${2:-1}
    has_line "$1" out "TESTK: mle 0x00100000+0x$MLESZ hdr 0x$HDR entry 0x$ENTRY"
    # the host's configuration reads left the requester's CONFIG_ADDRESS as it was
    has_line "$1" out "TESTK: launched #$n: CONFIG_ADDRESS=8000fb34"
    has_line "$1" out "TESTK: launched #$n: eax=544e5356 ebx=00100000 ecx=$HDR edx=$(hex8 "${3:-1}") esi=00000000 edi=00000000 ebp=00000000 esp=00000000"
    has_line "$1" out "TESTK: launched #$n: eflags=00000002 cr0=00000011 cr3=00000000 cr4=00000000 efer=00000000"
    has_line "$1" out "TESTK: launched #$n: cs=0010 ds=0018 es=0018 fs=0018 gs=0018 ss=0018 gdt=$GDT+001f idt=00000000+0000"
    has_line "$1" out "TESTK: pcr after: PCR17 sha256=$W256"
    has_line "$1" out "TESTK: pcr after: PCR17 sha1=$W1"
    has_line "$1" out "TESTK: pcr after: PCR18 sha256=$ZERO256"
    has_line "$1" err "vtboot-qemu: virtual SENTER: launched CPU 0 at 0x$ENTRY: MLE 0x00100000+0x$MLESZ sha256=$MLE256"
    count_lines "$1" err "vtboot-qemu: virtual SENTER: launched " "$n"
    # a launch is not answered on the UART: the requester never runs again
    count_lines "$1" out "TESTK: vsenter launch:" 0
    last_err_line "$1" "vtboot-qemu: guest powered off"
}
# testk's requests carry one id (testk.c), which every refusal of them names
TK_ERR="VSENTER-ERR 4 id=0x7e57c0de"
run vsenter 0 "${BASE[@]}" --vtboot-cmdline "action=vsenter pcr" -v
has_line vsenter out "TESTK: pcr before: PCR17 sha256=$FF256"
check_launch vsenter
grep -a "virtual SENTER took" "$T/vsenter.err" | sed 's/^.*vtboot-qemu: /     testk, 1 CPU: /'
# the launched image asks again: a second launch from the MLE itself, PCR 17 as after one
run vstwice 0 "${BASE[@]}" --vtboot-cmdline "action=vstwice"
check_launch vstwice 2
# malformed lines first, each answered; then the launch
run vsgarbage 0 "${BASE[@]}" --vtboot-cmdline "action=vsgarbage"
for want in "bad 0: VSENTER-ERR 4 not a VSENTER request" "bad 1: VSENTER-ERR 4 unsupported protocol 3" \
            "bad 2: VSENTER-ERR 4 id=0x00000001 malformed request" \
            "bad 3: VSENTER-ERR 4 id=0x00000002 malformed request" \
            "bad 4: VSENTER-ERR 4 id=0x00000003 malformed request" \
            "bad 5: VSENTER-ERR 4 id=0x00000004 MLE header crosses 4 GiB" \
            "bad 6: VSENTER-ERR 4 id=0x00000005 MLE header not in guest RAM" \
            "bad 7: VSENTER-ERR 4 malformed request" "bad long: VSENTER-ERR 4 line too long" \
            "bad binary: VSENTER-ERR 4 not a VSENTER request"; do
    has_line vsgarbage out "TESTK: vsenter $want"
done
has_line vsgarbage err "vtboot-qemu: virtual SENTER: refused: unsupported protocol 3"
count_lines vsgarbage err "vtboot-qemu: virtual SENTER: refused: " 10
check_launch vsgarbage
# MLE headers that must be refused (copies of testk's with one field wrong, in a page-aligned
# fake MLE at testk's `fake`), then a valid header without the GDT in its range; each refusal
# lets testk run on (its next line), then the launch
FK=$((0x$(sym fake)))
# check_refusals NAME: each "what|why" line on stdin is a refusal testk reported and the launcher
# logged; exactly those, then the launch
check_refusals() {
    local name=$1 what why n=0
    while IFS='|' read -r what why; do
        has_line "$name" out "TESTK: vsenter $what: $TK_ERR $why"
        has_line "$name" err "vtboot-qemu: virtual SENTER: refused: $why"
        n=$((n + 1))
    done
    count_lines "$name" err "vtboot-qemu: virtual SENTER: refused: " "$n"
    check_launch "$name"
}
run vsbadhdr 0 "${BASE[@]}" --vtboot-cmdline "action=vsbadhdr"
check_refusals vsbadhdr <<EOT
no header|MLE header at 0x$(hex8 $FK): bad UUID
bad uuid|MLE header at 0x$(hex8 $FK): bad UUID
bad length|MLE header: length 0x30, expected 0x34
bad version|MLE header: version 0x00020000, expected 0x00020001
first page|MLE header: first_valid_page 0x1, expected 0
empty range|MLE header: empty range (mle_start_off 0x2000, mle_end_off 0x2000)
too big|MLE range of 0x1000001 bytes, above 0x1000000
out of ram|MLE range 0x1fff0000-0x20010000 not in guest RAM
unaligned start|MLE start 0x$(hex8 $((FK + 0x10))) not page-aligned
header outside|MLE header at 0x$(hex8 $FK) outside the measured range 0x$(hex8 $((FK + 0x1000)))-0x$(hex8 $((FK + 0x2000)))
header unaligned|MLE header at 0x$(hex8 $((FK + 0x1008))) not 16-byte aligned in the image
entry outside|entry point 0x$(hex8 $((FK + 0x2000))) outside the measured range
cmdline outside|command line 0x$(hex8 $((FK + 0x1f00)))-0x$(hex8 $((FK + 0x2001))) outside the measured range
cmdline reversed|MLE header: cmdline_end_off 0x1e00 below cmdline_start_off 0x1f00
reserved caps|MLE header: reserved capability bits 0x00000800
gdt outside|CPU 0's GDT 0x$GDT-0x$(hex8 $((0x$GDT + 0x20))) is outside the MLE
EOT
# CPU states that must be refused: interrupts on, an IDT, paging on (identity-mapped), the GDT
# copied outside the MLE, a GDT without entry 0x18; each undone after the refusal
GC=$((0x$(sym gdt_copy)))
run vsbadstate 0 "${BASE[@]}" --vtboot-cmdline "action=vsbadstate"
check_refusals vsbadstate <<EOT
interrupts on|CPU 0 has interrupts on
idt|CPU 0 has an IDT (limit 0x7ff): it must be empty
paging|CPU 0 has paging on
gdt copy|CPU 0's GDT 0x$(hex8 $GC)-0x$(hex8 $((GC + 0x20))) is outside the MLE
gdt short|CPU 0's GDT (limit 0x17) has no entry 0x18
EOT
# the platform's event sources (vsenter.h 1a): testk quiesces them, arms one again and asks;
# the refusal names it exactly (platstate.h), nothing is measured; the allowed ones launch
while IFS='|' read -r arm why; do
    run "vsarm-$arm" 0 "${BASE[@]}" --vtboot-cmdline "action=vsarm arm=$arm pcr"
    has_line "vsarm-$arm" out "TESTK: armed $arm"
    has_line "vsarm-$arm" out "TESTK: vsenter launch: $TK_ERR $why"
    has_line "vsarm-$arm" err "vtboot-qemu: virtual SENTER: refused: $why"
    has_line "vsarm-$arm" out "TESTK: pcr after: PCR17 sha256=$FF256"
    has_line "vsarm-$arm" out "TESTK: CONFIG_ADDRESS after the answer: 8000fb34"
done <<EOT
lint1-nmi|LAPIC 0 LINT1: NMI delivery, not masked (LVT 0x00000400)
timer-smi|LAPIC 0 timer: SMI delivery, not masked (LVT 0x00000200)
ioapic-nmi|IOAPIC pin 7: NMI delivery, not masked (entry 0x0000000000000400)
pci-bme|PCI 00:1f.2: bus mastering enabled
pci-msi|PCI 00:1f.2: MSI enabled
dr7|CPU 0: DR7 0x00000401: breakpoints armed
EOT
run vsarm-pci-msix 0 "${BASE[@]}" --vtboot-cmdline "action=vsarm arm=pci-msix" -- -device virtio-rng-pci
has_line vsarm-pci-msix out "TESTK: vsenter launch: $TK_ERR PCI 00:01.0: MSI-X enabled"
# behind a pci-bridge: the launcher follows it to bus 1 (a control, then bus mastering there)
BRIDGE=(-device pci-bridge,id=br,chassis_nr=1,addr=5 -device virtio-rng-pci,bus=br,addr=3)
run vsbridge 0 "${BASE[@]}" --vtboot-cmdline "action=vsenter pcr" -v -- "${BRIDGE[@]}"
check_launch vsbridge
# before the hash and after the transfer: 00:00.0, 00:05.0 (the bridge), 00:1f.0/2/3, 01:03.0
count_lines vsbridge err "vtboot-qemu: virtual SENTER: event sources of 1 CPUs, the I/O APIC, the HPET and 6 PCI functions (98 configuration reads) checked in " 2
grep -a "event sources of" "$T/vsbridge.err" | head -1 | sed 's/^.*vtboot-qemu: virtual SENTER: /     testk, bridge: /'
run vsarm-pci-bme-bus1 0 "${BASE[@]}" --vtboot-cmdline "action=vsarm arm=pci-bme-bus1" -- "${BRIDGE[@]}"
has_line vsarm-pci-bme-bus1 out "TESTK: vsenter launch: $TK_ERR PCI 01:03.0: bus mastering enabled"
run vshpet 0 "${BASE[@]}" --vtboot-cmdline "action=vsenter" -- -machine hpet=on
has_line vshpet out "TESTK: vsenter launch: $TK_ERR HPET: present in the machine"
has_line vshpet err "vtboot-qemu: virtual SENTER: refused: HPET: present in the machine"
# the request from CPU 1 while CPU 0 halts
run vsap 0 "${BASE[@]}" --smp 2 --vtboot-cmdline "action=vsap"
has_line vsap out "TESTK: ap vsenter: $TK_ERR CPU 1: the launching CPU is not the BSP (CPU 0)"
count_lines vsap err "vtboot-qemu: virtual SENTER: launched " 0
# controls: LINT0 in ExtINT mode, a Fixed error LVT and a lowest-priority I/O APIC pin launch
for arm in lint0-extint error-fixed ioapic-lowest; do
    run "vsarm-$arm" 0 "${BASE[@]}" --vtboot-cmdline "action=vsarm arm=$arm pcr"
    has_line "vsarm-$arm" out "TESTK: armed $arm"
    check_launch "vsarm-$arm"
done
# the launcher's own machine has no HPET
run hpetoff 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff" -v
if grep -aq -- "-machine q35,hpet=off " "$T/hpetoff.err"; then ok "hpetoff: QEMU gets -machine q35,hpet=off"; else bad "hpetoff: no '-machine q35,hpet=off' in the QEMU command line" "$(grep -a qemu-system "$T/hpetoff.err" | head -1)"; fi
# two CPUs: the second one spinning, then halted with interrupts on (both refused), then in
# wait-for-SIPI after an INIT (launched)
run vssmp 0 "${BASE[@]}" --smp 2 --vtboot-cmdline "action=vssmp pcr" -v
has_line vssmp out "TESTK: vsenter ap spinning: $TK_ERR CPUs 0 and 1 are both running: every CPU but the launching one must be halted"
has_line vssmp out "TESTK: vsenter ap halted with interrupts on: $TK_ERR CPU 1 is halted with interrupts on"
has_line vssmp out "TESTK: ap in wait-for-SIPI"
# on a loaded host the INITed AP may still run when the host looks: testk says so and retries
count_lines vssmp err "vtboot-qemu: virtual SENTER: refused: " \
    $((2 + $(grep -ac "TESTK: vsenter retry after INIT: $TK_ERR CPUs 0 and 1 are both running" "$T/vssmp.out")))
check_launch vssmp 1 2
grep -a "virtual SENTER took" "$T/vssmp.err" | tail -1 | sed 's/^.*vtboot-qemu: /     testk, 2 CPUs: /'
# through GRUB (multiboot2 loads the same ELF at the same addresses), on pc with SeaBIOS's
# second CPU left halted (interrupts off)
run vsgrub 0 "${BASE[@]}" --grub --vtboot-cmdline "action=vsenter pcr"
check_launch vsgrub
run vspc 0 "${BASE[@]}" --machine pc --smp 2 --vtboot-cmdline "action=vsenter pcr"
check_launch vspc 1 2
# 16 MiB at 16 MiB: a copy of testk's header, its GDT at +0x40 and a far jump to post_launch
# at +0x80, zeros after (fresh RAM); the test builds the same bytes
run vsbig 0 "${BASE[@]}" --vtboot-cmdline "action=vsbig pcr" -v
python3 - "$T/mle.bin" "$T/big.bin" "$((0x$HDR - 0x100000))" "$((0x$GDT - 0x100000))" "$((0x$ENTRY))" <<'PY'
import struct, sys
mle, out, hdr, gdt, entry = open(sys.argv[1], 'rb').read(), sys.argv[2], *map(int, sys.argv[3:])
b = bytearray(16 << 20)
h = bytearray(mle[hdr:hdr + 0x34])
struct.pack_into('<I', h, 0x18, 0x80)               # entry_point
struct.pack_into('<I', h, 0x24, 16 << 20)           # mle_end_off
b[0:0x34] = h
b[0x40:0x60] = mle[gdt:gdt + 0x20]
b[0x80:0x87] = b'\xea' + struct.pack('<I', entry) + b'\x10\x00'
open(out, 'wb').write(b)
PY
read -r B256 B1 BIG256 <<< "$(pcr_expect "$T/big.bin")"
has_line vsbig out "TESTK: big mle 0x01000000+0x01000000 entry 0x01000080"
has_line vsbig out "TESTK: launched #1: eax=544e5356 ebx=01000000 ecx=01000000 edx=00000001 esi=00000000 edi=00000000 ebp=00000000 esp=00000000"
has_line vsbig out "TESTK: launched #1: cs=0010 ds=0018 es=0018 fs=0018 gs=0018 ss=0018 gdt=01000040+001f idt=00000000+0000"
has_line vsbig err "vtboot-qemu: virtual SENTER: launched CPU 0 at 0x01000080: MLE 0x01000000+0x01000000 sha256=$BIG256"
has_line vsbig out "TESTK: pcr after: PCR17 sha256=$B256"
has_line vsbig out "TESTK: pcr after: PCR17 sha1=$B1"
grep -a "virtual SENTER took" "$T/vsbig.err" | sed 's/^.*vtboot-qemu: /     16 MiB: /'
# failures that the guest cannot provoke: none before a request reaches the host
run vsnotpm 0 "${BASE[@]}" --no-tpm --vtboot-cmdline "action=vsenter"
has_line vsnotpm out "TESTK: vsenter launch: $TK_ERR no TPM"
has_line vsnotpm err "vtboot-qemu: virtual SENTER: refused: no TPM"
run vsnodrtm 0 "${BASE[@]}" --no-drtm --vtboot-cmdline "action=vsenter pcr"
has_line vsnodrtm out "TESTK: no VSENTER UART"
run vsnodrtm2 0 "${BASE[@]}" --no-drtm --vtboot-cmdline "action=poweroff pcr"
has_line vsnodrtm2 out "TESTK: pcr before: PCR17 sha256=$FF256"
# a failure once the measurement has begun (swtpm killed while testk waits, so the hash
# sequence cannot run): QEMU quits, exit 4, and the requester never runs again
timeout -k 5 60 "$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=vswait" > "$T/vsfatal.out" 2> "$T/vsfatal.err" < /dev/null &
pid=$!
for _ in $(seq 100); do grep -aq "TESTK: waiting" "$T/vsfatal.out" && break; sleep 0.05; done
kill -KILL "$(pgrep -P "$(pgrep -P $pid)" -x swtpm)"
wait $pid
rc=$?
if [ $rc = 4 ]; then ok "vsfatal: exit 4"; else bad "vsfatal: exit $rc, expected 4" "$(tail -3 "$T/vsfatal.err")"; fi
has_line vsfatal err "vtboot-qemu: virtual SENTER failed after the measurement: TPM control channel down"
last_err_line vsfatal "vtboot-qemu: guest crashed (virtual SENTER failed after the measurement: TPM control channel down, "
has_line vsfatal out "TESTK: mle 0x00100000+0x$MLESZ hdr 0x$HDR entry 0x$ENTRY"
l=$(tr -d '\r' < "$T/vsfatal.out" | grep -a "^TESTK: " | tail -1)
if [ "$l" = "TESTK: mle 0x00100000+0x$MLESZ hdr 0x$HDR entry 0x$ENTRY" ]; then
    ok "vsfatal: testk's last line is its request's"
else
    bad "vsfatal: testk ran on after its request" "$l"
fi
check_clean "virtual SENTER"
