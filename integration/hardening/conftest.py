"""Shared machinery for the hardening suites: start a real `livestate` on loopback, port 0.

The binary comes from LIVESTATE_BIN, or from `swift build --show-bin-path` with the
scratch path in LIVESTATE_SCRATCH (default: the package's own .build).
"""

import os
import sys
import tempfile
from pathlib import Path

import pytest

# The one harness, integration/livestate.py, shared with the live stage.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from livestate import Server, binary_path  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running (soak, durability)")


@pytest.fixture(scope="session")
def binary():
    return binary_path()


@pytest.fixture(scope="module")
def server(binary):
    """One server per test module, on a fresh SQLite file."""
    with tempfile.TemporaryDirectory(prefix="livestate-hardening-") as tmp:
        s = Server(binary=binary, data=os.path.join(tmp, "todos.sqlite"))
        s.start()
        yield s
        s.stop()
