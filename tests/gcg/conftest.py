"""A two-player game to attach records to: round 1, board 1, its result recorded."""

from __future__ import annotations

import datetime

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.models import Game
from tournament.services.results import record_result


def two_player_event(
    first: str, second: str, scores: tuple[int, int] | None, slug_name: str = "Records Open"
):
    """A published event whose round 1 board 1 is ``first`` v ``second`` (the scores
    recorded when given), plus a third pair on board 2 (#3 v #4) of other players."""
    t = services.create_tournament(name=slug_name, start_date=datetime.date(2025, 5, 3))
    d = services.create_division(t, name="A", rounds=5)
    for name in (first, second, "Cole, Cy", "Dunn, Di"):
        services.register_player(d, name=name, rating=1500)
    save_round_pairings(
        d, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)], system="manual"
    )
    if scores is not None:
        record_result(d, 1, 1, scores[0], scores[1], actor="test")
    game = Game.objects.get(round__division=d, round__number=1, board=1)
    return t, d, game
