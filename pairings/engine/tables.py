"""Fixed-table systems: round robin (Berger/circle tables) and Initial Fontes.

These are decided before play starts, so they are computed from the whole entry list (withdrawn
players keep their slot, their opponent gets a bye) and never from results: withdrawing a player
mid-way must not reshuffle everybody else's schedule.

Round robin byes come from its table (the phantom slot, a withdrawn player's slot), as the spec
says. Initial Fontes byes do not: its phantom sits in one group only, so its byes fell on
whoever shared that group (the 5th and 6th seeds, a 2-0 player). In Fontes the bye goes by the
bye rule, like every other system, and the few players the table then leaves without an
opponent (the bye player's table opponent, the phantom's or a withdrawn player's) are re-paired
by a small matching that keeps every other table game.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from . import matching
from .firsts import previous_first
from .model import Field, FieldPlayer, PairingError, PairingOptions, RoundPairing
from .standing import BYE_REASONS, bye_order, meetings, ordered_active
from .weighted import build_pairing, ordinal


def circle_round(n: int, r: int) -> list[tuple[int, int]]:
    """Round ``r`` (0-based) of a single round robin of ``n`` (even) slots as (start, reply).

    Circle method: slot n-1 is fixed, slot r meets it, and r+t meets r-t (mod n-1). Each pair
    meets exactly once in n-1 rounds because n-1 is odd. The table colour alternates by round
    for the fixed slot and by table otherwise; it is only a fallback, the NASPA rule decides
    first when it can.
    """
    m = n - 1
    out = [(r % m, n - 1) if r % 2 == 0 else (n - 1, r % m)]
    for t in range(1, n // 2):
        a, b = (r + t) % m, (r - t) % m
        out.append((a, b) if t % 2 else (b, a))
    return out


def _table_pairing(
    field: Field,
    system: str,
    options: PairingOptions,
    groups: list[list[int | None]],
    labels: list[str],
    rule_byes: bool = False,
) -> RoundPairing:
    """Pair each group (slots: player numbers, None = phantom) by its circle table.

    ``rule_byes``: the bye goes by the bye rule and table byes are re-paired (Fontes).
    """
    index = field.round - options.system_start_round
    if index < 0:
        raise PairingError(
            f"round {field.round} is before this {system} range starts "
            f"(round {options.system_start_round})",
            rule="schedule",
        )
    active = {p.number for p in field.players if p.active}
    pairs: list[tuple[int, int]] = []
    colours: dict[tuple[int, int], int] = {}
    assigned: dict[tuple[int, int], int] = {}
    by_number = {p.number: p for p in field.players}
    why: dict[int, str] = {}
    notes: list[str] = []
    group_of: dict[int, str] = {}
    for slots, label in zip(groups, labels, strict=True):
        group_of.update((x, label) for x in slots if x is not None)
        if len(slots) % 2:
            slots = [*slots, None]
        n = len(slots)
        if n < 2:
            continue
        cycle, r = divmod(index, n - 1)
        if cycle:
            notes.append(f"{label}: cycle {cycle + 1} of the table (players meet again)")
        for a_slot, b_slot in circle_round(n, r):
            a, b = slots[a_slot], slots[b_slot]
            a_on, b_on = a in active, b in active
            if a_on and b_on:
                pairs.append((a, b))
                first = a if cycle % 2 == 0 else b
                colours[(min(a, b), max(a, b))] = first
                before = previous_first(by_number[a], b) if cycle else None
                if before is not None:
                    assigned[(min(a, b), max(a, b))] = b if before == a else a
                why[a] = why[b] = label + (f", {ordinal(cycle + 1)} cycle" if cycle else "")
            elif a_on or b_on:
                player = a if a_on else b
                other = b if a_on else a
                pairs.append((player, 0))
                why[player] = (
                    f"bye: {label} phantom" if other is None else f"bye: opponent {other} withdrawn"
                )
    seen = {x for ab in pairs for x in ab if x}
    missing = sorted(active - seen)
    if missing:
        raise PairingError(
            f"players {', '.join(map(str, missing))} have no slot in the {system} table",
            rule="schedule",
        )
    if rule_byes:
        pairs = _bye_by_rule(field, options, pairs, why, group_of, assigned)
    order = {p.number: i for i, p in enumerate(sorted(field.players, key=lambda p: p.number))}
    return build_pairing(
        field,
        system,
        options,
        pairs,
        lambda a, b: why[a],
        lambda b: why[b],
        notes,
        lambda x: order[x],
        colours,
        assigned,
    )


BYE_CANDIDATES = 24  # players from the top of the bye order a Fontes round may give the bye


def _bye_by_rule(
    field: Field,
    options: PairingOptions,
    pairs: list[tuple[int, int]],
    why: dict[int, str],
    group_of: dict[int, str],
    assigned: dict[tuple[int, int], int],
) -> list[tuple[int, int]]:
    """The table's games with the bye given by the bye rule and the loose players re-paired.

    One small minimum-cost matching, its costs banded as in the weighted systems: meetings over
    the repeat limit first, then the bye player's place in the bye order (so a later player takes
    the bye only when the first would force a repeat, as Swiss does), then table games broken,
    then seed distance. Only "flexible" players get edges beyond their table game: those the
    table leaves alone (the phantom's or a withdrawn player's opponent), the bye candidates and
    their table opponents, and both players of a table game over the repeat limit (an earlier
    re-pairing can make one). A small field is all flexible, a big one stays a few edges more
    than its table.
    """
    by_number = {p.number: p for p in field.players}
    games = [(a, b) for a, b in pairs if b]
    loose = [a for a, b in pairs if not b]
    active = ordered_active(field)
    since = options.repeats_since_round

    def over(a: int, b: int) -> int:
        return max(0, meetings(by_number[a], b, since) + 1 - options.max_meetings)

    odd = len(active) % 2 == 1
    candidates = (
        [p.number for p in bye_order(active, options.bye_method, [])[:BYE_CANDIDATES]]
        if odd
        else []
    )
    if not loose and not odd and all(not over(a, b) for a, b in games):
        return pairs
    partner = {a: b for a, b in games} | {b: a for a, b in games}
    quick = _quick_repair(field, options, games, loose, candidates, partner, over)
    if quick is not None:
        bye, repaired = quick
        moved = {x for ab in repaired for x in ab}
        for a, b in repaired:
            _note_repaired(by_number[a], b, why, group_of, assigned)
        out = [g for g in games if g[0] not in moved and g[1] not in moved] + repaired
        if bye is not None:
            why[bye] = BYE_REASONS[options.bye_method]
            out.append((bye, 0))
        return out
    flexible = set(loose) | set(candidates) | {partner[c] for c in candidates if c in partner}
    flexible |= {x for a, b in games if over(a, b) for x in (a, b)}
    players = [p.number for p in active]
    index = {x: k for k, x in enumerate(players)}
    table = {frozenset(g) for g in games}
    edges = _flexible_edges(field, players, games, flexible, over)
    bye_node = len(players)
    edges += [(index[c], bye_node, (0, rank, 0, 0)) for rank, c in enumerate(candidates)]
    result = matching.solve(len(players) + odd, edges)
    if result is None:
        stuck = sorted(flexible)
        raise PairingError(
            f"players {', '.join(map(str, stuck))} cannot be re-paired around the Fontes bye "
            "(forbidden pairs); remove a forbidden pair",
            rule="forbidden",
            players=tuple(stuck),
        )
    out = []
    for u, v in result:
        a = players[u]
        if v == bye_node:
            why[a] = BYE_REASONS[options.bye_method]
            if candidates[0] != a:
                why[a] += " (players before in the bye order would force a repeat)"
            out.append((a, 0))
            continue
        b = players[v]
        out.append((a, b))
        if frozenset((a, b)) not in table:
            _note_repaired(by_number[a], b, why, group_of, assigned)
    return out


def _note_repaired(
    a: FieldPlayer,
    b: int,
    why: dict[int, str],
    group_of: dict[int, str],
    assigned: dict[tuple[int, int], int],
) -> None:
    """A game the bye rule made: both players' reason, and a repeat's starts swapped."""
    why[a.number] = why[b] = f"{group_of[a.number]}; re-paired around the bye rule"
    before = previous_first(a, b)
    if before is not None:  # a repeat swaps the earlier meeting's starts
        assigned[(min(a.number, b), max(a.number, b))] = b if before == a.number else a.number


def _flexible_edges(
    field: Field,
    players: list[int],
    games: list[tuple[int, int]],
    flexible: set[int],
    over: Callable[[int, int], int],
) -> list[matching.Edge]:
    """The matching's edges: each table game as it is, and every other game a flexible
    player could play (not a forbidden pair), costed by repeats, table games broken and seed
    distance."""
    index = {x: k for k, x in enumerate(players)}
    seed = {
        p.number: k
        for k, p in enumerate(sorted(field.players, key=lambda p: (-p.rating, p.number)))
    }
    table = {frozenset(g) for g in games}
    edges: list[matching.Edge] = [(index[a], index[b], (over(a, b), 0, 0, 0)) for a, b in games]
    done: set[frozenset[int]] = set()
    for a in sorted(flexible, key=index.__getitem__):
        for b in players:
            key = frozenset((a, b))
            if b == a or key in table or key in done or key in field.forbidden:
                continue
            done.add(key)
            edges.append((index[a], index[b], (over(a, b), 0, 1, abs(seed[a] - seed[b]))))
    return edges


def _quick_repair(
    field: Field,
    options: PairingOptions,
    games: list[tuple[int, int]],
    loose: list[int],
    candidates: list[int],
    partner: dict[int, int],
    over,
) -> tuple[int | None, list[tuple[int, int]]] | None:
    """The usual case without a matching: the first in the bye order takes the bye and the loose
    players, paired by seed neighbours, meet for the first time (and no table game repeats).

    That is exactly the matching's optimum then (no repeat, the first bye candidate, fewest table
    games broken, and neighbours on a line give the least seed distance), in linear time, which
    keeps a 1,000-player Fontes round as quick as its table. None when it does not apply.
    """
    if any(over(a, b) for a, b in games):
        return None
    rest = list(loose)
    bye = candidates[0] if candidates else None
    if bye is not None:
        if bye in rest:
            rest.remove(bye)
        else:
            rest.append(partner[bye])
    if len(rest) % 2:
        return None
    rating = {p.number: (-p.rating, p.number) for p in field.players}
    rest.sort(key=rating.__getitem__)
    repaired = list(zip(rest[::2], rest[1::2], strict=True))
    if any(over(a, b) or frozenset((a, b)) in field.forbidden for a, b in repaired):
        return None
    return bye, repaired


def pair_round_robin(field: Field, options: PairingOptions) -> RoundPairing:
    """Everyone meets once per cycle; more rounds than one cycle repeat it (double/triple RR)."""
    slots: list[int | None] = sorted(p.number for p in field.players)
    return _table_pairing(field, "rr", options, [slots], ["round robin"])


def fontes_groups(field: Field, options: PairingOptions) -> list[list[int | None]]:
    """Initial Fontes groups of N+1: one player from each of N+1 rating bands.

    Bands are snaked (odd bands reversed) unless ``fontes_order='random'``. The field is made even
    with a phantom (the bye) first. Leftover players (the field is not a multiple of N+1) join the
    groups two at a time from the bottom group up; a group larger than N+1 just plays the first N
    rounds of its table, so nobody repeats. A field smaller than N+1 is one group.
    """
    n_rounds = options.fontes_rounds
    if n_rounds < 1 or n_rounds % 2 == 0:
        raise PairingError(
            f"Initial Fontes needs an odd number of rounds, got {n_rounds}", rule="fontes_rounds"
        )
    seeded: list[int | None] = [
        p.number for p in sorted(field.players, key=lambda p: (-p.rating, p.number))
    ]
    if len(seeded) % 2:
        seeded.append(None)
    size = n_rounds + 1
    count = len(seeded) // size
    if count <= 1:
        return [seeded]
    rng = random.Random(f"fontes:{options.seed}")
    bands = [seeded[b * count : (b + 1) * count] for b in range(size)]
    for b, band in enumerate(bands):
        if options.fontes_order == "random":
            rng.shuffle(band)
        elif b % 2:
            band.reverse()
    groups = [[band[g] for band in bands] for g in range(count)]
    leftovers = seeded[size * count :]
    g = count - 1
    while leftovers:
        groups[g].extend(leftovers[:2])
        leftovers = leftovers[2:]
        g = (g - 1) % count
    return groups


def pair_fontes(field: Field, options: PairingOptions) -> RoundPairing:
    groups = fontes_groups(field, options)
    labels = [f"Fontes group {g + 1}" for g in range(len(groups))]
    return _table_pairing(field, "fontes", options, groups, labels, rule_byes=True)
