"""The round clock over the API: a public read with the server's time, director writes with
the API's error shape."""

from __future__ import annotations

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tournament.models import AuditEvent, RoundClock

from .conftest import T0

URL = "/api/v1/tournaments/clock-open/divisions/a/rounds/1/clock/"


def _api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def test_read_and_run_the_clock(event, now):
    read = APIClient().get(URL)
    assert read.status_code == 200 and read["Cache-Control"] == "no-store"
    assert read.json() == {
        "division": "a",
        "round": 1,
        "state": "not_started",
        "minutes": 25,
        "extended_minutes": 0,
        "extensions": [],
        "started_at": None,
        "ends_at": None,
        "remaining_seconds": 1500,
        "server_now": "2026-04-11T14:00:00Z",
    }
    director = _api(event.director)
    started = director.post(URL, {"action": "start", "minutes": 20}, format="json")
    assert started.status_code == 200, started.json()
    assert started.json()["ends_at"] == "2026-04-11T14:20:00Z"
    now.advance(minutes=1)
    body = director.post(
        URL, {"action": "extend", "minutes": 2, "reason": "late start"}, format="json"
    ).json()
    assert body["state"] == "running" and body["remaining_seconds"] == 21 * 60
    assert body["extensions"] == [
        {"minutes": 2, "reason": "late start", "at": "2026-04-11T14:01:00Z", "by": "dora"}
    ]
    assert APIClient().get(URL).json()["ends_at"] == "2026-04-11T14:22:00Z"
    assert AuditEvent.objects.filter(object_type="RoundClock").count() == 2
    assert T0  # the fixture's start


def test_refusals_in_the_api_shape(event, now):
    director = _api(event.director)
    refused = director.post(URL, {"action": "pause"}, format="json")
    assert refused.status_code == 400
    (error,) = refused.json()["errors"]
    assert error["code"] == "clock_not_running" and error["field"] == "action"
    bad = director.post(URL, {"action": "start", "minutes": "ten"}, format="json")
    assert bad.status_code == 400 and bad.json()["errors"][0]["code"] == "wrong_type"
    bad = director.post(URL, {"action": "stop"}, format="json")
    assert bad.status_code == 400 and bad.json()["errors"][0]["field"] == "action"
    bad = director.post(URL, {"action": "start", "minutes": 0}, format="json")
    assert bad.json()["errors"][0]["code"] == "setup_too_small"
    bad = director.post(URL, {"action": "start", "secs": 3}, format="json")
    assert bad.json()["errors"][0]["code"] == "unknown_field"
    assert APIClient().post(URL, {"action": "start"}, format="json").status_code == 401
    for who in (event.scorekeeper, event.stranger):
        assert _api(who).post(URL, {"action": "start"}, format="json").status_code == 403
    assert not RoundClock.objects.exists()
    assert APIClient().get(URL.replace("/1/", "/4/")).status_code == 404


def test_the_division_read_links_its_current_rounds_clock(event, now):
    body = APIClient().get("/api/v1/tournaments/clock-open/divisions/a/").json()
    assert body["clock"] == {"round": 1, "url": URL}
    assert APIClient().get("/api/v1/tournaments/clock-open/divisions/b/").json()["clock"] is None
