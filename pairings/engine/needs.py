"""What I need: exact conditions for each prize place once the last round is paired, safe
bounds before. Pure Python: dataclasses in, dataclasses out (no Django, nothing of the project).

The ranking is the standings' (tournament/standings.py, docs/rules.md): wins (desc), losses
(asc), spread as ranked (each game's spread clipped to the round's cap), then a fixed tiebreak
the caller passes (pre-tournament rating, the name's fixed random value, player number). A
*place* is a position in that order: "3rd or better" means at most two ranked players are
listed above you. Players level on wins, losses and spread share a printed rank; a prize
split between them is the director's decision, so the statements assume the listed order.

Exact mode (every game still to play is paired, nobody has more than one of them, spread
decides before points): each unscored game's outcome is its margin m in [-M, M] from one
side (0 a tie), where M is the round's spread cap or, uncapped, ``MARGIN_BOUND`` (a margin
beyond the bound ranks as the bound would: the statements say "by 87 or more"). For a player
P in a result class (win, tie, loss) every other player Q is ahead of P exactly when Q's own
margin y reaches ``A_Q(x) = clamp(x + d, lo, hi + 1)`` (x = P's margin): a better record is
ahead whatever the spread, an equal record is ahead on spread from ``x + d`` on, a worse one
never. So "P finishes k-th or better" is "at most k - 1 - (players surely ahead) of the
contingent players reach their threshold", written as alternatives, each a conjunction of
conditions on games (``Margin``: a player's margin in a range; ``Behind``: a player's margin
below P's plus an offset). Alternatives that would be too many to read are cut to a
sufficient few and the statement is marked inexact ("for example").

Bounds mode (rounds still unpaired, or a player with two games to play): a player can no
longer reach place k when at least k others are ahead of their best case (every remaining
game won by the margin bound) even in those players' worst case; a place is clinched when at
most k - 1 others' best case is ahead of the player's worst case. Both hold for every
outcome, whoever is paired with whom; ``tests/pairings_engine/test_needs.py`` checks them,
and the exact statements, against enumeration of outcomes.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations
from math import comb
from typing import Any

from .needs_terms import (
    MARGIN_BOUND,
    Behind,
    Condition,
    Margin,
    Need,
    NeedLine,
    NeedsInput,
    Pending,
    PlayerNeeds,
    Standing,
    holds,
    ordinal,
)

__all__ = [
    "Behind",
    "MARGIN_BOUND",
    "Margin",
    "Need",
    "NeedGroup",
    "NeedLine",
    "NeedsInput",
    "Pending",
    "PlayerNeeds",
    "Standing",
    "compute_needs",
    "describe",
    "summarize",
    "summarize_groups",
    "summary_lines",
    "holds",
    "ordinal",
    "player_needs",
]

# More alternatives than this are not a statement a player reads at the board: they are cut
# to a sufficient few and the statement is marked as an example.
MAX_ALTERNATIVES = 6
_MAX_SUBSETS = 64  # ways of choosing which contingent players may be ahead, per span
_MAX_RAW = 60  # exact alternatives before merging beyond which the statement is cut


# --------------------------------------------------------------------------- the model


def _result(m: int) -> tuple[float, float]:
    return (1.0, 0.0) if m > 0 else (0.5, 0.5) if m == 0 else (0.0, 1.0)


def _classes(margin: int) -> list[tuple[int, int]]:
    """The result classes of a game: loss, tie, win, as margin ranges."""
    return [(-margin, -1), (0, 0), (1, margin)]


def _record(s: Standing, lo: int) -> tuple[float, float]:
    dw, dl = _result(lo)
    return (-(s.wins + dw), s.losses + dl)


@dataclass
class _Ctx:
    by_number: dict[int, Standing]
    game_of: dict[int, tuple[int, int]]  # player -> (opponent, margin bound)
    places: int
    # ranked players' keys at their best (last game won by the bound) and worst (lost by
    # it), sorted: who is ahead of P whatever happens, and who can never be, by bisection
    best: list[tuple] = field(default_factory=list)
    worst: list[tuple] = field(default_factory=list)

    def __post_init__(self) -> None:
        for s in self.by_number.values():
            if s.ranked:
                b, w = self.extremes(s)
                self.best.append((b, s.number))
                self.worst.append((w, s.number))
        self.best.sort()
        self.worst.sort()

    def extremes(self, s: Standing) -> tuple[tuple, tuple]:
        if s.number not in self.game_of:
            key = _key(s, s.wins, s.losses, s.spread)
            return key, key
        m = self.game_of[s.number][1]
        return (
            _key(s, s.wins + 1, s.losses, s.spread + m),
            _key(s, s.wins, s.losses + 1, s.spread - m),
        )

    def band(self, me: Standing) -> tuple[int, list[Standing]]:
        """How many players are ahead of P in every outcome, and the players that are
        ahead in some outcomes only (the only ones worth a look)."""
        mine_best, mine_worst = self.extremes(me)
        always = bisect_left(self.worst, (mine_best,))
        reach = bisect_right(self.best, (mine_worst, float("inf")))
        middle = [
            self.by_number[q]
            for key, q in self.best[:reach]
            if q != me.number and self.extremes(self.by_number[q])[1] >= mine_best
        ]
        return always, middle


def _check(data: NeedsInput) -> None:
    numbers = [s.number for s in data.players]
    if len(set(numbers)) != len(numbers):
        raise ValueError("two players share a player number")
    if data.places < 1:
        raise ValueError(f"prize places must be 1 or more, not {data.places}")
    known = set(numbers)
    for g in data.pending:
        if g.player1 not in known or g.player2 not in known or g.player1 == g.player2:
            raise ValueError(f"pending game {g.player1}-{g.player2}: unknown or same players")
        if g.margin < 1:
            raise ValueError(f"pending game {g.player1}-{g.player2}: margin bound {g.margin}")


def _exact_possible(data: NeedsInput) -> bool:
    if data.future_margins or not data.spread_decides:
        return False
    seen: set[int] = set()
    for g in data.pending:
        if g.player1 in seen or g.player2 in seen:
            return False
        seen.update((g.player1, g.player2))
    return True


def compute_needs(data: NeedsInput, only: int | None = None) -> dict[int, PlayerNeeds]:
    """Every ranked player's needs (or only player ``only``'s), by player number."""
    _check(data)
    by_number = {s.number: s for s in data.players}
    if only is not None and only not in by_number:
        raise ValueError(f"there is no player {only}")
    targets = [only] if only is not None else [s.number for s in data.players if s.ranked]
    if not data.pending and not data.future_margins:
        return {n: _worded(_final(data, by_number, n)) for n in targets}
    if _exact_possible(data):
        game_of: dict[int, tuple[int, int]] = {}
        for g in data.pending:
            game_of[g.player1] = (g.player2, g.margin)
            game_of[g.player2] = (g.player1, g.margin)
        ctx = _Ctx(by_number, game_of, data.places)
        return {n: _worded(_exact(ctx, n)) for n in targets}
    return {n: _worded(_bounds(data, by_number, n)) for n in targets}


def _worded(pn: PlayerNeeds) -> PlayerNeeds:
    """Each need with its words (player numbers as "#5"; the shell words them with names)."""
    pn.needs = [replace(n, text=describe(n)) for n in pn.needs]
    return pn


def player_needs(data: NeedsInput, number: int) -> PlayerNeeds:
    return compute_needs(data, only=number)[number]


# --------------------------------------------------------------------------- final standings


def _key(s: Standing, wins: float, losses: float, spread: int) -> tuple:
    return (-wins, losses, -spread, s.tiebreak, s.number)


def _final(data: NeedsInput, by_number: dict[int, Standing], n: int) -> PlayerNeeds:
    me = by_number[n]
    out = PlayerNeeds(n, "final")
    if not me.ranked:
        return out
    mine = _key(me, me.wins, me.losses, me.spread)
    place = 1 + sum(
        1
        for s in data.players
        if s.ranked and s.number != n and _key(s, s.wins, s.losses, s.spread) < mine
    )
    for k in range(1, data.places + 1):
        status = "clinched" if place <= k else "out"
        out.needs.append(Need(n, k, status, True, ((),) if status == "clinched" else (), ""))
    out.place = place
    out.summary.append(f"Finished {ordinal(place)}.")
    return out


# --------------------------------------------------------------------------- bounds


def _bounds(data: NeedsInput, by_number: dict[int, Standing], n: int) -> PlayerNeeds:
    left: dict[int, list[int]] = {s.number: list(data.future_margins) for s in data.players}
    for g in data.pending:
        left[g.player1].append(g.margin)
        left[g.player2].append(g.margin)

    def best(s: Standing) -> tuple:
        games = left[s.number]
        return _key(s, s.wins + len(games), s.losses, s.spread + sum(games))

    def worst(s: Standing) -> tuple:
        games = left[s.number]
        return _key(s, s.wins, s.losses + len(games), s.spread - sum(games))

    def ahead(a: tuple, b: tuple, *, strict: bool) -> bool:
        if data.spread_decides:
            return a < b
        return a[:2] < b[:2] if strict else a[:2] <= b[:2]

    me = by_number[n]
    out = PlayerNeeds(n, "bounds")
    if not me.ranked:
        return out
    others = [s for s in data.players if s.ranked and s.number != n]
    surely = sum(1 for s in others if ahead(worst(s), best(me), strict=True))
    maybe = sum(1 for s in others if ahead(best(s), worst(me), strict=False))
    for k in range(1, data.places + 1):
        if surely >= k:
            out.needs.append(Need(n, k, "out", False))
        elif maybe <= k - 1:
            out.needs.append(Need(n, k, "clinched", False, ((),)))
        else:
            out.needs.append(Need(n, k, "open", False))
    out.summary = _bounds_summary(out.needs, data.places)
    return out


def _bounds_summary(needs: list[Need], places: int) -> list[str]:
    return [_line_text(line) for line in _bounds_lines(needs, places)]


def _bounds_lines(needs: list[Need], places: int) -> list[NeedLine]:
    clinched = [d.place for d in needs if d.status == "clinched"]
    reachable = [d.place for d in needs if d.status != "out"]
    if clinched:
        k = min(clinched)
        if k == places and k > 1:
            return [NeedLine("clinched_prize", k, places)]
        return [NeedLine("clinched_place", k, places)]
    if not reachable:
        return [NeedLine("no_prize", 0, places)]
    if min(reachable) > 1:
        return [NeedLine("not_above", min(reachable), places)]
    return [NeedLine("contention", 1, places)]


# --------------------------------------------------------------------------- exact


@dataclass
class _Span:
    """Part of P's result class where who is surely ahead and who may be is the same."""

    start: int
    end: int
    surely: int  # at most places (more is the same: out of every prize place)
    contingent: frozenset[int]


def _threshold(me: Standing, q: Standing, rec_p: tuple, q_margin: int) -> tuple[int, int, int]:
    """Q (margin y in their own game) is ahead of P (margin x) exactly when
    ``y >= clamp(x + d, lo, hi1)``; returns (d, lo, hi1). A constant is lo == hi1."""
    tb = 0 if (q.tiebreak, q.number) < (me.tiebreak, me.number) else 1
    d = me.spread - q.spread + tb
    for lo, hi in _classes(q_margin):
        rec_q = _record(q, lo)
        if rec_q < rec_p:
            return 0, lo, lo  # a better record: ahead whatever the spread
        if rec_q == rec_p:
            return d, lo, hi + 1
    return 0, q_margin + 1, q_margin + 1  # never ahead


def _spans(
    ctx: _Ctx, me: Standing, lo: int, hi: int, has_game: bool, band: tuple[int, list[Standing]]
) -> list[_Span]:
    """Sweep P's margin over [lo, hi] (one result class) and cut it where a player turns
    from surely ahead to contingent to never ahead."""
    n = me.number
    dw, dl = _result(lo) if has_game else (0.0, 0.0)
    rec_p = (-(me.wins + dw), me.losses + dl)
    events: dict[int, list[tuple[int, int, Any]]] = {}  # x -> changes (delta surely, ...)
    always, middle = band
    surely0 = always
    contingent0: set[int] = set()
    opponent = ctx.game_of[n][0] if has_game else None
    for q in middle:
        if q.number == opponent or q.number not in ctx.game_of:
            # Q's result is P's (mirrored) or already known: ahead while x <= cut
            cut = _cut_x(me, q, rec_p, opponent == q.number, has_game, lo)
            if cut >= lo:
                surely0 += 1
                if cut < hi:
                    events.setdefault(cut + 1, []).append((-1, q.number, None))
            continue
        q_margin = ctx.game_of[q.number][1]
        d, clo, chi1 = _threshold(me, q, rec_p, q_margin)

        def first_at_least(t: int, d: int = d, clo: int = clo, chi1: int = chi1) -> int:
            """The first x in [lo, hi] with clamp(x + d, clo, chi1) >= t (hi + 1: none)."""
            if clo >= t:
                return lo
            if chi1 < t or clo == chi1:
                return hi + 1
            return max(lo, t - d) if t - d <= hi else hi + 1

        a = first_at_least(-q_margin + 1)  # from here Q is not ahead for every y
        b = first_at_least(q_margin + 1)  # from here Q is never ahead
        # state at x = lo
        if a > lo:
            surely0 += 1
            if a <= hi:
                events.setdefault(a, []).append((-1, q.number, "in" if b > a else None))
        elif b > lo:
            contingent0.add(q.number)
        if b <= hi and b > lo:
            if b > a:
                events.setdefault(b, []).append((0, q.number, "out"))
    spans: list[_Span] = []
    surely = surely0
    contingent = set(contingent0)
    xs = sorted(events)
    starts = [lo, *[x for x in xs if lo < x <= hi]]
    for i, x in enumerate(starts):
        if i > 0:
            for delta, q, change in events[x]:
                surely += delta
                if change == "in":
                    contingent.add(q)
                elif change == "out":
                    contingent.discard(q)
        end = starts[i + 1] - 1 if i + 1 < len(starts) else hi
        span = _Span(x, end, min(surely, ctx.places), frozenset(contingent))
        if spans and spans[-1].surely == span.surely and spans[-1].contingent == span.contingent:
            spans[-1].end = end
        else:
            spans.append(span)
    return spans


def _cut_x(me: Standing, q: Standing, rec_p: tuple, mirrored: bool, has_game: bool, lo: int) -> int:
    """Q ahead of P exactly when P's margin x <= the returned cut (within P's class)."""
    big = 10**9
    tb = 1 if (q.tiebreak, q.number) < (me.tiebreak, me.number) else 0
    if mirrored:
        # Q is P's opponent: Q's margin is -x, Q's result the mirror of P's class
        dw, dl = _result(-lo)
        rec_q = (-(q.wins + dw), q.losses + dl)
        if rec_q < rec_p:
            return big
        if rec_q > rec_p:
            return -big
        # q.spread - x > me.spread + x  (or equal and Q first on the tiebreak)
        # 2x < q.spread - me.spread + tb
        return (q.spread - me.spread + tb - 1) // 2
    rec_q = (-q.wins, q.losses)
    if rec_q < rec_p:
        return big
    if rec_q > rec_p:
        return -big
    if not has_game:
        return big if (q.spread, tb) > (me.spread, 0) else -big
    # q.spread > me.spread + x, or equal and tb
    return q.spread - me.spread - 1 + tb


def _not_ahead(ctx: _Ctx, me: Standing, q: int, rec_p: tuple, has_game: bool) -> Condition:
    """The condition that Q does not finish ahead of P (Q contingent: has a game of their
    own, not against P)."""
    qs = ctx.by_number[q]
    q_margin = ctx.game_of[q][1]
    d, lo, hi1 = _threshold(me, qs, rec_p, q_margin)
    if lo == hi1:
        return Margin(q, -q_margin, lo - 1, q_margin)
    if not has_game:
        return Margin(q, -q_margin, max(lo, min(hi1, d)) - 1, q_margin)
    return Behind(q, me.number, d, lo, hi1, q_margin)


def _exact(ctx: _Ctx, n: int) -> PlayerNeeds:
    me = ctx.by_number[n]
    out = PlayerNeeds(n, "exact")
    if not me.ranked:
        return out
    has_game = n in ctx.game_of
    bound = ctx.game_of[n][1] if has_game else 0
    classes = _classes(bound) if has_game else [(0, 0)]
    band = ctx.band(me)
    if band[0] >= ctx.places:  # enough players ahead of P whatever happens: out of every place
        out.needs = [Need(n, k, "out", True) for k in range(1, ctx.places + 1)]
        out.summary = summarize(out, ctx.places)
        return out
    per_class = []
    for lo, hi in classes:
        dw, dl = _result(lo) if has_game else (0.0, 0.0)
        rec_p = (-(me.wins + dw), me.losses + dl)
        spans = _spans(ctx, me, lo, hi, has_game, band)
        conds = {}
        thresholds = {}
        for s in spans:
            for q in s.contingent:
                if q not in conds:
                    conds[q] = _not_ahead(ctx, me, q, rec_p, has_game)
                    thresholds[q] = _threshold(me, ctx.by_number[q], rec_p, ctx.game_of[q][1])
        most = [
            _most_ahead(ctx, s, thresholds) if len(s.contingent) > 1 else len(s.contingent)
            for s in spans
        ]
        per_class.append((lo, hi, spans, conds, most))
    for k in range(1, ctx.places + 1):
        out.needs.append(_need(ctx, n, k, has_game, per_class, bound))
    out.summary = summarize(out, ctx.places)
    return out


def _most_ahead(ctx: _Ctx, span: _Span, thresholds: dict[int, tuple[int, int, int]]) -> int:
    """How many of the span's contingent players can be ahead at once: two who play each
    other both only when their thresholds leave room (one's win can be the other's loss only
    when both are level on a class that allows it)."""
    count = 0
    seen: set[int] = set()
    for q in sorted(span.contingent):
        if q in seen:
            continue
        seen.add(q)
        opp = ctx.game_of[q][0]
        if opp in span.contingent:
            seen.add(opp)

            def a(p: int) -> int:
                d, lo, hi1 = thresholds[p]
                return max(lo, min(hi1, span.start + d))

            count += 2 if a(q) + a(opp) <= 0 else 1
        else:
            count += 1
    return count


def _feasible(ctx: _Ctx, conds: frozenset[Condition], x: int) -> bool:
    """Whether the conditions on the others can all hold together when P's margin is x (two
    conditions on one game may exclude each other)."""
    ranges: dict[int, list[int]] = {}
    for c in conds:
        opp, bound = ctx.game_of[c.player]
        key, sign = (c.player, 1) if c.player < opp else (opp, -1)
        span = ranges.setdefault(key, [-bound, bound])
        lo, hi = (c.lo, c.hi) if isinstance(c, Margin) else (-bound, c.limit(x) - 1)
        if sign == 1:
            span[0], span[1] = max(span[0], lo), min(span[1], hi)
        else:
            span[0], span[1] = max(span[0], -hi), min(span[1], -lo)
        if span[0] > span[1]:
            return False
    return True


def _trimmed(ctx: _Ctx, merged: list) -> list:
    """Each alternative without the margins of P at which its conditions cannot hold together
    (holding is easier the more P wins by), and without the ones that never hold."""
    out = []
    for r, cset in merged:
        if r is None:
            if _feasible(ctx, cset, 0):
                out.append((r, cset))
            continue
        start, end = r
        if not cset or _feasible(ctx, cset, start):
            out.append((r, cset))
            continue
        if not _feasible(ctx, cset, end):
            continue
        lo, hi = start, end
        while lo < hi:
            mid = (lo + hi) // 2
            if _feasible(ctx, cset, mid):
                hi = mid
            else:
                lo = mid + 1
        out.append(((lo, end), cset))
    return out


def _need(ctx: _Ctx, n: int, k: int, has_game: bool, per_class: list, bound: int) -> Need:
    need = _need_ways(ctx, n, k, has_game, per_class, bound, exact=True)
    if need is None:  # too many ways to read: a sufficient few, marked as examples
        need = _need_ways(ctx, n, k, has_game, per_class, bound, exact=False)
    assert need is not None
    return need


def _need_ways(
    ctx: _Ctx, n: int, k: int, has_game: bool, per_class: list, bound: int, *, exact: bool
) -> Need | None:
    """The need for place k; with ``exact``, None when the exact alternatives would be far
    more than a player reads (then each span's one sufficient way is taken instead)."""
    alts: list[tuple[tuple[int, int] | None, frozenset[Condition]]] = []
    everywhere = True
    for _lo, _hi, spans, conds, most in per_class:
        for i, s in enumerate(spans):
            budget = k - 1 - s.surely
            if budget < 0:
                everywhere = False
                continue
            if len(s.contingent) <= budget or most[i] <= budget:
                chosen = [frozenset()]
            else:
                everywhere = False
                ordered = sorted(s.contingent)
                count = comb(len(ordered), budget)
                if not exact:
                    chosen = [frozenset(ordered)]
                elif count > _MAX_SUBSETS or len(alts) + count > _MAX_RAW:
                    return None
                else:
                    chosen = [
                        frozenset(ordered) - frozenset(f) for f in combinations(ordered, budget)
                    ]
            for need_set in chosen:
                start, end = _widen(spans, i, k, need_set)
                cset = _simplified([conds[q] for q in need_set], start, end)
                if cset is not None:
                    alts.append(((start, end) if has_game else None, cset))
    if everywhere:
        return Need(n, k, "clinched", True, ((),))
    merged = _merge(_trimmed(ctx, _merge(alts)))
    if not merged:
        return Need(n, k, "out", exact)
    if len(merged) > MAX_ALTERNATIVES:
        exact = False
        merged = sorted(merged, key=lambda a: (len(a[1]), -(a[0][1] - a[0][0]) if a[0] else 0))
        merged = merged[:MAX_ALTERNATIVES]
    alternatives = tuple(
        tuple(
            ([Margin(n, r[0], r[1], bound)] if r is not None else [])
            + sorted(cset, key=lambda c: (c.player, repr(c)))
        )
        for r, cset in merged
    )
    return Need(n, k, "open", exact, alternatives)


def _simplified(conds: list[Condition], start: int, end: int) -> frozenset[Condition] | None:
    """The conditions over P's margins ``start..end``: a Behind whose limit does not move
    there is a plain Margin; a condition always true there is dropped; None when one can
    never hold there (the alternative is empty)."""
    out = []
    for c in conds:
        if isinstance(c, Behind):
            low, high = c.limit(start), c.limit(end)
            if low == high:
                c = Margin(c.player, -c.bound, low - 1, c.bound)
            elif low > c.bound:
                continue
            elif high <= -c.bound:
                return None
        if isinstance(c, Margin):
            if c.hi >= c.bound and c.lo <= -c.bound:
                continue
            if c.hi < c.lo or c.hi < -c.bound:
                return None
        out.append(c)
    return frozenset(out)


def _widen(spans: list[_Span], i: int, k: int, need_set: frozenset[int]) -> tuple[int, int]:
    """Stretch an alternative's range over the neighbouring spans where its conditions on the
    others are already enough ("win and #5 loses" rather than "win by 1-86 and #5 loses")."""

    def enough(s: _Span) -> bool:
        return s.surely + len(s.contingent - need_set) <= k - 1

    a = i
    while a > 0 and enough(spans[a - 1]):
        a -= 1
    b = i
    while b + 1 < len(spans) and enough(spans[b + 1]):
        b += 1
    return spans[a].start, spans[b].end


def _merge(alts: list) -> list:
    """Alternatives with the same conditions on the others and touching ranges of P's margin
    are one; an alternative implied by another is dropped."""
    groups: dict[frozenset, list] = {}
    for r, cset in alts:
        groups.setdefault(cset, []).append(r)
    merged = []
    for cset, ranges in groups.items():
        if None in ranges:
            merged.append((None, cset))
            continue
        ranges.sort()
        joined = [list(ranges[0])]
        for a, b in ranges[1:]:
            if a <= joined[-1][1] + 1:
                joined[-1][1] = max(joined[-1][1], b)
            else:
                joined.append([a, b])
        merged.extend(((a, b), cset) for a, b in joined)
    kept = []
    for i, (r, cset) in enumerate(merged):
        implied = False
        for j, (r2, c2) in enumerate(merged):
            if i == j or len(c2) > len(cset):
                continue
            if r2 is not None and (r is None or r2[0] > r[0] or r[1] > r2[1]):
                continue
            if c2 <= cset and (c2 != cset or r2 != r):
                implied = True
                break
        if not implied:
            kept.append((r, cset))
    kept.sort(key=lambda a: (-(a[0][0]) if a[0] else 0, len(a[1])))
    return kept


# --------------------------------------------------------------------------- wording


def _signed(c: int) -> str:
    return "" if c == 0 else f" + {c}" if c > 0 else f" − {-c}"


def _margin_text(lo: int, hi: int, bound: int, you: bool) -> str:
    """A margin range as a result: "win by 87 or more", "do not lose by more than 40"."""
    win, lose, tie = ("win", "lose", "tie") if you else ("wins", "loses", "ties")
    neg = "do not" if you else "does not"
    top, bottom = hi >= bound, lo <= -bound
    if lo >= 1:
        if top:
            return win if lo == 1 else f"{win} by {lo} or more"
        if lo == hi:
            return f"{win} by exactly {lo}"
        return f"{win} by {hi} or less" if lo == 1 else f"{win} by {lo} to {hi}"
    if hi <= -1:
        if bottom:
            return lose if hi == -1 else f"{lose} by {-hi} or more"
        if lo == hi:
            return f"{lose} by exactly {-lo}"
        return f"{lose} by {-lo} or less" if hi == -1 else f"{lose} by {-hi} to {-lo}"
    if lo == hi == 0:
        return tie
    if top and bottom:
        return "whatever the result" if you else "whatever their result"
    if top:
        return f"{win} or {tie}" if lo == 0 else f"{neg} lose by more than {-lo}"
    if bottom:
        return f"{neg} win" if hi == 0 else f"{neg} win by more than {hi}"
    if lo == 0:
        return f"{tie} or {win} by {hi} or less"
    if hi == 0:
        return f"{tie} or {lose} by {-lo} or less"
    return f"{neg} lose by more than {-lo} nor {win.rstrip('s')} by more than {hi}"


def _condition_text(c: Condition, mine: Margin | None, names: Mapping[int, str]) -> str:
    who = names.get(c.player, f"#{c.player}")
    if isinstance(c, Margin):
        return f"{who} {_margin_text(c.lo, c.hi, c.bound, you=False)}"
    limit = c.offset - 1  # Q's margin at most P's margin + limit
    win = mine is not None and mine.lo >= 1
    loss = mine is not None and mine.hi <= -1
    if c.lo == 1:
        if win:
            most = f"your winning margin{_signed(limit)}"
        elif loss:
            most = f"{limit} minus your losing margin"
        else:
            most = f"your margin{_signed(limit)}"
        return f"{who} does not win, or wins by no more than {most}"
    if c.lo == 0:
        need = _margin_text(c.hi1 - c.offset, MARGIN_BOUND * 4, MARGIN_BOUND * 4, you=True)
        return f"{who} loses (or ties, if you {need})"
    if win:
        return f"{who} loses by at least {-limit} minus your winning margin"
    if loss:
        return f"{who} loses by at least your losing margin{_signed(-limit)}"
    return f"{who} loses, by enough that their margin is at most yours{_signed(limit)}"


def need_ways(need: Need, names: Mapping[int, str] | None = None) -> list[list[str]]:
    """Each alternative of the need as its conditions in words, the player's own first:
    [["you win by 87 or more"], ["you win", "#5 Eads, Ed loses"]]."""
    names = names or {}
    ways = []
    for alt in need.alternatives:
        mine = next((c for c in alt if isinstance(c, Margin) and c.player == need.player), None)
        words = []
        if mine is not None:
            words.append("you " + _margin_text(mine.lo, mine.hi, mine.bound, you=True))
        words += [_condition_text(c, mine, names) for c in alt if c is not mine]
        ways.append(words)
    return ways


def _target(need: Need) -> str:
    target = "1st" if need.place == 1 else f"{ordinal(need.place)} or better"
    return f"{target[0].upper()}{target[1:]}"


def describe(need: Need, names: Mapping[int, str] | None = None) -> str:
    """The need in words, to the player: "1st if you win by 87 or more, or win and #5
    loses"."""
    target = "1st" if need.place == 1 else f"{ordinal(need.place)} or better"
    if need.status == "clinched":
        return f"Clinched {target}."
    if need.status == "out":
        return f"Can no longer finish {target}."
    if not need.alternatives:
        return f"{target[0].upper()}{target[1:]}: still possible."
    parts = [" and ".join(w) if w else "whatever happens" for w in need_ways(need, names)]
    head = _target(need)
    text = f"{head} if " + "; or ".join(parts)
    if not need.exact:
        text = f"{head}, for example if " + "; or ".join(parts)
    return text + "."


@dataclass(frozen=True)
class NeedGroup:
    """One statement of a player's needs, with its parts for a page that shows the few
    things that matter first and the rest behind a tap: ``text`` is the whole statement (as
    the command and the API give it); for a place still open, ``head`` ("2nd or better"),
    ``common`` (the conditions every way shares: what the player needs whatever else
    happens) and ``ways`` (each way's other conditions, simplest first), ``example`` when the
    ways are a sufficient few rather than all of them."""

    text: str
    head: str = ""
    common: tuple[str, ...] = ()
    ways: tuple[tuple[str, ...], ...] = ()
    example: bool = False


def _group(need: Need, names: Mapping[int, str] | None) -> NeedGroup:
    text = describe(need, names)
    if need.status != "open" or not need.alternatives:
        return NeedGroup(text)
    ways = need_ways(need, names)
    common = tuple(c for c in ways[0] if all(c in w for w in ways[1:])) if len(ways) > 1 else ()
    if any(all(c in common for c in w) for w in ways):
        common = ()  # one way is the shared part alone: nothing to factor out
    # the simplest ways first: they are the ones a player can follow at the board
    rest = sorted((tuple(c for c in w if c not in common) for w in ways), key=len)
    return NeedGroup(text, _target(need), common, tuple(rest), not need.exact)


def summary_lines(pn: PlayerNeeds, places: int) -> list[NeedLine]:
    """A player's needs in a few statements, as data: the places still open (with their
    conditions when exact), the best place clinched, and what is out of reach. The shell
    words them in the reader's language; ``summarize_groups`` in English."""
    if pn.mode == "final" or not pn.needs:
        return [NeedLine("finished", pn.place, places)] if pn.place is not None else []
    if pn.mode == "bounds":
        return _bounds_lines(pn.needs, places)
    lines: list[NeedLine] = []
    clinched = [d.place for d in pn.needs if d.status == "clinched"]
    best_clinched = min(clinched) if clinched else None
    for d in pn.needs:
        if d.status == "open" and (best_clinched is None or d.place < best_clinched):
            lines.append(NeedLine("need", d.place, places, d))
    reachable = [d.place for d in pn.needs if d.status != "out"]
    if best_clinched is not None and reachable and min(reachable) == best_clinched > 1:
        return [*lines, NeedLine("finishes", best_clinched, places)]
    if best_clinched is not None:
        if best_clinched == places > 1:
            lines.append(NeedLine("clinched_prize", places, places))
        else:
            lines.append(NeedLine("need", best_clinched, places, pn.needs[best_clinched - 1]))
    if not reachable:
        lines.append(NeedLine("no_prize", 0, places))
    elif min(reachable) > 1:
        lines.append(NeedLine("not_above", min(reachable), places))
    return lines


def _line_text(line: NeedLine) -> str:
    """A statement other than a place's need, in English."""
    k = ordinal(line.place) if line.place else ""
    return {
        "finished": f"Finished {k}.",
        "clinched_place": "Clinched 1st place."
        if line.place == 1
        else f"Clinched {k} place or better.",
        "clinched_prize": f"Clinched a prize ({k} or better).",
        "no_prize": f"Can no longer finish in the prizes (top {line.places}).",
        "not_above": f"Can no longer finish above {k}.",
        "contention": "Still in contention for 1st.",
        "finishes": f"Finishes {k}: clinched, and cannot finish higher.",
    }[line.kind]


def summarize_groups(
    pn: PlayerNeeds, places: int, names: Mapping[int, str] | None = None
) -> list[NeedGroup]:
    """A player's needs in a few statements, in English (``summary_lines`` worded)."""
    return [
        _group(line.need, names) if line.need is not None else NeedGroup(_line_text(line))
        for line in summary_lines(pn, places)
    ]


def summarize(pn: PlayerNeeds, places: int, names: Mapping[int, str] | None = None) -> list[str]:
    """A player's needs in a few lines: the best place clinched, the places still open (with
    their conditions when exact), and what is out of reach."""
    return [g.text for g in summarize_groups(pn, places, names)]
