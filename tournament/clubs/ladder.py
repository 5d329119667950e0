"""A season's ladder from its nights' games: the pure core (no Django).

Clubs score seasons in many ways: points for a win, a tie and a loss; a bonus for a win by a
margin; points for turning up; only the best N nights counting; a minimum number of nights to
qualify. A ``Rule`` holds one such scoring, ``PRESETS`` the common ones, and ``ladder`` turns
nights of games into ranked rows. Ties on points are broken by wins, then spread, then name,
so the order never depends on the database's row order.

What counts, exactly (docs/clubs.md repeats this for organisers):
- each game scores its points for each player: ``win``, ``tie`` or ``loss``, plus
  ``margin_bonus`` for a win by ``margin`` or more; a bye is a win by its spread (no margin
  bonus: nobody was beaten), a forfeit a loss;
- each night a player played at least one game in adds ``attendance``;
- a night's points are its games' points plus attendance; with ``best_nights`` set, only that
  many of a player's best nights count for points (wins, losses and spread count every night);
- players with fewer than ``min_nights`` nights are listed after the qualified, unranked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, NamedTuple


@dataclass(frozen=True)
class Rule:
    """One way of scoring a season; points may be fractional (a tie is often half a win)."""

    win: float = 2.0
    tie: float = 1.0
    loss: float = 0.0
    margin_bonus: float = 0.0
    margin: int = 50
    attendance: float = 0.0
    best_nights: int = 0  # 0: every night counts
    min_nights: int = 0  # nights needed to be ranked

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rule:
        """A rule from stored JSON; keys it does not know are ignored (older presets)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


PRESETS: dict[str, tuple[str, Rule]] = {
    "wins": ("1 a win, 1/2 a tie (as tournament standings)", Rule(win=1, tie=0.5, loss=0)),
    "two-one": ("2 a win, 1 a tie", Rule()),
    "margin-bonus": (
        "2 a win, 1 a tie, +1 for a win by 50 or more",
        Rule(margin_bonus=1, margin=50),
    ),
    "attendance": ("2 a win, 1 a tie, +1 for each night played", Rule(attendance=1)),
    "best-ten": (
        "2 a win, 1 a tie, +1 for a win by 50 or more; best 10 nights count; 4 nights to qualify",
        Rule(margin_bonus=1, margin=50, best_nights=10, min_nights=4),
    ),
}
DEFAULT_PRESET = "two-one"


class LadderGame(NamedTuple):
    """One game of a night, by player id: ``b`` None is a bye (``score_a`` > 0 or spread) or a
    forfeit (negative ``score_a``), as tournament games store them. (A tuple: a season is
    thousands of them, read for every ladder.)"""

    a: int
    b: int | None
    score_a: int
    score_b: int = 0


class LadderNight(NamedTuple):
    night: Any  # the night's key (its id); only compared and stored
    games: tuple[LadderGame, ...]


@dataclass
class LadderRow:
    player: int
    name: str
    points: float = 0.0
    wins: float = 0.0  # a tie is half a win, as in standings
    losses: float = 0.0
    spread: int = 0
    nights: int = 0
    games: int = 0
    rank: int | None = None  # None: not (yet) qualified
    night_points: list[float] = field(default_factory=list)

    @property
    def qualified(self) -> bool:
        return self.rank is not None

    def as_dict(self) -> dict[str, Any]:
        points = int(self.points) if float(self.points).is_integer() else self.points
        return {
            "rank": self.rank,
            "player": self.player,
            "name": self.name,
            "points": points,
            "wins": self.wins,
            "losses": self.losses,
            "spread": self.spread,
            "nights": self.nights,
            "games": self.games,
        }


def _game_points(rule: Rule, mine: int, theirs: int | None) -> tuple[float, float, float, int]:
    """(points, wins, losses, spread) one player earns from one game."""
    if theirs is None:  # bye (a win) or forfeit (a loss), scored as a spread
        if mine >= 0:
            return rule.win, 1.0, 0.0, mine
        return rule.loss, 0.0, 1.0, mine
    spread = mine - theirs
    if spread > 0:
        bonus = rule.margin_bonus if rule.margin_bonus and spread >= rule.margin else 0.0
        return rule.win + bonus, 1.0, 0.0, spread
    if spread < 0:
        return rule.loss, 0.0, 1.0, spread
    return rule.tie, 0.5, 0.5, 0


def ladder(rule: Rule, nights: Iterable[LadderNight], names: Mapping[int, str]) -> list[LadderRow]:
    """Ranked rows: qualified players by points, wins, spread (then name), then the rest."""
    rows: dict[int, LadderRow] = {}
    for night in nights:
        tonight: dict[int, float] = {}
        for g in night.games:
            sides = [(g.a, g.score_a, None if g.b is None else g.score_b)]
            if g.b is not None:
                sides.append((g.b, g.score_b, g.score_a))
            for player, mine, theirs in sides:
                row = rows.get(player)
                if row is None:
                    row = rows[player] = LadderRow(player, names.get(player, f"#{player}"))
                points, wins, losses, spread = _game_points(rule, mine, theirs)
                row.wins += wins
                row.losses += losses
                row.spread += spread
                row.games += 1
                tonight[player] = tonight.get(player, 0.0) + points
        for player, points in tonight.items():
            row = rows[player]
            row.nights += 1
            row.night_points.append(points + rule.attendance)
    for row in rows.values():
        counted = sorted(row.night_points, reverse=True)
        if rule.best_nights:
            counted = counted[: rule.best_nights]
        row.points = round(sum(counted), 4)
    ordered = sorted(rows.values(), key=lambda r: (-r.points, -r.wins, -r.spread, r.name, r.player))
    qualified = [r for r in ordered if r.nights >= rule.min_nights]
    rest = [r for r in ordered if r.nights < rule.min_nights]
    rank = 0
    previous: tuple | None = None
    for i, row in enumerate(qualified, start=1):
        key = (row.points, row.wins, row.spread)
        if key != previous:
            rank, previous = i, key
        row.rank = rank
    return qualified + rest
