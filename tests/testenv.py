"""The test runner's first plugin (``-p tests.testenv`` in pyproject.toml): it is imported
before pytest-django reads the settings, and tells them this process runs the tests
(``GIBSON_TESTING``: a fixed secret key, tasks inline, a page cache folder of its own).

Once the session starts the settings have been read, and the variable is taken out of the
environment again: the servers, workers and commands the tests start in other processes are
not the test process and must read their settings as a real site does.

Under pytest-xdist (the README's command runs ``-n auto``) each worker process gets what two
workers must never share, before the settings are read:

- its own Redis databases: ``REDIS_URL``'s database ``N`` becomes ``N + 2k`` for worker
  ``gwk`` (Celery's queues there, the page cache in the next one, which the suite flushes
  after every test), so one worker's flush or real Celery worker never touches another's;
- its own data folder (``GIBSON_DATA_DIR``, when not set: reports and the test database file).

Ports, SMTP sinks, temporary folders and cache folders are already per test (free ports,
``tmp_path``) or per process (the file cache's folder).

Bytecode is written during the tests even where ``PYTHONDONTWRITEBYTECODE`` is set (as on
the development machines): without it every process compiles every module it imports from
source, and pytest rewrites the asserts of all ~580 test modules again in every worker (15 s
of CPU a worker for collection alone, 4.5 s with the cache), and each of the several hundred
``manage.py`` processes the tests start compiles the project again. ``__pycache__`` folders
are ignored by git.
"""

from __future__ import annotations

import os
import sys

import pytest

from tournament.redisurl import redis_db_offset

sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

os.environ["GIBSON_TESTING"] = "1"

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
# Redis ships 16 databases: Celery's and the page cache's for each of 8 workers. The README's
# command caps -n auto at 8 (--maxprocesses), so a larger machine still fits.
MAX_WORKERS = 8


def worker_index() -> int:
    """0 for the first xdist worker (or no xdist at all), k for ``gwk``."""
    return int(WORKER[2:]) if WORKER.startswith("gw") and WORKER[2:].isdigit() else 0


def _redis_url_for_worker(url: str, index: int) -> str:
    """Two databases a worker: its queues' and, next to it, its page cache's (settings)."""
    return redis_db_offset(url, 2 * index)


if WORKER:
    if worker_index() >= MAX_WORKERS:
        raise RuntimeError(
            f"xdist worker {WORKER}: at most {MAX_WORKERS} workers share one Redis server's 16 "
            "databases; run with -n auto (capped by --maxprocesses) or -n 8 at most"
        )
    if os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"] = _redis_url_for_worker(os.environ["REDIS_URL"], worker_index())
    if not os.environ.get("GIBSON_DATA_DIR"):
        from pathlib import Path

        data = Path(__file__).resolve().parents[1] / "var" / f"test-{WORKER}"
        data.mkdir(parents=True, exist_ok=True)
        os.environ["GIBSON_DATA_DIR"] = str(data)


def usable_cores() -> int:
    """The cores this process may run on (a container's or a CPU set's, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@pytest.hookimpl(tryfirst=True)  # before xdist's own (a worker a core)
def pytest_xdist_auto_num_workers(config) -> int | None:
    """``-n auto``: a worker a core and one more, at most MAX_WORKERS. A fifth of the suite's
    time is spent waiting on other processes (servers starting, chromium painting, commands
    and benchmarks run as children), when a worker a core leaves its core idle: on 2 cores,
    2 workers kept 78% of them busy and took 10:32; 3 workers kept 86% busy and took 9:18,
    with the same 6,351 tests passing. ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when
    set (xdist's own answer)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return min(MAX_WORKERS, usable_cores() + 1)


def pytest_sessionstart(session) -> None:
    os.environ.pop("GIBSON_TESTING", None)
