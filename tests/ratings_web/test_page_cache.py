"""Rating lists, profiles and head-to-head are cached per site version for anonymous visitors.

These pages read across every tournament and list, so their stamp is one small query over all
of them (tournament.cache.site_version): any write anywhere gives a new stamp, a repeat
visit costs that one query, and a poller sending the ETag back gets 304.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.core.conftest import make_director
from tournament import cache as caching
from tournament import services

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def page_cache(settings):
    settings.GIBSON_SITE_PAGE_CACHE = True
    caching.reset_failures()
    yield
    caching.reset_failures()


def _pages(world) -> list[str]:
    return [
        "/ratings/",
        f"/ratings/{world.club.slug}/",
        f"/players/{world.ann.pk}/",
        f"/players/{world.ann.pk}/vs/{world.bob.pk}/",
    ]


def test_a_repeat_visit_costs_one_query_and_a_poller_gets_304(client, world):
    for url in _pages(world):
        first = client.get(url)
        assert first.status_code == 200, url
        with CaptureQueriesContext(connection) as ctx:
            again = client.get(url)
        assert again.status_code == 200 and len(ctx.captured_queries) == 1, url
        assert again.content == first.content
        with CaptureQueriesContext(connection) as ctx:
            polled = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
        assert polled.status_code == 304 and len(ctx.captured_queries) == 1, url
        assert first["Cache-Control"] == "public, max-age=1"


def test_a_rename_anywhere_shows_at_once(client, world):
    url = f"/players/{world.ann.pk}/"
    before = client.get(url)
    superuser = make_director(world.spring, "registry-keeper")
    superuser.is_superuser = True
    superuser.save()
    services.update_player(world.ann, name="Renamed, Ann", actor=superuser)
    after = client.get(url)
    assert "Renamed, Ann" in after.content.decode()
    assert after["ETag"] != before["ETag"]
    listed = client.get(f"/ratings/{world.club.slug}/").content.decode()
    assert "Renamed, Ann" in listed


def test_signed_in_visitors_and_refusals_are_never_cached(client, world):
    url = f"/ratings/{world.club.slug}/"
    client.get(url)
    client.force_login(make_director(world.spring, "signed-in"))
    with CaptureQueriesContext(connection) as ctx:
        page = client.get(url)
    assert page.status_code == 200 and len(ctx.captured_queries) > 1
    client.logout()
    assert client.get("/ratings/no-such-list/").status_code == 404
    assert client.get("/ratings/no-such-list/").status_code == 404  # built again, not cached
    bad = client.get(url, {"page": "x"})
    assert bad.status_code == 400
