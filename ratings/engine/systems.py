"""The registry of rating systems and the two calls the rest of Gibson makes per event."""

from __future__ import annotations

import datetime
from collections.abc import Hashable

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
