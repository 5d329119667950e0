"""Who goes first: the NASPA start/reply rule, applied to a whole round at once.

TSH and Woogles once assigned firsts while pairing game by game and updated the counts as they
went, which let a round end unbalanced. Here every game of the round is decided from the counts
*before* the round, so the outcome does not depend on board order; ties are broken with a seeded
rng, so the same pairing always comes out the same.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from .model import Field, FieldPlayer


def first_by_rule(a: FieldPlayer, b: FieldPlayer) -> tuple[FieldPlayer | None, str]:
    """The player the rule sends first, or None when it does not decide."""
    sa, sb = a.starts, b.starts
    if sa != sb:
        return (a if sa < sb else b), "fewer starts"
    ra, rb = a.replies, b.replies
    if ra != rb:
        return (a if ra > rb else b), "more replies"
    return None, "drawn"


def assign_firsts(
    pairs: Iterable[tuple[int, int]],
    field: Field,
    rng: random.Random,
    fallback: dict[tuple[int, int], int] | None = None,
    assigned: dict[tuple[int, int], int] | None = None,
) -> list[tuple[int, int, str]]:
    """Order each (a, b) as (first, second, reason).

    ``assigned`` (pair -> first player) overrides the rule: a round robin's later cycles swap
    the starts of the earlier meeting, which balances every player exactly. When the rule does
    not decide, ``fallback`` (the table's colour) wins before the draw.
    """
    by_number = {p.number: p for p in field.players}
    out = []
    for a, b in pairs:
        pa, pb = by_number[a], by_number[b]
        key = (min(a, b), max(a, b))
        if assigned and key in assigned:
            first = by_number[assigned[key]]
            second = pb if first is pa else pa
            out.append((first.number, second.number, "assigned start"))
            continue
        first, reason = first_by_rule(pa, pb)
        if first is None:
            if fallback and key in fallback:
                first, reason = by_number[fallback[key]], "assigned start"
            else:
                first = pa if rng.random() < 0.5 else pb
        second = pb if first is pa else pa
        out.append((first.number, second.number, reason))
    return out


def round_rng(seed: int, rnd: int, salt: str = "") -> random.Random:
    """A deterministic rng per (event seed, round): re-pairing a round reproduces it."""
    return random.Random(f"gibson:{seed}:{rnd}:{salt}")


def previous_first(a: FieldPlayer, b: int) -> int | None:
    """Who went first when ``a`` last met ``b`` (None if they never met or it is unknown)."""
    for opp, f in zip(reversed(a.opponents), reversed(a.firsts[: len(a.opponents)]), strict=False):
        if opp == b and f in (1, 2):
            return a.number if f == 1 else b
    return None
