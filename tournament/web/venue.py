"""The venue screen (a TV in the playing room) and the live strip (announcement and round
clock) the public pages include: read-only, no sign-in.

``/t/SLUG/screen/`` follows the event's phase for each division: the round in play's boards
under its clock, the standings between rounds, a word before the first pairing. It polls
itself with htmx every few seconds. The boards and standings are derived data cached per
tournament version (tournament.cache, as the other public pages); the clock and the
announcement are read fresh on every request and never cached whole, because the page carries
the server's time (``data-server-now``) beside the clock's end: the browser's countdown
(static/tournament/clock.js) corrects for its own clock's offset with it, which a page cached
for minutes would get wrong. The public pages, cached whole, include the strip as it was when
they were built (the end as a time of day, right for as long as the version lasts) and fetch
the fresh strip (``/t/SLUG/screen/live/``) with htmx for the countdown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from tournament.languages import lang_query

from ..cache import PUBLIC, Version, cached, data_key, request_version
from ..clock import NOT_STARTED
from ..models import Division, Tournament
from ..selectors import (
    BoardRow,
    DivisionClock,
    DivisionSnapshot,
    division_clocks,
    live_announcement,
    round_boards,
)
from ..standings import StandingsRow
from .permissions import can_view

# How often the screen asks for itself again, and the strip on the public pages.
SCREEN_REFRESH_SECONDS = 5
STRIP_REFRESH_SECONDS = 20
# Standings rows a screen shows between rounds (the rest are on the standings page).
SCREEN_STANDINGS_ROWS = 40

WAITING, PLAYING, BETWEEN, FINAL = "waiting", "playing", "between", "final"


@dataclass
class Panel:
    """What the screen shows of one division at one version: its phase and its rows."""

    phase: str  # WAITING (nothing paired), PLAYING (a round in play), BETWEEN, FINAL
    round: int  # the round played (PLAYING) or the standings' last round
    boards: list[BoardRow] = field(default_factory=list)
    standings: list[StandingsRow] = field(default_factory=list)
    more: int = 0  # standings rows not shown
    games: int = 0  # the round's games (PLAYING) ...
    games_in: int = 0  # ... and how many are in


def _panel(division: Division, tournament: Tournament) -> Panel:
    snapshot = DivisionSnapshot.load(division)
    last, scored = snapshot.last_round(), snapshot.scored_round()
    if last == 0:
        return Panel(WAITING, 0)
    if scored < last:
        boards = round_boards(snapshot, last)
        games = [b for b in boards if b.second is not None]
        done = sum(1 for b in games if b.score_first is not None)
        return Panel(PLAYING, last, boards=boards, games=len(games), games_in=done)
    rows = [r for r in snapshot.standings(tournament, last) if not r.withdrawn]
    phase = FINAL if last >= division.rounds else BETWEEN
    shown = rows[:SCREEN_STANDINGS_ROWS]
    return Panel(phase, last, standings=shown, more=len(rows) - len(shown))


def _built_panel(division: Division, tournament: Tournament) -> tuple[Panel, str]:
    """The panel and its rendered rows (500 players' boards took most of a request to render;
    they change only with the version, the clock beside them with every request)."""
    panel = _panel(division, tournament)
    return panel, render_to_string("venue/_panel.html", {"p": panel})


def _visible(request: HttpRequest, slug: str) -> tuple[Version, Tournament] | None:
    version = request_version(request, slug)  # read once with the language (web/language.py)
    if version is None:
        return None
    tournament = version.tournament
    if not can_view(request.user, tournament):
        return None
    return version, tournament


def _epoch_ms(moment: Any) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def _clock_rows(clocks: list[DivisionClock]) -> list[dict[str, Any]]:
    """Each division's current clock with the numbers its data attributes carry."""
    return [
        {
            "division": c.division,
            "round": c.round,
            "clock": c.clock,
            "ends_ms": _epoch_ms(c.clock.ends_at) if c.clock else None,
        }
        for c in clocks
    ]


def _not_found(request: HttpRequest, slug: str) -> HttpResponse:
    message = _("there is no tournament {slug}").format(slug=repr(slug))
    response = render(
        request,
        "tournament/error.html",
        {"message": message, "heading": _("Not found")},
        status=404,
    )
    return response


def _fresh(response: HttpResponse) -> HttpResponse:
    """Never kept by a browser or proxy: the page holds the server's time of this request."""
    response["Cache-Control"] = "no-store"
    return response


@csrf_exempt
@require_safe
def screen(request: HttpRequest, slug: str) -> HttpResponse:
    """The venue screen: large type, the announcement, each division's phase and clock, in
    the tournament's language (the room's, not one visitor's: .language decides it)."""
    found = _visible(request, slug)
    if found is None:
        return _not_found(request, slug)
    version, tournament = found
    return _screen(request, version, tournament)


def _screen(request: HttpRequest, version: Version, tournament: Tournament) -> HttpResponse:
    now = timezone.now()
    clocks = division_clocks(tournament, now)
    role = PUBLIC if tournament.published else "staff"  # a draft is seen by its staff only
    divisions = []
    for row in _clock_rows(clocks):
        d = row["division"]
        panel, html = cached(
            # the rows carry words (bye, forfeit, the headings): one copy a language
            data_key(version, role, "screen", d.pk, get_language()),
            lambda d=d: _built_panel(d, tournament),
        )
        divisions.append({**row, "panel": panel, "panel_html": mark_safe(html)})
    context = {
        "tournament": tournament,
        "announcement": live_announcement(tournament, now),
        "divisions": divisions,
        "now_ms": _epoch_ms(now),
        "refresh": SCREEN_REFRESH_SECONDS,
        "url": reverse("public:screen", args=(tournament.slug,)) + lang_query(request),
    }
    template = "venue/screen_live.html" if request.htmx else "venue/screen.html"
    return _fresh(render(request, template, context))


@csrf_exempt
@require_safe
def live_strip(request: HttpRequest, slug: str) -> HttpResponse:
    """The announcement and the clocks (one division's with ``?division=SLUG``), fresh: what
    the cached public pages fetch for their countdown."""
    found = _visible(request, slug)
    if found is None:
        return _not_found(request, slug)
    _version, tournament = found
    return _fresh(
        render(request, "venue/_strip.html", strip_context(tournament, request.GET.get("division")))
    )


def strip_context(
    tournament: Tournament, division: str | None = None, *, fresh: bool = True
) -> dict[str, Any]:
    """The strip's context: the live announcement and the current clocks (of ``division``
    only, by slug, when given). ``fresh=False`` for a page cached whole: no server time is
    written into it, so its strip shows the end as a time of day and no countdown."""
    now = timezone.now()
    clocks = [
        c
        for c in division_clocks(tournament, now)
        if c.clock is not None
        and c.clock.state != NOT_STARTED
        and (not division or c.division.slug == division)
    ]
    url = reverse("public:screen_live", args=(tournament.slug,))
    if division:
        url += f"?division={division}"
    return {
        "strip_tournament": tournament,
        "strip_announcement": live_announcement(tournament, now),
        "strip_clocks": _clock_rows(clocks),
        "strip_many": len(tournament.divisions.all()) > 1,
        "strip_now_ms": _epoch_ms(now) if fresh else None,
        "strip_url": url,
        "strip_refresh": STRIP_REFRESH_SECONDS,
    }
