"""Entries online and check-in through their services: caps, waiting lists in order,
promotion on withdrawal, the registry's near-duplicates, rating bands, the entry window,
check-in, and removing those not checked in before round 1."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core import mail
from django.utils import timezone

from pairings.services.store import PlannedGame, save_round_pairings
from ratings.models import PlayerRating
from ratings.services import create_rating_list
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, OnlineEntry, Player
from tournament.services import checkin
from tournament.services import online_entries as oe

from .conftest import enter

NAMES = ["Adams, Ada", "Brook, Ben", "Chu, Cara", "Diaz, Dev", "Evans, Eve", "Fong, Fay"]


def numbers(division):
    return list(division.entries.order_by("number").values_list("number", "player__name"))


def test_a_full_division_puts_entrants_on_its_waiting_list_in_order(event):
    done = [enter(event.a, n) for n in NAMES[:5]]
    assert [d.online.status for d in done] == ["entered"] * 3 + ["waiting"] * 2
    assert numbers(event.a) == [(1, NAMES[0]), (2, NAMES[1]), (3, NAMES[2])]
    assert [w.player.name for w in oe.waiting_list(event.a)] == NAMES[3:5]
    assert oe.waiting_position(done[4].online) == 2


def test_an_entry_counts_only_once_its_mailed_link_is_followed(event):
    done = oe.submit_entry(event.a, name=NAMES[0], email="ada@example.org")
    assert done.online.status == "unconfirmed" and event.a.entries.count() == 0
    oe.confirm_entry(done.confirm_token)
    assert event.a.entries.count() == 1
    oe.confirm_entry(done.confirm_token)  # a second click changes nothing
    assert event.a.entries.count() == 1


def test_withdrawing_before_round_1_closes_up_numbers_and_promotes_the_first_waiting(
    event, django_capture_on_commit_callbacks
):
    done = [enter(event.a, n) for n in NAMES[:5]]
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):  # notices go after the commit
        oe.withdraw_entry(done[0].link_token)
    assert numbers(event.a) == [(1, NAMES[1]), (2, NAMES[2]), (3, NAMES[3])]
    first = OnlineEntry.objects.get(pk=done[3].online.pk)
    assert first.status == "entered" and first.promoted_at is not None
    assert [w.player.name for w in oe.waiting_list(event.a)] == [NAMES[4]]
    assert [m.to for m in mail.outbox] == [["diaz@example.org"]]  # notify_promoted
    assert Player.objects.filter(name=NAMES[0]).exists()  # still in the registry
    assert AuditEvent.objects.filter(action="promote_entry").count() == 1


def test_withdrawing_after_round_1_is_paired_is_refused(event):
    done = [enter(event.b, n) for n in NAMES[:2]]
    save_round_pairings(event.b, 1, [PlannedGame(1, 2, board=1)])
    with pytest.raises(ServiceError) as exc:
        oe.withdraw_entry(done[0].link_token)
    assert exc.value.code == "entries_play_started"
    assert event.b.entries.count() == 2


def test_a_near_duplicate_name_reuses_the_registry_player(event):
    ada = Player.objects.create(name="Adams, Ada")
    done = oe.submit_entry(event.b, name="adams  ada", email="ada@example.org")
    assert done.online.player == ada
    # (the registry holds no address for Ada: her entry awaits a director's approval)
    assert done.online.status == OnlineEntry.Status.PENDING and done.awaits == "director"
    assert Player.objects.filter(name__icontains="adams").count() == 1
    Player.objects.create(name="Begin, Jean")
    Player.objects.create(name="Begin, Joan")
    before = Player.objects.count()
    with pytest.raises(ServiceError) as exc:
        oe.submit_entry(event.b, name="Bégin, Jean", email="jb@example.org")
    assert exc.value.code == "entries_name_ambiguous" and exc.value.field == "name"
    assert Player.objects.count() == before


def test_an_entrant_outside_the_rating_band_is_refused(event):
    ratings = create_rating_list("NASPA", slug="naspa")
    event.a.rating_list = ratings
    event.a.save()
    strong = Player.objects.create(name="Strong, Sam")
    PlayerRating.objects.create(rating_list=ratings, player=strong, rating=1900)
    oe.set_division_rule(event.a, cap=3, rating_min=0, rating_max=1500, actor=event.director)
    with pytest.raises(ServiceError) as exc:
        oe.submit_entry(event.a, player_id=strong.pk, email="sam@example.org")
    assert exc.value.code == "entries_band" and "B" in exc.value.message
    assert not OnlineEntry.objects.exists()
    with pytest.raises(ServiceError) as exc:
        oe.set_division_rule(event.a, rating_min=1600, rating_max=1500, actor=event.director)
    assert exc.value.code == "entries_band_order"


@pytest.mark.parametrize("when", ["not_yet", "closed", "closed_early"])
def test_entries_outside_their_window_are_refused(event, when):
    now = timezone.now()
    if when == "not_yet":
        oe.open_entries(event.tournament, now + dt.timedelta(days=1), now + dt.timedelta(days=2))
    elif when == "closed":
        oe.open_entries(event.tournament, now - dt.timedelta(days=2), now - dt.timedelta(days=1))
    else:
        oe.close_entries(event.tournament, actor=event.director)
    with pytest.raises(ServiceError) as exc:
        oe.submit_entry(event.a, name=NAMES[0], email="ada@example.org")
    assert exc.value.code == ("entries_not_yet" if when == "not_yet" else "entries_closed")
    assert not OnlineEntry.objects.exists() and not Player.objects.exists()


def test_entries_open_only_on_a_published_tournament_and_in_order(event):
    draft = services.create_tournament(name="Draft", slug="draft", published=False)
    now = timezone.now()
    with pytest.raises(ServiceError) as exc:
        oe.open_entries(draft, now, now + dt.timedelta(days=1))
    assert exc.value.code == "entries_draft"
    with pytest.raises(ServiceError) as exc:
        oe.open_entries(event.tournament, now, now - dt.timedelta(days=1))
    assert exc.value.code == "entries_window_order" and exc.value.field == "closes"


def test_one_entry_per_person_per_tournament(event):
    enter(event.a, NAMES[0])
    with pytest.raises(ServiceError) as exc:
        oe.submit_entry(event.b, name=NAMES[0], email="ada2@example.org")
    assert exc.value.code == "entries_already"


def test_a_signed_in_entrant_is_placed_at_once(event, django_user_model):
    user = django_user_model.objects.create_user("ada", "ada@example.org", None)
    done = oe.submit_entry(event.a, name=NAMES[0], user=user)
    assert done.confirm_token is None and done.online.status == "entered"
    assert done.online.entry.number == 1


def test_director_promotes_demotes_refuses_moves_and_marks_paid(event):
    done = [enter(event.a, n) for n in NAMES[:5]]
    d = event.director
    oe.promote_entry(OnlineEntry.objects.get(pk=done[4].online.pk), actor=d)  # past the cap
    assert event.a.entries.count() == 4
    oe.demote_entry(OnlineEntry.objects.get(pk=done[0].online.pk), actor=d)
    assert [w.player.name for w in oe.waiting_list(event.a)] == [NAMES[0], NAMES[3]]
    assert numbers(event.a)[0] == (1, NAMES[1])
    oe.refuse_entry(OnlineEntry.objects.get(pk=done[1].online.pk), "no fee", actor=d)
    assert event.a.entries.count() == 3  # 4 - 1, and no one promoted past the cap of 3
    oe.move_online_entry(OnlineEntry.objects.get(pk=done[2].online.pk), event.b, actor=d)
    assert event.b.entries.get().player.name == NAMES[2]
    assert OnlineEntry.objects.get(pk=done[0].online.pk).status == "entered"  # took the place
    oe.mark_paid(OnlineEntry.objects.get(pk=done[0].online.pk), True, actor=d)
    assert OnlineEntry.objects.get(pk=done[0].online.pk).paid


def test_check_in_and_removing_the_absent_closes_up_numbers(event):
    for n in NAMES:
        services.register_player(event.b, name=n)
    here = [1, 3, 6]
    for n in here:
        checkin.check_in(event.b.entries.get(number=n), actor=event.director)
    removed = checkin.remove_absent(event.b, actor=event.director)
    assert removed == ["#2 Brook, Ben", "#4 Diaz, Dev", "#5 Evans, Eve"]
    assert numbers(event.b) == [(1, NAMES[0]), (2, NAMES[2]), (3, NAMES[5])]
    assert AuditEvent.objects.filter(action="remove_absent").count() == 1


def test_removing_the_absent_is_refused_after_round_1_and_on_an_empty_check_in(event):
    for n in NAMES[:4]:
        services.register_player(event.b, name=n)
    with pytest.raises(ServiceError) as exc:
        checkin.remove_absent(event.b, actor=event.director)
    assert exc.value.code == "checkin_nobody"
    checkin.check_in(event.b.entries.get(number=1), actor=event.director)
    save_round_pairings(event.b, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)])
    with pytest.raises(ServiceError) as exc:
        checkin.remove_absent(event.b, actor=event.director)
    assert exc.value.code == "checkin_round_paired"
    assert event.b.entries.count() == 4


@pytest.mark.parametrize("role", ["other_director", "scorekeeper"])
def test_only_the_tournaments_directors_run_entries_and_check_in(event, role):
    user = getattr(event, role)
    done = enter(event.a, NAMES[0])
    online = OnlineEntry.objects.get(pk=done.online.pk)
    calls = [
        lambda: oe.close_entries(event.tournament, actor=user),
        lambda: oe.set_division_rule(event.a, cap=9, actor=user),
        lambda: oe.mark_paid(online, True, actor=user),
        lambda: oe.refuse_entry(online, actor=user),
        lambda: oe.demote_entry(online, actor=user),
        lambda: oe.move_online_entry(online, event.b, actor=user),
        lambda: checkin.check_in(online.entry, actor=user),
        lambda: checkin.remove_absent(event.a, actor=user),
    ]
    for call in calls:
        with pytest.raises(ServiceError) as exc:
            call()
        assert exc.value.code == "not_allowed"
    online.refresh_from_db()
    assert online.status == "entered" and not online.paid and online.entry.checked_in_at is None


def test_an_online_entrant_removed_or_moved_on_the_console_follows(event):
    ada, ben = enter(event.a, NAMES[0]), enter(event.a, NAMES[1])
    services.remove_entry(ada.online.entry, actor=event.director)
    services.move_entry(OnlineEntry.objects.get(pk=ben.online.pk).entry, event.b)
    states = {o.player.name: (o.status, o.division.name) for o in OnlineEntry.objects.all()}
    assert states == {NAMES[0]: ("withdrawn", "A"), NAMES[1]: ("entered", "B")}


def test_a_refused_entrant_cannot_enter_again_and_a_started_division_takes_no_entries(event):
    done = enter(event.a, NAMES[0])
    oe.refuse_entry(OnlineEntry.objects.get(pk=done.online.pk), "banned", actor=event.director)
    with pytest.raises(ServiceError) as exc:
        oe.submit_entry(event.b, name=NAMES[0], email="ada@example.org")
    assert exc.value.code == "entries_already"
    for name in NAMES[1:3]:
        services.register_player(event.b, name=name)
    save_round_pairings(event.b, 1, [PlannedGame(1, 2, board=1)])
    with pytest.raises(ServiceError) as exc:
        oe.submit_entry(event.b, name=NAMES[4], email="eve@example.org")
    assert exc.value.code == "entries_division_started"


def test_raising_the_cap_moves_the_waiting_list_up_in_order(event):
    for name in NAMES[:6]:
        enter(event.a, name)
    oe.set_division_rule(event.a, cap=5, actor=event.director)
    assert [n for _, n in numbers(event.a)] == NAMES[:5]
    assert [w.player.name for w in oe.waiting_list(event.a)] == [NAMES[5]]
