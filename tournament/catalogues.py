"""The translation catalogues (locale/<language>/LC_MESSAGES/django.po): read, checked and
compiled to the .mo files Django loads (docs/languages.md).

Why it is built this way:

- **The install compiles; git never holds a .mo.** ``serve``, ``serve_demo`` and the test
  session call :func:`compile_catalogues` at start. With GNU ``msgfmt`` on the machine it runs
  the very command Django's ``compilemessages`` runs (``msgfmt --check-format``); without it a
  small pure-Python writer makes the same .mo (the test suite compares both), so a laptop
  without gettext still serves every language. A .mo newer than its .po is left alone, and
  each is written to a temporary name then renamed: two servers starting at once never read
  half a file.
- **One reader for the checks**: :func:`parse_po` is what the catalogue test
  (tests/i18n/test_catalogues.py) and the fallback compiler share; :func:`problems` lists
  what makes a catalogue unfit to ship (an untranslated or fuzzy message, a placeholder lost
  or added, a wrong number of plural forms).
- **Left in English on purpose** is said where the string is written: a translator comment
  with ``keep-english: <why>`` (``# Translators: keep-english: a file format's name`` in
  Python, ``{# Translators: keep-english: ... #}`` in a template; makemessages copies it into
  the catalogue as ``#.``) or written by the translator in the .po (``# keep-english: ...``).
  Such a message may keep an empty msgstr: Django then shows the English.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import struct
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"
# the plural forms each shipped language must declare (GNU gettext's own table)
PLURALS = {"fr": 2, "es": 2, "pl": 3}
KEEP_ENGLISH = "keep-english:"


@dataclass
class Message:
    """One entry of a .po file (obsolete ``#~`` entries are never read)."""

    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    comments: list[str] = field(default_factory=list)
    line: int = 0

    @property
    def fuzzy(self) -> bool:
        return "fuzzy" in self.flags

    @property
    def kept_english(self) -> bool:
        return any(KEEP_ENGLISH in c and c.split(KEEP_ENGLISH, 1)[1].strip() for c in self.comments)

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and all(self.msgstr.values())


def _unquote(text: str, where: int) -> str:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:
        raise ValueError(f"line {where}: not a quoted string: {text[:60]}") from exc
    if not isinstance(value, str):
        raise ValueError(f"line {where}: not a quoted string: {text[:60]}")
    return value


def parse_po(text: str) -> list[Message]:
    """The entries of a .po file's text, the header (msgid "") first when present. Raises
    ValueError naming the line of anything it cannot read."""
    messages: list[Message] = []
    current = Message()
    target: tuple[str, int] | None = None
    started = False

    def finish() -> None:
        nonlocal current, started, target
        if started:
            messages.append(current)
        current, started, target = Message(), False, None

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            finish()
            continue
        if line.startswith("#~"):
            continue  # obsolete: kept by makemessages for the translators, never compiled
        if line.startswith("#"):
            if started and target is not None:
                finish()
            if line.startswith("#,"):
                current.flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            elif line.startswith("#.") or line.startswith("# ") or line == "#":
                current.comments.append(line[2:].strip())
            continue
        keyword, _, rest = line.partition(" ")
        if line.startswith('"'):
            if target is None:
                raise ValueError(f"line {number}: a string continues nothing")
            value = _unquote(line, number)
        elif keyword in ("msgctxt", "msgid", "msgid_plural") or keyword.startswith("msgstr"):
            if keyword in ("msgctxt", "msgid") and target is not None and target[0] == "msgstr":
                finish()
            if not started:
                current.line = number
            started = True
            value = _unquote(rest.strip(), number)
            if keyword.startswith("msgstr"):
                found = re.fullmatch(r"msgstr(?:\[(\d+)\])?", keyword)
                if not found:
                    raise ValueError(f"line {number}: cannot read {keyword}")
                target = ("msgstr", int(found.group(1) or 0))
                current.msgstr[target[1]] = ""
            else:
                target = (keyword, 0)
                setattr(current, keyword, "")
        else:
            raise ValueError(f"line {number}: cannot read {line[:60]}")
        kind, index = target
        if kind == "msgstr":
            current.msgstr[index] += value
        else:
            setattr(current, kind, (getattr(current, kind) or "") + value)
    finish()
    return messages


def header(messages: list[Message]) -> dict[str, str]:
    """The header's fields (``Language``, ``Plural-Forms``, ...)."""
    for m in messages:
        if m.msgid == "" and m.msgctxt is None:
            return dict(
                (k.strip(), v.strip())
                for k, _, v in (line.partition(":") for line in m.msgstr.get(0, "").splitlines())
                if k.strip()
            )
    return {}


# {name}, {0}, {name!r}, {value:>3}; %(name)s, %s, %d; an HTML tag as written
_PLACEHOLDER = re.compile(
    r"\{[A-Za-z_0-9.]*(?:![rsa])?(?::[^{}]*)?\}|%\([A-Za-z_0-9]+\)[#0 +-]*\d*(?:\.\d+)?[sdifrxX%]"
    r"|%[sdif]|</?[A-Za-z][^<>]*>"
)


def placeholders(text: str) -> Counter[str]:
    """The placeholders and HTML tags of a message, counted (``{{``/``}}`` and ``%%`` are
    literal braces and percent signs, not placeholders)."""
    cleaned = text.replace("{{", "").replace("}}", "").replace("%%", "")
    return Counter(_PLACEHOLDER.findall(cleaned))


def _describe(m: Message) -> str:
    context = f" (context {m.msgctxt!r})" if m.msgctxt else ""
    return f"line {m.line}: {m.msgid[:60]!r}{context}"


def problems(text: str, language: str) -> list[str]:
    """Everything that makes this catalogue's text unfit to ship in ``language``: each line
    names the entry. An empty list is a catalogue the test command accepts."""
    try:
        messages = parse_po(text)
    except ValueError as exc:
        return [str(exc)]
    found: list[str] = []
    fields = header(messages)
    if fields.get("Language") != language:
        found.append(f"header: Language is {fields.get('Language')!r}, not {language!r}")
    wanted = PLURALS.get(language)
    plural = re.search(r"nplurals\s*=\s*(\d+)", fields.get("Plural-Forms", ""))
    if wanted and (plural is None or int(plural.group(1)) != wanted):
        found.append(f"header: Plural-Forms must declare nplurals={wanted} for {language}")
    if "charset=UTF-8" not in fields.get("Content-Type", ""):
        found.append("header: Content-Type must say charset=UTF-8")
    for m in messages:
        if m.msgid == "" and m.msgctxt is None:
            continue
        where = _describe(m)
        if m.fuzzy:
            found.append(f"{where}: fuzzy (check the translation, then remove the flag)")
        if m.msgid_plural is not None and wanted and sorted(m.msgstr) != list(range(wanted)):
            found.append(f"{where}: {len(m.msgstr)} plural forms, {language} has {wanted}")
        if not m.translated:
            if not m.kept_english:
                found.append(f"{where}: not translated (or say '{KEEP_ENGLISH} <why>')")
            continue
        if m.msgid_plural is None:
            if placeholders(m.msgstr[0]) != placeholders(m.msgid):
                found.append(
                    f"{where}: placeholders differ: {sorted(placeholders(m.msgid))} in the "
                    f"English, {sorted(placeholders(m.msgstr[0]))} in the translation"
                )
            continue
        # plurals: a form may drop the count ("une partie"), never add or lose another name
        allowed = placeholders(m.msgid) | placeholders(m.msgid_plural)
        for index, form in sorted(m.msgstr.items()):
            extra = placeholders(form) - allowed
            if extra:
                found.append(f"{where}: plural form {index} adds {sorted(extra)}")
        last = placeholders(m.msgstr[max(m.msgstr)])
        lost = placeholders(m.msgid_plural) - last
        if lost:
            found.append(f"{where}: the last plural form loses {sorted(lost)}")
    return found


# --------------------------------------------------------------------------- compiling


def mo_bytes(messages: list[Message]) -> bytes:
    """A GNU .mo file of these entries, as ``msgfmt`` writes it: fuzzy and untranslated
    entries left out (the header kept), keys sorted, no hash table (optional in the
    format; Python's gettext reads none)."""
    pairs: dict[bytes, bytes] = {}
    for m in messages:
        is_header = m.msgid == "" and m.msgctxt is None
        if not is_header and (m.fuzzy or not m.translated):
            continue
        key = m.msgid if m.msgid_plural is None else f"{m.msgid}\0{m.msgid_plural}"
        if m.msgctxt is not None:
            key = f"{m.msgctxt}\x04{key}"
        value = "\0".join(m.msgstr[i] for i in sorted(m.msgstr))
        if is_header:  # msgfmt leaves out the template's date (it changes on every collect)
            value = re.sub(r"(?m)^POT-Creation-Date:.*\n?", "", value)
        pairs[key.encode("utf-8")] = value.encode("utf-8")
    keys = sorted(pairs)
    ids = strs = b""
    offsets = []
    for k in keys:
        offsets.append((len(ids), len(k), len(strs), len(pairs[k])))
        ids += k + b"\0"
        strs += pairs[k] + b"\0"
    start = 7 * 4
    ids_start = start + len(keys) * 16
    strs_start = ids_start + len(ids)
    table_ids, table_strs = [], []
    for id_at, id_len, str_at, str_len in offsets:
        table_ids += [id_len, ids_start + id_at]
        table_strs += [str_len, strs_start + str_at]
    head = struct.pack("Iiiiiii", 0x950412DE, 0, len(keys), start, start + len(keys) * 8, 0, 0)
    return (
        head
        + struct.pack(f"{len(table_ids)}i", *table_ids)
        + struct.pack(f"{len(table_strs)}i", *table_strs)
        + ids
        + strs
    )


def _write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".django.", suffix=".mo")
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.replace(tmp, path)


def compile_po(po: Path, mo: Path, *, use_msgfmt: bool | None = None) -> str:
    """Compile one catalogue; answers which tool did ("msgfmt" or "python"). ``msgfmt``
    refusing the file (a broken placeholder of a python-format string) raises
    RuntimeError with its words."""
    if use_msgfmt is None:
        use_msgfmt = shutil.which("msgfmt") is not None
    if use_msgfmt:
        fd, tmp = tempfile.mkstemp(dir=mo.parent, prefix=".django.", suffix=".mo")
        os.close(fd)
        # Django's compilemessages runs exactly this
        done = subprocess.run(
            ["msgfmt", "--check-format", "-o", tmp, str(po)],
            capture_output=True,
            encoding="utf-8",
            errors="replace",
        )
        if done.returncode != 0:
            os.unlink(tmp)
            raise RuntimeError(f"msgfmt refused {po}: {done.stderr.strip()}")
        os.replace(tmp, mo)
        return "msgfmt"
    _write(mo, mo_bytes(parse_po(po.read_text(encoding="utf-8"))))
    return "python"


def compile_catalogues(locale_dir: Path | None = None) -> list[Path]:
    """Compile every catalogue whose .mo is missing or older than its .po; answers the .mo
    files written (none when all are current)."""
    written = []
    for po in sorted((locale_dir or LOCALE_DIR).glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        compile_po(po, mo)
        written.append(mo)
    return written
