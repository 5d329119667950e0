"""TSH ``config.tsh``: divisions, settings, autopair rules, rating classes.

TSH itself reads this file by handing each ``config`` line to Perl's ``eval``, so a config file is
in principle a program. We never evaluate it: values are read by a small parser that accepts only
Perl *literals* (numbers, quoted strings, ``[lists]``, ``{hashes}``, ``undef``, ``qw(...)``).
Anything else (a function call, a variable, an expression) is not run; the line is kept verbatim
in ``other_lines`` with a warning, so that importing a director's file can never execute it.

Lines TSH understands but this project does not use (``prize ...``, unknown ``config`` keys,
comments) are kept verbatim in ``other_lines`` so that writing the config back loses nothing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .errors import FormatError
from .limits import (
    MAX_DEPTH,
    MAX_DIGITS,
    MAX_DIVISION_NAME,
    check_length,
    check_nul,
)

__all__ = [
    "AutoPair",
    "COMMON_KEYS",
    "PerlLiteralError",
    "TshConfig",
    "parse_config",
    "parse_perl_literal",
    "perl_literal",
    "write_config",
]

# The settings this project reads; any other ``config`` key is kept verbatim with a warning.
COMMON_KEYS = (
    "event_name",
    "event_date",
    "max_rounds",
    "realm",
    "rating_system",
    "bye_spread",
    "spread_cap",
    "track_firsts",
    "assign_firsts",
    "gibson",
    "gibson_spread",
    "prize_bands",
    "director_id",
    "tournament_id",
    "show_inactive",  # the standings rank withdrawn players too (their rcrank in capped events)
    "standings_spread_cap",  # the cap ranks the standings only (the spread shown stays real)
)


@dataclass
class AutoPair:
    """``autopair DIV SOURCE_ROUND TARGET_ROUND COMMAND ARGS...``: pair TARGET once SOURCE is in."""

    division: str
    source_round: int
    target_round: int
    command: str
    args: list[str]
    line: int = field(default=0, compare=False)


@dataclass
class TshConfig:
    divisions: list[tuple[str, str]] = field(default_factory=list)
    settings: dict[str, object] = field(default_factory=dict)
    autopair: list[AutoPair] = field(default_factory=list)
    classes: dict[str, int] = field(default_factory=dict)
    other_lines: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list, compare=False)


# --- Perl literals ------------------------------------------------------------------------------


class PerlLiteralError(ValueError):
    """The text is not a Perl literal this parser accepts (it may still be valid Perl code)."""


_NUMBER = re.compile(
    r"[-+]?(?:0[xX][0-9a-fA-F_]+|(?:[0-9][0-9_]*)?\.?[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?)"
)
# limits: a literal number has at most this many digits (tournament ids are the longest) and
# is finite; 1e999 or a 400-digit number is refused, not stored as inf or overflowed later.
_MAX_LITERAL_DIGITS = 15
_BAREWORD = re.compile(r"-?[A-Za-z_][A-Za-z0-9_]*")
_DQ_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "e": "\x1b", "f": "\f"}


class _PerlParser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.depth = 0

    def error(self, message: str) -> PerlLiteralError:
        text = self.text.strip()
        shown = text if len(text) <= 80 else text[:77] + "..."  # limits: a readable message
        return PerlLiteralError(f"{message} at column {self.pos + 1} of {shown!r}")

    def skip(self) -> None:
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch.isspace():
                self.pos += 1
            elif ch == "#":  # a comment runs to the end of the line
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            else:
                break

    def peek(self, s: str) -> bool:
        self.skip()
        return self.text.startswith(s, self.pos)

    def expect(self, s: str) -> None:
        if not self.peek(s):
            raise self.error(f"expected {s!r}")
        self.pos += len(s)

    def value(self) -> object:
        self.skip()
        if self.pos >= len(self.text):
            raise self.error("missing value")
        ch = self.text[self.pos]
        if ch in "[({":
            if self.depth >= MAX_DEPTH:
                raise self.error(f"brackets nested more than {MAX_DEPTH} deep")
            self.depth += 1
            try:
                if ch == "{":
                    return self.hash()
                return self.sequence(ch, "]" if ch == "[" else ")")
            finally:
                self.depth -= 1
        if ch == "'":
            return self.single_quoted()
        if ch == '"':
            return self.double_quoted()
        if self.text.startswith("qw", self.pos) and re.match(
            r"qw\s*[(\[{/]", self.text[self.pos :]
        ):
            return self.qw()
        if self.text.startswith("undef", self.pos) and not re.match(
            r"\w", self.text[self.pos + 5 : self.pos + 6]
        ):
            self.pos += 5
            return None
        m = _NUMBER.match(self.text, self.pos)
        if m and m.group():
            end = m.end()
            if end < len(self.text) and (self.text[end].isalnum() or self.text[end] in "_("):
                raise self.error("not a literal")
            self.pos = end
            raw = m.group().replace("_", "")
            body = raw.lstrip("+-")
            hexadecimal = body.lower().startswith("0x")
            digits = body[2:] if hexadecimal else re.split(r"[eE]", body)[0].replace(".", "")
            if len(digits) > _MAX_LITERAL_DIGITS:
                raise self.error(f"number with more than {_MAX_LITERAL_DIGITS} digits")
            if raw.lstrip("+-").lower().startswith("0x"):
                return int(raw, 16)
            if re.fullmatch(r"[-+]?\d+", raw):
                if len(raw.lstrip("+-")) > 1 and raw.lstrip("+-").startswith("0"):
                    try:
                        return int(raw, 8)  # Perl reads a leading 0 as octal
                    except ValueError:
                        raise self.error("illegal octal number") from None
                return int(raw)
            number = float(raw)
            if not math.isfinite(number) or abs(number) >= 10.0**_MAX_LITERAL_DIGITS:
                raise self.error(f"number {raw} is out of range")
            return number
        raise self.error("not a literal")

    def sequence(self, open_: str, close: str) -> list[object]:
        self.expect(open_)
        items: list[object] = []
        while not self.peek(close):
            items.append(self.value())
            if self.peek(",") or self.peek("=>"):
                self.pos += 1 if self.peek(",") else 2
            elif not self.peek(close):
                raise self.error(f"expected ',' or {close!r}")
        self.expect(close)
        return items

    def hash_key(self) -> str:
        self.skip()
        m = _BAREWORD.match(self.text, self.pos)
        if m and re.match(r"\s*=>", self.text[m.end() :]):
            self.pos = m.end()
            return m.group()
        key = self.value()
        if isinstance(key, list | dict) or key is None:
            raise self.error("a hash key must be a string or a number")
        return _perl_string(key)

    def hash(self) -> dict[str, object]:
        self.expect("{")
        result: dict[str, object] = {}
        while not self.peek("}"):
            key = self.hash_key()
            if self.peek("=>"):
                self.pos += 2
            else:
                self.expect(",")
            result[key] = self.value()
            if self.peek(",") or self.peek("=>"):
                self.pos += 1 if self.peek(",") else 2
            elif not self.peek("}"):
                raise self.error("expected ',' or '}'")
        self.expect("}")
        return result

    def single_quoted(self) -> str:
        self.pos += 1
        out = []
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == "\\" and self.text[self.pos + 1 : self.pos + 2] in ("\\", "'"):
                out.append(self.text[self.pos + 1])
                self.pos += 2
            elif ch == "'":
                self.pos += 1
                return "".join(out)
            else:
                out.append(ch)
                self.pos += 1
        raise self.error("unterminated string")

    def double_quoted(self) -> str:
        self.pos += 1
        out = []
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == "\\":
                nxt = self.text[self.pos + 1 : self.pos + 2]
                if not nxt:
                    break
                if nxt == "0":
                    raise self.error("string holds a NUL character (\\0)")
                out.append(_DQ_ESCAPES.get(nxt, nxt))
                self.pos += 2
            elif ch in "$@":
                nxt = self.text[self.pos + 1 : self.pos + 2]
                if nxt and (nxt.isalnum() or nxt in "_{:"):
                    # Interpolation would need the value of a Perl variable: never evaluated.
                    raise self.error("string interpolates a Perl variable")
                out.append(ch)
                self.pos += 1
            elif ch == '"':
                self.pos += 1
                return "".join(out)
            else:
                out.append(ch)
                self.pos += 1
        raise self.error("unterminated string")

    def qw(self) -> list[str]:
        m = re.compile(r"qw\s*(.)").match(self.text, self.pos)
        assert m is not None
        close = {"(": ")", "[": "]", "{": "}", "/": "/"}[m.group(1)]
        end = self.text.find(close, m.end())
        if end < 0:
            raise self.error("unterminated qw()")
        self.pos = end + 1
        return self.text[m.end() : end].split()


def _perl_string(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def parse_perl_literal(text: str) -> object:
    """Read one Perl literal (a whole value, trailing ``;`` allowed). Never evaluates code.

    Hash keys are strings, as in Perl (``{5 => 300}`` gives ``{"5": 300}``).
    """
    parser = _PerlParser(text)
    value = parser.value()
    if parser.peek(";"):
        parser.pos += 1
    parser.skip()
    if parser.pos != len(text):
        raise parser.error("unexpected text after the value")
    return value


def perl_literal(value: object) -> str:
    """Render a value as a Perl literal that ``parse_perl_literal`` reads back unchanged."""
    if value is None:
        return "undef"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        if text in ("inf", "-inf", "nan"):
            raise ValueError(f"{value!r} has no Perl literal")
        return text
    if isinstance(value, str):
        # Single quotes: no interpolation, only \\ and \' are escapes.
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(perl_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        items = (f"{perl_literal(str(k))} => {perl_literal(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    raise ValueError(f"cannot write {type(value).__name__} as a Perl literal")


# --- config.tsh ------------------------------------------------------------------------------

_CONFIG = re.compile(r"config\s+([A-Za-z_]\w*)\s*((?:\{[^{}=]*\}\s*)*)=(.*)\Z", re.DOTALL)
_SUBSCRIPT = re.compile(r"\{([^{}]*)\}")


def _subscript_key(raw: str) -> str:
    raw = raw.strip()
    if _BAREWORD.fullmatch(raw):
        return raw
    value = parse_perl_literal(raw)
    if isinstance(value, list | dict) or value is None:
        raise PerlLiteralError(f"subscript {{{raw}}} is not a string or number")
    return _perl_string(value)


def parse_config(text: str, *, source: str = "config.tsh") -> TshConfig:
    """Read ``config.tsh``; unknown or non-literal lines become warnings, never code."""
    if text.startswith("\ufeff"):
        text = text[1:]
    check_nul(text, source)
    config = TshConfig()

    def warn(lineno: int, message: str) -> None:
        config.warnings.append(f"{source} line {lineno}: {message}")

    def fail(lineno: int, message: str) -> FormatError:
        return FormatError(message, source=source, line=lineno)

    def int_arg(lineno: int, token: str, what: str) -> int:
        if not re.fullmatch(r"[0-9]+", token) or len(token) > MAX_DIGITS:
            raise fail(
                lineno,
                f"{what} must be a whole number of up to {MAX_DIGITS} digits "
                f"0-9, not {token[:20]!r}",
            )
        return int(token)

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            config.other_lines.append(raw)
            continue
        words = line.split()
        command = words[0].lower()
        if command == "division":
            if len(words) != 3:
                raise fail(lineno, "expected 'division NAME FILE.t'")
            if any(name == words[1] for name, _ in config.divisions):
                raise fail(lineno, f"division {words[1]!r} is declared twice")
            check_length(
                words[1], MAX_DIVISION_NAME, "the division name", source=source, line=lineno
            )
            # The file name is checked by whoever opens it (see limits.is_file_name): the
            # import refuses a path before reading anything.
            config.divisions.append((words[1], words[2]))
        elif command == "classes":
            if len(words) != 3:
                raise fail(lineno, "expected 'classes DIVISION COUNT'")
            config.classes[words[1]] = int_arg(lineno, words[2], "the number of classes")
        elif command == "autopair":
            if len(words) < 5:
                raise fail(
                    lineno, "expected 'autopair DIVISION SOURCE_ROUND TARGET_ROUND COMMAND ...'"
                )
            config.autopair.append(
                AutoPair(
                    division=words[1],
                    source_round=int_arg(lineno, words[2], "the source round"),
                    target_round=int_arg(lineno, words[3], "the target round"),
                    command=words[4],
                    args=words[5:],
                    line=lineno,
                )
            )
        elif command == "realm" and len(words) == 2:
            config.settings["realm"] = words[1]
        elif command == "config":
            _parse_config_line(config, raw, line, lineno, warn)
        elif command == "prize":
            config.other_lines.append(raw)
        else:
            warn(lineno, f"ignored unknown line starting with {words[0]!r} (kept, not evaluated)")
            config.other_lines.append(raw)
    return config


def _parse_config_line(config: TshConfig, raw: str, line: str, lineno: int, warn) -> None:
    m = _CONFIG.match(line)
    if not m:
        warn(lineno, "not a 'config KEY = VALUE' line; kept verbatim, not evaluated")
        config.other_lines.append(raw)
        return
    key, subscripts, value_text = m.group(1), m.group(2), m.group(3)
    if key not in COMMON_KEYS:
        warn(lineno, f"ignored unknown key {key!r}")
        config.other_lines.append(raw)
        return
    try:
        value = parse_perl_literal(value_text.strip())
        path = [_subscript_key(s) for s in _SUBSCRIPT.findall(subscripts)]
    except PerlLiteralError as exc:
        warn(lineno, f"value of {key!r} is not a Perl literal ({exc}); kept, not evaluated")
        config.other_lines.append(raw)
        return
    if not path:
        config.settings[key] = value
        return
    target = config.settings.get(key)
    if not isinstance(target, dict):
        target = config.settings[key] = {}
    for part in path[:-1]:
        nxt = target.get(part)
        if not isinstance(nxt, dict):
            nxt = target[part] = {}
        target = nxt
    target[path[-1]] = value


def _setting_lines(key: str, value: object, path: tuple[str, ...] = ()) -> list[str]:
    # A hash setting is written one subscripted line per entry (``prize_bands{'A'} = [2,4]``),
    # the form directors write by hand; an empty hash needs the whole-value form.
    if isinstance(value, dict) and value:
        lines = []
        for k, v in value.items():
            lines += _setting_lines(key, v, (*path, str(k)))
        return lines
    subscripts = "".join("{" + perl_literal(p) + "}" for p in path)
    return [f"config {key}{subscripts} = {perl_literal(value)}"]


def write_config(config: TshConfig) -> str:
    """Render a config; ``parse_config(write_config(c)) == c`` (warnings aside)."""
    lines = [f"division {name} {file}" for name, file in config.divisions]
    for key, value in config.settings.items():
        if not re.fullmatch(r"[A-Za-z_]\w*", key):
            raise FormatError(f"setting name {key!r} cannot be written to config.tsh")
        lines += _setting_lines(key, value)
    lines += [f"classes {division} {count}" for division, count in config.classes.items()]
    for rule in config.autopair:
        words = [rule.division, str(rule.source_round), str(rule.target_round), rule.command]
        lines.append("autopair " + " ".join(words + list(rule.args)))
    lines += config.other_lines
    return "".join(line + "\n" for line in lines)
