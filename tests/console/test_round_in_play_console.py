"""The console's pairing page on a round in play (issue 17 item 1): it lists the stored games
with the scored ones locked, swaps two players of unscored games (or the bye's player), and
re-pairs the unscored games with the engine; a locked player's swap is refused unchanged."""

from __future__ import annotations

import re

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


def confirm_repair(client, base):
    """Re-pair the unscored games as a director does: the changes first, then confirm them."""
    preview = client.post(base + "change/", {"action": "repair"}).content.decode()
    digest = re.search(r'name="expect" value="([0-9a-f]+)"', preview).group(1)
    return client.post(base + "change/", {"action": "repair", "expect": digest})


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
    r = confirm_repair(td, base)
    assert r.status_code == 302, r.content
    assert (1, 2, 400) in stored(d) and len(stored(d)) == 4


def test_a_late_arrival_is_paired_with_the_bye_player(td, event):
    """Registered while round 1 is in play, #8 has only a missed-round record for it; Pair
    them makes #8 play #7 (the bye): the bye and the missed round go, in one audit event."""
    t, d = event
    late = services.register_player(d, name="Late, Lou", rating=1500, actor="t")
    assert (8, 0, -50) in stored(d)  # the late entry's missed round, a forfeit loss
    base = f"/t/{t.slug}/console/{d.slug}/round/1/"
    page = td.get(base + "pair/").content.decode()
    assert 'class="change-pin"' in page and "late entry" in page
    assert page.count("<strong>locked</strong>") == 1  # the missed round is not locked
    events = AuditEvent.objects.count()
    r = td.post(base + "change/", {"action": "pin", "a": str(late.number), "b": "7"})
    assert r.status_code == 302, r.content
    assert stored(d) == [(1, 2, 400), (3, 4, None), (5, 6, None), (8, 7, None)]
    assert AuditEvent.objects.count() == events + 1
    assert AuditEvent.objects.latest("pk").action == "repair_unscored"
    page = td.get(base + "pair/").content.decode()
    assert "#8 Late, Lou" in page and "Round 1 of division A: #8 plays #7." in page


def test_pair_them_in_a_round_in_play_refuses_a_scored_player_and_bad_numbers(td, event):
    t, d = event
    base = f"/t/{t.slug}/console/{d.slug}/round/1/"
    before = (stored(d), AuditEvent.objects.count())
    for a, b, words in (
        ("7", "1", "is scored"),
        ("3", "4", "already play each other"),
        ("3", "x", "give two player numbers"),
        ("3", "9", "#9 is not a player of this round"),
    ):
        r = td.post(base + "change/", {"action": "pin", "a": a, "b": b})
        assert r.status_code == 400, (a, b)
        assert words in r.content.decode().replace("&#x27;", "'"), (a, b)
    assert (stored(d), AuditEvent.objects.count()) == before


def test_two_players_alone_are_paired_not_swapped_and_a_swap_keeps_a_missed_round(td, event):
    """Swapping the bye's player with a late arrival would only trade their records: refused.
    A swap elsewhere in the round keeps the late arrival's missed round exactly."""
    t, d = event
    services.register_player(d, name="Late, Lou", rating=1500, actor="t")
    base = f"/t/{t.slug}/console/{d.slug}/round/1/"
    before = (stored(d), AuditEvent.objects.count())
    r = td.post(base + "change/", {"action": "swap", "a": "8", "b": "7"})
    assert r.status_code == 400
    assert "pair them with each other instead" in r.content.decode()
    assert (stored(d), AuditEvent.objects.count()) == before
    r = td.post(base + "change/", {"action": "swap", "a": "4", "b": "6"})
    assert r.status_code == 302
    assert stored(d) == [(1, 2, 400), (3, 6, None), (5, 4, None), (7, 0, 50), (8, 0, -50)]


def test_repair_without_a_schedule_uses_the_system_the_round_was_paired_with(client, settings):
    """A round paired on the console with a system chosen there (no schedule range) is
    re-paired with that system, not refused for want of a schedule; an unscored game's
    result column is blank."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    t = services.create_tournament(name="No Schedule", actor="test")
    d = services.create_division(t, name="A", rounds=3, actor="test")
    for k in range(6):
        services.register_player(d, name=f"Player, Q{k + 1}", rating=1700 - 10 * k, actor="t")
    save_round_pairings(
        d,
        1,
        [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(5, 6, board=3)],
        system="swiss",
        actor="t",
    )
    services.record_result(d, 1, 1, 400, 350, actor="t")
    client.force_login(make_director(t, "nosched-td"))
    base = f"/t/{t.slug}/console/{d.slug}/round/1/"
    page = client.get(base + "pair/").content.decode()
    assert "None-None" not in page and "400-350" in page
    events = AuditEvent.objects.count()
    r = confirm_repair(client, base)
    assert r.status_code == 302, r.content.decode()
    assert AuditEvent.objects.count() == events + 1
    assert (1, 2, 400) in stored(d) and {n for g in stored(d) for n in g[:2]} == set(range(1, 7))


def test_registering_a_late_arrival_in_play_says_how_to_give_them_a_game(td, event):
    t, d = event
    r = td.post(
        f"/t/{t.slug}/console/{d.slug}/players/add/",
        {"name": "Late, Lou", "rating": "1500", "new": "on", "confirm": "on"},
        HTTP_HX_REQUEST="true",
    )
    body = r.content.decode()
    assert r.status_code == 200 and "Registered #8 Late, Lou" in body
    assert "Missed rounds 1: each a forfeit loss (-50)" in body
    assert "Round 1 is in play: to give them a game in it, use Pair them" in body


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


def test_re_pairing_shows_whose_opponent_changes_and_waits_for_confirmation(td, event):
    """One click re-paired a round in play, moving seated players with no warning (issue 31):
    now the click shows the players whose opponent would change, nothing stored; the
    confirmation stores exactly that, and a preview gone stale is refused unchanged."""
    t, d = event
    base = f"/t/{t.slug}/console/{d.slug}/round/1/"
    before, events = stored(d), AuditEvent.objects.count()
    preview = td.post(base + "change/", {"action": "repair"})
    body = preview.content.decode()
    assert preview.status_code == 200 and 'id="repair-preview"' in body
    assert (stored(d), AuditEvent.objects.count()) == (before, events)  # nothing yet
    rows = re.findall(
        r"<tr><td>#(\d+) [^<]*</td><td>[^<]*</td><td>([^<]*)</td><td>(?:#(\d+) [^<]*|bye)</td>",
        body,
    )
    assert rows and "change opponent" in body
    stale = td.post(base + "change/", {"action": "repair", "expect": "0" * 16})
    assert stale.status_code == 400
    assert "would now be re-paired differently from the preview" in stale.content.decode()
    assert 'id="repair-confirm"' in stale.content.decode()  # the changes as they are now
    assert (stored(d), AuditEvent.objects.count()) == (before, events)
    digest = re.search(r'name="expect" value="([0-9a-f]+)"', body).group(1)
    done = td.post(base + "change/", {"action": "repair", "expect": digest})
    assert done.status_code == 302
    after = {a: b for a, b, _ in stored(d)} | {b: a for a, b, _ in stored(d) if b}
    for number, _now, opponent in rows:  # each change happened as previewed
        assert after[int(number)] == (int(opponent) if opponent else 0)
    assert (1, 2, 400) in stored(d)
    assert AuditEvent.objects.count() == events + 1
