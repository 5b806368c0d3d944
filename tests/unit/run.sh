#!/bin/sh
# Runs unit test binaries; prints a failing binary's output, and one summary line.
# usage: run.sh [-v] BINARY...
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
start=$(date +%s%N)
bins=0 tests=0 failed=0 failed_bins=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for b in "$@"; do
    bins=$((bins + 1))
    if "$b" >"$log" 2>&1; then
        [ $verbose = 1 ] && cat "$log"
    else
        failed=$((failed + 1))
        failed_bins="$failed_bins ${b##*/}"
        echo "---- FAILED: $b"
        cat "$log"
    fi
    n=$(sed -n 's/^\[==========\] \([0-9]*\) test(s) run\./\1/p' "$log" | tail -1)
    tests=$((tests + ${n:-0}))
done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if [ $failed = 0 ]; then
    echo "unit-test: $tests tests in $bins binaries passed ($ms ms)"
else
    echo "unit-test: $failed of $bins binaries FAILED:$failed_bins ($tests tests run, $ms ms)"
    exit 1
fi
