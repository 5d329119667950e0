"""Checks and lookups every write service shares (scores, numbers, rounds, snapshots)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from ..models import (
    MAX_ABS_SCORE,
    Division,
    Entry,
    Game,
    Round,
)
from .errors import ServiceError

# Real games are scored 0..MAX_PLAYED_SCORE; only byes, forfeits and penalties go negative.
MAX_PLAYED_SCORE = MAX_ABS_SCORE


def _as_int(value: Any, what: str, *, field: str = "") -> int:
    """``value`` as a whole number; ``what`` names it in the refusal (with its place)."""
    if isinstance(value, bool):
        raise ServiceError("not_a_number", field=field, what=what, value=value)
    if isinstance(value, int):
        return value
    try:
        text = str(value).strip()
        if text.lstrip("+-").isdigit():
            return int(text)
    except (TypeError, ValueError):
        pass
    raise ServiceError("not_a_number", field=field, what=what, value=value)


def validate_played_scores(score: Any, opp_score: Any, where: str) -> tuple[int, int]:
    """A played game's scores are whole numbers from 0 to 1500 (spec/rules.md)."""
    a = _as_int(score, f"{where}: score", field="score")
    b = _as_int(opp_score, f"{where}: opponent's score", field="opp_score")
    for value, who, field in ((a, "score", "score"), (b, "opponent's score", "opp_score")):
        if not 0 <= value <= MAX_PLAYED_SCORE:
            raise ServiceError(
                "score_out_of_range",
                field=field,
                where=where,
                who=who,
                value=value,
                maximum=MAX_PLAYED_SCORE,
            )
    return a, b


def validate_bye_score(score: Any, where: str) -> int:
    value = _as_int(score, f"{where}: bye/forfeit score", field="score")
    if not -MAX_ABS_SCORE <= value <= MAX_ABS_SCORE:
        raise ServiceError(
            "bye_score_out_of_range",
            field="score",
            where=where,
            value=value,
            maximum=MAX_ABS_SCORE,
        )
    return value



def _round(division: Division, number: int, *, create: bool = False) -> Round | None:
    if create:
        rnd, _ = Round.objects.get_or_create(division=division, number=number)
        return rnd
    return Round.objects.filter(division=division, number=number).first()


def _entry(division: Division, number: Any, where: str = "", *, field: str = "player") -> Entry:
    """The entry numbered ``number``; ``where`` (e.g. "division A round 3: ") places a refusal."""
    place = where.rstrip(": ") or f"division {division.name}"
    n = _as_int(number, f"{place}: player number", field=field)
    entry = division.entries.select_related("player").filter(number=n).first()
    if entry is None:
        raise ServiceError(
            "unknown_player",
            field=field,
            where=place,
            number=n,
            count=division.entries.count(),
        )
    return entry


def _game_snapshot(game: Game) -> dict[str, Any]:
    return {
        "round": game.round.number,
        "board": game.board,
        "player1": game.player1.number,
        "player2": game.player2.number if game.player2_id else None,
        "score1": game.score1,
        "score2": game.score2,
        "first": game.first,
    }



def _plays(entry: Entry) -> Q:
    return Q(player1=entry) | Q(player2=entry)



def _check_active(entry: Entry, round_number: int, where: str) -> None:
    if entry.withdrawn_round is not None and round_number >= entry.withdrawn_round:
        raise ServiceError(
            "player_withdrawn",
            where=where,
            number=entry.number,
            name=entry.name,
            round=entry.withdrawn_round,
        )


