"""Rating rules read from TSH's source (docs/ratings.md cites the module and routine of each).

Each rule has a hand-made fixture in fixtures/tsh/ (see its README) small enough to follow by
hand; the test compares Gibson with the rule, never with numbers fitted to a file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ratings.division import division_estimates
from ratings.engine import RatedPlayer, estimates_by_round, rate_event, segment_plan
from tournament.formats.tsh import read_t
from tournament.interchange.imports import import_tsh

from .test_real_event import rated_input

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tsh"
LONG = FIXTURES / "newcomer-long.t"
LONG_ROUNDS = 18  # two segments: rounds 1-9 and 10-18


def _with_career(players: list[RatedPlayer], number: int, career: int | None) -> list:
    return [RatedPlayer(p.id, p.rating, career) if p.id == number else p for p in players]


def test_missing_lifeg_counts_as_100_games_for_a_newcomer_too():
    # TSH::Division::MakeRatingsInput: no lifeg field -> 100 career games, for every player.
    # Newman is unrated and has no lifeg: rounds 1-9 rate her as a newcomer (no K), rounds
    # 10-18 as an established player with the K of 100 games (20 below 1800), not of 0 (30).
    tsh = read_t(LONG)
    newman = next(p for p in tsh if p.name.startswith("Newman"))
    assert newman.rating == 0 and newman.lifeg is None
    players, games = rated_input(tsh)
    assert segment_plan(LONG_ROUNDS) == [(1, 9), (10, 18)]

    res = rate_event("nsa2008", players, games, LONG_ROUNDS)[newman.number]
    first, second = res.segments
    assert first.newcomer and not second.newcomer
    assert second.rating_in is not None and second.rating_in < 1800
    assert [k for k, _ in second.multipliers] == [20]
    assert res.old_games == 100 and res.new_games == 100 + 18

    as_100 = rate_event("nsa2008", _with_career(players, newman.number, 100), games, LONG_ROUNDS)
    as_0 = rate_event("nsa2008", _with_career(players, newman.number, 0), games, LONG_ROUNDS)
    assert res.new == as_100[newman.number].new
    assert res.new != as_0[newman.number].new  # the fixture tells the two rules apart
    assert estimates_by_round("nsa2008", players, games, LONG_ROUNDS) == estimates_by_round(
        "nsa2008", _with_career(players, newman.number, 100), games, LONG_ROUNDS
    )


@pytest.mark.django_db
def test_imported_newcomer_without_lifeg_is_estimated_with_100_games():
    tournament = import_tsh(LONG, rounds=LONG_ROUNDS)
    division = tournament.divisions.get()
    rows = {row["number"]: row for row in division_estimates(division)}
    tsh = read_t(LONG)
    players, games = rated_input(tsh)
    expected = estimates_by_round("nsa2008", _with_career(players, 4, 100), games, LONG_ROUNDS)
    assert division.entries.get(number=4).career_games is None
    assert rows[4]["by_round"] == expected[4]
