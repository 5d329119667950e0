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
