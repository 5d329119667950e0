"""Bad input is refused with a message naming the player and round; nothing is rated."""

from __future__ import annotations

import datetime

import pytest

from ratings.engine import (
    MAX_GAME_SCORE,
    RatedEvent,
    RatedGame,
    RatedPlayer,
    RatingError,
    estimates_by_round,
    rate_event,
    replay,
    segment_plan,
)

PLAYERS = [RatedPlayer("ann", 1500, 100), RatedPlayer("bob", 1600, 100), RatedPlayer("cy", 1400)]


def rate(games, players=PLAYERS, rounds=5, system="nsa2008"):
    return rate_event(system, players, games, rounds)


def test_player_in_two_games_of_one_round():
    games = [RatedGame(2, "ann", "bob", 400, 300), RatedGame(2, "cy", "ann", 400, 300)]
    with pytest.raises(RatingError, match=r"round 2: player 'ann' plays twice"):
        rate(games)


def test_same_pair_twice_in_a_round():
    games = [RatedGame(1, "ann", "bob", 400, 300), RatedGame(1, "bob", "ann", 400, 300)]
    with pytest.raises(RatingError, match=r"round 1: player 'bob' plays twice"):
        rate(games)


@pytest.mark.parametrize(
    "scores", [(-50, 300), (400, -1), (MAX_GAME_SCORE + 1, 300), (400.5, 300), (True, 300)]
)
def test_score_pair_that_is_not_a_result(scores):
    with pytest.raises(RatingError, match=r"round 3: 'ann' v 'bob' .* is not a result"):
        rate([RatedGame(3, "ann", "bob", *scores)])


def test_unknown_player():
    with pytest.raises(RatingError, match=r"round 4: unknown player 'dee'"):
        rate([RatedGame(4, "ann", "dee", 400, 300)])


def test_player_paired_with_themself():
    with pytest.raises(RatingError, match=r"round 1: player 'ann' is paired with themself"):
        rate([RatedGame(1, "ann", "ann", 400, 300)])


def test_round_outside_the_event():
    with pytest.raises(RatingError, match=r"round 6: .* beyond the configured 5 rounds"):
        rate([RatedGame(6, "ann", "bob", 400, 300)])
    with pytest.raises(RatingError, match=r"round 0 is not a round number"):
        rate([RatedGame(0, "ann", "bob", 400, 300)])


def test_unknown_system():
    with pytest.raises(RatingError, match=r"unknown rating system 'elo'.*nsa2008"):
        rate([], system="elo")
    with pytest.raises(RatingError, match="unknown rating system"):
        estimates_by_round("ratings", PLAYERS, [], 5)


def test_player_listed_twice_and_bad_ratings():
    with pytest.raises(RatingError, match=r"player 'ann' is listed twice"):
        rate([], players=PLAYERS + [RatedPlayer("ann", 1500)])
    with pytest.raises(RatingError, match=r"player 'x': rating -3 is not a rating"):
        rate([], players=[RatedPlayer("x", -3)])
    with pytest.raises(RatingError, match=r"player 'x': rating 1500.5 is not a rating"):
        rate([], players=[RatedPlayer("x", 1500.5)])
    with pytest.raises(RatingError, match=r"player 'x': career games -1"):
        rate([], players=[RatedPlayer("x", 1500, -1)])


def test_bad_round_counts():
    with pytest.raises(RatingError, match="configured number of rounds"):
        segment_plan(0)
    with pytest.raises(RatingError, match="configured number of rounds"):
        rate([], rounds="12")
    with pytest.raises(RatingError, match="through_round 9 is not a round of a 5-round event"):
        estimates_by_round("nsa2008", PLAYERS, [], 5, through_round=9)


def test_replay_names_the_event():
    bad = RatedEvent("spring-open", datetime.date(2024, 4, 1), 2, [RatedGame(1, "a", "b", 400, -5)])
    with pytest.raises(RatingError, match=r"event 'spring-open' \(2024-04-01\): round 1"):
        replay([bad], {})
