"""A new version reads each division's games once: the standings, a player's page and
tourney.js of that version share the rows (issue 40, "a new version costs milliseconds")."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tournament import services
from tournament.models import Game

pytestmark = pytest.mark.django_db

GAMES = Game._meta.db_table


def game_reads(client, url: str) -> int:
    """The queries reading the games table while ``url`` is answered (200)."""
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, url
    return sum(1 for q in ctx.captured_queries if f'FROM "{GAMES}"' in q["sql"])


def test_the_pages_of_one_version_read_the_games_once(client, event):
    t, d = event
    pages = [
        f"/t/{t.slug}/{d.slug or d.name}/standings/",
        f"/t/{t.slug}/{d.slug or d.name}/player/3/",
        f"/t/{t.slug}/tourney.js",
    ]
    assert game_reads(client, pages[0]) == 1
    # the player's page and the feed of the same version start from the standings' rows
    assert [game_reads(client, url) for url in pages[1:]] == [0, 0]


def test_a_result_makes_new_rows_that_every_page_shows(client, event):
    t, d = event
    feed = f"/t/{t.slug}/tourney.js"
    standings = f"/t/{t.slug}/{d.slug or d.name}/standings/"
    assert b"417" not in client.get(feed).content
    client.get(standings)
    services.record_result(d, 2, 1, 417, 399)  # a new version: the rows are read again
    assert game_reads(client, standings) == 1
    body = client.get(feed).content.decode()
    assert "417" in body and "399" in body
