"""Standings from games: the real NASPA files, and one unit test per rule in docs/rules.md."""

from __future__ import annotations

import pytest

from tests.conftest import REAL_DATA
from tournament.formats.tsh import read_t, standings_input
from tournament.standings import (
    PlayerRound,
    StandingsPlayer,
    compute_standings,
    is_withdrawn_after,
    name_tiebreak,
)

DATA = REAL_DATA


# --- real data ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def naspa_2023():
    players = read_t(DATA / "naspa-2023-a.t")
    return players, *standings_input(players)


@pytest.mark.parametrize("after_round", range(0, 24))  # 0: the seeding, rrank[0]
def test_ranks_equal_tsh_rrank_after_every_round(naspa_2023, after_round):
    players, entrants, rounds = naspa_2023
    rows = compute_standings(entrants, rounds, after_round=after_round)
    active = [r for r in rows if not r.withdrawn]
    assert len(active) == (26 if after_round < 20 else 25)
    for row in active:
        assert row.rank == players[row.number - 1].rrank[after_round], (after_round, row)
    # rows come out in rank order
    assert [r.rank for r in active] == sorted(r.rank for r in active)


def test_withdrawn_player_leaves_the_ranking_at_her_first_forfeit(naspa_2023):
    players, entrants, rounds = naspa_2023
    keras = players[15]
    before = compute_standings(entrants, rounds, after_round=19)
    assert [r.number for r in before if r.withdrawn] == []
    assert next(r for r in before if r.number == 16).rank == keras.rrank[19] == 24
    for after_round in (20, 21, 22, 23):
        rows = compute_standings(entrants, rounds, after_round=after_round)
        assert rows[-1].number == 16 and rows[-1].withdrawn and rows[-1].rank is None
        assert rows[-1].forfeits == after_round - 19
        assert max(r.rank for r in rows[:-1]) <= 25
    # TSH wrote no rank for her after rounds 21-23
    assert len(keras.rrank) == 21


@pytest.mark.parametrize("name", ["naspa-2023-a.t", "naspa-2006-b.t"])
def test_final_standings_consistent_with_games(name):
    players = read_t(DATA / name)
    entrants, rounds = standings_input(players)
    rows = compute_standings(entrants, rounds)
    n_rounds = len(players[0].opponents)
    by_number = {r.number: r for r in rows}
    for p in players:
        row = by_number[p.number]
        byes = sum(1 for o, s in zip(p.opponents, p.scores, strict=True) if o == 0 and s > 0)
        forfeits = sum(1 for o, s in zip(p.opponents, p.scores, strict=True) if o == 0 and s < 0)
        assert row.wins + row.losses == n_rounds
        assert row.games + row.byes + row.forfeits == n_rounds
        assert (row.byes, row.forfeits) == (byes, forfeits)
        games = [
            (s, players[o - 1].scores[r])
            for r, (o, s) in enumerate(zip(p.opponents, p.scores, strict=True))
            if o
        ]
        assert row.points_for == sum(s for s, _ in games)
        assert row.points_against == sum(t for _, t in games)
        assert (
            row.wins
            == sum(1 for s, t in games if s > t) + sum(0.5 for s, t in games if s == t) + byes
        )
    # Every game is won by one player and lost by the other: the wins of games equal the
    # losses of games, and spreads cancel except for byes and forfeits.
    bye_spread = sum(
        s for p in players for o, s in zip(p.opponents, p.scores, strict=True) if o == 0
    )
    assert sum(r.spread for r in rows) == bye_spread
    assert sum(r.points_for for r in rows) == sum(r.points_against for r in rows)
    total_byes = sum(r.byes for r in rows)
    total_forfeits = sum(r.forfeits for r in rows)
    assert sum(r.wins for r in rows) - total_byes == sum(r.losses for r in rows) - total_forfeits
    # ranks are 1..n competition ranks in order
    ranks = [r.rank for r in rows if not r.withdrawn]
    assert ranks[0] == 1 and ranks == sorted(ranks)
    for i, (a, b) in enumerate(zip(rows, rows[1:], strict=False)):
        if b.withdrawn:
            break
        same = (a.wins, a.losses, a.spread) == (b.wins, b.losses, b.spread)
        assert (b.rank == a.rank) if same else (b.rank == i + 2)


def test_2006_leader_after_14_rounds():
    players = read_t(DATA / "naspa-2006-b.t")
    rows = compute_standings(*standings_input(players), after_round=14)
    assert len(rows) == 109
    top = rows[0]
    assert all((top.wins, -top.losses, top.spread) >= (r.wins, -r.losses, r.spread) for r in rows)


# --- unit rules -----------------------------------------------------------------------------


def game(rnd, a, b, sa, sb):
    """Both players' views of one game."""
    return [PlayerRound(rnd, a, b, sa, sb), PlayerRound(rnd, b, a, sb, sa)]


def bye(rnd, p, score):
    return [PlayerRound(rnd, p, None, score, None)]


def P(number, rating=1500, name=None, withdrawn_round=None):
    return StandingsPlayer(number, name or f"Player {number}", rating, withdrawn_round)


def rows_by_number(rows):
    return {r.number: r for r in rows}


def test_win_loss_and_spread():
    rows = compute_standings([P(1), P(2)], game(1, 1, 2, 400, 350))
    assert [(r.number, r.rank, r.wins, r.losses, r.spread) for r in rows] == [
        (1, 1, 1, 0, 50),
        (2, 2, 0, 1, -50),
    ]
    assert (rows[0].points_for, rows[0].points_against, rows[0].games) == (400, 350, 1)


def test_tie_is_half_a_win_and_half_a_loss_and_shares_rank():
    rows = compute_standings([P(1, 1600), P(2, 1500)], game(1, 1, 2, 380, 380))
    assert [(r.wins, r.losses, r.spread, r.rank) for r in rows] == [
        (0.5, 0.5, 0, 1),
        (0.5, 0.5, 0, 1),
    ]
    assert [r.number for r in rows] == [1, 2]  # rating decides the order, not the rank


def test_competition_ranks_1_2_2_4():
    players = [P(n, 2000 - n) for n in range(1, 5)]
    rounds = game(1, 1, 4, 500, 300) + game(1, 2, 3, 400, 400)
    rows = compute_standings(players, rounds)
    assert [(r.number, r.rank) for r in rows] == [(1, 1), (2, 2), (3, 2), (4, 4)]


def test_losses_break_ties_between_different_numbers_of_games():
    # 1 has played two games (1-1), 2 has played one (1-0): 2 is ahead on losses.
    players = [P(1, 2000), P(2, 1000), P(3), P(4)]
    rounds = game(1, 1, 3, 500, 300) + game(2, 1, 3, 300, 310) + game(1, 2, 4, 301, 300)
    rows = compute_standings(players, rounds)
    assert [r.number for r in rows][:2] == [2, 1]


def test_bye_is_a_win_with_its_spread():
    rows = rows_by_number(compute_standings([P(1)], bye(1, 1, 50)))
    assert (rows[1].wins, rows[1].losses, rows[1].spread, rows[1].byes) == (1, 0, 50, 1)
    assert (rows[1].games, rows[1].points_for) == (0, 0)


def test_forfeit_is_a_loss_and_zero_bye_is_neither():
    rows = rows_by_number(compute_standings([P(1), P(2)], bye(1, 1, -50) + bye(1, 2, 0)))
    assert (rows[1].wins, rows[1].losses, rows[1].spread, rows[1].forfeits) == (0, 1, -50, 1)
    assert (rows[2].wins, rows[2].losses, rows[2].spread, rows[2].byes) == (0, 0, 0, 0)


def test_spread_cap_clips_each_game_and_byes():
    players = [P(1), P(2), P(3)]
    rounds = game(1, 1, 2, 600, 200) + bye(1, 3, 100) + game(2, 1, 3, 300, 350) + bye(2, 2, 50)
    rows = rows_by_number(compute_standings(players, rounds, spread_cap=75))
    assert rows[1].spread == 75 - 50
    assert rows[2].spread == -75 + 50
    assert rows[3].spread == 75 + 50


def test_spread_cap_per_round():
    players = [P(1), P(2)]
    rounds = game(1, 1, 2, 600, 200) + game(2, 1, 2, 600, 200)
    rows = rows_by_number(compute_standings(players, rounds, spread_cap={2: 100}))
    assert rows[1].spread == 400 + 100
    # as read from config.tsh, where hash keys are strings
    rows = rows_by_number(compute_standings(players, rounds, spread_cap={"1": 150}))
    assert rows[1].spread == 150 + 400
    with pytest.raises(ValueError, match="round 1: spread cap -5"):
        compute_standings(players, rounds, spread_cap=-5)


def test_standings_spread_cap_ranks_on_capped_but_shows_real_spread():
    # 1 and 2 are both 1-0, 1 by 400 and 2 by 150: equal once capped at 100.
    players = [P(1, 1000), P(2, 2000), P(3), P(4)]
    rounds = game(1, 1, 3, 700, 300) + game(1, 2, 4, 450, 300)
    capped = compute_standings(players, rounds, spread_cap=100, standings_spread_cap=True)
    assert [(r.number, r.spread, r.rank) for r in capped[:2]] == [(2, 150, 1), (1, 400, 1)]
    plain = compute_standings(players, rounds)
    assert [r.number for r in plain[:2]] == [1, 2]
    shown_capped = compute_standings(players, rounds, spread_cap=100)
    assert [r.spread for r in shown_capped[:2]] == [100, 100]


def test_sum_before_spread():
    players = [P(1), P(2), P(3), P(4)]
    rounds = game(1, 1, 3, 400, 300) + game(1, 2, 4, 550, 500)
    assert [r.number for r in compute_standings(players, rounds)][:2] == [1, 2]
    rows = compute_standings(players, rounds, sum_before_spread=True)
    assert [(r.number, r.rank) for r in rows[:2]] == [(2, 1), (1, 2)]


def test_partly_scored_round_counts_only_finished_games():
    players = [P(1), P(2), P(3), P(4)]
    rounds = game(1, 1, 2, 400, 300) + game(1, 3, 4, 420, 300)
    rounds += [PlayerRound(2, 1, 3, None, None), PlayerRound(2, 3, 1, None, None)]
    rounds += [PlayerRound(2, 2, 4, 380, None), PlayerRound(2, 4, 2, None, 380)]  # half entered
    rows = rows_by_number(compute_standings(players, rounds, after_round=2))
    assert [rows[n].games for n in (1, 2, 3, 4)] == [1, 1, 1, 1]
    assert rows[2].wins == 0 and rows[2].losses == 1


def test_after_round_ignores_later_rounds():
    players = [P(1), P(2)]
    rounds = game(1, 1, 2, 400, 300) + game(2, 1, 2, 300, 500)
    after1 = rows_by_number(compute_standings(players, rounds, after_round=1))
    after2 = rows_by_number(compute_standings(players, rounds, after_round=2))
    assert (after1[1].wins, after1[1].spread) == (1, 100)
    assert (after2[1].wins, after2[1].spread) == (1, -100)


def test_withdrawn_player_ranked_before_and_unranked_from_withdrawn_round():
    players = [P(1), P(2), P(3, 2200, withdrawn_round=2)]
    rounds = game(1, 3, 1, 500, 300) + bye(1, 2, 50) + game(2, 1, 2, 400, 350) + bye(2, 3, -50)
    after1 = compute_standings(players, rounds, after_round=1)
    assert [(r.number, r.rank) for r in after1] == [(3, 1), (2, 2), (1, 3)]
    after2 = compute_standings(players, rounds, after_round=2)
    assert [(r.number, r.rank, r.withdrawn) for r in after2] == [
        (2, 1, False),
        (1, 2, False),
        (3, None, True),
    ]
    assert after2[-1].wins == 1 and after2[-1].losses == 1
    assert is_withdrawn_after(players[2], None) and not is_withdrawn_after(players[0], None)


def test_random_tiebreak_is_fixed_per_name_and_not_pythons_hash():
    a, b = P(1, 1500, "Adams, Ann"), P(2, 1500, "Baker, Bob")
    first = [r.number for r in compute_standings([a, b], [])]
    second = [r.number for r in compute_standings([b, a], [])]
    assert first == second
    expected = sorted([a, b], key=lambda p: name_tiebreak(p.name))
    assert first == [p.number for p in expected]
    assert name_tiebreak("Adams, Ann") == name_tiebreak("Adams, Ann")
    assert name_tiebreak("Adams, Ann") != name_tiebreak("Adams, Anne")
    # the known digest, so a change of seed cannot go unnoticed
    assert name_tiebreak("") == 0xE3B0C44298FC1C14


def test_rating_breaks_ties_before_the_name():
    rows = compute_standings([P(1, 1400, "Zed"), P(2, 1800, "Amy")], [])
    assert [r.number for r in rows] == [2, 1]


def test_bad_rounds_are_refused():
    with pytest.raises(ValueError, match="unknown player 9"):
        compute_standings([P(1)], bye(1, 9, 50))
    with pytest.raises(ValueError, match="two results"):
        compute_standings([P(1)], bye(1, 1, 50) + bye(1, 1, 50))
    with pytest.raises(ValueError, match="unknown opponent"):
        compute_standings([P(1)], [PlayerRound(1, 1, 5, 400, 300)])
    with pytest.raises(ValueError, match="share a player number"):
        compute_standings([P(1), P(1)], [])
