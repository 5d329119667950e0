"""What every write of games shares: a round row to hang games on, a game's audit snapshot.

Input checks (scores, numbers, entry lookups) are in ``tournament.checks``, since reads need
them too; these two only make sense beside a write.
"""

from __future__ import annotations

from typing import Any

from ..models import (
    Division,
    Game,
    Round,
)


def round_row(division: Division, number: int, *, create: bool = False) -> Round | None:
    if create:
        rnd, _ = Round.objects.get_or_create(division=division, number=number)
        return rnd
    return Round.objects.filter(division=division, number=number).first()


def game_snapshot(game: Game) -> dict[str, Any]:
    return {
        "round": game.round.number,
        "board": game.board,
        "player1": game.player1.number,
        "player2": game.player2.number if game.player2_id else None,
        "score1": game.score1,
        "score2": game.score2,
        "first": game.first,
    }
