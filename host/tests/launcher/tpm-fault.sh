# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE) after tpm-state.sh (tpm_up, tpm_down).
echo "# TPM fault injection (--tpm-fault), swtpm killed mid-run, a policy index in DA lockout"
# --tpm-fault makes the launcher relay the TPM data channel and answer the named commands
# itself (host/lib/tpmfault.c, ctrlproxy.c). testk's TPM commands: PCR_Read ("pcr": one),
# NV_ReadPublic + NV_Read per 512 bytes ("nv", resending on 0x922); SeaBIOS sends Startup.
TF=$T/tpmfault
mkdir -p "$TF"
TF_HELPER=$HERE/tpm-lockout.sh
tf_hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }
tf_has() {        # NAME out|err LINE: that exact line (a trailing \r dropped)
    if tr -d '\r' < "$T/$1.$2" | grep -qxF -- "$3"; then
        ok "$1: $2 line '$(cut -c 1-120 <<< "$3")'"
    else
        bad "$1: no $2 line '$3'" "$(tail -3 "$T/$1.$2")"
    fi
}
tf_count() {      # NAME out|err PREFIX N: N lines start with PREFIX
    local n
    n=$(tr -d '\r' < "$T/$1.$2" | awk -v p="$3" 'index($0, p) == 1' | wc -l)
    if [ "$n" = "$4" ]; then ok "$1: $4 $2 lines '$3...'"; else bad "$1: $n $2 lines '$3...', expected $4"; fi
}
tf_last() {       # NAME LINE: the only stderr line, exactly
    if [ "$(cat "$T/$1.err")" = "$2" ]; then ok "$1: stderr is '$2'"; else bad "$1: stderr" "$(cat "$T/$1.err")"; fi
}
tf_match() {      # NAME out|err ERE: a line matching ERE
    if tr -d '\r' < "$T/$1.$2" | grep -qE -- "$3"; then ok "$1: $2 matches '$3'"; else bad "$1: no $2 line matching '$3'" "$(tail -3 "$T/$1.$2")"; fi
}
head -c 1100 /dev/urandom > "$TF/pol1100"     # NV_Read at offsets 0, 512, 1024
NVHEX=$(tf_hex "$TF/pol1100")

# every PCR_Read: the guest gets the code, swtpm never sees the command
run fault-pcr 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff pcr" --tpm-fault PCR_Read=0x101
tf_has fault-pcr out "TESTK: pcr before: TPM error 0x00000101"
tf_count fault-pcr out "TESTK: pcr before: PCR" 0
tf_has fault-pcr err "vtboot-qemu: TPM fault: PCR_Read (0x17e) #1 answered 0x101"
tf_count fault-pcr err "vtboot-qemu: TPM fault: " 1
last_err_line fault-pcr "vtboot-qemu: guest powered off"
run fault-hex 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff pcr" --tpm-fault 0x17E=0x9A2
tf_has fault-hex out "TESTK: pcr before: TPM error 0x000009a2"
tf_has fault-hex err "vtboot-qemu: TPM fault: PCR_Read (0x17e) #1 answered 0x9a2"
# Startup never reaches swtpm: the TPM stays un-started, so PCR_Read is TPM_RC_INITIALIZE
run fault-startup 0 "${BASE[@]}" --vtboot-cmdline "action=poweroff pcr" --tpm-fault Startup=0x101
tf_has fault-startup err "vtboot-qemu: TPM fault: Startup (0x144) #1 answered 0x101"
tf_has fault-startup out "TESTK: pcr before: TPM error 0x00000100"
# @N: only the Nth NV_Read (its offset shows which one failed)
run fault-nth 0 "${BASE[@]}" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff nv" \
    --tpm-fault NV_Read@2=0x101
tf_has fault-nth out "TESTK: nv public: attributes=0x22060002 size=1100"
tf_has fault-nth out "TESTK: nv read: TPM error 0x00000101 at offset 512"
tf_has fault-nth err "vtboot-qemu: TPM fault: NV_Read (0x14e) #2 answered 0x101"
tf_count fault-nth err "vtboot-qemu: TPM fault: " 1
run fault-retry 0 "${BASE[@]}" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff nv" \
    --tpm-fault NV_Read@1=0x922
tf_has fault-retry out "TESTK: nv read: TPM_RC_RETRY (0x922) at offset 0, retrying"
tf_count fault-retry out "TESTK: nv read: " 1
tf_has fault-retry out "TESTK: nv data=$NVHEX"
tf_count fault-retry err "vtboot-qemu: TPM fault: " 1
# a spec for the occurrence outranks the one for every occurrence
run fault-both 0 "${BASE[@]}" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff nv" \
    --tpm-fault NV_Read=0x101 --tpm-fault NV_Read@1=0x922
tf_has fault-both out "TESTK: nv read: TPM_RC_RETRY (0x922) at offset 0, retrying"
tf_has fault-both out "TESTK: nv read: TPM error 0x00000101 at offset 0"
tf_has fault-both err "vtboot-qemu: TPM fault: NV_Read (0x14e) #1 answered 0x922"
tf_has fault-both err "vtboot-qemu: TPM fault: NV_Read (0x14e) #2 answered 0x101"
tf_count fault-both err "vtboot-qemu: TPM fault: " 2
# the relay changes nothing else: a fault on a command nobody sends, same lines as without
# the relay; the index has no_da, so no TPM_RC_RETRY from libtpms either (host/README.md)
run fault-none 0 "${BASE[@]}" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff pcr nv"
run fault-idle 0 "${BASE[@]}" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff pcr nv" \
    --tpm-fault Quote=0x101 -v
a=$(tr -d '\r' < "$T/fault-none.out" | grep -a "^TESTK: \(pcr\|nv\)")
b=$(tr -d '\r' < "$T/fault-idle.out" | grep -a "^TESTK: \(pcr\|nv\)")
if [ "$a" = "$b" ] && [ "$(grep -c . <<< "$a")" = 6 ]; then
    ok "fault-idle: the same 6 PCR/NV lines as without the relay"
else
    bad "fault-idle: PCR/NV lines differ from a run without the relay" "$a / $b"
fi
tf_has fault-idle out "TESTK: nv data=$NVHEX"
tf_has fault-idle out "TESTK: pcr before: PCR17 sha256=$(printf 'f%.0s' {1..64})"
tf_count fault-idle out "TESTK: nv read: " 0
tf_count fault-idle err "vtboot-qemu: TPM fault: " 0
tf_has fault-idle err "vtboot-qemu: TPM data channel relayed through us (fault injection)"
tf_match fault-idle err "^vtboot-qemu: TPM data relay: .* \\([0-9]+ commands, 0 answered by faults, 0 malformed\\)$"
if grep -q "TPM data channel relayed" "$T/fault-none.err"; then bad "fault-none: relayed without faults"; else ok "fault-none: no relay without faults"; fi
check_clean "TPM faults"

# a bad SPEC is a setup error before anything starts: one line, exit 1
tf_bad() {        # NAME LINE ARGS...
    local name=$1 line=$2
    shift 2
    run "$name" 1 "${BASE[@]}" "$@"
    tf_last "$name" "$line"
    [ -s "$T/$name.out" ] && bad "$name: stdout not empty" || ok "$name: nothing booted"
}
tf_bad fault-badname "vtboot-qemu: error: --tpm-fault 'Bogus=0x101': unknown TPM 2.0 command 'Bogus' (a name from TPM 2.0 Part 2 such as PCR_Read, or a hex code such as 0x17e; --tpm-fault list shows the names)" \
    --tpm-fault Bogus=0x101
tf_bad fault-badnth "vtboot-qemu: error: --tpm-fault 'PCR_Read@0=0x101': the occurrence after '@' must be a number from 1 to 1000000" \
    --tpm-fault PCR_Read@0=0x101
tf_bad fault-badrc "vtboot-qemu: error: --tpm-fault 'PCR_Read=101': the response code must be hex from 0x1 to 0xffffffff (e.g. 0x101, TPM_RC_FAILURE)" \
    --tpm-fault PCR_Read=101
tf_bad fault-noeq "vtboot-qemu: error: --tpm-fault 'PCR_Read': expected CC[:H][@N]=RC (e.g. PCR_Read=0x101, NV_Read@2=0x922, PCR_Extend:17@1=0x101)" \
    --tpm-fault PCR_Read
tf_bad fault-dup "vtboot-qemu: error: --tpm-fault '0x17e@2=0x1': PCR_Read #2 has a fault already" \
    --tpm-fault PCR_Read@2=0x101 --tpm-fault 0x17e@2=0x1
tf_bad fault-nodrtm "vtboot-qemu: error: --tpm-fault needs the TPM control-channel proxy, which --no-tpm and --no-drtm turn off" \
    --tpm-fault PCR_Read=0x101 --no-drtm
tf_bad fault-notpm "vtboot-qemu: error: --tpm-fault needs the TPM control-channel proxy, which --no-tpm and --no-drtm turn off" \
    --tpm-fault PCR_Read=0x101 --no-tpm
check_clean "TPM fault errors"

# the command names: every command swtpm reports (TPM2_GetCapability(TPM_CAP_COMMANDS)) is
# listed with the name tpm2-tools gives it (tpm2-tools 5.4 has none for 0x197, CertifyX509,
# and prints the attribute value: only the code is checked then)
"$LAUNCHER" --tpm-fault list > "$T/fault-list.out" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(wc -l < "$T/fault-list.out")" = 119 ] && grep -qxF "0x0000017e PCR_Read" "$T/fault-list.out" &&
    ok "fault-list: 119 commands, PCR_Read 0x17e" || bad "fault-list: exit $rc" "$(head -3 "$T/fault-list.out")"
run fault-state 0 --provision-only --tpm-state "$TF/state"
tpm_up "$TF/state"
tpm2_getcap commands -T "$TCTI" 2> /dev/null |
    sed -n 's/^TPM2_CC_\(.*\):$/\1/p; s/^0x[0-9a-fA-F]*:$/?/p; s/^ *commandIndex: *\(0x[0-9a-f]*\)$/\1/p' |
    paste - - | while read -r cc_name cc_index; do printf '0x%08x %s\n' "$cc_index" "$cc_name"; done \
    > "$T/fault-swtpm.cmds"
tpm_down
n=$(grep -c . "$T/fault-swtpm.cmds")
miss=$(while read -r code name; do
           if [ "$name" = "?" ]; then
               grep -q "^$code " "$T/fault-list.out" || echo "$code"
           else
               grep -qxF "$code $name" "$T/fault-list.out" || echo "$code $name"
           fi
       done < "$T/fault-swtpm.cmds")
if [ "$n" -ge 100 ] && [ -z "$miss" ]; then
    ok "fault-list: the names and codes of all $n commands swtpm reports"
else
    bad "fault-list: swtpm's commands not in --tpm-fault list ($n read)" "$miss"
fi

# swtpm killed while the guest runs: a clear line, then the run ends (exit 4) after the grace
for how in direct relay; do
    name=swtpm-killed-$how
    extra=()
    [ $how = relay ] && extra=(--tpm-fault Quote=0x101)
    "$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=hang" --timeout 60 "${extra[@]}" \
        > "$T/$name.out" 2> "$T/$name.err" < /dev/null &
    pid=$!
    for _ in $(seq 200); do grep -aq "TESTK: hanging" "$T/$name.out" && break; sleep 0.1; done
    sw=$(pgrep -P $pid -x swtpm)
    t0=$(date +%s%N)
    [ -n "$sw" ] && kill -KILL "$sw"
    wait $pid
    rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    if [ -n "$sw" ] && [ $rc = 4 ]; then ok "$name: exit 4"; else bad "$name: exit $rc (swtpm pid '$sw')" "$(tail -3 "$T/$name.err")"; fi
    if [ $ms -ge 4500 ] && [ $ms -le 9000 ]; then ok "$name: ended ${ms} ms after the kill (grace 5 s)"; else bad "$name: ended ${ms} ms after the kill"; fi
    tf_match $name err "^vtboot-qemu: swtpm ended while the guest runs \\(killed by signal 9 \\(Killed\\), at [0-9]+\\.[0-9] s\\): the TPM is gone; the run ends in 5 s unless the guest ends first\$"
    tf_match $name err "^vtboot-qemu: guest crashed \\(swtpm ended: killed by signal 9 \\(Killed\\); QEMU stopped, [0-9]+\\.[0-9] s\\)\$"
    last_err_line $name "vtboot-qemu: guest crashed (swtpm ended: killed by signal 9 (Killed); QEMU stopped"
    check_clean "$name"
done

# a policy index WITHOUT no_da in a TPM in dictionary-attack lockout (tpm-lockout.sh): the guest
# cannot read it (TPM_RC_LOCKOUT); the launcher's own provisioning (no_da) stays readable
"$TF_HELPER" "$TF/locked" "$TF/pol1100" > "$T/lockout.out" 2>&1
rc=$?
if [ $rc = 0 ]; then ok "tpm-lockout.sh: exit 0"; else bad "tpm-lockout.sh: exit $rc" "$(tail -5 "$T/lockout.out")"; fi
tf_has lockout out "tpm-lockout: $TF/locked: index 0x01200001 (1100 bytes of $TF/pol1100, no no_da) is locked out (TPM in dictionary-attack lockout, max tries 1, recovery 86400 s)"
tf_has lockout out "  inLockout=1 TPM2_PT_LOCKOUT_COUNTER=0x1 TPM2_PT_MAX_AUTH_FAIL=0x1"
run lockout-boot 0 "${BASE[@]}" --tpm-state "$TF/locked" --vtboot-cmdline "action=poweroff nv"
tf_has lockout-boot out "TESTK: nv public: attributes=0x20060002 size=1100"
tf_has lockout-boot out "TESTK: nv read: TPM error 0x00000921 at offset 0"
run lockout-noda 0 "${BASE[@]}" --tpm-state "$TF/locked" --policy "$TF/pol1100" --vtboot-cmdline "action=poweroff nv"
tf_has lockout-noda out "TESTK: nv public: attributes=0x22060002 size=1100"
tf_has lockout-noda out "TESTK: nv data=$NVHEX"
tpm_up "$TF/locked"
tpm2_getcap properties-variable -T "$TCTI" > "$T/lockout-after.out" 2>&1
tpm_down
tf_has lockout-after out "  inLockout:                 1"
"$TF_HELPER" "$TF/locked2" "$TF/nonexistent" > "$T/lockout-bad.out" 2>&1
rc=$?
[ $rc = 1 ] && tf_has lockout-bad out "tpm-lockout: FAILED: $TF/nonexistent: no such file" || bad "tpm-lockout.sh without a policy file: exit $rc"
check_clean "DA lockout"
