"""Two events of one weekend, same players, same date: an early bird and a main event."""

from __future__ import annotations

import datetime

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from ratings.services import create_rating_list
from tests.core.conftest import make_director
from tournament import services

DAY = datetime.date(2026, 3, 7)
NAMES = ["Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di", "Eyre, Ed", "Fox, Flo"]
RATINGS = [1810, 1790, 1620, 1500, 1410, 1200]
ROUNDS = [[(1, 2), (3, 4), (5, 6)], [(1, 3), (2, 5), (4, 6)], [(1, 4), (2, 6), (3, 5)]]


def play(name: str, *, upsets: bool, date=DAY):
    """A 6-player, 3-round event: favourites win, or (``upsets``) the lower-rated side wins."""
    t = services.create_tournament(name=name, start_date=date)
    d = services.create_division(t, name="A", rounds=3)
    for n, r in zip(NAMES, RATINGS, strict=True):
        services.register_player(d, name=n, rating=r)
    for rnd, pairs in enumerate(ROUNDS, start=1):
        save_round_pairings(
            d,
            rnd,
            [PlannedGame(a, b, board=i) for i, (a, b) in enumerate(pairs, start=1)],
            system="manual",
        )
        for a, _b in pairs:
            win, lose = 430 + 7 * rnd + a, 350 + a
            services.record_result(d, rnd, a, lose if upsets else win, win if upsets else lose)
    return t


@pytest.fixture
def pair_of_events():
    early = play("Early Bird", upsets=True)
    main = play("Main Event", upsets=False)
    return early, main


@pytest.fixture
def rating_list():
    return create_rating_list("NASPA test", slug="naspa-test")


@pytest.fixture
def td(pair_of_events, rating_list):
    """Directs both events and is an officer of the list."""
    early, main = pair_of_events
    user = make_director(early, "td-both")
    main.directors.add(user)
    rating_list.officers.add(user)
    return user
