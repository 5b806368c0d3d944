#!/bin/bash
# Runs libFuzzer targets for SECONDS each, JOBS at a time; one line per target, the log of
# any target that fails, and a summary. usage: run.sh SECONDS JOBS OBJDIR TARGET...
set -u
secs=$1 jobs=$2 dir=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/logs" "$dir/artifacts"

run_one() {
    local t=$1 bin="$dir/${1}_fuzz" work="$dir/corpus/$1" log="$dir/logs/$1.log"
    mkdir -p "$work"
    # -timeout: a single input that takes 10 s is a hang; -rss_limit_mb: a leak or a blowup
    "$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$dir/artifacts/$t-" "$work" "$here/corpus/$t" >"$log" 2>&1
    echo $? >"$log.rc"
}

start=$(date +%s)
stamp="$dir/logs/.start"
touch "$stamp"
running=0
for t in "$@"; do
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

failed=""
for t in "$@"; do
    log="$dir/logs/$t.log"
    rc=$(cat "$log.rc" 2>/dev/null || echo 99)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    corp=$(ls "$dir/corpus/$t" 2>/dev/null | wc -l)
    if [ "$rc" = 0 ]; then
        printf 'fuzz %-8s ok: %9s runs, %7s exec/s, cov %5s, corpus %s\n' "$t" "${runs:-?}" \
            "${rate:-?}" "${cov:-?}" "$corp"
    else
        failed="$failed $t"
        echo "---- fuzz $t FAILED (exit $rc); log $log:"
        grep -v '^#[0-9]' "$log" | tail -60
        find "$dir/artifacts" -name "$t-*" -newer "$stamp" 2>/dev/null | sed 's/^/    reproducer: /'
    fi
done
secs_total=$(( $(date +%s) - start ))
if [ -n "$failed" ]; then
    echo "fuzz: FAILED:$failed (${secs_total} s); reproduce with: <binary> <reproducer>"
    exit 1
fi
echo "fuzz: $# targets, ${secs}s each, no crashes (${secs_total} s)"
