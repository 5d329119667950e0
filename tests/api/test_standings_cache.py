"""The API's standings are built once per version and kept as the public pages are: a second
reader costs one query, and a write gives the next reader new standings under a new ETag."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tournament import services

URL = "/api/v1/tournaments/api-open/divisions/a/standings/"


def test_a_second_reader_gets_the_kept_body_after_one_query(event):
    first = APIClient().get(URL)
    assert first.status_code == 200
    with CaptureQueriesContext(connection) as ctx:
        again = APIClient().get(URL)
    assert again.status_code == 200
    assert len(ctx.captured_queries) == 1  # the tournament's version
    assert again.json() == first.json()
    assert again["ETag"] == first["ETag"]


def test_gzip_is_served_when_asked_and_the_etag_still_answers_304(event):
    r = APIClient().get(URL, HTTP_ACCEPT_ENCODING="gzip")
    assert r.status_code == 200 and r["Content-Encoding"] == "gzip"
    again = APIClient().get(URL, HTTP_IF_NONE_MATCH=r["ETag"])
    assert again.status_code == 304


def test_a_result_gives_new_standings_under_a_new_etag(event):
    t, d = event
    before = APIClient().get(URL)
    services.record_result(d, 2, 1, 500, 300)
    after = APIClient().get(URL, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]
    assert after.json()["after_round"] == 2
    rows = {row["number"]: row for row in after.json()["rows"]}
    assert rows[1]["wins"] == 2 and rows[1]["spread"] == 40 + 200


def test_a_refused_round_is_not_kept(event):
    bad = APIClient().get(URL + "?after_round=9")
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["code"] == "number_too_large"
    assert APIClient().get(URL + "?after_round=9").status_code == 400
    assert APIClient().get(URL + "?after_round=1").status_code == 200


GAMES = "/api/v1/tournaments/api-open/divisions/a/games/?limit=1000"


def test_a_page_of_games_is_kept_per_version_too(event, settings):
    """The biggest page the API gives, read again, costs one query; a result changes it."""
    t, d = event
    first = APIClient().get(GAMES)
    assert first.status_code == 200 and first.json()["count"] == 4
    with CaptureQueriesContext(connection) as ctx:
        again = APIClient().get(GAMES)
    assert len(ctx.captured_queries) == 1  # the tournament's version
    assert again.json() == first.json() and again["ETag"] == first["ETag"]
    services.record_result(d, 2, 1, 500, 300)
    after = APIClient().get(GAMES, HTTP_IF_NONE_MATCH=first["ETag"])
    assert after.status_code == 200 and after["ETag"] != first["ETag"]
    scored = [g for g in after.json()["results"] if g["round"] == 2 and g["score1"] is not None]
    assert len(scored) == 1
    # another host gets links to itself, not the first reader's
    settings.ALLOWED_HOSTS = ["testserver", "scores.example.org"]
    APIClient().get(GAMES + "&offset=1")
    other = APIClient().get(GAMES + "&offset=1", HTTP_HOST="scores.example.org")
    assert other.status_code == 200
    assert other.json()["previous"].startswith("http://scores.example.org/")
