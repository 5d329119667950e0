"""The console's pairing page on a round in play (issue 17 item 1): it lists the stored games
with the scored ones locked, swaps two players of unscored games (or the bye's player), and
re-pairs the unscored games with the engine; a locked player's swap is refused unchanged."""

from __future__ import annotations

import pytest

from pairings.services import add_schedule_range
from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent, Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    t = services.create_tournament(name="In Play", actor="test")
    d = services.create_division(t, name="A", rounds=4, actor="test")
    for k in range(7):
        services.register_player(d, name=f"Player, P{k + 1}", rating=1800 - 10 * k, actor="t")
    add_schedule_range(d, first_round=1, last_round=4, system="random", actor="t")
    save_round_pairings(
        d,
        1,
        [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(5, 6, board=3),
         PlannedGame(7, 0)],
        system="manual",
        actor="t",
    )  # fmt: skip
    services.record_result(d, 1, 1, 400, 350, actor="t")
    return t, d


@pytest.fixture
def td(client, event):
    client.force_login(make_director(event[0], "inplay-td"))
    return client


def stored(d):
    return sorted(
        (g.player1.number, g.player2.number if g.player2_id else 0, g.score1)
        for g in Game.objects.filter(round__division=d, round__number=1)
    )


def test_page_lists_locked_games_and_swaps_a_late_arrival_in(td, event):
    t, d = event
    base = f"/t/{t.slug}/console/{d.slug}/round/1/"
    page = td.get(base + "pair/")
    body = page.content.decode()
    assert "Change this round" in body and body.count("<strong>locked</strong>") == 1
    r = td.post(base + "change/", {"action": "swap", "a": "7", "b": "6"})
    assert r.status_code == 302
    assert stored(d) == [(1, 2, 400), (3, 4, None), (5, 7, None), (6, 0, 50)]
    assert AuditEvent.objects.latest("pk").action == "repair_unscored"
    before = stored(d)
    r = td.post(base + "change/", {"action": "swap", "a": "1", "b": "3"})
    assert r.status_code == 400
    assert "is scored" in r.content.decode()
    assert stored(d) == before
    r = td.post(base + "change/", {"action": "repair"})
    assert r.status_code == 302, r.content
    assert (1, 2, 400) in stored(d) and len(stored(d)) == 4


# Bye controls (issue 17: "give a late arrival the bye player's game, add/remove a bye").


def test_add_bye_gives_the_opponent_the_bye_players_game(td, event):
    t, d = event
    base = f"/t/{t.slug}/console/{d.slug}/round/1/"
    body = td.get(base + "pair/").content.decode()
    assert 'for="id_add_bye"' in body and 'for="id_remove_bye"' in body
    r = td.post(base + "change/", {"action": "add_bye", "player": "3"})
    assert r.status_code == 302, r.content
    assert stored(d) == [(1, 2, 400), (3, 0, 50), (4, 7, None), (5, 6, None)]
    event_ = AuditEvent.objects.latest("pk")
    assert event_.action == "repair_unscored"


def test_add_bye_without_a_bye_in_the_round_gives_both_players_one(td, event):
    t, d = event
    services.register_player(d, name="Late, Lou", rating=1500, actor="t")  # #8, missed round 1
    base = f"/t/{t.slug}/console/{d.slug}/round/1/"
    # The late arrival takes the bye player's game: 7's bye and 8's missed round become a game.
    r = td.post(base + "change/", {"action": "remove_bye", "player": "7"})
    assert r.status_code == 302, r.content
    assert stored(d) == [(1, 2, 400), (3, 4, None), (5, 6, None), (7, 8, None)]
    r = td.post(base + "change/", {"action": "add_bye", "player": "5"})
    assert r.status_code == 302, r.content
    assert stored(d) == [(1, 2, 400), (3, 4, None), (5, 0, 50), (6, 0, 50), (7, 8, None)]
    # A second latecomer: 5 could now play 6 (the other bye) or 9; the director must say.
    services.register_player(d, name="Later, Liv", rating=1400, actor="t")  # #9
    before = stored(d)
    r = td.post(base + "change/", {"action": "remove_bye", "player": "5"})
    assert r.status_code == 400
    assert "say who #5 plays instead of the bye: #6, #9" in r.content.decode()
    assert stored(d) == before
    r = td.post(base + "change/", {"action": "remove_bye", "player": "5", "opponent": "9"})
    assert r.status_code == 302
    assert stored(d) == [(1, 2, 400), (3, 4, None), (5, 9, None), (6, 0, 50), (7, 8, None)]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"action": "add_bye", "player": "1"}, "is scored"),
        ({"action": "add_bye", "player": "7"}, "#7 already has the bye"),
        ({"action": "add_bye", "player": "x7"}, "give the player to give the bye by number"),
        ({"action": "add_bye", "player": "99"}, "#99 is not a player of this round"),
        ({"action": "remove_bye", "player": "3"}, "#3 has no bye to remove"),
        ({"action": "remove_bye", "player": "7"}, "so #7 keeps the bye"),
        ({"action": "remove_bye", "player": "7", "opponent": "3"}, "#3 already has a game"),
        ({"action": "remove_bye", "player": "7", "opponent": "1"}, "is scored"),
        ({"action": "remove_bye", "player": "7", "opponent": "7"}, "two different players"),
        ({"action": "remove_bye", "player": "", "opponent": "3"}, "by number"),
    ],
)
def test_bye_controls_refuse_with_a_message_and_change_nothing(td, event, data, message):
    t, d = event
    before = stored(d)
    audits = AuditEvent.objects.count()
    r = td.post(f"/t/{t.slug}/console/{d.slug}/round/1/change/", data)
    assert r.status_code == 400
    assert message in r.content.decode()
    assert stored(d) == before and AuditEvent.objects.count() == audits


def test_bye_controls_are_for_directors_only(client, event):
    t, d = event
    before = stored(d)
    r = client.post(
        f"/t/{t.slug}/console/{d.slug}/round/1/change/", {"action": "add_bye", "player": "3"}
    )
    assert r.status_code in (302, 403, 404)
    assert stored(d) == before
