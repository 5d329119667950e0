"""TSH files in and out of the database: the shell around the pure readers in tournament.formats.

An import is all or nothing: the files are parsed and cross-checked first, then written in one
transaction; any error names the file and line (or player and round) and leaves the database
as it was. Export writes back every field the import kept, so a round trip is lossless.
"""

from __future__ import annotations

import datetime as dt
import gc
import re
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings as site
from django.db import connection, transaction

from tournament.checks import MAX_DIVISION_ROUNDS, validate_bye_score, validate_played_scores
from tournament.errors import ServiceError
from tournament.formats import FormatError
from tournament.formats.archive import parse_archive
from tournament.formats.config import TshConfig, parse_config
from tournament.formats.limits import (
    MAX_SCORE,
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
from tournament.formats.tsh import TshPlayer, decode_bytes, parse_t, withdrawn_round
from tournament.interchange.exports import TEAM_RATING_KEY, division_players
from tournament.models import Division, Entry, First, Game, Player, Round, Seat, Tournament
from tournament.services import (
    Actor,
    audit,
    create_division,
    create_tournament,
    find_or_create_player,
)
from tournament.standings import spread_cap_fields

# TSH fields that are modelled (derived from games and entries on export); everything else is
# kept verbatim in Entry.extra.
MODELLED_FIELDS = ("p12", "board", "lifeg", "class", "off")
REALMS = {
    "nsa": "nsa",
    "naspa": "nsa",
    "wespa": "wespa",
    "absp": "absp",
    "aus": "aus",
    "thai": "thai",
}


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


def _withdrawal(player: TshPlayer) -> tuple[int | None, int | None]:
    return withdrawn_round(player), player.off


def _p12(player: TshPlayer, r: int) -> int | None:
    values = player.p12
    return values[r - 1] if r - 1 < len(values) else None


# limits: a config's numbers are spreads, caps and round counts; 10 * MAX_SCORE is beyond any
# real one and within every database's integer column.
SETTING_LIMIT = 10 * MAX_SCORE


def _setting_int(
    settings: dict[str, Any], key: str, division: str | None = None, *, source: str = "config"
) -> int | None:
    value = settings.get(key)
    if isinstance(value, dict):
        value = value.get(division) if division is not None else None
    raw = value
    if value is None or value == "" or isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        if not re.fullmatch(r"[+-]?[0-9]{1,12}", text):
            return None
        value = int(text)
    if isinstance(value, float):
        if value != value:  # NaN: not a number, ignored like any other non-number
            return None
        if abs(value) > SETTING_LIMIT:
            value = SETTING_LIMIT * 10  # refused below without converting inf
    if not isinstance(value, int | float):
        return None
    if not -SETTING_LIMIT <= value <= SETTING_LIMIT:
        shown = raw if len(str(raw)) <= 20 else f"{str(raw)[:12]}..."
        raise ServiceError(
            "setting_out_of_range",
            field="file",
            source=source,
            key=key if division is None else f"{key}{{{division}}}",
            value=shown,
            minimum=-SETTING_LIMIT,
            maximum=SETTING_LIMIT,
        )
    return int(value)


def _setting_caps(settings: dict[str, Any], *, source: str = "config") -> list[int]:
    """TSH's ``spread_cap`` in every form it writes: a number (``250``), a list by round
    (``[250]``, ``[100, 100, 150]``; config.tsh and tourney.js alike), or that list as text.

    A value that is not a number, or a list holding a cap of 0 or less, caps nothing, as
    TSH caps only on positive numbers; a list is taken or left out whole, never shifted.
    """
    value = settings.get("spread_cap")
    if isinstance(value, str) and value.strip().startswith("["):
        value = [v for v in re.split(r"[\s,]+", value.strip()[1:].rstrip("]")) if v]
    if isinstance(value, list | tuple):
        caps = []
        for item in value:
            cap = _setting_int({"spread_cap": item}, "spread_cap", source=source)
            if cap is None or cap <= 0:
                return []
            caps.append(cap)
        return caps
    cap = _setting_int(settings, "spread_cap", source=source)
    return [cap] if cap is not None and cap > 0 else []


@dataclass
class PreparedGame:
    """One game as the files give it, its scores already checked (second 0: a bye)."""

    round: int
    board: int | None
    first: int
    second: int
    score1: int | None
    score2: int | None
    first_player: int


@dataclass
class PreparedDivision:
    """A division ready to write: its players as read and its games, all checked."""

    parsed: ParsedDivision
    rounds: int
    played: int
    games: list[PreparedGame]


@dataclass
class PreparedImport:
    """A whole import checked before the database is touched (see ``prepare_import``)."""

    plan: ImportPlan
    source: str
    realm: str
    fields: dict[str, Any]
    config: dict[str, Any]
    divisions: list[PreparedDivision]


def prepare_import(
    path: str | Path,
    *,
    config_path: str | Path | None = None,
    rounds: int | None = None,
    name: str | None = None,
) -> PreparedImport:
    """Read, parse and check everything an import needs, outside any transaction.

    A big file takes seconds to parse; on SQLite a transaction holds the one write lock, so
    doing this inside it would make every result entered meanwhile wait (and fail). Every
    refusal that the files alone can show (a bad line, a one-sided score, a score out of
    range, too few rounds) is raised here, before anything is written.
    """
    plan = plan_import(path, config_path=config_path, name=name)
    if rounds is not None:
        check_rounds(plan, rounds)
    s = plan.settings
    realm = REALMS.get(str(s.get("realm", "nsa")).lower(), "other")
    fields: dict[str, Any] = {}
    for key in ("bye_spread", "gibson_spread", "max_rounds"):
        value = _setting_int(s, key, source=Path(path).name)
        if value is not None:
            fields[key] = value
    caps = _setting_caps(s, source=Path(path).name)
    if caps:
        fields["spread_cap"], fields["spread_caps"] = spread_cap_fields(caps)
    if s.get("standings_spread_cap") not in (None, "", 0, "0", False):
        fields["standings_spread_cap"] = True
    if "gibson" in s:
        fields["gibson"] = bool(s["gibson"])
    if s.get("event_date"):
        date = _parse_date(str(s["event_date"]))
        if date:
            fields["start_date"] = date
    config_keep = {
        "settings": s,
        "autopair": [
            [a.division, a.source_round, a.target_round, a.command, list(a.args)]
            for a in (plan.config.autopair if plan.config else [])
        ],
        "classes": dict(plan.config.classes) if plan.config else {},
        "other_lines": list(plan.config.other_lines) if plan.config else [],
        "source": Path(path).name,
    }
    if plan.tourney_js is not None:
        config_keep["tourney_js"] = plan.tourney_js["top"]
    divisions = []
    for parsed in plan.divisions:
        played = max((len(p.opponents) for p in parsed.players), default=0)
        configured = (
            rounds
            or _setting_int(s, "max_rounds", parsed.name, source=Path(path).name)
            or played
            or 1
        )
        divisions.append(PreparedDivision(parsed, configured, played, _division_games(parsed)))
    return PreparedImport(plan, Path(path).name, realm, fields, config_keep, divisions)


# Rows written per transaction. A big import (4 divisions of 500 players, 50 rounds: 100,000
# games and seats) written in one transaction held SQLite's one write lock for over 30 s, so
# every result entered meanwhile on the site waited and failed; in batches of this size each
# transaction holds it for a few tens of milliseconds and other writes go in between.
BATCH_ROWS = 200
# SQLite lets a waiting writer retry only every 100 ms (its busy handler's longest sleep) and
# queues nobody: an import committing batch after batch with no gap would take the lock back
# each time before a waiter's next try. So after each BREATHER_AFTER seconds of holding the
# lock, the import pauses a little longer than one such retry, and every waiting result
# entry is sure to get in; a database with row locks (PostgreSQL) needs no pause.
BREATHER_AFTER = 0.25
BREATHER = 0.11


class BatchWriter:
    """The import's short write transactions: each timed (the longest is reported), with a
    breather between them on SQLite (see BREATHER)."""

    def __init__(self) -> None:
        self.batches = 0
        self.longest = 0.0  # seconds, the longest single write transaction
        self.paused = 0.0  # seconds spent in breathers
        self._held = 0.0
        self._pause = connection.vendor == "sqlite"

    def batch(self) -> _Batch:
        return _Batch(self)


class _Batch:
    def __init__(self, writer: BatchWriter) -> None:
        self.writer = writer
        self.atomic = transaction.atomic()

    def __enter__(self) -> None:
        # A full garbage collection over a big import's parsed files takes half a second;
        # it waits until the lock is let go rather than fall inside a transaction.
        self.collecting = gc.isenabled()
        gc.disable()
        self.started = time.perf_counter()
        self.atomic.__enter__()

    def __exit__(self, *exc: Any) -> None:
        try:
            self.atomic.__exit__(*exc)
        finally:
            if self.collecting:
                gc.enable()
        writer = self.writer
        took = time.perf_counter() - self.started
        writer.batches += 1
        writer.longest = max(writer.longest, took)
        writer._held += took
        # (inside an outer transaction, a test's, the lock is held anyway: no pause)
        if writer._pause and writer._held >= BREATHER_AFTER and not connection.in_atomic_block:
            writer._held = 0.0
            time.sleep(BREATHER)
            writer.paused += BREATHER


# (done, total, phrase, tournament), called inside each batch's transaction so the progress a
# job shows is never ahead of what is written.
ImportProgress = Callable[[int, int, str, Tournament], None]


def import_units(prepared: PreparedImport) -> int:
    """The steps an import's progress counts: each player and each game once."""
    return sum(len(d.parsed.players) + len(d.games) for d in prepared.divisions) + 1


def write_import(
    prepared: PreparedImport,
    *,
    actor: Actor | str | None = "import_tsh",
    directors: Iterable[Any] = (),
    published: bool = True,
    progress: ImportProgress | None = None,
    batch: int = BATCH_ROWS,
    writer: BatchWriter | None = None,
) -> Tournament:
    """Write a prepared import in short transactions; on any failure, delete what was written.

    The tournament is created hidden (a draft marked ``importing``: no public page, no console
    list or page shows it), its divisions through their services (each audited), then players,
    entries, rounds and games in batches of ``batch`` rows, each batch its own transaction so
    the database's write lock is never held for long; one last transaction makes it live
    (``published`` as asked), clears ``importing`` and writes the ``import`` event. A refusal
    met while writing (a player twice in a division) deletes the partial import, again in short
    transactions, and is raised as it was. The ``directors`` direct it from the start, so an
    uploader acting as ``actor`` may add its divisions (the division service checks that).
    """
    plan = prepared.plan
    total = import_units(prepared)
    done = 0
    tournament: Tournament | None = None
    writer = writer or BatchWriter()

    def tick(units: int, phrase: str) -> None:
        nonlocal done
        done += units
        if progress is not None and tournament is not None:
            progress(min(done, total), total, phrase, tournament)

    try:
        with writer.batch():
            tournament = create_tournament(
                name=plan.name,
                realm=prepared.realm,
                actor=actor,
                directors=directors,
                config=prepared.config,
                published=False,
                **prepared.fields,
            )
            Tournament.objects.filter(pk=tournament.pk).update(importing=True)
            tournament.importing = True
            tick(0, "creating the tournament")
        from pairings.services.schedule import schedule_from_autopair

        from .snapshots import printed_before_change

        summary = []
        s = plan.settings
        js_divisions = plan.tourney_js["divisions"] if plan.tourney_js else []
        for index, prepared_division in enumerate(prepared.divisions):
            parsed = prepared_division.parsed
            with writer.batch():
                division = create_division(
                    tournament,
                    name=parsed.name,
                    rounds=prepared_division.rounds,
                    actor=actor,
                    rating_system=str(s.get("rating_system") or "") or None,
                    file_name=parsed.file_name,
                    config={
                        # the rounds TSH scored: a .t export leaves them as the file had them
                        "file_rounds": max((len(p.scores) for p in parsed.players), default=0),
                        **(
                            {"tourney_js": js_divisions[index]} if index < len(js_divisions) else {}
                        ),
                    },
                )
            _write_division(division, prepared_division, batch=batch, tick=tick, writer=writer)
            # TSH's printed ranks and estimates that no recomputation gives (TSH's rule 1)
            for row in printed_before_change(tournament, division, parsed.players):
                plan.warnings.append(row.pop("message"))
                plan.printed_before_change.append(row)
            with writer.batch():
                plan.warnings.extend(schedule_from_autopair(division, prepared.config["autopair"]))
            played = prepared_division.played
            summary.append(
                {"name": division.name, "players": len(parsed.players), "rounds": played}
            )
        with writer.batch():
            tournament.importing = False
            tournament.published = published
            tournament.save(update_fields=["importing", "published"])
            audit(
                tournament,
                actor,
                "import",
                tournament,
                f"imported {prepared.source}",
                after={"divisions": summary, "warnings": plan.warnings},
            )
            tick(1, "done")
    except BaseException:
        if tournament is not None:
            discard_import(tournament.pk)
        raise
    tournament.import_warnings = plan.warnings  # for the command's report, not stored
    tournament.import_printed_before_change = plan.printed_before_change
    tournament.import_writes = {
        "transactions": writer.batches,
        "longest_write_ms": round(writer.longest * 1000, 1),
    }
    return tournament


def discard_import(tournament_id: int, *, batch: int = 5 * BATCH_ROWS) -> bool:
    """Delete a partial import (a tournament still marked ``importing``) in short transactions,
    and the players it created that now play nowhere; False if there was none to delete.

    A live tournament is never touched: the flag is what says the import did not finish. The
    players are those of its entries (each batch wrote its players and their entries together)
    created since the tournament was; one another event entered meanwhile is kept.
    """
    tournament = Tournament.objects.filter(pk=tournament_id, importing=True).first()
    if tournament is None:
        return False
    writer = BatchWriter()
    division_ids = list(
        Division.objects.filter(tournament_id=tournament_id).values_list("pk", flat=True)
    )
    players = sorted(
        set(Entry.objects.filter(division__in=division_ids).values_list("player_id", flat=True))
    )
    for model, where in (
        (Seat, "round__division__in"),
        (Game, "round__division__in"),
        (Entry, "division__in"),
        (Round, "division__in"),
    ):
        while True:
            with writer.batch():
                ids = list(
                    model.objects.filter(**{where: division_ids}).values_list("pk", flat=True)[
                        :batch
                    ]
                )
                if not ids:
                    break
                model.objects.filter(pk__in=ids).delete()
    with writer.batch():
        Tournament.objects.filter(pk=tournament_id, importing=True).delete()
    for start in range(0, len(players), batch):
        with writer.batch():
            Player.objects.filter(
                pk__in=players[start : start + batch],
                created__gte=tournament.created,
                entries__isnull=True,
            ).delete()
    return True


def import_tsh(
    path: str | Path,
    *,
    config_path: str | Path | None = None,
    rounds: int | None = None,
    name: str | None = None,
    actor: Actor | str | None = "import_tsh",
    progress: ImportProgress | None = None,
) -> Tournament:
    """Create a tournament (always a new one) from a .t, config.tsh, all.tsh, tourney.js or .TOU.

    The files are read and checked first with no transaction open (``prepare_import``), then
    written in short transactions of a few hundred rows (``write_import``), so the database's
    write lock is never held for long and results entered meanwhile go in between.
    """
    prepared = prepare_import(path, config_path=config_path, rounds=rounds, name=name)
    return write_import(prepared, actor=actor, progress=progress)


def _parse_date(text: str) -> dt.date | None:
    for fmt in ("%Y-%m-%d", "%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%Y/%m/%d", "%m/%d/%Y"):
        try:
            return dt.datetime.strptime(text.strip(), fmt).date()
        except ValueError:
            continue
    return None


def _division_games(parsed: ParsedDivision) -> list[PreparedGame]:
    """The division's games from its player lines, each score checked (no database)."""
    src = parsed.source
    games: list[PreparedGame] = []
    by_number = {p.number: p for p in parsed.players}
    for p in parsed.players:
        boards = p.board
        for r, opp in enumerate(p.opponents, start=1):
            if opp is None or (opp != 0 and opp < p.number):
                continue  # undefined, or stored from the lower-numbered side
            score = p.scores[r - 1] if r - 1 < len(p.scores) else None
            where = f"{src} line {p.line} (#{p.number} {p.name}) round {r}"
            board = boards[r - 1] if r - 1 < len(boards) and boards[r - 1] else None
            p12 = _p12(p, r)
            if opp == 0:
                if score is not None:
                    score = validate_bye_score(score, where)
                first = First.NONE if p12 is None else p12
                games.append(PreparedGame(r, board, p.number, 0, score, None, first))
                continue
            q = by_number[opp]
            opp_score = q.scores[r - 1] if r - 1 < len(q.scores) else None
            if (score is None) != (opp_score is None):
                who = p if score is not None else q
                raise ServiceError(
                    "one_sided_score", field="file", where=where, number=who.number, name=who.name
                )
            if score is not None:
                score, opp_score = validate_played_scores(score, opp_score, where)
            first = First.UNKNOWN if p12 is None else p12
            games.append(PreparedGame(r, board, p.number, opp, score, opp_score, first))
    return games


def _write_division(
    division: Division,
    prepared: PreparedDivision,
    *,
    batch: int,
    tick: Callable[[int, str], None],
    writer: BatchWriter,
) -> None:
    """Insert a new division's entries, rounds, games and seat index, ``batch`` rows to a
    transaction (bulk inserts); a batch's new players go in with their entries. What can be
    built without the database is built before each transaction opens."""
    parsed = prepared.parsed
    src = parsed.source
    by_number: dict[int, Entry] = {}
    seen: set[int] = set()
    count = len(parsed.players)
    # a player costs a look-up in the registry and a row if new (about 3 ms through the ORM)
    # besides its entry: a batch of players is an eighth of ``batch``
    per = max(1, batch // 8)
    for start in range(0, count, per):
        chunk = parsed.players[start : start + per]
        with writer.batch():
            entries: list[Entry] = []
            for p in chunk:
                player = find_or_create_player(p.name, naspa_id=p.member_id)
                if player.pk in seen:
                    raise ServiceError(
                        "duplicate_player",
                        field="file",
                        source=src,
                        line=p.line,
                        name=p.name,
                        division=division.name,
                    )
                seen.add(player.pk)
                withdrawn_round, off = _withdrawal(p)
                extra = [
                    [k, None if k in MODELLED_FIELDS else list(v)] for k, v in p.fields.items()
                ]
                if p.rating_text:  # a team's 'a+b+c', kept for export (no TSH field name)
                    extra.append([TEAM_RATING_KEY, [p.rating_text]])
                entries.append(
                    Entry(
                        division=division,
                        player=player,
                        number=p.number,
                        seed_rating=p.rating,
                        career_games=p.lifeg,
                        player_class=p.player_class or "",
                        withdrawn_round=withdrawn_round,
                        withdrawal_score=off,
                        extra=extra,
                    )
                )
            by_number.update((e.number, e) for e in Entry.objects.bulk_create(entries))
            tick(len(chunk), f"division {division.name}: {start + len(chunk)} of {count} players")
    numbers = sorted({g.round for g in prepared.games})
    with writer.batch():
        rounds = {
            r.number: r
            for r in Round.objects.bulk_create(Round(division=division, number=n) for n in numbers)
        }
    # a game and its two seats are three rows: a batch of games is a third of ``batch``
    per = max(1, batch // 3)
    count = len(prepared.games)
    for start in range(0, count, per):
        chunk = prepared.games[start : start + per]
        built = [
            Game(
                round=rounds[g.round],
                board=g.board,
                player1=by_number[g.first],
                player2=by_number[g.second] if g.second else None,
                score1=g.score1,
                score2=g.score2,
                first=g.first_player,
            )
            for g in chunk
        ]
        with writer.batch():
            games = Game.objects.bulk_create(built)
            # bulk_create skips Game.save, which keeps the seat index: written here
            seats = []
            for game in games:
                for side, entry_id in ((1, game.player1_id), (2, game.player2_id)):
                    if entry_id is not None:
                        seats.append(
                            Seat(game=game, round_id=game.round_id, entry_id=entry_id, side=side)
                        )
            Seat.objects.bulk_create(seats)
            tick(len(chunk), f"division {division.name}: {start + len(chunk)} of {count} games")
    _keep_underivable_fields(division, parsed, by_number, batch, writer)


def _keep_underivable_fields(
    division: Division,
    parsed: ParsedDivision,
    entries: dict[int, Entry],
    batch: int,
    writer: BatchWriter,
) -> None:
    """Keep a player's p12/board verbatim where the games cannot reproduce them.

    Games hold one board and one first-player value, but old files sometimes disagree between
    the two sides of a game (a board moved for one player, p12 recorded on forfeits). Running the
    exporter once (a read, no transaction) shows which lists the games cannot give back; those
    are kept as written, for the rounds they cover (later rounds are still derived from the
    games), in batches like the rest.
    """
    exported = {p.number: p for p in division_players(division)}
    changed: list[Entry] = []
    for p in parsed.players:
        derived = exported[p.number].fields
        entry = entries[p.number]
        extra = [list(item) for item in entry.extra]
        keep = False
        for item in extra:
            key, values = item
            if values is None and key in ("p12", "board") and derived.get(key) != p.fields[key]:
                item[1] = list(p.fields[key])
                keep = True
        if keep:
            entry.extra = extra
            changed.append(entry)
    for start in range(0, len(changed), batch):
        with writer.batch():
            Entry.objects.bulk_update(changed[start : start + batch], ["extra"])


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


# --------------------------------------------------------------------------- upload (console)


def max_upload_bytes() -> int:
    """One upload's bytes, all its files together (GIBSON_MAX_UPLOAD_MB, 5 by default: a big
    all.tsh of twenty divisions of thirty rounds is well under 1 MB)."""
    return site.MAX_UPLOAD_MB * 1024 * 1024


def check_upload_size(size: int) -> None:
    """Refuse an upload whose files add up to more than the limit, naming it."""
    if size > max_upload_bytes():
        raise ServiceError("upload_too_large", field="file", size=size, limit_mb=site.MAX_UPLOAD_MB)


UPLOAD_FOLDER = "Uploaded tournament"  # names the tournament when a config has no event_name


def _upload_name(file_name: str) -> str:
    """The uploaded file's own name, reduced to a plain file name (no folders, no dot-files)."""
    base = re.split(r"[\\/]", str(file_name or ""))[-1]
    base = re.sub(r"[^A-Za-z0-9._ -]", "_", base).strip().lstrip(".")
    return base[:100] or "upload.t"


def upload_files(
    file_name: str, data: bytes, others: dict[str, bytes] | None = None
) -> tuple[str, dict[str, bytes]]:
    """The upload's files under plain names, the main one first: (main name, {name: bytes})."""
    files = {_upload_name(file_name): data}
    for other_name, other_data in (others or {}).items():
        files.setdefault(_upload_name(other_name), other_data)
    return _upload_name(file_name), files


class _UploadFolder:
    """The upload's files written in a temporary folder, removed afterwards: the import reads
    only these; refusals name the uploaded files, never the folder."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def __enter__(self) -> _UploadFolder:
        self._tmp = tempfile.TemporaryDirectory(prefix="gibson-upload-")
        self.folder = Path(self._tmp.name) / UPLOAD_FOLDER
        self.folder.mkdir()
        for fname, content in self.files.items():
            (self.folder / fname).write_bytes(content)
        return self

    def __exit__(self, *exc: object) -> None:
        self._tmp.cleanup()

    def clean(self, text: str) -> str:
        return text.replace(str(self.folder) + "/", "").replace(str(self.folder), UPLOAD_FOLDER)

    def reword(self, exc: ServiceError) -> ServiceError:
        # The import's own code and params stay (a client acts on them); only the name of the
        # temporary folder is taken out of the words.
        params = {k: self.clean(v) if isinstance(v, str) else v for k, v in exc.params.items()}
        return ServiceError(exc.code, self.clean(exc.message), field=exc.field or "file", **params)


def check_upload(main: str, files: dict[str, bytes]) -> None:
    """What a request checks of an upload before it keeps it for a background import: its size,
    that a config's division files are among the uploaded ones (so an upload never reads
    anything else on the server), and the pre-scan's limits. A refusal changes nothing."""
    check_upload_size(sum(len(content) for content in files.values()))
    with _UploadFolder(files) as upload:
        if not main.lower().endswith(".js"):
            text = decode_bytes(files[main])
            if file_kind(text) == CONFIG:
                try:
                    config = parse_config(text, source=main)
                except FormatError as exc:
                    raise ServiceError(
                        "setup_upload_refused", field="file", detail=upload.clean(str(exc))
                    ) from exc
                for dname, named in config.divisions:
                    if named not in files or _upload_name(named) != named:
                        raise ServiceError(
                            "setup_upload_refused",
                            field="file",
                            detail=f"{main}: division {dname} names {named}, which is not "
                            "among the uploaded files (upload it with the config)",
                        )
        try:
            prescan_import(upload.folder / main)
        except ServiceError as exc:
            raise upload.reword(exc) from exc


def import_files(
    main: str,
    files: dict[str, bytes],
    *,
    actor: Actor | str | None,
    director: Any = None,
    name: str | None = None,
    rounds: int | None = None,
    progress: ImportProgress | None = None,
) -> Tournament:
    """Import checked upload files (``check_upload``) as a new draft tournament, its uploader
    as director: parsed with no transaction open, written in short ones (``write_import``).
    What a background import job runs; refusals name the uploaded file and line."""
    with _UploadFolder(files) as upload:
        try:
            prepared = prepare_import(upload.folder / main, rounds=rounds, name=name or None)
            uploader = [director] if getattr(director, "pk", None) else []
            return write_import(
                prepared, actor=actor, directors=uploader, published=False, progress=progress
            )
        except ServiceError as exc:
            raise upload.reword(exc) from exc


def import_upload(
    file_name: str,
    data: bytes,
    *,
    actor: Actor | str | None,
    director: Any = None,
    name: str | None = None,
    rounds: int | None = None,
    others: dict[str, bytes] | None = None,
) -> Tournament:
    """Create a draft tournament from uploaded bytes (a .t, config.tsh, all.tsh or tourney.js;
    a config.tsh comes with its .t files in ``others``), its uploader as director, here and
    now: ``check_upload`` then ``import_files``. The console does the same in two steps, the
    second in a background job (tournament.interchange.jobs), never inside its request.
    """
    main, files = upload_files(file_name, data, others)
    check_upload(main, files)
    return import_files(main, files, actor=actor, director=director, name=name, rounds=rounds)
