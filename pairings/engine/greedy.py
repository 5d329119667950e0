"""Australian draw and manual pairings.

The Australian draw is greedy by design (top remaining player takes the highest-ranked opponent),
but a naive greedy can paint itself into a corner and force repeats at the bottom. Each choice is
therefore accepted only if the players still left can be paired with no more over-limit repeats
than the best possible, which one small matching per step tells us.
"""

from __future__ import annotations

from . import matching
from .model import Field, PairingError, PairingOptions, RoundPairing
from .standing import meeting_counts
from .weighted import _Round, build_pairing, infeasible, ordinal


def _over(rnd: _Round, i: int, j: int) -> int | None:
    """Over-limit repeats of the game i v j, None if a hard rule forbids it."""
    pi, pj = rnd.ordered[i], rnd.ordered[j]
    if frozenset((pi.number, pj.number)) in rnd.field.forbidden:
        return None
    over = 1 if rnd.met[i].get(pj.number, 0) + 1 > rnd.options.max_meetings else 0
    if over and rnd.options.hard_repeat_limit:
        return None
    return over


def _min_over(rnd: _Round, players: list[int]) -> tuple[int, dict[int, int]] | None:
    """Fewest over-limit games for pairing ``players``, and one matching achieving it."""
    if not players:
        return 0, {}
    local = {x: k for k, x in enumerate(players)}
    edges = []
    for a in players:
        for b in players:
            if a < b:
                o = _over(rnd, a, b)
                if o is not None:
                    edges.append((local[a], local[b], (o,)))
    result = matching.solve(len(players), edges)
    if result is None:
        return None
    partner = {}
    for u, v in result:
        partner[players[u]], partner[players[v]] = players[v], players[u]
    return matching.matching_cost(len(players), edges, result)[0], partner


def pair_australian(field: Field, options: PairingOptions) -> RoundPairing:
    rnd = _Round(field, "australian", options)
    n = rnd.n
    nodes = n + n % 2
    # The bye first (same bands as every system: over-limit repeats, then the bye order).
    edges = []
    for i in range(n):
        for j in range(i + 1, n):
            o = _over(rnd, i, j)
            if o is not None:
                edges.append((i, j, (o, 0)))
    if n % 2:
        edges += [(i, n, (0, rnd.bye_cost[i])) for i in rnd.bye_list]
    best = matching.solve(nodes, edges)
    if best is None:
        raise infeasible(rnd, nodes)
    bye = [u for u, v in best if v == n]
    remaining = [i for i in range(n) if i not in bye]
    target = matching.matching_cost(nodes, edges, best)[0]
    # An optimal completion is kept at every step, so most choices are checked by a swap
    # (top, q) + (top's partner, q's partner) instead of a new matching.
    partner = {}
    for u, v in best:
        if v < n:
            partner[u], partner[v] = v, u
    pairs: list[tuple[int, int]] = []
    while remaining:
        top = remaining[0]
        gib_first = [g for g in remaining if g in rnd.gib_idx]
        if gib_first:
            top = gib_first[0]
            candidates = sorted(
                (q for q in remaining if q != top),
                key=lambda q: (
                    q not in rnd.gib_idx,
                    rnd.noncontender_rank.get(q, n + q),
                ),
            )
        else:
            candidates = [q for q in remaining if q != top]
        for q in candidates:
            o = _over(rnd, top, q)
            if o is None:
                continue
            a, b = partner[top], partner[q]
            if a == q:
                break
            o_ab = _over(rnd, a, b)
            if o_ab is not None and o + o_ab <= _over(rnd, top, a) + _over(rnd, q, b):
                partner[a], partner[b] = b, a
                break
            rest = [x for x in remaining if x not in (top, q)]
            solved = _min_over(rnd, rest)
            if solved is not None and o + solved[0] == target:
                partner.update(solved[1])
                break
        else:  # pragma: no cover - the matching above proved a completion exists
            raise infeasible(rnd, nodes)
        pairs.append((top, q))
        remaining = [x for x in remaining if x not in (top, q)]
        target -= o
    out = [(rnd.ordered[a].number, rnd.ordered[b].number) for a, b in pairs]
    out += [(rnd.ordered[b].number, 0) for b in bye]

    def explain(a: int, b: int) -> str:
        i, j = sorted((rnd.pos[a], rnd.pos[b]))
        text = rnd.explain(i, j)
        base = f"top remaining v highest available ({i + 1} v {j + 1})"
        return f"{text}; {base}" if text else base

    return build_pairing(
        field,
        "australian",
        options,
        out,
        explain,
        lambda b: rnd.explain_bye(rnd.pos[b]),
        [],
        lambda x: rnd.pos[x],
    )


def pair_manual(field: Field, options: PairingOptions) -> RoundPairing:
    """Check the director's pairs: refuse impossible ones, warn about the rest.

    Refused: unknown or withdrawn players, a player booked twice, a player against themself.
    Warned (in ``notes``): repeats, forbidden pairs, active players left out, a second bye.
    """
    pairs = options.manual_pairs or []
    by_number = {p.number: p for p in field.players}
    seen: dict[int, int] = {}
    notes: list[str] = []
    for k, (a, b) in enumerate(pairs, start=1):
        if a == b:
            raise PairingError(f"manual pair {k}: player {a} paired with themself", rule="manual")
        for x in (a, b):
            if x == 0:
                continue
            if x not in by_number:
                raise PairingError(
                    f"manual pair {k}: no player {x} in this division", rule="manual"
                )
            if not by_number[x].active:
                raise PairingError(
                    f"manual pair {k}: player {x} has withdrawn and cannot be paired",
                    rule="withdrawn",
                )
            if x in seen:
                raise PairingError(
                    f"manual pair {k}: player {x} is already paired in pair {seen[x]}",
                    rule="double booking",
                )
            seen[x] = k
        if a == 0:
            raise PairingError(f"manual pair {k}: write a bye as (player, 0)", rule="manual")
    since = options.repeats_since_round
    why: dict[tuple[int, int], str] = {}
    for a, b in pairs:
        if not b:
            continue
        m = meeting_counts(by_number[a], since).get(b, 0)
        text = "manual"
        if m:
            text += f"; repeat {ordinal(m + 1)} meeting"
            if m + 1 > options.max_meetings:
                notes.append(f"warning: {a} v {b} is meeting number {m + 1}")
        if frozenset((a, b)) in field.forbidden:
            notes.append(f"warning: {a} v {b} is a forbidden pair")
        why[(min(a, b), max(a, b))] = text
    left_out = sorted(p.number for p in field.players if p.active and p.number not in seen)
    if left_out:
        notes.append("warning: not paired: " + ", ".join(map(str, left_out)))
    byes = [a for a, b in pairs if not b]
    if len(byes) > 1:
        notes.append("warning: more than one bye: " + ", ".join(map(str, byes)))
    return build_pairing(
        field,
        "manual",
        options,
        [tuple(p) for p in pairs],
        lambda a, b: why[(min(a, b), max(a, b))],
        lambda b: "bye: manual",
        notes,
        lambda x: x,
    )
