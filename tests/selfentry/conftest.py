"""Fixtures for self-entry: a published event with six players and round 1 paired.

Round 1: #1 v #2 (board 1), #3 v #4 (board 2), #6 v #5 (board 3, #6 listed first, so #5's
scores are the game's second). Every entry has its self-entry link (as printing the
scorecards gives them).
"""

from __future__ import annotations

import datetime

import pytest
from django.core.cache import cache

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.models import AuditEvent, Entry, Game, PendingResult
from tournament.services.selfentry import ensure_tokens

NAMES = ["Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di", "Eve, Ed", "Fox, Flo"]


def build_event(name: str = "Self Entry Open"):
    t = services.create_tournament(name=name, start_date=datetime.date(2025, 5, 3))
    d = services.create_division(t, name="A", rounds=5)
    for k, player in enumerate(NAMES):
        services.register_player(d, name=player, rating=1800 - 50 * k)
    save_round_pairings(
        d,
        1,
        [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(6, 5, board=3)],
        system="manual",
    )
    ensure_tokens(d, "test")
    return t, d


def token(d, number: int) -> str:
    return Entry.objects.get(division=d, number=number).entry_token


def game(d, p1: int, rnd: int = 1) -> Game:
    return Game.objects.get(round__division=d, round__number=rnd, player1__number=p1)


def counts():
    """What a refusal must leave unchanged."""
    return (
        list(Game.objects.order_by("pk").values_list("pk", "player2_id", "score1", "score2")),
        list(PendingResult.objects.order_by("pk").values_list("pk", "status", "score1", "score2")),
        AuditEvent.objects.count(),
    )


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    """make_director hashes a real password; the slow default hasher adds a second a test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def clean_cache():
    """The wrong-token counter lives in the site's cache: each test starts from zero."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def event(db):
    return build_event()
