"""Reading an import's files: the registry of import formats (told apart by content), the
pre-scan's limits checked before anything is parsed, and the plan (``plan_import``): every
division read and checked, with the file and line of the first problem. No database.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings as site

from tournament.checks import MAX_DIVISION_ROUNDS
from tournament.errors import ServiceError
from tournament.formats import FormatError
from tournament.formats.archive import parse_archive
from tournament.formats.config import TshConfig, parse_config
from tournament.formats.limits import (
    Counts,
    count_tou,
    count_tsh,
    default_file_name,
    is_file_name,
)
from tournament.formats.tou import parse_tou
from tournament.formats.tourney_js import (
    parse_tourney_js,
    tourney_js_divisions,
    tourney_js_extras,
)
from tournament.formats.tsh import TshPlayer, decode_bytes, parse_t


@dataclass
class ParsedDivision:
    name: str
    file_name: str
    players: list[TshPlayer]
    source: str


@dataclass
class ImportPlan:
    """Everything read from disk and checked, before a single row is written."""

    name: str
    divisions: list[ParsedDivision]
    config: TshConfig | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # the rounds whose printed ranks or estimates no recomputation gives (snapshots.py)
    printed_before_change: list[dict] = field(default_factory=list)
    tourney_js: dict | None = None  # keys of an imported tourney.js kept for export


def read_text(path: Path) -> str:
    try:
        return decode_bytes(path.read_bytes())
    except OSError as exc:
        raise ServiceError(
            "cannot_read", field="file", path=str(path), reason=str(exc.strerror or exc)
        ) from exc


def _check_named_file(source: str, division: str, file_name: str) -> None:
    """A config names its division files by name, never by path: "/tmp/x.t" or "../../x.t"
    would read (and on export write) any file on the computer, so neither is opened."""
    if not is_file_name(file_name):
        raise ServiceError(
            "bad_file_name",
            field="file",
            what=f"{source}: division {division}: file name",
            value=file_name[:100],
        )


def check_counts(counts: Counts, source: str) -> None:
    """Refuse an import beyond the site's limits, from the pre-scan's counts (nothing parsed
    yet): divisions, players, rounds (the console's 200) and player-rounds, each named with its
    setting, so a hostile or mistaken file costs a pass over its lines, not the server's time."""
    rounds_cap = MAX_DIVISION_ROUNDS
    if counts.rounds > rounds_cap:
        raise ServiceError(
            "import_too_many_rounds",
            field="file",
            file=source,
            line=counts.widest_line,
            count=counts.rounds,
            limit=rounds_cap,
        )
    if counts.divisions > (limit := site.MAX_IMPORT_DIVISIONS):
        raise ServiceError(
            "import_too_many_divisions",
            field="file",
            file=source,
            count=counts.divisions,
            limit=limit,
        )
    if counts.players > (limit := site.MAX_IMPORT_PLAYERS):
        raise ServiceError(
            "import_too_many_players",
            field="file",
            file=source,
            count=counts.players,
            limit=limit,
        )
    if counts.player_rounds > (limit := site.MAX_IMPORT_PLAYER_ROUNDS):
        raise ServiceError(
            "import_too_many_player_rounds",
            field="file",
            file=source,
            count=counts.player_rounds,
            limit=limit,
        )


def _tourney_js_counts(data: Any) -> Counts:
    """The pre-scan's counts of a parsed tourney.js (before its players are read)."""
    counts = Counts()
    divisions = data.get("divisions") if isinstance(data, dict) else None
    for division in divisions if isinstance(divisions, list) else []:
        counts.divisions += 1
        players = division.get("players") if isinstance(division, dict) else None
        for number, player in enumerate(players if isinstance(players, list) else [], start=0):
            if not isinstance(player, dict):
                continue
            counts.players += 1
            rounds = max(
                len(player.get("pairings") or [])
                if isinstance(player.get("pairings"), list)
                else 0,
                len(player.get("scores") or []) if isinstance(player.get("scores"), list) else 0,
            )
            counts.player_rounds += rounds
            if rounds > counts.rounds:
                counts.rounds, counts.widest_line = rounds, number
    return counts


def check_import_size(paths: list[Path], source: str) -> None:
    """Refuse an import whose files add up to more than the upload limit (GIBSON_MAX_UPLOAD_MB)
    before any of them is read: ``import_tsh`` and the console share one byte limit, so a
    multi-gigabyte file given to the command costs a ``stat``, not the computer's memory."""
    size = 0
    for path in dict.fromkeys(paths):
        try:
            size += path.stat().st_size
        except OSError:
            continue  # a missing file is refused, by name, where it is read
    if size > max_upload_bytes():
        raise ServiceError(
            "import_too_large", field="file", file=source, size=size, limit_mb=site.MAX_UPLOAD_MB
        )


def _config_texts(config: TshConfig, base: Path, source: str) -> dict[str, str]:
    """The division files a config names, read and pre-scanned (each, then all together)."""
    total = Counts()
    total.divisions = len(config.divisions)
    check_counts(total, source)
    for name, file_name in config.divisions:
        _check_named_file(source, name, file_name)
    check_import_size(
        [base / source] + [base / file_name for _name, file_name in config.divisions], source
    )
    texts = {}
    for name, file_name in config.divisions:
        _check_named_file(source, name, file_name)
        path = base / file_name
        if path.exists() and file_name not in texts:
            texts[file_name] = read_text(path)
            counts = count_tsh(texts[file_name])
            counts.divisions = 0
            check_counts(counts, file_name)  # its rounds, named with its own line
            total.add(counts)
            check_counts(total, source)  # the files together
    return texts


def _config_divisions(config: TshConfig, base: Path, source: str) -> list[ParsedDivision]:
    out = []
    texts = _config_texts(config, base, source)
    for name, file_name in config.divisions:
        _check_named_file(source, name, file_name)
        path = base / file_name
        if not path.exists():
            raise ServiceError(
                "missing_division_file",
                field="file",
                source=source,
                division=name,
                file=file_name,
            )
        text = texts[file_name]
        out.append(ParsedDivision(name, file_name, parse_t(text, source=file_name), file_name))
    return out


# What a TSH file is, decided by its content: directors rename files (``spring.tsh`` for a
# config, ``a.tsh`` for a division), so the name is only a hint for the tournament's name.
ARCHIVE, CONFIG, DIVISION = "all.tsh archive", "config file", ".t division file"
_ARCHIVE_LINE = re.compile(r"#begin_file\s+name=\S+\s*\Z")
# A config line names a division (``division A a.t``), sets a key (``config KEY = VALUE``) or
# is one of the other config commands; none has the ``;`` that every .t player line needs after
# its pairings.
_CONFIG_LINE = re.compile(
    r"(?i)(division\s+\S+\s+\S+|config\s+\w+.*=.*|realm\s+\S+"
    r"|classes\s+\S+\s+\d+|autopair\s+\S+\s+\d+\s+\d+\s+\S+.*)\Z"
)
# File names TSH gives every event; the folder says more about which event it is.
_GENERIC_STEMS = {"config", "all", "tourney"}


def file_kind(text: str) -> str:
    """Whether a TSH text is an archive, a config or a division file (see the names above)."""
    lines = [line.strip() for line in text.splitlines()]
    if any(_ARCHIVE_LINE.match(line) for line in lines):
        return ARCHIVE
    if any(";" not in line and _CONFIG_LINE.match(line) for line in lines):
        return CONFIG
    return DIVISION


def _default_name(path: Path, fmt: ImportFormat) -> str:
    if path.stem.lower() in _GENERIC_STEMS and fmt.names_its_event:
        folder = path.resolve().parent.name
        if folder:
            return folder
    return path.stem


@dataclass
class ImportRead:
    """What an import format read from a file: its divisions and the settings that came with it."""

    divisions: list[ParsedDivision]
    config: TshConfig | None = None
    tourney_js: dict | None = None


ImportReader = Callable[[Path, str, "TshConfig | None", "Path | None"], ImportRead]


@dataclass(frozen=True)
class ImportFormat:
    """A file format ``import_tsh`` and the console's upload read, told apart by content.

    ``detect(file_name, text)`` says whether a file is of this format (formats are tried in
    registration order, the plain ``.t`` division file last); ``read`` parses it into
    divisions, raising FormatError (file and line) or ServiceError. ``with_config``: a
    separate ``config.tsh`` may come with it (``--config``); otherwise one is refused.
    """

    name: str
    detect: Callable[[str, str], bool]
    read: ImportReader
    with_config: bool = False
    names_its_event: bool = True  # a generic file name (config.tsh) is named by its folder
    # The pre-scan: counts a text's divisions, players and rounds before ``read`` parses it,
    # so ``check_counts`` refuses a file beyond the site's limits at the cost of one pass over
    # its lines. None for a format counted once parsed (tourney.js, a JSON document).
    count: Callable[[str], Counts] | None = None


IMPORT_FORMATS: dict[str, ImportFormat] = {}


def register_import_format(fmt: ImportFormat) -> None:
    """Read files of ``fmt`` everywhere files are imported (command, console upload)."""
    IMPORT_FORMATS[fmt.name] = fmt
    # the plain division file accepts anything, so it stays the last one tried
    if DIVISION in IMPORT_FORMATS and fmt.name != DIVISION:
        IMPORT_FORMATS[DIVISION] = IMPORT_FORMATS.pop(DIVISION)


def detect_import_format(file_name: str, text: str) -> ImportFormat:
    for fmt in IMPORT_FORMATS.values():
        if fmt.detect(file_name, text):
            return fmt
    raise ServiceError(
        "invalid_file", field="file", detail="no format reads it", source=file_name, line=0
    )


def _read_tourney_js(
    path: Path, text: str, config: TshConfig | None, _cp: Path | None
) -> ImportRead:
    data = parse_tourney_js(text, source=path.name)
    check_counts(_tourney_js_counts(data), path.name)
    divisions = [
        ParsedDivision(dname, default_file_name(dname), players, path.name)
        for dname, players in tourney_js_divisions(data)
    ]
    js_config = data.get("config") or {}
    if isinstance(js_config, dict):  # the labels are ours to write (export_tourney_js)
        js_config = {k: v for k, v in js_config.items() if k != "_termdict"}
    if config is None and js_config:
        config = TshConfig(
            divisions=[(d.name, d.file_name) for d in divisions],
            settings=dict(js_config),
            autopair=[],
            classes={},
            other_lines=[],
            warnings=[],
        )
    return ImportRead(divisions, config, tourney_js_extras(data))


def _read_archive(path: Path, text: str, config: TshConfig | None, _cp: Path | None) -> ImportRead:
    divisions, config = _archive_divisions(text, path.name)
    return ImportRead(divisions, config)


def _read_config(path: Path, text: str, config: TshConfig | None, _cp: Path | None) -> ImportRead:
    config = parse_config(text, source=path.name)
    return ImportRead(_config_divisions(config, path.parent, path.name), config)


def _read_division(
    path: Path, text: str, config: TshConfig | None, config_path: Path | None
) -> ImportRead:
    return ImportRead([_single_division(text, path, config, config_path)], config)


def prescan_import(path: str | Path) -> None:
    """Every limit an import checks before it parses (bytes, divisions, players, rounds and
    player-rounds), at the cost of a pass over the lines: what a request may afford before it
    hands the file to a background job, so a refusal of size still comes back at once."""
    path = Path(path)
    check_import_size([path], path.name)
    try:
        text = read_text(path)
        if not text.strip():
            raise ServiceError("empty_file", field="file", path=str(path))
        fmt = detect_import_format(path.name, text)
        if fmt.count is not None:
            check_counts(fmt.count(text), path.name)
        if fmt.name == CONFIG:
            _config_texts(parse_config(text, source=path.name), path.parent, path.name)
        elif fmt.count is None:  # tourney.js: counted once its JSON is read (no players yet)
            check_counts(_tourney_js_counts(parse_tourney_js(text, source=path.name)), path.name)
    except FormatError as exc:
        raise ServiceError(
            "invalid_file", field="file", detail=str(exc), source=exc.source, line=exc.line
        ) from exc


def plan_import(
    path: str | Path, *, config_path: str | Path | None = None, name: str | None = None
) -> ImportPlan:
    """Read and check the files; raise with file and line on the first problem."""
    path = Path(path)
    config: TshConfig | None = None
    check_import_size([path] + ([Path(config_path)] if config_path is not None else []), path.name)
    try:
        if config_path is not None:
            cpath = Path(config_path)
            config = parse_config(read_text(cpath), source=cpath.name)
        text = read_text(path)
        if not text.strip():
            raise ServiceError("empty_file", field="file", path=str(path))
        fmt = detect_import_format(path.name, text)
        if fmt.count is not None:  # tourney.js is counted once parsed
            check_counts(fmt.count(text), path.name)
        if config_path is not None and not fmt.with_config:
            raise ServiceError("not_a_division_file", field="config", file=path.name, kind=fmt.name)
        read = fmt.read(path, text, config, Path(config_path) if config_path else None)
    except FormatError as exc:
        raise ServiceError(
            "invalid_file", field="file", detail=str(exc), source=exc.source, line=exc.line
        ) from exc
    divisions, config = read.divisions, read.config
    if not divisions:
        raise ServiceError("no_divisions_found", field="file", file=path.name)
    for d in divisions:
        if not d.players:
            where = f"{path.name}: {d.file_name}" if fmt.name == ARCHIVE else d.file_name
            raise ServiceError("empty_division", field="file", where=where, division=d.name)
    settings = dict(config.settings) if config else {}
    event_name = name or settings.get("event_name") or _default_name(path, fmt)
    return ImportPlan(
        name=str(event_name),
        divisions=divisions,
        config=config,
        settings=settings,
        warnings=list(config.warnings) if config else [],
        tourney_js=read.tourney_js,
    )


def _archive_divisions(text: str, source: str) -> tuple[list[ParsedDivision], TshConfig]:
    config_text, files = parse_archive(text, source=source)
    config = parse_config(config_text, source=f"{source} (config)")
    divisions = []
    for dname, file_name in config.divisions:
        _check_named_file(source, dname, file_name)
        if file_name not in files:
            raise ServiceError(
                "archive_missing_file",
                field="file",
                source=source,
                division=dname,
                file=file_name,
            )
        divisions.append(
            ParsedDivision(dname, file_name, parse_t(files[file_name], source=file_name), file_name)
        )
    return divisions, config


def _single_division(
    text: str, path: Path, config: TshConfig | None, config_path: str | Path | None
) -> ParsedDivision:
    players = parse_t(text, source=path.name)
    if config is not None and config.divisions:
        if len(config.divisions) == 1:
            dname = config.divisions[0][0]
        else:
            matches = [d for d, f in config.divisions if Path(f).name == path.name]
            if not matches:
                raise ServiceError(
                    "config_names_no_file", field="config", config=str(config_path), file=path.name
                )
            dname = matches[0]
    else:
        dname = path.stem
    # The file's own name is kept when it is a plain .t name ("x.tsh" is stored as "x.t").
    file_name = path.name if is_file_name(path.name) else default_file_name(path.stem)
    return ParsedDivision(dname, file_name, players, path.name)


def check_rounds(plan: ImportPlan, rounds: int) -> None:
    """Refuse a --rounds below what the files already hold: later rounds would be orphaned."""
    if rounds < 1:
        raise ServiceError(
            "below_minimum", field="rounds", what="the number of rounds", minimum=1, value=rounds
        )
    for d in plan.divisions:
        for p in d.players:
            beyond = [
                r for r, opp in enumerate(p.opponents, start=1) if r > rounds and opp is not None
            ]
            if beyond:
                need = max(
                    r
                    for q in d.players
                    for r, opp in enumerate(q.opponents, start=1)
                    if opp is not None
                )
                raise ServiceError(
                    "rounds_below_file",
                    field="rounds",
                    rounds=rounds,
                    file=d.file_name,
                    line=p.line,
                    number=p.number,
                    name=p.name,
                    round=beyond[0],
                    division=d.name,
                    need=need,
                )


def max_upload_bytes() -> int:
    """One upload's bytes, all its files together (GIBSON_MAX_UPLOAD_MB, 5 by default: a big
    all.tsh of twenty divisions of thirty rounds is well under 1 MB)."""
    return site.MAX_UPLOAD_MB * 1024 * 1024


# A live feed: by its name (.js, or .json for a plain-JSON feed), or by its content, which
# opens with ``newt=`` or with a JSON object; no TSH file opens with either.
_FEED_START = re.compile(r"\A\ufeff?\s*(?:(?:(?:var|let|const)\s+)?newt\s*=|\{)")


def _is_feed(name: str, text: str) -> bool:
    return name.lower().endswith((".js", ".json")) or bool(_FEED_START.match(text))


register_import_format(
    ImportFormat(
        "tourney.js",
        _is_feed,
        _read_tourney_js,
        with_config=True,
    )
)
register_import_format(
    ImportFormat(
        ARCHIVE, lambda name, text: file_kind(text) == ARCHIVE, _read_archive, count=count_tsh
    )
)
register_import_format(
    ImportFormat(
        CONFIG, lambda name, text: file_kind(text) == CONFIG, _read_config, count=count_tsh
    )
)
# A .TOU file opens with '*M' and the date (DD.MM.YYYY); no TSH file does (a .t line opens with a
# name, a config line with a command), so the content tells it apart whatever the file's name.
_TOU_HEADER = re.compile(r"\A\s*\*M\d\d\.\d\d\.\d{4}")


def _read_tou(path: Path, text: str, config: TshConfig | None, _cp: Path | None) -> ImportRead:
    """A WESPA/AuPair ``.TOU``: its sections are divisions; its header names and dates the event.

    The file carries no ratings (every player comes in unrated) and no config; the event's
    name and date go into the settings the importer reads for every format.
    """
    event_name, event_date, sections = parse_tou(text, source=path.name)
    divisions = [
        ParsedDivision(dname or "A", default_file_name(dname or "A"), players, path.name)
        for dname, players in sections
    ]
    settings: dict[str, Any] = {}
    if event_name:
        settings["event_name"] = event_name
    if event_date:
        settings["event_date"] = event_date.isoformat()
    tou_config = TshConfig(
        divisions=[(d.name, d.file_name) for d in divisions],
        settings=settings,
        autopair=[],
        classes={},
        other_lines=[],
        warnings=[],
    )
    return ImportRead(divisions, tou_config)


register_import_format(
    ImportFormat(
        "tou", lambda name, text: bool(_TOU_HEADER.match(text)), _read_tou, count=count_tou
    )
)
register_import_format(
    ImportFormat(
        DIVISION,
        lambda name, text: True,
        _read_division,
        with_config=True,
        names_its_event=False,
        count=count_tsh,
    )
)
