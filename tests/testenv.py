"""The test runner's first plugin (``-p tests.testenv`` in pyproject.toml): it is imported
before pytest-django reads the settings, and tells them this process runs the tests
(``GIBSON_TESTING``: a fixed secret key, tasks inline, a page cache folder of its own).

Once the session starts the settings have been read, and the variable is taken out of the
environment again: the servers, workers and commands the tests start in other processes are
not the test process and must read their settings as a real site does.
"""

from __future__ import annotations

import os

os.environ["GIBSON_TESTING"] = "1"


def pytest_sessionstart(session) -> None:
    os.environ.pop("GIBSON_TESTING", None)
