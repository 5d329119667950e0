"""Exports of a whole event, for rating bodies, spreadsheets and live overlays.

The shell around ``tournament.formats``: it loads divisions through ``tournament.interchange``,
renders one of the formats below and writes it atomically (a temporary file in the target
folder, then ``os.replace``), so a failed export never leaves a half-written file where a
director or a rating upload expects a good one.

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
from dataclasses import dataclass
from pathlib import Path

from .formats.csvcell import csv_cell
from .formats.tou import scored_rounds, write_tou
from .formats.tourney_js import write_tourney_js
from .interchange import division_players, export_archive, export_tourney_js
from .models import Tournament
from .services import ServiceError, division_standings, last_round_number

__all__ = ["FORMATS", "Export", "render_export", "standings_csv", "write_export"]

FORMATS = ("all.tsh", "tou", "csv", "tourney.js")
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


def render_export(tournament: Tournament, fmt: str, *, date: dt.date | None = None) -> Export:
    """Render ``fmt`` for the tournament; raise ``ServiceError`` naming what is wrong."""
    if fmt not in FORMATS:
        raise ServiceError(
            "unknown_format", field="format", format=fmt, choices=", ".join(FORMATS)
        )
    divisions = _divisions(tournament)
    facts = [{"name": d.name, "players": d.entries.count()} for d in divisions]
    if fmt in ("all.tsh", "tou") and hasattr(tournament, "club_night"):
        from .clubs.services import FEDERATION_MIN_PLAYERS

        players = sum(f["players"] for f in facts)
        if players < FEDERATION_MIN_PLAYERS:
            raise ServiceError("night_too_small_to_submit", field="format", format=fmt,
                               players=players, minimum=FEDERATION_MIN_PLAYERS)
    if fmt == "all.tsh":
        text = export_archive(tournament)
        return Export(fmt, text.encode("utf-8"), facts)
    if fmt == "csv":
        return Export(fmt, standings_csv(tournament).encode("utf-8"), facts)
    if fmt == "tourney.js":
        text = write_tourney_js(export_tourney_js(tournament, public=True))
        return Export(fmt, text.encode("utf-8"), facts)
    # .TOU: the rating file needs the event's date; refuse rather than guess one.
    event_date = date or tournament.start_date
    if event_date is None:
        raise ServiceError("event_date_needed", field="date", tournament=tournament.slug)
    tou_divisions = [(d.name, division_players(d)) for d in divisions]
    for fact, (_, players) in zip(facts, tou_divisions, strict=True):
        fact["rounds"] = scored_rounds(players)
    text = write_tou(tournament.name, event_date, tou_divisions)
    return Export(fmt, text.encode("ascii"), facts)


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
