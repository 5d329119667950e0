"""URL map of the web pages: public (read-only, phones), desk (print & export), console
(running an event), accounts (sign-in, password). Namespaced, so names never collide.

Division URLs carry the division's slug, never its name; name-based links from before slugs
redirect (see permissions.division_by_slug).
"""

from django.urls import include, path

from .. import health
from . import (
    accounts,
    broadcast,
    desk,
    entries,
    feeds,
    notices,
    public,
    selfentry,
    venue,
    weekends,
)
from . import calendar as calendar_pages
from . import quality as quality_pages
from . import ratings as ratings_pages
from .console import api_token as console_api_token
from .console import rating_lists as console_rating_lists
from .console import setup as console_setup

public_patterns = (
    [
        path("", public.home, name="home"),
        path("t/<slug:slug>/", public.tournament_detail, name="tournament"),
        path("weekends/<slug:slug>/", weekends.weekend_detail, name="weekend"),
        path(
            "weekends/<slug:slug>/confirm/<str:token>/",
            weekends.weekend_confirm,
            name="weekend_confirm",
        ),
        path("t/<slug:slug>/tourney.js", feeds.tourney_js, name="tourney_js"),
        # the venue's TV and the strip (announcement, round clock) the public pages fetch
        path("t/<slug:slug>/screen/", venue.screen, name="screen"),
        path("t/<slug:slug>/screen/live/", venue.live_strip, name="screen_live"),
        # entries online: the lists, the entry form (tournament.web.entries)
        path("t/<slug:slug>/entries/", entries.entries, name="entries"),
        path("t/<slug:slug>/entries/resend/", entries.resend, name="entries_resend"),
        path("t/<slug:slug>/<str:division>/standings/", public.standings, name="standings"),
        path(
            "t/<slug:slug>/<str:division>/round/<str:number>/",
            public.round_pairings,
            name="round",
        ),
        path("t/<slug:slug>/<str:division>/crosstable/", public.crosstable, name="crosstable"),
        path(
            "t/<slug:slug>/<str:division>/round/<str:number>/board/<str:board>/",
            public.game,
            name="game",
        ),
        path("t/<slug:slug>/<str:division>/records.zip", public.records_zip, name="records_zip"),
        path("t/<slug:slug>/<str:division>/player/<str:number>/", public.player, name="player"),
    ],
    "public",
)

desk_patterns = (
    [
        path("", desk.desk, name="desk"),
        path("export/<str:fmt>", desk.export_file, name="export"),
        path("jobs/<str:job>/", desk.job_status, name="job"),
        path("jobs/<str:job>/file", desk.job_file, name="job_file"),
        path("<str:division>/report.pdf", desk.report_pdf, name="report"),
        path("<str:division>/scorecards/", desk.start_scorecards, name="scorecards"),
    ],
    "desk",
)

# on screen: overlays for a stream's browser sources and the commentators' page
broadcast_patterns = (
    [
        path("", broadcast.commentators, name="commentators"),
        path("board/<int:position>/", broadcast.featured_board, name="board"),
        path("board/<int:position>/h2h/", broadcast.head_to_head, name="h2h"),
        path("announcement/", broadcast.lower_third, name="lower_third"),
        path("<str:division>/ticker/", broadcast.ticker, name="ticker"),
        path("<str:division>/prizes/", broadcast.prize_race, name="prizes"),
        path("<str:division>/pairings/", broadcast.pairings_loop, name="pairings"),
    ],
    "broadcast",
)

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),  # monitors: no sign-in, no cache
    path("accounts/", include((accounts.urlpatterns, "accounts"))),
    path("console/api-token/", include(console_api_token.urlpatterns)),  # the user's API token
    path("console/rating-lists/", include(console_rating_lists.urlpatterns)),  # open and load
    path("console/", include((console_setup.site_patterns, "console_site"))),
    path("t/<slug:slug>/desk/", include(desk_patterns)),
    path("t/<slug:slug>/broadcast/", include(broadcast_patterns)),
    path("t/<slug:slug>/console/", include("tournament.web.console.urls")),
    path("ratings/", include((ratings_pages.list_patterns, "ratings"))),
    path("players/", include((ratings_pages.player_patterns, "players"))),
    # the events calendar, its iCalendar feeds and the directors' contact form
    path("events/", include((calendar_pages.urlpatterns, "calendar"))),
    path("", include((calendar_pages.event_patterns, "event"))),
    path("", include((quality_pages.urlpatterns, "quality"))),
    # a player's own link from their scorecard's QR code (secret token; tournament.web.selfentry)
    path("e/", include((selfentry.urlpatterns, "selfentry"))),
    # the unsubscribe link of every notice e-mail (secret token; tournament.web.notices)
    path("notices/", include((notices.urlpatterns, "notices"))),
    # an online entrant's own page and the mailed confirmation (secret tokens)
    path("entry/", include((entries.urlpatterns, "entries"))),
    path("", include(public_patterns)),
]
