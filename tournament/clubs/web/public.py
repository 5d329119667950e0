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

import hashlib
import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.utils.dateformat import format as date_format
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from tournament.standings import format_wins

from ...models import Club
from .. import selectors
from ..ladder import LadderRow, Rule
from ..models import Season
from .caching import ClubVersion, by_slug, closed_data, club_data, club_page, of_all_clubs

MAX_QUERY = 100
RECENT_NIGHTS = 10
TOP_RATINGS = 20


def _refuse(request: HttpRequest, message: str, status: int = 404) -> HttpResponse:
    heading = _("Not found") if status == 404 else _("That did not work")
    return render(
        request, "tournament/error.html", {"message": message, "heading": heading}, status=status
    )


def _unknown_club(request: HttpRequest, slug: str) -> HttpResponse:
    return _refuse(
        request,
        _("There is no club {slug}; the clubs are listed at /clubs/.").format(slug=repr(slug)),
    )


@csrf_exempt
@require_safe
@club_page("clubs", of_all_clubs)
def club_list(request: HttpRequest, version: ClubVersion) -> HttpResponse:
    q = request.GET.get("q", "").strip()
    if len(q) > MAX_QUERY or any(ord(c) < 32 or ord(c) == 127 for c in q):
        return _refuse(
            request,
            _("q: a club's name or city, at most {max} characters").format(max=MAX_QUERY),
            400,
        )
    clubs = club_data(version, "clubs", lambda: selectors.club_summaries(q), q)
    return render(request, "clubs/public_list.html", {"clubs": clubs, "q": q})


_number = format_wins


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


# Long tables (a ladder of 200, ten nights of 60 players, 200 members) are written in Python,
# as the standings are (tournament.web.public.standings_rows_html): through the template
# language, with a number filter a cell, they cost more than everything else on the page.
# Every value is escaped.


def _player_link(player: int, name: str) -> str:
    return f'<a href="/players/{player}/">{escape(name)}</a>'


def _ladder_html(rows: list[dict[str, Any]]) -> SafeString:
    out = []
    unqualified = escape(_("not yet qualified"))
    for r in rows:
        if r["rank"] is None:
            start = f'<tr class="unqualified muted"><td class="num" title="{unqualified}">*</td>'
            name = f"{_player_link(r['player'], r['name'])} <small>({unqualified})</small>"
        else:
            start = f'<tr><td class="num">{r["rank"]}</td>'
            name = _player_link(r["player"], r["name"])
        out.append(
            f'{start}<td>{name}</td><td class="num">{r["points"]}</td>'
            f'<td class="num">{r["record"]}</td><td class="num">{r["spread"]}</td>'
            f'<td class="num">{r["nights"]}</td></tr>\n'
        )
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped or a number


def _night_html(results: tuple[selectors.NightPlayer, ...]) -> SafeString:
    out = [
        f"<tr><td>{_player_link(r.player, r.name)}</td>"
        f'<td class="num">{_number(r.wins)}-{_number(r.losses)}</td>'
        f'<td class="num">{r.spread:+d}</td></tr>\n'
        for r in results
    ]
    return mark_safe("".join(out))  # noqa: S308 - names escaped, the rest numbers


def _since(day: Any) -> str:
    """ "since Sep 2024": the month's short name in the page's language."""
    return _("since {month}").format(month=date_format(day, "M Y"))


def _members_html(members: list[selectors.MemberRow]) -> SafeString:
    out = []
    for m in members:
        since = f' <small class="muted">{escape(_since(m.since))}</small>' if m.since else ""
        out.append(f"<li>{_player_link(m.player, m.name)}{since}</li>")
    return mark_safe("".join(out))  # noqa: S308 - names escaped


def _season_view(season: Season) -> dict[str, Any]:
    """A season as its pages show it: the ladder (qualified, then the rest) and its rule."""
    rule = Rule.from_dict(season.rule)
    rows = selectors.season_ladder(season)
    ranked = [_ladder_row(r) for r in rows if r.rank is not None]
    unqualified = [_ladder_row(r) for r in rows if r.rank is None]
    return {
        "season": season,
        "rows": ranked,
        "unqualified": unqualified,
        "rows_html": _ladder_html(ranked + unqualified),
        "min_nights": rule.min_nights,
        "rule": selectors.rule_words(rule),
        "preset": selectors.preset_words(season.preset),
        "nights": selectors.season_night_count(season),
    }


def _cached_season_view(club: Club, season: Season, closed: str) -> dict[str, Any]:
    """The season's ladder, recomputed only when its closed nights or the season change."""
    season_key = hashlib.sha256(
        json.dumps(
            [
                season.pk,
                season.name,
                str(season.start_date),
                str(season.end_date),
                season.preset,
                season.rule,
                str(season.archived_at),
                season.awards,
            ],
            sort_keys=True,
            default=str,
        ).encode()
    ).hexdigest()[:16]
    return closed_data(club, closed, "season", lambda: _season_view(season), season_key)


def _club_view(club: Club) -> dict[str, Any]:
    members, guests = selectors.club_members(club)
    season = selectors.current_season(club)
    closed = selectors.closed_nights_stamp(club)
    return {
        "club": club,
        "members": members,
        "members_html": _members_html(members),
        "guests": guests,
        "guests_html": _members_html(guests),
        "current": _cached_season_view(club, season, closed) if season else None,
        "nights": [
            {"night": n, "rows_html": _night_html(n.results)}
            for n in selectors.recent_night_results(club, RECENT_NIGHTS)
        ],
        "records": closed_data(
            club,
            closed,
            "records",
            lambda: selectors.club_records(club),
            selectors.RECORD_MIN_GAMES,
        ),
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
        closed = selectors.closed_nights_stamp(club)
        return {
            "club": club,
            "is_current": current is not None and current.pk == found.pk,
            **_cached_season_view(club, found, closed),
        }

    context = club_data(version, "season", build, season)
    if not context:
        return _refuse(
            request,
            _("The club {slug} has no season {season}; its seasons are listed at {url}.").format(
                slug=repr(slug), season=season, url=f"/clubs/{slug}/seasons/"
            ),
        )
    return render(request, "clubs/public_season.html", context)


urlpatterns: list[URLPattern] = [
    path("", club_list, name="list"),
    path("<slug:slug>/", club_detail, name="club"),
    path("<slug:slug>/seasons/", season_list, name="season_list"),
    path("<slug:slug>/seasons/<int:season>/", season_detail, name="season"),
]
