"""The console's result line: what a scorekeeper types for one game, read without a database.

TSH directors enter a round from the keyboard with its add-score command, one line a game, and
a typo must be caught before anything is written. This module only reads the line; finding the
game and checking the pairing is the service's job (services.results.resolve_line). It imports
no Django, so it is tested on its own and can serve a command line or an API alike.

The forms, from the shortest to the most checked:

``3 412 389``
    player 3 scored 412, their opponent 389 (the opponent is whoever is paired with 3).
``3 412 17 389``
    TSH's add-score line: 3 scored 412, 17 scored 389; refused later unless 3 and 17 are
    paired with each other this round, which catches a mistyped player number.
``b12 412 389``
    board 12: the first score belongs to the player printed first for that board on the
    pairings sheet (the player who starts; the game's player1 when that is not settled),
    the second to the other.
``3 f``
    player 3 forfeits the game: the opponent wins by the tournament's forfeit spread.

A 0-0 line is refused: it is almost surely a slip (typed to clear a game, it recorded a tie
at 0); ``3 ff`` is a double forfeit and ``3 clear: REASON`` takes a result back.

Letters may be upper or lower case and spaces may be repeated; nothing else is guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .formats.limits import MAX_SCORE  # highest score a played game may carry

# A real game is rarely under this: the console records it but warns (a digit may be missing).
LOW_SCORE = 100

PLAYER = "player"  # 3 412 389
PAIR = "pair"  # 3 412 17 389
BOARD = "board"  # b12 412 389
FORFEIT = "forfeit"  # 3 f

FORMS = "3 412 389, 3 412 17 389, b12 412 389 or 3 f"

_NUMBER = re.compile(r"[+-]?[0-9]+\Z")
_BOARD = re.compile(r"b([0-9]+)\Z")


class ScoreLineError(ValueError):
    """A line that cannot be read; ``message`` says what is wrong and how to type it.

    ``code`` is ``bad_line`` for a line of the wrong shape and ``score_out_of_range`` for a
    score outside 0..1500, so callers can word or count the two kinds apart.
    """

    def __init__(self, message: str, code: str = "bad_line", **params: object) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.params = params


@dataclass(frozen=True)
class ScoreLine:
    """One game's result as typed.

    ``score`` is the score of the player named first on the line (``player``, or the board's
    first player for ``b12``); ``opp_score`` the other. A forfeit has neither.
    """

    kind: str
    score: int | None = None
    opp_score: int | None = None
    player: int | None = None
    opponent: int | None = None
    board: int | None = None
    text: str = ""

    @property
    def scores(self) -> tuple[int, int] | None:
        if self.score is None or self.opp_score is None:
            return None
        return self.score, self.opp_score


def _count(token: str, what: str) -> int:
    """A player or board number: 1 or more, digits only."""
    if not (token.isascii() and token.isdigit()) or int(token) < 1:
        raise ScoreLineError(f"{what} {token!r}: give a number from 1 up (forms: {FORMS})")
    return int(token)


def _score(token: str, who: str) -> int:
    if not _NUMBER.match(token):
        raise ScoreLineError(f"{who} {token!r} is not a whole number (forms: {FORMS})")
    value = int(token)
    if not 0 <= value <= MAX_SCORE:
        raise ScoreLineError(
            f"{who} {value} is outside 0..{MAX_SCORE}",
            "score_out_of_range",
            score=value,
        )
    return value


def _not_nil_nil(line: ScoreLine) -> ScoreLine:
    """Refuse 0-0: a game both players scored nothing in is almost surely a slip (a result
    line typed as "5 0 0" to clear a game recorded a tie at 0). A game no one played is a
    double forfeit (``5 ff``); a result is taken back with ``5 clear: REASON``."""
    if line.scores != (0, 0):
        return line
    if line.board is not None:
        who, n = f"board {line.board}", "N"
        tail = " (N: a player's number)"
    else:
        who, n, tail = f"#{line.player}", str(line.player), ""
    raise ScoreLineError(
        f"{who}: a 0-0 tie is not recorded (almost surely a slip): type both scores; "
        f"{n} ff if neither played, {n} f for a forfeit, {n} clear: REASON to take a result "
        f"back{tail}"
    )


def parse_score_line(text: str) -> ScoreLine:
    """Read one typed line into a ScoreLine, or raise ScoreLineError naming what is wrong."""
    return _not_nil_nil(_parse(text))


def _parse(text: str) -> ScoreLine:
    raw = " ".join(str(text).split())
    tokens = raw.lower().split(" ") if raw else []
    if not tokens:
        raise ScoreLineError(f"type a result, e.g. {FORMS}")
    head, rest = tokens[0], tokens[1:]
    board = _BOARD.match(head)
    if board:
        number = _count(board.group(1), "board")
        if rest and rest[0] in ("f", "forfeit"):
            raise ScoreLineError(
                f"board {number}: name the player who forfeits by number (e.g. 3 f), not the board"
            )
        if len(rest) != 2:
            raise ScoreLineError(
                f"board {number}: give both scores, the first player's first (b{number} 412 389)"
            )
        return ScoreLine(
            BOARD,
            score=_score(rest[0], "first player's score"),
            opp_score=_score(rest[1], "second player's score"),
            board=number,
            text=raw,
        )
    if head in ("f", "forfeit") or head.startswith("b"):
        raise ScoreLineError(f"start with a player number or b and a board (forms: {FORMS})")
    player = _count(head, "player number")
    if len(rest) == 1 and rest[0] in ("f", "forfeit"):
        return ScoreLine(FORFEIT, player=player, text=raw)
    if len(rest) == 2:
        return ScoreLine(
            PLAYER,
            score=_score(rest[0], f"#{player}'s score"),
            opp_score=_score(rest[1], "opponent's score"),
            player=player,
            text=raw,
        )
    if len(rest) == 3:
        opponent = _count(rest[1], "opponent's number")
        if opponent == player:
            raise ScoreLineError(f"#{player} cannot play against themselves")
        return ScoreLine(
            PAIR,
            score=_score(rest[0], f"#{player}'s score"),
            opp_score=_score(rest[2], f"#{opponent}'s score"),
            player=player,
            opponent=opponent,
            text=raw,
        )
    if not rest:
        raise ScoreLineError(f"#{player}: give the scores too (forms: {FORMS})")
    raise ScoreLineError(f"{len(tokens)} items on the line; use one of the forms {FORMS}")


def low_scores(line: ScoreLine) -> list[int]:
    """The line's scores under LOW_SCORE: recorded, but worth a second look."""
    return [s for s in (line.score, line.opp_score) if s is not None and s < LOW_SCORE]
