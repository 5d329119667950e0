"""A player without a rating (seed 0) reads "unrated" wherever players see ratings, never a
rating of 0 (issue 31): the public standings, the opponent column of a player's page, and the
console's standings the director shows the room."""

from __future__ import annotations

import pytest

from tests.core.conftest import make_director
from tournament import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def newcomer(event):
    """Player 5, unrated (seed 0), entered late (rounds 1 and 2 count as losses), meets
    Able (#1) in round 3."""
    from pairings.services.store import PlannedGame, save_round_pairings

    t, d = event
    services.register_player(d, name="Newcomer, Nell", rating=0)
    services.publish_tournament(t, True, actor="test")
    save_round_pairings(d, 3, [PlannedGame(1, 5, board=1), PlannedGame(2, 3, board=2)])
    return t, d


def test_public_standings_and_the_player_page_say_unrated(client, newcomer):
    t, d = newcomer
    standings = client.get(f"/t/{t.slug}/{d.slug}/standings/").content.decode()
    row = standings[standings.index("Newcomer, Nell") :].split("</tr>", 1)[0]
    assert '<td class="num wide">unrated</td>' in row and '"num wide">0<' not in row
    card = client.get(f"/t/{t.slug}/{d.slug}/player/1/").content.decode()
    meeting = card[card.index("Newcomer, Nell") :].split("</tr>", 1)[0]
    assert '<td class="num wide">unrated</td>' in meeting


def test_the_console_standings_say_unrated(client, newcomer):
    t, d = newcomer
    client.force_login(make_director(t, "dora"))
    page = client.get(f"/t/{t.slug}/console/{d.slug}/standings/").content.decode()
    row = page[page.index("Newcomer, Nell") :].split("</tr>", 1)[0]
    assert "unrated" in row
