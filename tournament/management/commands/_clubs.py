"""Look-ups the club commands share: a club by slug or name, a season, a night by its slug.

Each refuses with a ServiceError naming what was asked for, so a typo in a club or season
name is one clear line (and a code with ``--json``), never a traceback.
"""

from __future__ import annotations

from tournament.clubs.models import Night, Season
from tournament.errors import ServiceError
from tournament.models import Club


def club_arg(value: str) -> Club:
    """The club a command names: its slug, else its name (any case)."""
    text = (value or "").strip()
    club = (
        Club.objects.select_related("rating_list").filter(slug=text).first()
        or Club.objects.select_related("rating_list").filter(name__iexact=text).first()
    )
    if club is None:
        raise ServiceError("unknown_club", field="club", club=text)
    return club


def season_arg(club: Club, name: str | None) -> Season:
    """The season named (any case), else the club's current one."""
    from tournament.clubs.selectors import current_season

    if name is None:
        season = current_season(club)
        if season is None:
            raise ServiceError("no_season", field="season", club=club.name)
        return season
    season = Season.objects.filter(club=club, name__iexact=name.strip()).first()
    if season is None:
        names = ", ".join(s.name for s in Season.objects.filter(club=club)) or "none yet"
        raise ServiceError(
            "unknown_season", field="season", club=club.name, season=name, seasons=names
        )
    return season


def night_arg(slug: str) -> Night:
    """A club night by its tournament's slug (what club_night printed)."""
    from tournament.selectors import tournament_by_slug

    tournament = tournament_by_slug(slug)
    night = Night.objects.select_related("club", "tournament").filter(tournament=tournament).first()
    if night is None:
        raise ServiceError("not_a_club_night", field="night", slug=slug)
    return night


def split_names(text: str | None) -> list[str]:
    """Names from one argument: separated by ";" when there is one (so "Lee, Ann; Ray, Bob"
    keeps surname-first names whole), else by ","."""
    if not text:
        return []
    sep = ";" if ";" in text else ","
    return [part.strip() for part in text.split(sep) if part.strip()]
