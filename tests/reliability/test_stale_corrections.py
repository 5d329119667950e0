"""Two corrections of one game made from the same view: the second is refused, not applied.

Before, corrections were applied one after the other and the last silently won: a director
who corrected 400-300 to 410-300 while a colleague corrected it to 400-310 undid the
colleague's fix without seeing it. A correction now carries what its maker saw (the console's
page and correction form keep it, the API takes ``seen``); a game that holds something else
by then is refused with ``result_changed_meanwhile``, naming the game and the scores stored.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tests.reliability.test_concurrency import POSTGRES, Writers, make_division, no_crash
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Game
from tournament.services.results import change_result, round_seen, seen_result

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def division(db):
    t = services.create_tournament(name="Stale Open", slug="stale-open", actor="test")
    d = services.create_division(t, name="A", rounds=3, actor="test")
    for n in range(1, 7):
        services.register_player(d, name=f"Player{n}, Test", rating=1500 + n, actor="test")
    save_round_pairings(
        d, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(5, 6, board=3)]
    )
    services.record_result(d, 1, 1, 400, 300)
    return d


def game_of(d, number: int = 1) -> Game:
    return Game.objects.select_related(
        "round__division__tournament", "player1__player", "player2__player"
    ).get(round__division=d, round__number=1, player1__number=number)


def corrections() -> int:
    return AuditEvent.objects.filter(action="correct_result").count()


def test_what_each_player_saw_reads_from_their_side(division):
    spread = abs(division.tournament.forfeit_spread)
    change_result(division, 1, 3, "forfeit", actor="test")
    games = list(Game.objects.filter(round__division=division).select_related("player1", "player2"))
    assert round_seen(games) == {
        1: "400 300",
        2: "300 400",
        3: f"-{spread} {spread}",
        4: f"{spread} -{spread}",
        5: "unplayed",
        6: "unplayed",
    }
    assert seen_result([game_of(division)], 2) == "300 400"


def test_a_correction_from_a_stale_view_is_refused_naming_the_stored_scores(division):
    services.correct_player_result(division, 1, 1, 410, 300, reason="card", seen="400 300")
    before = corrections()
    with pytest.raises(ServiceError) as caught:
        services.correct_player_result(division, 1, 1, 400, 310, reason="slip", seen="400 300")
    err = caught.value
    assert err.code == "result_changed_meanwhile"
    assert err.params["stored"] == "410 300" and err.params["seen"] == "400 300"
    assert "#1 Player1, Test v #2 Player2, Test changed since you looked" in str(err)
    assert "it now holds 410 300 (you saw 400 300)" in str(err)
    assert (game_of(division).score1, game_of(division).score2) == (410, 300)
    assert corrections() == before


def test_the_second_players_view_is_turned_to_the_games_order(division):
    # player 2 saw "300 400" (their score first): the same game, so the correction is applied
    services.correct_player_result(division, 1, 2, 310, 400, reason="card", seen="300 400")
    assert (game_of(division).score1, game_of(division).score2) == (400, 310)
    with pytest.raises(ServiceError) as caught:
        services.correct_player_result(division, 1, 2, 320, 400, reason="card", seen="300 400")
    assert caught.value.params["stored"] == "310 400"


def test_state_changes_check_the_view_too(division):
    spread = abs(division.tournament.forfeit_spread)
    change_result(division, 1, 1, "forfeit", reason="no show", actor="test", seen="400 300")
    before = corrections()
    with pytest.raises(ServiceError) as caught:
        change_result(division, 1, 1, "clear", reason="wrong game", actor="test", seen="400 300")
    assert caught.value.params["stored"] == f"-{spread} {spread}"
    rows = change_result(
        division, 1, 1, "scores", 400, 300, reason="came", actor="test", seen=f"-{spread} {spread}"
    )
    assert (rows[0].score1, rows[0].score2) == (400, 300)
    assert corrections() == before + 1


def test_without_a_view_a_correction_applies_as_before(division):
    services.correct_player_result(division, 1, 1, 410, 300, reason="card")
    services.correct_player_result(division, 1, 1, 420, 300, reason="card")
    assert game_of(division).score1 == 420


def _console(client, division):
    client.force_login(make_director(division.tournament, "td"))
    return reverse("console:results", args=(division.tournament.slug, division.slug, 1))


def test_the_console_correction_form_refuses_a_stale_view_and_offers_the_new_one(client, division):
    url = _console(client, division)
    opened = client.post(url, {"line": "1 410 300"}, **HTMX)  # already recorded: the form opens
    assert opened.status_code == 400
    assert 'name="seen" value="400 300"' in opened.content.decode()
    game = game_of(division)
    services.correct_result(game, 400, 310, reason="other desk", actor="test")
    body = {"game": game.pk, "seen": "400 300", "score1": 410, "score2": 300, "reason": "card"}
    refused = client.post(url + "correct/", body, **HTMX)
    html = refused.content.decode()
    assert refused.status_code == 400
    assert "it now holds 400 310 (you saw 400 300)" in html
    assert 'name="seen" value="400 310"' in html  # sent again, it is meant
    assert (game_of(division).score1, game_of(division).score2) == (400, 310)
    again = client.post(url + "correct/", {**body, "seen": "400 310"}, **HTMX)
    assert again.status_code == 200
    assert (game_of(division).score1, game_of(division).score2) == (410, 300)


def test_the_console_result_box_carries_the_round_as_shown(client, division):
    url = _console(client, division)
    page = client.get(url).content.decode()
    # each game's row carries its own part, so an answer that replaces a row replaces it
    for part in ("1=400 300|2=300 400", "3=unplayed|4=unplayed", "5=unplayed|6=unplayed"):
        assert f'name="seen" value="{part}" form="result-form"' in page
    services.correct_result(game_of(division), 400, 310, reason="other desk", actor="test")
    stale = ["1=400 300|2=300 400", "3=unplayed|4=unplayed"]  # one per row, as the page sends
    refused = client.post(url, {"line": "1 410 300: card", "seen": stale}, **HTMX)
    assert refused.status_code == 400
    answer = refused.content.decode()
    assert "it now holds 400 310 (you saw 400 300)" in answer
    # the game's row comes back as it is now, with what it now shows
    assert 'name="seen" value="1=400 310|2=310 400" form="result-form"' in answer
    assert (game_of(division).score1, game_of(division).score2) == (400, 310)
    fresh = client.post(url, {"line": "1 410 300: card", "seen": "1=400 310"}, **HTMX)
    assert fresh.status_code == 200
    assert (game_of(division).score1, game_of(division).score2) == (410, 300)


def test_the_api_correction_takes_seen(division):
    user = make_director(division.tournament, "apitd")
    client = APIClient()
    client.force_authenticate(user)
    url = f"/api/v1/tournaments/{division.tournament.slug}/divisions/{division.slug}/corrections/"
    services.correct_result(game_of(division), 400, 310, reason="other desk", actor="test")
    body = {"round": 1, "player": 1, "score": 410, "opp_score": 300, "reason": "card"}
    r = client.post(url, {**body, "seen": "400 300"}, format="json")
    assert r.status_code == 400, r.content
    err = r.json()["errors"][0]
    assert err["code"] == "result_changed_meanwhile"
    assert err["params"]["stored"] == "400 310"
    r = client.post(url, {**body, "seen": "400 310"}, format="json")
    assert r.status_code == 200, r.content
    assert (r.json()["score1"], r.json()["score2"]) == (410, 300)


@pytest.mark.django_db(transaction=True)
def test_four_desks_correct_one_game_from_one_view_one_wins(tmp_path):
    """Four processes released together, each having seen 400-300: exactly one correction is
    applied, the others are refused (on SQLite a writer may instead wait out the lock and be
    told the database is busy), and the stored result is the winner's."""
    _, d = make_division("Stale race", 4)
    services.record_result(d, 1, 1, 400, 300)
    plans = [
        [
            {
                "action": "correct",
                "division": d.pk,
                "player": 1,
                "score1": 410 + i,
                "score2": 300,
                "seen": "400 300",
            }
        ]
        for i in range(4)
    ]
    answers = Writers(tmp_path, plans).run()[0]
    no_crash(answers)
    won = [a for a in answers if a["ok"]]
    refused = [a for a in answers if not a["ok"]]
    assert len(won) == 1, answers
    codes = {a["code"] for a in refused}
    assert codes <= {"result_changed_meanwhile", "database_busy"}, codes
    if POSTGRES:
        assert codes == {"result_changed_meanwhile"}
    winner = 410 + won[0]["writer"]
    game = Game.objects.get(round__division=d, round__number=1, player1__number=1)
    assert (game.score1, game.score2) == (winner, 300)
    for a in refused:
        if a["code"] == "result_changed_meanwhile":
            assert a["params"]["stored"] == f"{winner} 300"
    assert AuditEvent.objects.filter(action="correct_result").count() == 1
