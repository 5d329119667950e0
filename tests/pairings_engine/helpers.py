"""Small builders for hand-made fields in the engine tests."""

from __future__ import annotations

from pairings.engine import Field, FieldPlayer


def player(number: int, wins: float = 0, losses: float = 0, spread: int = 0, **kw) -> FieldPlayer:
    kw.setdefault("rating", 2000 - 10 * number)
    return FieldPlayer(number=number, wins=wins, losses=losses, spread=spread, **kw)


def field(players: list[FieldPlayer], rnd: int, total: int = 10, **kw) -> Field:
    """A field whose ranks come from the tally (wins, losses, spread, rating)."""
    order = sorted(
        (p for p in players if p.active),
        key=lambda p: (-p.wins, p.losses, -p.spread, -p.rating, p.number),
    )
    for k, p in enumerate(order, start=1):
        p.rank = k
    return Field(players=players, round=rnd, rounds_total=total, **kw)


def fresh(n: int, rnd: int = 1, total: int = 10) -> Field:
    """n players, nobody has played: equal records, ranked by rating (player 1 best)."""
    return field([player(k) for k in range(1, n + 1)], rnd, total)


def met(a: FieldPlayer, b: FieldPlayer, first: FieldPlayer | None = None) -> None:
    """Record one more (past) game between a and b; ``first`` went first (default a)."""
    first = first or a
    a.opponents.append(b.number)
    b.opponents.append(a.number)
    a.firsts.append(1 if first is a else 2)
    b.firsts.append(1 if first is b else 2)


def games(pairing) -> set[frozenset[int]]:
    return {frozenset((g.first, g.second)) for g in pairing.games if g.second}


def bye_of(pairing) -> int | None:
    byes = [g.first for g in pairing.games if not g.second]
    return byes[0] if byes else None
