# SPDX-License-Identifier: MIT
"""The HPET's FSB messages on the emulated TXT platform (issue 20, docs/txt-platform.md "0010",
qemu/patches 0010): out/bin/qemu-system-x86_64-txt with `-machine q35,txt=on,hpet=on` and
`-global hpet.msi=on` (QEMU's HPET offers FSB delivery only with it) boots
host/tests/guest/getsec.elf, whose case=hpet-fsb (getsec_hpet.c) arms two one-shot timers in
FSB mode: timer 0 with the FSB route at a RAM word (hpet_marker, 0x11111111) and the value
0x50574e21, timer 1 later at the local APIC (0xfee00000) with vector 0x41. With txt=on the RAM word stays as it was
and QEMU logs the dropped message (-d guest_errors); the interrupt still comes. The controls,
which must differ: txt=off on the same binary and Debian's stock QEMU, where the value lands
in RAM; and the property alone (`-global hpet.x-fsb-interrupt-window-only=on` on txt=off)
drops it too.

The patched binary is part of `make` (BUILD, qemu/qemu.mk): when it is missing these tests
fail, they never skip."""
import os
import tempfile

import pytest

import getsec_guest
from getsec_guest import stock_qemu, symbol, txt_qemu

MARKER = 0x11111111
PWN = 0x50574E21
HPET = ["-global", "hpet.msi=on"]


def run(qemu, machine, extra=()):
    """case=hpet-fsb's lines and QEMU's HPET log lines (-d guest_errors)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "qemu.log")
        lines, _ = getsec_guest.run_getsec(qemu, "hpet-fsb", machine=machine,
                                           extra=[*HPET, *extra, "-d", "guest_errors",
                                                  "-D", log])
        with open(log) as f:
            hpet_log = [l for l in f.read().splitlines() if l.startswith("hpet")]
    return lines, hpet_log


def expected(word_after):
    ram = symbol("hpet_marker")
    return ["start", "timer 0 Tn_FSB_INT_DEL_CAP = 0x1", "timer 1 Tn_FSB_INT_DEL_CAP = 0x1",
            f"FSB to RAM {ram:#x}: word before = {MARKER:#x}",
            "FSB to 0xfee00000 vector 0x41: interrupts = 0x1",
            f"FSB to RAM {ram:#x}: word after = {word_after:#x}",
            "done"]


def dropped_log():
    return [f"hpet: timer 0: FSB message to {symbol('hpet_marker'):#x} outside the "
            "interrupt window 0xfee00000-0xfeefffff: dropped"]


def test_txt_hpet_fsb_message_to_ram_is_dropped():
    """txt=on: the FSB message aimed at RAM is dropped (the word keeps 0x11111111) with one
    log line naming the timer and the address; the one to the local APIC interrupts once."""
    lines, log = run(txt_qemu(), "q35,txt=on,hpet=on")
    assert lines == expected(MARKER)
    assert log == dropped_log()


def test_txt_hpet_property_alone_drops_it():
    """The property, not the TXT device, filters: set by hand on a txt=off machine."""
    lines, log = run(txt_qemu(), "q35,hpet=on",
                     ["-global", "hpet.x-fsb-interrupt-window-only=on"])
    assert lines == expected(MARKER)
    assert log == dropped_log()


@pytest.mark.parametrize("which", ["txt=off", "stock"])
def test_txt_hpet_without_txt_the_message_lands(which):
    """The controls: txt=off on the patched binary and Debian's stock QEMU write the value
    into RAM (QEMU's FSB delivery is a store to any address) and log nothing."""
    qemu = txt_qemu() if which == "txt=off" else stock_qemu()
    lines, log = run(qemu, "q35,hpet=on")
    assert lines == expected(PWN)
    assert log == []
