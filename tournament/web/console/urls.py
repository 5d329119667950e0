"""The director's console, under /t/SLUG/console/ (namespace "console").

Each topic module keeps its own ``urlpatterns`` (paths relative to /t/SLUG/console/) so the
pages of one topic live beside their views; ``site_patterns`` holds the few pages that belong
to no tournament yet (the list of one's tournaments, creating a new one).
"""

from django.urls import path

from . import (
    broadcast,
    clock,
    entries,
    federation,
    gcg,
    home,
    notices,
    pairing,
    photos,
    rating_submit,
    registration,
    results,
    setup,
    staff,
    venue_mode,
    weekend,
)

app_name = "console"

urlpatterns = [
    path("", home.console_home, name="home"),
    # Fixed one-word pages before the division catch-all, or "setup/" would name a division.
    *setup.urlpatterns,
    *staff.urlpatterns,
    *clock.urlpatterns,
    *broadcast.urlpatterns,
    *notices.urlpatterns,
    *weekend.urlpatterns,
    *federation.urlpatterns,
    *entries.urlpatterns,
    *venue_mode.urlpatterns,
    *photos.urlpatterns,
    path("<str:division>/", home.division_home, name="division"),
    path("<str:division>/standings/", home.standings, name="standings"),
    *results.urlpatterns,
    *gcg.urlpatterns,
    *pairing.urlpatterns,
    *registration.urlpatterns,
    *rating_submit.urlpatterns,
    *clock.division_patterns,
]
