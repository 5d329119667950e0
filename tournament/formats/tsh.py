"""TSH ``.t`` division files: one player per line, the line order is the player number.

    NAME  RATING  OPP1 OPP2 ...; SCORE1 SCORE2 ...[; KEY V1 V2 ...]...

TSH files are edited by hand between rounds, so the reader is strict about the things that
would silently corrupt standings (a pairing one side does not confirm, a score with no pairing,
an opponent number that does not exist) and reports each with the file and line to fix. It is
lenient about everything it does not need to understand: unknown ``; key values`` fields are
kept as raw tokens, in file order, and written back unchanged.

The token ``00`` means "undefined" in pairings and scores; it reads as ``None`` and is written
back as ``00``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

from ..standings import PlayerRound, StandingsPlayer
from .errors import FormatError
from .limits import (
    MAX_CLASS,
    MAX_DIGITS,
    MAX_MEMBER_ID,
    MAX_PLAYER_NAME,
    MAX_RATING,
    MAX_SCORE,
    check_length,
    check_nul,
)

# limits: digits are 0-9 only (re's \d, like int(), also reads "١٥٠٠" as 1500).
_INT = re.compile(r"-?[0-9]+\Z")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NUMBERISH = re.compile(r"-?[0-9](?!.*,\Z)")
_ORDINAL = re.compile(r"[0-9]+(st|nd|rd|th)\Z", re.IGNORECASE)
# A team entry's rating: its members' ratings joined by '+' (TSH's team form, e.g. '0+0+0').
_TEAM_RATING = re.compile(r"[0-9]+(?:\+[0-9]+)+\Z")
UNDEFINED = "00"

# Fields whose values must all be integers; checked when the file is read so that a typo is
# reported with its line instead of surfacing later as a crash in standings or ratings.
_INT_LIST_FIELDS = ("p12", "newr", "rrank", "board", "penalty")
_INT_SCALAR_FIELDS = ("lifeg", "off")
# Fields that may hold a team's rating as written ('0+0+0'): a rating estimate under TSH's
# rating system 'none' is a copy of the entry's rating (Ratings::None, docs/formats.md).
_TEAM_FORM_FIELDS = ("newr",)
# limits: the range of each number a line carries, beyond the digit count every number has.
_FIELD_RANGES = {
    "p12": (0, 4),
    "board": (0, 10**MAX_DIGITS - 1),
    "lifeg": (0, 10**MAX_DIGITS - 1),
    "off": (-MAX_SCORE, MAX_SCORE),
}


@dataclass
class TshPlayer:
    """One line of a ``.t`` file, numbers already parsed, extra fields kept raw."""

    number: int
    name: str
    member_id: str
    rating: int
    opponents: list[int | None]
    scores: list[int | None]
    fields: dict[str, list[str]] = field(default_factory=dict)
    line: int = field(default=0, compare=False)
    # A team entry's rating as written ('1500+1400+0'); ``rating`` is then the members' mean.
    rating_text: str = ""

    # The typed helpers read ``fields`` on demand so that ``fields`` stays the single source of
    # truth (an edit to ``fields`` can never disagree with a cached typed copy).
    def _ints(self, key: str) -> list[int]:
        return [_int_value(tok, key, self) for tok in self.fields.get(key, [])]

    def _int(self, key: str) -> int | None:
        values = self.fields.get(key)
        if not values:
            return None
        return _int_value(values[0], key, self)

    @property
    def p12(self) -> list[int]:
        """Per round: 0 bye, 1 first, 2 second, 3 must draw, 4 unknown."""
        return self._ints("p12")

    @property
    def newr(self) -> list[int]:
        """The rating estimate TSH printed after each round (a team's 'a+b+c': the mean)."""
        return [
            team_rating([int(m) for m in tok.split("+")])
            if _TEAM_RATING.match(tok)
            else _int_value(tok, "newr", self)
            for tok in self.fields.get("newr", [])
        ]

    @property
    def rrank(self) -> list[int]:
        """Rank after each round; index 0 is the rank before round 1."""
        return self._ints("rrank")

    @property
    def board(self) -> list[int]:
        return self._ints("board")

    @property
    def penalty(self) -> list[int]:
        return self._ints("penalty")

    @property
    def lifeg(self) -> int | None:
        """Career games before the event (``None`` when the file does not say)."""
        return self._int("lifeg")

    @property
    def off(self) -> int | None:
        """Set when the player withdrew: the score recorded for every later round."""
        return self._int("off")

    @property
    def player_class(self) -> str | None:
        values = self.fields.get("class")
        return " ".join(values) if values else None

    @property
    def full_name(self) -> str:
        """The name as TSH writes it, with the ``:ID`` suffix when there is one."""
        return f"{self.name}:{self.member_id}" if self.member_id else self.name


def _int_value(token: str, key: str, player: TshPlayer) -> int:
    if not _INT.match(token):
        raise FormatError(
            f"player {player.number} ({player.name}): field '{key}' value {token!r} "
            "is not an integer",
            line=player.line or None,
        )
    return int(token)


def _is_int(token: str) -> bool:
    return _INT.match(token) is not None


def _parse_number(token: str) -> int | None:
    return None if token == UNDEFINED else int(token)


def _split_name(raw: str) -> tuple[str, str]:
    """Split ``Surname, Given:ID`` into name and member id.

    A name that ends in a digit is written with a trailing comma so that the digit is not
    taken for the rating; the comma is not part of the name.
    """
    name, member_id = raw, ""
    if ":" in raw:
        name, _, member_id = raw.rpartition(":")
        name, member_id = name.strip(), member_id.strip()
    if name.endswith(",") and name[:-1].rstrip()[-1:].isdigit():
        name = name[:-1].rstrip()
    return name, member_id


def _other_digits(token: str) -> bool:
    """A number written with digits other than 0-9 ("١٥٠٠"): refused, never read as one."""
    body = token.lstrip("-")
    return bool(body) and body.isdigit() and not body.isascii()


def _check_number(value: str, what: str, low: int, high: int, fail) -> None:
    if len(value.lstrip("-")) > MAX_DIGITS or not low <= int(value) <= high:
        shown = value if len(value) <= 20 else f"{value[:12]}... ({len(value)} digits)"
        raise fail(f"{what} {shown} is out of range ({low}..{high})")


def _parse_line(text: str, number: int, lineno: int, source: str) -> TshPlayer:
    def fail(message: str) -> FormatError:
        return FormatError(message, source=source, line=lineno)

    for tok in text.replace(";", " ").split():
        if _other_digits(tok):
            raise fail(f"{tok!r} uses digits other than 0-9; write numbers with 0-9")

    if ";" not in text:
        raise fail(
            "malformed player line: no ';' after the pairings "
            "(expected 'NAME RATING OPP1 OPP2 ...; SCORE1 SCORE2 ...')"
        )
    head, *segments = text.split(";")
    tokens = head.split()
    # The name is everything before the last run of integers that precedes the first ';'.
    cut = len(tokens)
    while cut > 0 and _is_int(tokens[cut - 1]):
        cut -= 1
    team_text = ""
    if cut > 1 and _TEAM_RATING.match(tokens[cut - 1]):
        cut -= 1  # a team entry: the members' ratings joined by '+' are the rating
        team_text = tokens[cut]
    name_tokens, numbers = tokens[:cut], tokens[cut:]
    if not numbers:
        bad = tokens[-1] if tokens else ""
        raise fail(
            "malformed player line: no rating before the first ';'"
            + (f" (found {bad!r})" if bad else "")
        )
    if not name_tokens:
        raise fail("malformed player line: no player name before the rating")
    # A bare integer inside the name means a non-integer token interrupted the
    # rating/opponent run (names ending in a digit must carry a trailing comma).
    for i, tok in enumerate(name_tokens):
        if _is_int(tok):
            bad = next((t for t in name_tokens[i + 1 :] if not _is_int(t)), tok)
            raise fail(
                f"non-integer token {bad!r} among the rating and opponents "
                "(a name ending in a digit is written with a trailing comma)"
            )
    # A name token that starts like a number right before the rating is almost always a
    # mistyped rating or opponent ("15x0"), not part of the name; ordinals ("2nd") and the
    # trailing-comma form ("3,") are names.
    last = name_tokens[-1]
    if _NUMBERISH.match(last) and not _ORDINAL.match(last) and ":" not in last:
        raise fail(f"non-integer token {last!r} where the rating or an opponent was expected")
    # The name as written, inner spacing and all: readers match players by exact name, and real
    # feeds carry double spaces inside names (214 entries), so they are never collapsed.
    spans = [m.span() for m in re.finditer(r"\S+", head)]
    name, member_id = _split_name(head[spans[0][0] : spans[cut - 1][1]])
    if not name:
        raise fail("malformed player line: empty player name")
    check_length(name, MAX_PLAYER_NAME, f"player {number}'s name", source=source, line=lineno)
    check_length(
        member_id, MAX_MEMBER_ID, f"player {number}'s member id", source=source, line=lineno
    )
    if team_text:
        members = team_text.split("+")
        for tok in members:
            _check_number(tok, f"player {number} ({name}): team rating", 0, MAX_RATING, fail)
        rating = team_rating([int(tok) for tok in members])
    else:
        if int(numbers[0]) < 0 and len(numbers[0]) <= 20:
            raise fail(f"rating {numbers[0]} is negative")
        _check_number(numbers[0], f"player {number} ({name}): rating", 0, MAX_RATING, fail)
        rating = int(numbers[0])
    for tok in numbers[1:]:
        _check_number(tok, f"player {number} ({name}): opponent", 0, 10**MAX_DIGITS - 1, fail)
    opponents = [_parse_number(tok) for tok in numbers[1:]]

    score_tokens = segments[0].split()
    for tok in score_tokens:
        if not _is_int(tok):
            raise fail(f"non-integer score {tok!r} for player {number} ({name})")
        # The game rules (0..1500, byes and forfeits negative) are the import's to word.
        _check_number(
            tok, f"player {number} ({name}): score", -(10**MAX_DIGITS) + 1, 10**MAX_DIGITS - 1, fail
        )
    scores = [_parse_number(tok) for tok in score_tokens]

    fields: dict[str, list[str]] = {}
    for segment in segments[1:]:
        parts = segment.split()
        if not parts:
            continue
        key, values = parts[0], parts[1:]
        if not _KEY.match(key):
            raise fail(f"malformed field name {key!r} (expected '; key value ...')")
        if key in fields:
            raise fail(f"field '{key}' appears twice for player {number} ({name})")
        fields[key] = values

    player = TshPlayer(
        number, name, member_id, rating, opponents, scores, fields, lineno, rating_text=team_text
    )
    check_fields(player, fail)
    return player


def read_team_rating(text: str, where: str) -> int:
    """A team rating written as text (a feed's ``"rating": "0+0+0"``): its members' mean."""
    if not _TEAM_RATING.match(text):
        raise FormatError(f"{where}: {text!r} is neither a rating nor a team's 'a+b+c'")
    members = text.split("+")
    for tok in members:
        if len(tok) > MAX_DIGITS or int(tok) > MAX_RATING:
            raise FormatError(f"{where}: team rating {text!r} is out of range (0..{MAX_RATING})")
    return team_rating([int(tok) for tok in members])


def team_rating(members: list[int]) -> int:
    """The one rating a team entry is seeded and paired by: its members' mean, rounded.

    The mean keeps a team comparable with the individual ratings beside it (a sum would put
    every team of three above every player). We found no statement of TSH's own rule; the real
    school events that use the form are all '0+0+0', where sum, mean and the first member agree.
    """
    return round(sum(members) / len(members)) if members else 0


def check_fields(player: TshPlayer, fail) -> None:
    """The typed fields' values are whole numbers within their ranges and the class fits.

    Shared with the tourney.js reader, whose players arrive already split into fields.
    ``fail(message)`` makes the error that places the player (file and line).
    """
    number, name = player.number, player.name
    for key in _INT_LIST_FIELDS + _INT_SCALAR_FIELDS:
        low, high = _FIELD_RANGES.get(key, (-(10**MAX_DIGITS) + 1, 10**MAX_DIGITS - 1))
        for tok in player.fields.get(key, []):
            if _other_digits(tok):
                raise fail(f"{tok!r} uses digits other than 0-9; write numbers with 0-9")
            if key in _TEAM_FORM_FIELDS and _TEAM_RATING.match(tok):
                # TSH's rating system 'none' copies a team's 'a+b+c' rating into its estimate
                for member in tok.split("+"):
                    what = f"player {number} ({name}): field '{key}' member"
                    _check_number(member, what, 0, MAX_RATING, fail)
                continue
            if not _is_int(tok):
                raise fail(
                    f"player {number} ({name}): field '{key}' value {tok!r} is not an integer"
                )
            _check_number(tok, f"player {number} ({name}): field '{key}' value", low, high, fail)
    if player.player_class is not None and len(player.player_class) > MAX_CLASS:
        raise fail(
            f"player {number}'s class is {len(player.player_class)} characters long; at most "
            f"{MAX_CLASS} can be stored"
        )


def parse_t(text: str, *, source: str = "<string>", check: bool = True) -> list[TshPlayer]:
    """Read a ``.t`` file's text; raise ``FormatError`` (with source and line) on bad input.

    ``check=False`` leaves the pairings unchecked, for a validator that reports every broken
    pairing of a file (interchange.federation) rather than stopping at the first."""
    if text.startswith("\ufeff"):
        text = text[1:]
    check_nul(text, source)
    players: list[TshPlayer] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        players.append(_parse_line(line, len(players) + 1, lineno, source))
    if check:
        check_pairings(players, source)
    return players


def check_pairings(players: list[TshPlayer], source: str) -> None:
    count = len(players)
    for p in players:

        def fail(message: str, p: TshPlayer = p) -> FormatError:
            return FormatError(message, source=source, line=p.line or None)

        if len(p.scores) > len(p.opponents):
            raise fail(
                f"player {p.number} ({p.name}) has {len(p.scores)} scores but only "
                f"{len(p.opponents)} pairings (scores may not run ahead of pairings)"
            )
        for rnd, opp in enumerate(p.opponents, start=1):
            if opp is None or opp == 0:
                continue
            if opp < 0 or opp > count:
                raise fail(
                    f"round {rnd}: player {p.number} ({p.name}) has opponent {opp}, which is "
                    f"not a player number (1-{count}, or 0 for a bye)"
                )
            if opp == p.number:
                raise fail(f"round {rnd}: player {p.number} ({p.name}) is paired with himself")
            other = players[opp - 1]
            back = other.opponents[rnd - 1] if rnd <= len(other.opponents) else None
            if rnd > len(other.opponents):
                raise fail(
                    f"round {rnd}: player {p.number} ({p.name}) is paired with player "
                    f"{opp} ({other.name}), but player {opp} has no pairing in round {rnd}"
                )
            if back is not None and back != p.number:
                who = "a bye" if back == 0 else f"player {back} ({players[back - 1].name})"
                raise fail(
                    f"round {rnd}: player {p.number} ({p.name}) is paired with player "
                    f"{opp} ({other.name}), but player {opp} is paired with {who}"
                )


def decode_bytes(data: bytes) -> str:
    """Old TSH files are ISO-8859-1, newer ones UTF-8; a byte-order mark is ignored."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("iso-8859-1")


def read_t(path: str | PathLike[str]) -> list[TshPlayer]:
    path = Path(path)
    return parse_t(decode_bytes(path.read_bytes()), source=path.name)


def _token(value: int | None) -> str:
    return UNDEFINED if value is None else str(value)


def _written_name(player: TshPlayer) -> str:
    name = player.name
    if name[-1:].isdigit() and not player.member_id:
        name += ","
    if player.member_id:
        name = f"{name}:{player.member_id}"
    return name


def write_t(players: list[TshPlayer]) -> str:
    """Render players as a ``.t`` file, each line as TSH's ``TFile::FormatLine`` writes it.

    Players are written in list order, so their ``number`` must match their position: the
    line order *is* the numbering and a mismatch would silently re-pair everyone.
    """
    for index, p in enumerate(players, start=1):
        if p.number != index:
            raise FormatError(
                f"player {p.name!r} has number {p.number} but is in position {index}; "
                "a .t file numbers players by line order"
            )
        if not p.name or ";" in p.name or "\n" in p.name or p.name.strip() != p.name:
            raise FormatError(f"player {index}: name {p.name!r} cannot be written in a .t file")
        for key, values in p.fields.items():
            if not _KEY.match(key) or any(";" in v or not v or v.split() != [v] for v in values):
                raise FormatError(f"player {index} ({p.name}): field {key!r} cannot be written")
    lines = []
    for p in players:
        rating = p.rating_text or str(p.rating)  # a team's 'a+b+c' is written back as it came
        # TSH's TFile::FormatLine: sprintf("%-22s %5s %s; %s", name, rating, opponents,
        # scores), so a player not yet paired has "RATING ; " (the space before ';' and the
        # one after stay) and no line is shorter than 31 characters (a reader skips shorter
        # ones); then every extra field with values as "; KEY V1 V2", the keys in alphabetical
        # order, an empty field left out
        opponents = " ".join(map(_token, p.opponents))
        name = _written_name(p)
        line = f"{name:<22} {rating:>5} {opponents}; {' '.join(map(_token, p.scores))}"
        for key in sorted(p.fields):
            if p.fields[key]:
                line += "; " + " ".join([key, *p.fields[key]])
        lines.append(line + "\n")
    return "".join(lines)


def withdrawn_round(player: TshPlayer) -> int | None:
    """The first round a withdrawn (``off``) player no longer plays, or ``None`` if active.

    TSH records every round after a withdrawal as a forfeit with the ``off`` score, so the
    withdrawal starts at the trailing run of such rounds (or after the last round when the
    player withdrew before it was paired).
    """
    off = player.off
    if off is None:
        return None
    first = len(player.opponents) + 1
    for rnd in range(len(player.opponents), 0, -1):
        if player.opponents[rnd - 1] == 0 and (
            rnd > len(player.scores) or player.scores[rnd - 1] in (off, None)
        ):
            first = rnd
        else:
            break
    return first


def standings_input(players: list[TshPlayer]) -> tuple[list[StandingsPlayer], list[PlayerRound]]:
    """Turn a division file into the inputs of ``tournament.standings.compute_standings``."""
    entrants = [StandingsPlayer(p.number, p.name, p.rating, withdrawn_round(p)) for p in players]
    rounds: list[PlayerRound] = []
    for p in players:
        for rnd, opp in enumerate(p.opponents, start=1):
            if opp is None:
                continue
            score = p.scores[rnd - 1] if rnd <= len(p.scores) else None
            if opp == 0:
                rounds.append(PlayerRound(rnd, p.number, None, score, None))
                continue
            other = players[opp - 1]
            their = other.scores[rnd - 1] if rnd <= len(other.scores) else None
            rounds.append(PlayerRound(rnd, p.number, opp, score, their))
    return entrants, rounds
