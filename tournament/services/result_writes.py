"""Recording a game's result once (``record_result``, ``record_forfeit``) and correcting it
with a reason (``correct_result``, ``correct_player_result``)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop

from tournament.checks import (
    as_int,
    entry_by_number,
    forfeit_opponent,
    validate_bye_score,
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
from ..scoreline import FORFEIT, ScoreLine
from .audit import Actor, audit
from .result_checks import (
    already_recorded,
    check_seen,
    find_game,
    lock_scores,
    supersede_self_reports,
)
from .result_lines import LineTarget, resolve_line
from .result_states import SCORES, change_result


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
    require(actor, "keep_score", division.tournament, what=gettext_noop("record results"))
    round_number = as_int(round_number, "round", field="round")
    where = where_round(division, round_number)
    entry = entry_by_number(division, player_number, where)
    game = find_game(division, round_number, entry, where)
    return record_scores(division, game, entry, score, opp_score, actor=actor, where=where)


def record_scores(
    division: Division,
    game: Game,
    entry: Entry,
    score: Any,
    opp_score: Any,
    *,
    actor: Actor | str | None,
    where: str,
) -> Game:
    """Record ``game``'s result, ``entry``'s score first: the write behind ``record_result``,
    for a caller that has checked ``keep_score`` and found the game already (the console's
    line: its game is found once, not twice). Runs in the caller's transaction."""
    lock_scores(game)
    if game.player2_id is None:
        value = validate_bye_score(score, where)
        if game.has_result and game.score1 != value:
            raise ServiceError(
                "bye_already_recorded", where=where, number=entry.number, score=game.score1
            )
        game.score1 = value
        game.save(update_fields=["score1"])
    else:
        if game.has_result:
            raise already_recorded(game)
        if opp_score is None:
            raise ServiceError("both_scores_needed", field="opp_score", where=where)
        mine, theirs = validate_played_scores(score, opp_score, where)
        if game.player1_id == entry.pk:
            game.score1, game.score2 = mine, theirs
        else:
            game.score1, game.score2 = theirs, mine
        game.save(update_fields=["score1", "score2"])
        supersede_self_reports(game)
    audit(
        division.tournament,
        actor,
        "record_result",
        game,
        f"{where}: {game} {game.score1}-{game.score2}",
        after=game_snapshot(game),
    )
    return game


@transaction.atomic
def correct_result(
    game: Game,
    score1: Any,
    score2: Any = None,
    *,
    reason: str,
    actor: Actor | str | None = None,
    seen: str | None = None,
    seen_by: Entry | None = None,
) -> Game:
    """Change a recorded result; a reason is required so the audit trail explains itself.

    The game's row is locked and read again first: two corrections of one game at once are
    applied one after the other, each audited with the scores it really replaced. ``seen`` is
    the result the corrector was looking at, in the game's order (``"412 389"``, see
    ``seen_result``): when the game holds something else now, someone changed it meanwhile and
    the correction is refused (``result_changed_meanwhile``) instead of silently undoing theirs.
    """
    require(
        actor, "keep_score", game.round.division.tournament, what=gettext_noop("correct results")
    )
    where = where_round(game.round.division, game.round.number)
    if not reason or not reason.strip():
        raise ServiceError("reason_needed", field="reason", where=where)
    lock_scores(game)
    if seen is not None:
        me = seen_by or game.player1
        other = game.player2 if me.pk == game.player1_id else game.player1
        check_seen([game], me, other, seen, where)
    before = game_snapshot(game)
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
        after=game_snapshot(game),
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
    seen: str | None = None,
) -> Game:
    """Correct a recorded result named the way a scorecard reads: this player's score first.

    ``seen`` is the result the caller last read, this player's score first (``seen_result``).

    Directors at a venue fix a mistyped score from the same command they entered it with;
    the game is found and the scores turned to its own order, then ``correct_result`` checks
    and audits the change with its reason.
    """
    require(actor, "keep_score", division.tournament, what=gettext_noop("correct results"))
    round_number = as_int(round_number, "round", field="round")
    where = where_round(division, round_number)
    entry = entry_by_number(division, player_number, where)
    game = find_game(division, round_number, entry, where)
    if game.player2_id is None and forfeit_opponent(game) is not None:
        # a forfeit (one side or both) is stored as two single games: scores make them one
        # played game between the same two players again, never a bye with a score
        games = change_result(
            division,
            round_number,
            player_number,
            SCORES,
            score,
            opp_score,
            reason=reason,
            actor=actor,
            seen=seen,
        )
        return games[0]
    if not game.has_result:
        raise ServiceError("no_result_to_correct", where=where, number=entry.number)
    if game.player2_id is None or game.player1_id == entry.pk:
        return correct_result(
            game, score, opp_score, reason=reason, actor=actor, seen=seen, seen_by=entry
        )
    if opp_score is None:
        raise ServiceError("both_scores_needed", field="opp_score", where=where)
    return correct_result(
        game, opp_score, score, reason=reason, actor=actor, seen=seen, seen_by=entry
    )


@transaction.atomic
def record_forfeit(
    division: Division,
    round_number: int,
    player_number: Any,
    *,
    actor: Actor | str | None = None,
) -> tuple[Game, Game]:
    """Player ``player_number`` forfeits their paired game: the opponent wins by the forfeit.

    How it is stored (docs/rules.md: "a forfeit loss is a bye with a negative score", and
    "byes and forfeits are never rated"; TSH records a forfeit of a paired game the same way,
    both players re-paired against 0): the game becomes the forfeiting player's forfeit,
    scored the tournament's forfeit spread (-50 in NASPA), and the opponent gets a game of
    their own scored +abs(forfeit spread), a win. Both keep the board number. So the
    standings are right (a loss at -50, a win at +50), while the ratings, starts/replies and
    score-based prizes (high loss, average score) never see a 50-0 "game" that was not
    played, which storing it as a played game with scores 0 and 50 would make them do.
    Returns (the forfeit, the opponent's win).
    """
    require(actor, "keep_score", division.tournament, what=gettext_noop("record forfeits"))
    round_number = as_int(round_number, "round")
    target = resolve_line(
        division, round_number, ScoreLine(FORFEIT, player=as_int(player_number, "player"))
    )
    return record_line_forfeit(division, target, actor=actor)


def record_line_forfeit(
    division: Division, target: LineTarget, *, actor: Actor | str | None
) -> tuple[Game, Game]:
    """The write behind ``record_forfeit`` for a caller that has checked ``keep_score`` and
    resolved the line already (the console's line). Runs in the caller's transaction."""
    game, entry = target.game, target.entry
    assert entry is not None
    where = where_round(division, game.round.number)
    lock_scores(game)
    if game.has_result:
        raise already_recorded(game)
    spread = abs(division.tournament.forfeit_spread)
    if spread == 0:
        raise ServiceError("forfeit_spread_zero", field="line")
    opponent = game.player2 if game.player1_id == entry.pk else game.player1
    before = game_snapshot(game)
    game.player1, game.player2 = entry, None
    game.score1, game.score2 = -spread, None
    game.first = First.NONE
    game.explanation = f"forfeit: did not play #{opponent.number}"
    game.save()
    supersede_self_reports(game)
    win = Game(
        round=game.round,
        board=game.board,
        player1=opponent,
        score1=spread,
        first=First.NONE,
        explanation=f"forfeit win: #{entry.number} did not play",
    )
    win.save()
    audit(
        division.tournament,
        actor,
        "record_forfeit",
        game,
        f"{where}: #{entry.number} {entry.name} forfeits to #{opponent.number} "
        f"{opponent.name} ({spread})",
        before=before,
        after=[game_snapshot(game), game_snapshot(win)],
    )
    return game, win
