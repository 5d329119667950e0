"""The API's standings during a round: they count every game recorded so far and say so,
with the round in play and how many of its games are in (issue 18)."""

from __future__ import annotations

from rest_framework.test import APIClient

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services

DIV = "/api/v1/tournaments/api-open/divisions/a/standings/"


def _body(after: int | None = None) -> dict:
    url = DIV + (f"?after_round={after}" if after is not None else "")
    return APIClient().get(url).json()


def test_round_paired_with_no_result_is_in_progress_with_none_in(event):
    t, d = event  # round 1 scored, round 2 paired (2 games), none in
    body = _body()
    assert body["after_round"] == 2
    assert body["in_progress"] == {
        "round": 2,
        "scored_round": 1,
        "games": 2,
        "games_in": 0,
        "byes": 0,
        "forfeits": 0,
        "text": "after round 1; round 2: 0 of 2 games in",
    }


def test_partly_scored_round_counts_its_games_and_the_rows_count_them(event):
    t, d = event
    services.record_result(d, 2, 1, 400, 300)  # 1 beats 4; 2 v 3 not in
    body = _body()
    assert body["in_progress"]["games_in"] == 1 and body["in_progress"]["games"] == 2
    assert body["in_progress"]["text"] == "after round 1; round 2: 1 of 2 games in"
    rows = {r["number"]: r for r in body["rows"]}
    assert rows[1]["wins"] == 2 and rows[4]["losses"] == 1  # the recorded game counts
    assert rows[2]["wins"] + rows[2]["losses"] == 1  # the open game does not
    # asked for an earlier round, the division's round in play is still reported
    assert _body(1)["in_progress"]["round"] == 2


def test_complete_rounds_have_nothing_in_progress(event):
    t, d = event
    services.record_result(d, 2, 1, 400, 300)
    services.record_result(d, 2, 2, 390, 380)
    assert _body()["in_progress"] is None


def test_a_bye_is_not_a_game_to_wait_for(event):
    t, d = event
    services.record_result(d, 2, 1, 400, 300)
    services.record_result(d, 2, 2, 390, 380)
    services.register_player(d, name="Eads, Ed", rating=1400)
    save_round_pairings(d, 3, [PlannedGame(1, 2), PlannedGame(3, 4), PlannedGame(5, 0)])
    progress = _body()["in_progress"]
    assert (progress["round"], progress["games"], progress["games_in"]) == (3, 2, 0)
    # ...but it counts in the standings from its pairing on, and the text says so
    assert progress["byes"] == 1
    assert progress["text"] == "after round 2; round 3: 0 of 2 games in, 1 bye counted"
