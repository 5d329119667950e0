"""A tournament with two divisions, round 1 paired in A, its directors and strangers, and a
server clock the tests move by hand (the round clock reads only the server's time)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services

T0 = dt.datetime(2026, 4, 11, 14, 0, tzinfo=dt.UTC)


class FakeNow:
    """django.utils.timezone.now, set by the test."""

    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> dt.datetime:
        return self.at

    def advance(self, **delta: float) -> None:
        self.at += dt.timedelta(**delta)


@dataclass
class Event:
    tournament: Any
    a: Any
    b: Any
    director: Any
    scorekeeper: Any
    stranger: Any


@pytest.fixture
def now(monkeypatch) -> FakeNow:
    fake = FakeNow()
    monkeypatch.setattr("django.utils.timezone.now", fake)
    return fake


@pytest.fixture
def event(db) -> Event:
    t = services.create_tournament(name="Clock Open", slug="clock-open")
    a = services.create_division(t, name="A", rounds=3)
    b = services.create_division(t, name="B", rounds=3)
    for n in range(1, 5):
        services.register_player(a, name=f"Able, Ann{n}", rating=1800 - 10 * n)
        services.register_player(b, name=f"Baker, Bo{n}", rating=1700 - 10 * n)
    save_round_pairings(a, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)])
    users = get_user_model().objects
    director = users.create_user("dora", "dora@example.org", None)
    t.directors.add(director)
    keeper = users.create_user("kim", "kim@example.org", None)
    t.scorekeepers.add(keeper)
    other = services.create_tournament(name="Other Open", slug="other-open")
    stranger = users.create_user("stan", "stan@example.org", None)
    other.directors.add(stranger)
    return Event(t, a, b, director, keeper, stranger)
