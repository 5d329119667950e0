"""`pair SLUG --round R --swap/--pin/--add-bye/--remove-bye`: the command line changes a round
in play the way the console's Change this round does (issue 17: every fix in every
interface), through the same pairing services: scored games stay exactly as recorded, each
change is one audit event, a refusal names what and where and changes nothing."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.models import AuditEvent, Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    t = services.create_tournament(name="Command In Play", actor="test")
    d = services.create_division(t, name="A", rounds=4, actor="test")
    for k in range(7):
        services.register_player(d, name=f"Player, P{k + 1}", rating=1800 - 10 * k, actor="t")
    games = [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(5, 6, board=3)]
    save_round_pairings(d, 1, [*games, PlannedGame(7, 0)], system="manual", actor="t")
    services.record_result(d, 1, 1, 400, 350, actor="t")
    return t, d


def stored(d):
    return sorted(
        (g.player1.number, g.player2.number if g.player2_id else 0, g.score1)
        for g in Game.objects.filter(round__division=d, round__number=1)
    )


def pair(t, *args: str) -> str:
    out = StringIO()
    call_command("pair", t.slug, "--round", "1", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_swap_exchanges_two_unscored_players_in_one_audit_event(event):
    t, d = event
    events = AuditEvent.objects.count()
    text = pair(t, "--swap", "4", "6")
    assert stored(d) == [(1, 2, 400), (3, 6, None), (5, 4, None), (7, 0, 50)]
    assert AuditEvent.objects.count() == events + 1
    assert "round 1 changed (swap)" in text and "400-350" in text


def test_a_late_arrival_takes_the_bye_players_game_by_pin_or_remove_bye(event):
    t, d = event
    services.register_player(d, name="Late, Lou", rating=1500, actor="t")  # #8, missed round 1
    assert (8, 0, -50) in stored(d)
    events = AuditEvent.objects.count()
    data = json.loads(pair(t, "--pin", "8", "7", "--json"))
    assert data["change"] == "pin" and data["round"] == 1
    assert stored(d) == [(1, 2, 400), (3, 4, None), (5, 6, None), (8, 7, None)]
    assert AuditEvent.objects.count() == events + 1
    pairs = {(g["player1"]["number"], (g["player2"] or {}).get("number", 0)) for g in data["games"]}
    assert pairs >= {(8, 7), (1, 2)}


def test_add_bye_then_remove_it_against_a_named_opponent(event):
    t, d = event
    pair(t, "--add-bye", "3")
    assert stored(d) == [(1, 2, 400), (3, 0, 50), (4, 7, None), (5, 6, None)]
    services.register_player(d, name="Late, Lou", rating=1500, actor="t")  # #8
    services.register_player(d, name="Later, Liv", rating=1400, actor="t")  # #9
    with pytest.raises(CommandError) as exc:
        pair(t, "--remove-bye", "3")
    assert "say who #3 plays instead of the bye: #8, #9" in str(exc.value)
    pair(t, "--remove-bye", "3", "--opponent", "9")
    assert stored(d) == [(1, 2, 400), (3, 9, None), (4, 7, None), (5, 6, None), (8, 0, -50)]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--swap", "1", "3"), "is scored"),
        (("--add-bye", "7"), "#7 already has the bye"),
        (("--remove-bye", "3"), "#3 has no bye to remove"),
        (("--pin", "3", "4"), "already play each other"),
        (("--swap", "3", "4", "--add-bye", "5"), "one change at a time"),
        (("--swap", "3", "5", "--force"), "--force re-pair a round"),
        (("--opponent", "3"), "--opponent goes with --remove-bye"),
        (("--pin", "3", "99"), "#99 is not a player of this round"),
    ],
)
def test_refusals_name_what_and_change_nothing(event, args, words):
    t, d = event
    before = (stored(d), AuditEvent.objects.count())
    with pytest.raises(CommandError) as exc:
        pair(t, *args)
    assert words in str(exc.value)
    assert (stored(d), AuditEvent.objects.count()) == before
