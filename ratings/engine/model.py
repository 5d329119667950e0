"""The values every rating system takes and gives back, and the checks on them.

Kept free of Django (and of any one rating system) so that the shell, the in-event estimates on
the standings page, the history replay and a notebook all speak the same dataclasses.
"""

from __future__ import annotations

import datetime
import math
import operator
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import NamedTuple

#: Highest score accepted in one game. The record is far below; anything above is a typing slip.
MAX_GAME_SCORE = 1500

#: Career games assumed for any player whose count is unknown, newcomers too (rule 3).
UNKNOWN_CAREER_GAMES = 100


class RatingError(ValueError):
    """Input a rating system cannot rate; the message names the player and round at fault."""


@dataclass
class RatedPlayer:
    """A player's state on one rating list just before an event."""

    id: Hashable
    rating: int | None  # None or 0 = newcomer (unrated)
    career_games: int | None = None  # rated games before the event; None = unknown
    deviation: float | None = None  # glicko2 only
    volatility: float | None = None  # glicko2 only
    # absp only: the values of the player's most recent rated games, oldest first (<= 150 kept).
    history: tuple[float, ...] | None = None
    # glicko2 only: date of the last rated event, so the deviation can grow with inactivity.
    last_played: datetime.date | None = None

    @property
    def is_newcomer(self) -> bool:
        return not self.rating

    @property
    def known_career_games(self) -> int:
        """Career games as the K table reads them: unknown counts 100, newcomers included.

        TSH reads a missing ``lifeg`` as 100 games for every player (``MakeRatingsInput``,
        docs/ratings.md rule 3), so a newcomer rated as established in a long event's later
        segment gets the 100-game K, not the 0-game one.
        """
        if self.career_games is not None:
            return self.career_games
        return UNKNOWN_CAREER_GAMES


class RatedGame(NamedTuple):
    """One real game (byes and forfeits are never rated; the caller leaves them out).

    A named tuple rather than a dataclass: a federation's re-rate builds millions of them
    from stored rows, and a tuple is built about six times faster (``tuple.__new__``) while
    reading the same by name.
    """

    round: int
    a: Hashable
    b: Hashable
    score_a: int
    score_b: int

    @property
    def result_a(self) -> float:
        """Wins for player a: 1, 0.5 for a tie, 0."""
        if self.score_a > self.score_b:
            return 1.0
        return 0.5 if self.score_a == self.score_b else 0.0


class GameExplanation(NamedTuple):
    """One game as the rating saw it: the chance the system gave the player, and what happened.

    A named tuple (like RatedGame): a re-rate explains every game twice, millions of times.
    """

    round: int
    opponent: Hashable
    opponent_rating: float | None  # the rating the system used (a newcomer's current estimate)
    expected: float
    actual: float
    score: int
    opponent_score: int


@dataclass
class SegmentExplanation:
    """How one segment (a run of rounds rated together) moved a player's rating."""

    first_round: int
    last_round: int
    rating_in: int | None  # None: the player was unrated entering this segment
    games: int
    expected: float
    actual: float
    # (K, excess spent at that K): more than one entry when the rating crossed a K band.
    multipliers: tuple[tuple[float, float], ...] = ()
    change: float = 0.0  # before bonus and feedback
    bonus: float = 0.0
    feedback: float = 0.0
    rating_out: int = 0
    newcomer: bool = False
    performance_cap: float | None = None  # set when a newcomer's estimate was held by the cap
    notes: tuple[str, ...] = ()  # system-specific remarks (scaling, caps, deviations)
    game_details: list[GameExplanation] = field(default_factory=list)

    @property
    def rounds(self) -> str:
        if self.first_round == self.last_round:
            return f"round {self.first_round}"
        return f"rounds {self.first_round}-{self.last_round}"


@dataclass
class PlayerRating:
    """One player's result of rating an event, with the explanation players ask for."""

    id: Hashable
    old: int | None
    new: int  # 0: still unrated (a newcomer who played no rated game)
    old_games: int
    new_games: int
    expected: float
    actual: float
    deviation: float | None = None
    volatility: float | None = None
    segments: list[SegmentExplanation] = field(default_factory=list)
    system_label: str = ""
    history: tuple[float, ...] | None = None  # absp only: the recent game values after the event

    def explain(self) -> str:
        """A few lines a player can read: per segment, expectation, result, multiplier, bonus."""
        head = f"{self.system_label}: " if self.system_label else ""
        old = "unrated" if not self.old else str(self.old)
        n = self.new_games - self.old_games
        lines = [
            f"{head}{old} -> {self.new} ({n} rated game{'' if n == 1 else 's'}, "
            f"expected {_fmt(self.expected)} wins, won {_fmt(self.actual)})"
        ]
        for seg in self.segments:
            lines.append("  " + _explain_segment(seg))
        if self.deviation is not None:
            lines.append(f"  rating {self.new} +- {round(2 * self.deviation)} (95%)")
        return "\n".join(lines)


def _fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def _explain_segment(seg: SegmentExplanation) -> str:
    if seg.games == 0:
        return f"{seg.rounds}: no rated games, rating stays {seg.rating_out or 'unrated'}"
    if seg.newcomer:
        text = (
            f"{seg.rounds}: first rated games: performance rating {seg.rating_out} from "
            f"{_fmt(seg.actual)} wins in {seg.games} games"
        )
        if seg.performance_cap is not None:
            text += f" (held at best opponent + 400 x wins/games = {_fmt(seg.performance_cap)})"
    else:
        excess = seg.actual - seg.expected
        text = (
            f"{seg.rounds}: rating {seg.rating_in}, expected {seg.expected:.2f} wins, "
            f"won {_fmt(seg.actual)} ({excess:+.2f})"
        )
        if seg.multipliers:
            ks = ", then ".join(f"x{_fmt(k)} for {e:+.2f}" for k, e in seg.multipliers)
            text += f", multiplier {ks}"
        text += f" = {seg.change:+.1f}"
        if seg.bonus:
            text += f", bonus {seg.bonus:+.1f}"
        if seg.feedback:
            text += f", feedback {seg.feedback:+.1f}"
        text += f" -> {seg.rating_out}"
    for note in seg.notes:
        text += f"; {note}"
    return text


def round_half_up(x: float) -> int:
    """TSH rounds with floor(x + 0.5), so .5 always goes up (also for negative changes)."""
    return math.floor(x + 0.5)


def segment_plan(configured_rounds: int) -> list[tuple[int, int]]:
    """Rounds rated together, as TSH splits a long event (ratings spec rule 8).

    Cut by the event's configured number of rounds so that the in-event estimates use the same
    cuts as the final rating.
    """
    n = configured_rounds
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise RatingError(f"configured number of rounds must be a positive integer, not {n!r}")
    if n <= 16:
        return [(1, n)]
    if n <= 35:
        cut = (n - 1) // 2 + 1
        return [(1, cut), (cut + 1, n)]
    cut1 = (n - 1) // 3 + 1
    cut2 = (2 * (n - 1) + 1) // 3 + 1
    return [(1, cut1), (cut1 + 1, cut2), (cut2 + 1, n)]


@dataclass
class PreparedEvent:
    """An event checked and turned into indexes, so the rating loops touch only lists and ints."""

    ids: list[Hashable]
    players: list[RatedPlayer]
    ratings: list[int | None]
    careers: list[int]
    configured_rounds: int
    # (round, a, b, score_a, score_b) with a and b player indexes, sorted by round.
    games: list[tuple[int, int, int, int, int]]
    originals: list[RatedGame]

    @property
    def last_round(self) -> int:
        return self.games[-1][0] if self.games else 0


_first = operator.itemgetter(0)  # a game's round, as a sort key


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def prepare_event(
    players: list[RatedPlayer], games: list[RatedGame], configured_rounds: int
) -> PreparedEvent:
    """Check an event's input and index it. Every refusal names the player and the round."""
    segment_plan(configured_rounds)  # checks configured_rounds
    index: dict[Hashable, int] = {}
    ratings: list[int | None] = []
    careers: list[int] = []
    for p in players:
        if p.id in index:
            raise RatingError(f"player {p.id!r} is listed twice")
        if p.rating is not None and (not _is_int(p.rating) or p.rating < 0):
            raise RatingError(f"player {p.id!r}: rating {p.rating!r} is not a rating")
        if p.career_games is not None and (not _is_int(p.career_games) or p.career_games < 0):
            raise RatingError(
                f"player {p.id!r}: career games {p.career_games!r} is not a count of games"
            )
        index[p.id] = len(ratings)
        ratings.append(p.rating or None)
        careers.append(p.known_career_games)
    # One pass with cheap checks; anything odd goes to _refuse_game for the exact message.
    n = len(ratings) or 1
    seen: dict[int, Hashable] = {}
    out: list[tuple[int, int, int, int, int]] = []
    get = index.get
    for g in games:
        r, a, b, sa, sb = g  # a RatedGame is a named tuple: unpacked, not read field by field
        ia, ib = get(a), get(b)
        if (
            type(r) is not int
            or not 0 < r <= configured_rounds
            or ia is None
            or ib is None
            or ia == ib
            or type(sa) is not int
            or type(sb) is not int
            or not 0 <= sa <= MAX_GAME_SCORE
            or not 0 <= sb <= MAX_GAME_SCORE
        ):
            _refuse_game(g, index, configured_rounds)
        ka, kb = r * n + ia, r * n + ib
        if ka in seen or kb in seen:
            me, other = (ia, b) if ka in seen else (ib, a)
            raise RatingError(
                f"round {r}: player {players[me].id!r} plays twice "
                f"(against {seen[r * n + me]!r} and {other!r})"
            )
        seen[ka] = b
        seen[kb] = a
        out.append((r, ia, ib, sa, sb))
    out.sort(key=_first)
    return PreparedEvent(
        ids=[p.id for p in players],
        players=list(players),
        ratings=ratings,
        careers=careers,
        configured_rounds=configured_rounds,
        games=out,
        originals=list(games),
    )


def _refuse_game(g: RatedGame, index: dict[Hashable, int], configured_rounds: int) -> None:
    """Raise the RatingError that says what is wrong with one game (the slow, careful path)."""
    r = g.round
    if not _is_int(r) or r < 1:
        raise RatingError(f"game {g.a!r} v {g.b!r}: round {r!r} is not a round number")
    if r > configured_rounds:
        raise RatingError(
            f"round {r}: game {g.a!r} v {g.b!r} is beyond the configured {configured_rounds} rounds"
        )
    for who in (g.a, g.b):
        if who not in index:
            raise RatingError(f"round {r}: unknown player {who!r} in game {g.a!r} v {g.b!r}")
    if index[g.a] == index[g.b]:
        raise RatingError(f"round {r}: player {g.a!r} is paired with themself")
    for s in (g.score_a, g.score_b):
        if not _is_int(s) or s < 0 or s > MAX_GAME_SCORE:
            raise RatingError(
                f"round {r}: {g.a!r} v {g.b!r} {g.score_a!r}-{g.score_b!r} is not a result "
                f"(scores are whole numbers 0-{MAX_GAME_SCORE}; byes and forfeits are not rated)"
            )
    # An int subclass (e.g. an IntEnum) that passed the careful checks: accepted as a number.
    return None
