#!/bin/bash
# Runs libFuzzer targets for SECONDS each, JOBS at a time; the log of any target that fails,
# and a table: executions, speed and coverage per target, and the executions of every run
# recorded in OBJDIR/ledger.tsv (across runs); after the table, each failure's cause and its
# input in base64 (CI may keep only the end of the output).
# usage: run.sh SECONDS JOBS OBJDIR TARGET...
#   TARGET  NAME       tests/fuzz/NAME_fuzz.c: OBJDIR/NAME_fuzz, seeds tests/fuzz/corpus/NAME/
#           host/NAME  host/tests/fuzz/NAME_fuzz.c: $HOST_FUZZ_DIR/NAME_fuzz, seeds
#                      host/tests/fuzz/corpus/NAME/
# Every target must exist and run: a missing binary or seed directory fails the run.
# Coverage is libFuzzer's: "cov" the edges (PCs) reached out of the instrumented ones of the
# binary (harness and linked library code), "ft" its features (edges with hit counts).
set -u
secs=$1 jobs=$2 dir=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hostdir=${HOST_FUZZ_DIR:-$dir/../../host/tests/fuzz}
mkdir -p "$dir/logs" "$dir/artifacts"
ledger=$dir/ledger.tsv

# NAME -> "binary|seeds..." (the first seed dir must exist)
where() {
    case $1 in
    host/*) local n=${1#host/}
            printf '%s|%s' "$hostdir/${n}_fuzz" "$root/host/tests/fuzz/corpus/$n" ;;
    *)      printf '%s|%s' "$dir/${1}_fuzz" "$here/corpus/$1" ;;
    esac
}
logname() { printf '%s' "${1//\//-}"; }

run_one() {
    local t=$1 w bin seeds work log
    w=$(where "$t")
    bin=${w%%|*} seeds=${w#*|}
    work="$dir/corpus/$(logname "$t")" log="$dir/logs/$(logname "$t").log"
    mkdir -p "$work"
    if [ ! -x "$bin" ] || [ ! -d "$seeds" ]; then
        echo "run.sh: $t: no binary $bin or no seed directory $seeds" >"$log"
        echo 98 >"$log.rc"
        return
    fi
    # -timeout: a single input that takes 10 s is a hang; -rss_limit_mb: a leak or a blowup
    "$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$dir/artifacts/$(logname "$t")-" "$work" "$seeds" >"$log" 2>&1
    echo $? >"$log.rc"
}

start=$(date +%s)
stamp="$dir/logs/.start"
touch "$stamp"
running=0
for t in "$@"; do
    rm -f "$dir/logs/$(logname "$t").log.rc"
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

failed="" rows=""
for t in "$@"; do
    log="$dir/logs/$(logname "$t").log"
    rc=$(cat "$log.rc" 2>/dev/null || echo 99)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o ' cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
    ft=$(grep -o ' ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
    edges=$(sed -n 's/^INFO: Loaded 1 modules *(\([0-9]*\) inline.*/\1/p' "$log" | head -1)
    corp=$(ls "$dir/corpus/$(logname "$t")" 2>/dev/null | wc -l)
    if [ "$rc" = 0 ] && [ -n "$runs" ]; then
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date +%F.%T)" "$t" "$runs" "$cov" "$ft" "$secs" >>"$ledger"
        status=ok
    else
        failed="$failed $t"
        status="FAILED($rc)"
        echo "---- fuzz $t FAILED (exit $rc); log $log:"
        grep -v '^#[0-9]' "$log" | tail -60
        find "$dir/artifacts" -name "$(logname "$t")-*" -newer "$stamp" 2>/dev/null |
            sed 's/^/    reproducer: /'
    fi
    total=$(awk -F'\t' -v t="$t" '$2 == t { s += $3 } END { printf "%d", s }' "$ledger" 2>/dev/null)
    pct=""
    [ -n "$cov" ] && [ -n "$edges" ] && [ "$edges" -gt 0 ] && pct=$(( cov * 100 / edges ))
    rows="$rows$(printf '%-18s %-11s %11s %8s %11s %6s %5s %7s %13s' "$t" "$status" "${runs:-0}" \
        "${rate:-0}" "${cov:-?}/${edges:-?}" "${pct:-?}%" "${ft:-?}" "$corp" "${total:-0}")"$'\n'
done
secs_total=$(( $(date +%s) - start ))
echo
printf '%-18s %-11s %11s %8s %11s %6s %5s %7s %13s\n' target status executions exec/s \
    cov/edges cov ft corpus "execs (all)"
printf '%s' "$rows"
echo "(execs (all): every recorded run of the target in $ledger)"
if [ -n "$failed" ]; then
    # each failure's cause and input once more at the end, where a cut log still shows them
    for t in $failed; do
        log="$dir/logs/$(logname "$t").log"
        { grep -m3 -E 'invariant broken|ERROR:|SUMMARY:' "$log"
          grep -E '^ +#[0-9]+ ' "$log" | grep -m4 -F " $root/"; } | sed "s|^|$t: |"
        find "$dir/artifacts" -name "$(logname "$t")-*" -newer "$stamp" -size -4097c 2>/dev/null |
            while read -r a; do
                echo "$t: input $(basename "$a") ($(stat -c %s "$a") bytes), base64:"
                base64 -w 100 "$a"
            done
    done
    echo "fuzz: FAILED:$failed (${secs_total} s); reproduce with: <binary> <reproducer>"
    exit 1
fi
echo "fuzz: $# targets, ${secs}s each, no crashes (${secs_total} s)"
