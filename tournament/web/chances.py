"""Prize chances for the pages and the API, computed once per version of the data.

Never on the path of a result: the simulation runs when chances are first asked for after a
change (a page or API read), and its result is kept in the shared cache under the
tournament's version stamp (caching.py: a key names one state of the data, so nothing is
ever invalidated). While one process computes a new version, the others serve the last
version computed for the division (``chances-latest:``), as ``serve_cached`` does for pages.
"""

from __future__ import annotations

from collections.abc import Callable

from pairings.chances import DEFAULT_SIMS, budget_sims, chance_setup, chances_hidden
from pairings.engine.chances import PlayerChances, chances
from pairings.engine.simulate import load_game_model
from pairings.selectors import division_seed

from ..models import Division
from ..selectors import DivisionSnapshot
from .caching import cache_add, cache_delete, cache_get, cache_set, tournament_version

BUILD_LOCK_SECONDS = 120

__all__ = ["cached_chances", "chances_hidden"]


def _compute(
    division: Division, after_round: int | None, snapshot: Callable[[], DivisionSnapshot] | None
) -> list[PlayerChances]:
    setup = chance_setup(division, after_round, snapshot() if snapshot else None)
    return chances(
        setup,
        load_game_model(),
        budget_sims(setup, DEFAULT_SIMS),
        division_seed(division),
        prize_places=division.prize_places,
    )


def cached_chances(
    division: Division,
    after_round: int | None = None,
    snapshot: Callable[[], DivisionSnapshot] | None = None,
) -> list[PlayerChances]:
    """The division's chances as of its current version (``after_round`` checked by the
    caller: ``pairings.chances.check_after_round``); ``snapshot`` gives the page's one load
    of the division's games, read only if the chances must be computed."""
    version = tournament_version(division.tournament.slug)
    if version is None:
        return _compute(division, after_round, snapshot)
    key = f"chances:{version.stamp}:{division.pk}:{after_round}"
    latest = f"chances-latest:{division.pk}:{after_round}"
    rows = cache_get(key)
    if rows is not None:
        return rows
    if not cache_add("lock:" + key, 1, BUILD_LOCK_SECONDS):
        old = cache_get(latest, local=False)
        if old is not None:
            return old
        building = False
    else:
        building = True
    try:
        rows = _compute(division, after_round, snapshot)
    finally:
        if building:
            cache_delete("lock:" + key)
    cache_set(key, rows)
    cache_set(latest, rows)
    return rows
