"""Checks and lookups every write service shares (scores, numbers, rounds, snapshots)."""

from __future__ import annotations

import re
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


# limits: the largest whole number every database's integer column holds (PostgreSQL's
# ``integer``); a bigger one is refused here rather than as a database error (an
# OverflowError on SQLite, a DataError on PostgreSQL).
MAX_STORED_INT = 2**31 - 1
_ASCII_INT = re.compile(r"[+-]?[0-9]+\Z")


def _as_int(value: Any, what: str, *, field: str = "") -> int:
    """``value`` as a whole number; ``what`` names it in the refusal (with its place).

    Only the digits 0-9 count: Python's int() also reads Arabic-Indic and other digits
    ("١٥٠٠" is 1500), which a director never meant to type as a number. Anything beyond
    what a database column holds is refused with its range.
    """
    if isinstance(value, bool):
        raise ServiceError("not_a_number", field=field, what=what, value=value)
    if isinstance(value, int):
        number = value
    else:
        try:
            text = str(value).strip()
        except (TypeError, ValueError):
            raise ServiceError("not_a_number", field=field, what=what, value=value) from None
        if not _ASCII_INT.match(text):
            if text.lstrip("+-").isdigit():
                raise ServiceError("non_ascii_digits", field=field, what=what, value=text[:40])
            raise ServiceError("not_a_number", field=field, what=what, value=text[:40])
        if len(text.lstrip("+-0")) > 10:
            raise ServiceError("number_too_large", field=field, what=what,
                               value=f"{text[:12]}...", minimum=-MAX_STORED_INT,
                               maximum=MAX_STORED_INT)
        number = int(text)
    if not -MAX_STORED_INT <= number <= MAX_STORED_INT:
        shown = str(number) if number.bit_length() < 64 else "a number of that size"
        raise ServiceError("number_too_large", field=field, what=what, value=shown,
                           minimum=-MAX_STORED_INT, maximum=MAX_STORED_INT)
    return number


def check_text(value: Any, what: str, model: Any, column: str, *, field: str = "") -> str:
    """``value`` as text that ``model.column`` stores the same way on every database.

    SQLite keeps a NUL character and any length; PostgreSQL refuses both with a database
    error. Refusing them here gives one clear message, naming ``what``, on both.
    """
    text = "" if value is None else str(value)
    if "\x00" in text:
        raise ServiceError("nul_character", field=field, what=what)
    limit = model._meta.get_field(column).max_length
    if limit is not None and len(text) > limit:
        raise ServiceError("text_too_long", field=field, what=what, maximum=limit,
                           length=len(text))
    return text


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


