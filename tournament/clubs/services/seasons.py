"""Writes for a club's seasons."""

from __future__ import annotations

import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from tournament.checks import as_int, check_text
from tournament.errors import ServiceError

from ...models import Club
from ...services.audit import Actor, audit
from ..ladder import DEFAULT_PRESET, PRESETS, Rule
from ..models import Season
from .clubs import (
    _date,
    check_organiser,
)

# --------------------------------------------------------------------------- seasons


def season_rule(preset: str = "", rule: dict[str, Any] | None = None) -> tuple[str, Rule]:
    """A preset's rule, or a configured one (checked field by field)."""
    if rule is None:
        preset = preset or DEFAULT_PRESET
        if preset not in PRESETS:
            raise ServiceError(
                "unknown_preset", field="preset", preset=preset, presets=", ".join(PRESETS)
            )
        return preset, PRESETS[preset][1]
    if preset and preset not in PRESETS:
        raise ServiceError(
            "unknown_preset", field="preset", preset=preset, presets=", ".join(PRESETS)
        )
    base = PRESETS[preset][1].as_dict() if preset else Rule().as_dict()
    unknown = set(rule) - set(base)
    if unknown:
        raise ServiceError(
            "unknown_rule_setting", field=sorted(unknown)[0], names=", ".join(sorted(unknown))
        )
    for key, value in rule.items():
        if key in ("margin", "best_nights", "min_nights"):
            value = as_int(value, key.replace("_", " "), field=key)
            if not 0 <= value <= 10_000:
                raise ServiceError(
                    "number_too_large",
                    field=key,
                    what=key.replace("_", " "),
                    value=value,
                    minimum=0,
                    maximum=10_000,
                )
        else:
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise ServiceError(
                    "not_a_points_value", field=key, what=key.replace("_", " "), value=value
                ) from None
            if not -100 <= value <= 100 or value != value:
                raise ServiceError(
                    "number_too_large",
                    field=key,
                    what=key.replace("_", " "),
                    value=value,
                    minimum=-100,
                    maximum=100,
                )
        base[key] = value
    chosen = Rule.from_dict(base)
    named = preset if preset and PRESETS[preset][1] == chosen else ""
    return named, chosen


def _check_season_dates(
    club: Club, start: datetime.date, end: datetime.date, pk: int | None
) -> None:
    if end < start:
        raise ServiceError(
            "season_ends_before_start",
            field="end_date",
            start=start.isoformat(),
            end=end.isoformat(),
        )
    clash = (
        Season.objects.filter(club=club, start_date__lte=end, end_date__gte=start)
        .exclude(pk=pk)
        .first()
    )
    if clash is not None:
        raise ServiceError(
            "season_overlaps",
            field="start_date",
            name=clash.name,
            start=clash.start_date.isoformat(),
            end=clash.end_date.isoformat(),
        )


def _season_snapshot(s: Season) -> dict[str, Any]:
    return {
        "name": s.name,
        "start_date": s.start_date.isoformat(),
        "end_date": s.end_date.isoformat(),
        "preset": s.preset,
        "rule": s.rule,
    }


@transaction.atomic
def create_season(
    club: Club,
    *,
    name: str,
    start_date: Any,
    end_date: Any,
    actor: Actor | str | Any,
    preset: str = "",
    rule: dict[str, Any] | None = None,
) -> Season:
    """A season: its dates may not overlap another season of the club."""
    who = check_organiser(club, actor)
    name = check_text(str(name or "").strip(), "the season name", Season, "name", field="name")
    if not name:
        raise ServiceError("empty_name", field="name", what="the season name")
    if Season.objects.filter(club=club, name=name).exists():
        raise ServiceError("season_name_taken", field="name", name=name, club=club.name)
    start = _date(start_date, "the season's first day", "start_date")
    end = _date(end_date, "the season's last day", "end_date")
    _check_season_dates(club, start, end, None)
    preset, chosen = season_rule(preset, rule)
    Club.objects.select_for_update().filter(pk=club.pk).first()  # one season write at a time
    _check_season_dates(club, start, end, None)
    season = Season.objects.create(
        club=club, name=name, start_date=start, end_date=end, preset=preset, rule=chosen.as_dict()
    )
    audit(
        None,
        who,
        "create_season",
        club,
        f"{club.name}: season {name} ({start} to {end})",
        after=_season_snapshot(season),
    )
    return season


@transaction.atomic
def update_season(season: Season, *, actor: Actor | str | Any, **fields: Any) -> Season:
    """Change a season's name, dates or scoring; an archived season is fixed."""
    club = season.club
    who = check_organiser(club, actor)
    s = Season.objects.select_for_update().get(pk=season.pk)
    if s.archived_at is not None:
        raise ServiceError("season_archived", name=s.name)
    unknown = set(fields) - {"name", "start_date", "end_date", "preset", "rule"}
    if unknown:
        raise ServiceError(
            "unknown_rule_setting", field=sorted(unknown)[0], names=", ".join(sorted(unknown))
        )
    before = _season_snapshot(s)
    if "name" in fields:
        name = check_text(
            str(fields["name"] or "").strip(), "the season name", Season, "name", field="name"
        )
        if not name:
            raise ServiceError("empty_name", field="name", what="the season name")
        if Season.objects.filter(club=club, name=name).exclude(pk=s.pk).exists():
            raise ServiceError("season_name_taken", field="name", name=name, club=club.name)
        s.name = name
    if "start_date" in fields:
        s.start_date = _date(fields["start_date"], "the season's first day", "start_date")
    if "end_date" in fields:
        s.end_date = _date(fields["end_date"], "the season's last day", "end_date")
    _check_season_dates(club, s.start_date, s.end_date, s.pk)
    if "preset" in fields or "rule" in fields:
        preset, chosen = season_rule(fields.get("preset", ""), fields.get("rule"))
        s.preset, s.rule = preset, chosen.as_dict()
    if _season_snapshot(s) == before:
        return s
    s.save()
    audit(
        None,
        who,
        "update_season",
        club,
        f"{club.name}: season {s.name} changed",
        before=before,
        after=_season_snapshot(s),
    )
    return s


@transaction.atomic
def archive_season(season: Season, *, actor: Actor | str | Any) -> Season:
    """End a season: its awards are computed from the ladder and kept, and it is fixed."""
    from ..selectors import season_awards

    club = season.club
    who = check_organiser(club, actor)
    s = Season.objects.select_for_update().get(pk=season.pk)
    if s.archived_at is not None:
        raise ServiceError("season_archived", name=s.name)
    s.awards = season_awards(s)
    s.archived_at = timezone.now()
    s.archived_by = who.user if getattr(who.user, "pk", None) else None
    s.save()
    audit(
        None,
        who,
        "archive_season",
        club,
        f"{club.name}: season {s.name} archived",
        after={"awards": s.awards},
    )
    return s
