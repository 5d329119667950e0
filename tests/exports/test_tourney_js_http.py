"""The tourney.js feed answers TSH's own pollers: Last-Modified and If-Modified-Since -> 304.

tsh.js (under esb.js) fetches tourney.js about every 10 s, sending ``If-Modified-Since`` with
the ``Last-Modified`` it was given and nothing else; without ``Last-Modified`` every poll was
a full answer. A fake clock stands in for ``time.time`` in the feed module, so the rule for
writes within one second is checked without waiting.
"""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.utils.http import http_date, parse_http_date

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.cache import (
    PUBLIC_CACHE_CONTROL,
    _page_key,
    cache_add,
    tournament_version,
)
from tournament.formats import parse_tourney_js
from tournament.models import Tournament
from tournament.web import feeds

pytestmark = pytest.mark.django_db


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = Clock(1_700_000_000.2)
    monkeypatch.setattr(feeds, "time", fake)
    return fake


@pytest.fixture
def event():
    t = services.create_tournament(name="Poll Open")
    d = services.create_division(t, name="A", rounds=2)
    for name in ("Able, Ann", "Baker, Bo"):
        services.register_player(d, name=name, rating=1500)
    save_round_pairings(d, 1, [PlannedGame(1, 2)])
    return t, d


def _get(client, t, **headers):
    return client.get(f"/t/{t.slug}/tourney.js", **headers)


def test_last_modified_then_if_modified_since_gives_304(client, clock, event):
    t, _d = event
    _get(client, t)  # the version is first seen
    clock.now += 2
    first = _get(client, t)
    assert first.status_code == 200 and first.content.startswith(b"newt=")
    stamp = parse_http_date(first["Last-Modified"])
    clock.now += 8  # the next poll
    again = _get(client, t, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 304 and again.content == b""
    assert again["Last-Modified"] == first["Last-Modified"]
    assert again["ETag"] == first["ETag"]  # the same validator as the full answer
    assert again["Cache-Control"] == PUBLIC_CACHE_CONTROL
    assert again["Access-Control-Allow-Origin"] == "*"
    later = _get(client, t, HTTP_IF_MODIFIED_SINCE=http_date(stamp + 60))
    assert later.status_code == 304
    older = _get(client, t, HTTP_IF_MODIFIED_SINCE=http_date(stamp - 1))
    assert older.status_code == 200 and older.content == first.content


def test_a_result_makes_the_next_poll_a_full_answer(client, clock, event):
    t, d = event
    _get(client, t)
    clock.now += 5
    held = _get(client, t)["Last-Modified"]
    assert _get(client, t, HTTP_IF_MODIFIED_SINCE=held).status_code == 304
    services.record_result(d, 1, 1, 420, 380)
    clock.now += 0.3  # within the same second as the poll that got ``held``
    changed = _get(client, t, HTTP_IF_MODIFIED_SINCE=held)
    assert changed.status_code == 200
    players = parse_tourney_js(changed.content.decode())["divisions"][0]["players"]
    assert players[1]["scores"] == [420] and players[2]["scores"] == [380]
    assert parse_http_date(changed["Last-Modified"]) >= parse_http_date(held)


def test_a_write_in_the_same_second_is_never_answered_304(client, clock, event):
    """A poll answered in the second its version was first seen gets a date one second
    earlier, so a write later in that second (same HTTP date) still reaches it."""
    t, d = event
    clock.now = 1_700_000_100.1
    first = _get(client, t)
    seen = parse_http_date(first["Last-Modified"])
    assert seen == 1_700_000_099  # the second is not over: one second earlier
    clock.now = 1_700_000_100.5
    services.record_result(d, 1, 1, 400, 390)
    clock.now = 1_700_000_100.7  # the new version, first seen in that same second
    poll = _get(client, t, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert poll.status_code == 200
    assert parse_tourney_js(poll.content.decode())["divisions"][0]["players"][1]["scores"] == [400]
    clock.now = 1_700_000_101.2  # the second is over: the date is the version's own
    settled = _get(client, t, HTTP_IF_MODIFIED_SINCE=poll["Last-Modified"])
    assert settled.status_code == 200
    assert parse_http_date(settled["Last-Modified"]) == 1_700_000_100
    assert _get(client, t, HTTP_IF_MODIFIED_SINCE=settled["Last-Modified"]).status_code == 304


def test_etag_rules_over_if_modified_since(client, clock, event):
    t, _d = event
    _get(client, t)
    clock.now += 3
    first = _get(client, t)
    clock.now += 3
    ims = first["Last-Modified"]
    assert _get(client, t, HTTP_IF_MODIFIED_SINCE=ims).status_code == 304
    # HTTP: with If-None-Match, If-Modified-Since is not looked at
    stale = _get(client, t, HTTP_IF_NONE_MATCH='"stale"', HTTP_IF_MODIFIED_SINCE=ims)
    assert stale.status_code == 200 and stale["Last-Modified"] == ims
    fresh = _get(client, t, HTTP_IF_NONE_MATCH=first["ETag"])
    assert fresh.status_code == 304 and fresh["Last-Modified"] == ims


@pytest.mark.parametrize("header", ["", "yesterday", "Mon, 99 Foo 2023 25:61:61 GMT", "0" * 300])
def test_a_bad_if_modified_since_gets_the_full_feed(client, clock, event, header):
    t, _d = event
    response = _get(client, t, HTTP_IF_MODIFIED_SINCE=header)
    assert response.status_code == 200 and response.content.startswith(b"newt=")


def test_unknown_and_unpublished_feeds_stay_404_whatever_the_date(client, clock, event):
    t, _d = event
    future = http_date(clock.now + 3600)
    assert client.get("/t/nope/tourney.js", HTTP_IF_MODIFIED_SINCE=future).status_code == 404
    Tournament.objects.filter(pk=t.pk).update(published=False)
    assert _get(client, t, HTTP_IF_MODIFIED_SINCE=future).status_code == 404
    assert client.post(f"/t/{t.slug}/tourney.js").status_code == 405


def test_the_last_versions_copy_carries_no_date(client, clock, event):
    """While another worker builds the new version, the last version's copy is served; it must
    not carry the new version's date, or its poller would keep the old copy."""
    t, d = event
    first = _get(client, t)
    services.record_result(d, 1, 1, 410, 400)
    request = RequestFactory().get(f"/t/{t.slug}/tourney.js")
    new_etag = _page_key(tournament_version(t.slug), request, feeds.FEED_NAME)
    assert cache_add("lock:p:" + new_etag, 1, 30)  # another worker is building it
    served = _get(client, t)
    assert served.status_code == 200 and served["ETag"] == first["ETag"]
    assert served["Cache-Control"] == "public, max-age=1"
    assert "Last-Modified" not in served


def test_a_poll_costs_one_query_whichever_validator_it_sends(client, clock, event):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    t, _d = event
    _get(client, t)
    clock.now += 2
    first = _get(client, t)
    for headers in (
        {"HTTP_IF_MODIFIED_SINCE": first["Last-Modified"]},
        {"HTTP_IF_NONE_MATCH": first["ETag"]},
        {},  # the whole feed, from the page cache
    ):
        with CaptureQueriesContext(connection) as queries:
            response = _get(client, t, **headers)
        assert response.status_code == (200 if not headers else 304)
        assert response["Last-Modified"] == first["Last-Modified"]
        assert len(queries) == 1, [q["sql"] for q in queries]  # the version, only
