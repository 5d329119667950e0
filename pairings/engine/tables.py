"""Fixed-table systems: round robin (Berger/circle tables) and Initial Fontes.

These are decided before play starts, so they are computed from the whole entry list (withdrawn
players keep their slot, their opponent gets a bye) and never from results: withdrawing a player
mid-way must not reshuffle everybody else's schedule.
"""

from __future__ import annotations

import random

from .firsts import previous_first
from .model import Field, PairingError, PairingOptions, RoundPairing
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
) -> RoundPairing:
    """Pair each group (slots: player numbers, None = phantom) by its circle table."""
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
    for slots, label in zip(groups, labels, strict=True):
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
    order = {p.number: i for i, p in enumerate(sorted(field.players, key=lambda p: p.number))}

    def explain(a: int, b: int) -> str:
        return why[a]

    return build_pairing(
        field,
        system,
        options,
        pairs,
        explain,
        lambda b: why[b],
        notes,
        lambda x: order[x],
        colours,
        assigned,
    )


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
    return _table_pairing(field, "fontes", options, groups, labels)
