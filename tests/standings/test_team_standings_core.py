"""TSH's team standings (tournament/team_standings.py) on hand-made divisions.

Every expected value here was worked out by hand from TSH's rule (docs/rules.md, "Team
standings"): members' ranks in the division's standings, their wins, losses and spread added
up, games against other teams' players, teams ordered by mean rank, mean wins, mean losses,
mean spread, and a place shared only when member count, rank sum, wins, losses and spread are
all equal.
"""

from __future__ import annotations

import pytest

from tournament.standings import PlayerRound, StandingsPlayer, StandingsRow, compute_standings
from tournament.team_standings import compute_team_standings, team_name

# fixtures/teams/interclub.t as the pure core sees it: (number, name, rating, team)
PLAYERS = [
    (1, "Man, Anpan", 2000, "Good"),
    (2, "Ojisan, Jam", 1500, "Good"),
    (3, "Man, Baikin", 2000, "Evil"),
    (4, "Chan, Dokin", 1800, "Evil"),
    (5, "Kid, Curry", 1700, "St Mary's"),
    (6, "Pan, Melon", 1600, "St Mary's"),
]
# (round, player, score, opponent, opponent's score): each game once
GAMES = [
    (1, 1, 400, 3, 350),
    (1, 2, 380, 4, 380),
    (1, 5, 420, 6, 400),  # teammates
    (2, 1, 390, 5, 410),
    (2, 2, 300, 3, 450),
    (2, 4, 410, 6, 360),
    (3, 1, 450, 4, 400),
    (3, 2, 420, 6, 380),
    (3, 3, 390, 5, 390),
]
TEAMS = {number: team for number, _n, _r, team in PLAYERS}


def interclub_rounds() -> list[PlayerRound]:
    rounds = []
    for rnd, a, sa, b, sb in GAMES:
        rounds.append(PlayerRound(rnd, a, b, sa, sb))
        rounds.append(PlayerRound(rnd, b, a, sb, sa))
    return rounds


def interclub_team_standings(after_round: int):
    players = [StandingsPlayer(n, name, rating) for n, name, rating, _t in PLAYERS]
    rounds = interclub_rounds()
    rows = compute_standings(players, rounds, after_round=after_round)
    return compute_team_standings(rows, TEAMS, rounds, after_round=after_round)


def test_teams_level_on_mean_rank_are_ordered_by_mean_wins():
    # After round 3: Kid 2.5-0.5 (1st), Anpan 2-1 (2nd), Baikin 1.5 +100, Dokin 1.5 0,
    # Jam 1.5 -110, Melon 0-3: every team's ranks sum to 7, so mean wins decide.
    rows = interclub_team_standings(3)
    got = [
        (t.rank, t.team, t.members, t.ranks, t.wins, t.losses, t.spread, t.games_vs_others)
        for t in rows
    ]
    assert got == [
        (1, "Good", 2, [2, 5], 3.5, 2.5, -30, 6),
        (2, "Evil", 2, [3, 4], 3.0, 3.0, 100, 6),
        (3, "St Mary's", 2, [1, 6], 2.5, 3.5, -70, 4),  # their own game is not vs others
    ]
    assert [round(t.percent_vs_others, 2) for t in rows] == [58.33, 50.0, 37.5]
    assert [t.mean_rank for t in rows] == [3.5, 3.5, 3.5]
    assert [t.mean_wins for t in rows] == [1.75, 1.5, 1.25]


def test_after_round_one_the_mean_rank_orders_and_later_games_do_not_count():
    # After round 1: Anpan 1st, Kid 2nd, Jam and Dokin tied 3rd (380-380), Melon 5th,
    # Baikin 6th. Good 1+3, St Mary's 2+5, Evil 3+6.
    rows = interclub_team_standings(1)
    assert [(t.rank, t.team, t.ranks) for t in rows] == [
        (1, "Good", [1, 3]),
        (2, "St Mary's", [2, 5]),
        (3, "Evil", [3, 6]),
    ]
    assert [(t.wins_vs_others, t.games_vs_others) for t in rows] == [(1.5, 2), (0, 0), (0.5, 2)]
    assert [t.percent_vs_others for t in rows] == [75.0, 0.0, 25.0]


def row(number: int, rank: int | None, wins: float, losses: float, spread: int) -> StandingsRow:
    return StandingsRow(
        rank=rank,
        number=number,
        name=f"Player {number}",
        rating=1500,
        wins=wins,
        losses=losses,
        spread=spread,
        points_for=0,
        points_against=0,
        games=int(wins + losses),
        byes=0,
        forfeits=0,
        withdrawn=rank is None,
    )


def test_equal_teams_share_a_place_and_the_teamless_and_withdrawn_count_for_none():
    rows = [
        row(1, 1, 2, 0, 100),
        row(2, 4, 0, 2, -100),
        row(3, 2, 1, 1, 50),
        row(4, 3, 1, 1, -50),
        row(5, 5, 0, 2, -10),  # no team
        row(6, None, 0, 2, -100),  # withdrawn: in no team's count
    ]
    teams = {1: "B side", 2: "B side", 3: "A side", 4: "A side", 6: "A side"}
    rounds = [
        PlayerRound(1, 1, 2, 400, 300),  # teammates
        PlayerRound(1, 2, 1, 300, 400),
        PlayerRound(1, 3, 5, 400, 300),  # against a player of no team: vs others
        PlayerRound(1, 5, 3, 300, 400),
        PlayerRound(2, 1, 3, 350, 350),
        PlayerRound(2, 3, 1, 350, 350),
        PlayerRound(3, 2, 4, 420, 380),
        PlayerRound(3, 4, 2, 380, 420),
        PlayerRound(3, 6, None, -50, None),
    ]
    got = compute_team_standings(rows, teams, rounds, after_round=2)
    # both sides: 2 players, ranks summing to 5, 2-2, spread 0: one place, listed by name
    assert [(t.rank, t.team, t.members, t.ranks) for t in got] == [
        (1, "A side", 2, [2, 3]),
        (1, "B side", 2, [1, 4]),
    ]
    assert [(t.wins_vs_others, t.games_vs_others) for t in got] == [(1.5, 2), (0.5, 1)]
    everything = compute_team_standings(rows, teams, rounds)  # round 3's game counts too
    assert [(t.wins_vs_others, t.games_vs_others) for t in everything] == [(1.5, 3), (1.5, 2)]


def test_a_team_with_a_better_mean_but_more_members_keeps_its_own_place():
    # Three members ranked 1, 2, 6 (mean 3) ahead of two ranked 3, 4 (mean 3.5) ahead of one
    # ranked 5; a team's size changes its sums, never its place by itself.
    rows = [row(1, 1, 3, 0, 300), row(2, 2, 2, 1, 100), row(3, 3, 2, 1, 50)]
    rows += [row(4, 4, 1, 2, -50), row(5, 5, 1, 2, -100), row(6, 6, 0, 3, -300)]
    teams = {1: "Trio", 2: "Trio", 6: "Trio", 3: "Duo", 4: "Duo", 5: "Solo"}
    got = compute_team_standings(rows, teams, [])
    assert [(t.rank, t.team, t.mean_rank) for t in got] == [
        (1, "Trio", 3.0),
        (2, "Duo", 3.5),
        (3, "Solo", 5.0),
    ]


def test_the_mean_rank_comes_before_the_wins():
    # Ranked 2 and 3 (2-2 each: mean rank 2.5, 4 wins) is ahead of ranked 1 and 5 (4-0 and
    # 1-3: mean rank 3, 5 wins): TSH's team standings put places before games won.
    rows = [row(1, 1, 4, 0, 300), row(2, 2, 2, 2, 40), row(3, 3, 2, 2, 20)]
    rows += [row(4, 4, 2, 2, -60), row(5, 5, 1, 3, -300)]
    teams = {2: "Steady", 3: "Steady", 1: "Streaky", 5: "Streaky"}
    got = compute_team_standings(rows, teams, [])
    assert [(t.rank, t.team, t.wins) for t in got] == [(1, "Steady", 4), (2, "Streaky", 5)]


def test_no_team_no_team_standings():
    rows = [row(1, 1, 1, 0, 50), row(2, 2, 0, 1, -50)]
    assert compute_team_standings(rows, {}, []) == []
    assert compute_team_standings(rows, {1: "", 2: ""}, []) == []


@pytest.mark.parametrize(
    ("values", "name"),
    [(["Good"], "Good"), (["St", "Mary's"], "St Mary's"), ([], ""), (None, "")],
)
def test_a_team_name_is_its_field_words_joined_by_a_space(values, name):
    assert team_name(values) == name
