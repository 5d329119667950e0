"""Prize chances on the public pages: a column on the standings and a section on the player's
page while rounds are left, neither when the director hides them."""

from __future__ import annotations

import runpy

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from tournament import services
from tournament import settings as settings_module

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(event):
    t, d = event
    services.publish_tournament(t, True, None)
    return t, d


def _get(url: str) -> str:
    r = Client().get(url)
    assert r.status_code == 200, r.content[:300]
    return r.content.decode()


def test_standings_show_first_and_prize_chances(published):
    t, d = published
    html = _get(f"/t/{t.slug}/{d.slug}/standings/")
    assert 'title="chance of finishing 1st' in html
    assert html.count("%</td>") >= 8  # two percentages a player
    # an older round's standings carry none (chances are about the event as it stands)
    assert "chance of finishing 1st" not in _get(f"/t/{t.slug}/{d.slug}/standings/?after=1")


def test_the_player_page_has_a_chances_section(published):
    t, d = published
    html = _get(f"/t/{t.slug}/{d.slug}/player/1/")
    assert 'id="chances"' in html and "A prize place" in html and "Seen range" in html


def test_hidden_chances_show_nowhere(published):
    t, d = published
    services.set_chances_visibility(d, actor="test", hide=True)
    assert "chance of finishing 1st" not in _get(f"/t/{t.slug}/{d.slug}/standings/")
    assert 'id="chances"' not in _get(f"/t/{t.slug}/{d.slug}/player/1/")


def test_pages_reuse_recent_chances_while_the_api_follows_each_result(published, settings):
    """A result every few seconds must not start a simulation for the pages at each one:
    within GIBSON_CHANCES_PAGE_SECONDS the pages serve the chances last computed, the API
    the current version's."""
    from tournament import chances as chance_cache

    t, d = published
    settings.GIBSON_CHANCES_PAGE_SECONDS = 3600
    runs: list[int] = []
    real = chance_cache._compute

    def counted(*args, **kwargs):
        runs.append(1)
        return real(*args, **kwargs)

    chance_cache._compute = counted
    try:
        before = chance_cache.page_chances(d)
        services.record_result(d, 2, 1, 400, 300)  # a new version
        assert chance_cache.page_chances(d) == before and len(runs) == 1
        now = chance_cache.cached_chances(d)  # the API's read: the current version
        assert len(runs) == 2 and now != before
        settings.GIBSON_CHANCES_PAGE_SECONDS = 0
        services.record_result(d, 2, 2, 390, 380)
        chance_cache.page_chances(d)
        assert len(runs) == 3
    finally:
        chance_cache._compute = real


def test_zero_seconds_from_the_environment_means_always_current(monkeypatch):
    """docs/reference.md promises ``GIBSON_CHANCES_PAGE_SECONDS=0``: always current (the
    venue-mode tests' two sites need it: their pages are compared right after each push). The
    environment's reader refused 0, and a site so configured did not start."""
    settings_file = settings_module.__file__
    monkeypatch.setenv("GIBSON_CHANCES_PAGE_SECONDS", "0")
    assert runpy.run_path(settings_file)["GIBSON_CHANCES_PAGE_SECONDS"] == 0
    monkeypatch.setenv("GIBSON_CHANCES_PAGE_SECONDS", "-1")
    with pytest.raises(ImproperlyConfigured, match="GIBSON_CHANCES_PAGE_SECONDS='-1'"):
        runpy.run_path(settings_file)
