# SPDX-License-Identifier: MIT
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import vtb  # noqa: E402 - after the path


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: 18 s or more under TCG (make qemu-test lists the slowest); such tests "
        "run first, so that the suite does not end with one worker running one alone")


@pytest.hookimpl(tryfirst=True)      # before pytest-xdist reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(items):
    # pytest-xdist hands tests to its workers in this order; the sort is stable
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    # Tests that share a module-scoped fixture (one boot checked by many tests) run on one
    # worker, which boots it once: handed out one by one, they made every worker boot it
    for item in items:
        for name in item.fixturenames:
            defs = item._fixtureinfo.name2fixturedefs.get(name)
            if defs and defs[-1].scope == "module":
                callspec = getattr(item, "callspec", None)
                param = callspec.params.get(name, "") if callspec is not None else ""
                group = f"{item.module.__name__}.{name}"
                if param != "":
                    group += "." + re.sub(r"[^\w.]+", "-", str(param)).strip("-")
                item.add_marker(pytest.mark.xdist_group(group))
                break


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    vtb.TEST_RUNS.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that fails keeps the serial log and launcher output of every boot it ran, and of
    the finished boots its fixtures hand it (a module's one boot), not only those that timed
    out: an intermittent failure is then read from its evidence, not run again."""
    report = (yield).get_result()
    if not report.failed:
        return
    runs = list(vtb.TEST_RUNS)
    runs += [v for v in getattr(item, "funcargs", {}).values()
             if isinstance(v, vtb.Run) and all(v is not r for r in runs)]
    notes = []
    for run in runs:
        if not run.kept:
            notes.append(vtb.keep_evidence(run.serial, run.stderr,
                                           f"the test failed (in its {report.when})",
                                           test=item.nodeid))
            run.kept = True
    if notes:
        report.sections.append(("vtb evidence", "\n".join(notes)))
