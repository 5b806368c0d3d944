# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE).
echo "# TPM state (--pcr-banks) and the policy in NV (--policy, --provision-only)"
# A swtpm on a state directory for tpm2-tools, as the launcher provisions: our listening
# sockets (renamed into place once listening, so nothing needs to wait), --flags
# startup-clear. tpm_up DIR sets $TCTI; tpm_down shuts the TPM down (CLEAR) and stops it.
tpm_up() {
    local sock=$T/tpmq.sock
    rm -f "$sock" "$sock.ctrl"
    python3 -c '
import os, socket, sys
sock, state = sys.argv[1], sys.argv[2]
keep = [os.open("/dev/null", os.O_RDONLY) for _ in range(2)]  # fds 3, 4 stay ours until dup2
socks = []
for i, p in enumerate((sock, sock + ".ctrl")):
    for q in (p, p + ".new"):
        if os.path.exists(q):
            os.unlink(q)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(p + ".new")
    s.listen(4)
    os.rename(p + ".new", p)
    socks.append(s)
for i, s in enumerate(socks):
    os.dup2(s.fileno(), 3 + i)
os.execvp("swtpm", ["swtpm", "socket", "--tpm2", "--tpmstate", "dir=" + state,
                    "--server", "type=unixio,fd=3", "--ctrl", "type=unixio,fd=4",
                    "--flags", "not-need-init,startup-clear"])
' "$sock" "$1" 2> "$T/tpmq.err" &
    TPM_PID=$!
    TCTI="swtpm:path=$sock"
    for _ in $(seq 200); do [ -S "$sock.ctrl" ] && break; sleep 0.01; done
}
tpm_down() {
    tpm2_shutdown -c -T "$TCTI" 2>/dev/null
    kill "$TPM_PID" 2>/dev/null
    wait "$TPM_PID" 2>/dev/null
    rm -f "$T/tpmq.sock" "$T/tpmq.sock.ctrl"
}
banks_of() {     # DIR: the active PCR banks of that state, comma-separated
    tpm_up "$1"
    tpm2_getcap pcrs -T "$TCTI" | sed -n 's/^ *- \(sha[0-9]*\): \[ [0-9].*/\1/p' | paste -sd, -
    tpm_down
}
nv_check() {     # NAME DIR FILE: NV index 0x01200001 holds exactly FILE, with our attributes
    local name=$1 dir=$2 file=$3 size pub
    size=$(stat -c %s "$file")
    tpm_up "$dir"
    if tpm2_nvread 0x01200001 -C 0x01200001 -s "$size" -T "$TCTI" -o "$T/nv.bin" 2> "$T/nv.err" &&
       cmp -s "$T/nv.bin" "$file"; then
        ok "$name: NV index holds the file's $size bytes"
    else
        bad "$name: NV index differs from $file" "$(cat "$T/nv.err")"
    fi
    pub=$(tpm2_nvreadpublic 0x01200001 -T "$TCTI" 2>&1)
    # TPMA_NV: ownerwrite bit 1 (0x2) | ownerread bit 17 (0x20000) | authread bit 18 (0x40000) |
    # no_da bit 25 (0x2000000) | written bit 29 (0x20000000) = 0x22060002; no ppwrite (bit 0)
    if grep -q "value: 0x22060002" <<< "$pub" && grep -q "size: $size\$" <<< "$pub" &&
       grep -q "friendly: ownerwrite|ownerread|authread|no_da|written" <<< "$pub" && ! grep -q ppwrite <<< "$pub"; then
        ok "$name: attributes ownerwrite|ownerread|authread|no_da (no ppwrite), size $size"
    else
        bad "$name: index public area" "$pub"
    fi
    if [ "$(tpm2_getcap handles-nv-index -T "$TCTI" | grep -c .)" = 1 ]; then
        ok "$name: one NV index"
    else
        bad "$name: NV indices" "$(tpm2_getcap handles-nv-index -T "$TCTI")"
    fi
    tpm_down
}

# policies: a real one from tb_polgen if it is installed, and corrupted ones (vtboot's tests
# need those): a bad version byte, a truncated one, 1 byte, 2048 bytes
P=$T/pol
mkdir -p "$P"
if command -v tb_polgen > /dev/null; then
    tb_polgen --create --type halt --alg sha256 "$P/halt.pol" > /dev/null
    tb_polgen --add --num 0 --pcr none --hash image --cmdline "bzImage console=ttyS0 panic=-1" \
              --image "$F/bzImage" "$P/halt.pol" > /dev/null
else
    printf '\002\002\013\001\000\000\000\000\000\000\000\001\000\377\001\000' > "$P/halt.pol"
    head -c 36 /dev/urandom >> "$P/halt.pol"
fi
cp "$P/halt.pol" "$P/badver.pol"
printf '\377' | dd of="$P/badver.pol" bs=1 count=1 conv=notrunc 2> /dev/null
head -c 10 "$P/halt.pol" > "$P/trunc.pol"
printf 'X' > "$P/one.pol"
head -c 2048 /dev/urandom > "$P/max.pol"

S=$T/tpm-a
run prov 0 --provision-only --tpm-state "$S" --policy "$P/halt.pol" -v
expect_err prov "wrote $P/halt.pol ($(stat -c %s "$P/halt.pol") bytes) into NV index 0x01200001"
grep -a -E "swtpm_setup \(PCR banks .*\) took|NV index .* written in" "$T/prov.err" | sed 's/^/     /'
nv_check prov "$S" "$P/halt.pol"
# the owner and lockout authorizations: random, kept in the state directory (0600), set in the
# TPM; taking ownership with the empty owner password is refused (TPM_RC_BAD_AUTH)
own_check() {    # NAME DIR
    local name=$1 dir=$2 f props
    for f in vtboot-owner.auth vtboot-lockout.auth; do
        if [ "$(stat -c %a "$dir/$f" 2>&1)" = 600 ] && grep -qxE '[0-9a-f]{32}' "$dir/$f"; then
            ok "$name: $f: 32 hex digits, mode 0600"
        else
            bad "$name: $f" "$(ls -l "$dir/$f" 2>&1)"
        fi
    done
    tpm_up "$dir"
    props=$(tpm2_getcap properties-variable -T "$TCTI" 2>&1)
    if grep -qx "  ownerAuthSet: *1" <<< "$props" && grep -qx "  lockoutAuthSet: *1" <<< "$props" &&
       grep -qx "  endorsementAuthSet: *0" <<< "$props"; then
        ok "$name: owner and lockout authorizations set, endorsement empty"
    else
        bad "$name: TPMA_PERMANENT" "$(head -4 <<< "$props")"
    fi
    if ! tpm2_changeauth -c o guest -T "$TCTI" > "$T/$name-ca.out" 2>&1 &&
       grep -q "Esys_HierarchyChangeAuth(0x9A2)" "$T/$name-ca.out"; then
        ok "$name: empty owner password refused (0x9A2)"
    else
        bad "$name: empty owner password" "$(cat "$T/$name-ca.out")"
    fi
    tpm_down
}
own_check prov "$S"
# a state from an older vtboot-qemu (empty authorizations, no secrets kept): taken on first use
mkdir -p "$T/tpm-old"
swtpm_setup --tpm2 --tpmstate "$T/tpm-old" --pcr-banks sha256 > /dev/null 2>&1
run own-old 0 --provision-only --tpm-state "$T/tpm-old"
expect_err own-old "took ownership of the TPM state in $T/tpm-old: its owner and lockout authorizations are in $T/tpm-old/vtboot-*.auth"
own_check own-old "$T/tpm-old"
b=$(banks_of "$S")
if [ "$b" = "sha1,sha256" ]; then ok "prov: default banks sha1,sha256"; else bad "prov: banks '$b'"; fi
run reprov 0 --provision-only --tpm-state "$S" --policy "$P/max.pol" -v
expect_err reprov "NV index 0x01200001 exists: undefining it"
grep -a "NV index .* written in" "$T/reprov.err" | sed 's/^/     /'
nv_check reprov "$S" "$P/max.pol"
for c in badver trunc one; do
    run "prov-$c" 0 --provision-only --tpm-state "$S" --policy "$P/$c.pol"
    nv_check "prov-$c" "$S" "$P/$c.pol"
done
# an existing state is used as is: --pcr-banks does not apply to it
run prov-banks-kept 0 --provision-only --tpm-state "$S" --pcr-banks sha256
expect_err prov-banks-kept "--pcr-banks sha256 ignored"
b=$(banks_of "$S")
if [ "$b" = "sha1,sha256" ]; then ok "prov-banks-kept: banks unchanged"; else bad "prov-banks-kept: banks '$b'"; fi
for banks in sha256 sha1,sha256,sha384 sha512,sha1 all; do
    d=$T/tpm-${banks//,/-}      # swtpm cannot take a ',' in the directory name
    run "banks-$banks" 0 --provision-only --tpm-state "$d" --pcr-banks "$banks" -v
    want=$banks
    [ "$banks" = all ] && want=sha1,sha256,sha384,sha512
    [ "$banks" = sha512,sha1 ] && want=sha1,sha512
    b=$(banks_of "$d")
    if [ "$b" = "$want" ]; then ok "banks-$banks: banks $b"; else bad "banks-$banks: banks '$b', expected $want"; fi
done
grep -a "swtpm_setup (PCR banks .*) took" "$T"/banks-*.err | sed 's/^.*vtboot-qemu: /     /'

# what the guest reads through the TIS (testk "nv"): a fresh temp state provisioned, then booted
hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }
run nvboot 0 "${BASE[@]}" --policy "$P/halt.pol" --vtboot-cmdline "action=poweroff nv pcr" -v
expect_out nvboot "TESTK: nv public: attributes=0x22060002 size=$(stat -c %s "$P/halt.pol")"
expect_out nvboot "TESTK: nv data=$(hex "$P/halt.pol")"
expect_out nvboot "TESTK: pcr before: PCR17 sha1=$(printf 'f%.0s' {1..40})"
# no_da: the index is not DA-protected, so libtpms has no TPM_RC_RETRY for its first use
if grep -aq "TESTK: nv read: TPM_RC_RETRY" "$T/nvboot.out"; then bad "nvboot: TPM_RC_RETRY on a no_da index"; else ok "nvboot: no TPM_RC_RETRY (no_da)"; fi
grep -a "policy provisioned in" "$T/nvboot.err" | sed 's/^.*vtboot-qemu: /     /'
# --tpm-state with --policy: provisioned into that dir, then booted from it
run nvboot-state 0 "${BASE[@]}" --tpm-state "$S" --policy "$P/one.pol" --vtboot-cmdline "action=poweroff nv"
expect_out nvboot-state "TESTK: nv data=$(hex "$P/one.pol")"
nv_check nvboot-state "$S" "$P/one.pol"
run nvboot-none 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff nv"
expect_out nvboot-none "TESTK: nv public: TPM error 0x0000018b"
run sha256only 0 "${BASE[@]}" --pcr-banks sha256 --vtboot-cmdline "action=poweroff pcr"
expect_out sha256only "TESTK: pcr before: PCR17 sha256="
if grep -aq "PCR17 sha1=" "$T/sha256only.out"; then bad "sha256only: has a SHA-1 bank"; else ok "sha256only: no SHA-1 bank"; fi

# errors: bad files, bad combinations, a failing tool (its stderr shown)
: > "$P/empty.pol"
head -c 2049 /dev/zero > "$P/big.pol"
run pol-missing 1 --provision-only --tpm-state "$S" --policy "$P/nonexistent"
expect_err pol-missing "nonexistent: No such file"
run pol-empty 1 --provision-only --tpm-state "$S" --policy "$P/empty.pol"
expect_err pol-empty "empty"
run pol-big 1 --provision-only --tpm-state "$S" --policy "$P/big.pol"
expect_err pol-big "more than the 2048 bytes"
run pol-dir 1 --provision-only --tpm-state "$S" --policy "$P"
run pol-boot-missing 1 "${BASE[@]}" --policy "$P/nonexistent"
run provonly-nostate 1 --provision-only --policy "$P/one.pol"
expect_err provonly-nostate "needs --tpm-state"
run notpm-policy 1 "${BASE[@]}" --no-tpm --policy "$P/one.pol"
run banks-bad 1 --pcr-banks sha1,md5
run banks-dup 1 --pcr-banks sha1,sha1
run banks-empty 1 --pcr-banks ""
nv_check "after errors" "$S" "$P/one.pol"
# an owner password the launcher does not know: tpm2_nvundefine -C o fails
cp -r "$S" "$T/tpm-owned"
tpm_up "$T/tpm-owned"
tpm2_changeauth -c o -p "file:$T/tpm-owned/vtboot-owner.auth" secret -T "$TCTI" > /dev/null
tpm_down
run pol-toolfail 1 --provision-only --tpm-state "$T/tpm-owned" --policy "$P/halt.pol"
expect_err pol-toolfail "tpm2_nvundefine failed (exit status 1): tpm2_nvundefine 0x01200001 -C o -P file:$T/tpm-owned/vtboot-owner.auth -T swtpm:path="
expect_err pol-toolfail "ERROR: Esys_NV_UndefineSpace(0x9A2)"
run pol-toolfail-boot 1 "${BASE[@]}" --tpm-state "$T/tpm-owned" --policy "$P/halt.pol"
expect_err pol-toolfail-boot "tpm2_nvundefine failed"
# an older state whose owner password someone else set: refused, nothing booted
rm "$T/tpm-owned"/vtboot-*.auth
run own-other 1 "${BASE[@]}" --tpm-state "$T/tpm-owned"
expect_err own-other "the TPM state in $T/tpm-owned has its owner authorization set, not by vtboot-qemu (which keeps its own in $T/tpm-owned/vtboot-owner.auth): the policy index cannot be kept from the guest; use a new state"
check_clean "policy provisioning"
