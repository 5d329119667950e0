"""Small builders for rating tests: players and games from compact descriptions."""

from __future__ import annotations

import math

from ratings.engine import RatedGame, RatedPlayer

NSA_SLOPE = 0.0031879


def nsa_e(d: float) -> float:
    """The spec's expectation formula, written out independently of the engine."""
    return 1 / (1 + math.exp(-NSA_SLOPE * d))


def one_against_many(
    rating: int | None,
    opponents: list[int],
    wins: int,
    *,
    games: int = 100,
    opponent_games: int = 100,
) -> tuple[list[RatedPlayer], list[RatedGame]]:
    """Player "x" meets opponents 0..n-1 in rounds 1..n and beats the first ``wins`` of them."""
    players = [RatedPlayer("x", rating, games)]
    players += [RatedPlayer(i, r, opponent_games) for i, r in enumerate(opponents)]
    result = [
        RatedGame(i + 1, "x", i, 420 if i < wins else 330, 380) for i in range(len(opponents))
    ]
    return players, result


def games_from_text(text: str, per_round: int) -> list[RatedGame]:
    """'A-B 400-350, C-N 380-420, ...' with ``per_round`` games in each round."""
    out = []
    for i, item in enumerate(t.strip() for t in text.split(",")):
        pair, score = item.split()
        a, b = pair.split("-")
        sa, sb = (int(x) for x in score.split("-"))
        out.append(RatedGame(i // per_round + 1, a, b, sa, sb))
    return out
