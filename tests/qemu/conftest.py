# SPDX-License-Identifier: MIT
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: 18 s or more under TCG (make qemu-test lists the slowest); such tests "
        "run first, so that the suite does not end with one worker running one alone")


def pytest_collection_modifyitems(items):
    # pytest-xdist hands tests to its workers in this order; the sort is stable
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
