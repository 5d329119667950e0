"""Prize chances from a simulation: per player P(1st), P(each prize place), P(in the money),
P(class prize), expected rank and the best/worst rank seen. Pure: no Django.

The rules that decide what counts (docs: README "Prize chances"):

* prize places: the division's ``prize_places``, or ``DEFAULT_PRIZE_PLACES`` when it has none;
* players tied on wins, losses[, points] and spread share their places: two players tied for
  1st each count one half of 1st and one half of 2nd;
* a class prize goes to the best-placed player of the class not already in the money (one cash
  prize per player, as ``tournament.reports.prizes.prizes_from`` lists them); classes get a
  prize only when the division has at least two, and the class of the top-rated player none
  (its players play for places), as on the prize list;
* expected rank is the mean place (ties shared); best/worst rank are the best and worst
  competition rank seen in the simulations, not proven bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .simulate import GameModel, SimResult, SimSetup, simulate

__all__ = ["DEFAULT_PRIZE_PLACES", "PlayerChances", "chances", "prize_classes"]

#: paid places when the division sets none (the prize list's default, tournament.reports)
DEFAULT_PRIZE_PLACES = 3


@dataclass(frozen=True)
class PlayerChances:
    number: int
    name: str
    p_first: float
    p_places: list[float]
    p_cash: float
    p_class: float | None
    expected_rank: float | None
    best_rank: int | None
    worst_rank: int | None

    def as_dict(self) -> dict:
        return {
            "number": self.number,
            "name": self.name,
            "p_first": self.p_first,
            "p_places": self.p_places,
            "p_cash": self.p_cash,
            "p_class": self.p_class,
            "expected_rank": self.expected_rank,
            "best_rank": self.best_rank,
            "worst_rank": self.worst_rank,
        }


def prize_classes(setup: SimSetup) -> dict[str, list[int]]:
    """Classes with a class prize -> their ranked players' indices (see the module rules)."""
    ranked = [i for i, p in enumerate(setup.players) if p.ranked]
    classes: dict[str, list[int]] = {}
    for i in ranked:
        c = setup.players[i].player_class
        if c:
            classes.setdefault(c, []).append(i)
    if len(classes) < 2:
        return {}
    top = max(range(len(setup.players)), key=lambda i: (setup.players[i].rating, -i))
    top_class = setup.players[top].player_class
    return {c: m for c, m in sorted(classes.items()) if c != top_class}


def _round(x: float) -> float:
    return round(float(x), 6)


def chances(
    setup: SimSetup, model: GameModel, sims: int, seed: int, *, prize_places: int = 0
) -> list[PlayerChances]:
    """Every player's chances after ``sims`` playings of the rest of the event (seeded)."""
    places = prize_places or DEFAULT_PRIZE_PLACES
    classes = prize_classes(setup)
    result = simulate(
        setup,
        model,
        sims,
        seed,
        classes=list(classes.values()),
        class_exclusive_places=places,
    )
    return summarise(setup, result, places, classes)


def summarise(
    setup: SimSetup, result: SimResult, places: int, classes: dict[str, Sequence[int]]
) -> list[PlayerChances]:
    """``SimResult`` counts as probabilities per player, in player-number order."""
    share = result.place_share / result.sims
    n = share.shape[0]
    in_class = {i for members in classes.values() for i in members}
    ranked = set(result.ranked.tolist())
    ks = np.arange(1, n + 1)
    out = []
    for i, p in enumerate(setup.players):
        row = share[i]
        is_ranked = i in ranked
        p_class = None
        if i in in_class and result.class_share is not None:
            p_class = _round(result.class_share[i] / result.sims)
        out.append(
            PlayerChances(
                number=p.number,
                name=p.name,
                p_first=_round(row[0]),
                p_places=[_round(v) for v in row[: min(places, n)]],
                p_cash=_round(row[:places].sum()),
                p_class=p_class,
                expected_rank=_round((row * ks).sum()) if is_ranked else None,
                best_rank=int(result.best[i]) if is_ranked else None,
                worst_rank=int(result.worst[i]) if is_ranked else None,
            )
        )
    return sorted(out, key=lambda c: c.number)
