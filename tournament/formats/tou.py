"""WESPA / AuPair ``.TOU`` files: fixed-width results used by WESPA ratings and AuPair.

Layout, per division (section)::

    *M30.11.2025 Event Name          <- '*M', the date DD.MM.YYYY, a space, the event name
    *A                               <- '*', the division name
                                          0   <- the high-word line (38 spaces, then the score)
    Jackson Smylie       2572  21 2388  +9  345   4 ...

then, after the last division, ``*** END OF FILE ***``. Each player line is the name (see
below, padded to 20 characters) and, per round, a block of a space, the outcome (``2`` win,
``1`` tie, space for a loss), the score as three zero-padded digits, a space, and the
opponent's number right-aligned in 3 characters (4 when the division has over 99 players),
prefixed by ``+`` when the player went first. Lines end in CRLF; the file is ASCII.

The rating programs do not read columns: they ``split()`` a player line, take the leading
tokens that contain a letter as the name, then pairs of (outcome and score, opponent), the
score being the first token ``% 1000``. Hence the zero padding (``2 50`` would be two tokens)
and the name rules: transliterated to ASCII letters (``Ł`` -> ``L``, ``ß`` -> ``ss``,
Cyrillic too), a token without a letter (``2``, ``&``) glued to its neighbour (``Smith-2``),
no leading ``*`` (that starts a section), ``Player-N`` when nothing Latin is left, and unique
within the division (case-insensitively, as they match players by name): a later duplicate,
often made by the 20-character cut, ends in ``-2``, ``-3``...

A bye or forfeit is a game against oneself: the opponent is the player's own number, which the
rating programs skip. Facts from the public repository cocoscrabble/ratings (a Python rating
program): its real AuPair file ``testdata/isropn20.tou`` writes a bye as ``2001  +9`` (a win, a
``+`` on the player's own number) and an absent player's round as ``   0  24`` (a loss of 0 on
the own number, no ``+``); its ``TouReader`` (``rating.py``, and its later ``coco_ratings`` package)
splits the line, reads the score as ``int(token) % 1000`` and the opponent as ``int(token)``
(dropping the ``+``). So we write, on the player's own number:

- a bye as a win with the ``+`` marker and the bye spread: ``2050 +N`` (the real file's form;
  we keep our spread where AuPair puts ``001``, so the event's spread survives);
- a forfeit as a loss, no ``+``, the forfeit's size: -50 is `` 050  N`` (the real file's form
  for a round not played); a 0 against oneself is `` 000  N``.

The sign of a forfeit is the outcome column, a space for a loss, as for every other game: a
reader that keeps the outcome (``int(token) // 1000``: 2 win, 1 tie, 0 loss) gets -50 back.
No token can make that ``TouReader`` give a negative score: Python's ``% 1000`` is never
negative, and ``-050`` would be read as 950, so we never write a minus sign (it would also
break readers that take the outcome from its column). That reader skips games against oneself
when rating, so the value there changes no rating. ``parse_tou`` reads the old form (no ``+``
on a bye) and the new one alike: against oneself, outcome 2 is +score, anything else -score.
Which player went first in a bye or forfeit is not kept: ``parse_tou`` gives p12 0 for every
game against oneself.

Only rounds that are fully scored for the whole division are written: the file is for rating,
and a round with results missing cannot be rated.
"""

from __future__ import annotations

import datetime
import re
import unicodedata

from .errors import FormatError
from .limits import check_nul
from .tsh import TshPlayer

__all__ = ["parse_tou", "scored_rounds", "tou_name", "tou_names", "write_tou"]

NAME_WIDTH = 20
HIGH_WORD_LINE = " " * 38 + "0"
END = "*** END OF FILE ***"
CRLF = "\r\n"

# Letters NFKD leaves alone (no ASCII base letter to fall back on), and punctuation whose ASCII
# twin a reader would expect. Looked up before and after decomposition, so "ǽ" (ae with an
# acute) becomes "ae" and "Й" becomes "Y" rather than the "I" its decomposition gives.
_LATIN = {
    "Æ": "Ae",
    "æ": "ae",
    "Ð": "D",
    "ð": "d",
    "Ø": "O",
    "ø": "o",
    "Þ": "Th",
    "þ": "th",
    "ß": "ss",
    "ẞ": "SS",
    "Đ": "D",
    "đ": "d",
    "Ħ": "H",
    "ħ": "h",
    "ı": "i",
    "ĸ": "k",
    "Ł": "L",
    "ł": "l",
    "Ŋ": "N",
    "ŋ": "n",
    "Œ": "Oe",
    "œ": "oe",
    "Ŧ": "T",
    "ŧ": "t",
    "ƀ": "b",
    "Ɓ": "B",
    "Ɔ": "O",
    "Ƈ": "C",
    "ƈ": "c",
    "Ɖ": "D",
    "Ɗ": "D",
    "Ǝ": "E",
    "Ə": "E",
    "Ɛ": "E",
    "Ƒ": "F",
    "ƒ": "f",
    "Ɠ": "G",
    "Ɣ": "G",
    "Ɨ": "I",
    "Ƙ": "K",
    "ƙ": "k",
    "ƚ": "l",
    "Ɲ": "N",
    "Ɵ": "O",
    "Ƥ": "P",
    "ƥ": "p",
    "Ƭ": "T",
    "ƭ": "t",
    "Ʈ": "T",
    "Ʋ": "V",
    "Ƴ": "Y",
    "ƴ": "y",
    "Ƶ": "Z",
    "ƶ": "z",
    "Ʒ": "Z",
    "ǝ": "e",
    "Ǥ": "G",
    "ǥ": "g",
    "ȷ": "j",
    "Ȼ": "C",
    "ȼ": "c",
    "Ƀ": "B",
    "Ʉ": "U",
    "Ɇ": "E",
    "ɇ": "e",
    "Ɍ": "R",
    "ɍ": "r",
    "Ɏ": "Y",
    "ɏ": "y",
    "ɓ": "b",
    "ɔ": "o",
    "ɖ": "d",
    "ɗ": "d",
    "ə": "e",
    "ɛ": "e",
    "ɠ": "g",
    "ɣ": "g",
    "ɨ": "i",
    "ɲ": "n",
    "ɵ": "o",
    "ʈ": "t",
    "ʋ": "v",
    "ʒ": "z",
    "\u2018": "'",
    "\u2019": "'",
    "\u02bc": "'",
    "\u02bb": "'",
    "\u00b4": "'",
    "\u2032": "'",
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2212": "-",
}
_CYRILLIC_UPPER = {
    "А": "A",
    "Б": "B",
    "В": "V",
    "Г": "G",
    "Д": "D",
    "Е": "E",
    "Ё": "Yo",
    "Ж": "Zh",
    "З": "Z",
    "И": "I",
    "Й": "Y",
    "К": "K",
    "Л": "L",
    "М": "M",
    "Н": "N",
    "О": "O",
    "П": "P",
    "Р": "R",
    "С": "S",
    "Т": "T",
    "У": "U",
    "Ф": "F",
    "Х": "Kh",
    "Ц": "Ts",
    "Ч": "Ch",
    "Ш": "Sh",
    "Щ": "Shch",
    "Ъ": "",
    "Ы": "Y",
    "Ь": "",
    "Э": "E",
    "Ю": "Yu",
    "Я": "Ya",
    "Є": "Ye",
    "І": "I",
    "Ї": "Yi",
    "Ґ": "G",
    "Ђ": "Dj",
    "Ј": "J",
    "Љ": "Lj",
    "Њ": "Nj",
    "Ћ": "C",
    "Џ": "Dz",
    "Ў": "U",
    "Ѕ": "Dz",
    "Ѓ": "G",
    "Ќ": "K",
}
_LATIN |= _CYRILLIC_UPPER
_LATIN |= {upper.lower(): latin.lower() for upper, latin in _CYRILLIC_UPPER.items()}
_LETTER = re.compile("[A-Za-z]")


def _ascii(text: str) -> str:
    """Printable ASCII on one line: transliterated, other characters dropped, spaces collapsed."""
    out: list[str] = []
    for ch in unicodedata.normalize("NFC", text):
        if ch in _LATIN:
            out.append(_LATIN[ch])
            continue
        for part in unicodedata.normalize("NFKD", ch):
            part = _LATIN.get(part, part)
            if part.isspace():
                out.append(" ")
            elif part.isascii() and part.isprintable():
                out.append(part)
    return " ".join("".join(out).split())


def _join(left: str, right: str) -> str:
    between = "-" if left[-1].isalnum() and right[0].isalnum() else ""
    return left + between + right


def _glue(tokens: list[str]) -> list[str]:
    """Attach each token without a letter to a neighbour, so readers never take it as a score."""
    out: list[str] = []
    pending = ""
    for token in tokens:
        if _LETTER.search(token):
            out.append(_join(pending, token) if pending else token)
            pending = ""
        elif out:
            out[-1] = _join(out[-1], token)
        else:
            pending = _join(pending, token) if pending else token
    return out


def _fit(name: str, width: int) -> str:
    """Cut to ``width``; a cut that leaves a last token without a letter drops that token."""
    if len(name) <= width:
        return name
    tokens = name[:width].split()
    while tokens and not _LETTER.search(tokens[-1]):
        tokens.pop()
    return " ".join(tokens)


def tou_name(name: str, number: int | None = None) -> str:
    """``Surname, Given`` as AuPair writes it (``Given Surname``): ASCII, at most 20 characters,
    every token holding a letter; ``Player-N`` (N = ``number``) if no Latin letter is left."""
    surname, comma, given = name.partition(",")
    full = f"{given} {surname}" if comma else name
    tokens = _glue(_ascii(full).lstrip("* ").split())
    fitted = _fit(" ".join(tokens), NAME_WIDTH)
    if fitted:
        return fitted
    return f"Player-{number}" if number is not None else "Player"


def tou_names(players: list[TshPlayer]) -> list[str]:
    """The division's names as written, unique ignoring case: readers find players by name."""
    names = [tou_name(p.name, p.number) for p in players]
    taken = {n.casefold() for n in names}
    seen: set[str] = set()
    unique: list[str] = []
    for name in names:
        if name.casefold() in seen:
            k = 2
            while True:
                suffix = f"-{k}"
                candidate = (_fit(name, NAME_WIDTH - len(suffix)) or "Player") + suffix
                if candidate.casefold() not in taken:
                    break
                k += 1
            name = candidate
            taken.add(name.casefold())
        seen.add(name.casefold())
        unique.append(name)
    return unique


def scored_rounds(players: list[TshPlayer]) -> int:
    """How many leading rounds have every result of the division entered (none for a division
    with no players yet: without this the loop below would never meet a missing result)."""
    if not players:
        return 0
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
        # A bye carries the '+' marker on the own number; a forfeit (or 0) does not.
        outcome = "2" if score > 0 else " "
        shown, opponent, first = abs(score), player.number, score > 0
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
    return f" {outcome}{shown:03d} {field:>{width}}"


def write_tou(
    event_name: str,
    event_date: datetime.date,
    divisions: list[tuple[str, list[TshPlayer]]],
) -> str:
    """Render an event's divisions as one ``.TOU`` file (CRLF, ASCII)."""
    # Readers split the header into date and name: an empty name would break them.
    header = f"*M{event_date:%d.%m.%Y} {_ascii(event_name) or 'Event'}"
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
        for p, name in zip(players, tou_names(players), strict=True):
            where = f"division {division} player {p.number} ({p.name})"
            blocks = "".join(_block(p, r, players, width, where) for r in range(1, rounds + 1))
            lines.append(f"{name:<{NAME_WIDTH}}{blocks}")
    lines.append(END)
    return "".join(line + CRLF for line in lines)


# limits: re.ASCII, so \d is 0-9 only (never "١٥٠٠")
_HEADER = re.compile(r"\*M(\d\d)\.(\d\d)\.(\d{4}) ?(.*)\Z", re.ASCII)


def parse_tou(
    text: str, *, source: str = "event.tou"
) -> tuple[str, datetime.date | None, list[tuple[str, list[TshPlayer]]]]:
    """Read a ``.TOU`` file: (event name, date, [(division, players)]).

    Players come back with the AuPair name, rating 0, opponents (0 for a game against oneself),
    scores (signed for byes/forfeits as described in the module docstring) and ``p12``.
    """
    check_nul(text, source)
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
            i += 1
            # the high-word line (spaces and a number); some writers leave it out, as the real
            # hoodriver.tou does, so a line holding a letter is already the first player
            if i < len(lines) and not re.search(r"[A-Za-z]", lines[i]):
                i += 1
            continue
        if not sections:
            raise FormatError("player line before the '*M' header", source=source, line=lineno)
        sections[-1][1].append((lineno, raw))
    return event_name, event_date, [(name, _parse_section(rows, source)) for name, rows in sections]


def _parse_section(rows: list[tuple[int, str]], source: str) -> list[TshPlayer]:
    """The fixed-width blocks we and AuPair write; else the token form other writers use."""
    # Columns pad with runs of spaces; a section with none anywhere is the token form. Only
    # then are the tokens read, so a damaged fixed-width block is still refused, not misread.
    if rows and not any("  " in raw.strip() for _, raw in rows):
        return _parse_tokens(rows, source)
    return _parse_fixed(rows, source)


def _parse_tokens(rows: list[tuple[int, str]], source: str) -> list[TshPlayer]:
    """Read player lines the way the rating programs do: ``split()``, not columns.

    Some writers (the real ``hoodriver.tou`` in cocoscrabble/ratings' test data) put single
    spaces between tokens and no padding: ``Conrad BB 2614 2 418 13 ...``. The leading tokens
    holding a letter are the name, then pairs of (outcome * 1000 + score, [+]opponent). When
    no game in the division carries a ``+``, the file does not say who went first, so every
    played game's p12 is 4 (unknown) rather than a made-up "second" for both players.
    """
    parsed: list[tuple[int, str, list[tuple[int, int, bool]]]] = []
    any_first = False
    for number, (lineno, raw) in enumerate(rows, start=1):
        tokens = raw.split()
        name_tokens: list[str] = []
        while tokens and re.search(r"[A-Za-z]", tokens[0]):
            name_tokens.append(tokens.pop(0))
        if not name_tokens or len(tokens) % 2:
            raise FormatError(
                f"player line is not a name and (score, opponent) pairs: {raw[:40]!r}",
                source=source,
                line=lineno,
            )
        games = []
        for value_token, opp_token in zip(tokens[::2], tokens[1::2], strict=True):
            if not re.fullmatch(r"[0-9]{1,4}", value_token) or not re.fullmatch(
                r"\+?[0-9]+", opp_token
            ):
                raise FormatError(
                    f"bad round {value_token!r} {opp_token!r} for {' '.join(name_tokens)!r}",
                    source=source,
                    line=lineno,
                )
            opp = int(opp_token.lstrip("+"))
            if opp < 1 or opp > len(rows):
                raise FormatError(
                    f"round {len(games) + 1}: opponent {opp} is not a player",
                    source=source,
                    line=lineno,
                )
            first = opp_token.startswith("+")
            any_first = any_first or (first and opp != number)
            games.append((int(value_token), opp, first))
        parsed.append((lineno, " ".join(name_tokens), games))
    players = []
    for number, (lineno, name, games) in enumerate(parsed, start=1):
        opponents: list[int | None] = []
        scores: list[int | None] = []
        p12: list[str] = []
        for value, opp, first in games:
            outcome, score = divmod(value, 1000)
            if opp == number:
                opponents.append(0)
                scores.append(score if outcome == 2 else -score)
                p12.append("0")
            else:
                opponents.append(opp)
                scores.append(score)
                p12.append(("1" if first else "2") if any_first else "4")
        players.append(TshPlayer(number, name, "", 0, opponents, scores, {"p12": p12}, lineno))
    return players


def _parse_fixed(rows: list[tuple[int, str]], source: str) -> list[TshPlayer]:
    width = 4 if len(rows) > 99 else 3
    # The score is three digits, zero-padded as written now or space-padded as we wrote before.
    block = re.compile(r" ([ 12])(\d{3}| \d\d|  \d) ([ +\d]{" + str(width) + "})", re.ASCII)
    players = []
    for number, (lineno, raw) in enumerate(rows, start=1):
        name, rest = raw[:NAME_WIDTH].strip(), raw[NAME_WIDTH:].rstrip()
        opponents: list[int | None] = []
        scores: list[int | None] = []
        p12: list[str] = []
        pos = 0
        while pos < len(rest):
            m = block.match(rest, pos)
            if not m or not re.fullmatch(r" *\+?[0-9]+", m.group(3)):
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
