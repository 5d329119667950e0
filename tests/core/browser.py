"""Shared setup for the real-browser tests: Debian's chromium driven by Playwright.

No browser download: Playwright launches /usr/bin/chromium (.ci/run installs it). A test module
sets ``pytestmark = BROWSER_MARKS`` and uses the ``browser`` fixture from tests/core/conftest.py;
without chromium or playwright the tests skip and say which is missing.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HAVE_PLAYWRIGHT = importlib.util.find_spec("playwright") is not None
# The machine's network is closed: without these flags chromium keeps dialling out.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# .ci/run runs the suite twice (SQLite, PostgreSQL); pages behave the same on both, so the
# second pass sets GIBSON_BROWSER_TESTS=0 and the browser tests run once per CI run.
BROWSER_OFF = os.environ.get("GIBSON_BROWSER_TESTS", "1") == "0"
BROWSER_MARKS = [
    pytest.mark.skipif(BROWSER_OFF, reason="GIBSON_BROWSER_TESTS=0: the browser ran them once"),
    pytest.mark.skipif(not HAVE_PLAYWRIGHT, reason="playwright is not installed"),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
    pytest.mark.django_db(transaction=True),
]
