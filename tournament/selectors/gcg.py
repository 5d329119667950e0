"""Game records, read: a game by its board, who may see a record, a division's files."""

from __future__ import annotations

import re
from typing import Any

from ..errors import ServiceError
from ..models import Division, Game, GameRecord, Round, Seat


def whole_number(value: Any) -> bool:
    """Whether a value from a URL or form is a plain number ("²".isdigit() is True too)."""
    text = str(value)
    return text.isascii() and text.isdigit()


def game_on_board(division: Division, round_number: Any, board: Any) -> Game:
    """The game of a round's board (how the command and the API name a game)."""
    number = int(round_number) if whole_number(round_number) else -1
    game_round = Round.objects.filter(division=division, number=number).first()
    if game_round is None:
        raise ServiceError(
            "round_not_paired", field="round", division=division.name, round=round_number
        )
    games = list(game_round.games.select_related("player1__player", "player2__player"))
    game = next((g for g in games if str(g.board) == str(board).strip()), None)
    if game is None:
        boards = ", ".join(str(g.board) for g in games if g.board) or "none"
        raise ServiceError(
            "gcg_not_a_game",
            field="board",
            where=f"division {division.name} round {game_round.number}",
            board=str(board)[:10],
            boards=boards,
        )
    game_round.division = division
    game.round = game_round
    return game


def record_of(game: Game, *, public: bool) -> GameRecord | None:
    """The game's record, or None; ``public`` readers see only a published one."""
    record = GameRecord.objects.filter(game=game).first()
    if record is None:
        return None
    record.game = game
    if public and not record.is_public:
        return None
    return record


def _public_rows(division: Division):
    rows = GameRecord.objects.filter(game__round__division=division)
    if division.tournament.records_private:
        rows = rows.filter(game__round__records_published__isnull=False)
    return rows


def public_record_boards(division: Division, round_number: int) -> set[int]:
    """The boards of a round whose record the public may see (the round page links them)."""
    rows = _public_rows(division).filter(game__round__number=round_number)
    return set(rows.values_list("game__board", flat=True))


def public_record_rounds(division: Division, entry_id: int) -> set[int]:
    """The rounds of an entry's games with a public record (the player card links them).

    Read through the seat index, never the games table: the card's one load of the games is
    what keeps a player page cheap when a round's results come in."""
    seats = Seat.objects.filter(entry_id=entry_id, game_id__in=GameRecord.objects.values("game_id"))
    if division.tournament.records_private:
        seats = seats.filter(round__records_published__isnull=False)
    return set(seats.values_list("round__number", flat=True))


def record_file_name(game: Game) -> str:
    """A zip member's name: round, board and the two players, safe on every file system."""
    names = [game.player1.player.name, game.player2.player.name if game.player2_id else "bye"]
    plain = "-v-".join(re.sub(r"[^A-Za-z0-9]+", "_", n).strip("_") or "player" for n in names)
    return f"r{game.round.number:02d}-b{game.board or 0:02d}-{plain}.gcg"


def division_records(division: Division, *, public: bool) -> list[tuple[str, str]]:
    """Every record of the division as (file name, GCG text), by round and board."""
    rows = GameRecord.objects.filter(game__round__division=division).select_related(
        "game__round", "game__player1__player", "game__player2__player"
    )
    if public and division.tournament.records_private:
        rows = rows.filter(game__round__records_published__isnull=False)
    rows = rows.order_by("game__round__number", "game__board", "game_id")
    return [(record_file_name(r.game), r.text) for r in rows]
