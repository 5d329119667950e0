"""Input checks that reads and writes both need: numbers, scores, text, settings, entry lookups.

A selector that takes a player number from a URL and a service that records a result check it
the same way, so the refusal (a ServiceError with its code, field and parameters) is the same
whichever door it came through. Nothing here writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext_noop

from tournament.errors import Phrase, ServiceError, phrase_what, where_division
from tournament.formats.limits import is_file_name
from tournament.models import MAX_ABS_SCORE, Division, Entry, Game

# Real games are scored 0..MAX_PLAYED_SCORE; only byes, forfeits and penalties go negative.
MAX_PLAYED_SCORE = MAX_ABS_SCORE


# limits: the largest whole number every database's integer column holds (PostgreSQL's
# ``integer``); a bigger one is refused here rather than as a database error (an
# OverflowError on SQLite, a DataError on PostgreSQL).
MAX_STORED_INT = 2**31 - 1


_ASCII_INT = re.compile(r"[+-]?[0-9]+\Z")


def as_int(value: Any, what: str, *, field: str = "") -> int:
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
            raise ServiceError(
                "number_too_large",
                field=field,
                what=what,
                value=f"{text[:12]}...",
                minimum=-MAX_STORED_INT,
                maximum=MAX_STORED_INT,
            )
        number = int(text)
    if not -MAX_STORED_INT <= number <= MAX_STORED_INT:
        shown = str(number) if number.bit_length() < 64 else "a number of that size"
        raise ServiceError(
            "number_too_large",
            field=field,
            what=what,
            value=shown,
            minimum=-MAX_STORED_INT,
            maximum=MAX_STORED_INT,
        )
    return number


# Unicode's embedding, override and isolate controls: invisible, they make a name display as
# something else ("\u202eevoL nnA" shows as "Ann Love" reversed), so no name may carry them.
# Letters of right-to-left scripts themselves (Arabic, Hebrew) are names like any other.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def refuse_bidi_controls(text: str, what: str, *, field: str = "") -> str:
    """``text``, unless it carries a direction override or isolate control (refused)."""
    found = next((ch for ch in text if ch in BIDI_CONTROLS), None)
    if found is not None:
        raise ServiceError("bidi_control", field=field, what=what, code_point=f"U+{ord(found):04X}")
    return text


def refuse_tsh_separator(name: str, what: str, *, field: str = "name") -> str:
    """``name`` unless it holds ';': in a TSH ``.t`` line ';' ends the name and pairings, so a
    name carrying one cannot be written to the event's files (all.tsh, .t) and read back."""
    if ";" in name:
        raise ServiceError("name_semicolon", field=field, what=what, name=name)
    return name


def check_class_word(value: str, what: str, *, field: str = "player_class") -> str:
    """A typed class is one word: TSH writes ``; class X`` and a space or ';' would split it."""
    if ";" in value or len(value.split()) > 1:
        raise ServiceError("class_one_word", field=field, what=what, value=value)
    return value


def check_text(value: Any, what: str, model: Any, column: str, *, field: str = "") -> str:
    """``value`` as text that ``model.column`` stores the same way on every database.

    SQLite keeps a NUL character and any length; PostgreSQL refuses both with a database
    error. Refusing them here gives one clear message, naming ``what``, on both. Direction
    controls are refused too (BIDI_CONTROLS).
    """
    text = "" if value is None else str(value)
    if "\x00" in text:
        raise ServiceError("nul_character", field=field, what=what)
    refuse_bidi_controls(text, what, field=field)
    limit = model._meta.get_field(column).max_length
    if limit is not None and len(text) > limit:
        raise ServiceError("text_too_long", field=field, what=what, maximum=limit, length=len(text))
    return text


# whose score a refusal names
SCORE = Phrase(gettext_noop("score"))
OPPONENTS_SCORE = Phrase(gettext_noop("opponent's score"))


def validate_played_scores(score: Any, opp_score: Any, where: str) -> tuple[int, int]:
    """A played game's scores are whole numbers from 0 to 1500 (docs/rules.md)."""
    a = as_int(score, phrase_what(where, gettext_noop("{where}: score")), field="score")
    b = as_int(
        opp_score, phrase_what(where, gettext_noop("{where}: opponent's score")), field="opp_score"
    )
    scores = ((a, SCORE, "score"), (b, OPPONENTS_SCORE, "opp_score"))
    for value, who, field in scores:
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
    value = as_int(
        score, phrase_what(where, gettext_noop("{where}: bye/forfeit score")), field="score"
    )
    if not -MAX_ABS_SCORE <= value <= MAX_ABS_SCORE:
        raise ServiceError(
            "bye_score_out_of_range",
            field="score",
            where=where,
            value=value,
            maximum=MAX_ABS_SCORE,
        )
    return value


def entry_by_number(
    division: Division, number: Any, where: str = "", *, field: str = "player"
) -> Entry:
    """The entry numbered ``number``; ``where`` (e.g. "division A round 3: ") places a refusal."""
    place = where if isinstance(where, Phrase) else where.rstrip(": ") or where_division(division)
    n = as_int(number, phrase_what(place, gettext_noop("{where}: player number")), field=field)
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


def plays(entry: Entry) -> Q:
    return Q(player1=entry) | Q(player2=entry)


def check_active(entry: Entry, round_number: int, where: str) -> None:
    if entry.withdrawn_round is not None and round_number >= entry.withdrawn_round:
        raise ServiceError(
            "player_withdrawn",
            where=where,
            number=entry.number,
            name=entry.name,
            round=entry.withdrawn_round,
        )


# A spread or score beyond what any game can carry is a typing slip, not a setting.
MAX_SETTING_SPREAD = 1500


MAX_DIVISION_ROUNDS = 200


def check_file_name(value: Any, *, field: str = "file_name") -> str:
    """A division's TSH file name: a plain name ending in .t, never a path.

    Exports write the file under this name and the all.tsh archive carries it to whoever
    unpacks it, so "/tmp/x.t" or "../../x.t" would put player lines a director typed anywhere
    on the computer; only letters, digits, '.', '_' and '-' are taken, not starting with a dot.
    """
    text = "" if value is None else str(value).strip()
    if not is_file_name(text):
        raise ServiceError("bad_file_name", field=field, what="file name", value=text[:100])
    return text


def model_choices(model: type, field: str) -> list[str]:
    return [str(value) for value, _ in model._meta.get_field(field).choices]


def setting_int(
    value: Any,
    field: str,
    what: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    optional: bool = False,
) -> int | None:
    """A whole-number setting within its bounds, refused at ``field`` otherwise."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if optional:
            return None
        raise ServiceError("setup_required", field=field, what=what)
    if isinstance(value, bool):
        raise ServiceError("setup_not_number", field=field, what=what, value=value)
    # limits: digits 0-9 only (int() also reads "١٥٠٠" and "1_000"), and a number too long
    # to store is refused by its first digits, never converted.
    text = str(value).strip()
    if not isinstance(value, int) and not re.fullmatch(r"[+-]?[0-9]+", text):
        if text.lstrip("+-").isdigit():
            raise ServiceError("non_ascii_digits", field=field, what=what, value=text[:40])
        raise ServiceError("setup_not_number", field=field, what=what, value=text[:40])
    shown: Any = text if len(text) <= 20 else f"{text[:12]}..."
    number = int(text) if len(text.lstrip("+-0")) <= 12 else None
    low = minimum if minimum is not None else -MAX_STORED_INT
    high = maximum if maximum is not None else MAX_STORED_INT
    if number is None or not low <= number <= high:
        negative = number < low if number is not None else text.startswith("-")
        if negative and minimum is not None:
            raise ServiceError(
                "setup_too_small", field=field, what=what, minimum=minimum, value=shown
            )
        if not negative and maximum is not None:
            raise ServiceError(
                "setup_too_large", field=field, what=what, maximum=maximum, value=shown
            )
        raise ServiceError(
            "number_too_large", field=field, what=what, value=shown, minimum=low, maximum=high
        )
    return number


def setting_date(value: Any, field: str, what: str) -> Any:
    import datetime as dt

    if value is None or value == "":
        return None
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise ServiceError("not_a_date", field=field, what=what, value=value) from None


def setting_choice(value: Any, field: str, what: str, choices: Iterable[str]) -> str:
    choices = list(choices)
    if value not in choices:
        raise ServiceError(
            "setup_choice", field=field, what=what, value=value, choices=", ".join(choices)
        )
    return str(value)


def setting_text(
    value: Any, field: str, what: str, max_length: int, *, required: bool = False
) -> str:
    text = "" if value is None else str(value).strip()
    if required and not text:
        raise ServiceError("setup_required", field=field, what=what)
    if len(text) > max_length:
        raise ServiceError(
            "setup_too_large",
            f"{what} is longer than {max_length} characters",
            field=field,
            what=what,
            maximum=max_length,
            value=len(text),
        )
    return text


# How a forfeit's two single games name each other (tournament.services.results writes them).
_OPPONENT = re.compile(
    r"^(?:forfeit: did not play #(\d+)|forfeit win: #(\d+) did not play"
    r"|double forfeit: did not play #(\d+))$"
)


def forfeit_opponent(game: Game) -> int | None:
    """The opponent's number of a single game that is one side of a forfeit, else None.

    A bye, a withdrawn player's forfeit or a late entry's missed round names nobody: they are
    pairings, not results between two players.
    """
    if game.player2_id is not None:
        return None
    match = _OPPONENT.match(game.explanation or "")
    if match is None:
        return None
    return int(next(g for g in match.groups() if g))
