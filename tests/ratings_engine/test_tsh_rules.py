"""Rating rules read from TSH's source (docs/ratings.md cites the module and routine of each).

Each rule has a hand-made fixture in fixtures/tsh/ (see its README) small enough to follow by
hand; the test compares Gibson with the rule, never with numbers fitted to a file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ratings.division import division_estimates
from ratings.engine import (
    RatedGame,
    RatedPlayer,
    estimates_by_round,
    rate_event,
    round_half_up,
    segment_plan,
)
from tournament.formats.tsh import read_t
from tournament.interchange.imports import import_tsh

from .helpers import nsa_e
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


MEET = FIXTURES / "newcomers-meet.t"


def test_newcomer_who_met_only_newcomers_is_capped_by_the_best_ones_estimate():
    # Ratings::Elo::RateNewcomersCorrectly: with no rated opponent, the cap is the best
    # newcomer opponent's current estimate + 400 x wins / games. Newman beats Novak (both
    # unrated) in every round; uncapped she would search to 2424 against Novak's 1500 seed.
    # The hand trace (fixtures/tsh/README.md) settles at Novak 500 (the floor), Newman 900.
    tsh = read_t(MEET)
    players, games = rated_input(tsh)
    res = rate_event("nsa2008", players, games, 3)
    newman, novak = res[3], res[4]
    assert (newman.new, novak.new) == (900, 500)
    assert newman.segments[0].performance_cap == 900  # Novak's 500 + 400 x 3/3
    assert novak.segments[0].performance_cap is None
    est = estimates_by_round("nsa2008", players, games, 3)
    assert est[3] == [900, 900, 900] and est[4] == [500, 500, 500]
    # The rated pair's games are their own: Able and Baker are rated as before.
    assert (res[1].new, res[2].new) == (1601, 1399)


def test_a_rated_opponent_still_sets_the_cap():
    # maxror wins over maxuor: with one rated opponent the cap is that opponent's pre-event
    # rating + 400 x wins / games, whatever the newcomer opponents' estimates.
    players = [RatedPlayer("a", 1000, 100), RatedPlayer("n1", None), RatedPlayer("n2", None)]
    games = [
        RatedGame(1, "n1", "a", 400, 300),
        RatedGame(2, "n1", "n2", 400, 300),
        RatedGame(3, "n2", "a", 400, 300),
    ]
    res = rate_event("nsa2008", players, games, 3)
    assert res["n1"].new == 1400  # 1000 + 400 x 2/2
    assert res["n1"].segments[0].performance_cap == 1400


def _search(opps: list[float], wins: float) -> int:
    """The spec's binary search (rule 7), written out independently of the engine."""
    lo, hi, mid = 0, 3000, 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if sum(nsa_e(mid - o) for o in opps) > wins:
            hi = mid
        else:
            lo = mid
    return mid


def test_newcomers_are_revised_together_and_averaged_when_they_do_not_settle():
    # RateNewcomersCorrectly works from the previous pass's values (CopyField after each
    # pass), so two newcomers who only met each other (n1 wins 2 of 3) swing between two
    # states and never settle; TSH then runs 50 more passes and keeps each one's mean.
    # Revising one at a time (each seeing the other's newest value) would settle at once,
    # near 1717 / 1500.
    players = [RatedPlayer("a", 1600, 100), RatedPlayer("b", 1400, 100)]
    players += [RatedPlayer("n1", None), RatedPlayer("n2", None)]
    games = []
    for rnd, (s1, s2) in enumerate([(400, 300), (300, 400), (400, 300)], start=1):
        games += [RatedGame(rnd, "a", "b", 400, 300), RatedGame(rnd, "n1", "n2", s1, s2)]
    res = rate_event("nsa2008", players, games, 3)

    n1, n2 = 1500.0, 1500.0
    seen = []
    for _ in range(50):
        n1, n2 = max(_search([n2] * 3, 2), 500), max(_search([n1] * 3, 1), 500)
        seen.append((n1, n2))
    # a two-state swing: the first 50 passes do not settle
    assert seen[-1] != seen[-2] and seen[-1] == seen[-3]
    total1 = total2 = 0.0
    for _ in range(50):
        n1, n2 = max(_search([n2] * 3, 2), 500), max(_search([n1] * 3, 1), 500)
        total1, total2 = total1 + n1, total2 + n2
    assert (res["n1"].new, res["n2"].new) == (
        round_half_up(total1 / 50),
        round_half_up(total2 / 50),
    )
    assert abs(res["n1"].new - 1609) <= 2 and abs(res["n2"].new - 1392) <= 2
