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

With a Celery worker (REDIS_URL set and a worker answering), a write that changes chances
(a result, a pairing, a withdrawal: ``CHANGING_ACTIONS``) queues ``refresh_chances`` for the
tournament once it commits, and marks the new version as queued: pages then serve the last
computed version until the worker has stored the new one, and no page computes it. The
result's request only adds the task (the worker check never waits: ``worker_known_available``);
without a worker nothing is queued and a page computes the chances when first asked, as above.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import transaction

from pairings.chances import DEFAULT_SIMS, budget_sims, chance_setup, chances_hidden
from pairings.engine.chances import PlayerChances, chances
from pairings.engine.simulate import load_game_model
from pairings.selectors import division_seed

from .cache import cache_add, cache_delete, cache_get, cache_set, tournament_version
from .health import is_queue_error, worker_known_available
from .models import Division, Tournament
from .selectors import DivisionSnapshot
from .services.audit import Action

log = logging.getLogger(__name__)

BUILD_LOCK_SECONDS = 120
#: a version queued for the worker is awaited this long; then a page computes it itself
QUEUED_SECONDS = 120
#: writes after which the chances differ (results, pairings, who still plays)
CHANGING_ACTIONS = frozenset(
    {
        Action.RECORD_RESULT,
        Action.RECORD_FORFEIT,
        Action.CORRECT_RESULT,
        Action.RECORD_DOUBLE_FORFEIT,
        Action.CLEAR_RESULT,
        Action.RESOLVE_DISPUTE,
        Action.SELF_CONFIRM,
        Action.PAIR,
        Action.PAIR_ROUND,
        Action.UNPAIR,
        Action.UNPAIR_ROUND,
        Action.REPAIR_UNSCORED,
        Action.DELETE_PAIRINGS,
        Action.WITHDRAW,
        Action.REINSTATE,
        Action.IMPORT,
    }
)

__all__ = [
    "cached_chances",
    "chances_hidden",
    "page_chances",
    "queue_refresh",
    "refresh_chances",
    "refresh_on_change",
]


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
    on_worker: bool = False,
) -> list[PlayerChances]:
    """The division's chances as of its current version (``after_round`` checked by the
    caller: ``pairings.chances.check_after_round``); ``snapshot`` gives the page's one load
    of the division's games, read only if the chances must be computed; ``fresh_within``:
    seconds for which the last computed chances (of any version) are still served;
    ``games_budget``: at most this many simulated games (pairings.chances.GAMES_BUDGET by
    default); ``on_worker``: the worker's own computation (``refresh_chances``), which must
    not wait for itself."""
    version = tournament_version(division.tournament.slug)
    if version is None:
        return _compute(division, after_round, snapshot, games_budget)
    key = f"chances:{version.stamp}:{division.pk}:{after_round}"
    latest = f"chances-latest:{division.pk}:{after_round}"
    rows = cache_get(key)
    if rows is not None:
        return rows
    if not on_worker and after_round is None and cache_get(_queued_key(version.stamp), local=False):
        # a worker computes this version: the last one computed meanwhile
        old = cache_get(latest, local=False)
        if old is not None:
            return old[1]
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


def _queued_key(stamp: str) -> str:
    return f"chances-queued:{stamp}"


def refresh_on_change(tournament: Tournament | None, action: Action, obj: Any) -> None:
    """The audit hook (registered in ``TournamentConfig.ready``): once a write that changes
    chances commits, queue their computation for a worker (``queue_refresh``)."""
    if action not in CHANGING_ACTIONS or tournament is None or not tournament.pk:
        return
    if refresh_chances.app.conf.task_always_eager:
        return  # no worker: pages compute chances when first asked
    slug = tournament.slug
    transaction.on_commit(lambda: queue_refresh(slug))


def queue_refresh(slug: str) -> bool:
    """Queue ``refresh_chances`` for the tournament's current version if a worker answered
    lately (never waiting for one), once per version; True if queued. Runs after the write
    has committed, so nothing here may fail it: a queue that fails is logged and skipped, and
    the pages compute the chances themselves, as without a worker."""
    if refresh_chances.app.conf.task_always_eager or not worker_known_available():
        return False
    version = tournament_version(slug)
    if version is None:
        return False
    queued = _queued_key(version.stamp)
    if not cache_add(queued, 1, QUEUED_SECONDS):
        return False  # this version is queued already (a transaction of many results)
    try:
        refresh_chances.apply_async(args=(slug,))
    except Exception as exc:  # noqa: BLE001 - the result is saved: it must not fail now
        cache_delete(queued)
        if is_queue_error(exc):
            log.warning("prize chances of %s not queued (%s): pages compute them", slug, exc)
        else:
            log.exception("prize chances of %s not queued: pages compute them", slug)
        return False
    return True


@shared_task(name="tournament.chances_refresh", ignore_result=True)
def refresh_chances(slug: str) -> int:
    """On a worker: every shown division's chances at the tournament's current version, into
    the cache the pages read (full budget: a worker keeps no crowd waiting). Divisions whose
    chances are hidden are skipped; returns how many were computed."""
    done = 0
    for division in Division.objects.filter(tournament__slug=slug).select_related("tournament"):
        if chances_hidden(division):
            continue
        try:
            cached_chances(division, on_worker=True)
        except Exception:  # one division's failure must not keep the others' from the pages
            log.exception("prize chances of %s/%s failed on the worker", slug, division.name)
            continue
        done += 1
    return done
