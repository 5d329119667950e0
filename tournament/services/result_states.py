"""A game between two players put into any result state from any state (``change_result``):
unplayed, played, a forfeit by one side, a double forfeit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop

from tournament.checks import (
    as_int,
    entry_by_number,
    forfeit_opponent,
    validate_played_scores,
)
from tournament.errors import ServiceError, where_round
from tournament.services.games import game_snapshot

from ..access import require
from ..models import (
    Division,
    Entry,
    First,
    Game,
)
from .audit import Actor, audit
from .result_checks import check_seen, find_game, lock_scores, supersede_self_reports
from .result_lines import single_what

# A game between two players is in one of four states: unplayed, played (two scores), a
# forfeit by one side, or a double forfeit. A forfeit is stored as two single games (see
# record_forfeit), each naming the other player in its explanation; that is how the pair is
# found again, so any state can be turned into any other without changing who the game is
# between. A bye is a pairing, not a result: it changes only by re-pairing the round.

SCORES = "scores"
FORFEIT_STATE = "forfeit"
DOUBLE_FORFEIT = "double_forfeit"
CLEAR = "clear"
RESULT_STATES = (SCORES, FORFEIT_STATE, DOUBLE_FORFEIT, CLEAR)

_FORFEIT_LOSS = "forfeit: did not play #{}"
_FORFEIT_WIN = "forfeit win: #{} did not play"
_DOUBLE = "double forfeit: did not play #{}"


@dataclass
class _Between:
    """A game between two players as stored: one row, or the two single rows of a forfeit."""

    rows: list[Game]
    player: Entry
    opponent: Entry
    state: str  # unplayed, scores, forfeit, double_forfeit


def _between(division: Division, round_number: int, entry: Entry, where: str) -> _Between:
    game = find_game(division, round_number, entry, where)
    if game.player2_id is not None:
        opponent = game.player2 if game.player1_id == entry.pk else game.player1
        state = SCORES if game.has_result else "unplayed"
        return _Between([game], entry, opponent, state)
    number = forfeit_opponent(game)
    other = None
    if number is not None:
        other = (
            Game.objects.select_related("round", "player1__player")
            .filter(round=game.round, player1__number=number, player2__isnull=True)
            .first()
        )
    if other is None or forfeit_opponent(other) != entry.number:
        raise ServiceError(
            "not_a_game",
            field="player",
            round=round_number,
            number=entry.number,
            name=entry.name,
            what=single_what(game),
        )
    rows = sorted([game, other], key=lambda g: g.pk)
    both_lose = all((g.score1 or 0) < 0 for g in rows)
    return _Between(rows, entry, other.player1, DOUBLE_FORFEIT if both_lose else FORFEIT_STATE)


@transaction.atomic
def change_result(
    division: Division,
    round_number: int,
    player_number: Any,
    state: str,
    score: Any = None,
    opp_score: Any = None,
    *,
    reason: str = "",
    opponent: int | None = None,
    actor: Actor | str | None = None,
    seen: str | None = None,
) -> list[Game]:
    """Put a game between two players into any result state, from any state, audited once.

    ``state``: ``scores`` (this player's score first), ``forfeit`` (this player forfeits),
    ``double_forfeit`` (both lose by the forfeit spread) or ``clear`` (back to unplayed).
    A game that already has a result changes only with a reason (a correction); the two
    players stay the same whatever is stored. Returns the game's rows afterwards: one
    two-player game, or the two single games of a forfeit. ``seen`` (``seen_result``, this
    player's side) is what the caller looked at: a game changed since is refused, unchanged.
    """
    require(actor, "keep_score", division.tournament, what=gettext_noop("change results"))
    round_number = as_int(round_number, "round", field="round")
    where = where_round(division, round_number)
    if state not in RESULT_STATES:
        raise ServiceError("unknown_result_state", field="state", where=where, state=state)
    entry = entry_by_number(division, player_number, where)
    between = _between(division, round_number, entry, where)
    if opponent is not None and between.opponent.number != opponent:
        actual = between.opponent
        raise ServiceError(
            "not_opponents",
            field="line",
            round=round_number,
            number=entry.number,
            name=entry.name,
            actual=f"#{actual.number} {actual.name}",
            opponent=opponent,
        )
    for row in between.rows:
        lock_scores(row)
    if seen is not None:
        check_seen(between.rows, between.player, between.opponent, seen, where)
    was_unplayed = between.state == "unplayed"
    reason = (reason or "").strip()
    if was_unplayed and state == CLEAR:
        raise ServiceError("no_result_to_correct", where=where, number=entry.number)
    if not was_unplayed and not reason:
        raise ServiceError("reason_needed", field="reason", where=where)
    player, opponent = between.player, between.opponent
    spread = abs(division.tournament.forfeit_spread)
    if state in (FORFEIT_STATE, DOUBLE_FORFEIT) and spread == 0:
        raise ServiceError("forfeit_spread_zero", field="state")
    mine = theirs = None
    if state == SCORES:
        if opp_score is None:
            raise ServiceError("both_scores_needed", field="opp_score", where=where)
        mine, theirs = validate_played_scores(score, opp_score, where)
    before = [game_snapshot(g) for g in between.rows]
    rows = _store_state(between, state, mine, theirs, spread)
    game = rows[0]
    if state != CLEAR:
        supersede_self_reports(game)
    action, words = _change_words(state, was_unplayed, player, opponent, mine, theirs, spread)
    audit(
        division.tournament,
        actor,
        action,
        game,
        f"{where}: #{words}",
        before=before,
        after=[game_snapshot(g) for g in rows],
        reason=reason,
    )
    return rows


def _store_state(
    between: _Between, state: str, mine: int | None, theirs: int | None, spread: int
) -> list[Game]:
    """The game's rows rewritten into ``state`` (the checks done): one two-player game, or
    the two single games of a forfeit; the same two players whatever was stored before."""
    player, opponent = between.player, between.opponent
    game, extra = between.rows[0], between.rows[1:]
    for row in extra:
        row.delete()
    if len(between.rows) == 2:
        # the forfeit's first row becomes the game between the two players again
        game.player1, game.player2 = player, opponent
        game.first = First.UNKNOWN
    game.score1 = game.score2 = None
    game.explanation = "" if len(between.rows) == 2 else game.explanation
    rows = [game]
    if state == SCORES:
        if game.player1_id == player.pk:
            game.score1, game.score2 = mine, theirs
        else:
            game.score1, game.score2 = theirs, mine
        game.save()
    elif state in (FORFEIT_STATE, DOUBLE_FORFEIT):
        if state == FORFEIT_STATE:
            loss, win = _FORFEIT_LOSS.format(opponent.number), _FORFEIT_WIN.format(player.number)
            other_score = spread
        else:
            loss, win = _DOUBLE.format(opponent.number), _DOUBLE.format(player.number)
            other_score = -spread
        game.player1, game.player2 = player, None
        game.score1, game.first, game.explanation = -spread, First.NONE, loss
        game.save()
        other = Game(
            round=game.round,
            board=game.board,
            player1=opponent,
            score1=other_score,
            first=First.NONE,
            explanation=win,
        )
        other.save()
        rows.append(other)
    else:
        game.save()
    return rows


def _change_words(
    state: str,
    was_unplayed: bool,
    player: Entry,
    opponent: Entry,
    mine: int | None,
    theirs: int | None,
    spread: int,
) -> tuple[str, str]:
    """The audit event's action and words for a game put into ``state``: a first result is
    recorded, a later one corrected (or cleared)."""
    words = {
        SCORES: f"{player.number} {mine} - #{opponent.number} {theirs}",
        FORFEIT_STATE: f"{player.number} {player.name} forfeits to #{opponent.number} "
        f"{opponent.name} ({spread})",
        DOUBLE_FORFEIT: f"{player.number} {player.name} and #{opponent.number} {opponent.name}"
        f" both forfeit ({spread})",
        CLEAR: f"{player.number} v #{opponent.number} cleared back to unplayed",
    }
    if was_unplayed:
        action = {
            SCORES: "record_result",
            FORFEIT_STATE: "record_forfeit",
            DOUBLE_FORFEIT: "record_double_forfeit",
        }[state]
    else:
        action = "clear_result" if state == CLEAR else "correct_result"
    return action, words[state]
