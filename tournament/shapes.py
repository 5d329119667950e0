"""The JSON shape of each object that both the API and the management commands print.

A script reads ``manage.py standings --json`` and ``GET .../standings/`` alike, and a game
from ``record_result --json`` and ``GET .../games/`` alike; when each face built its own
dictionary the two drifted (a game's players were numbers in one and objects in the other).
Each object's shape is made here once, from the model or the selector's row, and both faces
call it (the API's serializers declare the same fields for its schema; a test holds them
equal). Nothing here reads the database beyond the objects it is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .models import Entry, Game
from .selectors.online_entries import PublicEntrant
from .standings import StandingsRow


def standings_row(row: StandingsRow, estimate: int | None) -> dict[str, Any]:
    """One row of a division's standings, with the player's in-event rating estimate."""
    return {
        "rank": row.rank,
        "number": row.number,
        "name": row.name,
        "wins": row.wins,
        "losses": row.losses,
        "spread": row.spread,
        "rating": row.rating,
        "estimate": estimate,
        "withdrawn": row.withdrawn,
    }


def side(entry: Entry | None) -> dict[str, Any] | None:
    """One side of a game: the entry's number and name in the division (None: no opponent)."""
    if entry is None:
        return None
    return {"number": entry.number, "name": entry.player.name}


def game_row(game: Game) -> dict[str, Any]:
    """A stored game: its round, board, the two sides (``player2`` None for a bye or one of a
    forfeit's two single games), the scores in the game's order and TSH's p12 value."""
    return {
        "round": game.round.number,
        "board": game.board,
        "player1": side(game.player1),
        "player2": side(game.player2) if game.player2_id else None,
        "score1": game.score1,
        "score2": game.score2,
        "first": int(game.first),
    }


def later_pairing_rows(later: Iterable[Any]) -> list[dict[str, int]]:
    """The rounds paired after a corrected game's round, from its old result."""
    return [{"round": x.round, "unscored": x.unscored} for x in later]


def entrant_row(entrant: PublicEntrant) -> dict[str, Any]:
    """One player of a division's public entry list."""
    return {
        "number": entrant.number,
        "name": entrant.name,
        "rating": entrant.rating,
        "club": entrant.club,
        "checked_in": entrant.checked_in,
    }


def waiting_row(entrant: PublicEntrant) -> dict[str, Any]:
    """One player of a division's waiting list, in its order."""
    return {
        "position": entrant.position,
        "name": entrant.name,
        "rating": entrant.rating,
        "club": entrant.club,
    }
