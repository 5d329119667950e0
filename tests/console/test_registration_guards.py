"""Registration guards (issue 17, item 4): one division per player, no entry after the last
round, a move before round 1, renumbering by seed rating before round 1 (shown first)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Entry
from tournament.services.entries import move_entry, renumber_by_rating, renumber_preview

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    t = services.create_tournament(name="Guards Open")
    a = services.create_division(t, name="A", rounds=3)
    b = services.create_division(t, name="B", rounds=3)
    for name, rating in (("Able, Ann", 1500), ("Baker, Bo", 1900), ("Cole, Cy", 1700)):
        services.register_player(a, name=name, rating=rating)
    services.register_player(b, name="Dunn, Di", rating=1200)
    return t, a, b


def numbers(division) -> list[tuple[int, str]]:
    return list(division.entries.order_by("number").values_list("number", "player__name"))


def test_a_player_entered_in_another_division_is_refused(event):
    t, a, b = event
    ann = Entry.objects.get(division=a, number=1)
    before = (Entry.objects.count(), AuditEvent.objects.count())
    with pytest.raises(ServiceError) as info:
        services.register_player(b, player=ann.player, rating=1500)
    assert info.value.code == "reg_in_other_division"
    assert "already entered in division A (#1)" in info.value.message
    assert "move them to B" in info.value.message
    with pytest.raises(ServiceError):
        services.register_player(b, name="Able, Ann", rating=1500)  # by name: the same player
    assert (Entry.objects.count(), AuditEvent.objects.count()) == before


def test_no_entry_once_the_last_round_is_paired(event):
    t, a, b = event
    services.register_player(b, name="Eve, Ed", rating=1000)
    for number in (1, 2):
        save_round_pairings(b, number, [PlannedGame(1, 2)])
    services.register_player(b, name="Late, Lou", rating=900)  # round 3 not paired: allowed
    save_round_pairings(b, 3, [PlannedGame(1, 2), PlannedGame(3, 0)])
    with pytest.raises(ServiceError) as info:
        services.register_player(b, name="Later, Lee", rating=900)
    assert info.value.code == "reg_after_last_round"
    assert "last round (3) is paired" in info.value.message
    assert not Entry.objects.filter(player__name="Later, Lee").exists()


def test_a_move_before_round_1_closes_up_the_numbers_and_is_audited(event):
    t, a, b = event
    bo = Entry.objects.get(division=a, number=2)
    move_entry(bo, b, actor="td")
    assert numbers(a) == [(1, "Able, Ann"), (2, "Cole, Cy")]
    assert numbers(b) == [(1, "Dunn, Di"), (2, "Baker, Bo")]
    bo.refresh_from_db()
    assert bo.seed_rating == 1900
    event_ = AuditEvent.objects.filter(action="move_entry").get()
    assert event_.before == {"division": "A", "number": 2}
    assert event_.after == {"division": "B", "number": 2}


def test_a_move_after_round_1_is_paired_is_refused_with_the_reason(event):
    t, a, b = event
    save_round_pairings(a, 1, [PlannedGame(1, 2), PlannedGame(3, 0)])
    before = (numbers(a), numbers(b), AuditEvent.objects.count())
    with pytest.raises(ServiceError) as info:
        move_entry(Entry.objects.get(division=a, number=3), b, actor="td")
    assert info.value.code == "reg_numbers_fixed"
    assert "round 1 is paired" in info.value.message
    with pytest.raises(ServiceError) as info:
        move_entry(Entry.objects.get(division=b, number=1), a, actor="td")  # into a paired one
    assert info.value.code == "reg_numbers_fixed"
    with pytest.raises(ServiceError) as info:
        move_entry(Entry.objects.get(division=b, number=1), b, actor="td")
    assert info.value.code == "reg_move_where"
    assert (numbers(a), numbers(b), AuditEvent.objects.count()) == before


def test_renumber_by_rating_is_previewed_then_applied_in_one_audit_event(event):
    t, a, b = event
    plan = renumber_preview(a)
    assert [(p.old, p.new, p.name, p.rating) for p in plan] == [
        (2, 1, "Baker, Bo", 1900),
        (3, 2, "Cole, Cy", 1700),
        (1, 3, "Able, Ann", 1500),
    ]
    assert numbers(a) == [(1, "Able, Ann"), (2, "Baker, Bo"), (3, "Cole, Cy")]  # preview only
    audits = AuditEvent.objects.count()
    renumber_by_rating(a, actor="td")
    assert numbers(a) == [(1, "Baker, Bo"), (2, "Cole, Cy"), (3, "Able, Ann")]
    assert AuditEvent.objects.count() == audits + 1
    assert AuditEvent.objects.latest("pk").action == "renumber"
    save_round_pairings(a, 1, [PlannedGame(1, 2), PlannedGame(3, 0)])
    with pytest.raises(ServiceError) as info:
        renumber_by_rating(a, actor="td")
    assert info.value.code == "reg_numbers_fixed"
    assert numbers(a) == [(1, "Baker, Bo"), (2, "Cole, Cy"), (3, "Able, Ann")]


# ----------------------------------------------------------------------- the console's Players page

HTMX = {"HTTP_HX_REQUEST": "true"}


def page_url(division, name="players"):
    return reverse(f"console:{name}", args=(division.tournament.slug, division.slug))


@pytest.fixture
def td(client, event):
    client.force_login(make_director(event[0], "guards-td"))
    return client


def test_console_refuses_an_entry_in_a_second_division_and_moves_it_instead(td, event):
    t, a, b = event
    ann = Entry.objects.get(division=a, number=1)
    page = td.get(page_url(a)).content.decode()
    assert 'class="move"' in page and f'<option value="{b.pk}">B</option>' in page
    moved = td.post(page_url(a, "players_move"), {"entry": ann.pk, "to": b.pk}, **HTMX)
    assert moved.status_code == 200
    assert "Moved #1 Able, Ann to division B as #2." in moved.content.decode()
    assert numbers(b) == [(1, "Dunn, Di"), (2, "Able, Ann")]
    save_round_pairings(b, 1, [PlannedGame(1, 2)])
    bo = Entry.objects.get(division=a, player__name="Baker, Bo")
    again = td.post(page_url(a, "players_move"), {"entry": bo.pk, "to": b.pk}, **HTMX)
    assert again.status_code == 400
    assert "round 1 is paired" in again.content.decode()


def test_console_shows_the_renumbering_before_the_button_applies_it(td, event):
    t, a, b = event
    page = td.get(page_url(a)).content.decode()
    preview = page[page.index('id="renumber-preview"') :]
    assert preview.index("Baker, Bo") < preview.index("Cole, Cy") < preview.index("Able, Ann")
    assert "Renumber 3 players by rating" in page
    assert numbers(a)[0] == (1, "Able, Ann")  # looking changes nothing
    done = td.post(page_url(a, "players_renumber"), **HTMX)
    assert done.status_code == 200
    assert "Renumbered by seed rating: 3 players moved." in done.content.decode()
    assert 'id="renumber-preview"' not in done.content.decode()  # already in rating order
    assert numbers(a) == [(1, "Baker, Bo"), (2, "Cole, Cy"), (3, "Able, Ann")]
    assert AuditEvent.objects.filter(action="renumber").count() == 1


def test_console_names_a_player_entered_in_another_division_before_the_pick(td, event):
    """Typed on the wrong division's page, a player of division A is shown as entered there
    (suggestions and the near-name warning), so the director moves them instead of adding a
    second person by that name; picking them anyway is refused, nothing changes."""
    t, a, b = event
    found = td.get(page_url(b, "players_search"), {"name": "Able"}).content.decode()
    assert "entered in division A as #1" in found
    near = td.post(page_url(b, "players_add"), {"name": "Able, Ann", "new": "on"}, **HTMX)
    body = near.content.decode()
    assert 'id="near"' in body and "entered in division A as #1" in body
    assert (
        "entered in division"
        not in td.get(page_url(a, "players_search"), {"name": "Bak"}).content.decode()
    )
    ann = Entry.objects.get(division=a, number=1)
    before = (Entry.objects.count(), AuditEvent.objects.count())
    refused = td.post(
        page_url(b, "players_add"), {"name": "Able, Ann", "pick": str(ann.player_id)}, **HTMX
    )
    assert refused.status_code == 400
    assert "already entered in division A (#1)" in refused.content.decode()
    assert (Entry.objects.count(), AuditEvent.objects.count()) == before
