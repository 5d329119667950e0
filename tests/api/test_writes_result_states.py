"""API result states (issue 17): forfeit, double forfeit and clear through the same results
and corrections endpoints, a forfeit corrected to scores made one played game again."""

from __future__ import annotations

import pytest

from tournament.models import AuditEvent, Game
from tournament.selectors import division_standings

from .conftest import token_client
from .test_writes import CORRECTIONS, RESULTS, counts, refused

pytestmark = pytest.mark.django_db


def _record(division, *numbers: int) -> list[tuple[float, float, int]]:
    """Wins, losses and spread of the given players (round 1 is 1 v 2 420-380, 3 v 4 350-410)."""
    rows = {r.number: r for r in division_standings(division)}
    return [(rows[n].wins, rows[n].losses, rows[n].spread) for n in numbers]


def test_forfeit_then_scores_then_double_forfeit_then_clear(event, director):
    _, d = event
    client = token_client(director)
    r = client.post(RESULTS, {"round": 2, "player": 1, "state": "forfeit"}, format="json")
    assert r.status_code == 201, r.content
    assert (r.json()["score1"], r.json()["player2"]) == (-50, None)
    assert _record(d, 1, 4) == [(1.0, 1.0, -10), (2.0, 0.0, 110)]
    r = client.post(
        CORRECTIONS,
        {"round": 2, "player": 1, "score": 400, "opp_score": 380, "reason": "they played"},
        format="json",
    )
    assert r.status_code == 200, r.content
    game = Game.objects.get(round__number=2, player1__number__in=[1, 4], player2__isnull=False)
    assert {game.player1.number, game.player2.number} == {1, 4}
    assert _record(d, 1, 4) == [(2.0, 0.0, 60), (1.0, 1.0, 40)]
    r = client.post(
        CORRECTIONS,
        {"round": 2, "player": 4, "state": "double_forfeit", "reason": "neither came"},
        format="json",
    )
    assert r.status_code == 200, r.content
    assert _record(d, 1, 4) == [(1.0, 1.0, -10), (1.0, 1.0, 10)]
    audits = AuditEvent.objects.count()
    r = client.post(
        CORRECTIONS, {"round": 2, "player": 4, "state": "clear", "reason": "wrong game"},
        format="json",
    )  # fmt: skip
    assert r.status_code == 200, r.content
    assert (r.json()["score1"], r.json()["score2"]) == (None, None)
    assert _record(d, 1, 4) == [(1.0, 0.0, 40), (1.0, 0.0, 60)]
    assert AuditEvent.objects.count() == audits + 1
    assert AuditEvent.objects.latest("pk").action == "clear_result"


def test_clear_of_an_unplayed_game_and_unknown_state_are_refused(event, director):
    client = token_client(director)
    before = counts()
    r = client.post(
        CORRECTIONS, {"round": 2, "player": 1, "state": "clear", "reason": "x"}, format="json"
    )
    refused(r, 400, "no_result_to_correct")
    r = client.post(RESULTS, {"round": 2, "player": 1, "state": "clear"}, format="json")
    assert r.status_code == 400
    assert counts() == before
