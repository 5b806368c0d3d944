#!/bin/sh
# Usage: [LD_SCRIPT=F] check-image-dead-code.sh IMAGE OBJECT...  (F: the image's linker script,
# default vtboot's)
#
# The measured image holds only code it runs: fails if IMAGE (linked with --gc-sections from
# OBJECTs compiled with -ffunction-sections -fdata-sections) contains a global function or
# object that no other section of the OBJECTs refers to and that is not an entry point, i.e.
# one only the unit tests, fuzzers or host tools call. Roots: symbols in sections the linker
# script keeps (.multiboot, .mlehdr), and the symbols it names.
set -eu
image=$1
shift
ld_script=${LD_SCRIPT:-src/arch/x86/vtboot.ld}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "symbol object:section" for every global symbol the objects define (functions and data)
for o in "$@"; do
    objdump -t "$o" | awk -v o="$o" '$2 == "g" && $4 != "*UND*" && $4 != "*ABS*" { print $NF, o ":" $4 }'
done | sort -u > "$tmp/defs"
# "object:section symbol" for every reference from a section to a symbol
for o in "$@"; do
    objdump -r "$o" | awk -v o="$o" '
        /^RELOCATION RECORDS FOR \[/ { sec = $4; sub(/^\[/, "", sec); sub(/\]:$/, "", sec); next }
        NF == 3 && $1 ~ /^[0-9a-f]+$/ { v = $3; sub(/[-+]0x[0-9a-f]+$/, "", v); print o ":" sec, v }'
done | sort -u > "$tmp/refs"
# a symbol is used if a section other than its own refers to it
awk 'NR == FNR { own[$1] = $2; next } ($2 in own) && own[$2] != $1 { print $2 }' \
    "$tmp/defs" "$tmp/refs" | sort -u > "$tmp/used"
# roots: the symbols of kept sections and those the linker script names
awk '$2 ~ /:\.multiboot$/ || $2 ~ /:\.mlehdr$/ { print $1 }' "$tmp/defs" > "$tmp/roots"
grep -o '[A-Za-z_][A-Za-z0-9_]*' "$ld_script" >> "$tmp/roots"
sort -u "$tmp/roots" -o "$tmp/roots"
cut -d' ' -f1 "$tmp/defs" | sort -u | comm -23 - "$tmp/used" | comm -23 - "$tmp/roots" \
    > "$tmp/unused"
nm "$image" | awk '{ print $NF }' | sort -u > "$tmp/image"
comm -12 "$tmp/unused" "$tmp/image" > "$tmp/bad"
if [ -s "$tmp/bad" ]; then
    echo "$image: symbols nothing in vtboot uses (test-only or dead code) are in the measured image:" >&2
    sed 's/^/  /' "$tmp/bad" >&2
    exit 1
fi
