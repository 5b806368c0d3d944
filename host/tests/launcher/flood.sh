# SPDX-License-Identifier: MIT
# Sourced by host/tests/run-tests.sh (its helpers, $T, $F, BASE) after vsenter.sh.
echo "# a guest that floods the virtual SENTER UART and COM1 and never reads an answer"
# The launcher stays in charge: --timeout and SIGTERM end the run within 2 s of their time.
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
# --timeout counts from QEMU's start, which comes after the launcher's set-up (swtpm, sockets:
# seconds on a loaded machine), so the clock starts at the guest's first line, which QEMU's
# start precedes: from there the run must end within the 10 s, plus 2.
timeout -k 5 30 "$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=flood" --timeout 10 \
    > "$T/flood.out" 2> "$T/flood.err" < /dev/null &
pid=$!
for _ in $(seq 600); do grep -aq "TESTK: flooding" "$T/flood.out" && break; sleep 0.05; done
t0=$(date +%s%N)
wait $pid
rc=$?
ms=$(ms_since "$t0")
if [ $rc = 3 ]; then ok "flood: exit 3"; else bad "flood: exit $rc, expected 3" "$(tail -3 "$T/flood.err")"; fi
if [ "$ms" -le 12000 ]; then ok "flood: --timeout 10 ended it $ms ms after the guest's first line"; else bad "flood: --timeout 10 ended it $ms ms after the guest's first line (more than 12 s)"; fi
last_err_line flood "vtboot-qemu: guest timed out"
has_line flood out "TESTK: flooding"
# the junk reached the host (refused) and COM1 kept flooding
expect_err flood "vtboot-qemu: virtual SENTER: refused: not a VSENTER request"
n=$(grep -ac "^TESTK: flood [0-9]" "$T/flood.out")
if [ "$n" -ge 100 ]; then ok "flood: $n COM1 lines"; else bad "flood: only $n COM1 lines"; fi
rm -f "$T/flood.out"
check_clean "flood timeout"
"$LAUNCHER" "${BASE[@]}" --vtboot-cmdline "action=flood" > "$T/floodterm.out" 2> "$T/floodterm.err" < /dev/null &
pid=$!
for _ in $(seq 600); do grep -aq "TESTK: flooding" "$T/floodterm.out" && break; sleep 0.05; done
sleep 3
(sleep 20; kill -KILL $pid 2>/dev/null) &
dog=$!
t0=$(date +%s%N)
kill -TERM $pid
wait $pid
rc=$?
ms=$(ms_since "$t0")
kill $dog 2>/dev/null
wait $dog 2>/dev/null
if [ $rc = 143 ]; then ok "flood sigterm: exit 143"; else bad "flood sigterm: exit $rc, expected 143" "$(tail -3 "$T/floodterm.err")"; fi
if [ "$ms" -le 2000 ]; then ok "flood sigterm: ended $ms ms after SIGTERM"; else bad "flood sigterm: ended $ms ms after SIGTERM (more than 2 s)"; fi
expect_err floodterm "vtboot-qemu: virtual SENTER: refused: not a VSENTER request"
rm -f "$T/floodterm.out"
check_clean "flood sigterm"
# the same with a terminal on stdin (relayed to COM1, which the guest never reads; we keep
# typing) and a stdout that nobody reads
python3 - "$LAUNCHER" "$T/floodtty.err" "${BASE[@]}" --vtboot-cmdline "action=flood" <<'PY' > "$T/floodtty.res"
import fcntl, os, pty, signal, subprocess, sys, time
m, s = pty.openpty()
r, w = os.pipe()
p = subprocess.Popen([sys.argv[1]] + sys.argv[3:], stdin=s, stdout=w, stderr=open(sys.argv[2], 'w'))
os.close(s)
os.close(w)
fcntl.fcntl(m, fcntl.F_SETFL, os.O_NONBLOCK)
sent, end = 0, time.time() + 6
while time.time() < end:
    try:
        sent += os.write(m, b'x' * 99 + b'\n')
    except BlockingIOError:
        time.sleep(0.01)
t0 = time.time()
p.send_signal(signal.SIGTERM)
try:
    rc = p.wait(timeout=20)
except subprocess.TimeoutExpired:
    p.kill()
    rc = p.wait()
print(-rc if rc < 0 else rc, int((time.time() - t0) * 1000), sent)
PY
read -r rc ms sent < "$T/floodtty.res"
if [ "$rc" = 143 ]; then ok "flood tty: exit 143"; else bad "flood tty: exit $rc, expected 143" "$(tail -3 "$T/floodtty.err")"; fi
if [ "$ms" -le 2000 ]; then ok "flood tty: ended $ms ms after SIGTERM ($sent bytes typed)"; else bad "flood tty: ended $ms ms after SIGTERM (more than 2 s)"; fi
check_clean "flood tty"
