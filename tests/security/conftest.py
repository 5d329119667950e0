"""A small event built through the services, for the security tests (no real data needed)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _sign_in_burst_off(settings):
    """The tests here try many wrong sign-ins within a second to reach the other budgets
    (axes' per name, the address's minute and five minutes); the address's burst budget
    (2 in 10 s by default) has its own tests (test_abuse_gate.py), which set it again."""
    settings.SIGN_IN_FAILURES_PER_BURST = 1000


@pytest.fixture
def event(db):
    """A published tournament with one division "A" of four players; round 1 paired and scored."""
    from pairings.services.rounds import pair_round
    from tournament.services import (
        create_division,
        create_tournament,
        record_result,
        register_player,
    )

    tournament = create_tournament(name="Security Open", actor="test")
    division = create_division(tournament, name="A", rounds=3, actor="test")
    for name, rating in (
        ("Able, Ann", 1800),
        ("Baker, Bo", 1700),
        ("Cole, Cy", 1600),
        ("Dunn, Di", 1500),
    ):
        register_player(division, name=name, rating=rating, actor="test")
    pair_round(division, 1, system="koth", actor="test")
    for game in division.round_set.get(number=1).games.all():
        record_result(division, 1, game.player1.number, 400, 350, actor="test")
    return tournament
