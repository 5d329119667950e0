"""GCG game records: the file Quackle, Woogles, Macondo and cross-tables write for one game.

Pure code (no Django): text in, a ``GcgGame`` out, with the board after every turn for the
game's viewer. The format (Poslfit's GCG, as the programs above write it) is one line per
event: pragmas (``#player1 NICK Full Name``, ``#lexicon``, ``#title``, ``#description``,
``#id``, ``#note`` for the turn before it, ``#rack1``/``#rack2``, ``#character-encoding``)
and turns ``>nick: RACK POS WORD +score total``:

* a play: ``8D`` is row 8 from column D across, ``D8`` column D down from row 8; ``.`` (or a
  letter in parentheses) is a tile already on the board, a lowercase letter a blank;
* ``-ABC`` an exchange (``-7`` when the tiles are not known), ``-`` a pass, ``--`` the phony
  taken back off the board (its score negated);
* ``(challenge)`` the bonus for a valid word challenged, ``(RACK)`` the points of a rack left at
  the end, ``(time)`` a time penalty.

Every turn's running total must be the player's previous total plus the turn's score: a
director attaches the record to a recorded game, and a sheet whose own arithmetic is wrong is
worth naming by its line before anyone compares it with the result. Errors are ``GcgError``
(a ``FormatError``) with the line number and ``kind`` "malformed" or "total".
"""

from __future__ import annotations

import io
import re
import unicodedata
import zipfile
from dataclasses import dataclass, field

from .errors import FormatError

SIZE = 15
COLUMNS = "ABCDEFGHIJKLMNO"
MAX_BYTES = 256 * 1024  # a long annotated game is ~10 KB; anything near this is not a record

# Premium squares of the standard board, as rows of 15: T triple word, D double word,
# t triple letter, d double letter, * the centre (a double word).
PREMIUMS = (
    "T..d...T...d..T",
    ".D...t...t...D.",
    "..D...d.d...D..",
    "d..D...d...D..d",
    "....D.....D....",
    ".t...t...t...t.",
    "..d...d.d...d..",
    "T..d...*...d..T",
    "..d...d.d...d..",
    ".t...t...t...t.",
    "....D.....D....",
    "d..D...d...D..d",
    "..D...d.d...D..",
    ".D...t...t...D.",
    "T..d...T...d..T",
)

_SCORE = re.compile(r"[+-]\d{1,4}\Z")
_TOTAL = re.compile(r"-?\d{1,4}\Z")
_ACROSS = re.compile(r"(1[0-5]|[1-9])([A-O])\Z")
_DOWN = re.compile(r"([A-O])(1[0-5]|[1-9])\Z")


class GcgError(FormatError):
    """A record refused: ``kind`` is "malformed" (a line that is not GCG, or a play that does
    not fit the board) or "total" (a running total that is not the sum of its scores)."""

    def __init__(self, message: str, *, line: int, kind: str = "malformed", source=None):
        self.kind = kind
        self.reason = message
        super().__init__(message, source=source, line=line)


@dataclass(frozen=True)
class GcgPlayer:
    """One side: the nickname the turns use and the full name (``#player1 nick Full Name``)."""

    nick: str
    name: str
    line: int = 0  # where the #player pragma is, for a refusal to name


@dataclass
class Turn:
    """One ``>`` line. ``kind`` is play, exchange, pass, withdrawn, challenge, end_rack or time;
    ``tiles`` the squares a play filled (row, column, letter: lowercase for a blank)."""

    line: int
    side: int  # 0 for player1, 1 for player2
    kind: str
    rack: str
    position: str
    word: str
    score: int
    total: int
    tiles: list[tuple[int, int, str]] = field(default_factory=list)
    exchanged: str = ""
    note: str = ""


@dataclass
class GcgGame:
    players: tuple[GcgPlayer, GcgPlayer]
    turns: list[Turn]
    lexicon: str = ""
    title: str = ""
    description: str = ""
    game_id: str = ""
    racks: tuple[str, str] = ("", "")
    boards: list[tuple[str, ...]] = field(default_factory=list)  # the board after each turn

    def final_totals(self) -> tuple[int, int]:
        """Each side's last stated total (0 for a side with no turn)."""
        totals = [0, 0]
        for turn in self.turns:
            totals[turn.side] = turn.total
        return totals[0], totals[1]

    def last_line(self, side: int) -> int:
        """The line stating ``side``'s final total (its #player line if it has no turn)."""
        for turn in reversed(self.turns):
            if turn.side == side:
                return turn.line
        return self.players[side].line

    def totals(self) -> dict[str, int]:
        """Final totals by full name, as ``gcg import --json`` prints them."""
        first, second = self.final_totals()
        return {self.players[0].name: first, self.players[1].name: second}


def decode(data: bytes) -> str:
    """The file's text: the encoding its ``#character-encoding`` pragma names (first line),
    else UTF-8, else Latin-1 (older Quackle files were written in the system's code page)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    first = data.split(b"\n", 1)[0].strip()
    if first.lower().startswith(b"#character-encoding"):
        name = first.split(None, 1)[1].decode("ascii", "replace") if b" " in first else ""
        try:
            return data.decode(name or "utf-8")
        except (LookupError, UnicodeDecodeError) as exc:
            raise GcgError(f"the file is not in the encoding {name!r} it names", line=1) from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def parse_gcg(text: str | bytes, *, source: str | None = None) -> GcgGame:
    """Read a GCG record, check every line and running total, and build the board after each
    turn. Raises ``GcgError`` naming the first line that is wrong."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise GcgError(f"the file is over {MAX_BYTES // 1024} KB: not one game", line=1)
        text = decode(text)
    text = unicodedata.normalize("NFC", text.lstrip("\ufeff"))
    reader = _Reader(source)
    for number, raw in enumerate(text.splitlines(), start=1):
        reader.line(number, raw.rstrip())
    return reader.finish()


class _Reader:
    def __init__(self, source: str | None) -> None:
        self.source = source
        self.players: list[GcgPlayer | None] = [None, None]
        self.turns: list[Turn] = []
        self.boards: list[tuple[str, ...]] = []
        self.grid = [[""] * SIZE for _ in range(SIZE)]
        self.totals = [0, 0]
        self.pragmas: dict[str, str] = {}
        self.racks = ["", ""]
        self.continuing: str | None = None  # "note" or "description": where free lines go
        self.last = 0

    def fail(self, number: int, message: str, kind: str = "malformed") -> GcgError:
        return GcgError(message, line=number, kind=kind, source=self.source)

    def line(self, number: int, raw: str) -> None:
        self.last = number
        if not raw.strip():
            return
        if raw.startswith("#"):
            self.pragma(number, raw)
        elif raw.startswith(">"):
            self.continuing = None
            self.turn(number, raw)
        elif self.continuing == "note" and self.turns:
            self.turns[-1].note = f"{self.turns[-1].note}\n{raw.strip()}".strip()
        elif self.continuing is not None:
            key = self.continuing
            self.pragmas[key] = f"{self.pragmas.get(key, '')}\n{raw.strip()}".strip()
        else:
            raise self.fail(number, f"{_shown(raw)} is neither a pragma (#) nor a turn (>)")

    def pragma(self, number: int, raw: str) -> None:
        name, _, value = raw[1:].partition(" ")
        name, value = name.strip().lower(), value.strip()
        self.continuing = None
        if name in ("player1", "player2"):
            side = int(name[-1]) - 1
            nick, _, full = value.partition(" ")
            if not nick:
                raise self.fail(number, f"#{name} needs a nickname and a full name")
            if self.turns:
                raise self.fail(number, f"#{name} comes after the first turn")
            self.players[side] = GcgPlayer(nick, full.strip() or nick, number)
        elif name == "note":
            if self.turns:
                self.turns[-1].note = f"{self.turns[-1].note}\n{value}".strip()
                self.continuing = "note"
            else:  # a note before any turn speaks of the whole game
                self.pragmas["description"] = f"{self.pragmas.get('description', '')}\n{value}"
                self.pragmas["description"] = self.pragmas["description"].strip()
                self.continuing = "description"
        elif name == "description":
            self.pragmas["description"] = value
            self.continuing = "description"
        elif name in ("rack1", "rack2"):
            self.racks[int(name[-1]) - 1] = value
        elif name in ("lexicon", "title", "id", "character-encoding"):
            self.pragmas[name] = value
        # other pragmas (#tile-set, #board-layout, #incomplete, ...) say nothing we show

    def turn(self, number: int, raw: str) -> None:
        nick, colon, rest = raw[1:].partition(":")
        nick = nick.strip()
        if not colon or not nick:
            raise self.fail(number, "a turn is '>nickname: RACK POSITION WORD +score total'")
        if self.players[0] is None or self.players[1] is None:
            raise self.fail(number, "the turns start before both #player1 and #player2 are named")
        nicks = [p.nick for p in self.players]  # type: ignore[union-attr]
        if nicks[0] == nicks[1]:
            raise self.fail(number, f"both players have the nickname {nicks[0]!r}")
        if nick not in nicks:
            raise self.fail(
                number, f"{nick!r} is neither player1 ({nicks[0]}) nor player2 ({nicks[1]})"
            )
        side = nicks.index(nick)
        tokens = rest.split()
        if len(tokens) < 3 or not _SCORE.match(tokens[-2]) or not _TOTAL.match(tokens[-1]):
            raise self.fail(number, "a turn ends with its score (+N or -N) and the running total")
        score, total = int(tokens[-2]), int(tokens[-1])
        move = tokens[:-2]
        turn = Turn(number, side, "", "", "", "", score, total)
        if len(move) == 3:
            turn.rack, turn.position, turn.word = move
            turn.kind = "play"
            turn.tiles = self.place(number, turn.position, turn.word)
        elif len(move) in (1, 2):
            turn.rack = move[0] if len(move) == 2 else ""
            self.special(number, move[-1], turn)
        else:
            raise self.fail(number, "a turn is '>nickname: RACK POSITION WORD +score total'")
        expected = self.totals[side] + score
        if total != expected:
            raise self.fail(
                number,
                f"{nick}'s total {total} is not {self.totals[side]} {score:+d} = {expected}",
                kind="total",
            )
        self.totals[side] = total
        self.turns.append(turn)
        self.boards.append(tuple("".join(c or "." for c in row) for row in self.grid))

    def special(self, number: int, token: str, turn: Turn) -> None:
        low = token.lower()
        if token == "-":
            turn.kind = "pass"
        elif token == "--":
            previous = self.turns[-1] if self.turns else None
            if previous is None or previous.side != turn.side or previous.kind != "play":
                raise self.fail(number, "'--' takes back a play, but the turn before is not one")
            for row, col, _letter in previous.tiles:
                self.grid[row][col] = ""
            turn.kind = "withdrawn"
        elif token.startswith("-") and (
            token[1:].isdigit() or token[1:].replace("?", "a").isalpha()
        ):
            turn.kind, turn.exchanged = "exchange", token[1:]
        elif low == "(challenge)":
            turn.kind = "challenge"
        elif low == "(time)":
            turn.kind = "time"
        elif token.startswith("(") and token.endswith(")") and len(token) > 2:
            turn.kind, turn.exchanged = "end_rack", token[1:-1]
        else:
            raise self.fail(number, f"{_shown(token)} is not a move, exchange or pass")

    def place(self, number: int, position: str, word: str) -> list[tuple[int, int, str]]:
        across = _ACROSS.match(position.upper())
        down = _DOWN.match(position.upper())
        if across:
            row, col, dr, dc = int(across[1]) - 1, COLUMNS.index(across[2]), 0, 1
        elif down:
            row, col, dr, dc = int(down[2]) - 1, COLUMNS.index(down[1]), 1, 0
        else:
            raise self.fail(number, f"{_shown(position)} is not a square (8D across, D8 down)")
        letters = _letters(word)
        if letters is None:
            raise self.fail(number, f"{_shown(word)} is not a word of tiles")
        placed: list[tuple[int, int, str]] = []
        for i, letter in enumerate(letters):
            r, c = row + dr * i, col + dc * i
            if r >= SIZE or c >= SIZE:
                raise self.fail(number, f"{word} runs off the board from {position}")
            square = f"{COLUMNS[c]}{r + 1}" if dr else f"{r + 1}{COLUMNS[c]}"
            if letter is None:
                if not self.grid[r][c]:
                    raise self.fail(number, f"{word} plays through {square}, which is empty")
            elif self.grid[r][c]:
                raise self.fail(number, f"{word} puts a tile on {square}, already taken")
            else:
                placed.append((r, c, letter))
        if not placed:
            raise self.fail(number, f"{word} places no tile")
        for r, c, letter in placed:
            self.grid[r][c] = letter
        return placed

    def finish(self) -> GcgGame:
        if self.players[0] is None or self.players[1] is None:
            raise self.fail(self.last or 1, "the file names no #player1 and #player2")
        return GcgGame(
            players=(self.players[0], self.players[1]),
            turns=self.turns,
            lexicon=self.pragmas.get("lexicon", ""),
            title=self.pragmas.get("title", ""),
            description=self.pragmas.get("description", ""),
            game_id=self.pragmas.get("id", ""),
            racks=(self.racks[0], self.racks[1]),
            boards=self.boards,
        )


def _letters(word: str) -> list[str | None] | None:
    """The tiles of a played word, None for each square played through (``.`` or ``(AB)``)."""
    out: list[str | None] = []
    through = False
    for ch in word:
        if ch == "(" and not through:
            through = True
        elif ch == ")" and through:
            through = False
        elif ch == ".":
            out.append(None)
        elif ch.isalpha():
            out.append(None if through else ch)
        else:
            return None
    return out if out and not through else None


def _shown(text: str) -> str:
    return repr(text[:40])


def zip_records(files: list[tuple[str, str]]) -> bytes:
    """Records as one zip, each ``(name, GCG text)`` a member in UTF-8 (a division's export)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files:
            archive.writestr(name, text)
    return buffer.getvalue()
