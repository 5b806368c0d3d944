# SPDX-License-Identifier: MIT
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
