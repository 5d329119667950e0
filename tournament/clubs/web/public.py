"""Public club pages: read-only, for anyone, on a phone.

/clubs/ lists every club (searchable by name or city); /clubs/SLUG/ is one club: where and
when it meets, its members, the current season's ladder, its recent nights with results, its
records over all closed nights and the top of its club rating list; /clubs/SLUG/seasons/ lists
its seasons (archived ones with their awards) and /clubs/SLUG/seasons/N/ shows one.

Every page costs a fixed number of queries however many nights and members the club has
(tournament.clubs.selectors), and is cached under the club's version (.caching). Nothing
private is read: no e-mail, phone or token; nights of unpublished tournaments are left out.
These patterns come last in /clubs/ so the organisers' and nights' fixed words win.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from ...models import Club
from .. import selectors
from ..ladder import PRESETS, LadderRow, Rule
from ..models import Season
from .caching import ClubVersion, by_slug, club_data, club_page, of_all_clubs

MAX_QUERY = 100
RECENT_NIGHTS = 10
TOP_RATINGS = 20


def _refuse(request: HttpRequest, message: str, status: int = 404) -> HttpResponse:
    heading = "Not found" if status == 404 else "That did not work"
    return render(
        request, "tournament/error.html", {"message": message, "heading": heading}, status=status
    )


def _unknown_club(request: HttpRequest, slug: str) -> HttpResponse:
    return _refuse(request, f"There is no club {slug!r}; the clubs are listed at /clubs/.")


@csrf_exempt
@require_safe
@club_page("clubs", of_all_clubs)
def club_list(request: HttpRequest, version: ClubVersion) -> HttpResponse:
    q = request.GET.get("q", "").strip()
    if len(q) > MAX_QUERY or any(ord(c) < 32 or ord(c) == 127 for c in q):
        return _refuse(request, f"q: a club's name or city, at most {MAX_QUERY} characters", 400)
    clubs = club_data(version, "clubs", lambda: selectors.club_summaries(q), q)
    return render(request, "clubs/public_list.html", {"clubs": clubs, "q": q})


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _ladder_row(row: LadderRow) -> dict[str, Any]:
    """A ladder row as the page prints it (formatted here: no filters in a 200-row loop)."""
    return {
        "rank": row.rank,
        "player": row.player,
        "name": row.name,
        "points": _number(row.points),
        "record": f"{_number(row.wins)}-{_number(row.losses)}",
        "spread": f"{row.spread:+d}",
        "nights": row.nights,
        "games": row.games,
    }


def _season_view(season: Season) -> dict[str, Any]:
    """A season as its pages show it: the ladder (qualified, then the rest) and its rule."""
    rule = Rule.from_dict(season.rule)
    rows = selectors.season_ladder(season)
    return {
        "season": season,
        "rows": [_ladder_row(r) for r in rows if r.rank is not None],
        "unqualified": [_ladder_row(r) for r in rows if r.rank is None],
        "min_nights": rule.min_nights,
        "rule": selectors.rule_words(rule),
        "preset": PRESETS[season.preset][0] if season.preset in PRESETS else "",
        "nights": selectors.season_night_count(season),
    }


def _club_view(club: Club) -> dict[str, Any]:
    members, guests = selectors.club_members(club)
    season = selectors.current_season(club)
    return {
        "club": club,
        "members": members,
        "guests": guests,
        "current": _season_view(season) if season else None,
        "nights": selectors.recent_night_results(club, RECENT_NIGHTS),
        "records": selectors.club_records(club),
        "min_games": selectors.RECORD_MIN_GAMES,
        "ratings": selectors.club_ratings(club, TOP_RATINGS),
        "rating_list": club.rating_list,
    }


@csrf_exempt
@require_safe
@club_page("club", by_slug)
def club_detail(request: HttpRequest, slug: str, version: ClubVersion | None) -> HttpResponse:
    if version is None:
        return _unknown_club(request, slug)

    def build() -> dict[str, Any]:
        club = selectors.club_by_slug(slug)
        return _club_view(club) if club else {}

    context = club_data(version, "club", build)
    if not context:
        return _unknown_club(request, slug)
    return render(request, "clubs/public_club.html", context)


@csrf_exempt
@require_safe
@club_page("club_seasons", by_slug)
def season_list(request: HttpRequest, slug: str, version: ClubVersion | None) -> HttpResponse:
    if version is None:
        return _unknown_club(request, slug)

    def build() -> dict[str, Any]:
        club = selectors.club_by_slug(slug)
        if club is None:
            return {}
        current = selectors.current_season(club)
        return {
            "club": club,
            "seasons": selectors.club_seasons(club),
            "current": current.pk if current else None,
        }

    context = club_data(version, "seasons", build)
    if not context:
        return _unknown_club(request, slug)
    return render(request, "clubs/public_seasons.html", context)


@csrf_exempt
@require_safe
@club_page("club_season", by_slug)
def season_detail(
    request: HttpRequest, slug: str, season: int, version: ClubVersion | None
) -> HttpResponse:
    if version is None:
        return _unknown_club(request, slug)

    def build() -> dict[str, Any]:
        club = selectors.club_by_slug(slug)
        found = Season.objects.filter(club_id=version.pk, pk=season).first()
        if club is None or found is None:
            return {}
        current = selectors.current_season(club)
        return {"club": club, "is_current": current is not None and current.pk == found.pk,
                **_season_view(found)}  # fmt: skip

    context = club_data(version, "season", build, season)
    if not context:
        return _refuse(request, f"The club {slug!r} has no season {season}; its seasons are "
                                f"listed at /clubs/{slug}/seasons/.")  # fmt: skip
    return render(request, "clubs/public_season.html", context)


urlpatterns: list[URLPattern] = [
    path("", club_list, name="list"),
    path("<slug:slug>/", club_detail, name="club"),
    path("<slug:slug>/seasons/", season_list, name="season_list"),
    path("<slug:slug>/seasons/<int:season>/", season_detail, name="season"),
]
