"""What every rating system offers, so the shell can swap systems per rating list."""

from __future__ import annotations

import datetime
from collections.abc import Hashable

from .model import (
    PlayerRating,
    PreparedEvent,
    RatedGame,
    RatedPlayer,
    prepare_event,
    segment_plan,
)


class RatingSystem:
    """A pure function from (players before an event, the event's games) to players after.

    Subclasses implement ``rate_prepared`` (and ``expected_score`` for prediction reports);
    ``estimates`` has a generic prefix re-rating that the NASPA family replaces with a cached one.
    """

    name: str = ""
    label: str = ""
    #: True when the system only approximates another body's published method.
    is_estimate: bool = False
    #: Whether long events are split into segments (ratings spec rule 8).
    splits: bool = False
    #: True when ``expected_score`` of two rated players with no deviation given depends only
    #: on their rating difference: ``systems.expectancy_matrix`` then computes one value per
    #: difference rather than one per pair of ratings.
    expectancy_by_difference: bool = False

    def segment_plan(self, configured_rounds: int) -> list[tuple[int, int]]:
        plan = segment_plan(configured_rounds)  # also checks the number
        return plan if self.splits else [(1, configured_rounds)]

    def rate(
        self,
        players: list[RatedPlayer],
        games: list[RatedGame],
        configured_rounds: int,
        *,
        explain: bool = True,
        date: datetime.date | None = None,
    ) -> dict[Hashable, PlayerRating]:
        return self.rate_prepared(
            prepare_event(players, games, configured_rounds), explain=explain, date=date
        )

    def rate_prepared(
        self, ev: PreparedEvent, *, explain: bool = True, date: datetime.date | None = None
    ) -> dict[Hashable, PlayerRating]:
        raise NotImplementedError

    def estimates(self, ev: PreparedEvent, through_round: int) -> list[list[int]]:
        """Per round 1..through_round, every player's rating if the event stopped there.

        Generic version: re-rate each prefix of rounds. Returns one list per player index.
        """
        out: list[list[int]] = [[] for _ in ev.ids]
        for r in range(1, through_round + 1):
            prefix = PreparedEvent(
                ids=ev.ids,
                players=ev.players,
                ratings=ev.ratings,
                careers=ev.careers,
                configured_rounds=ev.configured_rounds,
                games=[g for g in ev.games if g[0] <= r],
                originals=[],
            )
            res = self.rate_prepared(prefix, explain=False)
            for i, pid in enumerate(ev.ids):
                out[i].append(res[pid].new)
        return out

    def expected_score(self, a: RatedPlayer, b: RatedPlayer) -> float:
        """The chance (ties half) this system gives a of beating b, from their current state."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<RatingSystem {self.name}>"
