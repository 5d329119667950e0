"""Glickman's Glicko-2, with the tournament as the rating period.

Offered beside the NASPA systems because it says how sure it is: a player back after a long
break, or new, moves quickly; a regular moves slowly. Follows Glickman's "Example of the
Glicko-2 system" (2013), steps 1-8, with his Illinois-method volatility search.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Hashable

from .base import RatingSystem
from .model import (
    GameExplanation,
    PlayerRating,
    PreparedEvent,
    RatedPlayer,
    SegmentExplanation,
    round_half_up,
)

SCALE = 173.7178
CENTER = 1500.0
NEW_RD = 350.0
#: A rated player whose deviation was never recorded (e.g. imported from another system).
UNKNOWN_RD = 200.0
NEW_VOLATILITY = 0.06
TAU = 0.5
#: Deviation never shrinks below this: a long career should not freeze a rating.
RD_FLOOR = 30.0
#: Days of inactivity that count as one empty rating period (deviation grows by volatility).
IDLE_PERIOD_DAYS = 30
CONVERGENCE = 1e-6


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by Glickman's Illinois-method root search."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    d2 = delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (d2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if d2 > phi2 + v:
        big_b = math.log(d2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > CONVERGENCE:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def glicko2_update(
    rating: float,
    deviation: float,
    volatility: float,
    results: list[tuple[float, float, float]],
    *,
    tau: float = TAU,
) -> tuple[float, float, float]:
    """One rating period for one player: results are (opponent rating, opponent RD, score).

    Returns (rating, deviation, volatility) unrounded and without the deviation floor, so it
    can be checked against Glickman's worked example.
    """
    mu = (rating - CENTER) / SCALE
    phi = deviation / SCALE
    if not results:
        return rating, math.sqrt(phi * phi + volatility * volatility) * SCALE, volatility
    v_inv = 0.0
    total = 0.0
    for opp_r, opp_rd, score in results:
        g = _g(opp_rd / SCALE)
        e = 1.0 / (1.0 + math.exp(-g * (mu - (opp_r - CENTER) / SCALE)))
        v_inv += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / v_inv
    sigma = _volatility(phi, volatility, v, v * total, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * total
    return mu_new * SCALE + CENTER, phi_new * SCALE, sigma


class Glicko2System(RatingSystem):
    name = "glicko2"
    label = "Glicko-2"
    splits = False
    expectancy_by_difference = True

    @staticmethod
    def state(p: RatedPlayer) -> tuple[float, float, float]:
        """(rating, deviation, volatility) with the defaults for what is missing."""
        if p.is_newcomer:
            return CENTER, p.deviation or NEW_RD, p.volatility or NEW_VOLATILITY
        rd = p.deviation if p.deviation else UNKNOWN_RD
        return float(p.rating), rd, p.volatility or NEW_VOLATILITY

    @staticmethod
    def _idle(rd: float, vol: float, last: datetime.date | None, date: datetime.date | None):
        """Deviation grown by the empty rating periods since the player's last event."""
        if last is None or date is None:
            return rd
        periods = max(0, (date - last).days // IDLE_PERIOD_DAYS - 1)
        phi = rd / SCALE
        return min(NEW_RD, math.sqrt(phi * phi + periods * vol * vol) * SCALE)

    def expected_score(self, a: RatedPlayer, b: RatedPlayer) -> float:
        ra, da, _ = self.state(a)
        rb, db, _ = self.state(b)
        phi = math.hypot(da, db) / SCALE
        return 1.0 / (1.0 + math.exp(-_g(phi) * (ra - rb) / SCALE))

    def rate_prepared(
        self, ev: PreparedEvent, *, explain: bool = True, date: datetime.date | None = None
    ) -> dict[Hashable, PlayerRating]:
        n = len(ev.ids)
        before = []
        for p in ev.players:
            r, rd, vol = self.state(p)
            before.append((r, self._idle(rd, vol, p.last_played, date), vol))
        results: list[list[tuple[float, float, float]]] = [[] for _ in range(n)]
        for _r, a, b, sa, sb in ev.games:
            w = 1.0 if sa > sb else 0.5 if sa == sb else 0.0
            results[a].append((before[b][0], before[b][1], w))
            results[b].append((before[a][0], before[a][1], 1.0 - w))
        out: dict[Hashable, PlayerRating] = {}
        for p, pid in enumerate(ev.ids):
            r, rd, vol = before[p]
            res = results[p]
            if res:
                new_r, new_rd, new_vol = glicko2_update(r, rd, vol, res)
                new_rd = max(RD_FLOOR, new_rd)
            else:
                new_r, new_rd, new_vol = r, rd, vol
            was_new = ev.ratings[p] is None
            new = round_half_up(new_r) if (res or not was_new) else 0
            exp_sum = 0.0
            details: list[GameExplanation] = []
            for opp_r, opp_rd, _score in res:
                e = 1.0 / (1.0 + math.exp(-_g(opp_rd / SCALE) * (r - opp_r) / SCALE))
                exp_sum += e
            segs: list[SegmentExplanation] = []
            if explain:
                k = 0
                for g in ev.games:
                    if p not in (g[1], g[2]):
                        continue
                    me_a = g[1] == p
                    o = g[2] if me_a else g[1]
                    s_me, s_o = (g[3], g[4]) if me_a else (g[4], g[3])
                    opp_r, opp_rd, score = res[k]
                    k += 1
                    details.append(
                        GameExplanation(
                            round=g[0],
                            opponent=ev.ids[o],
                            opponent_rating=opp_r,
                            expected=1.0
                            / (1.0 + math.exp(-_g(opp_rd / SCALE) * (r - opp_r) / SCALE)),
                            actual=score,
                            score=s_me,
                            opponent_score=s_o,
                        )
                    )
                segs.append(
                    SegmentExplanation(
                        first_round=1,
                        last_round=ev.configured_rounds,
                        rating_in=ev.ratings[p],
                        games=len(res),
                        expected=exp_sum,
                        actual=sum(s for _, _, s in res),
                        change=new_r - r,
                        rating_out=new,
                        newcomer=was_new,
                        notes=(f"deviation {rd:.1f} -> {new_rd:.1f}, volatility {new_vol:.5f}",),
                        game_details=details,
                    )
                )
            out[pid] = PlayerRating(
                id=pid,
                old=ev.ratings[p],
                new=new,
                old_games=ev.careers[p],
                new_games=ev.careers[p] + len(res),
                expected=exp_sum,
                actual=sum(s for _, _, s in res),
                deviation=new_rd,
                volatility=new_vol,
                segments=segs,
                system_label=self.label,
            )
        return out
