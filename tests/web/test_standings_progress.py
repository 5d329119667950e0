"""The public standings page during a round: the latest standings count every recorded game
and the page says which ("after round 1; round 2: 1 of 2 games in"), issue 18."""

from __future__ import annotations

import pytest
from django.test import Client

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    t = services.create_tournament(name="Page Open", slug="page-open")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=3)
    for name, rating in (("Able, Ann", 1800), ("Baker, Bo", 1700), ("Cole, Cy", 1600)):
        services.register_player(d, name=name, rating=rating)
    services.register_player(d, name="Dunn, Di", rating=1500)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4)])
    services.record_result(d, 1, 1, 420, 380)
    services.record_result(d, 1, 3, 350, 410)
    return t, d


def _page(d, query: str = "") -> str:
    url = f"/t/page-open/{d.slug}/standings/{query}"
    response = Client().get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_standings_say_which_games_of_the_round_in_play_they_count(event):
    t, d = event
    assert "standings after round 1</h1>" in _page(d)
    assert 'class="progress"' not in _page(d)
    save_round_pairings(d, 2, [PlannedGame(1, 4), PlannedGame(2, 3)])
    page = _page(d)
    assert "after round 1; round 2: 0 of 2 games in" in page
    services.record_result(d, 2, 1, 400, 300)
    page = _page(d)
    assert "after round 1; round 2: 1 of 2 games in" in page
    assert "standings after round 2</h1>" not in page
    # an earlier round asked for by name is complete: no progress line
    assert 'class="progress"' not in _page(d, "?after=1")
    services.record_result(d, 2, 2, 390, 380)
    page = _page(d)
    assert "standings after round 2</h1>" in page and 'class="progress"' not in page


def test_between_pairing_and_the_first_score_the_bye_counted_is_said():
    """A bye is scored when its round is paired, so the standings count it before any game of
    the round is in; TSH's ``standings`` shows that round then (``rs MostScores``). The page
    said "after round 0; round 1: 0 of 1 games in" above a table giving the bye 1-0 +50."""
    t = services.create_tournament(name="Bye Open", slug="bye-open")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=3)
    for name, rating in (("Able, Ann", 1800), ("Baker, Bo", 1700), ("Cole, Cy", 1600)):
        services.register_player(d, name=name, rating=rating)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 0)])
    page = Client().get(f"/t/bye-open/{d.slug}/standings/").content.decode()
    assert "after round 0; round 1: 0 of 1 games in, 1 bye counted" in page
    from tournament.selectors import division_standings

    cole = next(r for r in division_standings(d, 1) if r.number == 3)
    assert (cole.wins, cole.rank) == (1, 1)  # what the line says the table counts
