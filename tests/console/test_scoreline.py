"""The console's result line, read without a database (tournament.scoreline is a pure core)."""

from __future__ import annotations

import pytest

from tournament.scoreline import (
    BOARD,
    FORFEIT,
    MAX_SCORE,
    PAIR,
    PLAYER,
    ScoreLine,
    ScoreLineError,
    low_scores,
    parse_score_line,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3 412 389", ScoreLine(PLAYER, 412, 389, player=3, text="3 412 389")),
        ("3 412 17 389", ScoreLine(PAIR, 412, 389, player=3, opponent=17, text="3 412 17 389")),
        ("b12 412 389", ScoreLine(BOARD, 412, 389, board=12, text="b12 412 389")),
        ("B12 412 389", ScoreLine(BOARD, 412, 389, board=12, text="B12 412 389")),
        ("3 f", ScoreLine(FORFEIT, player=3, text="3 f")),
        ("3 F", ScoreLine(FORFEIT, player=3, text="3 F")),
        ("3 forfeit", ScoreLine(FORFEIT, player=3, text="3 forfeit")),
        ("  3   412\t389 ", ScoreLine(PLAYER, 412, 389, player=3, text="3 412 389")),
        ("3 0 1500", ScoreLine(PLAYER, 0, 1500, player=3, text="3 0 1500")),
        ("3 400 400", ScoreLine(PLAYER, 400, 400, player=3, text="3 400 400")),
    ],
)
def test_each_form_reads(text, expected):
    assert parse_score_line(text) == expected


def test_scores_in_line_order():
    assert parse_score_line("3 412 17 389").scores == (412, 389)
    assert parse_score_line("3 f").scores is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "type a result"),
        ("   ", "type a result"),
        ("3", "give the scores too"),
        ("3 412", "3 412 389"),  # one score: the forms are named
        ("3 412 17 389 5", "5 items"),
        ("x 412 389", "player number 'x'"),
        ("0 412 389", "player number '0'"),
        ("3 4l2 389", "'4l2' is not a whole number"),
        ("3 412 abc", "'abc' is not a whole number"),
        ("3 412 x 389", "opponent's number 'x'"),
        ("3 412 3 389", "cannot play against themselves"),
        ("b 412 389", "start with a player number or b and a board"),
        ("b0 412 389", "board '0'"),
        ("bx 412 389", "start with a player number"),
        ("b12 412", "give both scores"),
        ("b12 f", "name the player who forfeits"),
        ("f 3", "start with a player number"),
        ("3 ² 389", "not a whole number"),  # str.isdigit() is True for '²', int() refuses it
        ("３ 412 389", "player number"),  # a full-width digit is not a player number
    ],
)
def test_bad_lines_say_what_is_wrong(text, message):
    with pytest.raises(ScoreLineError) as info:
        parse_score_line(text)
    assert message in info.value.message
    assert info.value.code == "bad_line"


@pytest.mark.parametrize(
    ("text", "score"),
    [("3 1501 389", 1501), ("3 412 -5", -5), ("b2 412 99999", 99999), ("3 412 17 1600", 1600)],
)
def test_scores_outside_0_to_1500_are_refused(text, score):
    with pytest.raises(ScoreLineError) as info:
        parse_score_line(text)
    assert info.value.code == "score_out_of_range"
    assert info.value.params["score"] == score
    assert f"{score} is outside 0..1500" in info.value.message


def test_max_score_matches_the_models():
    """The pure core repeats the limit; the models' constant must say the same."""
    from tournament.models import MAX_ABS_SCORE

    assert MAX_SCORE == MAX_ABS_SCORE


def test_low_scores_are_flagged():
    assert low_scores(parse_score_line("3 412 99")) == [99]
    assert low_scores(parse_score_line("3 100 389")) == []
    assert low_scores(parse_score_line("3 f")) == []
