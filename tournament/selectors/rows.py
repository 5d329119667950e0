"""A division's entries and games as plain rows, read once per version of its tournament.

Every page built after a result (standings, a player's page, the round pages, tourney.js) and
every export starts from the same two queries' rows: the first reader of a version loads them,
the others take them from the cache (``division_read``) instead of reading the division's
games again in a shape of their own. A selector, below the exports and the pages that share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cache import Version, cached
from ..models import Division, Game
from .core import GAME_ROW, DivisionSnapshot, EntryView

# An entry as an export reads it (``FeedEntry``, in this order): what a .t line carries.
ENTRY_ROW = (
    "pk",
    "number",
    "player__name",
    "player__naspa_id",
    "seed_rating",
    "career_games",
    "player_class",
    "withdrawn_round",
    "withdrawal_score",
    "extra",
    "player_id",
)


@dataclass(frozen=True)
class FeedEntry:
    """One entry's row (``ENTRY_ROW``): a plain value, not a model object."""

    pk: int
    number: int
    name: str
    naspa_id: str
    seed_rating: int
    career_games: int | None
    player_class: str
    withdrawn_round: int | None
    withdrawal_score: int | None
    extra: list | None
    player_id: int


@dataclass(frozen=True)
class DivisionRead:
    """A division's entries and games read once, as rows (two queries), shared by every part
    of an export that needs them: the ``.t`` players, the rating estimates and the ranks after
    each round. The live feed is rebuilt on every new page version; reading the games three
    times in three shapes, as model objects, cost most of its time at 500 players."""

    entries: list[FeedEntry]  # by number
    games: list[tuple]  # selectors.GAME_ROW, in round then id order (as ratings read them)

    @classmethod
    def load(cls, division: Division) -> DivisionRead:
        entries = [
            FeedEntry(*row) for row in division.entries.order_by("number").values_list(*ENTRY_ROW)
        ]
        games = list(
            Game.objects.filter(round__division=division)
            .order_by("round__number", "id")
            .values_list(*GAME_ROW)
        )
        return cls(entries, games)

    def snapshot(self) -> DivisionSnapshot:
        """The same rows as the pages' ``DivisionSnapshot``, for the standings and ratings."""
        entries = {
            e.pk: EntryView(
                e.pk,
                e.number,
                e.name,
                e.seed_rating,
                e.withdrawn_round,
                e.career_games,
                e.player_id,
            )
            for e in self.entries
        }
        return DivisionSnapshot(entries, self.games)


def division_read(version: Version, division: Any) -> DivisionRead:
    """The division's rows for ``version``, read once for every page and process sharing the
    cache. The rows are the same for every viewer (a page's role decides what it shows of
    them), so the key holds no role; it names one state of the data, like every key of
    tournament/cache.py."""
    return cached(
        "d:" + ":".join([version.stamp, "rows", str(division.pk)]),
        lambda: DivisionRead.load(division),
    )
