"""Club records from per-night summaries: the pure core (no Django).

A club's records (high game, high loss, high combined score, best average, longest winning
streak) run over every game of every closed night: ten years of weekly nights are 50,000
games, too many to read for each page. A closed night cannot change (tournament.services.audit
refuses every write to it until it is reopened), so its ``summarise``d contribution is kept
with it when it closes and ``fold`` combines the nights' summaries, in date order, into the
same records one pass over all the games gives (``scan``, the reference the tests compare).

Rules: byes and forfeits are not games for scores or averages; a streak counts consecutive
wins across nights, a tie or a loss (a forfeit too) ends it, a bye neither adds to it nor
ends it. Ties on a record keep their holders in the order they were set, at most ``keep``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

GameRow = tuple[int, int | None, int, int | None]  # player1, player2 (None: bye/forfeit), scores
KEEP = 6


@dataclass
class Records:
    """The raw records: each mark is (player, opponent, mine, theirs, night)."""

    high: tuple[int | None, list[tuple]] = (None, [])
    loss: tuple[int | None, list[tuple]] = (None, [])
    combined: tuple[int | None, list[tuple]] = (None, [])
    totals: dict[int, list[int]] = field(default_factory=dict)  # player: [points, games]
    best: dict[int, tuple[int, Any, Any]] = field(default_factory=dict)  # (length, first, last)
    run: dict[int, tuple[int, Any]] = field(default_factory=dict)  # current (length, first)


def _top(
    current: tuple[int | None, list[tuple]], value: int, marks: Sequence[tuple], keep: int
) -> tuple[int | None, list[tuple]]:
    """A record after ``marks`` set ``value``: a higher value replaces, an equal one joins."""
    best, held = current
    if best is None or value > best:
        return value, list(marks[:keep])
    if value == best and len(held) < keep:
        return best, held + list(marks[: keep - len(held)])
    return current


def summarise(games: Iterable[GameRow], keep: int = KEEP) -> dict[str, Any]:
    """One night's contribution, JSON-ready; ``games`` in round order."""
    high: tuple[int | None, list[tuple]] = (None, [])
    loss: tuple[int | None, list[tuple]] = (None, [])
    combined: tuple[int | None, list[tuple]] = (None, [])
    totals: dict[int, list[int]] = {}
    # per player: [wins before the first break, wins since the last break, best run, broken]
    streaks: dict[int, list] = {}

    def step(player: int, won: bool) -> None:
        s = streaks.setdefault(player, [0, 0, 0, False])
        if won:
            s[1] += 1
            if not s[3]:
                s[0] += 1
            s[2] = max(s[2], s[1])
        else:
            s[3] = True
            s[1] = 0

    for a, b, s1, s2 in games:
        if b is None:
            if s1 < 0:
                step(a, False)
            continue
        assert s2 is not None
        for me, other, mine, theirs in ((a, b, s1, s2), (b, a, s2, s1)):
            high = _top(high, mine, [(me, other, mine, theirs)], keep)
            if mine < theirs:
                loss = _top(loss, mine, [(me, other, mine, theirs)], keep)
            t = totals.setdefault(me, [0, 0])
            t[0] += mine
            t[1] += 1
            step(me, mine > theirs)
        combined = _top(combined, s1 + s2, [(a, b, s1, s2)], keep)
    # Compact, since ~500 are read for a club page: per player one list of
    # [points, games, wins before the first break, wins since the last, best run, broken].
    return {
        "high": [high[0], [list(m) for m in high[1]]],
        "loss": [loss[0], [list(m) for m in loss[1]]],
        "combined": [combined[0], [list(m) for m in combined[1]]],
        "players": {
            str(p): [*totals.get(p, (0, 0)), s[0], s[1], s[2], int(s[3])]
            for p, s in streaks.items()
        },
    }


def _better(records: Records, player: int, length: int, first: Any, last: Any) -> None:
    if length > records.best.get(player, (0,))[0]:
        records.best[player] = (length, first, last)


def fold(nights: Iterable[tuple[Any, Mapping[str, Any]]], keep: int = KEEP) -> Records:
    """The records of ``(night, summary)`` pairs given in date order."""
    r = Records()
    for night, s in nights:
        for key in ("high", "loss", "combined"):
            value, marks = s[key]
            if value is not None:
                setattr(r, key, _top(getattr(r, key), value, [(*m, night) for m in marks], keep))
        totals, best, run = r.totals, r.best, r.run
        for p, (points, games, prefix, suffix, inner, broken) in s["players"].items():
            player = int(p)
            if games:
                t = totals.get(player)
                if t is None:
                    totals[player] = [points, games]
                else:
                    t[0] += points
                    t[1] += games
            length, first = run.get(player, (0, night))
            if prefix:
                start = first if length else night
                if length + prefix > best.get(player, (0,))[0]:
                    best[player] = (length + prefix, start, night)
                if not broken:
                    run[player] = (length + prefix, start)
                    continue
            elif not broken:
                continue
            if inner > best.get(player, (0,))[0]:
                best[player] = (inner, night, night)
            if suffix:
                run[player] = (suffix, night)
            else:
                run.pop(player, None)
    return r


def scan(
    games: Iterable[tuple[Any, int, int | None, int, int | None]], keep: int = KEEP
) -> Records:
    """The records in one pass over ``(night, player1, player2, score1, score2)`` rows in
    date, night and round order: the definition ``fold`` must agree with."""
    r = Records()
    for night, a, b, s1, s2 in games:
        if b is None:
            if s1 < 0:
                r.run.pop(a, None)
            continue
        assert s2 is not None
        for me, other, mine, theirs in ((a, b, s1, s2), (b, a, s2, s1)):
            r.high = _top(r.high, mine, [(me, other, mine, theirs, night)], keep)
            if mine < theirs:
                r.loss = _top(r.loss, mine, [(me, other, mine, theirs, night)], keep)
            t = r.totals.setdefault(me, [0, 0])
            t[0] += mine
            t[1] += 1
            if mine > theirs:
                length, first = r.run.get(me, (0, night))
                r.run[me] = (length + 1, first)
                _better(r, me, length + 1, first, night)
            else:
                r.run.pop(me, None)
        r.combined = _top(r.combined, s1 + s2, [(a, b, s1, s2, night)], keep)
    return r
