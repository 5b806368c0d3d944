#!/bin/bash
# SPDX-License-Identifier: MIT
# Tests of vtboot-acm against independent readers: Debian's txt-acminfo (package tboot) parses
# the ACMs it makes and prints our header, information table and lists; OpenSSL's command line
# verifies the signature over the signed ranges (RSASSA-PKCS1-v1_5, SHA-256, docs 3.3) and
# recomputes the key hash from the key; flipped bytes change exactly what they should. Then
# vtboot-pcr's prediction of a TXT launch with such an ACM (--sinit): each SINIT event's digest
# recomputed here from the ACM's bytes, the MLE's by Debian's lcp2_mlehash. Last, the test ACM
# and the SINIT the build makes (sinit/sinit.mk) as the same readers see them.
# usage: acm-tests.sh path/to/vtboot-acm path/to/vtboot-pcr path/to/echo.bin path/to/project-key.pem
#        path/to/sinit.bin path/to/test-key.pem
set -u

ACM=$(realpath "$1")
PCR=$(realpath "$2")
ECHO=$(realpath "$3")
PROJECT_KEY=$(realpath "$4")
SINIT=$(realpath "$5")
TEST_KEY=$(realpath "$6")
T=$(mktemp -d /tmp/vtacm-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok   - $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL - $1${2:+: $2}"; }
check() {          # NAME COMMAND...: the command succeeds
    local name=$1
    shift
    if "$@" > "$T/last.out" 2>&1; then ok "$name"; else bad "$name" "$(tail -3 "$T/last.out")"; fi
}
refuse() {         # NAME COMMAND...: the command fails
    local name=$1
    shift
    if "$@" > "$T/last.out" 2>&1; then bad "$name: accepted" "$(tail -3 "$T/last.out")"; else ok "$name"; fi
}
has() {            # NAME FILE LINE: FILE has LINE (fixed string, whole line after trimming)
    if sed 's/^[[:space:]]*//; s/[[:space:]]*$//' "$2" | grep -qxF -- "$3"; then
        ok "$1: '$3'"
    else
        bad "$1: no line '$3' in $(basename "$2")"
    fi
}
same() {           # NAME A B
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "'$2' != '$3'"; fi
}
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }        # FILE OFF: decimal u32
acminfo() { txt-acminfo "$1" 2>&1 | sed '/^ERROR: cannot open \/dev\/mem/d'; }

if ! command -v txt-acminfo > /dev/null; then
    echo "acm-tests.sh: txt-acminfo (package tboot) is not installed" >&2
    exit 1
fi
cd "$T" || exit 1

echo "# keys"
check "keygen" "$ACM" keygen k.pem
check "keygen another" "$ACM" keygen k2.pem
refuse "keygen does not overwrite" "$ACM" keygen k.pem
same "key is mode 0600" "$(stat -c %a k.pem)" 600
same "RSA-2048, e=65537" "$(openssl rsa -in k.pem -noout -text 2>/dev/null | grep -E '^(Private-Key|publicExponent)' | tr '\n' ' ')" \
     "Private-Key: (2048 bit, 2 primes) publicExponent: 65537 (0x10001) "
# the modulus little-endian (as the ACM stores it), from OpenSSL's own print of the key
mod_le() { openssl rsa -in "$1" -noout -modulus 2>/dev/null | sed 's/^Modulus=//' | fold -w2 | tac | tr -d '\n' | tr A-F a-f; }
want=$(mod_le k.pem | xxd -r -p | sha256sum | cut -d' ' -f1)
same "key-hash = SHA-256 of the little-endian modulus" "$("$ACM" key-hash k.pem)" "$want"
openssl rsa -in k.pem -pubout -out pub.pem 2>/dev/null
same "key-hash of the public key alone" "$("$ACM" key-hash pub.pem)" "$want"

echo "# make"
head -c 3000 /dev/urandom > code.bin
check "make" env SOURCE_DATE_EPOCH=1764806400 "$ACM" make code.bin --key k.pem -o a.bin
check "info accepts it" "$ACM" info a.bin
"$ACM" info a.bin > info.txt
has "info" info.txt "signature: good (the module's own key)"
has "info" info.txt "launch checks: ok"
has "info" info.txt "date: 0x20251204"
has "info" info.txt "key_hash: $want"
size=$(stat -c %s a.bin)
same "size field * 4 = file size" "$(( $(u32 a.bin 24) * 4 ))" "$size"
same "a multiple of 64 bytes" "$((size % 64))" 0
entry=$(u32 a.bin 52)
same "the payload at the entry point" "$(tail -c +$((entry + 1)) a.bin | head -c 3000 | sha256sum)" \
     "$(sha256sum < code.bin)"

echo "# txt-acminfo (tboot 1.10.5) reads it"
acminfo a.bin > acminfo.txt
for l in "type: 0x2 (ACM_TYPE_CHIPSET)" "subtype: 0x0" "length: 0xa1 (161)" "version: 0" \
         "chipset_id: 0xb00f" "flags: 0x0" "debug_signed: 0" "vendor: 0x8086" \
         "date: 0x20251204" "size*4: $(printf 0x%x "$size") ($size)" \
         "entry point: 0x00000008:$(printf %08x "$entry")" "scratch_size: 0x8f (143)" \
         "ACM_UUID_V3" "chipset_acm_type: 0x1 (SINIT)" "version: 5" "length: 0x30 (48)" \
         "os_sinit_data_ver: 0x7" "min_mle_hdr_ver: 0x00020000" "capabilities: 0x00000261" \
         "rlp_wake_getsec: 1" "rlp_wake_monitor: 0" "pcr_map_da: 1" "platform_type: 1" \
         "tcg_event_log_format: 1" "acm_ver: 1" "count: 1" "vendor_id: 0x8086" \
         "device_id: 0xb00f" "revision_id: 0x1" "fms: 0x60fb0" "fms_mask: 0xfff3ff0" \
         "platform_id: 0x4000000000000" "platform_mask: 0x1c000000000000" "ext_policy: 0x2" \
         "tpm_family : 0x2" "tpm_nv_index_set : 0x1" "alg count: 2" "alg_id: 0x4" "alg_id: 0xb" \
         "RSA public key exponent: 0x00010001" "key size*4: 0x40 (64)"; do
    has "txt-acminfo" acminfo.txt "$l"
done
# each list whole, as txt-acminfo prints it
block() { sed -n "/^[[:space:]]*$2/,/^[[:space:]]*$3/p" "$1" | sed '$d' | tr -s ' \t\n' ' ' | sed 's/ $//'; }
same "txt-acminfo: the chipset list" "$(block acminfo.txt 'chipset list:' 'processor list:')" \
     " chipset list: count: 1 entry 0: flags: 0x0 vendor_id: 0x8086 device_id: 0xb00f revision_id: 0x1 extended_id: 0x0"
same "txt-acminfo: the processor list" "$(block acminfo.txt 'processor list:' 'TPM info list:')" \
     " processor list: count: 1 entry 0: fms: 0x60fb0 fms_mask: 0xfff3ff0 platform_id: 0x4000000000000 platform_mask: 0x1c000000000000"
same "txt-acminfo: the TPM info list" "$(block acminfo.txt 'TPM info list:' 'signature information:')" \
     " TPM info list: TPM capability: ext_policy: 0x2 tpm_family : 0x2 tpm_nv_index_set : 0x1 alg count: 2 alg_id: 0x4 alg_id: 0xb"
# the key txt-acminfo prints (stored byte order) is ours
got=$(sed -n '/RSA public key:/,/exponent/p' acminfo.txt | grep -v ':' | tr -d ' \t\n')
same "txt-acminfo's RSA public key is k.pem's modulus" "$got" "$(mod_le k.pem)"

echo "# the signature, verified by OpenSSL over [0, 0x184) and [0x4C0, size)"
verify() {         # ACM-FILE PUBKEY: 0 if OpenSSL verifies
    { head -c $((0x184)) "$1"; tail -c +$((0x4C0 + 1)) "$1"; } > "$T/signed.bin"
    dd if="$1" bs=1 skip=$((0x184)) count=256 status=none | xxd -p | tr -d '\n' | fold -w2 | tac |
        tr -d '\n' | xxd -r -p > "$T/sig.be"
    openssl dgst -sha256 -verify "$2" -signature "$T/sig.be" "$T/signed.bin" > /dev/null 2>&1
}
check "OpenSSL verifies it with k.pem" verify a.bin pub.pem
openssl rsa -in k2.pem -pubout -out pub2.pem 2>/dev/null
refuse "OpenSSL: not with k2.pem" verify a.bin pub2.pem

echo "# flipped bytes change only what they should"
flip() {           # NAME OFF: break --flip-byte OFF, exactly one byte differs
    check "$1: break" "$ACM" break a.bin --flip-byte "$2" -o "$1.bin"
    same "$1: one byte differs, at $2" "$(cmp -l a.bin "$1.bin" | awk '{printf "%d:", $1 - 1}')" "$(($2)):"
}
flip payload $((entry + 5))
diff <(acminfo a.bin | sed 's/a\.bin/X/') <(acminfo payload.bin | sed 's/payload\.bin/X/') > /dev/null &&
    ok "payload: txt-acminfo sees nothing" || bad "payload: txt-acminfo output changed"
"$ACM" info payload.bin > i.txt
has "payload" i.txt "signature: BAD"
refuse "payload: OpenSSL refuses it" verify payload.bin pub.pem
flip scratch 0x300                              # not signed, not read
"$ACM" info scratch.bin > i.txt
has "scratch" i.txt "signature: good (the module's own key)"
check "scratch: OpenSSL still verifies" verify scratch.bin pub.pem
cl=$(u32 a.bin $((0x4C0 + 20)))                 # chipset list: count, then flags, vendor, device
flip device $((cl + 4 + 6))
d=$(diff <(acminfo a.bin | sed 's/a\.bin/X/') <(acminfo device.bin | sed 's/device\.bin/X/') | grep '^[<>]' | tr -s ' \t\n' ' ' | sed 's/ $//')
same "device: txt-acminfo sees only device_id change" "$d" "< device_id: 0xb00f > device_id: 0xb0f0"
"$ACM" info device.bin > i.txt
has "device" i.txt "signature: BAD"
has "device" i.txt "0: flags 0x0 vendor 0x8086 device 0xb0f0 revision 0x1 extended 0x0"
flip vendor 16
refuse "vendor: info refuses it" "$ACM" info vendor.bin
grep -q "module_vendor 0x8079, not 0x8086" "$T/last.out" && ok "vendor: says why" || bad "vendor: reason" "$(cat "$T/last.out")"
flip uuid $((0x4C0))
refuse "uuid: info refuses it" "$ACM" info uuid.bin
d=$(acminfo uuid.bin | grep -c ACM_UUID_V3)
same "uuid: txt-acminfo no longer sees ACM_UUID_V3" "$d" 0
refuse "flip outside the file" "$ACM" break a.bin --flip-byte "$size" -o x.bin

echo "# break: other chipset, other processor, other key"
check "chipset" "$ACM" break a.bin --chipset 8086:1234 --key k.pem -o chipset.bin
acminfo chipset.bin > i.txt
has "chipset" i.txt "device_id: 0x1234"
has "chipset" i.txt "chipset_id: 0x1234"
check "chipset: re-signed" verify chipset.bin pub.pem
check "chipset, unsigned" "$ACM" break a.bin --chipset 1af4:0001 -o chipset2.bin
acminfo chipset2.bin > i.txt
has "chipset, unsigned" i.txt "vendor_id: 0x1af4"
refuse "chipset, unsigned: the old signature fails" verify chipset2.bin pub.pem
check "fms" "$ACM" break a.bin --fms 0x000906a3 --key k.pem -o fms.bin
acminfo fms.bin > i.txt
has "fms" i.txt "fms: 0x906a0"
check "resign" "$ACM" break a.bin --resign k2.pem -o k2.bin
"$ACM" info k2.bin > i.txt
has "resign" i.txt "key_hash: $("$ACM" key-hash k2.pem)"
has "resign" i.txt "signature: good (the module's own key)"
check "resign: OpenSSL verifies with k2" verify k2.bin pub2.pem
refuse "break with two changes" "$ACM" break a.bin --fms 1 --chipset 1:2 -o x.bin

echo "# make options, sign, ELF payloads"
check "make --didvid --fms" "$ACM" make code.bin --key k.pem --fms 0x000806f8 --didvid 8086:29c0:2 \
      --date 20270101 -o b.bin
acminfo b.bin > i.txt
for l in "device_id: 0x29c0" "revision_id: 0x2" "chipset_id: 0x29c0" "fms: 0x806f0" "date: 0x20270101"; do
    has "make --didvid --fms" i.txt "$l"
done
cp b.bin c.bin
check "sign with k2" "$ACM" sign c.bin --key k2.pem
check "sign: OpenSSL verifies with k2" verify c.bin pub2.pem
same "sign: only key and signature changed" \
     "$(cmp -l b.bin c.bin | awk '{o = $1 - 1; if (o < 128 || o >= 644) print o}' | head -1)" ""
printf '\x7fELF' > notelf.bin
head -c 100 /dev/zero >> notelf.bin
refuse "a truncated ELF" "$ACM" make notelf.bin --key k.pem -o x.bin
if command -v as > /dev/null && command -v ld > /dev/null; then
    printf '.text\n.byte 1,2,3,4\n.globl _start\n_start: jmp _start\n.bss\n.space 4096\n' > e.s
    as --32 -o e.o e.s && ld -m elf_i386 --no-warn-rwx-segments -N -Ttext=0 -e _start -o e.elf e.o
    check "make from an ELF" "$ACM" make e.elf --key k.pem -o e.bin
    eentry=$(u32 e.bin 52)
    same "ELF: entered at _start (payload + 4)" "$(od -An -tx1 -j $((eentry - 4)) -N6 e.bin | tr -d ' ')" "01020304ebfe"
    same "ELF: .bss laid out as zeros" "$(( $(stat -c %s e.bin) - eentry >= 4096 ))" 1
fi
refuse "make without --key" "$ACM" make code.bin -o x.bin
refuse "info on a non-ACM" "$ACM" info code.bin
refuse "unknown command" "$ACM" frobnicate a.bin
"$ACM" --help > help.txt
grep -q '^SYNOPSIS' help.txt && grep -q 'break FILE' help.txt && ok "--help" || bad "--help"

echo "# vtboot-pcr predict --sinit (a TXT launch of Debian's tboot with our ACM)"
sha_hex() { xxd -r -p | sha256sum | cut -d' ' -f1; }     # stdin: hex bytes
# "  PCR 17 += <hex>  SINIT event 0x402": the sha256 digest extended for event TYPE
event() { awk -v t="$2" '$5 == "SINIT" && $7 == t { print $4 }' "$1"; }
zcat /boot/tboot.gz > tboot.elf
check "predict --sinit" "$PCR" predict --sinit a.bin --vtboot /boot/tboot.gz --vtboot-cmdline \
      "logging=serial" --kernel code.bin --bank sha256 -v
"$PCR" predict --sinit a.bin --vtboot /boot/tboot.gz --vtboot-cmdline "logging=serial" \
    --kernel code.bin --bank sha256 -v > pcrs.txt 2> ev.txt
sz=$(( $(u32 a.bin 24) * 4 ))
acm_digest=$( (head -c $((0x184)) a.bin; tail -c +$((0x4C0 + 1)) a.bin | head -c $((sz - 0x4C0))) |
              sha256sum | cut -d' ' -f1)
same "0x402: H(SHA-256 of the signed ranges || EDX 0)" "$(event ev.txt 0x402)" \
     "$(echo "${acm_digest}00000000" | sha_hex)"
same "0x40b: H(processor S-CRTM status 0)" "$(event ev.txt 0x40b)" "$(echo 00000000 | sha_hex)"
same "0x40f: H(OsSinitData caps 0x601, tboot's)" "$(event ev.txt 0x40f)" "$(echo 01060000 | sha_hex)"
same "0x40c: H(LCP policy control 0)" "$(event ev.txt 0x40c)" "$(echo 00000000 | sha_hex)"
same "0x404: the MLE as Debian's lcp2_mlehash hashes tboot" "$(event ev.txt 0x404)" \
     "$(lcp2_mlehash --create --cmdline "logging=serial" --alg sha256 tboot.elf 2>/dev/null |
        tail -1 | tr -d ' \n')"
same "0x410: H(the ACM's key hash, vtboot-acm key-hash)" "$(event ev.txt 0x410)" \
     "$("$ACM" key-hash k.pem | sha_hex)"
same "0x411: H(32 zero bytes), no launch control policy" "$(event ev.txt 0x411)" \
     "$(head -c 32 /dev/zero | sha256sum | cut -d' ' -f1)"
# the PCRs are the replay of every extend -v printed (the SINIT's, then tboot's)
replay() {
    local v=0000000000000000000000000000000000000000000000000000000000000000 d
    for d in $(awk -v p="$2" '$1 == "PCR" && $2 == p { print $4 }' "$1"); do
        v=$(echo "$v$d" | sha_hex)
    done
    echo "$v"
}
same "PCR 17 = the replay of its 7 extends" "$(grep -c '^  PCR 17 ' ev.txt) $(replay ev.txt 17)" \
     "7 $(sed -n 's/^17:sha256=//p' pcrs.txt)"
same "PCR 18 = the replay of its 3 extends" "$(grep -c '^  PCR 18 ' ev.txt) $(replay ev.txt 18)" \
     "3 $(sed -n 's/^18:sha256=//p' pcrs.txt)"
# tboot extends SHA-256 only after our SINIT (embedded algorithms): the SHA-1 bank holds the
# SINIT's events alone, PCR 17 = SHA-1's replay of the first five (recomputed here from the ACM)
"$PCR" predict --sinit a.bin --vtboot /boot/tboot.gz --vtboot-cmdline "logging=serial" \
    --kernel code.bin --bank sha1 -v > pcrs1.txt 2> ev1.txt
sha1_hex() { xxd -r -p | sha1sum | cut -d' ' -f1; }
v=0000000000000000000000000000000000000000
for data in "${acm_digest}00000000" 00000000 01060000 00000000; do
    v=$(echo "$v$(echo "$data" | sha1_hex)" | sha1_hex)
done
mle1=$(lcp2_mlehash --create --cmdline "logging=serial" --alg sha1 tboot.elf 2>/dev/null |
       tail -1 | tr -d ' \n')
v=$(echo "$v$mle1" | sha1_hex)
same "SHA-1: only the SINIT's 5 + 2 extends, PCR 17 recomputed" \
     "$(grep -c '^  PCR 17 ' ev1.txt) $(grep -c '^  PCR 18 ' ev1.txt) $(sed -n 's/^17:sha1=//p' pcrs1.txt)" \
     "5 2 $v"
"$PCR" predict --sinit a.bin --os-sinit-caps 0x261 --vtboot /boot/tboot.gz --kernel code.bin \
    --bank sha256 -v > /dev/null 2> ev2.txt
same "--os-sinit-caps 0x261" "$(event ev2.txt 0x40f)" "$(echo 61020000 | sha_hex)"
"$PCR" predict --vtboot /boot/tboot.gz --kernel code.bin --bank sha256 -v > /dev/null 2> ev3.txt
same "without --sinit: vtboot's one MLE extend, no SINIT events" \
     "$(grep -c 'SINIT event' ev3.txt) $(grep -c 'MLE (dynamic launch)' ev3.txt)" "0 1"
refuse "--sinit with a file that is no ACM" "$PCR" predict --sinit code.bin --vtboot /boot/tboot.gz \
       --kernel code.bin
refuse "--os-sinit-caps without --sinit" "$PCR" predict --os-sinit-caps 1 --kernel code.bin
refuse "--lcp-policy without --sinit" "$PCR" predict --lcp-policy code.bin --kernel code.bin
refuse "--lcp-policy not a policy" "$PCR" predict --sinit a.bin --lcp-policy code.bin \
       --kernel code.bin
refuse "--os-sinit-caps not a number" "$PCR" predict --sinit a.bin --os-sinit-caps 0x1g \
       --kernel code.bin

openssl rsa -in "$PROJECT_KEY" -pubout -out project-pub.pem 2>/dev/null
openssl rsa -in "$TEST_KEY" -pubout -out test-pub.pem 2>/dev/null
# the SINIT with the project key, the test ACM with the test key and never the other way round
for pair in "$SINIT:project:test" "$ECHO:test:project"; do
    built=${pair%%:*} key=${pair#*:} key=${key%%:*} not=${pair##*:}
    n=$(basename "$built")
    keyfile=$PROJECT_KEY
    [ "$key" = test ] && keyfile=$TEST_KEY
    echo "# $n: what make built and signed with the $key key"
    "$ACM" info "$built" > "$n-info.txt"
    has "$n" "$n-info.txt" "signature: good (the module's own key)"
    has "$n" "$n-info.txt" "launch checks: ok"
    has "$n" "$n-info.txt" "key_hash: $("$ACM" key-hash "$keyfile")"
    check "$n: OpenSSL verifies it with the $key key" verify "$built" "$key-pub.pem"
    refuse "$n: OpenSSL does not verify it with the $not key" verify "$built" "$not-pub.pem"
    acminfo "$built" > "$n-acminfo.txt"
    esize=$(stat -c %s "$built")
    for l in "type: 0x2 (ACM_TYPE_CHIPSET)" "chipset_id: 0xb00f" "vendor: 0x8086" \
             "size*4: $(printf 0x%x "$esize") ($esize)" \
             "entry point: 0x00000008:$(printf %08x "$(u32 "$built" 52)")" \
             "chipset_acm_type: 0x1 (SINIT)" "device_id: 0xb00f" "capabilities: 0x00000261"; do
        has "$n: txt-acminfo" "$n-acminfo.txt" "$l"
    done
done

echo "# $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
