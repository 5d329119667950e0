"""Trust when the doors are open (issue 31): no one enters in another player's name, and a
capped division's waiting list fills the places the absent leave.

An entry naming a registry player counts only once the player confirms it (their account,
or the link mailed to the address the registry holds) or a director approves it; until then
it holds no place and bars no one. Waiting entrants check in "if a place frees" and removing
the absent promotes those here, in their waiting-list order, with the promotion notice."""

from __future__ import annotations

import io
import logging

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core import mail
from django.test import Client

from tournament import services
from tournament.errors import ServiceError
from tournament.logfilters import HideSelfEntryLinks
from tournament.models import AuditEvent, OnlineEntry, Player
from tournament.services import checkin
from tournament.services import online_entries as oe

from .conftest import enter

Status = OnlineEntry.Status
PAGE = "/t/spring/entries/"
CONSOLE = "/t/spring/console/setup/"


@pytest.fixture
def quill(db) -> Player:
    return Player.objects.create(name="Quill, Quentin", naspa_id="NA7788", email="qq@example.org")


def account(username: str, email: str):
    return get_user_model().objects.create_user(username, email, "pw-long-enough-1")


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def prank(event, quill) -> oe.Submitted:
    """Someone who is not Quentin enters him, from their own address."""
    return oe.submit_entry(event.a, player_id=quill.pk, email="prank@example.org")


# ------------------------------------------------------------ no one enters for another


def test_an_entry_in_a_registry_players_name_holds_no_place_and_bars_no_one(event, quill):
    enter(event.a, "Adams, Ada")
    enter(event.a, "Brook, Ben")
    done = prank(event, quill)
    assert done.online.status == Status.PENDING and done.awaits == "player"
    assert event.a.entries.count() == 2  # not counted against the cap
    third = enter(event.a, "Chu, Cara")  # the last place is still free
    assert third.online.status == Status.ENTERED
    # the real Quentin is not refused as "already entered": he waits for a place
    real = oe.submit_entry(event.a, player_id=quill.pk, user=account("quentin", "QQ@example.org"))
    assert real.online.status == Status.WAITING and not real.awaits
    done.online.refresh_from_db()
    assert done.online.status == Status.DECLINED  # his own entry counts: the prank's is void


@pytest.mark.django_db(transaction=True)  # the mails go after a real commit (issue 33)
def test_the_prankster_cannot_confirm_and_the_player_confirms_at_the_registry_address(event, quill):
    done = prank(event, quill)
    mail.outbox.clear()  # (the service mailed the prank's maker its page)
    # the confirmation goes to the registry's address, not the one the entrant typed
    response = Client().post(PAGE, {"division": "a", "player": str(quill.pk), "email": "x@ex.org"})
    assert response.status_code == 200 and b'id="pending"' in response.content
    assert sorted(m.to[0] for m in mail.outbox) == ["qq@example.org", "x@ex.org"]
    to_player = next(m for m in mail.outbox if m.to == ["qq@example.org"])
    to_maker = next(m for m in mail.outbox if m.to == ["x@ex.org"])
    assert "/entry/confirm/" in to_player.body and "/entry/confirm/" not in to_maker.body
    assert "awaits the player's confirmation" in to_maker.body
    confirmed = oe.confirm_entry_link(done.confirm_token)
    online = confirmed.online
    assert online.status == Status.ENTERED and online.entry.number == 1
    assert online.email == "qq@example.org"
    # the entry's page is the player's now: the maker's link no longer works
    assert confirmed.link_token and oe.entry_for_link(confirmed.link_token) == online
    assert oe.entry_for_link(done.link_token) is None
    with pytest.raises(ServiceError) as exc:
        oe.withdraw_entry(done.link_token)
    assert exc.value.code == "entries_link_bad"
    # the other pending entry (the second maker's) is declined once the player's counts
    assert OnlineEntry.objects.get(email="x@ex.org").status == Status.DECLINED


@pytest.mark.django_db(transaction=True)  # the mails go after a real commit (issue 33)
def test_the_player_confirming_by_the_mailed_link_gets_their_own_page(event, quill):
    done = prank(event, quill)
    page = Client().post(f"/entry/confirm/{done.confirm_token}/")
    assert page.status_code == 200 and b"as #1" in page.content
    assert mail.outbox[-1].to == ["qq@example.org"]
    mine = mail.outbox[-1].body.split("\n")[-1].strip()
    assert "/entry/" in mine and mine in page.content.decode()
    assert Client().get(f"/entry/{done.link_token}/").status_code == 404


def test_a_signed_in_account_counts_at_once_only_for_the_player_whose_address_it_holds(
    event, quill
):
    other = oe.submit_entry(event.a, player_id=quill.pk, user=account("mallory", "m@example.org"))
    assert other.online.status == Status.PENDING and event.a.entries.count() == 0
    own = oe.submit_entry(event.a, player_id=quill.pk, user=account("qq", "Qq@Example.org"))
    assert own.online.status == Status.ENTERED
    other.online.refresh_from_db()
    assert other.online.status == Status.DECLINED


def test_the_entry_page_tells_a_signed_in_maker_the_entry_awaits_confirmation(event, quill):
    client = signed_in(account("mallory", "m@example.org"))
    response = client.post(PAGE, {"division": "a", "player": str(quill.pk)}, follow=True)
    assert response.status_code == 200
    text = response.content.decode()
    assert "awaits the player&#x27;s confirmation or a director&#x27;s approval" in text
    assert "holds no place until the player confirms it" in text
    assert event.a.entries.count() == 0


def test_a_typed_name_of_a_registry_player_is_pending_too_and_a_new_player_is_not(event, quill):
    typed = oe.submit_entry(event.a, name="quentin quill", email="q2@example.org")
    assert typed.online.player == quill and typed.online.status == Status.PENDING
    new = oe.submit_entry(event.a, name="Newman, Nell", email="nell@example.org")
    assert new.online.status == Status.UNCONFIRMED and not new.awaits
    oe.confirm_entry(new.confirm_token)
    new.online.refresh_from_db()
    assert new.online.status == Status.ENTERED


def test_without_a_registry_address_only_a_director_approves(event):
    ada = Player.objects.create(name="Adams, Ada")
    done = oe.submit_entry(event.a, player_id=ada.pk, email="a@example.org")
    assert done.awaits == "director" and done.confirm_token is None
    oe.approve_entry(done.online, actor=event.director)
    done.online.refresh_from_db()
    assert done.online.status == Status.ENTERED
    event_row = AuditEvent.objects.get(action="approve_entry")
    assert event_row.user == event.director and event_row.after == {"status": "entered"}


def test_a_pending_entry_refused_by_the_director_does_not_bar_the_player(event, quill):
    done = prank(event, quill)
    oe.refuse_entry(done.online, "not Quentin's doing", actor=event.director)
    done.online.refresh_from_db()
    assert done.online.status == Status.DECLINED
    assert AuditEvent.objects.filter(action="refuse_entry").count() == 1
    own = oe.submit_entry(event.a, player_id=quill.pk, user=account("qq", "qq@example.org"))
    assert own.online.status == Status.ENTERED


@pytest.mark.parametrize("who", ["anonymous", "scorekeeper", "other director", "the maker"])
def test_only_the_tournaments_director_approves_a_pending_entry(event, quill, who):
    done = prank(event, quill)
    actor = {
        "anonymous": AnonymousUser(),
        "scorekeeper": event.scorekeeper,
        "other director": event.other_director,
        "the maker": account("prankster", "prank@example.org"),
    }[who]
    with pytest.raises(ServiceError) as exc:
        oe.approve_entry(done.online, actor=actor)
    assert exc.value.code == "not_allowed"
    done.online.refresh_from_db()
    assert done.online.status == Status.PENDING and event.a.entries.count() == 0
    assert not AuditEvent.objects.filter(action="approve_entry").exists()


def test_the_console_approves_for_its_director_and_refuses_another_tournaments(event, quill):
    done = prank(event, quill)
    listed = signed_in(event.director).get(CONSOLE + "entries/")
    assert b"awaiting the player" in listed.content and b'value="approve"' in listed.content
    body = {"entry": done.online.pk, "action": "approve"}
    refused = signed_in(event.other_director).post(CONSOLE + "entries/act/", body)
    assert refused.status_code in (302, 403, 404)
    done.online.refresh_from_db()
    assert done.online.status == Status.PENDING
    signed_in(event.director).post(CONSOLE + "entries/act/", body)
    done.online.refresh_from_db()
    assert done.online.status == Status.ENTERED


def test_approving_twice_or_an_entry_not_pending_is_refused_in_words(event, quill):
    done = prank(event, quill)
    oe.approve_entry(done.online, actor=event.director)
    with pytest.raises(ServiceError) as exc:
        oe.approve_entry(done.online, actor=event.director)
    assert exc.value.code == "entries_state" and "Quill, Quentin" in exc.value.message


def test_a_pending_entry_cannot_count_once_the_player_has_entered_otherwise(event, quill):
    done = prank(event, quill)
    later = prank(event, quill)
    oe.submit_entry(event.b, player_id=quill.pk, user=account("qq", "qq@example.org"))
    oe.confirm_entry(done.confirm_token)  # declined by his own entry: nothing happens
    assert OnlineEntry.objects.get(pk=done.online.pk).status == Status.DECLINED
    registered_by_hand = Player.objects.create(name="Hand, Hal", email="hal@example.org")
    pending = oe.submit_entry(event.a, player_id=registered_by_hand.pk, email="p@example.org")
    services.register_player(event.b, player=registered_by_hand, actor=event.director)
    with pytest.raises(ServiceError) as exc:
        oe.confirm_entry(pending.confirm_token)
    assert exc.value.code == "entries_already"
    with pytest.raises(ServiceError) as exc:
        oe.approve_entry(pending.online, actor=event.director)
    assert exc.value.code == "entries_already"
    assert event.a.entries.count() == 0 and later.online.pk


def test_a_stranger_cannot_fill_the_players_mailbox_with_pending_entries(event, quill):
    for n in range(oe.PENDING_PER_PLAYER):
        oe.submit_entry(event.a, player_id=quill.pk, email=f"p{n}@example.org")
    before = OnlineEntry.objects.count()
    answer = Client().post(PAGE, {"division": "a", "player": str(quill.pk), "email": "z@ex.org"})
    assert answer.status_code == 400
    assert b"already has 3 entries to Spring Open awaiting their confirmation" in answer.content
    assert OnlineEntry.objects.count() == before and not mail.outbox
    # his own account still enters him at once
    own = oe.submit_entry(event.a, player_id=quill.pk, user=account("qq", "qq@example.org"))
    assert own.online.status == Status.ENTERED


# --------------------------------------------------------------------------- secret links


def test_entry_links_are_192_bit_secrets_stored_only_as_hashes(event, quill):
    done = prank(event, quill)
    for token in (done.link_token, done.confirm_token):
        assert len(token) == 32  # 24 random bytes, URL-safe
    stored = OnlineEntry.objects.filter(pk=done.online.pk).values().get()
    assert done.link_token not in str(stored) and done.confirm_token not in str(stored)
    assert stored["link_hash"] == oe.link_hash(done.link_token)


@pytest.fixture
def log_text():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(HideSelfEntryLinks())
    logger = logging.getLogger("django")
    logger.addHandler(handler)
    yield stream
    logger.removeHandler(handler)


def test_a_refused_confirmation_logs_its_path_without_the_token(event, quill, log_text):
    done = prank(event, quill)
    oe.close_entries(event.tournament, actor=event.director)
    refused = Client().post(f"/entry/confirm/{done.confirm_token}/")
    assert refused.status_code == 400
    written = log_text.getvalue()
    assert "/entry/confirm/<link>/" in written
    assert done.confirm_token not in written


# ---------------------------------------------------------- the waiting list on the day


def full_division_with_a_waiting_list(event) -> list[oe.Submitted]:
    """Division A (cap 3): Adams, Brook, Chu entered; Diaz, Evans, Fong waiting in order."""
    names = ["Adams, Ada", "Brook, Ben", "Chu, Cara", "Diaz, Dev", "Evans, Eve", "Fong, Fay"]
    return [enter(event.a, n) for n in names]


def test_a_waiting_entrant_checks_in_from_their_own_page(event):
    done = full_division_with_a_waiting_list(event)
    answer = Client().post(f"/entry/{done[4].link_token}/check-in/", follow=True)
    assert b"checked in, if a place frees" in answer.content
    online = OnlineEntry.objects.get(pk=done[4].online.pk)
    assert online.status == Status.WAITING and online.checked_in_at is not None
    assert AuditEvent.objects.filter(action="check_in", object_type="OnlineEntry").count() == 1


def test_removing_the_absent_promotes_the_checked_in_waiting_in_order_with_their_mail(
    event, django_capture_on_commit_callbacks
):
    done = full_division_with_a_waiting_list(event)
    checkin.check_in(done[0].online.entry, actor=event.director)  # Adams here; Brook, Chu not
    for late in (done[5], done[4]):  # Fong checks in before Evans; Diaz does not come
        checkin.check_in_waiting(late.online, actor=oe.entries_actor(late.online))
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        removed = checkin.remove_absent(event.a, actor=event.director)
    assert list(removed) == ["#2 Brook, Ben", "#3 Chu, Cara"]
    assert removed.promoted == ["#2 Evans, Eve", "#3 Fong, Fay"]  # waiting-list order
    assert list(event.a.entries.order_by("number").values_list("player__name", flat=True)) == [
        "Adams, Ada",
        "Evans, Eve",
        "Fong, Fay",
    ]
    assert event.a.entries.filter(checked_in_at__isnull=True).count() == 0  # all here
    assert [w.player.name for w in oe.waiting_list(event.a)] == ["Diaz, Dev"]
    promoted_mail = sorted(m.to[0] for m in mail.outbox if m.subject.startswith("You are in"))
    assert promoted_mail == ["evans@example.org", "fong@example.org"]


def test_a_waiting_entrant_not_checked_in_is_passed_over_not_promoted(event):
    done = full_division_with_a_waiting_list(event)
    checkin.check_in(done[0].online.entry, actor=event.director)
    removed = checkin.remove_absent(event.a, actor=event.director)
    assert removed.promoted == [] and event.a.entries.count() == 1
    assert len(oe.waiting_list(event.a)) == 3


@pytest.mark.parametrize("who", ["anonymous", "scorekeeper", "other director"])
def test_only_the_director_or_the_entrants_own_link_checks_a_waiting_entrant_in(event, who):
    done = full_division_with_a_waiting_list(event)
    actor = {"anonymous": AnonymousUser(), "scorekeeper": event.scorekeeper}.get(
        who, event.other_director
    )
    with pytest.raises(ServiceError) as exc:
        checkin.check_in_waiting(done[3].online, actor=actor)
    assert exc.value.code == "not_allowed"
    assert OnlineEntry.objects.get(pk=done[3].online.pk).checked_in_at is None


def test_the_console_checks_a_waiting_entrant_in_and_lists_them(event):
    done = full_division_with_a_waiting_list(event)
    client = signed_in(event.director)
    page = client.get(CONSOLE + "checkin/")
    assert b"waiting 1: Diaz, Dev" in page.content
    client.post(CONSOLE + "checkin/tap/", {"online": done[3].online.pk, "here": "1"})
    assert OnlineEntry.objects.get(pk=done[3].online.pk).checked_in_at is not None
    other = signed_in(event.other_director)
    other.post(CONSOLE + "checkin/tap/", {"online": done[4].online.pk, "here": "1"})
    assert OnlineEntry.objects.get(pk=done[4].online.pk).checked_in_at is None


def test_an_entrant_not_waiting_cannot_check_in_if_a_place_frees(event):
    done = full_division_with_a_waiting_list(event)
    with pytest.raises(ServiceError) as exc:
        checkin.check_in_waiting(done[0].online, actor=event.director)
    assert exc.value.code == "entries_state"
