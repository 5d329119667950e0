"""What the pairing rules need to know about the standings: order, meetings, Gibson, contention.

Everything here is judged on *complete* rounds (``Field.rounds_complete``), as NASPA rules say:
a round still being played counts as not played.
"""

from __future__ import annotations

import bisect
from collections import defaultdict

from .model import Field, FieldPlayer, PairingOptions

BYE_METHODS = ("bottom_up", "top_down", "always_bottom")
# What a director reads on the bye's board, one text per method, the same in every system.
BYE_REASONS = {
    "bottom_up": "bye: lowest with fewest byes",
    "top_down": "bye: highest with fewest byes",
    "always_bottom": "bye: lowest ranked",
}


def tally_key(p: FieldPlayer) -> tuple:
    """Fallback ranking when the caller passes no ranks: wins, losses, spread, rating, number."""
    return (-p.wins, p.losses, -p.spread, -p.rating, p.number)


def ordered_active(field: Field) -> list[FieldPlayer]:
    """Active players best first: by the caller's rank, ties broken by the tally."""
    active = [p for p in field.players if p.active]
    if active and all(p.rank > 0 for p in active):
        return sorted(active, key=lambda p: (p.rank, *tally_key(p)))
    return sorted(active, key=tally_key)


def meetings(p: FieldPlayer, other: int, since_round: int | None = None) -> int:
    """How often ``p`` has been paired with ``other`` (from ``since_round`` on, if given)."""
    start = 0 if since_round is None else max(0, since_round - 1)
    return sum(1 for opp in p.opponents[start:] if opp == other)


def meeting_counts(p: FieldPlayer, since_round: int | None = None) -> dict[int, int]:
    """Games against each opponent (from ``since_round`` on); byes and forfeits (0) left out.

    Built with C-level dict and list calls rather than a Python loop per game, because pairing
    a big field counts every player's meetings once per round; repeats are the rare case.
    """
    start = 0 if since_round is None else max(0, since_round - 1)
    opponents = p.opponents[start:] if start else p.opponents
    out = dict.fromkeys(opponents, 1)
    if len(out) < len(opponents):  # a repeat (or several byes): count each opponent
        for opp in out:
            out[opp] = opponents.count(opp)
    out.pop(0, None)
    return out


def rounds_left(field: Field) -> int:
    return max(0, field.rounds_total - field.rounds_complete)


def catch_spread(field: Field, options: PairingOptions) -> int:
    """Most spread a chaser can gain over the remaining rounds (gibson_spread summed per round)."""
    return sum(
        options.spread_for_round(r)
        for r in range(field.rounds_complete + 1, field.rounds_total + 1)
    )


def half_wins(p: FieldPlayer) -> int:
    return round(2 * p.wins)


def can_catch(chaser: FieldPlayer, leader: FieldPlayer, k: int, spread: int) -> bool:
    """The spec's test: with k rounds left the chaser catches if the win gap is below k, or is
    exactly k and the spread gap is at most the spread the chaser can still gain."""
    gap = half_wins(leader) - half_wins(chaser)
    if gap < 2 * k:
        return True
    return gap == 2 * k and leader.spread - chaser.spread <= spread


def gibsonized(field: Field, options: PairingOptions, ordered: list[FieldPlayer]) -> list[int]:
    """Players already sure of a top-``gibson_places`` finish, best first.

    Only the top ``gibson_places`` by rank can qualify: anyone ranked above a player has at least
    as many wins and so can always catch them.
    """
    if not options.gibson:
        return []
    k = rounds_left(field)
    if k <= 0:
        return []
    spread = catch_spread(field, options)
    places = max(1, options.gibson_places)
    out = []
    for leader in ordered[:places]:
        catchers = sum(1 for p in ordered if p is not leader and can_catch(p, leader, k, spread))
        if catchers <= places - 1:
            out.append(leader.number)
    return out


def best_finishes(field: Field, options: PairingOptions, ordered: list[FieldPlayer]) -> dict:
    """Best place each player can still reach: 1 + players they can no longer catch.

    Counted with sorted lists (O(n log n)) so contention pairing stays cheap for big fields.
    """
    k = rounds_left(field)
    spread = catch_spread(field, options)
    hw = sorted(half_wins(p) for p in ordered)
    by_wins: dict[int, list[int]] = defaultdict(list)
    for p in ordered:
        by_wins[half_wins(p)].append(p.spread)
    for spreads in by_wins.values():
        spreads.sort()
    out = {}
    for p in ordered:
        target = half_wins(p) + 2 * k
        ahead = len(hw) - bisect.bisect_right(hw, target)
        same = by_wins.get(target)
        if same:
            ahead += len(same) - bisect.bisect_right(same, p.spread + spread)
        out[p.number] = 1 + ahead
    return out


def bye_order(ordered: list[FieldPlayer], method: str, gibson: list[int]) -> list[FieldPlayer]:
    """Players in the order they should take the bye: Gibsonized players first, then by method.

    ``bottom_up`` (NASPA default): fewest byes, then lowest ranked; ``top_down``: fewest byes,
    then highest ranked; ``always_bottom``: lowest ranked regardless of byes.
    """
    if method not in BYE_METHODS:
        raise ValueError(f"unknown bye method {method!r}; use one of {', '.join(BYE_METHODS)}")
    pos = {p.number: i for i, p in enumerate(ordered)}
    if method == "bottom_up":
        rest = sorted(ordered, key=lambda p: (p.byes, -pos[p.number]))
    elif method == "top_down":
        rest = sorted(ordered, key=lambda p: (p.byes, pos[p.number]))
    else:
        rest = sorted(ordered, key=lambda p: -pos[p.number])
    first = [p for p in ordered if p.number in gibson]
    return first + [p for p in rest if p.number not in gibson]
