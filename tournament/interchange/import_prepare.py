"""An import's plan turned into what will be written (``prepare_import``): the tournament's
settings from the config's keys, each division's games with their scores checked. Outside any
transaction: a big file takes seconds to parse, and no write lock is held meanwhile.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tournament.checks import validate_bye_score, validate_played_scores
from tournament.errors import ServiceError
from tournament.formats.limits import (
    MAX_SCORE,
)
from tournament.formats.tsh import TshPlayer
from tournament.models import First
from tournament.standings import spread_cap_fields

from .import_read import ImportPlan, ParsedDivision, check_rounds, plan_import

REALMS = {
    "nsa": "nsa",
    "naspa": "nsa",
    "wespa": "wespa",
    "absp": "absp",
    "aus": "aus",
    "thai": "thai",
}


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
