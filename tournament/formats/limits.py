"""Limits every reader applies, so a hostile or damaged file is refused with its file and line.

A file is data a director (or anyone who sends one) controls. Without limits, a rating of
10**400 reaches the database as an OverflowError (SQLite) or a DataError (PostgreSQL), a NUL
byte is stored on one database and refused by the other, and ``1e999`` or a thousand nested
brackets crash the reader itself. The readers check these here instead, the same way on every
database. The lengths mirror the model columns the values go into (tests/security checks that
they agree); the readers stay free of Django.
"""

from __future__ import annotations

import re

from .errors import FormatError

# Numbers: ratings from 0 to MAX_RATING (no federation's scale reaches it), scores within
# +-MAX_SCORE (docs/rules.md: a game is scored 0..1500; byes and forfeits go negative), and
# every other whole number at most MAX_DIGITS digits (it fits every database's integer).
MAX_RATING = 3000
MAX_SCORE = 1500
MAX_DIGITS = 9
# Text: the model columns the values are stored in.
MAX_PLAYER_NAME = 200  # Player.name
MAX_MEMBER_ID = 20  # Player.naspa_id
MAX_CLASS = 10  # Entry.player_class
MAX_DIVISION_NAME = 50  # Division.name
MAX_FILE_NAME = 100  # Division.file_name
MAX_EVENT_NAME = 200  # Tournament.name
# Brackets inside brackets: real tourney.js files and config values nest four or five deep.
MAX_DEPTH = 32

# A division's file name: a plain name (never a path) ending in .t, as TSH writes them.
FILE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*\.t\Z")
ASCII_INT = re.compile(r"-?[0-9]+\Z")


def is_file_name(name: str) -> bool:
    """Whether ``name`` is a division file name that can never leave the folder it is put in:
    letters, digits, ``.``, ``_`` and ``-`` only (so no ``/`` or ``\\``), not starting with a
    dot (so not ``..`` nor a hidden file), ending in ``.t``, at most MAX_FILE_NAME long."""
    return (
        isinstance(name, str)
        and len(name) <= MAX_FILE_NAME
        and FILE_NAME.match(name) is not None
        and ".." not in name
    )


def default_file_name(division: str) -> str:
    """The file name for a division that has none: its name made plain ("A" -> "a.t",
    "../../admin" -> "admin.t", "A/B" -> "a-b.t")."""
    stem = re.sub(r"[^a-z0-9_-]+", "-", division.lower()).strip("-_")[:40] or "division"
    return f"{stem}.t"


def check_nul(text: str, source: str) -> None:
    """Refuse a NUL character, naming the line: PostgreSQL cannot store one in text."""
    at = text.find("\0")
    if at >= 0:
        line = text.count("\n", 0, at) + 1
        raise FormatError("the line contains a NUL character (\\0)", source=source, line=line)


def check_length(
    value: str, maximum: int, what: str, *, source: str | None, line: int | None
) -> None:
    if len(value) > maximum:
        raise FormatError(
            f"{what} is {len(value)} characters long; at most {maximum} can be stored",
            source=source,
            line=line,
        )


class Counts:
    """How big a TSH text is, counted line by line before any reader parses it.

    A file of 100,000 player lines or 2,000 divisions took the readers (and then the import)
    past a server's 30-second limit; counting costs a pass over the lines and lets the import
    refuse it at once, naming the limit. ``divisions`` is the most of ``division`` config
    lines and ``#begin_file`` blocks; ``rounds`` the most pairings or scores on one line.
    """

    def __init__(self) -> None:
        self.divisions = 0
        self.players = 0
        self.rounds = 0
        self.player_rounds = 0
        self.widest_line = 0  # the player line with the most rounds (1-based, file order)

    def add(self, other: Counts) -> None:
        self.divisions += other.divisions
        self.players += other.players
        self.player_rounds += other.player_rounds
        if other.rounds > self.rounds:
            self.rounds, self.widest_line = other.rounds, other.widest_line


_DIVISION_LINE = re.compile(r"(?i)division\s+\S+\s+\S+")


def count_tsh(text: str) -> Counts:
    """Count a ``.t``, ``config.tsh`` or ``all.tsh`` text's divisions, player lines and rounds."""
    counts = Counts()
    blocks = config_divisions = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            blocks += line.startswith("#begin_file")
            continue
        head, semicolon, rest = line.partition(";")
        if not semicolon:
            config_divisions += _DIVISION_LINE.match(line) is not None
            continue
        counts.players += 1
        tokens = head.split()
        numbers = 0
        while numbers < len(tokens) and ASCII_INT.match(tokens[-1 - numbers]):
            numbers += 1
        scores = len(rest.split(";", 1)[0].split())
        rounds = max(numbers - 1, scores)
        counts.player_rounds += rounds
        if rounds > counts.rounds:
            counts.rounds, counts.widest_line = rounds, lineno
    counts.divisions = max(blocks, config_divisions)
    return counts


_TOU_LETTER = re.compile("[A-Za-z]")


def count_tou(text: str) -> Counts:
    """Count a ``.TOU`` text's sections (divisions), player lines and rounds, as ``count_tsh``
    does for TSH files: a player line is one holding a letter that does not open with ``*``;
    its rounds are the tokens after its name, two to a round (score, opponent)."""
    counts = Counts()
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("***"):
            continue
        if line.startswith("*M"):
            counts.divisions += 1
            continue
        if line.startswith("*") or not _TOU_LETTER.search(line):
            continue  # a division's name line, or the high-word line
        counts.players += 1
        tokens = line.split()
        name = 0
        while name < len(tokens) and _TOU_LETTER.search(tokens[name]):
            name += 1
        rounds = (len(tokens) - name + 1) // 2
        counts.player_rounds += rounds
        if rounds > counts.rounds:
            counts.rounds, counts.widest_line = rounds, lineno
    return counts
