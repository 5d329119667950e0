"""The NASPA family (nsa2008, naspa2024, naspa-csw, club-third) and its relatives (wespa-tsh, aus).

All are "expected wins against actual wins times a multiplier" systems; they differ in the
expectation curve, the multiplier table, the bonus, feedback and whether long events are split.
One engine with those knobs keeps the TSH-exact details (band crossing, newcomer iteration,
rounding only at segment ends) in one place.

Speed: ratings entering a segment are whole numbers, so nearly every expectation is looked up
in a table keyed by the integer rating difference. The table holds exactly what the formula
gives, so results are bit-for-bit those of computing it each time.
"""

from __future__ import annotations

import datetime
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import NamedTuple

from .base import RatingSystem
from .model import (
    GameExplanation,
    PlayerRating,
    PreparedEvent,
    RatedPlayer,
    SegmentExplanation,
    round_half_up,
)

#: NASPA's logistic slope: E(d = 100) = 0.57903 (ratings spec rule 1).
NSA_SLOPE = 0.0031879
#: Newcomers with no rated opponent start the iteration here (rule 7).
NEWCOMER_SEED = 1500
NEWCOMER_ITERATIONS = 50
SEARCH_LOW, SEARCH_HIGH = 0, 3000
NEWCOMER_FLOOR = 500
CAP_PER_WIN_SHARE = 400
BONUS_GAMES_ALLOWANCE = 5  # points per game a gain must exceed before it is doubled
FEEDBACK_DIVISOR = 20
THIRD_CAP = 50.0  # a 1/3-rated event moves a rating at most this much
TABLE_SPAN = 4000  # integer rating differences looked up rather than computed


class SegmentOutcome(NamedTuple):
    """One segment's result per player index."""

    ratings: list[int | None]  # rounded ratings out; None = still unrated
    expected: list[float]
    actual: list[float]
    games: list[int]
    explanations: list[SegmentExplanation] | None


def nsa_k(rating: float, career_games: int) -> float:
    """NASPA multiplier by rating band and experience (rule 3)."""
    seasoned = career_games >= 50
    if rating < 1800:
        return 20 if seasoned else 30
    if rating < 2000:
        return 16 if seasoned else 24
    return 10 if seasoned else 15


def _logistic(slope: float) -> Callable[[float], float]:
    def expected(d: float) -> float:
        return 1.0 / (1.0 + math.exp(-slope * d))

    return expected


def _aus_expected(d: float) -> float:
    return min(0.95, max(0.05, 0.5 + d / 1200))


# the segment ratings last computed (``EloSystem._segment_ratings``), oldest first: 64 are
# about 5 divisions' estimates by round of 12 rounds; a few MB at 500 players
SEGMENT_MEMO_SIZE = 64
_SEGMENT_MEMO: OrderedDict[tuple, tuple[int | None, ...]] = OrderedDict()
_SEGMENT_LOCK = threading.Lock()  # a page's threads share the memo


def clear_segment_memo() -> None:
    """Forget the remembered segment ratings (tests; a benchmark's cold start)."""
    with _SEGMENT_LOCK:
        _SEGMENT_MEMO.clear()


class EloSystem(RatingSystem):
    """A NASPA-style system; the knobs are the differences the spec lists between systems."""

    expectancy_by_difference = True

    def __init__(
        self,
        name: str,
        label: str,
        *,
        expected: Callable[[float], float],
        k: Callable[[float, int], float] = nsa_k,
        band_crossing: bool = True,
        bonus_factor: float = 1.0,
        feedback: bool = True,
        splits: bool = True,
        career_per_segment: bool = False,
        third: bool = False,
        is_estimate: bool = False,
    ) -> None:
        self.name = name
        self.label = label
        self._expected = expected
        self._k = k
        self.band_crossing = band_crossing
        self.bonus_factor = bonus_factor
        self.feedback = feedback and bonus_factor > 0
        self.splits = splits
        self.career_per_segment = career_per_segment
        self.third = third
        self.is_estimate = is_estimate
        self._table = {d: expected(d) for d in range(-TABLE_SPAN, TABLE_SPAN + 1)}

    # -- the pieces -------------------------------------------------------------------------

    def expected(self, d: float) -> float:
        """Expected score for a rating difference d (self minus opponent)."""
        e = self._table.get(d)
        return self._expected(d) if e is None else e

    def expected_score(self, a: RatedPlayer, b: RatedPlayer) -> float:
        return self.expected((a.rating or 0) - (b.rating or 0))

    def apply_multiplier(
        self, rating: float, excess: float, career_games: int
    ) -> tuple[float, list[tuple[float, float]]]:
        """rating + K * excess, switching K where the rating crosses a band (rule 3).

        Only the excess needed to reach the boundary is spent at the old K; going up the
        boundaries are 1800 and 2000. Going down, a rating that falls below 1800 (2000) from on
        or above it, even by a fraction of a point, is put at 1799 (1999) and the excess that
        move does not account for (which turns positive when the drop was under a point) is
        spent at the lower band's K: docs/ratings.md rule 3, vector 11 (TSH printed B 1800).
        """
        k = self._k
        if not self.band_crossing or excess == 0:
            kk = k(rating, career_games)
            return rating + kk * excess, [(kk, excess)]
        steps: list[tuple[float, float]] = []
        r = rating
        while True:
            kk = k(r, career_games)
            if excess > 0:
                boundary = 1800 if r < 1800 else 2000 if r < 2000 else None
                if boundary is None or r + kk * excess < boundary:
                    break
            else:
                edge = 2000 if r >= 2000 else 1800 if r >= 1800 else None
                if edge is None or r + kk * excess >= edge:
                    break
                boundary = edge - 1
            spent = (boundary - r) / kk
            steps.append((kk, spent))
            excess -= spent
            r = boundary
        steps.append((kk, excess))
        return r + kk * excess, steps

    def newcomer_estimates(
        self,
        newcomers: list[int],
        rin: list[int | None],
        opps: list[list[int]],
        acts: list[list[float]],
    ) -> tuple[dict[int, float], dict[int, float]]:
        """Iterated performance ratings of all the segment's newcomers together (rule 7).

        As TSH's ``Ratings::Elo::RateNewcomersCorrectly``: every pass works from the previous
        pass's estimates (all newcomers are revised at once, then the new values replace the
        old), until a pass changes nothing or 50 passes are done. Each result is floored at
        500 and capped at the best opponent + 400 x wins / games, the best opponent being the
        highest pre-event rating among rated opponents or, for a newcomer who met none, the
        highest current estimate among newcomer opponents. Should 50 passes not settle, TSH
        runs 50 more (capped by rated opponents only) and takes each newcomer's mean over
        them. Returns the estimates and, for the newcomers held down by it, the cap.
        """
        est: dict[int, float] = {}
        wins: dict[int, float] = {}
        best_rated: dict[int, int | None] = {}
        for p in newcomers:
            rated = [rin[o] for o in opps[p] if rin[o] is not None]
            est[p] = sum(rated) / len(rated) if rated else NEWCOMER_SEED
            n = len(opps[p])
            actual = sum(acts[p])
            wins[p] = 0.05 * n if actual == 0 else 0.95 * n if actual == n else actual
            best_rated[p] = max(rated) if rated else None
        held: dict[int, float] = {}
        for _ in range(NEWCOMER_ITERATIONS):
            est, held, changed = self._newcomer_pass(
                newcomers, rin, opps, acts, est, wins, best_rated, unrated_cap=True
            )
            if not changed:
                return est, held
        totals = dict.fromkeys(newcomers, 0.0)
        for _ in range(NEWCOMER_ITERATIONS):
            est, held, _changed = self._newcomer_pass(
                newcomers, rin, opps, acts, est, wins, best_rated, unrated_cap=False
            )
            for p in newcomers:
                totals[p] += est[p]
        return {p: totals[p] / NEWCOMER_ITERATIONS for p in newcomers}, held

    def _newcomer_pass(
        self,
        newcomers: list[int],
        rin: list[int | None],
        opps: list[list[int]],
        acts: list[list[float]],
        prev: dict[int, float],
        wins: dict[int, float],
        best_rated: dict[int, int | None],
        *,
        unrated_cap: bool,
    ) -> tuple[dict[int, float], dict[int, float], bool]:
        """One pass of the iteration: every newcomer against the previous pass's estimates."""
        table_get = self._table.get
        expected = self._expected
        out: dict[int, float] = {}
        held: dict[int, float] = {}
        changed = False
        for p in newcomers:
            opp_r = [rin[o] if rin[o] is not None else prev[o] for o in opps[p]]
            w = wins[p]
            lo, hi = SEARCH_LOW, SEARCH_HIGH
            mid = lo
            while hi - lo > 1:
                mid = (lo + hi) // 2
                s = 0.0
                for x in opp_r:
                    d = mid - x
                    e = table_get(d)
                    s += expected(d) if e is None else e
                if s > w:
                    hi = mid
                else:
                    lo = mid
            r: float = max(mid, NEWCOMER_FLOOR)
            best = best_rated[p]
            if best is None and unrated_cap:
                best = max(prev[o] for o in opps[p])
            if best:
                cap = best + CAP_PER_WIN_SHARE * sum(acts[p]) / len(opps[p])
                if r > cap:
                    r = cap
                    held[p] = cap
            if r != prev[p]:
                changed = True
            out[p] = r
        return out, held, changed

    # -- one segment ------------------------------------------------------------------------

    def rate_segment(
        self,
        rin: list[int | None],
        careers: list[int],
        games: list[tuple[int, int, int, int, int]],
        *,
        detail: bool = False,
        ids: list[Hashable] | None = None,
        rounds: tuple[int, int] = (0, 0),
    ) -> SegmentOutcome:
        """Rate one segment against the ratings entering it; output is rounded (rule 6)."""
        n = len(rin)
        opps: list[list[int]] = [[] for _ in range(n)]
        acts: list[list[float]] = [[] for _ in range(n)]
        for _r, a, b, sa, sb in games:
            w = 1.0 if sa > sb else 0.5 if sa == sb else 0.0
            opps[a].append(b)
            acts[a].append(w)
            opps[b].append(a)
            acts[b].append(1.0 - w)
        newcomers = [p for p in range(n) if rin[p] is None and opps[p]]
        est: dict[int, float] = {}
        held: dict[int, float] = {}
        if newcomers:
            est, held = self.newcomer_estimates(newcomers, rin, opps, acts)
        used = [r if r is not None else est.get(p) for p, r in enumerate(rin)]
        table_get = self._table.get
        expected = self._expected
        out_f: list[float | None] = list(used)
        gains: list[tuple[int, float]] = []
        info: list[tuple] | None = [()] * n if detail else None
        exp_sums = [0.0] * n
        act_sums = [sum(a) for a in acts]
        third = self.third
        bonus_factor = self.bonus_factor
        for p in range(n):
            my_opps = opps[p]
            if not my_opps:
                continue
            me = rin[p]
            if me is None:
                exp_sums[p] = sum(self.expected(est[p] - used[o]) for o in my_opps)
                if detail:
                    info[p] = (exp_sums[p], (), 0.0, 0.0, 0.0)
                continue
            exp_sum = 0.0
            for o in my_opps:
                d = me - used[o]
                e = table_get(d)
                exp_sum += expected(d) if e is None else e
            exp_sums[p] = exp_sum
            excess = act_sums[p] - exp_sum
            new, steps = self.apply_multiplier(me, excess, careers[p])
            change = new - me
            applied = change
            bonus = 0.0
            if third:
                applied = max(-THIRD_CAP, min(THIRD_CAP, change / 3))
            elif bonus_factor:
                accel = change - BONUS_GAMES_ALLOWANCE * len(my_opps)
                if accel > 0:
                    bonus = bonus_factor * accel
                    gains.append((p, accel))
            out_f[p] = me + applied + bonus
            if detail:
                info[p] = (exp_sum, tuple(steps), change, bonus, applied)
        fed = [0.0] * n if detail else None
        if self.feedback:
            for p, accel in gains:
                share = accel / FEEDBACK_DIVISOR
                for o in opps[p]:
                    if rin[o] is not None:
                        out_f[o] += share
                        if fed is not None:
                            fed[o] += share
        out: list[int | None] = [None if x is None else round_half_up(x) for x in out_f]
        counts = [len(o) for o in opps]
        if not detail:
            return SegmentOutcome(out, exp_sums, act_sums, counts, None)
        expl: list[SegmentExplanation] = []
        for p in range(n):
            my_opps = opps[p]
            if not my_opps:
                expl.append(
                    SegmentExplanation(
                        rounds[0], rounds[1], rin[p], 0, 0.0, 0.0, rating_out=out[p] or 0
                    )
                )
                continue
            exp_sum, steps, change, bonus, applied = info[p]
            notes: tuple[str, ...] = ()
            if third and rin[p] is not None:
                limit = " (held at the 50-point limit)" if abs(change / 3) > THIRD_CAP else ""
                notes = (f"1/3-rated: {change:+.1f} / 3 = {applied:+.1f}{limit}",)
            expl.append(
                SegmentExplanation(
                    first_round=rounds[0],
                    last_round=rounds[1],
                    rating_in=rin[p],
                    games=len(my_opps),
                    expected=exp_sum,
                    actual=sum(acts[p]),
                    multipliers=steps,
                    change=change,
                    bonus=bonus,
                    feedback=fed[p],
                    rating_out=out[p],
                    newcomer=rin[p] is None,
                    performance_cap=held.get(p),
                    notes=notes,
                )
            )
        # positional and with the table looked up inline: two of these per game of a history
        details = [e.game_details for e in expl]
        who = ids if ids else range(n)
        for r, a, b, sa, sb in games:
            for me, o, s_me, s_o in ((a, b, sa, sb), (b, a, sb, sa)):
                their = used[o]
                d = used[me] - their
                e = table_get(d)
                details[me].append(
                    GameExplanation(
                        r,
                        who[o],
                        their,
                        expected(d) if e is None else e,
                        1.0 if s_me > s_o else 0.5 if s_me == s_o else 0.0,
                        s_me,
                        s_o,
                    )
                )
        return SegmentOutcome(out, exp_sums, act_sums, counts, expl)

    # -- whole events -----------------------------------------------------------------------

    def rate_prepared(
        self, ev: PreparedEvent, *, explain: bool = True, date: datetime.date | None = None
    ) -> dict[Hashable, PlayerRating]:
        n = len(ev.ids)
        state: list[int | None] = list(ev.ratings)
        careers = list(ev.careers)
        played = [0] * n
        expected = [0.0] * n
        actual = [0.0] * n
        segs: list[list[SegmentExplanation]] = [[] for _ in range(n)]
        games = ev.games
        i = 0
        for first, last in self.segment_plan(ev.configured_rounds):
            j = i
            while j < len(games) and games[j][0] <= last:
                j += 1
            seg_games = games[i:j]
            i = j
            seg = self.rate_segment(
                state, careers, seg_games, detail=explain, ids=ev.ids, rounds=(first, last)
            )
            for p in range(n):
                played[p] += seg.games[p]
                expected[p] += seg.expected[p]
                actual[p] += seg.actual[p]
                if self.career_per_segment:
                    careers[p] += seg.games[p]
                if seg.explanations is not None:
                    segs[p].append(seg.explanations[p])
            state = seg.ratings
        out: dict[Hashable, PlayerRating] = {}
        for p, pid in enumerate(ev.ids):
            old_games = ev.careers[p]
            out[pid] = PlayerRating(
                id=pid,
                old=ev.ratings[p],
                new=state[p] or 0,
                old_games=old_games,
                new_games=old_games + played[p],
                expected=expected[p],
                actual=actual[p],
                segments=segs[p],
                system_label=self.label,
            )
        return out

    def _segment_ratings(
        self,
        rin: list[int | None],
        careers: list[int],
        games: list[tuple[int, int, int, int, int]],
    ) -> list[int | None]:
        """``rate_segment(rin, careers, games).ratings``, remembered by its whole input.

        Why: each new result is a new version of the pages, and every version re-rated rounds
        1..r for each r; a result in round 12 changes none of the inputs of rounds 1..11, so
        those are looked up (the same entering ratings, careers and games in the same order:
        the same numbers by construction). A copy is returned: callers may not share it."""
        key = (tuple(rin), tuple(careers), tuple(games))
        memo = _SEGMENT_MEMO
        with _SEGMENT_LOCK:
            hit = memo.get((self, key))
            if hit is not None:
                memo.move_to_end((self, key))
                return list(hit)
        hit = tuple(self.rate_segment(rin, careers, games).ratings)
        with _SEGMENT_LOCK:
            memo[(self, key)] = hit
            while len(memo) > SEGMENT_MEMO_SIZE:
                memo.popitem(last=False)
        return list(hit)

    def estimates(self, ev: PreparedEvent, through_round: int) -> list[list[int]]:
        """TSH's in-event estimates, rating each finished segment only once (rule 9)."""
        n = len(ev.ids)
        out: list[list[int]] = [[] for _ in range(n)]
        state: list[int | None] = list(ev.ratings)
        careers = list(ev.careers)
        by_round: dict[int, list[tuple[int, int, int, int, int]]] = {}
        for g in ev.games:
            by_round.setdefault(g[0], []).append(g)
        for first, last in self.segment_plan(ev.configured_rounds):
            if first > through_round:
                break
            seg_games: list[tuple[int, int, int, int, int]] = []
            new_state = state
            for r in range(first, min(last, through_round) + 1):
                seg_games.extend(by_round.get(r, ()))
                new_state = self._segment_ratings(state, careers, seg_games)
                for p in range(n):
                    out[p].append(new_state[p] or 0)
            if self.career_per_segment:
                for _r, a, b, _sa, _sb in seg_games:
                    careers[a] += 1
                    careers[b] += 1
            state = new_state
        return out


def _nsa(name: str, label: str, **kw) -> EloSystem:
    return EloSystem(name, label, expected=_logistic(NSA_SLOPE), **kw)


def _wespa_k(rating: float, career_games: int) -> float:
    return nsa_k(rating, career_games)


def build_elo_systems() -> dict[str, EloSystem]:
    return {
        "nsa2008": _nsa("nsa2008", "NASPA (nsa2008)"),
        "naspa2024": _nsa("naspa2024", "NASPA 2024", career_per_segment=True),
        "naspa-csw": _nsa("naspa-csw", "NASPA Collins (nsa2008 rules)"),
        "club-third": _nsa(
            "club-third", "1/3-rated (club) event", third=True, bonus_factor=0.0, splits=False
        ),
        "wespa-tsh": EloSystem(
            "wespa-tsh",
            "WESPA (estimate, as TSH computes it)",
            expected=_logistic(1 / 172),
            k=_wespa_k,
            band_crossing=False,
            bonus_factor=2 / 3,
            splits=False,
            is_estimate=True,
        ),
        "aus": EloSystem(
            "aus",
            "Australian (ASPA)",
            expected=_aus_expected,
            k=lambda rating, career: 20,
            band_crossing=False,
            bonus_factor=0.0,
            splits=False,
        ),
    }
