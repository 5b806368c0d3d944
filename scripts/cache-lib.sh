# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Shell functions the cached builds share (kernel/build.sh, xen/build.sh): sourced, not run.

# sha: SHA-256 of standard input, hex only
sha() { sha256sum | cut -d' ' -f1; }

# install_outputs FINAL OUT SRC:DST...: copies each FINAL/SRC to OUT/DST, atomically and only
# when the content differs, so an unchanged build keeps its mtime and nothing downstream is
# remade.
install_outputs() {
    local final=$1 out=$2 pair src dst
    shift 2
    mkdir -p "$out"
    for pair in "$@"; do
        src="$final/${pair%%:*}"; dst="$out/${pair#*:}"
        if ! cmp -s "$src" "$dst" 2>/dev/null; then
            cp "$src" "$dst.tmp.$$" && mv -f "$dst.tmp.$$" "$dst"
        fi
    done
}

# cache_lock CACHE NAME: one build of NAME at a time (fd 9 holds the lock until exit); says so
# while it waits for another one.
cache_lock() {
    mkdir -p "$1/.locks"
    exec 9>"$1/.locks/$2.lock"
    if ! flock -n 9; then
        say "waiting for another build of $2 ..."
        flock 9
    fi
}

# temp_build_tree LABEL PREFIX: makes $tmp, a fresh directory PREFIX.XXXXXX for a build, and sets
# the traps of a build in it: at exit the tree is removed unless keep_tmp=1 (set by the caller
# before a failure worth looking at) or VTBOOT_KEEP_FAILED=1; a build that succeeded moves $tmp
# away and sets tmp="". Long steps go through `run` in the background so that a signal is handled
# at once: it is passed on to the running step (make passes SIGTERM on to its children), we wait
# for it, and the exit trap removes the tree.
temp_build_tree() {
    build_label=$1
    tmp=$(mktemp -d "$2.XXXXXX")
    chmod 755 "$tmp"
    keep_tmp=0
    child=""
    exec 8>&2   # the caller's stderr, for messages from traps (which may run inside a redirection)
    trap remove_temp_tree EXIT
    trap 'on_build_signal 130' INT
    trap 'on_build_signal 143' TERM
    trap 'on_build_signal 129' HUP
}
remove_temp_tree() {
    local rc=$?
    if [ -n "${tmp:-}" ] && [ -d "$tmp" ]; then
        if [ "$keep_tmp" = 1 ] || [ "${VTBOOT_KEEP_FAILED:-0}" = 1 ]; then
            echo "$build_label: failed build left in $tmp" >&8
        else
            rm -rf "$tmp"
        fi
    fi
    exit $rc
}
on_build_signal() {
    trap '' INT TERM HUP
    if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi
    echo "$build_label: interrupted, removing $tmp" >&8
    exit "$1"
}
# run PROGRAM ARGS...: a long step, in the background (see temp_build_tree); not a shell function
run() { "$@" & child=$!; wait "$child"; local rc=$?; child=""; return $rc; }
