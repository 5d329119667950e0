"""TSH's live export ``tourney.js``: ``newt={"config":{...},"divisions":[...]}``.

Broadcast overlays and live-results pages poll this file, so producing it makes the project a
drop-in live source for them, and reading it lets a director import an event in progress.
The file is JavaScript, not JSON: it may contain ``undefined``, unquoted keys, single-quoted
strings, trailing commas and comments. It is read by a small data parser (``undefined``,
``null`` and array holes become ``None``); it is never executed. It is written as TSH writes
it: every ``None`` goes out as an unquoted ``undefined`` (TSH's Perl has one "no value",
which its serialiser writes as ``undefined``; the viewers test for it with ``defined()``).

Players are 1-based: ``players[0]`` is ``undefined``. A player's extra ``.t`` fields live in
``etc`` as lists (numbers where the token is an integer, strings otherwise).
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left

from .errors import FormatError
from .limits import (
    MAX_DEPTH,
    MAX_DIGITS,
    MAX_DIVISION_NAME,
    MAX_MEMBER_ID,
    MAX_PLAYER_NAME,
    MAX_RATING,
    check_length,
    check_nul,
)
from .tsh import UNDEFINED, TshPlayer, check_fields, check_pairings, read_team_rating

__all__ = [
    "TERMDICT",
    "build_tourney_js",
    "computed_keys",
    "parse_tourney_js",
    "tourney_js_divisions",
    "tourney_js_extras",
    "write_tourney_js",
]


# Keys this module writes itself; anything else found in a file is kept and written back.
_TOP_KEYS = ("config", "divisions")
_DIVISION_KEYS = ("name", "players")
_PLAYER_KEYS = ("etc", "id", "name", "pairings", "rating", "scores")

# Our own English labels for the codes TSH's viewers (tsh.js, esb.js) look up in
# config._termdict.messages[code].brief; a missing code prints as "[unknown code: ...]".
_LABELS = {
    "1st": "1st",
    "2nd": "2nd",
    "B": "B",
    "Board": "Board",
    "bye": "bye",
    "columns": "columns",
    "division": "division",
    "Division": "Division",
    "data_loaded": "Data loaded.",
    "draw": "draw",
    "faster": "faster",
    "font_size": "font size",
    "F": "F",
    "L": "L",
    "Last_Game_sb": "Last game",
    "Load": "Load",
    "Next_Game_sb": "Next game",
    "pane_size": "pane size",
    "Opponent": "Opponent",
    "order": "order",
    "order_id": "by number",
    "order_ranked": "by rank",
    "order_board": "by board",
    "p12": "first/second",
    "photos": "photos",
    "photos_on": "on",
    "photos_off": "off",
    "Rank": "Rank",
    "Score": "Score",
    "Spread": "Spread",
    "style": "style",
    "style_blink": "blink",
    "style_card": "card",
    "style_compact": "compact",
    "style_normal": "normal",
    "style_pair": "pair",
    "ranks": "ranks",
    "Rnd": "Rnd",
    "Rec-ord": "Record",
    "Round": "Round",
    "rows": "rows",
    "scroll": "scroll",
    "slower": "slower",
    "Table": "Table",
    "T": "T",
    "url": "address",
    "W": "W",
    "W_L": "W-L",
    "was": "was",
    "EditScorecardTopNote": "Check each score before saving.",
    "Lost": "Lost",
    "Opp_No": "Opp. #",
    "OpponentName": "Opponent",
    "Opp_Rating": "Opp. rating",
    "Opp_Score": "Opp. score",
    "Player_Score": "Score",
    "RoundP12": "First/second",
    "vs": "vs",
    "Won": "Won",
    "ord1st": "%sst",
    "ord2nd": "%snd",
    "ord3rd": "%srd",
    "ordnth": "%sth",
    # the scoreboard's controls (esb.js SetupTerminology)
    "Close_Pane": "Close pane",
    "Reload_Now": "Reload now",
    "reload": "reload",
    "reload_stopped": "stopped",
    "Scoreboard_Settings": "Scoreboard settings",
    "scroll_stopped": "stopped",
    "Split_Left_and_Right": "Split left and right",
    "Split_Top_and_Bottom": "Split top and bottom",
    "View_Next_Round": "Next round",
    "View_Previous_Round": "Previous round",
    # a second meeting, and a third or later (tsh.js ConfigRepeatTerm fills in %d)
    "repeat": "repeat",
    "npeat": "%d-peat",
}
TERMDICT: dict = {
    "messages": {
        code: {"brief": brief, "code": code, "type": "label"} for code, brief in _LABELS.items()
    }
}

# The config keys TSH writes in every feed (TSH 3.350, as in the six real feeds in
# fixtures/feeds/) with the value TSH writes when config.tsh does not set them (None is written
# ``undefined``). tsh.js and esb.js read them unguarded: ``track_firsts`` shows the 1st/2nd
# column of the card view and the 1st/2nd of the next game, ``no_boards`` hides boards,
# ``entry``, ``no_scores``, ``esb_lite``, ``suppress_results_in_pairings``, ``player_photos``,
# ``player_moods``, ``scoreboard_teams``, ``thai_points``, ``spread_bad``, ``currency_symbol``
# change what a card shows. Gibson assigns and records firsts, so both firsts keys are 1.
VIEWER_CONFIG: dict[str, object] = {
    "assign_firsts": 1,
    "check_by_winner": None,
    "class_prize_colors": None,
    "class_prize_colours": None,
    "currency_symbol": None,
    "division_rating_list": {},
    "division_rating_system": {},
    "entry": "scores",
    "esb_lite": None,
    "no_boards": None,
    "no_scores": None,
    "photo_database": None,
    "player_moods": None,
    "player_photos": None,
    "scoreboard_team_colors": None,
    "scoreboard_team_colours": None,
    "scoreboard_teams": None,
    "show_teams": None,
    "spread_bad": None,
    "spread_cap": None,
    "standings_spread_cap": None,
    "suppress_results_in_pairings": None,
    "thai_points": None,
    "track_firsts": 1,
}

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_INT_TOKEN = re.compile(r"-?[0-9]+\Z")
# limits: a whole number has at most this many digits and a fraction is finite (1e999 is
# Infinity to JavaScript, an OverflowError to int()); stored numbers stay within MAX_DIGITS.
_MAX_NUMBER_DIGITS = 15


def _number_ok(raw: str) -> bool:
    if _INT_TOKEN.match(raw):
        return len(raw.lstrip("-")) <= _MAX_NUMBER_DIGITS
    return math.isfinite(float(raw))


class _JsParser:
    def __init__(self, text: str, source: str):
        self.text = text
        self.source = source
        self.pos = 0
        self.depth = 0

    def error(self, message: str) -> FormatError:
        line = self.text.count("\n", 0, self.pos) + 1
        return FormatError(message, source=self.source, line=line)

    def skip(self) -> None:
        text = self.text
        while self.pos < len(text):
            if text[self.pos].isspace():
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("unterminated /* comment")
                self.pos = end + 2
            else:
                return

    def at(self, s: str) -> bool:
        self.skip()
        return self.text.startswith(s, self.pos)

    def expect(self, s: str) -> None:
        if not self.at(s):
            found = self.text[self.pos : self.pos + 20] or "end of file"
            raise self.error(f"expected {s!r}, found {found!r}")
        self.pos += len(s)

    def value(self) -> object:
        self.skip()
        if self.pos >= len(self.text):
            raise self.error("unexpected end of file")
        ch = self.text[self.pos]
        if ch in "{[":
            if self.depth >= MAX_DEPTH:
                raise self.error(f"objects and arrays nested more than {MAX_DEPTH} deep")
            self.depth += 1
            try:
                return self.obj() if ch == "{" else self.array()
            finally:
                self.depth -= 1
        if ch in "\"'":
            return self.string()
        m = _NUMBER.match(self.text, self.pos)
        if m:
            raw = m.group()
            if not _number_ok(raw):
                shown = raw if len(raw) <= 20 else f"{raw[:12]}... ({len(raw)} characters)"
                raise self.error(f"number {shown} is out of range")
            self.pos = m.end()
            return int(raw) if re.fullmatch(r"-?[0-9]+", raw) else float(raw)
        m = _IDENT.match(self.text, self.pos)
        if m:
            word = m.group()
            literals = {"true": True, "false": False, "null": None, "undefined": None}
            if word in literals:
                self.pos = m.end()
                return literals[word]
            raise self.error(f"{word!r} is not a data value (tourney.js is read, never run)")
        raise self.error(f"unexpected character {ch!r}")

    def obj(self) -> dict[str, object]:
        self.expect("{")
        result: dict[str, object] = {}
        while not self.at("}"):
            self.skip()
            if self.text[self.pos : self.pos + 1] in ("'", '"'):
                key = self.string()
            else:
                m = _IDENT.match(self.text, self.pos) or _NUMBER.match(self.text, self.pos)
                if not m:
                    raise self.error("expected an object key")
                key, self.pos = m.group(), m.end()
            self.expect(":")
            result[key] = self.value()
            if self.at(","):
                self.pos += 1
            elif not self.at("}"):
                raise self.error("expected ',' or '}' in object")
        self.expect("}")
        return result

    def array(self) -> list[object]:
        self.expect("[")
        result: list[object] = []
        while not self.at("]"):
            if self.at(","):  # a hole, as in [1,,3]
                result.append(None)
                self.pos += 1
                continue
            result.append(self.value())
            if self.at(","):
                self.pos += 1
            elif not self.at("]"):
                raise self.error("expected ',' or ']' in array")
        self.expect("]")
        return result

    def string(self) -> str:
        quote = self.text[self.pos]
        self.pos += 1
        out = []
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == quote:
                self.pos += 1
                text_value = "".join(out)
                if "\0" in text_value:
                    raise self.error("string holds a NUL character (\\0), which cannot be stored")
                return text_value
            if ch == "\n":
                break
            if ch == "\\":
                nxt = text[self.pos + 1 : self.pos + 2]
                if nxt == "u":
                    hexdigits = text[self.pos + 2 : self.pos + 6]
                    if not re.fullmatch(r"[0-9a-fA-F]{4}", hexdigits):
                        raise self.error("bad \\u escape in string")
                    out.append(chr(int(hexdigits, 16)))
                    self.pos += 6
                    continue
                if nxt == "x":
                    hexdigits = text[self.pos + 2 : self.pos + 4]
                    if not re.fullmatch(r"[0-9a-fA-F]{2}", hexdigits):
                        raise self.error("bad \\x escape in string")
                    out.append(chr(int(hexdigits, 16)))
                    self.pos += 4
                    continue
                if nxt == "\n":  # line continuation
                    self.pos += 2
                    continue
                out.append(_ESCAPES.get(nxt, nxt))
                self.pos += 2
                continue
            out.append(ch)
            self.pos += 1
        raise self.error("unterminated string")


def _combine_surrogates(value: object) -> object:
    # \\uD83D\\uDE00 arrives as two lone surrogates; join them into one character.
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16")
    if isinstance(value, list):
        return [_combine_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_combine_surrogates(k): _combine_surrogates(v) for k, v in value.items()}
    return value


# ``newt=`` is optional: other readers (and writers) take a plain JSON object as the feed too.
_JSON_BODY = re.compile(r"\s*(?:(?:(?:var|let|const)\s+)?newt\s*=)?(\s*\{.*?);?\s*\Z", re.DOTALL)


def _reject_constant(name: str) -> object:
    raise ValueError(name)


def _checked_float(raw: str) -> float:
    if not _number_ok(raw):
        raise ValueError(raw)  # the slow parser words it, with the line
    return float(raw)


def _checked_int(raw: str) -> int:
    if len(raw.lstrip("-")) > _MAX_NUMBER_DIGITS:
        raise ValueError(raw)
    return int(raw)


def _too_deep(value: object) -> bool:
    """Whether containers nest beyond MAX_DEPTH (checked without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def _strict_json(text: str) -> dict | None:
    """Most files (TSH's and ours) hold strict JSON: read those with the C parser, 40x faster.

    Anything else (``undefined``, comments, NaN, a bad file) returns ``None`` and goes through
    the JavaScript-data parser, which also gives the line-numbered error messages.
    """
    m = _JSON_BODY.match(text)
    if not m:
        return None
    try:
        data = json.loads(
            m.group(1),
            parse_constant=_reject_constant,
            parse_float=_checked_float,
            parse_int=_checked_int,
        )
    except (ValueError, RecursionError):
        return None  # limits: the slow parser refuses it with the line (depth, 1e999)
    if not isinstance(data, dict) or _too_deep(data):
        return None
    try:
        _check_strings(data)
    except UnicodeError:
        return None
    return data


def _check_strings(value: object) -> None:
    # json.loads lets a lone \\ud83d surrogate through; the slow path reports it properly.
    if isinstance(value, str):
        value.encode("utf-8")
        if "\0" in value:
            raise UnicodeError("NUL")  # the slow parser reports it with its line
    elif isinstance(value, list):
        for v in value:
            _check_strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_strings(k)
            _check_strings(v)


def parse_tourney_js(text: str, *, source: str = "tourney.js") -> dict:
    """Read ``newt={...};`` as data. Raises ``FormatError`` (with line) on anything else."""
    if text.startswith("\ufeff"):
        text = text[1:]
    check_nul(text, source)
    fast = _strict_json(text)
    if fast is not None:
        return fast
    parser = _JsParser(text, source)
    parser.skip()
    m = re.compile(r"(?:(?:var|let|const)\s+)?newt\s*=").match(text, parser.pos)
    if m:
        parser.pos = m.end()
    elif not parser.at("{"):  # a plain JSON feed (no ``newt=``) is the object itself
        raise parser.error("expected 'newt=' or '{' at the start of tourney.js")
    data = parser.value()
    if not isinstance(data, dict):
        raise parser.error("newt is not an object")
    if parser.at(";"):
        parser.pos += 1
    parser.skip()
    if parser.pos != len(text):
        raise parser.error("unexpected text after the newt object")
    try:
        return _combine_surrogates(data)  # type: ignore[return-value]
    except UnicodeError:
        raise parser.error("string holds an unpaired \\u surrogate escape") from None


def _js(value: object) -> str:
    # Most of a 500-player feed is whole numbers (scores, opponents, ranks per round): they
    # are written as Python writes them, which is JSON's form, without json.dumps' overhead.
    if type(value) is int:
        return str(value)
    if value is None:
        return "undefined"
    # (the whole numbers inside a list or dict too, without a call each: ~40,000 at 500
    # players were a third of the feed's writing)
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(
                f"{_js(str(k))}:{str(v) if type(v) is int else _js(v)}" for k, v in value.items()
            )
            + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ",".join([str(v) if type(v) is int else _js(v) for v in value]) + "]"
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _js_call_each(value: object) -> str:
    """``_js`` as it was, a call per item: the reference its equality test compares with."""
    if type(value) is int:
        return str(value)
    if value is None:
        return "undefined"
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(f"{_js_call_each(str(k))}:{_js_call_each(v)}" for k, v in value.items())
            + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ",".join(_js_call_each(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def write_tourney_js(data: dict) -> str:
    """Render ``newt=...;``: JSON with every ``None`` as an unquoted ``undefined``, as TSH.

    The file is loaded by ``<script>`` tags and ``eval``: ``</`` is written ``<\\/`` so a name
    cannot close the script element, and U+2028/U+2029 (line ends to older JavaScript) as
    ``\\u2028``/``\\u2029``. All three occur only inside strings, where the escapes mean the same.
    """
    body = _js(data).replace("</", "<\\/").replace("\u2028", "\\u2028")
    return "newt=" + body.replace("\u2029", "\\u2029") + ";\n"


def _etc_value(token: str) -> int | float | str:
    # Numbers go out as JSON numbers (what overlays expect) only when they come back as the
    # same token, so that reading our own file reproduces the .t fields exactly.
    if _INT_TOKEN.match(token) and str(int(token)) == token:
        return int(token)
    try:
        number = float(token)
    except ValueError:
        return token
    return number if repr(number) == token else token


def _token(value: object, where: str) -> str:
    if isinstance(value, bool) or value is None:
        if value is None:
            return UNDEFINED
        return "1" if value else "0"
    if isinstance(value, int | str):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # the token _etc_value wrote as this number (0.0 stays "0.0")
    raise FormatError(f"{where}: cannot read {value!r} as a .t value")


def _etc_out(token: str) -> object:
    # .t's "00" is TSH's undefined (an rrank not yet computed); TSH writes it as undefined.
    return None if token == UNDEFINED else _etc_value(token)


def build_tourney_js(
    config: dict,
    divisions: list[tuple[str, list[TshPlayer]]],
    *,
    top: dict | None = None,
    division_keys: list[dict] | None = None,
    player_keys: list[dict[int, dict]] | None = None,
) -> dict:
    """The ``newt`` object TSH publishes, from division files (players in number order).

    ``top``, ``division_keys[i]`` and ``player_keys[i][number]`` add keys beside the ones built
    here (TSH's computed keys and anything an imported file carried); the built keys win,
    except that a player's ``etc`` there is merged over the one built from the ``.t`` fields
    (the computed ``etc.rrank``/``etc.newr`` replace stale copies of an imported file).
    ``players[0]`` is ``undefined``, as TSH writes it.
    """
    out = []
    for d_index, (name, players) in enumerate(divisions):
        extra_players = (player_keys[d_index] if player_keys else None) or {}
        rows: list[object] = [None]
        for index, p in enumerate(players, start=1):
            if p.number != index:
                raise FormatError(
                    f"division {name}: player {p.name!r} has number {p.number} "
                    f"but is in position {index}"
                )
            row: dict[str, object] = dict(extra_players.get(p.number) or {})
            etc: dict[str, object] = {
                key: [_etc_out(tok) for tok in values]
                for key, values in p.fields.items()
                if key != "password"  # never published
            }
            computed_etc = row.pop("etc", None)
            if isinstance(computed_etc, dict):  # computed .t fields (rrank, newr) win
                etc.update(computed_etc)
            row.update(
                {
                    "etc": etc,
                    "id": p.number,
                    "name": p.full_name,
                    "pairings": list(p.opponents),
                    # a team entry's rating is the text TSH holds ('0+0+0'), as TSH writes it
                    "rating": p.rating_text or p.rating,
                    "scores": list(p.scores),
                }
            )
            rows.append(row)
        kept = (division_keys[d_index] if division_keys else None) or {}
        division: dict[str, object] = dict(kept)
        division.update({"name": name, "players": rows})
        out.append(division)
    result: dict[str, object] = dict(top or {})
    result.update({"config": dict(config), "divisions": out})
    return result


def rounds_with_scores(players: list[TshPlayer]) -> int:
    """TSH's MostScores as its feed counts it: the rounds through the last one with a score.

    TSH writes ``maxrp`` (and one ``first_out_of_the_money`` entry a round) through it, not
    through the last paired round: its scoreboard shows round ``maxrp`` (rank
    ``etc.rrank[maxrp + 1]``, last game ``pairings[maxrp]``) and, as the next game,
    ``pairings[maxrp + 1]``, so a round paired but not yet scored is everyone's next game.
    Gibson records a bye's or a withdrawn player's forfeit score when the round is paired,
    where a TSH director enters it with the results: such a score counts only once a game of
    the round has one too (or when the round has nothing else), so that pairing a round
    with a bye does not turn every card to "no score yet".
    """
    last = 0
    paired = max((len(p.opponents) for p in players), default=0)
    for r0 in range(max(paired, max((len(p.scores) for p in players), default=0))):
        scored = [p for p in players if r0 < len(p.scores) and p.scores[r0] is not None]
        if not scored:
            continue
        played = any(r0 < len(p.opponents) and p.opponents[r0] not in (None, 0) for p in scored)
        games = any(r0 < len(p.opponents) and p.opponents[r0] not in (None, 0) for p in players)
        if played or not games:
            last = r0 + 1
    return last


def computed_keys(
    players: list[TshPlayer],
    *,
    rounds: int,
    prize_places: int,
    rating_list: str,
    rating_system: str,
    newr: dict[int, list[int | str]],
    ranks: dict[int, list[int | None]] | None = None,
    capped_ranks: dict[int, list[int | None]] | None = None,
    kept: dict | None = None,
) -> tuple[dict, dict[int, dict]]:
    """A division's keys and its players' keys beside the .t data, as TSH computes them.

    ``newr[number]`` is the rating estimate after each round, ``ranks[number]`` the rank after
    rounds 0, 1, ... (index 0: the seeding) and ``capped_ranks`` the same under a spread cap;
    they go where TSH keeps them, ``etc.newr``, ``etc.rrank`` and ``etc.rcrank`` (the viewers
    read ``p.etc.newr[r0]`` and ``p.etc.rrank[r0 + 1]``), and the player's own ``newr`` is
    ``undefined`` as TSH writes it. An empty list leaves the ``.t`` field as it was.
    ``kept`` is what ``tourney_js_extras`` kept for the division on import: its keys come
    first and the ones computed here replace them. See docs/tourney-js.md for each key.
    """
    kept = kept or {}
    n = len(players)
    played = rounds_with_scores(players)
    configured = max(rounds, played, 1)
    # TSH's ComputeSeeds: place in the rating order, players of equal rating sharing it
    ratings = sorted(-(p.rating or 0) for p in players)
    seed = {p.number: bisect_left(ratings, -(p.rating or 0)) + 1 for p in players}
    # 1-based rank of the first player out of the money; n + 1 when all are in the money.
    first_out = min(prize_places or n, n) + 1
    classes: dict[str, int] = {}
    for p in players:
        if p.player_class:
            classes[p.player_class] = classes.get(p.player_class, 0) + 1
    # TSH writes a division's keys sorted (every real feed has classes, first_out_of_the_money,
    # maxr, ... in that order); sorting the kept ones keeps that order whatever the database
    # gave them back in (PostgreSQL's jsonb stores an object's keys shortest first)
    kept_keys = kept.get("keys") or {}
    division = {key: kept_keys[key] for key in sorted(kept_keys)}
    division.update(
        {
            "classes": classes or None,
            "first_out_of_the_money": [first_out] * played,
            "maxr": configured - 1,
            "maxrp": played - 1,
            "rating_list": rating_list,
            "rating_system": rating_system,
            "seeds": [seed[p.number] for p in players],
        }
    )
    kept_players = kept.get("players") or {}
    per_player: dict[int, dict] = {}
    for p in players:
        row = {"photo": None, "photomood": None}
        row.update(kept_players.get(str(p.number)) or {})
        row["newr"] = None
        etc: dict[str, list[int | None]] = {}
        for key, source in (("newr", newr), ("rrank", ranks), ("rcrank", capped_ranks)):
            values = list((source or {}).get(p.number) or [])
            while values and values[-1] is None:
                values.pop()  # TSH's array ends at the last value (a withdrawn player's rank)
            if values:
                # a team's estimate under rating system 'none' is its rating as written
                etc[key] = [v if v is None or isinstance(v, str) else int(v) for v in values]
        row["etc"] = etc
        per_player[p.number] = row
    return division, per_player


def tourney_js_extras(data: dict) -> dict:
    """The keys of a ``newt`` object that ``tourney_js_divisions`` does not read, to keep.

    Returns ``{"top": {...}, "divisions": [{"keys": {...}, "players": {"N": {...}}}]}`` (player
    numbers as strings: the result is stored as JSON). Written back by the exporter, so a file
    passed through Gibson loses nothing a viewer may read.
    """
    divisions = data.get("divisions") if isinstance(data.get("divisions"), list) else []
    kept = []
    for division in divisions:
        if not isinstance(division, dict):
            kept.append({"keys": {}, "players": {}})
            continue
        players = division.get("players") if isinstance(division.get("players"), list) else []
        kept.append(
            {
                "keys": {k: v for k, v in division.items() if k not in _DIVISION_KEYS},
                "players": {
                    str(number): extra
                    for number, entry in enumerate(players[1:], start=1)
                    if isinstance(entry, dict)
                    and (extra := {k: v for k, v in entry.items() if k not in _PLAYER_KEYS})
                },
            }
        )
    top = {k: v for k, v in data.items() if k not in _TOP_KEYS}
    return {"top": top, "divisions": kept}


def _int_or_none(value: object, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FormatError(f"{where}: {value!r} is not a whole number")
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        raise FormatError(f"{where}: {value!r} is not a whole number")
    if abs(value) >= 10**MAX_DIGITS:
        raise FormatError(f"{where}: {value!r} is out of range (at most {MAX_DIGITS} digits)")
    return int(value)


def tourney_js_divisions(data: dict) -> list[tuple[str, list[TshPlayer]]]:
    """The divisions of a ``newt`` object as ``.t`` players (numbered by position)."""
    divisions = data.get("divisions")
    if not isinstance(divisions, list):
        raise FormatError("tourney.js: 'divisions' is missing or not a list")
    result = []
    for d_index, division in enumerate(divisions):
        if not isinstance(division, dict) or not isinstance(division.get("players"), list):
            raise FormatError(f"tourney.js: division {d_index} has no player list")
        name = str(division.get("name", d_index + 1))
        check_length(
            name,
            MAX_DIVISION_NAME,
            f"tourney.js division {d_index + 1}'s name",
            source=None,
            line=None,
        )
        players: list[TshPlayer] = []
        for number, entry in enumerate(division["players"][1:], start=1):
            where = f"tourney.js division {name} player {number}"
            if not isinstance(entry, dict):
                raise FormatError(f"{where}: not a player object")
            full = str(entry.get("name", ""))
            player_name, _, member_id = full.rpartition(":") if ":" in full else (full, "", "")
            etc = entry.get("etc") or {}
            if not isinstance(etc, dict):
                raise FormatError(f"{where}: 'etc' is not an object")
            fields = {}
            for key, values in etc.items():
                values = values if isinstance(values, list) else [values]
                fields[key] = [_token(v, f"{where} etc.{key}") for v in values]
            raw_rating = entry.get("rating", 0)
            rating_text = ""
            if isinstance(raw_rating, str):  # a team entry's 'a+b+c', as TSH keeps it
                rating, rating_text = read_team_rating(raw_rating, f"{where} rating"), raw_rating
            else:
                rating = _int_or_none(raw_rating, f"{where} rating") or 0
            if not 0 <= rating <= MAX_RATING:
                raise FormatError(f"{where}: rating {rating} is out of range (0..{MAX_RATING})")
            check_length(
                player_name.strip(), MAX_PLAYER_NAME, f"{where}: the name", source=None, line=None
            )
            if ";" in player_name:
                # a .t line ends the name at ';': such a player could never be written back
                raise FormatError(f"{where}: the name {player_name.strip()!r} contains ';'")
            check_length(
                member_id.strip(), MAX_MEMBER_ID, f"{where}: the member id", source=None, line=None
            )
            player = TshPlayer(
                number=number,
                name=player_name.strip(),
                member_id=member_id.strip(),
                rating=rating,
                opponents=[
                    _int_or_none(v, f"{where} pairings") for v in entry.get("pairings") or []
                ],
                scores=[_int_or_none(v, f"{where} scores") for v in entry.get("scores") or []],
                fields=fields,
                rating_text=rating_text,
            )
            # limits: the same checks as a .t line (field ranges, class length) ...
            check_fields(player, lambda message, where=where: FormatError(f"{where}: {message}"))
            players.append(player)
        # ... and pairings that name real players and agree from both sides.
        check_pairings(players, f"tourney.js division {name}")
        result.append((name, players))
    return result
