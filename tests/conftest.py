"""Shared test fixtures: the real NASPA division files kept in fixtures/tsh/ (see its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REAL_DATA = REPO / "fixtures" / "tsh"


@pytest.fixture(scope="session")
def real_data() -> Path:
    if not (REAL_DATA / "naspa-2023-a.t").exists():
        pytest.fail(f"real data files are missing: expected them in {REAL_DATA}")
    return REAL_DATA


@pytest.fixture(autouse=True)
def _empty_page_cache():
    """Every test starts with an empty page cache: a rolled-back test database can repeat
    the version numbers pages are keyed by, with other content behind them."""
    yield
    from django.core.cache import cache

    from tournament.web import caching

    caching.reset_failures()
    try:
        cache.clear()
    except Exception:  # a test may have pointed the cache at a dead server
        pass
