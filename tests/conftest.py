"""Shared test fixtures and the suite's structure.

- The real NASPA division files kept in fixtures/tsh/ (see its README).
- The markers every test gets by rule, so no new test can forget one (``-m`` picks an area,
  see docs/development.md, "Running the tests"):
  ``postgres``: the test uses the database (it asks for it: a ``django_db`` mark or a fixture
  that opens it, or its module hands ``DATABASE_URL`` to a child process);
  ``browser``: it drives headless chromium; ``served``: it starts a server or another process
  (``live_server``, or its module runs ``subprocess``); ``slow``: marked by hand, with why.
  A module that reads or hands on the database's URL (or imports a helper of ours that
  does) is a ``postgres`` module whole: its children use the suite's database.
- ``GIBSON_DATABASE_TESTS_ONLY=1`` (the PostgreSQL pass of .ci/run) deselects every test that
  is not a ``postgres`` test: those never open a database, so the SQLite pass already ran
  them. The deselected tests are counted in the summary and listed, one id a line, in the
  file ``GIBSON_DESELECTED_LIST`` names (when set).
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import types
from pathlib import Path

import pytest

from tests.migrated import use_template_for_test_databases

REPO = Path(__file__).resolve().parents[1]
REAL_DATA = REPO / "fixtures" / "tsh"

# Fixtures that open the database (pytest-django blocks every other way in): a test whose
# fixture closure holds one of these is a database test.
DATABASE_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
    }
)
# A module that starts another process (a server, a worker, a command).
SERVED_WORDS = ("subprocess", "Popen")


@functools.cache
def _module_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError:
        return ""


def uses_database(item: pytest.Item) -> bool:
    """Does this test reach a database, in this process or through a child's DATABASE_URL?"""
    if item.get_closest_marker("django_db") is not None:
        return True
    if DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    if _unblocks_database(item):
        return True
    if _hands_on_database_url(_module_text(str(item.path))):
        return True
    return any(_hands_on_database_url(_source(obj)) for obj in _helpers(item))


# What code does with the database's URL: dropping it from a child's environment (the child
# gets a database of its own) is not a use; reading, passing or setting it is.
_DROPS_URL = re.compile(
    r"""pop\(\s*["']DATABASE_URL["']|not in \([^)]*["']DATABASE_URL["'][^)]*\)"""
)


def _hands_on_database_url(text: str) -> bool:
    return "DATABASE_URL" in _DROPS_URL.sub("", text)


_SOURCES: dict[int, str] = {}


def _source(obj: object) -> str:
    if id(obj) not in _SOURCES:
        try:
            _SOURCES[id(obj)] = inspect.getsource(obj)  # type: ignore[arg-type]
        except (OSError, TypeError):
            _SOURCES[id(obj)] = ""
    return _SOURCES[id(obj)]


def _helpers(item: pytest.Item) -> list[object]:
    """The tests' own helpers this test may run: the fixtures it asks for (directly or not)
    and the functions, classes and modules its module imports from ``tests`` (``from .sites
    import Site``): a helper may hand DATABASE_URL to a child on the test's behalf."""
    found: list[object] = []
    info = getattr(item, "_fixtureinfo", None)
    for defs in info.name2fixturedefs.values() if info is not None else ():
        for fixturedef in defs:
            if getattr(fixturedef.func, "__module__", "").startswith("tests."):
                found.append(fixturedef.func)
    module = getattr(item, "module", None)
    for value in vars(module).values() if module is not None else ():
        if "fixture" in type(value).__name__.lower():
            continue  # an imported fixture counts only where a test asks for it (above)
        if isinstance(value, types.ModuleType):
            owner = value.__name__
        else:
            owner = getattr(value, "__module__", None)
        if (
            isinstance(owner, str)
            and owner.startswith("tests.")
            and owner != module.__name__
            and owner != __name__
        ):
            found.append(value)
    return found


def _unblocks_database(item: pytest.Item) -> bool:
    """A fixture of ours that asks for ``django_db_blocker`` (to open the database itself,
    e.g. for a module's shared data); pytest-django's own autouse fixtures ask for it in every
    test, so those do not count."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    for defs in info.name2fixturedefs.values():
        for fixturedef in defs:
            module = getattr(fixturedef.func, "__module__", "") or ""
            if "django_db_blocker" in fixturedef.argnames and not module.startswith(
                "pytest_django"
            ):
                return True
    return False


def _is_served(item: pytest.Item) -> bool:
    if "live_server" in getattr(item, "fixturenames", ()):
        return True
    text = _module_text(str(item.path))
    return any(word in text for word in SERVED_WORDS)


def pytest_configure(config: pytest.Config) -> None:
    config._gibson_deselected = []  # type: ignore[attr-defined]
    if not hasattr(config, "workerinput"):
        # the languages' .mo files, once, in the controller before xdist's workers start:
        # workers never race on them (tournament/catalogues.py; current ones are kept, and
        # each is written to a temporary name then renamed). No test compiles them again.
        from tournament.catalogues import compile_catalogues

        if compile_catalogues():
            # a catalogue this process read before it was compiled is read again
            from django.utils.translation import trans_real

            trans_real._translations = {}
            trans_real._default = None
    config.pluginmanager.register(_StartOrder(), "gibson-start-order")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """With ``GIBSON_OUTCOMES`` set, each test's outcome and skip reason, for .ci/passes.py
    (in the main process: xdist's workers report there)."""
    if not os.environ.get("GIBSON_OUTCOMES") or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    outcomes = _OUTCOMES
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        outcomes.setdefault(report.nodeid, ("skipped", reason))
    elif report.failed:
        outcomes[report.nodeid] = ("failed", report.when)
    elif report.when == "call":
        outcomes.setdefault(report.nodeid, ("passed", ""))


_OUTCOMES: dict[str, tuple[str, str]] = {}


def pytest_sessionfinish(session: pytest.Session) -> None:
    where = os.environ.get("GIBSON_OUTCOMES")
    if where and not os.environ.get("PYTEST_XDIST_WORKER"):
        import json

        Path(where).write_text(json.dumps(_OUTCOMES, indent=0, sort_keys=True), encoding="utf-8")


# The order tests start in: the long ones first, so that xdist's workers (--dist worksteal)
# end on short tests and finish together, never one worker alone on a minute-long scenario.
# Only `slow`: starting every browser and served test first too (one worker's queue full of
# multi-process tests) made the suite 82 s slower on 2 cores (10:33 against 9:11).
_START_ORDER = ("slow",)


def _start_rank(item: pytest.Item) -> tuple[int, float]:
    """(rank, minus the seconds a ``slow`` mark says the test takes: longest first)."""
    for rank, marker in enumerate(_START_ORDER):
        mark = item.get_closest_marker(marker)
        if mark is not None:
            return rank, -float(mark.kwargs.get("seconds", 0))
    return len(_START_ORDER), 0.0


class _StartOrder:
    """Sorts the collected tests by start rank, after every other plugin's reordering
    (pytest-django's database tests first, pytest's grouping by fixtures), which a stable sort
    keeps within a rank; after the markers are given and ``-m`` has chosen."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items.sort(key=_start_rank)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    database_only = os.environ.get("GIBSON_DATABASE_TESTS_ONLY", "") == "1"
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        database = uses_database(item)
        if database:
            item.add_marker(pytest.mark.postgres)
        if "browser" in fixtures:
            item.add_marker(pytest.mark.browser)
        if _is_served(item):
            item.add_marker(pytest.mark.served)
        (kept if database or not database_only else dropped).append(item)
    if dropped:
        items[:] = kept
        config.hook.pytest_deselected(items=dropped)
        config._gibson_deselected = [i.nodeid for i in dropped]  # type: ignore[attr-defined]
        listing = os.environ.get("GIBSON_DESELECTED_LIST", "")
        if listing:
            names = sorted(config._gibson_deselected)  # type: ignore[attr-defined]
            Path(listing).write_text("".join(f"{n}\n" for n in names), encoding="utf-8")


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    dropped = getattr(config, "_gibson_deselected", [])
    if dropped:
        where = os.environ.get("GIBSON_DESELECTED_LIST", "")
        terminalreporter.write_line(
            f"GIBSON_DATABASE_TESTS_ONLY=1: {len(dropped)} tests deselected because they never "
            "open a database (the SQLite pass ran them)" + (f"; listed in {where}" if where else "")
        )


def _install_demo_snapshot() -> None:
    """Before any conftest or test module imports load_demo by name: pytest-django has set
    Django up when the first conftests are imported, so this module's import is the place."""
    from django.apps import apps

    if apps.ready:
        from tests import demo_snapshot

        demo_snapshot.install()


_install_demo_snapshot()

# each worker's test database restored from the migrated template, not migrated (tests/migrated.py)
use_template_for_test_databases()


def pytest_sessionstart(session: pytest.Session) -> None:
    _install_demo_snapshot()  # Django was set up only in pytest_configure (--ds on the line)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, and its tables' row counts as migrated (the demo
    snapshot's test for a database no test has written to: tests/demo_snapshot.py)."""
    from tests import demo_snapshot

    with django_db_blocker.unblock():
        demo_snapshot.record_pristine()


@pytest.fixture(scope="session")
def real_data() -> Path:
    if not (REAL_DATA / "naspa-2023-a.t").exists():
        pytest.fail(f"real data files are missing: expected them in {REAL_DATA}")
    return REAL_DATA


class _ShiftedTime:
    """The ``time`` module, but ``time()`` runs ``offset`` seconds ahead."""

    def __init__(self, offset: float) -> None:
        import time

        self._time, self._offset = time, offset

    def time(self) -> float:
        return self._time.time() + self._offset

    def __getattr__(self, name: str):
        return getattr(self._time, name)


@pytest.fixture(autouse=True)
def _limit_windows_start_with_the_test(monkeypatch):
    """The per-address limits count in fixed windows of the clock (the heavy requests' and
    sign-ins' minute, the sign-ups' five minutes, the sign-in burst's ten seconds): a test
    that spends a budget and expects the refusal failed when its requests straddled a
    window's end (4 tests of one serial run, tests/security). Their clock, shared by the
    gate, starts each test at the top of an hour, so a test shorter than the shortest window
    it counts in never sees one end; tests that move the clock themselves still do."""
    import math
    import time

    from tournament import throttle
    from tournament.web import accounts

    now = time.time()
    clock = _ShiftedTime(math.floor(now / 3600 + 1) * 3600 - now)
    for module in (accounts, throttle):
        monkeypatch.setattr(module, "time", clock)


@pytest.fixture(autouse=True)
def _empty_page_cache():
    """Every test starts with an empty page cache: a rolled-back test database can repeat
    the version numbers pages are keyed by, with other content behind them."""
    yield
    from django.core.cache import cache

    from tournament import cache as caching

    caching.reset_failures()
    try:
        cache.clear()
    except Exception:  # a test may have pointed the cache at a dead server
        pass
