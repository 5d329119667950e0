"""Exports of a whole event, for rating bodies, spreadsheets and live overlays.

The shell around ``tournament.formats``: it reads a division as TSH writes it
(``division_players``), renders one of the formats below and writes it atomically (a
temporary file in the target folder, then ``os.replace``), so a failed export never leaves a
half-written file where a director or a rating upload expects a good one.

=============  ============================================================================
format         what it is
=============  ============================================================================
``all.tsh``    NASPA's submission archive: config + every ``.t`` (divisions under 4 players
               are refused, as NASPA refuses them)
``tou``        WESPA / AuPair ``.TOU``: fixed width, ASCII, CRLF, fully scored rounds only
``csv``        standings after the latest round, one row per player per division
``tourney.js`` TSH's live feed for broadcast overlays; the public copy (no passwords)
=============  ============================================================================
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tournament.errors import ServiceError
from tournament.formats.archive import write_archive
from tournament.formats.config import TshConfig, write_config
from tournament.formats.csvcell import csv_cell
from tournament.formats.errors import FormatError
from tournament.formats.limits import default_file_name, is_file_name
from tournament.formats.tou import scored_rounds, write_tou
from tournament.formats.tourney_js import (
    build_tourney_js,
    write_tourney_js,
)
from tournament.formats.tsh import TshPlayer, team_rating, write_t
from tournament.models import Division, First, Game, Tournament
from tournament.selectors import DivisionSnapshot, division_standings, last_round_number
from tournament.selectors.rows import DivisionRead

__all__ = [
    "EXPORT_FORMATS",
    "Export",
    "export_formats",
    "register_export_check",
    "register_export_format",
    "render_export",
    "standings_csv",
    "write_export",
]
CSV_HEADER = ["division", "rank", "number", "name", "wins", "losses", "spread", "rating"]


@dataclass
class Export:
    """One rendered export: the bytes to write and facts for the command's report."""

    format: str
    data: bytes
    divisions: list[dict[str, object]]


def _divisions(tournament: Tournament):
    divisions = list(tournament.divisions.order_by("position", "name"))
    if not divisions:
        raise ServiceError("nothing_to_export", tournament=tournament.slug)
    return divisions


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def standings_csv(tournament: Tournament) -> str:
    """Standings after each division's latest round (withdrawn players unranked, at the end).

    Names and division names are neutralised for spreadsheets (formats.csvcell)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for division in _divisions(tournament):
        for row in division_standings(division, last_round_number(division)):
            cells = [
                division.name,
                "" if row.rank is None else row.rank,
                row.number,
                row.name,
                _number(row.wins),
                _number(row.losses),
                row.spread,
                row.rating,
            ]
            writer.writerow([csv_cell(c) for c in cells])
    return out.getvalue()


ABSP_HEADER = ["Division", "Round", "Player1", "Score1", "Player2", "Score2"]


def absp_results_csv(tournament: Tournament) -> str:
    """The ABSP's results CSV: one row per game played, in division, round and board order.

    The ABSP rates played games only: a bye or a forfeit (a game with no opponent, docs/rules.md:
    "byes and forfeits are never rated") is not a game to it and gets no row, and neither does
    a pairing not yet scored (the file is for rating). Player1 is the game's first-listed
    player, as on the pairings. Names are written as the players' names exactly, neutralised
    for spreadsheets (formats.csvcell); scores stay numbers.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(ABSP_HEADER)
    for division in _divisions(tournament):
        games = (
            Game.objects.filter(
                round__division=division,
                player2__isnull=False,
                score1__isnull=False,
                score2__isnull=False,
            )
            .select_related("round", "player1__player", "player2__player")
            .order_by("round__number", "board", "player1__number")
        )
        for g in games:
            cells = [
                division.name,
                g.round.number,
                g.player1.player.name,
                g.score1,
                g.player2.player.name,
                g.score2,
            ]
            writer.writerow([csv_cell(c) for c in cells])
    return out.getvalue()


ExportRenderer = Callable[[Tournament, list[Division], list[dict[str, Any]], dt.date | None], bytes]
ExportCheck = Callable[[Tournament, str, list[dict[str, Any]]], None]


@dataclass(frozen=True)
class ExportFormat:
    """One export format: its name (the command's ``--format``, the desk's link), what it is,
    and how it is rendered from the tournament's divisions (``facts`` may gain per-division
    numbers for the command's report)."""

    name: str
    description: str
    render: ExportRenderer
    public_feed: bool = False  # served live at its own URL rather than offered as a download


EXPORT_FORMATS: dict[str, ExportFormat] = {}
EXPORT_CHECKS: dict[str, ExportCheck] = {}


def register_export_format(
    name: str, description: str, render: ExportRenderer, *, public_feed: bool = False
) -> None:
    """Offer a new export everywhere exports are offered (command, desk) with one call."""
    EXPORT_FORMATS[name] = ExportFormat(name, description, render, public_feed)


def register_export_check(name: str, check: ExportCheck) -> None:
    """A rule another domain applies before any export is rendered (it raises a ServiceError
    to refuse): the clubs app refuses federation files for a night too small to submit."""
    EXPORT_CHECKS[name] = check


def export_formats(*, downloads_only: bool = False) -> tuple[str, ...]:
    """The registered format names, in registration order."""
    return tuple(f.name for f in EXPORT_FORMATS.values() if not (downloads_only and f.public_feed))


def render_export(tournament: Tournament, fmt: str, *, date: dt.date | None = None) -> Export:
    """Render ``fmt`` for the tournament; raise ``ServiceError`` naming what is wrong."""
    export_format = EXPORT_FORMATS.get(fmt)
    if export_format is None:
        raise ServiceError(
            "unknown_format", field="format", format=fmt, choices=", ".join(EXPORT_FORMATS)
        )
    divisions = _divisions(tournament)
    facts: list[dict[str, Any]] = [
        {"name": d.name, "players": d.entries.count()} for d in divisions
    ]
    for check in EXPORT_CHECKS.values():
        check(tournament, fmt, facts)
    return Export(fmt, export_format.render(tournament, divisions, facts, date), facts)


def _render_archive(tournament, divisions, facts, date) -> bytes:
    return export_archive(tournament).encode("utf-8")


def _render_csv(tournament, divisions, facts, date) -> bytes:
    return standings_csv(tournament).encode("utf-8")


def _render_absp(tournament, divisions, facts, date) -> bytes:
    return absp_results_csv(tournament).encode("utf-8")


def _render_tourney_js(tournament, divisions, facts, date) -> bytes:
    return write_tourney_js(export_tourney_js(tournament, public=True)).encode("utf-8")


def _render_tou(tournament, divisions, facts, date) -> bytes:
    # .TOU: the rating file needs the event's date; refuse rather than guess one.
    event_date = date or tournament.start_date
    if event_date is None:
        raise ServiceError("event_date_needed", field="date", tournament=tournament.slug)
    tou_divisions = [(d.name, division_players(d)) for d in divisions]
    for fact, (_, players) in zip(facts, tou_divisions, strict=True):
        fact["rounds"] = scored_rounds(players)
    return write_tou(tournament.name, event_date, tou_divisions).encode("ascii")


def write_export(data: bytes, out: str | Path) -> Path:
    """Write ``data`` to ``out`` atomically; the folder must exist."""
    target = Path(out)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ServiceError("is_a_folder", field="out", path=str(target))
    if not folder.is_dir():
        raise ServiceError("no_such_folder", field="out", path=str(target), folder=str(folder))
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp_name, 0o644)  # mkstemp makes it private; an export is meant to be shared
        os.replace(tmp_name, target)
    except OSError as exc:
        Path(tmp_name).unlink(missing_ok=True)
        raise ServiceError(
            "cannot_write", field="out", path=str(target), reason=str(exc.strerror or exc)
        ) from exc
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return target


# ------------------------------------------------------------- TSH files and the live feed


def _trim(values: list[Any], empty: Any) -> list[Any]:
    while values and values[-1] == empty:
        values.pop()
    return values


# Entry.extra's key for a team entry's rating as the file wrote it ('1500+1400+0'); '+' keeps it
# apart from every TSH field name.
TEAM_RATING_KEY = "+rating"


def division_players(division: Division, read: DivisionRead | None = None) -> list[TshPlayer]:
    """The division as TSH players: modelled fields from games/entries, the rest as imported."""
    if read is None:
        read = DivisionRead.load(division)
    entries = read.entries
    by_id = {e.pk: e for e in entries}
    # round, board, p1, p2, score1, score2, first (selectors.GAME_ROW) and the side played
    per: dict[int, dict[int, tuple[tuple, int]]] = {e.pk: {} for e in entries}
    for g in read.games:
        per[g[2]][g[0]] = (g, 1)
        if g[3]:
            per[g[3]][g[0]] = (g, 2)
    players = []
    for e in entries:
        games = per[e.pk]
        last = max(games, default=0)
        opponents: list[int | None] = []
        scores: list[int | None] = []
        p12: list[int] = []
        boards: list[int] = []
        for r in range(1, last + 1):
            item = games.get(r)
            if item is None:
                opponents.append(None)
                scores.append(None)
                p12.append(First.UNKNOWN)
                boards.append(0)
                continue
            (_r, board, player1, player2, score1, score2, first, _expl), side = item
            other = player2 if side == 1 else player1
            opponents.append(by_id[other].number if other else 0)
            scores.append(score1 if side == 1 else score2)
            if side == 2 and first in (First.PLAYER1, First.PLAYER2):
                first = 3 - first
            p12.append(first)
            boards.append(board or 0)
        _trim(scores, None)
        derived: dict[str, list[str] | None] = {
            "p12": [str(v) for v in _trim(p12, First.UNKNOWN)] or None,
            "board": [str(v) for v in _trim(boards, 0)] or None,
            "lifeg": [str(e.career_games)] if e.career_games is not None else None,
            # TSH's '; class X': a class stored with a space (read from a '; class A B' line)
            # goes back as its words, which every .t reader joins into the same class again
            "class": e.player_class.split() or None,
            "off": [str(e.withdrawal_score)] if e.withdrawn_round is not None else None,
        }
        fields: dict[str, list[str]] = {}
        rating_text = ""
        for key, values in e.extra or []:
            if key == TEAM_RATING_KEY:
                # written back as it came, unless the seed rating was corrected since
                text = values[0] if values else ""
                members = [int(v) for v in text.split("+") if v.isdigit()]
                if members and team_rating(members) == e.seed_rating:
                    rating_text = text
                continue
            if values is None:
                if derived.get(key) is not None:
                    fields[key] = derived[key]
            elif key in ("p12", "board"):
                # kept verbatim for the rounds the file covered; later rounds from the games
                fields[key] = list(values) + (derived.get(key) or [])[len(values) :]
            else:
                fields[key] = list(values)
        for key, values in derived.items():
            if (
                key not in fields
                and values is not None
                and not any(k == key for k, _ in e.extra or [])
            ):
                fields[key] = values
        players.append(
            TshPlayer(
                number=e.number,
                name=e.name,
                member_id=e.naspa_id,
                rating=e.seed_rating,
                opponents=opponents,
                scores=scores,
                fields=fields,
                rating_text=rating_text,
            )
        )
    return players


def tournament_config(tournament: Tournament) -> TshConfig:
    kept = tournament.config or {}
    settings = dict(kept.get("settings") or {})
    # the tournament's name is the one truth: an imported event_name is only the name the file
    # had (``import_tsh --name`` or a later rename replaces it); kept in its place in the file
    settings["event_name"] = tournament.name
    if tournament.start_date:
        settings.setdefault("event_date", tournament.start_date.isoformat())
    settings["realm"] = settings.get("realm", tournament.realm)
    for key in ("bye_spread", "gibson_spread"):
        settings[key] = getattr(tournament, key)
    if tournament.spread_cap_list:  # TSH's list form: its tsh.js caps only when given a list
        settings["spread_cap"] = tournament.spread_cap_list
    else:
        settings.pop("spread_cap", None)
    if tournament.standings_spread_cap:
        settings["standings_spread_cap"] = 1
    else:
        settings.pop("standings_spread_cap", None)
    divisions = list(tournament.divisions.order_by("position", "name"))
    if "max_rounds" not in settings and divisions:
        settings["max_rounds"] = max(d.rounds for d in divisions)
    from tournament.formats.config import AutoPair

    autopair = [
        AutoPair(
            division=a[0],
            source_round=a[1],
            target_round=a[2],
            command=a[3],
            args=list(a[4]),
            line=0,
        )
        for a in kept.get("autopair", [])
    ]
    names = division_file_names(divisions)
    return TshConfig(
        divisions=[(d.name, names[d.pk]) for d in divisions],
        settings=settings,
        autopair=autopair,
        classes=dict(kept.get("classes") or {}),
        other_lines=list(kept.get("other_lines") or []),
        warnings=[],
    )


def division_file_names(divisions: list[Division]) -> dict[int, str]:
    """Each division's .t file name, safe to write: a stored name that is not a plain .t
    name (one saved before names were checked, "/tmp/x.t", "../../x.t") is replaced by one made
    from the slug, and a name two divisions share (ignoring case) by the slug's too."""
    names: dict[int, str] = {}
    taken: set[str] = {"config.tsh"}
    for d in divisions:
        name = d.file_name if is_file_name(d.file_name or "") else f"{d.slug}.t"
        if name.lower() in taken or not is_file_name(name):
            name = default_file_name(d.slug or d.name)
            stem, n = name[:-2], 2
            while name.lower() in taken:
                name, n = f"{stem}-{n}.t", n + 1
        taken.add(name.lower())
        names[d.pk] = name
    return names


def export_files(tournament: Tournament) -> dict[str, str]:
    """config.tsh and one .t per division, as text, keyed by file name (plain names only)."""
    config = tournament_config(tournament)
    files = {"config.tsh": write_config(config)}
    divisions = list(tournament.divisions.order_by("position", "name"))
    names = division_file_names(divisions)
    for division in divisions:
        read = DivisionRead.load(division)
        players = division_players(division, read)
        for p in players:
            if ";" in p.name:  # stored before names were checked: refuse, naming the player
                raise ServiceError(
                    "export_name_semicolon",
                    tournament=tournament.name,
                    division=division.name,
                    number=p.number,
                    name=p.name,
                )
        _add_results(tournament, division, players, read)
        try:
            files[names[division.pk]] = write_t(players)
        except FormatError as exc:  # any other value a .t cannot carry: named, never a 500
            raise ServiceError(
                "export_unwritable",
                tournament=tournament.name,
                division=division.name,
                detail=exc.message,
            ) from exc
    return files


def _add_results(
    tournament: Tournament, division: Division, players: list[TshPlayer], read: DivisionRead
) -> None:
    """TSH's ``rrank`` and ``newr`` on every player of a ``.t`` Gibson writes.

    Readers of ``.t`` files (rating programs, TSH's own reports) take a player's final rank and
    new rating from these two fields, so a file without them tells them nothing about an event
    Gibson ran. The values are the ones the live feed carries (``export_tourney_js``): the rank
    after rounds 0 (the seeding) to the last round with a score, and the rating estimate after
    each round. Values a file brought in (an event TSH started) are kept as TSH printed them;
    only later rounds are added, and an imported file whose rounds Gibson has not added to is
    written back as it came (its readers had what TSH gave them; the export stays lossless).
    A withdrawn player's ranks end where TSH's do, at the last one.
    """
    from ratings.division import RatingError, division_estimates, division_system
    from ratings.engine import NO_RATING_SYSTEM

    file_rounds = (division.config or {}).get("file_rounds")
    scored = max((len(p.scores) for p in players), default=0)
    if isinstance(file_rounds, int) and scored <= file_rounds:
        return

    snapshot = read.snapshot()
    try:
        newr = {
            row["number"]: row["by_round"]
            for row in division_estimates(division, snapshot=snapshot)
        }
        if division_system(division) == NO_RATING_SYSTEM:
            newr = _copied_ratings(players, newr)
    except (RatingError, ValueError):
        newr = {}  # a rating system we cannot compute: no estimates, as in the live feed
    ranks, _ = _round_ranks(tournament, division, players, snapshot)
    for p in players:
        for key, source in (("newr", newr), ("rrank", ranks)):
            values: list[str] = []
            for value in source.get(p.number) or []:
                if value is None:
                    break  # a .t list has no holes: it ends at the last known value
                values.append(value if isinstance(value, str) else str(int(value)))
            kept = p.fields.get(key)
            if kept:
                values = list(kept) + values[len(kept) :]
            if values:
                p.fields[key] = values


# Folders an export never writes into, even when asked (a command run as root would): the
# system's own, where a config.tsh or .t file could only do harm.
SYSTEM_FOLDERS = tuple(
    Path(p)
    for p in (
        "/",
        "/bin",
        "/boot",
        "/dev",
        "/etc",
        "/lib",
        "/lib32",
        "/lib64",
        "/proc",
        "/sbin",
        "/sys",
        "/usr",
        "/var/lib",
        "/var/log",
    )
)


def refuse_system_folder(folder: Path, shown: str | Path) -> None:
    """Refuse ``folder`` (already resolved) when it is or lies in a system folder."""
    for system in SYSTEM_FOLDERS:
        if folder == system or (system != Path("/") and folder.is_relative_to(system)):
            raise ServiceError(
                "unsafe_folder",
                field="out",
                path=str(shown),
                reason=f"{system} is a system folder; exports are not written there",
            )


def export_folder(out_dir: str | Path) -> Path:
    """The folder to export into, resolved (symbolic links followed) and created if needed.

    Refused: a system folder or one inside it, and anything that is not (and cannot become)
    a folder. Nothing is written when refused.
    """
    out = Path(out_dir).expanduser()
    resolved = out.resolve()
    refuse_system_folder(resolved, out)
    if resolved.exists() and not resolved.is_dir():
        raise ServiceError(
            "unsafe_folder", field="out", path=str(out), reason="it is a file, not a folder"
        )
    try:
        resolved.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ServiceError(
            "cannot_create_folder", field="out", path=str(out), reason=str(exc.strerror or exc)
        ) from exc
    if not os.access(resolved, os.W_OK | os.X_OK):
        raise ServiceError(
            "cannot_write", field="out", path=str(out), reason="the folder is not writable"
        )
    return resolved


def export_tsh(tournament: Tournament, out_dir: str | Path) -> list[Path]:
    """Write config.tsh and the .t files into out_dir (created if needed); returns the paths.

    Every file lands directly inside out_dir: names are plain (see division_file_names) and
    each final path is checked to be in the folder before anything is written. Each file is
    written to a fresh temporary file first (never following a link planted there) and then
    renamed over its target, which replaces a link rather than writing through it.
    """
    files = export_files(tournament)
    out = export_folder(out_dir)
    targets = {}
    for file_name in files:
        target = out / file_name
        if target.parent != out or not is_plain_name(file_name):
            raise ServiceError(
                "bad_file_name", field="out", what="export file name", value=file_name[:100]
            )
        targets[file_name] = target
    written = []
    for file_name, text in files.items():
        target = targets[file_name]
        fd, tmp = tempfile.mkstemp(prefix=f".{file_name}.", suffix=".tmp", dir=out)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise ServiceError(
                "cannot_write", field="out", path=str(target), reason=str(exc.strerror or exc)
            ) from exc
        written.append(target)
    return written


def is_plain_name(name: str) -> bool:
    """config.tsh or a division's plain .t name: a single path part inside the folder."""
    return name == "config.tsh" or is_file_name(name)


def export_archive(tournament: Tournament, *, min_players: int = 4) -> str:
    """NASPA's all.tsh submission; NASPA refuses divisions under four players, so do we."""
    small = [d.name for d in tournament.divisions.all() if d.entries.count() < min_players]
    if small:
        raise ServiceError(
            "division_too_small",
            tournament=tournament.slug,
            minimum=min_players,
            names=", ".join(small),
        )
    files = export_files(tournament)
    config_text = files.pop("config.tsh")
    return write_archive(config_text, files)


def export_tourney_js(
    tournament: Tournament,
    *,
    public: bool = True,
    read: Callable[[Division], DivisionRead] | None = None,
) -> dict:
    """TSH's live feed structure; public copies never carry players' passwords.

    ``read``: how a division's rows are had (default: read now); the feed's view passes the
    rows cached for the tournament's version, which the pages of that version share."""
    from tournament.formats.tourney_js import TERMDICT, VIEWER_CONFIG, computed_keys
    from tournament.models import REALM_DEFAULTS, Realm
    from tournament.selectors.photos import tournament_photos

    realm_system = str(
        REALM_DEFAULTS.get(tournament.realm, REALM_DEFAULTS[Realm.NASPA])["rating_system"]
    )
    divisions = []
    division_keys = []
    player_keys = []
    systems = []
    # approved photos only (a pending or refused one is never public); with none, every
    # player's ``photo`` stays as TSH writes it unset, so the feed is unchanged byte for byte
    photos = tournament_photos(tournament)
    for division in tournament.divisions.order_by("position", "name").select_related("rating_list"):
        rows = (read or DivisionRead.load)(division)  # the division's only two queries
        snapshot = rows.snapshot()
        players = division_players(division, rows)
        if public:
            for p in players:
                p.fields.pop("password", None)
        divisions.append((division.name, players))
        ranks, capped = _round_ranks(tournament, division, players, snapshot)
        system = division.rating_system or (
            division.rating_list.system if division.rating_list_id else realm_system
        )
        newr = _feed_estimates(division, snapshot, players, system)
        systems.append(system)
        keys, per_player = computed_keys(
            players,
            rounds=division.rounds,
            prize_places=division.prize_places,
            rating_list=(
                division.rating_list.slug
                if division.rating_list_id
                else str(tournament.realm or "nsa")
            ),
            rating_system=system,
            newr=newr,
            ranks=ranks,
            capped_ranks=capped,
            kept=(division.config or {}).get("tourney_js") or {},
        )
        for e in rows.entries:
            if e.player_id in photos:
                per_player[e.number]["photo"] = photos[e.player_id]
        division_keys.append(keys)
        player_keys.append(per_player)
    settings = tournament_config(tournament).settings
    # the event's own settings, then every key TSH writes for the viewers (as TSH writes it
    # unset) in one fixed order, so that a feed read back is written back byte for byte
    config = {k: v for k, v in settings.items() if k not in VIEWER_CONFIG}
    config.update({key: settings.get(key, default) for key, default in VIEWER_CONFIG.items()})
    config["_termdict"] = TERMDICT
    # esb.js calls config.rating_system.match(...) unguarded: always a string, as TSH writes it
    kept_system = config.get("rating_system")
    config["rating_system"] = (
        systems[0]
        if systems
        else kept_system
        if isinstance(kept_system, str) and kept_system
        else realm_system
    )
    kept = (tournament.config or {}).get("tourney_js") or {}
    top = {"esb": {"message": {"mode": "reveal", "text": ""}}, "profile": ""}
    top.update(kept)
    return build_tourney_js(
        config, divisions, top=top, division_keys=division_keys, player_keys=player_keys
    )


def _feed_estimates(
    division: Division, snapshot: Any, players: list[TshPlayer], system: str
) -> dict[int, list[int | str]]:
    """Each player's estimate after every round, as the feed's ``newr`` carries it."""
    from ratings.division import RatingError, division_estimates
    from ratings.engine import NO_RATING_SYSTEM

    try:
        newr = {
            row["number"]: row["by_round"]
            for row in division_estimates(division, snapshot=snapshot)
        }
    except (RatingError, ValueError):
        newr = {}  # a system we cannot rate: the viewers show no new ratings
    if system == NO_RATING_SYSTEM:
        return _copied_ratings(players, newr)
    return newr


def _copied_ratings(
    players: list[TshPlayer], newr: dict[int, list[int]]
) -> dict[int, list[int | str]]:
    """Under TSH's rating system ``none`` each estimate is the entry's rating as written
    (``Ratings::None::RateDivision`` copies ``Rating()``), so a team's is its ``a+b+c`` text."""
    return {p.number: [p.rating_text or v for v in newr.get(p.number, [])] for p in players}


def _round_ranks(
    tournament: Tournament,
    division: Division,
    players: list[TshPlayer],
    snapshot: DivisionSnapshot | None = None,
) -> tuple[dict[int, list[int | None]], dict[int, list[int | None]] | None]:
    """TSH's ``etc.rrank`` and, under a spread cap, ``etc.rcrank`` of every player: the rank
    after rounds 0 (the seeding) to the last round with a score, as the standings rank them.

    ``rrank`` ranks on the spread shown (capped only when the cap applies everywhere);
    ``rcrank`` on the capped spread, which is what esb.js shows when the config has a cap.

    With ``config show_inactive`` TSH's standings rank the withdrawn players too, and in a
    capped event the standings are what computes and stores ``rcrank``:
    ``TSH::Report::Standings`` calls ``ComputeCappedRanks($r0, {show_inactive => ...})``, and
    ``TSH::Division::ComputeCappedRanks`` skips ``SpliceInactive`` when given it. So ``rcrank``
    then places every player, a withdrawn one as if still entered, while ``rrank`` (computed
    by the pairing commands, which pass no option) leaves them out as usual.
    """
    from tournament.standings import ranks_by_round

    last = max((len(p.scores) for p in players), default=0)  # TSH's MostScores
    entrants, rounds = (snapshot or DivisionSnapshot.load(division)).player_rounds()
    cap = tournament.spread_cap_rule
    common = {"last_round": last, "sum_before_spread": tournament.sum_before_spread}
    settings = (tournament.config or {}).get("settings") or {}
    show_inactive = str(settings.get("show_inactive", "")).strip() not in ("", "0")
    try:
        ranks = ranks_by_round(
            entrants,
            rounds,
            spread_cap=None if tournament.standings_spread_cap else cap,
            **common,
        )
        capped = None if cap is None else ranks
        if cap is not None and show_inactive:
            everyone = [replace(e, withdrawn_round=None) for e in entrants]
            capped = ranks_by_round(everyone, rounds, spread_cap=cap, **common)
        elif cap is not None and tournament.standings_spread_cap:
            capped = ranks_by_round(entrants, rounds, spread_cap=cap, **common)
    except ValueError:
        return {}, None  # data the standings refuse too: the .t fields stay as they were
    return ranks, capped


register_export_format("all.tsh", "NASPA's submission archive: config + every .t", _render_archive)
register_export_format(
    "tou", "WESPA / AuPair .TOU: fixed width, ASCII, CRLF, fully scored rounds", _render_tou
)
register_export_format("csv", "standings after the latest round, a row a player", _render_csv)
register_export_format(
    "absp", "ABSP results CSV: a row per played game (byes, forfeits not rated)", _render_absp
)
register_export_format(
    "tourney.js",
    "TSH's live feed for overlays (public copy)",
    _render_tourney_js,
    public_feed=True,
)
