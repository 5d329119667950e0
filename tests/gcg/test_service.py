"""Attaching, replacing and removing a game's record: who may, what is refused, the audit
trail, privacy until the round is published, and the command's errors."""

from __future__ import annotations

import pytest

from tests.core.conftest import make_director
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Entry, GameRecord
from tournament.selectors.gcg import (
    division_records,
    public_record_boards,
    public_record_rounds,
    record_of,
)
from tournament.services import gcg
from tournament.services.selfentry import ensure_tokens

from .conftest import two_player_event

pytestmark = pytest.mark.django_db

GOOD = (
    "#player1 cesar César Del Solar\n#player2 ann Ann Able\n"
    ">cesar: ABC 8H CAB +10 10\n>ann: DEFGHIJ -DEF +0 0\n>cesar: (ABC) +14 24\n"
)


def event(scores=(24, 0)):
    return two_player_event("Del Solar, Cesar", "ABLE, Ann", scores)


def state():
    return list(GameRecord.objects.values_list("game_id", "turns")), AuditEvent.objects.count()


def test_a_director_attaches_names_matched_without_accents_case_or_order(db):
    t, d, game = event()
    boss = make_director(t, "boss")
    attached = gcg.attach_record(game, GOOD.encode(), actor=boss, file_name="r1.gcg")
    assert attached.parsed.totals() == {"César Del Solar": 24, "Ann Able": 0}
    record = GameRecord.objects.get(game=game)
    assert record.turns == 3 and record.file_name == "r1.gcg"
    event_ = AuditEvent.objects.get(action="attach_game_record")
    assert event_.user == boss and event_.after["turns"] == 3
    # again: a replacement, audited as one
    gcg.attach_record(game, GOOD, actor=boss, file_name="again.gcg")
    assert AuditEvent.objects.filter(action="replace_game_record").count() == 1
    assert GameRecord.objects.get(game=game).file_name == "again.gcg"
    gcg.remove_record(game, actor=boss)
    assert not GameRecord.objects.exists()
    assert AuditEvent.objects.filter(action="remove_game_record").count() == 1


def test_the_players_order_in_the_file_may_be_the_games_reverse(db):
    t, d, game = two_player_event("Able, Ann", "Del Solar, César", (0, 24))
    gcg.attach_record(game, GOOD, actor="test")
    assert GameRecord.objects.filter(game=game).exists()


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [
        (GOOD.replace("+14 24", "+14 25"), "gcg_running_total", 5),
        (GOOD.replace("8H CAB", "8H C.B"), "gcg_malformed", 3),
        (GOOD.replace("Ann Able", "Bo Baker"), "gcg_players_mismatch", 2),
        (GOOD.replace("César Del Solar", "Cy Cole"), "gcg_players_mismatch", 1),
        (GOOD.replace("+14 24", "+12 22"), "gcg_result_mismatch", 5),
    ],
)
def test_a_wrong_record_is_refused_naming_its_line_and_changes_nothing(db, text, code, line):
    t, d, game = event()
    before = state()
    with pytest.raises(ServiceError) as caught:
        gcg.attach_record(game, text, actor="test", file_name="mine.gcg")
    assert caught.value.code == code and caught.value.params["line"] == line
    assert f"mine.gcg line {line}:" in caught.value.message
    assert state() == before


def test_a_game_without_result_or_a_bye_takes_no_record(db):
    t, d, game = event(scores=None)
    with pytest.raises(ServiceError) as caught:
        gcg.attach_record(game, GOOD, actor="test")
    assert caught.value.code == "gcg_no_result"
    assert not GameRecord.objects.exists()


def test_only_this_tournaments_directors_or_the_games_players(db):
    t, d, game = event()
    other, _d2, _g2 = two_player_event("X, Y", "Z, W", None, slug_name="Other Open")
    stranger = make_director(other, "stranger")
    with pytest.raises(ServiceError) as caught:
        gcg.attach_record(game, GOOD, actor=stranger)
    assert caught.value.code == "not_allowed"
    ensure_tokens(d, "test")
    tokens = dict(Entry.objects.filter(division=d).values_list("number", "entry_token"))
    # a player of another game of the same round
    with pytest.raises(ServiceError) as caught:
        gcg.attach_record_by_token(tokens[3], game.pk, GOOD)
    assert caught.value.code == "gcg_not_your_game"
    with pytest.raises(ServiceError) as caught:
        gcg.attach_record_by_token("x" * 32, game.pk, GOOD)
    assert caught.value.code == "selfentry_unknown_token"
    assert not GameRecord.objects.exists()
    # the game's own players may, either of them
    gcg.attach_record_by_token(tokens[2], game.pk, GOOD, file_name="mine.gcg")
    assert AuditEvent.objects.get(action="attach_game_record").actor.startswith("player #2")
    with pytest.raises(ServiceError):
        gcg.remove_record_by_token(tokens[3], game.pk)
    gcg.remove_record_by_token(tokens[1], game.pk)
    assert not GameRecord.objects.exists()


def test_private_records_show_once_the_round_is_published(db):
    t, d, game = event()
    boss = make_director(t, "boss")
    gcg.set_records_private(t, True, actor=boss)
    gcg.attach_record(game, GOOD, actor=boss)
    d.tournament.refresh_from_db()
    assert record_of(game, public=True) is None and record_of(game, public=False) is not None
    assert public_record_boards(d, 1) == set() and division_records(d, public=True) == []
    with pytest.raises(ServiceError):
        gcg.publish_round_records(
            d,
            1,
            actor=make_director(
                two_player_event("Q, Q", "R, R", None, slug_name="Third")[0], "stranger"
            ),
        )
    gcg.publish_round_records(d, 1, actor=boss)
    game.round.refresh_from_db()
    assert record_of(game, public=True) is not None
    assert public_record_boards(d, 1) == {1}
    assert public_record_rounds(d, game.player2_id) == {1}
    [(name, text)] = division_records(d, public=True)
    assert name == "r01-b01-Del_Solar_Cesar-v-ABLE_Ann.gcg" and text == GOOD
    assert AuditEvent.objects.filter(action="publish_game_records").count() == 1


def test_the_command_refuses_with_the_line_and_a_non_zero_exit(tmp_path):
    bad = tmp_path / "bad.gcg"
    bad.write_text("#player1 a A\n#player2 b B\n>a: ABC 8H CAB +10 11\n")
    from django.core.management import call_command
    from django.core.management.base import CommandError

    t, d, game = event()
    with pytest.raises(CommandError) as caught:
        call_command("gcg", "import", t.slug, str(bad), "--round", "1", "--board", "1")
    assert "bad.gcg line 3: a's total 11 is not 0 +10 = 10" in str(caught.value)
    with pytest.raises(CommandError) as caught:
        call_command("gcg", "import", t.slug, str(bad), "--round", "1", "--board", "9")
    assert "no game on board 9 (boards: 1, 2)" in str(caught.value)
    assert not GameRecord.objects.exists()
