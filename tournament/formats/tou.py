"""WESPA / AuPair ``.TOU`` files: fixed-width results used by WESPA ratings and AuPair.

Layout, per division (section)::

    *M30.11.2025 Event Name          <- '*M', the date DD.MM.YYYY, a space, the event name
    *A                               <- '*', the division name
                                          0   <- the high-word line (38 spaces, then the score)
    Jackson Smylie       2572 +21  395  17 ...

then, after the last division, ``*** END OF FILE ***``. Each player line is the name
(ASCII, "Given Surname", padded or cut to 20 characters) and, per round, a block of a space,
the outcome (``2`` win, ``1`` tie, space for a loss), the score as three digits, a space, and
the opponent's number right-aligned in 3 characters (4 when the division has over 99 players),
prefixed by ``+`` when the player went first. Lines end in CRLF; the file is ASCII.

A bye or forfeit is a game against oneself (the opponent is the player's own number), which the
rating programs skip. We write a bye as a win scoring the bye spread, a forfeit as a loss
scoring the forfeit's size (``-50`` is written as a loss of ``50``), and a bye scored 0 as a
loss of 0, so that ``parse_tou`` reads back exactly the ``.t`` scores (+50, -50, 0).

Only rounds that are fully scored for the whole division are written: the file is for rating,
and a round with results missing cannot be rated.
"""

from __future__ import annotations

import datetime
import re
import unicodedata

from .errors import FormatError
from .tsh import TshPlayer

__all__ = ["parse_tou", "scored_rounds", "tou_name", "write_tou"]

NAME_WIDTH = 20
HIGH_WORD_LINE = " " * 38 + "0"
END = "*** END OF FILE ***"
CRLF = "\r\n"


def _ascii(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if ord(ch) < 128 and not unicodedata.combining(ch))


def tou_name(name: str) -> str:
    """``Surname, Given`` as AuPair writes it (``Given Surname``), ASCII, at most 20 chars."""
    surname, comma, given = name.partition(",")
    full = f"{given.strip()} {surname.strip()}".strip() if comma else name.strip()
    return _ascii(full)[:NAME_WIDTH]


def scored_rounds(players: list[TshPlayer]) -> int:
    """How many leading rounds have every result of the division entered."""
    complete = 0
    while True:
        rnd = complete + 1
        for p in players:
            if rnd > len(p.opponents) or rnd > len(p.scores):
                return complete
            opp, score = p.opponents[rnd - 1], p.scores[rnd - 1]
            if opp is None or score is None:
                return complete
            if opp:
                theirs = players[opp - 1].scores
                if rnd > len(theirs) or theirs[rnd - 1] is None:
                    return complete
        complete = rnd


def _block(player: TshPlayer, rnd: int, players: list[TshPlayer], width: int, where: str) -> str:
    opp = player.opponents[rnd - 1]
    score = player.scores[rnd - 1]
    assert opp is not None and score is not None
    if opp == 0:
        outcome = "2" if score > 0 else " "
        shown, opponent, first = abs(score), player.number, False
    else:
        other = players[opp - 1].scores[rnd - 1]
        assert other is not None
        outcome = "2" if score > other else "1" if score == other else " "
        p12 = player.fields.get("p12", [])
        shown, opponent = score, opp
        first = rnd <= len(p12) and p12[rnd - 1] == "1"
    if not 0 <= shown <= 999:
        raise FormatError(f"{where} round {rnd}: score {score} does not fit a .TOU file (0-999)")
    field = ("+" if first else "") + str(opponent)
    return f" {outcome}{shown:3d} {field:>{width}}"


def write_tou(
    event_name: str,
    event_date: datetime.date,
    divisions: list[tuple[str, list[TshPlayer]]],
) -> str:
    """Render an event's divisions as one ``.TOU`` file (CRLF, ASCII)."""
    header = f"*M{event_date:%d.%m.%Y} {_ascii(event_name)}"
    lines: list[str] = []
    for division, players in divisions:
        for index, p in enumerate(players, start=1):
            if p.number != index:
                raise FormatError(
                    f"division {division}: player {p.name!r} has number {p.number} "
                    f"but is in position {index}"
                )
        width = 4 if len(players) > 99 else 3
        rounds = scored_rounds(players)
        lines += [header, f"*{_ascii(division)}", HIGH_WORD_LINE]
        for p in players:
            where = f"division {division} player {p.number} ({p.name})"
            blocks = "".join(_block(p, r, players, width, where) for r in range(1, rounds + 1))
            lines.append(f"{tou_name(p.name):<{NAME_WIDTH}}{blocks}")
    lines.append(END)
    return "".join(line + CRLF for line in lines)


_HEADER = re.compile(r"\*M(\d\d)\.(\d\d)\.(\d{4}) ?(.*)\Z")


def parse_tou(
    text: str, *, source: str = "event.tou"
) -> tuple[str, datetime.date | None, list[tuple[str, list[TshPlayer]]]]:
    """Read a ``.TOU`` file: (event name, date, [(division, players)]).

    Players come back with the AuPair name, rating 0, opponents (0 for a game against oneself),
    scores (signed for byes/forfeits as described in the module docstring) and ``p12``.
    """
    event_name, event_date = "", None
    sections: list[tuple[str, list[tuple[int, str]]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        raw = lines[i].rstrip("\r")
        lineno = i + 1
        i += 1
        if not raw.strip() or raw.strip() == END:
            continue
        m = _HEADER.match(raw)
        if m:
            day, month, year, name = m.groups()
            try:
                event_date = datetime.date(int(year), int(month), int(day))
            except ValueError:
                raise FormatError(f"bad date in {raw!r}", source=source, line=lineno) from None
            event_name = name.strip()
            if i >= len(lines) or not lines[i].startswith("*"):
                raise FormatError(
                    "expected a '*DIVISION' line after the '*M' header", source=source, line=i + 1
                )
            sections.append((lines[i].rstrip("\r")[1:].strip(), []))
            i += 2  # the division line and the high-word line
            continue
        if not sections:
            raise FormatError("player line before the '*M' header", source=source, line=lineno)
        sections[-1][1].append((lineno, raw))
    return event_name, event_date, [(name, _parse_section(rows, source)) for name, rows in sections]


def _parse_section(rows: list[tuple[int, str]], source: str) -> list[TshPlayer]:
    width = 4 if len(rows) > 99 else 3
    block = re.compile(r" ([ 12])([ \d]{2}\d) ([ +\d]{" + str(width) + "})")
    players = []
    for number, (lineno, raw) in enumerate(rows, start=1):
        name, rest = raw[:NAME_WIDTH].strip(), raw[NAME_WIDTH:].rstrip()
        opponents: list[int | None] = []
        scores: list[int | None] = []
        p12: list[str] = []
        pos = 0
        while pos < len(rest):
            m = block.match(rest, pos)
            if not m or not re.fullmatch(r" *\+?\d+", m.group(3)):
                raise FormatError(
                    f"bad round block {rest[pos : pos + 2 + 4 + width]!r} for {name!r}",
                    source=source,
                    line=lineno,
                )
            outcome, score = m.group(1), int(m.group(2))
            field = m.group(3).strip()
            opp = int(field.lstrip("+"))
            if opp < 1 or opp > len(rows):
                raise FormatError(
                    f"round {len(opponents) + 1}: opponent {opp} of {name!r} is not a player",
                    source=source,
                    line=lineno,
                )
            if opp == number:
                opponents.append(0)
                scores.append(score if outcome == "2" else -score)
                p12.append("0")
            else:
                opponents.append(opp)
                scores.append(score)
                p12.append("1" if field.startswith("+") else "2")
            pos = m.end()
        player = TshPlayer(number, name, "", 0, opponents, scores, {"p12": p12}, lineno)
        players.append(player)
    return players
