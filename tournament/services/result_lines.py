"""The console's typed line turned into its game (``resolve_line``): the line read, the game
found by player or board, the scores turned to the game's own order, or a refusal saying what
does not fit. Reads only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from tournament.checks import as_int
from tournament.errors import ServiceError

from ..models import (
    Division,
    Entry,
    Game,
)
from ..scoreline import FORFEIT, ScoreLine, ScoreLineError, parse_score_line


@dataclass(frozen=True)
class LineTarget:
    """The game a typed line names, with the line's scores turned to the game's own order."""

    game: Game
    line: ScoreLine
    score1: int | None
    score2: int | None
    entry: Entry | None  # the player named on the line; None for a board line


def read_line(line: str | ScoreLine, where: str) -> ScoreLine:
    if isinstance(line, ScoreLine):
        return line
    try:
        return parse_score_line(line)
    except ScoreLineError as exc:
        if exc.code == "score_out_of_range":
            raise ServiceError(
                "score_out_of_range",
                exc.message,
                field="line",
                where=where,
                who="score",
                value=exc.params.get("score"),
                maximum=1500,
            ) from exc
        raise ServiceError("bad_line", field="line", message=exc.message) from exc


def line_entry(division: Division, number: int, where: str) -> Entry:
    entry = division.entries.select_related("player").filter(number=number).first()
    if entry is None:
        raise ServiceError(
            "unknown_player",
            field="line",
            where=where,
            number=number,
            count=division.entries.count(),
        )
    return entry


def single_what(game: Game) -> str:
    if game.score1 is not None and game.score1 < 0:
        return f"forfeit ({game.score1})"
    if game.score1:
        return f"bye (+{game.score1})"
    return "bye"


def _boards(numbers: list[int]) -> str:
    if not numbers:
        return "none numbered"
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(map(str, numbers))


def _board_target(games: Any, line: ScoreLine, round_number: int, paired: Any) -> LineTarget:
    """The game on the line's board (``board 5: 412 389``), or the refusal: a bye or forfeit
    on that board, or no such board this round (``paired`` refuses an unpaired round)."""
    on_board = list(games.filter(board=line.board))
    if not on_board:
        paired()
    game = next((g for g in on_board if g.player2_id), None)
    if game is None and on_board:
        single = on_board[0]
        raise ServiceError(
            "not_a_game",
            field="line",
            round=round_number,
            number=single.player1.number,
            name=single.player1.name,
            what=single_what(single),
        )
    if game is None:
        numbers = sorted({b for b in games.values_list("board", flat=True) if b is not None})
        raise ServiceError(
            "unknown_board",
            field="line",
            round=round_number,
            board=line.board,
            boards=_boards(numbers),
        )
    # The first score is the listed-first player's: the one who starts (as printed on
    # the pairings sheet and scorecards), else player1 when who starts is not settled.
    if game.starts_reversed:
        return LineTarget(game, line, line.opp_score, line.score, None)
    return LineTarget(game, line, line.score, line.opp_score, None)


def resolve_line(division: Division, round_number: int, line: str | ScoreLine) -> LineTarget:
    """Find the game a typed line names in this round, or refuse saying what does not fit.

    Refusals (each a ServiceError at field ``line``): the line cannot be read (bad_line,
    score_out_of_range), the round is not paired, no such player or board, the player is not
    paired this round or has a bye/forfeit, or ``3 412 17 389`` names two players who do not
    play each other (the usual sign of a mistyped number). Nothing is written.
    """
    round_number = as_int(round_number, "round")
    where = f"division {division.name} round {round_number}"
    line = read_line(line, where)
    games = Game.objects.select_related("round", "player1__player", "player2__player").filter(
        round__division=division, round__number=round_number
    )

    def paired() -> None:
        # asked only when the line's game is not found: a found game answers it
        if not games.exists():
            raise ServiceError(
                "round_not_paired", field="line", division=division.name, round=round_number
            )

    if line.kind == "board":
        return _board_target(games, line, round_number, paired)
    # the player's game of the round, and the player with it: one query (a player sits once
    # a round); the refusals' order is kept when it is not found
    game = games.filter(Q(player1__number=line.player) | Q(player2__number=line.player)).first()
    if game is None:
        paired()
        entry = line_entry(division, line.player, where)
        raise ServiceError(
            "not_paired", field="line", round=round_number, number=entry.number, name=entry.name
        )
    entry = game.player1 if game.player1.number == line.player else game.player2
    if game.player2_id is None:
        raise ServiceError(
            "not_a_game",
            field="line",
            round=round_number,
            number=entry.number,
            name=entry.name,
            what=single_what(game),
        )
    if line.kind == "pair":
        actual = game.player2 if game.player1_id == entry.pk else game.player1
        if actual.number != line.opponent:
            opponent = line_entry(division, line.opponent, where)  # unknown_player first
            raise ServiceError(
                "not_opponents",
                field="line",
                round=round_number,
                number=entry.number,
                name=entry.name,
                actual=f"#{actual.number} {actual.name}",
                opponent=opponent.number,
            )
    if line.kind == FORFEIT:
        return LineTarget(game, line, None, None, entry)
    if game.player1_id == entry.pk:
        return LineTarget(game, line, line.score, line.opp_score, entry)
    return LineTarget(game, line, line.opp_score, line.score, entry)
