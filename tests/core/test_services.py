"""The service layer: rules of docs/rules.md, the audit trail, refusals that change nothing."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from pairings.services.store import (
    PlannedGame,
    delete_round_pairings,
    save_round_pairings,
    set_pairing,
)
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Game, Seat
from tournament.selectors import division_by_name, division_standings, tournament_by_slug

pytestmark = pytest.mark.django_db


@pytest.fixture
def division():
    t = services.create_tournament(name="Club Night", actor="test")
    d = services.create_division(t, name="A", rounds=3, actor="test")
    for i, (name, rating) in enumerate(
        [("Able, Ann", 1800), ("Baker, Bo", 1700), ("Cole, Cy", 1600), ("Dunn, Di", 1500)], 1
    ):
        e = services.register_player(d, name=name, rating=rating, actor="test")
        assert e.number == i
    return d


def pair_round_1(division):
    return save_round_pairings(
        division,
        1,
        [PlannedGame(1, 3, board=1), PlannedGame(2, 4, board=2)],
        system="manual",
        actor="test",
    )


def test_realm_preset_fills_defaults_and_fields_override():
    wespa = services.create_tournament(name="Worlds", realm="wespa")
    assert (wespa.bye_spread, wespa.forfeit_spread) == (100, -100)
    own = services.create_tournament(name="Own", realm="wespa", bye_spread=75)
    assert own.bye_spread == 75
    assert own.slug == "own"
    again = services.create_tournament(name="Own")
    assert again.slug == "own-2"


def test_bad_tournament_input_is_refused():
    with pytest.raises(ServiceError, match="realm 'xx'"):
        services.create_tournament(name="X", realm="xx")
    with pytest.raises(ServiceError, match="name"):
        services.create_tournament(name="  ")
    with pytest.raises(ServiceError, match="unknown setting"):
        services.create_tournament(name="X", colour="red")


def test_record_and_standings(division):
    pair_round_1(division)
    services.record_result(division, 1, 3, 420, 380, actor="test")
    services.record_result(division, 1, 2, 400, 400, actor="test")
    rows = {r.number: r for r in division_standings(division)}
    assert (rows[3].wins, rows[3].spread, rows[3].rank) == (1, 40, 1)
    assert (rows[2].wins, rows[2].losses, rows[4].wins) == (0.5, 0.5, 0.5)
    assert rows[1].rank == 4
    game = Game.objects.get(round__number=1, player1__number=1)
    assert (game.score1, game.score2) == (380, 420)  # stored from player 1's side
    assert AuditEvent.objects.filter(action="record_result").count() == 2


def test_second_result_for_a_game_is_refused(division):
    pair_round_1(division)
    services.record_result(division, 1, 1, 400, 300)
    with pytest.raises(ServiceError, match="already has a result"):
        services.record_result(division, 1, 3, 350, 300)
    game = Game.objects.get(round__number=1, player1__number=1)
    assert (game.score1, game.score2) == (400, 300)


@pytest.mark.parametrize(
    ("score", "opp", "message"),
    [
        (1600, 300, "outside 0..1500"),
        (-5, 300, "negative scores are only"),
        ("abc", 300, "not a whole number"),
        (400, None, "needs both scores"),
    ],
)
def test_bad_scores_are_refused_and_change_nothing(division, score, opp, message):
    pair_round_1(division)
    before = AuditEvent.objects.count()
    with pytest.raises(ServiceError, match=message):
        services.record_result(division, 1, 1, score, opp)
    assert not Game.objects.filter(score1__isnull=False, player2__isnull=False).exists()
    assert AuditEvent.objects.count() == before


def test_result_for_player_not_in_round(division):
    set_pairing(division, 1, 1, 2)
    with pytest.raises(ServiceError, match="#3 Cole, Cy is not paired in this round"):
        services.record_result(division, 1, 3, 400, 300)
    with pytest.raises(ServiceError, match="no player number 9"):
        services.record_result(division, 1, 9, 400, 300)


def test_correct_result_needs_reason_and_is_audited(division):
    pair_round_1(division)
    game = services.record_result(division, 1, 1, 400, 300)
    with pytest.raises(ServiceError, match="needs a reason"):
        services.correct_result(game, 300, 400, reason="")
    services.correct_result(game, 300, 400, reason="scores swapped on the slip", actor="td")
    event = AuditEvent.objects.filter(action="correct_result").get()
    assert event.before["score1"] == 400 and event.after["score1"] == 300
    assert event.reason == "scores swapped on the slip" and event.actor == "td"


def test_player_twice_in_a_round_is_refused(division):
    set_pairing(division, 1, 1, 2)
    with pytest.raises(ServiceError, match="already paired"):
        set_pairing(division, 1, 2, 3)
    with pytest.raises(ServiceError, match="paired twice"):
        save_round_pairings(division, 2, [PlannedGame(1, 2), PlannedGame(2, 3)])
    assert not Game.objects.filter(round__number=2).exists()


def test_database_refuses_double_booking_even_past_the_services(division):
    set_pairing(division, 1, 1, 2)
    rnd = division.round_set.get(number=1)
    e1, e3 = division.entries.get(number=1), division.entries.get(number=3)
    with pytest.raises(IntegrityError), transaction.atomic():
        Game(round=rnd, player1=e3, player2=e1).save()
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(round=rnd, player1=e3, player2=e3)
    assert Seat.objects.filter(round=rnd).count() == 2


def test_game_against_self_refused(division):
    with pytest.raises(ServiceError, match="against themselves"):
        set_pairing(division, 1, 2, 2)


def test_repairing_a_round_with_results_is_refused(division):
    pair_round_1(division)
    services.record_result(division, 1, 1, 400, 300)
    with pytest.raises(ServiceError, match="already has results"):
        save_round_pairings(division, 1, [PlannedGame(1, 2), PlannedGame(3, 4)], force=True)
    with pytest.raises(ServiceError, match="already has results"):
        delete_round_pairings(division, 1)


def test_delete_round_pairings_without_results(division):
    pair_round_1(division)
    with pytest.raises(ServiceError, match="already paired"):
        pair_round_1(division)
    assert delete_round_pairings(division, 1, actor="td") == 2
    assert not Game.objects.exists()
    assert AuditEvent.objects.filter(action="delete_pairings").get().before


def test_bye_scores_bye_spread(division):
    services.register_player(division, name="Eve, Em", rating=1400)
    save_round_pairings(
        division, 1, [PlannedGame(1, 2), PlannedGame(3, 4), PlannedGame(5, 0)], system="manual"
    )
    row = {r.number: r for r in division_standings(division)}[5]
    assert (row.wins, row.spread, row.byes) == (1, 50, 1)


def test_late_entry_gets_forfeits_for_missed_rounds(division):
    pair_round_1(division)
    late = services.register_player(division, name="Late, Lou", rating=1500)
    game = Game.objects.get(player1=late)
    assert (game.round.number, game.player2, game.score1) == (1, None, -50)
    row = {r.number: r for r in division_standings(division)}[late.number]
    assert (row.wins, row.losses, row.spread) == (0, 1, -50)


def test_register_twice_refused(division):
    player = division.entries.get(number=1).player
    with pytest.raises(ServiceError, match="already registered"):
        services.register_player(division, player=player)


def test_withdrawal_turns_pairings_into_forfeits(division):
    pair_round_1(division)
    services.withdraw_player(division.entries.get(number=1), from_round=1, actor="td")
    games = {g.player1.number: g for g in Game.objects.filter(round__number=1, player2=None)}
    assert games[1].score1 == -50 and games[3].score1 == 50
    rows = {r.number: r for r in division_standings(division)}
    assert rows[1].withdrawn and rows[1].rank is None
    assert rows[3].wins == 1
    with pytest.raises(ServiceError, match="withdrew from round 1"):
        set_pairing(division, 2, 1, 2)
    rnd = save_round_pairings(division, 2, [PlannedGame(2, 3), PlannedGame(4, 0)])
    forfeit = rnd.games.get(player1__number=1)
    assert (forfeit.player2, forfeit.score1) == (None, -50)


def test_withdrawal_refused_after_a_result(division):
    pair_round_1(division)
    services.record_result(division, 1, 1, 400, 300)
    with pytest.raises(ServiceError, match="already has a result"):
        services.withdraw_player(division.entries.get(number=1), from_round=1)


def test_division_lookup_errors(division):
    t = division.tournament
    assert division_by_name(t, None) == division
    assert division_by_name(t, "a") == division
    with pytest.raises(ServiceError, match="no division 'Z'; it has A"):
        division_by_name(t, "Z")
    services.create_division(t, name="B")
    with pytest.raises(ServiceError, match=r"has 2 divisions; name one \(A, B\)") as refused:
        division_by_name(t, None)
    assert refused.value.code == "division_required" and "--" not in refused.value.message
    with pytest.raises(ServiceError, match="there is no tournament 'nope'") as refused:
        tournament_by_slug("nope")
    assert refused.value.code == "unknown_tournament"
