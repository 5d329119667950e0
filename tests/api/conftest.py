"""Fixtures for the API: a small published division with results, and API tokens."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.models import Player
from tournament.services.results import record_forfeit
from tournament.services.selfentry import issue_token

SECRETS = ("ann@example.org", "+1 555 0100", "bo@example.org")


@pytest.fixture
def event(db):
    """Four players (with contact details and self-entry links), round 1 scored, round 2
    paired: (tournament, division)."""
    t = services.create_tournament(name="Api Open", slug="api-open")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=3)
    for name, rating in (
        ("Able, Ann", 1800),
        ("Baker, Bo", 1700),
        ("Cole, Cy", 1600),
        ("Dunn, Di", 1500),
    ):
        services.register_player(d, name=name, rating=rating)
    Player.objects.filter(name="Able, Ann").update(email=SECRETS[0], phone=SECRETS[1])
    Player.objects.filter(name="Baker, Bo").update(email=SECRETS[2])
    for entry in d.entries.all():
        issue_token(entry)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4)])
    services.record_result(d, 1, 1, 420, 380)
    services.record_result(d, 1, 3, 350, 410)
    save_round_pairings(d, 2, [PlannedGame(1, 4), PlannedGame(2, 3)])
    t.refresh_from_db()
    return t, d


def token_client(user) -> APIClient:
    """A client that authenticates with the user's API token, as a script would."""
    token, _ = Token.objects.get_or_create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def director(event):
    return make_director(event[0], "apidirector")


@pytest.fixture
def club_data(db):
    """The club "riverside" with members, two closed nights and seasons (tests/api/clubdata)."""
    from .clubdata import build_club

    return build_club()


@pytest.fixture
def nullable_event():
    """Division A, no rating list: 1-2 scored, 3 a bye, 4 forfeits to 5 in round 1; 6
    withdrawn from round 2; round 2 paired, not scored."""
    t = services.create_tournament(name="Null Open", slug="null-open")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=3)
    assert d.rating_list_id is None
    for n in range(1, 7):
        services.register_player(d, name=f"Player {n}", rating=1900 - 100 * n)
    save_round_pairings(
        d, 1, [PlannedGame(1, 2), PlannedGame(3, 0), PlannedGame(4, 5), PlannedGame(6, 0)]
    )
    services.record_result(d, 1, 1, 420, 380)
    services.record_result(d, 1, 3, 50)
    services.record_result(d, 1, 6, 50)
    record_forfeit(d, 1, 4)
    save_round_pairings(d, 2, [PlannedGame(1, 3), PlannedGame(2, 4), PlannedGame(5, 6)])
    services.withdraw_player(d.entries.get(number=6), from_round=2, actor="test")
    return t, d
