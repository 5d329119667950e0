"""Results: recording a game once, and corrections with a reason.

This module holds the console's Enter (``enter_line``: a typed line recorded, kept as a card,
or a game's state set or corrected); the parts it is made of live in modules of their own
and are re-exported here: ``result_checks`` (the game found, locked, the corrector's view),
``result_lines`` (a typed line's game), ``result_states`` (``change_result``),
``result_writes`` (``record_result``, ``correct_result``, forfeits) and ``result_cards``
(double entry).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext_noop

from tournament.checks import as_int
from tournament.errors import ServiceError, where_round

from ..access import require
from ..models import Division, Game
from ..scoreline import BOARD, FORFEIT, PAIR, ScoreLine
from .audit import Actor

# the parts (see the docstring), their names kept here so callers import from one module
from .result_cards import CardOutcome, report_card, resolve_dispute, set_double_entry
from .result_checks import (
    UNPLAYED,
    already_recorded,
    double_entry,
    lock_scores,
    round_seen,
    seen_result,
)
from .result_lines import LineTarget, line_entry, read_line, resolve_line
from .result_states import (
    CLEAR,
    DOUBLE_FORFEIT,
    FORFEIT_STATE,
    RESULT_STATES,
    SCORES,
    change_result,
)
from .result_writes import (
    correct_player_result,
    correct_result,
    record_forfeit,
    record_line_forfeit,
    record_result,
    record_scores,
)

__all__ = [
    "CLEAR",
    "DOUBLE_FORFEIT",
    "FORFEIT_STATE",
    "RESULT_STATES",
    "SCORES",
    "UNPLAYED",
    "CardOutcome",
    "Entered",
    "LineTarget",
    "change_result",
    "correct_player_result",
    "correct_result",
    "double_entry",
    "enter_line",
    "lock_scores",
    "record_forfeit",
    "record_result",
    "report_card",
    "resolve_dispute",
    "resolve_line",
    "round_seen",
    "seen_result",
    "set_double_entry",
]


# --------------------------------------------------------------------------- console entry
# The director's console types one line a game (tournament.scoreline); these turn a line into
# its game, record it (or, with double entry, keep it as a card until a second card agrees),
# and record forfeits of paired games.


@dataclass(frozen=True)
class Entered:
    """What one typed line did: ``kind`` is recorded, forfeit, pending, confirmed or disputed.

    ``correction``: the line carried a reason (``LINE: REASON``), so it changed a game's result
    whatever it held; the console then names the rounds paired from the old result."""

    line: ScoreLine
    kind: str
    games: tuple[Game, ...]
    correction: bool = False


def enter_line(
    division: Division,
    round_number: int,
    text: str | ScoreLine,
    *,
    actor: Actor | str | None = None,
    seen: dict[int, str] | None = None,
) -> Entered:
    """The console's Enter: read the line, find its game and record it (or keep it as a card).

    ``seen`` is the round as the page showed it (``round_seen``): a correction line is
    refused when its game holds something else now.

    Everything is checked before anything is written (resolve_line), so a refused line leaves
    no trace. A played game is recorded through ``record_result`` (which locks the game and
    checks again, for two people typing at once); ``3 f`` through ``record_forfeit``, also
    with double entry on (a forfeit is a director's call, not a score to compare); with double
    entry on, a played game's line becomes a card (``report_card``).
    """
    require(actor, "keep_score", division.tournament, what=gettext_noop("record results"))
    stated = _state_line(division, round_number, text, actor, seen)
    if stated is not None:
        return stated
    target = resolve_line(division, round_number, text)
    line, game = target.line, target.game
    if game.has_result:
        raise already_recorded(game)
    if line.kind == FORFEIT:
        with transaction.atomic():
            games = record_line_forfeit(division, target, actor=actor)
        return Entered(line, "forfeit", games)
    if double_entry(division):
        outcome = report_card(division, round_number, line, actor=actor)
        return Entered(line, outcome.status, (outcome.game,))
    # the game the line found is recorded as it is (its scores in the game's order, player1's
    # first): keep_score was checked above, the game is locked and read again in the write
    where = where_round(division, game.round.number)
    with transaction.atomic():
        game = record_scores(
            division, game, game.player1, target.score1, target.score2, actor=actor, where=where
        )
    return Entered(line, "recorded", (game,))


_STATE_WORDS = {"f": FORFEIT_STATE, "forfeit": FORFEIT_STATE, "ff": DOUBLE_FORFEIT, "clear": CLEAR}


def _state_line(
    division: Division,
    round_number: int,
    text: str | ScoreLine,
    actor: Actor | str | None,
    seen: dict[int, str] | None = None,
) -> Entered | None:
    """The console's lines that set a game's state or correct it, else None (an ordinary line).

    ``3 ff``: a double forfeit. ``3 clear: REASON``: back to unplayed. Any line followed by
    ``: REASON`` is a correction to what the line says (``3 400 380: misread card``,
    ``3 f: wrong player``, ``3 ff: neither came``), from whatever the game holds now: a
    director types the fix the way the result was typed, with the reason after a colon.
    """
    if not isinstance(text, str):
        return None
    raw, colon, reason = text.partition(":")
    tokens = raw.lower().split()
    word = tokens[1] if len(tokens) == 2 and tokens[1] in _STATE_WORDS else None
    if not colon and word not in ("ff", "clear"):
        return None
    round_number = as_int(round_number, "round")
    where = where_round(division, round_number)
    score = opp_score = opponent = None
    if word is not None:
        player = line_entry(division, _read_number(tokens[0]), where).number
        state = _STATE_WORDS[word]
        line = ScoreLine(state, player=player, text=" ".join(raw.split()))
    else:
        line = read_line(raw, where)
        if line.kind == FORFEIT:
            state, player = FORFEIT_STATE, line.player
        elif line.kind == BOARD:
            target = resolve_line(division, round_number, line)
            state, player = SCORES, target.game.player1.number
            score, opp_score = target.score1, target.score2
        else:
            state, player = SCORES, line.player
            score, opp_score = line.score, line.opp_score
            opponent = line.opponent if line.kind == PAIR else None
    rows = change_result(
        division,
        round_number,
        player,
        state,
        score,
        opp_score,
        reason=reason,
        opponent=opponent,
        actor=actor,
        seen=seen.get(player) if seen else None,
    )
    kind = {SCORES: "recorded", CLEAR: "cleared"}.get(state, state)
    if colon and state != CLEAR and reason.strip():
        kind = "corrected" if kind == "recorded" else kind
    return Entered(line, kind, tuple(rows), correction=bool(colon and reason.strip()))


def _read_number(token: str) -> int:
    if not (token.isascii() and token.isdigit()) or int(token) < 1:
        raise ServiceError(
            "bad_line", field="line", message=f"player number {token!r}: give a number from 1 up"
        )
    return int(token)
