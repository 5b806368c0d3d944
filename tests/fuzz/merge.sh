#!/bin/bash
# Minimises each target's corpus into its directory in the repo: the seed-* and regress-* files
# stay; of everything else there and in the working corpus ($OBJDIR/corpus/<target>/, grown by
# `make fuzz`), libFuzzer's -merge=1 keeps only inputs that add coverage, named by their SHA-1.
# usage: merge.sh OBJDIR TARGET...   (TARGET as for run.sh: NAME or host/NAME)
set -eu
dir=$1
mkdir -p "$dir/logs"
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hostdir=${HOST_FUZZ_DIR:-$dir/../../host/tests/fuzz}
for t in "$@"; do
    case $t in
    host/*) bin=$hostdir/${t#host/}_fuzz repo=$root/host/tests/fuzz/corpus/${t#host/} ;;
    *)      bin=$dir/${t}_fuzz repo=$here/corpus/$t ;;
    esac
    work=$dir/corpus/${t//\//-}
    mkdir -p "$work" "$repo"
    tmp=$(mktemp -d)
    find "$repo" -maxdepth 1 -type f \( -name 'seed-*' -o -name 'regress-*' \) -exec cp {} "$tmp/" \;
    before=$(ls "$repo" | wc -l)
    "$bin" -merge=1 -timeout=10 -rss_limit_mb=2048 "$tmp" "$repo" "$work" > "$dir/logs/merge-${t//\//-}.log" 2>&1 || {
        echo "merge $t FAILED: $dir/logs/merge-${t//\//-}.log"; rm -rf "$tmp"; exit 1; }
    find "$repo" -maxdepth 1 -type f ! -name 'seed-*' ! -name 'regress-*' -delete
    find "$tmp" -maxdepth 1 -type f ! -name 'seed-*' ! -name 'regress-*' -exec cp {} "$repo/" \;
    rm -rf "$tmp"
    printf 'merge %-18s %5s -> %5s files, %s\n' "$t" "$before" "$(ls "$repo" | wc -l)" \
        "$(du -sh "$repo" | cut -f1)"
done
