"""Every rating estimate TSH printed for a real 23-round NASPA event (naspa-2023-a.t)."""

from __future__ import annotations

import pytest

from ratings.engine import (
    RatedGame,
    RatedPlayer,
    estimates_by_round,
    rate_event,
    segment_plan,
)
from tournament.formats.tsh import TshPlayer, read_t

from .helpers import nsa_e

CONFIGURED_ROUNDS = 23


def rated_input(tsh: list[TshPlayer]) -> tuple[list[RatedPlayer], list[RatedGame]]:
    """Players (lifeg missing -> unknown career) and real games; byes and forfeits left out."""
    by_number = {p.number: p for p in tsh}
    players = [RatedPlayer(p.number, p.rating, p.lifeg) for p in tsh]
    games = []
    for p in tsh:
        for i, opp in enumerate(p.opponents):
            if not opp or opp < p.number:  # 0/None: bye or forfeit; each game once
                continue
            other = by_number[opp]
            assert other.opponents[i] == p.number
            games.append(RatedGame(i + 1, p.number, opp, p.scores[i], other.scores[i]))
    return players, games


@pytest.fixture(scope="module")
def event(real_data):
    tsh = read_t(real_data / "naspa-2023-a.t")
    players, games = rated_input(tsh)
    return tsh, players, games


def test_every_newr_value_reproduced(event):
    tsh, players, games = event
    est = estimates_by_round("nsa2008", players, games, CONFIGURED_ROUNDS)
    compared = 0
    mismatches = []
    for p in tsh:
        assert len(p.newr) == len(est[p.number]) == CONFIGURED_ROUNDS
        for r, (printed, ours) in enumerate(zip(p.newr, est[p.number], strict=True), start=1):
            compared += 1
            if printed != ours:
                mismatches.append((p.name, r, printed, ours))
    assert compared == 598
    assert mismatches == []


def test_final_rating_is_the_last_estimate(event):
    tsh, players, games = event
    res = rate_event("nsa2008", players, games, CONFIGURED_ROUNDS)
    assert {p.number: res[p.number].new for p in tsh} == {p.number: p.newr[-1] for p in tsh}
    # The withdrawn player's forfeits and the byes are not rated games.
    keras = next(p for p in tsh if p.off is not None)
    assert res[keras.number].new_games - res[keras.number].old_games == 19
    assert [(s.first_round, s.last_round) for s in res[1].segments] == segment_plan(23)


def test_explanation_matches_the_formula(event):
    tsh, players, games = event
    res = rate_event("nsa2008", players, games, CONFIGURED_ROUNDS)
    first, second = res[1].segments
    assert second.rating_in == first.rating_out
    for seg in (first, second):
        for g in seg.game_details:
            assert g.expected == pytest.approx(nsa_e(seg.rating_in - g.opponent_rating))
        assert sum(g.actual for g in seg.game_details) == seg.actual
    assert res[1].actual == sum(s.actual for s in res[1].segments)


def test_estimates_cut_segments_by_configured_rounds(event):
    """After round 17 TSH still splits 12/11, not 9/8 as a 17-round event would."""
    tsh, players, games = event
    est = estimates_by_round("nsa2008", players, games, CONFIGURED_ROUNDS, through_round=17)
    assert all(len(v) == 17 for v in est.values())
    played17 = [g for g in games if g.round <= 17]
    as_17 = rate_event("nsa2008", players, played17, 17)
    as_23 = rate_event("nsa2008", players, played17, CONFIGURED_ROUNDS)
    assert {p: est[p][-1] for p in est} == {p: as_23[p].new for p in as_23}
    assert {p: est[p][-1] for p in est} != {p: as_17[p].new for p in as_17}
    assert [p.newr[16] for p in tsh] == [est[p.number][-1] for p in tsh]


def test_other_systems_give_estimates_of_the_right_shape(event):
    tsh, players, games = event
    for name in ("naspa2024", "wespa-tsh", "aus", "club-third", "absp", "glicko2"):
        est = estimates_by_round(name, players, games, CONFIGURED_ROUNDS, through_round=3)
        final = rate_event(name, players, [g for g in games if g.round <= 3], CONFIGURED_ROUNDS)
        assert {p: v[-1] for p, v in est.items()} == {p: r.new for p, r in final.items()}, name
        assert all(len(v) == 3 for v in est.values())
