"""Results: recording a game once, and corrections with a reason."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from ..models import (
    Division,
    Entry,
    Game,
)
from ._common import (
    _as_int,
    _entry,
    _game_snapshot,
    _plays,
    validate_bye_score,
    validate_played_scores,
)
from .audit import Actor, audit
from .errors import ServiceError


def _find_game(division: Division, round_number: int, entry: Entry, where: str) -> Game:
    game = (
        Game.objects.select_related("round", "player1__player", "player2__player")
        .filter(round__division=division, round__number=round_number)
        .filter(_plays(entry))
        .first()
    )
    if game is None:
        raise ServiceError(f"{where}: #{entry.number} {entry.name} is not paired in this round")
    return game


@transaction.atomic
def record_result(
    division: Division,
    round_number: int,
    player_number: int,
    score: Any,
    opp_score: Any = None,
    *,
    actor: Actor | str | None = None,
) -> Game:
    """Record a game's result from one player's side (their score first)."""
    round_number = _as_int(round_number, "round")
    where = f"division {division.name} round {round_number}"
    entry = _entry(division, player_number, f"{where}: ")
    game = _find_game(division, round_number, entry, where)
    if game.player2_id is None:
        value = validate_bye_score(score, where)
        if game.has_result and game.score1 != value:
            raise ServiceError(
                f"{where}: #{entry.number}'s bye/forfeit is already recorded ({game.score1}); "
                "correct it with --correct \"reason\" or in the admin (Games)"
            )
        game.score1 = value
        game.save(update_fields=["score1"])
    else:
        if game.has_result:
            raise ServiceError(
                f"{where}: the game #{game.player1.number} v #{game.player2.number} already has "
                f"a result ({game.score1}-{game.score2}); correct it with --correct \"reason\" "
                "or in the admin (Games); either way the change is audited"
            )
        if opp_score is None:
            raise ServiceError(f"{where}: a played game needs both scores")
        mine, theirs = validate_played_scores(score, opp_score, where)
        if game.player1_id == entry.pk:
            game.score1, game.score2 = mine, theirs
        else:
            game.score1, game.score2 = theirs, mine
        game.save(update_fields=["score1", "score2"])
    audit(
        division.tournament,
        actor,
        "record_result",
        game,
        f"{where}: {game} {game.score1}-{game.score2}",
        after=_game_snapshot(game),
    )
    return game


@transaction.atomic
def correct_result(
    game: Game, score1: Any, score2: Any = None, *, reason: str, actor: Actor | str | None = None
) -> Game:
    """Change a recorded result; a reason is required so the audit trail explains itself."""
    where = f"division {game.round.division.name} round {game.round.number}"
    if not reason or not reason.strip():
        raise ServiceError(f"{where}: a correction needs a reason")
    before = _game_snapshot(game)
    if game.player2_id is None:
        game.score1 = validate_bye_score(score1, where)
    else:
        game.score1, game.score2 = validate_played_scores(score1, score2, where)
    game.save(update_fields=["score1", "score2"])
    audit(
        game.round.division.tournament,
        actor,
        "correct_result",
        game,
        f"{where}: {game}",
        before=before,
        after=_game_snapshot(game),
        reason=reason.strip(),
    )
    return game


def correct_player_result(
    division: Division,
    round_number: int,
    player_number: int,
    score: Any,
    opp_score: Any = None,
    *,
    reason: str,
    actor: Actor | str | None = None,
) -> Game:
    """Correct a recorded result named the way a scorecard reads: this player's score first.

    Directors at a venue fix a mistyped score from the same command they entered it with;
    the game is found and the scores turned to its own order, then ``correct_result`` checks
    and audits the change with its reason.
    """
    round_number = _as_int(round_number, "round")
    where = f"division {division.name} round {round_number}"
    entry = _entry(division, player_number, f"{where}: ")
    game = _find_game(division, round_number, entry, where)
    if not game.has_result:
        raise ServiceError(
            f"{where}: #{entry.number} has no result yet to correct; record it without --correct"
        )
    if game.player2_id is None or game.player1_id == entry.pk:
        return correct_result(game, score, opp_score, reason=reason, actor=actor)
    if opp_score is None:
        raise ServiceError(f"{where}: a played game needs both scores")
    return correct_result(game, opp_score, score, reason=reason, actor=actor)


