"""tourney.js reads each division once (issue 40): two queries a division, whatever its rounds.

The feed is rebuilt on every new page version (every result recorded), so its cost is paid
all day. It used to read a division's games three times, in three shapes (the .t players, the
rating estimates, the ranks after each round) as model objects; it now reads entries and
games once, as rows, and every part derives its view from them. Byte-identical output is held
by the tourney.js tests and fixtures elsewhere (tests/formats, tests/fidelity).
"""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.formats.tourney_js import write_tourney_js
from tournament.interchange.exports import export_files, export_tourney_js

pytestmark = pytest.mark.django_db

# The tournament's divisions, its config's divisions (tournament_config), its entrants'
# approved photos, and each division's entries and games.
QUERIES_ONE_DIVISION = 5


def event(rounds: int, divisions: int = 1, players: int = 9):
    """A tournament whose divisions have ``rounds`` scored rounds (a bye each round: odd)."""
    rng = random.Random(rounds)
    t = services.create_tournament(name=f"Feed reads {rounds} {divisions}")
    for k in range(divisions):
        d = services.create_division(t, name="ABCD"[k], rounds=rounds + 2)
        for n in range(1, players + 1):
            services.register_player(d, name=f"Player {k}{n:02d}", rating=rng.randint(600, 2100))
        numbers = list(range(1, players + 1))
        for r in range(1, rounds + 1):
            rng.shuffle(numbers)
            games = [PlannedGame(numbers[i], numbers[i + 1]) for i in range(0, players - 1, 2)]
            games.append(PlannedGame(numbers[-1], 0))
            save_round_pairings(d, r, games, system="random")
            for g in games[:-1]:
                services.record_result(d, r, g.first, rng.randint(250, 550), rng.randint(250, 550))
    return t


def feed_queries(t) -> int:
    with CaptureQueriesContext(connection) as ctx:
        write_tourney_js(export_tourney_js(t, public=True))
    return len(ctx.captured_queries)


def test_a_division_is_read_in_two_queries_however_many_rounds(django_assert_max_num_queries):
    short, long = event(rounds=2), event(rounds=7)
    with django_assert_max_num_queries(QUERIES_ONE_DIVISION):
        text = write_tourney_js(export_tourney_js(long, public=True))
    assert '"Player 001"' in text  # the feed itself, not an empty one
    assert feed_queries(short) == feed_queries(long)


def test_each_further_division_costs_its_two_queries_only():
    one, three = event(rounds=3), event(rounds=3, divisions=3)
    assert feed_queries(three) - feed_queries(one) == 2 * 2


def test_the_t_files_share_the_one_read_too(django_assert_max_num_queries):
    t = event(rounds=4, divisions=2)
    # the config's two reads of the divisions, and two a division
    with django_assert_max_num_queries(2 + 2 * 2):
        files = export_files(t)
    assert len(files) == 3  # config.tsh and a .t a division
