#!/bin/sh
# Runs unit test binaries; prints a failing binary's output, and one summary line that counts
# skipped tests (a test skips when a tool it checks against, such as swtpm, tpm2-tools or
# tb_polgen, is missing). UNIT_NO_SKIP=1 (set by `make test`, which installs every tool first)
# counts a skipped test as a failure, so a machine without the tools never reports green.
# A binary that runs longer than UNIT_TIMEOUT seconds (120) is killed and fails: a unit test
# that hangs (a lock that is never released, a loop without end) must not hang `make test`.
# usage: run.sh [-v] BINARY...
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
start=$(date +%s%N)
bins=0 tests=0 skipped=0 failed=0 failed_bins="" skipped_bins=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for b in "$@"; do
    bins=$((bins + 1))
    timeout "${UNIT_TIMEOUT:-120}" "$b" >"$log" 2>&1
    rc=$?
    if [ $rc = 0 ]; then
        [ $verbose = 1 ] && cat "$log"
    else
        failed=$((failed + 1))
        failed_bins="$failed_bins ${b##*/}"
        echo "---- FAILED: $b"
        cat "$log"
        [ $rc = 124 ] && echo "---- $b: killed after ${UNIT_TIMEOUT:-120} s (a hang)"
    fi
    n=$(sed -n 's/^\[==========\] \([0-9]*\) test(s) run\./\1/p' "$log" | tail -1)
    tests=$((tests + ${n:-0}))
    k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s),.*/\1/p' "$log" | tail -1)
    if [ "${k:-0}" -gt 0 ]; then
        skipped=$((skipped + k))
        skipped_bins="$skipped_bins ${b##*/}"
        echo "---- SKIPPED $k test(s) in $b:"
        grep -E '^\[  SKIPPED \] [a-z_]|skipping' "$log"| sort -u
        if [ "${UNIT_NO_SKIP:-0}" = 1 ]; then
            failed=$((failed + 1))
            failed_bins="$failed_bins ${b##*/}(skipped)"
        fi
    fi
done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if [ $failed = 0 ]; then
    echo "unit-test: $tests tests in $bins binaries passed, $skipped skipped${skipped_bins:+ (in$skipped_bins)} ($ms ms)"
else
    echo "unit-test: $failed of $bins binaries FAILED:$failed_bins ($tests tests run, $skipped skipped, $ms ms)"
    exit 1
fi
