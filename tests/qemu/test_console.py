# SPDX-License-Identifier: MIT
"""The serial log's reading (vtb.untangle_console), without booting: kernel records that cut
into the guest's report lines move out, and nothing else changes."""

import vtb

TSC = "[    2.212207] tsc: Refined TSC clocksource calibration: 2096.014 MHz"
CLOCK = "[    2.213948] clocksource: Switched to clocksource tsc"


def test_records_cut_into_a_value_move_before_its_line():
    value = "ab" * 584
    serial = (f"[    1.000000] Run /init as init process\nVTBOOT-GUEST: begin\n"
              f"VTBOOT-GUEST: shared-page-hex={value[:300]}{TSC}\n{CLOCK}\n{value[300:]}\n"
              "VTBOOT-GUEST: end\n")
    out = vtb.untangle_console(serial)
    assert out.splitlines() == ["[    1.000000] Run /init as init process", "VTBOOT-GUEST: begin",
                                TSC, CLOCK, f"VTBOOT-GUEST: shared-page-hex={value}",
                                "VTBOOT-GUEST: end"]
    run = vtb.parse_run(0, out, "")
    assert run.guest_lines == [("shared-page-hex", value)]


def test_record_before_the_line_end_and_in_the_prefix():
    serial = f"VTBOOT-GUEST: uptime=2.75{TSC}\n\nVTBOO{CLOCK}\nT-GUEST: end\n"
    assert vtb.untangle_console(serial).splitlines() == [
        TSC, "VTBOOT-GUEST: uptime=2.75", CLOCK, "VTBOOT-GUEST: end"]


def test_two_cuts_in_one_line():
    serial = f"VTBOOT-GUEST: k=12{TSC}\n34{CLOCK}\n56\n"
    assert vtb.untangle_console(serial).splitlines() == [TSC, CLOCK, "VTBOOT-GUEST: k=123456"]


def test_everything_else_stays():
    serial = ("vtboot: shutdown_entry: S5 (power off) (type 1) on CPU 0\n"
              "VTBOOT-GUEST: dmesg: [    0.051170] tboot: found shared page at phys addr 0x801000:\n"
              "VTBOOT-DISK: dmesg: [    0.051170] tboot: found shared page\n"
              f"{TSC}\nvtboot-guest login: VTBOOT-DISK: report: boot\n"
              "(XEN) [    1.234567] Xen's own timestamps stay\n")
    assert vtb.untangle_console(serial) == serial
