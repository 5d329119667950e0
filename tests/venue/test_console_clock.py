"""The console's clock panel and announcement form: director-only buttons, refusals worded on
the page and changing nothing, and the venue screen following."""

from __future__ import annotations

import datetime as dt

from django.test import Client

from tournament.models import Announcement, AuditEvent, RoundClock

from .conftest import T0

DIVISION = "/t/clock-open/console/a/"
CLOCK = DIVISION + "round/1/clock/"
HOME = "/t/clock-open/console/"
ANNOUNCE = HOME + "setup/announcement/"


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_director_runs_the_clock_from_the_division_page(event, now):
    client = _client(event.director)
    page = client.get(DIVISION).content.decode()
    assert "Round 1 clock" in page and 'name="minutes"' in page and 'value="25"' in page
    assert '<label for="clock-minutes">Minutes</label>' in page
    response = client.post(CLOCK, {"action": "start", "minutes": "20"}, follow=True)
    html = response.content.decode()
    assert "Round 1 clock: started, 20 minutes." in html
    assert f'data-ends-at="{int((T0 + dt.timedelta(minutes=20)).timestamp() * 1000)}"' in html
    assert 'value="pause"' in html and "+5 min" in html
    now.advance(minutes=2)
    html = client.post(CLOCK, {"extend": "5", "reason": "noisy room"}, follow=True).content.decode()
    assert "extended, 23:00 left" in html and "+5 min (noisy room) by dora" in html
    client.post(CLOCK, {"action": "pause"})
    assert RoundClock.objects.get().paused_at == now.at
    html = client.get(DIVISION).content.decode()
    assert 'value="resume"' in html and "start_clock" in html  # the last actions list it
    client.post(CLOCK, {"action": "resume"})
    client.post(CLOCK, {"action": "reset"})
    assert RoundClock.objects.get().started_at is None


def test_a_refused_press_is_worded_and_changes_nothing(event, now):
    client = _client(event.director)
    events = AuditEvent.objects.count()
    html = client.post(CLOCK, {"action": "pause"}, follow=True).content.decode()
    assert "Round clock: division A round 1: the clock is not running (not_started)" in html
    html = client.post(CLOCK, {"action": "start", "minutes": "0"}, follow=True).content.decode()
    assert (
        "Round clock: division A round 1: the clock&#x27;s minutes must be at least 1, not 0"
        in html
    )
    html = client.post(
        CLOCK.replace("/1/", "/9/"), {"action": "start"}, follow=True
    ).content.decode()
    assert "the round must be at most 3" in html
    assert AuditEvent.objects.count() == events and not RoundClock.objects.exists()


def test_scorekeepers_see_the_clock_but_have_no_buttons(event, now):
    keeper = _client(event.scorekeeper)
    html = keeper.get(DIVISION).content.decode()
    assert "Round 1 clock" in html and 'value="start"' not in html
    assert keeper.post(CLOCK, {"action": "start"}).status_code == 403
    assert _client(event.stranger).post(CLOCK, {"action": "start"}).status_code == 403
    assert "/login/" in Client().post(CLOCK, {"action": "start"})["Location"]
    assert keeper.post(ANNOUNCE, {"text": "x"}).status_code == 403
    assert not RoundClock.objects.exists() and not Announcement.objects.exists()


def test_a_director_posts_and_clears_the_announcement(event, now):
    client = _client(event.director)
    assert "Post the announcement" in client.get(HOME + "?stay=1").content.decode()
    html = client.post(
        ANNOUNCE, {"text": "Lunch until 13:30", "until": "15:00"}, follow=True
    ).content.decode()
    assert (
        "The announcement is showing." in html
        and "Showing now: <strong>Lunch until 13:30</strong>" in html
    )
    assert "Lunch until 13:30" in Client().get("/t/clock-open/screen/").content.decode()
    html = client.post(ANNOUNCE, {"text": "x", "until": "13:00"}, follow=True).content.decode()
    assert "Announcement: the announcement&#x27;s end, 2026-04-11 13:00, has already passed" in html
    client.post(ANNOUNCE, {"action": "clear"})
    assert not Announcement.objects.exists()


def test_the_round_length(event, now):
    client = _client(event.director)
    client.post(HOME + "setup/round-length/", {"round_minutes": "30", "division": "a"})
    assert 'value="30"' in client.get(DIVISION).content.decode()
    html = client.post(
        HOME + "setup/round-length/", {"round_minutes": "x"}, follow=True
    ).content.decode()
    assert "Round length: the round length in minutes: &#x27;x&#x27; is not a whole number" in html
