"""CORS preflights for the live feed and the API's anonymous reads (tournament/api/cors.py).

TSH's scoreboard served from another origin re-polls tourney.js with ``If-Modified-Since``,
which is not a CORS-safelisted header, so the browser first sends ``OPTIONS`` and waits for an
answer naming that header. ``/t/SLUG/tourney.js`` answered that preflight 405 with no CORS
header, and the scoreboard froze after its first load. The preflight is answered now (GET and
HEAD, the conditional headers, never Authorization), and the conditional answers it unlocks
(304) carry the origin header too.
"""

from __future__ import annotations

import time

import pytest
from django.utils.http import http_date
from rest_framework.test import APIClient

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services

pytestmark = pytest.mark.django_db

ORIGIN = "https://scoreboard.example.org"


def preflight(client, url: str, method: str = "GET", headers: str = "if-modified-since"):
    return client.options(
        url,
        HTTP_ORIGIN=ORIGIN,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD=method,
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS=headers,
    )


@pytest.fixture
def feed_url():
    t = services.create_tournament(name="Preflight Open", published=True)
    d = services.create_division(t, name="A", rounds=2)
    for name in ("Able, Ann", "Baker, Bo"):
        services.register_player(d, name=name, rating=1500)
    save_round_pairings(d, 1, [PlannedGame(1, 2)])
    return f"/t/{t.slug}/tourney.js"


def test_the_feed_answers_the_scoreboard_s_preflight_then_its_conditional_polls(client, feed_url):
    seen = preflight(client, feed_url)
    assert seen.status_code == 204
    assert seen["Access-Control-Allow-Origin"] == "*"
    assert seen["Access-Control-Allow-Methods"] == "GET, HEAD"
    assert seen["Access-Control-Allow-Headers"] == "if-modified-since"
    assert int(seen["Access-Control-Max-Age"]) > 0
    both = preflight(client, feed_url, headers="If-None-Match, If-Modified-Since")
    assert both["Access-Control-Allow-Headers"] == "if-none-match, if-modified-since"

    first = client.get(feed_url, HTTP_ORIGIN=ORIGIN)
    assert first.status_code == 200 and first["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in first["Access-Control-Expose-Headers"]
    # (a date from this very second is answered in full: tests/exports/test_tourney_js_http.py)
    later = http_date(time.time() + 60)
    by_date = client.get(feed_url, HTTP_ORIGIN=ORIGIN, HTTP_IF_MODIFIED_SINCE=later)
    by_tag = client.get(feed_url, HTTP_ORIGIN=ORIGIN, HTTP_IF_NONE_MATCH=first["ETag"])
    for answer in (by_date, by_tag):
        assert answer.status_code == 304
        assert answer["Access-Control-Allow-Origin"] == "*"


def test_a_preflight_grants_no_credentials_and_no_writes(client, feed_url):
    seen = preflight(client, feed_url, headers="authorization, if-modified-since, x-csrftoken")
    assert seen["Access-Control-Allow-Headers"] == "if-modified-since"
    assert "Access-Control-Allow-Credentials" not in seen
    post = preflight(client, feed_url, method="POST", headers="")
    assert post["Access-Control-Allow-Methods"] == "GET, HEAD"  # the browser refuses the POST
    assert "Access-Control-Allow-Headers" not in post


def test_a_preflight_says_nothing_about_which_tournaments_exist(client, feed_url):
    draft = services.create_tournament(name="Draft Open", published=False)
    answers = [
        preflight(client, url)
        for url in (feed_url, f"/t/{draft.slug}/tourney.js", "/t/no-such-event/tourney.js")
    ]
    assert {(a.status_code, a["Access-Control-Allow-Origin"]) for a in answers} == {(204, "*")}
    assert client.get(f"/t/{draft.slug}/tourney.js").status_code == 404


def test_the_api_s_anonymous_reads_answer_preflights_too():
    client = APIClient()
    seen = preflight(client, "/api/v1/clubs/", headers="if-none-match")
    assert seen.status_code == 204
    assert seen["Access-Control-Allow-Origin"] == "*"
    assert seen["Access-Control-Allow-Headers"] == "if-none-match"
    first = client.get("/api/v1/clubs/", HTTP_ORIGIN=ORIGIN)
    assert first["Access-Control-Allow-Origin"] == "*" and "ETag" in first
    again = client.get("/api/v1/clubs/", HTTP_ORIGIN=ORIGIN, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again["Access-Control-Allow-Origin"] == "*"


def test_options_without_a_preflight_and_other_pages_are_left_alone(client):
    assert "Access-Control-Allow-Origin" not in client.options("/api/v1/clubs/")
    assert "Access-Control-Allow-Origin" not in preflight(client, "/")
