"""The venue screen and the live strip: public, read-only, following the event's phase, the
clock's server times in data attributes, no private data, derived data cached per version."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client

from tournament import services
from tournament.cache import tournament_version
from tournament.services import clock as svc

from .conftest import T0

SCREEN = "/t/clock-open/screen/"
LIVE = "/t/clock-open/screen/live/"


def _ms(moment: dt.datetime) -> str:
    return str(int(moment.timestamp() * 1000))


def test_the_screen_follows_the_phase_and_carries_the_clocks_times(event, now):
    client = Client()
    page = client.get(SCREEN)
    assert page.status_code == 200 and page["Cache-Control"] == "no-store"
    html = page.content.decode()
    # A: round 1 in play, its boards; B: nothing paired yet
    assert "Division A: round 1" in html and "#1 Able, Ann1" in html and "0 of 2 games in" in html
    assert "Division B: before round 1" in html
    assert 'hx-get="/t/clock-open/screen/" hx-trigger="every 5s, live-change from:body"' in html
    assert "not started" in html and "25:00" in html
    svc.start_clock(event.a, 1, actor=event.director)
    now.advance(minutes=4, seconds=30)
    html = client.get(SCREEN).content.decode()
    clock = re.search(r'<div class="clock clock-running"[^>]*>', html).group(0)
    assert f'data-server-now="{_ms(now.at)}"' in clock
    assert f'data-ends-at="{_ms(T0 + dt.timedelta(minutes=25))}"' in clock
    assert 'data-paused="0"' in clock and 'role="timer"' in clock
    assert "20:30" in html and "21 min left" in html  # what a screen without scripts shows
    svc.pause_clock(event.a, 1, actor=event.director)
    now.advance(minutes=10)
    html = client.get(SCREEN).content.decode()
    clock = re.search(r'<div class="clock clock-paused"[^>]*>', html).group(0)
    assert 'data-paused="1"' in clock and 'data-remaining="1230"' in clock
    assert "data-ends-at" not in clock and "20:30" in html
    svc.resume_clock(event.a, 1, actor=event.director)
    now.advance(minutes=21)
    html = client.get(SCREEN).content.decode()
    assert "clock clock-over" in html and "0:00" in html and ">time<" in html
    # every result in: the standings after round 1
    services.record_result(event.a, 1, 1, 400, 300)
    services.record_result(event.a, 1, 3, 350, 380)
    html = client.get(SCREEN).content.decode()
    assert "Division A: standings after round 1" in html and "+100" in html


def test_the_screen_shows_the_announcement_escaped_and_no_private_data(event, now):
    services.issue_token(event.a.entries.get(number=1))
    svc.post_announcement(
        event.tournament, "Lunch <script>alert(1)</script> at 13:00", actor=event.director
    )
    for url in (SCREEN, LIVE, "/t/clock-open/"):
        html = Client().get(url).content.decode()
        assert "Lunch &lt;script&gt;alert(1)&lt;/script&gt; at 13:00" in html, url
        assert "<script>alert" not in html
        assert "@example.org" not in html and "/e/" not in html, url


def test_the_screen_is_public_but_a_draft_is_not(event, now, client):
    assert Client().get(SCREEN).status_code == 200
    event.tournament.published = False
    event.tournament.save()
    assert Client().get(SCREEN).status_code == 404
    assert Client().get(LIVE).status_code == 404
    client.force_login(event.scorekeeper)
    assert client.get(SCREEN).status_code == 200
    assert Client().post(SCREEN).status_code == 405


def test_the_boards_are_cached_per_version_the_clock_is_not(
    event, now, django_assert_max_num_queries
):
    client = Client()
    client.get(SCREEN)
    with django_assert_max_num_queries(6):  # version, tournament, clocks, announcement...
        again = client.get(SCREEN)
    assert again.status_code == 200
    version = tournament_version("clock-open").stamp
    svc.start_clock(event.a, 1, actor=event.director)
    assert tournament_version("clock-open").stamp != version  # a clock change is a new version
    htmx = client.get(SCREEN, headers={"HX-Request": "true"})
    assert htmx.content.decode().lstrip().startswith('<div id="screen"')


def test_the_public_pages_carry_the_strip(event, now):
    svc.start_clock(event.a, 1, actor=event.director)
    svc.post_announcement(event.tournament, "Round 2 at 15:00", actor=event.director)
    for url in ("/t/clock-open/", "/t/clock-open/a/round/1/", "/t/clock-open/a/player/1/"):
        html = Client().get(url).content.decode()
        assert "Round 2 at 15:00" in html, url
        assert "ends 14:25" in html, url  # cached whole: the end as a time of day
        assert "data-server-now" not in html, url  # no server time frozen into a cached page
        assert "tournament/clock.js" in html and 'hx-trigger="load, every 20s"' in html
    fresh = Client().get(LIVE + "?division=a").content.decode()
    assert f'data-server-now="{_ms(now.at)}"' in fresh and 'hx-trigger="every 20s"' in fresh
    assert Client().get(LIVE + "?division=b").content.decode().count('role="timer"') == 0


@pytest.mark.parametrize("url", [SCREEN, LIVE])
def test_an_unknown_tournament_is_not_found(db, url):
    assert Client().get(url.replace("clock-open", "nope")).status_code == 404
