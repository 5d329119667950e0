"""A second player of one name mid-event (issue 31, a director's weekend).

On division B's page a director typed a name already entered in division A and clicked "Add
NAME as a new player anyway": an identical second player was made mid-event who could then not
be removed. Now a like-named player entered anywhere in the tournament makes the director say
which person it is (pick them, or confirm a different person with a note that tells them
apart), and a player added by mistake mid-event is removed while they are the last number
with no game played (their late-entry records go with them), audited; otherwise withdrawn.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Entry, Game, Player
from tournament.services.entries import NewEntry, register_players

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def event():
    """Two divisions, round 1 paired in both: the weekend is under way."""
    t = services.create_tournament(name="Weekend Open", actor="test", late_entry="forfeit")
    a = services.create_division(t, name="A", rounds=7, actor="test")
    b = services.create_division(t, name="B", rounds=7, actor="test")
    for name in ("Smith, Jane", "Baker, Bo"):
        services.register_player(a, name=name, rating=1800, actor="test")
    for name in ("Cole, Cy", "Dunn, Di"):
        services.register_player(b, name=name, rating=1200, actor="test")
    save_round_pairings(a, 1, [PlannedGame(1, 2)], system="manual", actor="test")
    save_round_pairings(b, 1, [PlannedGame(1, 2)], system="manual", actor="test")
    return t, a, b


@pytest.fixture
def td(client, event):
    client.force_login(make_director(event[0], "weekend-td"))
    return client


def url(division, name="players"):
    return reverse(f"console:{name}", args=(division.tournament.slug, division.slug))


def counts():
    return (Entry.objects.count(), Player.objects.count(), AuditEvent.objects.count())


def test_add_anyway_of_a_name_entered_elsewhere_asks_which_person(td, event):
    t, a, b = event
    add = url(b, "players_add")
    warned = td.post(add, {"name": "Smith, Jane", "new": "on"}, **HTMX).content.decode()
    assert 'id="different-person"' in warned and "Smith, Jane (division A #1)" in warned
    assert 'id="add-anyway"' not in warned  # no one-click second Smith, Jane
    before = counts()
    # the old one click, and the box ticked with nothing to tell them apart: refused
    one_click = td.post(add, {"name": "Smith, Jane", "confirm": "on"}, **HTMX)
    assert one_click.status_code == 400
    body = one_click.content.decode()
    assert 'id="id_different_error"' in body and "is a different person" in body
    no_note = td.post(add, {"name": "Smith, Jane", "confirm": "on", "different": "on"}, **HTMX)
    assert no_note.status_code == 400
    assert 'id="id_note_error"' in no_note.content.decode()
    assert counts() == before
    done = td.post(
        add,
        {
            "name": "Smith, Jane",
            "rating": "900",
            "confirm": "on",
            "different": "on",
            "note": "from  Leeds",
        },
        **HTMX,
    )
    assert done.status_code == 200, done.content.decode()[:2000]
    entry = b.entries.get(number=3)
    assert (entry.player.name, entry.player.note) == ("Smith, Jane", "from Leeds")
    assert entry.player_id != a.entries.get(number=1).player_id
    event_ = AuditEvent.objects.filter(action="register").latest("pk")
    assert event_.reason == "a different person from Smith, Jane (division A #1): from Leeds"
    assert "(from Leeds)" in td.get(url(b)).content.decode()


def test_the_service_refuses_a_like_named_new_player_without_a_note(event):
    t, a, b = event
    before = counts()
    for name in ("Smith, Jane", "jane smith", "Smith, Jayne", "Baker, Bo"):
        with pytest.raises(ServiceError) as info:
            services.register_new_player(b, name=name, actor="test")
        assert info.value.code == "reg_same_name_in_event"
        assert info.value.field == "different_person"
    assert "Smith, Jane (division A #1)" in info.value.message or "Baker, Bo" in info.value.message
    assert counts() == before
    # someone of another name is added straight away, as before
    assert services.register_new_player(b, name="Evans, Eve", actor="test").number == 3


def test_a_pasted_line_like_an_entered_player_is_refused_naming_the_line(event):
    t, a, b = event
    before = counts()
    rows = [NewEntry("Evans, Eve", 1000, line=1), NewEntry("Smith, Jayne", 1000, line=2)]
    with pytest.raises(ServiceError) as info:
        register_players(b, rows, actor="test")
    assert info.value.code == "reg_list_line"
    assert info.value.message.startswith("line 2: Smith, Jayne is like Smith, Jane (division A")
    assert counts() == before


def test_a_player_added_by_mistake_mid_event_is_removed_with_an_audit(td, event):
    t, a, b = event
    mistake = services.register_new_player(
        b, name="Smith, Jane", different_person="typo", actor="test"
    )
    assert Game.objects.filter(player1=mistake, explanation="late entry").count() == 1
    page = td.get(url(b)).content.decode()
    rows = page.split('<tr id="entry-')
    assert 'class="remove"' in rows[3] and 'class="remove"' not in rows[1] + rows[2]
    removed = td.post(url(b, "players_remove"), {"entry": mistake.pk}, **HTMX)
    assert removed.status_code == 200
    assert "Removed #3 Smith, Jane." in removed.content.decode()
    assert not Entry.objects.filter(pk=mistake.pk).exists()
    assert not Game.objects.filter(player1_id=mistake.pk).exists()
    event_ = AuditEvent.objects.get(action="remove_entry")
    assert event_.before["late_entry_records"] == 1 and event_.before["number"] == 3
    assert list(b.entries.values_list("number", flat=True)) == [1, 2]


def test_mid_event_a_player_with_a_game_or_not_last_is_only_withdrawn(td, event):
    t, a, b = event
    late = services.register_player(b, name="Late, Lou", actor="test")
    save_round_pairings(b, 2, [PlannedGame(1, 3), PlannedGame(2, 0)], system="manual", actor="t")
    before = counts()
    for entry in (late, b.entries.get(number=1)):  # paired in round 2; not the last number
        with pytest.raises(ServiceError) as info:
            services.remove_entry(entry, actor="test")
        assert info.value.code == "reg_remove_paired"
    refused = td.post(url(b, "players_remove"), {"entry": late.pk}, **HTMX)
    assert refused.status_code == 400
    assert "can only be withdrawn, not removed" in refused.content.decode()
    assert 'class="remove"' not in td.get(url(b)).content.decode()
    assert counts() == before
    services.withdraw_player(late, from_round=2, actor="test")  # the way back for them
    assert Entry.objects.get(pk=late.pk).withdrawn_round == 2


def test_the_registry_keeps_and_corrects_the_note(event):
    t, a, b = event
    entry = services.register_new_player(b, name="Smith, Jane", different_person="Leeds", actor="t")
    services.update_player(entry.player, note="from Leeds, Jr.", actor="manage.py")
    assert Player.objects.get(pk=entry.player_id).note == "from Leeds, Jr."
    event_ = AuditEvent.objects.filter(action="update_player").latest("pk")
    assert (event_.before, event_.after) == ({"note": "Leeds"}, {"note": "from Leeds, Jr."})
