"""Prize chances for the pages and the API, computed once per version of the data.

Never on the path of a result: the simulation runs when chances are first asked for after a
change (a page or API read), and its result is kept in the shared cache under the
tournament's version stamp (caching.py: a key names one state of the data, so nothing is
ever invalidated). While one process computes a new version, the others serve the last
version computed for the division (``chances-latest:``), as ``serve_cached`` does for pages.

Pages ask with ``fresh_within`` (``GIBSON_CHANCES_PAGE_SECONDS``, 30 by default): chances
computed that recently for an earlier version are served as they are. A result every few
seconds would otherwise start a simulation of up to a second of CPU at each one, and a
crowd's pages would share the machine with it; one result moves the odds little, and the
next computation follows within that many seconds. The API and the command always answer
for the current version.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings

from pairings.chances import DEFAULT_SIMS, budget_sims, chance_setup, chances_hidden
from pairings.engine.chances import PlayerChances, chances
from pairings.engine.simulate import load_game_model
from pairings.selectors import division_seed

from ..models import Division
from ..selectors import DivisionSnapshot
from .caching import cache_add, cache_delete, cache_get, cache_set, tournament_version

BUILD_LOCK_SECONDS = 120

__all__ = ["cached_chances", "chances_hidden", "page_chances"]


def _compute(
    division: Division,
    after_round: int | None,
    snapshot: Callable[[], DivisionSnapshot] | None,
    games_budget: int | None = None,
) -> list[PlayerChances]:
    setup = chance_setup(division, after_round, snapshot() if snapshot else None)
    sims = (
        budget_sims(setup, DEFAULT_SIMS)
        if games_budget is None
        else budget_sims(setup, DEFAULT_SIMS, games_budget)
    )
    return chances(
        setup,
        load_game_model(),
        sims,
        division_seed(division),
        prize_places=division.prize_places,
    )


def cached_chances(
    division: Division,
    after_round: int | None = None,
    snapshot: Callable[[], DivisionSnapshot] | None = None,
    fresh_within: float | None = None,
    games_budget: int | None = None,
) -> list[PlayerChances]:
    """The division's chances as of its current version (``after_round`` checked by the
    caller: ``pairings.chances.check_after_round``); ``snapshot`` gives the page's one load
    of the division's games, read only if the chances must be computed; ``fresh_within``:
    seconds for which the last computed chances (of any version) are still served;
    ``games_budget``: at most this many simulated games (pairings.chances.GAMES_BUDGET by
    default)."""
    version = tournament_version(division.tournament.slug)
    if version is None:
        return _compute(division, after_round, snapshot, games_budget)
    key = f"chances:{version.stamp}:{division.pk}:{after_round}"
    latest = f"chances-latest:{division.pk}:{after_round}"
    rows = cache_get(key)
    if rows is not None:
        return rows
    if fresh_within:
        old = cache_get(latest, local=False)
        if old is not None and time.time() - old[0] < fresh_within:
            return old[1]
    if not cache_add("lock:" + key, 1, BUILD_LOCK_SECONDS):
        old = cache_get(latest, local=False)
        if old is not None:
            return old[1]
        building = False
    else:
        building = True
    try:
        rows = _compute(division, after_round, snapshot, games_budget)
    finally:
        if building:
            cache_delete("lock:" + key)
    cache_set(key, rows)
    cache_set(latest, (time.time(), rows))
    return rows


def page_chances(
    division: Division, snapshot: Callable[[], DivisionSnapshot] | None = None
) -> list[PlayerChances]:
    """The chances a public page shows: the current version's, or ones computed within the
    last ``GIBSON_CHANCES_PAGE_SECONDS`` (see the module's docstring), from at most
    ``GIBSON_CHANCES_PAGE_GAMES`` simulated games: the page's worker answers nobody else
    meanwhile (a sync worker keeps its clients' connections), so a computation of seconds
    stalled a crowd's requests for seconds (p95 2.6-4.1 s in bench_web.py --abuse, 26-55 ms
    without); 2,000,000 games are ~0.2 s of a core, and P(1st) within about a point."""
    return cached_chances(
        division,
        snapshot=snapshot,
        fresh_within=settings.GIBSON_CHANCES_PAGE_SECONDS,
        games_budget=settings.GIBSON_CHANCES_PAGE_GAMES,
    )
