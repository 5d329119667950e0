"""Fixtures for the public pages' cache: a small published division with results."""

from __future__ import annotations

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import cache as caching
from tournament import services


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty page cache and no remembered cache failure."""
    from django.core.cache import cache

    caching.reset_failures()
    try:
        cache.clear()
    except Exception:  # a test may point the cache at a dead server
        pass
    yield
    caching.reset_failures()


@pytest.fixture
def event(db):
    """Four players, round 1 scored, round 2 paired: (tournament, division)."""
    t = services.create_tournament(name="Cache Open", slug="cache-open")
    d = services.create_division(t, name="A", rounds=3)
    for name, rating in (
        ("Able, Ann", 1800),
        ("Baker, Bo", 1700),
        ("Cole, Cy", 1600),
        ("Dunn, Di", 1500),
    ):
        services.register_player(d, name=name, rating=rating)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4)])
    services.record_result(d, 1, 1, 420, 380)
    services.record_result(d, 1, 3, 350, 410)
    save_round_pairings(d, 2, [PlannedGame(1, 4), PlannedGame(2, 3)])
    return t, d
