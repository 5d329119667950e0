"""The ABSP (UK) system: a performance average over the last 150 games.

Unlike the NASPA family there is no expectation curve in the published rule: each event gives a
performance ("opponents' ratings, 50 up for a win, 50 down for a loss"), and the published
rating is a weighted average of recent games, so a player's rating is what they have lately
been performing at.
"""

from __future__ import annotations

import datetime
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

WIN_POINTS = 50
CLAMP = 40  # opponents further away count as own rating +- 40
HISTORY_GAMES = 150
NEWEST_WEIGHT = 225  # weights run 225 (newest game) down to 76 (150th newest)
DEFAULT_SEED = 1500


def weighted_rating(history: tuple[float, ...]) -> float:
    """Weighted average of the last 150 game values, newest weighing 225, then 224, ..."""
    recent = history[-HISTORY_GAMES:]
    num = 0.0
    den = 0
    w = NEWEST_WEIGHT
    for value in reversed(recent):
        num += w * value
        den += w
        w -= 1
    return num / den


class AbspSystem(RatingSystem):
    name = "absp"
    label = "ABSP (UK)"
    splits = False
    expectancy_by_difference = True

    @staticmethod
    def history_of(p: RatedPlayer) -> tuple[float, ...]:
        """The player's recent game values; an unknown history counts as games at the rating."""
        if p.history is not None:
            return tuple(p.history[-HISTORY_GAMES:])
        if p.is_newcomer:
            return ()
        return (float(p.rating),) * min(p.known_career_games, HISTORY_GAMES)

    def expected_score(self, a: RatedPlayer, b: RatedPlayer) -> float:
        # The rule is at equilibrium when P(win) = 0.5 + d/100 (with d clamped at 40).
        d = max(-CLAMP, min(CLAMP, (a.rating or 0) - (b.rating or 0)))
        return 0.5 + d / (2 * WIN_POINTS)

    def rate_prepared(
        self, ev: PreparedEvent, *, explain: bool = True, date: datetime.date | None = None
    ) -> dict[Hashable, PlayerRating]:
        n = len(ev.ids)
        rin = ev.ratings
        opps: list[list[tuple[int, float, int, int, int]]] = [[] for _ in range(n)]
        for r, a, b, sa, sb in ev.games:
            w = 1.0 if sa > sb else 0.5 if sa == sb else 0.0
            opps[a].append((b, w, r, sa, sb))
            opps[b].append((a, 1.0 - w, r, sb, sa))
        rated = [x for x in rin if x is not None]
        seed = sum(rated) / len(rated) if rated else DEFAULT_SEED
        # Newcomers first get a provisional value from their rated opponents, so that other
        # newcomers can be counted at something.
        used: list[float] = [0.0] * n
        for p in range(n):
            if rin[p] is not None:
                used[p] = rin[p]
                continue
            vals = [rin[o] + WIN_POINTS * (2 * w - 1) for o, w, *_ in opps[p] if rin[o] is not None]
            used[p] = sum(vals) / len(vals) if vals else seed
        out: dict[Hashable, PlayerRating] = {}
        for p, pid in enumerate(ev.ids):
            games = opps[p]
            me = rin[p]
            hist = self.history_of(ev.players[p])
            if not games:
                new = me or 0
                new_hist = hist
                perf = None
            else:
                total = 0.0
                for o, w, *_ in games:
                    v = used[o]
                    if me is not None:
                        v = max(me - CLAMP, min(me + CLAMP, v))
                    total += v + WIN_POINTS * (2 * w - 1)
                perf = total / len(games)
                new_hist = (hist + (perf,) * len(games))[-HISTORY_GAMES:]
                new = round_half_up(weighted_rating(new_hist))
            exp_sum = sum(
                self.expected_score(
                    RatedPlayer(pid, round_half_up(used[p])), RatedPlayer(o, round_half_up(used[o]))
                )
                for o, *_ in games
            )
            actual = sum(w for _, w, *_ in games)
            segs: list[SegmentExplanation] = []
            if explain and games:
                details = [
                    GameExplanation(
                        round=r,
                        opponent=ev.ids[o],
                        opponent_rating=used[o],
                        expected=self.expected_score(
                            RatedPlayer(pid, round_half_up(used[p])),
                            RatedPlayer(o, round_half_up(used[o])),
                        ),
                        actual=w,
                        score=s_me,
                        opponent_score=s_o,
                    )
                    for o, w, r, s_me, s_o in games
                ]
                segs.append(
                    SegmentExplanation(
                        first_round=1,
                        last_round=ev.configured_rounds,
                        rating_in=me,
                        games=len(games),
                        expected=exp_sum,
                        actual=actual,
                        change=new - (me or 0),
                        rating_out=new,
                        newcomer=me is None,
                        notes=(
                            f"event performance {perf:.1f}, averaged with the last "
                            f"{len(new_hist)} games (newest weigh most)",
                        ),
                        game_details=details,
                    )
                )
            out[pid] = PlayerRating(
                id=pid,
                old=me,
                new=new,
                old_games=ev.careers[p],
                new_games=ev.careers[p] + len(games),
                expected=exp_sum,
                actual=actual,
                segments=segs,
                system_label=self.label,
                history=new_hist,
            )
        return out
