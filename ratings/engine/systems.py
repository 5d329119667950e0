"""The registry of rating systems and the two calls the rest of Gibson makes per event."""

from __future__ import annotations

import datetime
import functools
from collections.abc import Hashable

import numpy as np

from .absp import AbspSystem
from .base import RatingSystem
from .elo import build_elo_systems
from .glicko2 import Glicko2System
from .model import PlayerRating, RatedGame, RatedPlayer, RatingError, prepare_event

SYSTEMS: dict[str, RatingSystem] = {
    **build_elo_systems(),
    "absp": AbspSystem(),
    "glicko2": Glicko2System(),
}


#: TSH's null rating system (``Ratings::None``): no rating is computed; each round's estimate
#: is a copy of the entry's rating as written (a team's ``0+0+0`` too). Not a ``RatingSystem``:
#: it rates nothing, so ``ratings.division`` answers it without the engine.
NO_RATING_SYSTEM = "none"


def system_names() -> list[str]:
    """Every name a division may be rated by: the engine's systems and TSH's ``none``."""
    return sorted([*SYSTEMS, NO_RATING_SYSTEM])


def get_system(system: str | RatingSystem) -> RatingSystem:
    """The system called ``system``; a bad name is refused with the list of good ones."""
    if isinstance(system, RatingSystem):
        return system
    try:
        return SYSTEMS[system]
    except (KeyError, TypeError):
        names = ", ".join(sorted(SYSTEMS))
        raise RatingError(f"unknown rating system {system!r} (known: {names})") from None


def rate_event(
    system: str,
    players: list[RatedPlayer],
    games: list[RatedGame],
    configured_rounds: int,
    *,
    explain: bool = True,
    date: datetime.date | None = None,
) -> dict[Hashable, PlayerRating]:
    """Rate one finished event: every listed player's new rating with its explanation.

    ``configured_rounds`` decides how a long event is split (not the last round played), so the
    result matches TSH's. ``explain=False`` skips the per-game breakdown (history replays).
    """
    return get_system(system).rate(players, games, configured_rounds, explain=explain, date=date)


def estimates_by_round(
    system: str,
    players: list[RatedPlayer],
    games: list[RatedGame],
    configured_rounds: int,
    through_round: int | None = None,
) -> dict[Hashable, list[int]]:
    """TSH's in-event estimates: item r-1 is the rating if the event had stopped after round r.

    Each estimate re-rates rounds 1..r from the pre-event ratings, with segments cut by the
    configured number of rounds. ``through_round`` defaults to the last round with a game.
    A player still unrated after round r shows 0 there.
    """
    sys = get_system(system)
    ev = prepare_event(players, games, configured_rounds)
    if through_round is None:
        through_round = ev.last_round
    elif (
        isinstance(through_round, bool)
        or not isinstance(through_round, int)
        or not (0 <= through_round <= configured_rounds)
    ):
        raise RatingError(
            f"through_round {through_round!r} is not a round of a {configured_rounds}-round event"
        )
    per_player = sys.estimates(ev, through_round)
    return dict(zip(ev.ids, per_player, strict=True))


def expectancy_matrix(system: str | RatingSystem, ratings: list[int]) -> np.ndarray:
    """P(i beats j), ties half, for every pair of ``ratings`` under ``system``'s expectancy
    (an unknown system name falls back to nsa2008): the win chances of a prize-chances
    simulation (``pairings.engine.simulate``), which knows no rating system itself.

    Unrated players (rating 0) are given the median rating of the rated ones: the expectancy
    of 0 against a rated player says nothing about a newcomer's play. A standings page asks
    for the same field's matrix again and again, so the last few are kept (read-only arrays,
    keyed by the system and the ratings as a tuple).
    """
    try:
        sys = get_system(system)
    except RatingError:
        sys = get_system("nsa2008")
    return _expectancy_matrix(sys, tuple(ratings))


@functools.lru_cache(maxsize=4)  # a 2,000-player field's matrix is 32 MB
def _expectancy_matrix(sys: RatingSystem, ratings: tuple[int, ...]) -> np.ndarray:
    rated = sorted(r for r in ratings if r)
    fill = rated[len(rated) // 2] if rated else 1500
    used = [r or fill for r in ratings]
    if used and sys.expectancy_by_difference and all(type(r) is int for r in used):
        out = _by_difference(sys, used)
    else:
        out = _by_pair(sys, used)
    np.fill_diagonal(out, 0.5)
    out.setflags(write=False)
    return out


def _by_difference(sys: RatingSystem, used: list[int]) -> np.ndarray:
    """The matrix from one ``expected_score`` per rating difference, for a system whose
    expectancy depends on nothing else: every value is the one ``_by_pair`` computes, since
    each difference is asked of a pair of ratings inside the field's range (all rated: a
    filled-in newcomer has a rating too)."""
    lo, hi = min(used), max(used)
    if lo <= 0:  # a pair inside the range could include 0, which reads as a newcomer
        return _by_pair(sys, used)
    span = hi - lo
    score = sys.expected_score
    lut = np.array(
        [
            score(RatedPlayer(0, lo + max(d, 0)), RatedPlayer(1, lo + max(-d, 0)))
            for d in range(-span, span + 1)
        ]
    )
    r = np.array(used, dtype=np.int64)
    return lut[r[:, None] - r[None, :] + span]


def _by_pair(sys: RatingSystem, used: list[int]) -> np.ndarray:
    """The matrix from one ``expected_score`` per distinct pair of ratings (any system)."""
    distinct = sorted(set(used))
    pos = {r: k for k, r in enumerate(distinct)}
    table = np.empty((len(distinct), len(distinct)))
    for a, ra in enumerate(distinct):
        for b, rb in enumerate(distinct):
            table[a, b] = sys.expected_score(RatedPlayer(a, ra), RatedPlayer(b, rb))
    idx = np.array([pos[r] for r in used], dtype=np.intp)
    return table[np.ix_(idx, idx)]
