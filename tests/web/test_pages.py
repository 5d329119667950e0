"""Public pages from the shared cache: computed once per version, 304 before any page is
built, drafts kept from the public, gzip when asked, and a dead cache still serves pages."""

from __future__ import annotations

import gzip
import socket

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from tests.core.conftest import make_director
from tournament import cache as caching
from tournament import services
from tournament.demo import load_demo
from tournament.models import Game
from tournament.selectors import (
    DivisionSnapshot,
    division_standings,
    games_seen_by,
    last_round_number,
    records_by_round,
    running_records,
)

pytestmark = pytest.mark.django_db


def get(client, url, **headers):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, **headers)
    return response, ctx.captured_queries


def game_queries(queries) -> int:
    return sum('"tournament_game"' in q["sql"] for q in queries)


def urls(t, d):
    return {
        "standings": f"/t/{t.slug}/{d.slug}/standings/",
        "player": f"/t/{t.slug}/{d.slug}/player/1/",
        "feed": f"/t/{t.slug}/tourney.js",
        "tournament": f"/t/{t.slug}/",
    }


def test_a_cached_page_is_served_without_computing_and_recomputed_after_a_write(client, event):
    t, d = event
    for name, url in urls(t, d).items():
        first, queries = get(client, url)
        assert first.status_code == 200, name
        assert first["Cache-Control"] == "public, max-age=1"
        again, queries = get(client, url)
        assert again.status_code == 200 and again.content == first.content, name
        assert len(queries) == 1, (name, [q["sql"] for q in queries])  # the version, only
    services.record_result(d, 2, 1, 456, 321)
    for name, url in urls(t, d).items():
        fresh, queries = get(client, url)
        shows = {"standings": b"+175", "player": b"456", "feed": b"456"}  # 40 + 135 spread
        if name in shows:
            assert shows[name] in fresh.content, name
        assert len(queries) > 1, name


def test_division_facts_are_shared_by_the_standings_and_player_pages(client, event):
    """After the standings page has been built, a player page reads no games (the version's
    rows are shared); a signed-in viewer gets a page built for them, from the same rows."""
    t, d = event
    client.get(urls(t, d)["standings"])
    _, queries = get(client, f"/t/{t.slug}/{d.slug}/player/3/")
    assert game_queries(queries) == 0
    user = make_director(t, "td")
    client.force_login(user)
    staff, queries = get(client, urls(t, d)["standings"])
    assert staff.status_code == 200 and b"Sign out" in staff.content  # built for them
    assert staff["Cache-Control"] == "private, no-cache"
    assert game_queries(queries) == 0  # staff role: computed for staff from the same rows...
    staff, queries = get(client, urls(t, d)["standings"])
    assert game_queries(queries) == 0  # ...then from the cache


def test_one_load_of_the_games_per_request(client, event):
    t, d = event
    for url in (urls(t, d)["player"], urls(t, d)["standings"] + "?after=1"):
        caching.cache.clear()
        caching.reset_failures()  # and this process's copies: the version's rows too
        response, queries = get(client, url)
        assert response.status_code == 200
        assert game_queries(queries) == 1, [q["sql"] for q in queries]


def test_conditional_get_answers_304_before_building_the_page(client, event):
    t, d = event
    for name, url in urls(t, d).items():
        first = client.get(url)
        etag = first["ETag"]
        for sent in (etag, f"W/{etag}", f'"other", {etag}'):
            response, queries = get(client, url, HTTP_IF_NONE_MATCH=sent)
            assert response.status_code == 304 and response.content == b"", name
            assert len(queries) <= 2, name
            assert response["ETag"] == etag
        assert client.get(url, HTTP_IF_NONE_MATCH='"stale"').status_code == 200
    # gzip makes the ETag weak; it still matches
    zipped = client.get(urls(t, d)["standings"], HTTP_ACCEPT_ENCODING="gzip")
    assert zipped["ETag"].startswith("W/")
    assert client.get(urls(t, d)["standings"], HTTP_IF_NONE_MATCH=zipped["ETag"]).status_code == 304
    etag = client.get(urls(t, d)["feed"])["ETag"]
    services.record_result(d, 2, 2, 400, 399)
    assert client.get(urls(t, d)["feed"], HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_a_draft_is_never_in_the_public_cache(client, event):
    t, d = event
    public = client.get(urls(t, d)["standings"])
    assert public.status_code == 200
    services.publish_tournament(t, False, "cmd")
    for name, url in urls(t, d).items():
        hidden = client.get(url)
        assert hidden.status_code == 404, name
        assert hidden.get("Cache-Control", "") != "public, max-age=1"
        assert client.get(url, HTTP_IF_NONE_MATCH=public["ETag"]).status_code == 404
    user = make_director(t, "td")
    client.force_login(user)
    staff = client.get(urls(t, d)["standings"])
    assert staff.status_code == 200 and b"Sign out" in staff.content
    assert staff["Cache-Control"] == "private, no-store"
    assert "ETag" not in staff
    client.logout()
    assert client.get(urls(t, d)["standings"]).status_code == 404  # after staff built it
    services.publish_tournament(t, True, "cmd")
    shown = client.get(urls(t, d)["standings"])
    assert shown.status_code == 200 and b"Sign out" not in shown.content


def test_staff_never_get_the_public_page(client, event):
    t, d = event
    client.get(urls(t, d)["standings"])  # the public copy is cached
    client.force_login(make_director(t, "td"))
    staff = client.get(urls(t, d)["standings"])
    assert b"Sign out" in staff.content and "ETag" not in staff


def test_gzip_when_asked(client, event):
    t, d = event
    for url in urls(t, d).values():
        plain = client.get(url)
        assert not plain.has_header("Content-Encoding")
        for _ in range(2):  # built, then from the cache
            zipped = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
            assert zipped["Content-Encoding"] == "gzip"
            assert gzip.decompress(zipped.content) == plain.content
            assert "Accept-Encoding" in zipped["Vary"]
    assert client.get(urls(t, d)["feed"])["Access-Control-Allow-Origin"] == "*"
    assert client.get(urls(t, d)["feed"])["Access-Control-Allow-Origin"] == "*"


def test_htmx_responses_are_unaffected_by_gzip(client, event):
    t, d = event
    client.force_login(make_director(t, "td"))
    url = f"/t/{t.slug}/console/{d.slug}/round/2/results/"
    plain = client.get(url, HTTP_HX_REQUEST="true")
    zipped = client.get(url, HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING="gzip")
    assert plain.status_code == zipped.status_code == 200
    body = (
        gzip.decompress(zipped.content)
        if zipped.get("Content-Encoding") == "gzip"
        else (zipped.content)
    )
    # the same fragment, whatever the per-request CSRF mask
    strip = __import__("re").compile(rb'value="[A-Za-z0-9]{64}"|"X-CSRFToken": "[^"]+"')
    assert strip.sub(b"", body) == strip.sub(b"", plain.content)


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_a_dead_cache_still_serves_pages(client, event):
    t, d = event
    dead = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{_closed_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    with override_settings(CACHES=dead):
        caching.reset_failures()
        for url in urls(t, d).values():
            for _ in range(2):
                response = client.get(url)
                assert response.status_code == 200
        services.record_result(d, 2, 1, 456, 321)
        assert b"456" in client.get(urls(t, d)["player"]).content
        etag = client.get(urls(t, d)["standings"])["ETag"]
        assert client.get(urls(t, d)["standings"], HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_player_pages_agree_with_the_division_wide_reads():
    """The page's one-load derivations equal the selectors that read the division each time."""
    t, _ = load_demo()
    for d in t.divisions.all():
        snap = DivisionSnapshot.load(d)
        assert snap.last_round() == last_round_number(d)
        assert snap.standings(t, snap.last_round()) == division_standings(d, snap.last_round())
        for e in snap.entries.values():
            games = games_seen_by(e, snap.games, snap.entries)
            assert records_by_round(t, e, games, snap.entries) == running_records(d, e.number)


def test_pages_show_what_the_games_say(client, event):
    t, d = event
    page = client.get(urls(t, d)["player"]).content.decode()
    assert "Able, Ann" in page and "420" in page and "Dunn, Di" in page
    assert f"/t/{t.slug}/{d.slug}/player/2/" in page  # opponent links use the slug
    game = Game.objects.get(round__division=d, round__number=1, player1__number=1)
    services.correct_result(game, 421, 380, reason="typo")
    assert "421" in client.get(urls(t, d)["player"]).content.decode()
    assert client.get(f"/t/{t.slug}/{d.slug}/player/9/").status_code == 404
    assert client.get(f"/t/{t.slug}/{d.slug}/player/x/").status_code == 404
    assert client.get(urls(t, d)["standings"] + "?after=9").status_code == 400


def test_while_another_process_builds_a_version_the_last_page_is_served(client, event, rf):
    """A change makes every worker ask for the new page at once: one builds it, the others
    answer with the last version's page under its own ETag (304 to a poller holding it)."""
    t, d = event
    url = urls(t, d)["standings"]
    old = client.get(url)
    services.record_result(d, 2, 1, 456, 321)
    version = caching.tournament_version(t.slug)
    new_key = caching._page_key(version, rf.get(url), "standings")
    caching.cache.add("lock:p:" + new_key, 1, 30)  # another process is building it
    stale = client.get(url)
    assert stale.status_code == 200 and stale.content == old.content
    assert stale["ETag"] == old["ETag"] and stale["Cache-Control"] == "public, max-age=1"
    assert client.get(url, HTTP_IF_NONE_MATCH=old["ETag"]).status_code == 304
    caching.cache.delete("lock:p:" + new_key)
    fresh = client.get(url)
    assert fresh["ETag"] != old["ETag"] and b"+175" in fresh.content
