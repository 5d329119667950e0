"""Hole 8: a division's name never becomes part of a URL; every link uses its slug.

Probed: a division named ``../../admin`` made a public link that left the tournament (to
/admin/). Division slugs fixed that; this renders every public, desk and console page that
takes a division, for divisions named ``../../admin`` and ``A/B``, and checks every link,
form action and htmx URL on them.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from tests.core.conftest import make_director

NAMES = ["../../admin", "A/B"]
URL_ATTRIBUTES = re.compile(
    r'\s(?:href|action|src|hx-get|hx-post|hx-put|hx-delete|hx-patch|formaction)="([^"]*)"'
)


def _page_patterns() -> list[tuple[str, str]]:
    """(namespace:name, route) of every page of the public site, desk and console."""
    found: list[tuple[str, str]] = []

    def walk(patterns, prefix: str, namespace: str | None) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern), p.namespace or namespace)
            elif isinstance(p, URLPattern) and namespace in ("public", "desk", "console"):
                found.append((f"{namespace}:{p.name}", prefix + str(p.pattern)))

    walk(get_resolver().url_patterns, "", None)
    return found


@pytest.fixture
def hostile(event):
    """The event's tournament with two more divisions, named like paths, each with players."""
    from pairings.services.rounds import pair_round
    from tournament.services import create_division, record_result, register_player

    divisions = []
    for name in NAMES:
        division = create_division(event, name=name, rounds=3, actor="test")
        # one person, one division: each division's own two players
        for player, rating in ((f"Eve, Ed {name}", 1500), (f"Fay, Fo {name}", 1400)):
            register_player(division, name=player, rating=rating, actor="test")
        pair_round(division, 1, system="koth", actor="test")
        record_result(division, 1, 1, 420, 380, actor="test")
        divisions.append(division)
    return event, divisions


def _urls(html: str) -> list[str]:
    return [unquote(u) for u in URL_ATTRIBUTES.findall(html)]


def test_every_page_links_divisions_by_slug_never_by_name(hostile, client):
    from django.urls import reverse

    tournament, divisions = hostile
    client.force_login(make_director(tournament, "links-director"))
    checked = 0
    for division in divisions:
        assert "/" not in division.slug and "." not in division.slug
        for name, route in _page_patterns():
            if any(
                k in route
                for k in ("<int:pk>", "<str:job>", "<str:fmt>", "<str:key>", "<str:token>")
            ):
                continue  # pages of one job, export or row: no division in their links
            kwargs = {}
            if "<slug:slug>" in route:
                kwargs["slug"] = tournament.slug
            if "<str:division>" in route:
                kwargs["division"] = division.slug
            if "<int:round>" in route:
                kwargs["round"] = 1
            if "<str:number>" in route:
                kwargs["number"] = "1"
            if "<str:board>" in route:
                kwargs["board"] = "1"
            response = client.get(reverse(name, kwargs=kwargs))
            assert response.status_code < 500, (name, response.status_code)
            if "text/html" not in response.get("Content-Type", ""):
                continue
            html = response.content.decode()
            for url in _urls(html):
                assert division.name not in url, (name, url)
                assert not url.startswith("/admin"), (name, url)
                assert "/../" not in url and not url.startswith(".."), (name, url)
            checked += 1
    assert checked > 20  # the walk found the pages, not nothing


def test_the_tournament_and_standings_pages_link_each_division_by_slug(hostile, client):
    tournament, divisions = hostile
    html = client.get(f"/t/{tournament.slug}/").content.decode()
    for division in divisions:
        assert f"/t/{tournament.slug}/{division.slug}/standings/" in _urls(html)
        assert division.name.replace("/", "&#x2F;") in html or division.name in html
        page = client.get(f"/t/{tournament.slug}/{division.slug}/standings/")
        assert page.status_code == 200
        assert f"/t/{tournament.slug}/{division.slug}/player/1/" in _urls(page.content.decode())


def test_a_division_name_in_the_url_finds_nothing(hostile, client):
    tournament, _ = hostile
    for path in (f"/t/{tournament.slug}/../../admin/standings/", f"/t/{tournament.slug}/A/B/"):
        assert client.get(path).status_code == 404
