"""The rules behind the admin, in the services and models: registry, contact details, rating
officers, submission requests, games within one division, entry numbers, scoped admins."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from pairings.models import ScheduleRange
from ratings.division import (
    approve_submission,
    reject_submission,
    request_submission,
    rerate,
    submit_divisions,
)
from ratings.models import PlayerRating, RatedEvent, SubmissionRequest
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Club, Entry, Game, Membership, Player
from tournament.selectors import visible_contact

from ..core.contact import entered_themselves
from .conftest import snapshot

pytestmark = pytest.mark.django_db


# --- registry ---


def test_update_player_needs_the_registry_permission(demo, other, td, keeper):
    zoe = Player.objects.get(name="Zed, Zoe")
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        services.update_player(zoe, actor=td, name="Renamed, Zoe")
    assert refused.value.code == "registry_permission"
    with pytest.raises(ServiceError) as refused:
        services.update_player(zoe, actor=None, name="Renamed, Zoe")
    assert refused.value.code == "actor_required"
    assert snapshot() == before
    services.update_player(zoe, actor=keeper, name="  Zed,   Zoë ", email="z@example.org")
    zoe.refresh_from_db()
    assert (zoe.name, zoe.email) == ("Zed, Zoë", "z@example.org")
    event = AuditEvent.objects.get(action="update_player")
    assert event.actor == "keeper" and event.before == {
        "name": "Zed, Zoe",
        "email": "zoe@example.org",
    }
    services.update_player(zoe, actor="import_players", country="NZ")  # a command is trusted


def test_update_player_refuses_bad_values_and_changes_nothing(other, keeper):
    zoe = Player.objects.get(name="Zed, Zoe")
    Player.objects.filter(name="Young, Yan").update(naspa_id="NA123")
    before = snapshot()
    for fields, code in (
        ({"name": "   "}, "registry_name_required"),
        ({"email": "not an email"}, "registry_bad_email"),
        ({"naspa_id": "NA123"}, "registry_id_taken"),
        ({"rating": 2000}, "registry_unknown_field"),
        ({"name": "Zed, Zoe"}, "registry_nothing_to_change"),
    ):
        with pytest.raises(ServiceError) as refused:
            services.update_player(zoe, actor=keeper, **fields)
        assert refused.value.code == code
    assert snapshot() == before


def test_merge_players_moves_entries_ratings_memberships(demo, other, keeper, rating_list):
    zoe = Player.objects.get(name="Zed, Zoe")
    twin = Player.objects.create(name="Zed, Zoe (2)", naspa_id="NA9")
    mine = demo.divisions.get(name="A")
    services.register_player(mine, player=twin, rating=1400, actor="t")
    c = Club.objects.create(name="Tuesday Club", slug="tuesday")
    Membership.objects.create(player=twin, club=c)
    PlayerRating.objects.create(rating_list=rating_list, player=twin, rating=1400)
    with pytest.raises(ServiceError):
        services.merge_players(zoe, twin, actor=get_user_model().objects.create_user("x"))
    services.merge_players(zoe, twin, actor=keeper)
    assert not Player.objects.filter(pk=twin.pk).exists()
    assert Entry.objects.filter(division=mine, player=zoe).exists()
    assert PlayerRating.objects.get(rating_list=rating_list).player_id == zoe.pk
    assert Membership.objects.get(club=c, player=zoe)
    zoe.refresh_from_db()
    assert zoe.naspa_id == "NA9"  # what only the duplicate knew is kept
    assert AuditEvent.objects.filter(action="merge_players").count() == 1


def test_merge_refuses_two_players_of_one_division(other, keeper):
    zoe, yan = Player.objects.get(name="Zed, Zoe"), Player.objects.get(name="Young, Yan")
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        services.merge_players(zoe, yan, actor=keeper)
    assert refused.value.code == "registry_merge_same_division"
    with pytest.raises(ServiceError):
        services.merge_players(zoe, zoe, actor=keeper)
    assert snapshot() == before


def test_directors_may_create_players_not_change_them(client, demo, td):
    client.force_login(td)
    response = client.post(
        reverse("admin:tournament_player_add"), {"name": " New,  Nora ", "email": "n@x.org"}
    )
    assert response.status_code == 302, response.content.decode()[:500]
    nora = Player.objects.get(name="New, Nora")
    assert AuditEvent.objects.get(action="create_player").actor == "td"
    url = reverse("admin:tournament_player_change", args=[nora.pk])
    assert client.post(url, {"name": "Other, Name"}).status_code == 403


def test_registry_keeper_changes_a_player_through_the_service(client, other, keeper):
    client.force_login(keeper)
    zoe = Player.objects.get(name="Zed, Zoe")
    url = reverse("admin:tournament_player_change", args=[zoe.pk])
    page = client.get(url)
    assert "zoe@example.org" in page.content.decode()
    data = {
        "name": "Zed, Zoe",
        "naspa_id": "",
        "wespa_id": "",
        "absp_id": "",
        "country": "",
        "email": "bad",
        "phone": zoe.phone,
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    before = snapshot()
    assert client.post(url, data).status_code == 200  # refused at the field
    assert snapshot() == before
    data["email"] = "zoe@new.example.org"
    assert client.post(url, data).status_code == 302
    zoe.refresh_from_db()
    assert zoe.email == "zoe@new.example.org"
    assert AuditEvent.objects.get(action="update_player").after == {"email": zoe.email}


def test_visible_contact(demo, other, td, stranger, keeper):
    zoe = Player.objects.get(name="Zed, Zoe")
    demo_entry = Entry.objects.filter(division__tournament=demo).first()
    demo_player = demo_entry.player
    # entered by hand: their directors see nothing the player did not share with them
    assert not visible_contact(stranger, zoe) and not visible_contact(td, zoe)
    assert not visible_contact(td, demo_player)
    entered_themselves(Entry.objects.get(player=zoe))
    assert visible_contact(stranger, zoe) and not visible_contact(td, zoe)
    entered_themselves(demo_entry)
    assert visible_contact(td, demo_player) and not visible_contact(stranger, demo_player)
    assert visible_contact(keeper, zoe)
    boss = get_user_model().objects.create_superuser("boss", "b@x.org", "pw-long-enough-1")
    assert visible_contact(boss, zoe)
    from django.contrib.auth.models import AnonymousUser

    assert not visible_contact(AnonymousUser(), zoe)


# --- rating lists: officers, requests ---


def test_submitting_needs_an_officer_and_commands_are_trusted(demo, td, rating_list):
    division = demo.divisions.get(name="A")
    with pytest.raises(ServiceError) as refused:
        submit_divisions([division], rating_list, actor=td)
    assert refused.value.code == "rating_officer_required"
    with pytest.raises(ServiceError):
        submit_divisions([division], rating_list, actor=None)
    with pytest.raises(ServiceError):
        rerate(rating_list, actor=td)
    assert not RatedEvent.objects.filter(rating_list=rating_list).exists()
    rating_list.officers.add(td)
    submit_divisions([division], rating_list, actor=td)
    assert RatedEvent.objects.filter(division=division).count() == 1
    rerate(rating_list, actor="rerate")
    assert AuditEvent.objects.filter(action="rerate", actor="rerate").count() == 1


def test_request_approve_flow(demo, td, stranger, rating_list):
    division = demo.divisions.get(name="A")
    with pytest.raises(ServiceError) as refused:
        request_submission(division, rating_list, stranger)
    assert refused.value.code == "not_a_director"
    req = request_submission(division, rating_list, td)
    with pytest.raises(ServiceError) as refused:
        request_submission(division, rating_list, td)
    assert refused.value.code == "submission_already_requested"
    with pytest.raises(ServiceError) as refused:
        approve_submission(req, td)  # a director who is no officer cannot approve
    assert refused.value.code == "rating_officer_required"
    assert not RatedEvent.objects.filter(rating_list=rating_list).exists()
    officer = get_user_model().objects.create_user("officer", is_staff=True)
    rating_list.officers.add(officer)
    approve_submission(req, officer)
    req.refresh_from_db()
    assert req.status == "approved" and req.decided_by == officer
    assert RatedEvent.objects.filter(division=division, rating_list=rating_list).exists()
    assert AuditEvent.objects.get(action="submit_ratings").actor == "officer"
    with pytest.raises(ServiceError) as refused:
        reject_submission(req, officer)
    assert refused.value.code == "submission_not_pending"


def test_request_reject_flow_and_doomed_requests(demo, td, rating_list):
    division = demo.divisions.get(name="A")
    officer = get_user_model().objects.create_user("officer", is_staff=True)
    rating_list.officers.add(officer)
    req = request_submission(division, rating_list, td)
    reject_submission(req, officer, note="wrong list")
    req.refresh_from_db()
    assert req.status == "rejected" and req.note == "wrong list"
    assert not RatedEvent.objects.filter(rating_list=rating_list).exists()
    demo.start_date = None
    demo.save()
    with pytest.raises(ServiceError) as refused:
        request_submission(division, rating_list, td)
    assert refused.value.code == "submission_no_date"
    assert SubmissionRequest.objects.count() == 1


def test_officer_approves_in_the_admin(client, demo, td, rating_list):
    division = demo.divisions.get(name="A")
    req = request_submission(division, rating_list, td)
    officer = get_user_model().objects.create_user(
        "officer", password="pw-long-enough-1", is_staff=True
    )
    rating_list.officers.add(officer)
    client.force_login(td)
    changelist = reverse("admin:ratings_submissionrequest_changelist")
    assert client.get(changelist).status_code == 200
    client.post(changelist, {"action": "approve", "_selected_action": [req.pk]})
    assert SubmissionRequest.objects.get().status == "pending"  # a director cannot approve
    client.force_login(officer)
    client.post(changelist, {"action": "approve", "_selected_action": [req.pk]})
    assert SubmissionRequest.objects.get().status == "approved"
    assert RatedEvent.objects.filter(division=division).exists()


# --- models and the database ---


def test_game_with_an_entry_of_another_division_is_refused(demo):
    game = Game.objects.filter(
        round__division__tournament=demo, round__division__name="A", player2__isnull=False
    ).first()
    b_entry = Entry.objects.filter(division__tournament=demo, division__name="B").first()
    before = snapshot()
    game.player2 = b_entry
    with pytest.raises(ValidationError):
        game.full_clean()
    with pytest.raises(ValidationError):
        game.save()
    fresh = Game(round=game.round, player1=b_entry, score1=50)
    with pytest.raises(ValidationError):
        fresh.save()
    assert snapshot() == before
    game.refresh_from_db()
    game.score1 = game.score1  # saving only scores skips the division check, still allowed
    game.save(update_fields=["score1"])


def test_database_refuses_a_negative_score_in_a_played_game(demo):
    game = Game.objects.filter(player2__isnull=False, score1__isnull=False).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.filter(pk=game.pk).update(score1=-900)
    with pytest.raises(IntegrityError), transaction.atomic():
        Entry.objects.filter(pk=game.player1_id).update(withdrawn_round=0)


def test_entry_numbers_run_without_gaps(demo):
    division = demo.divisions.get(name="A")
    count = division.entries.count()
    player = Player.objects.create(name="Gap, Gary")
    with pytest.raises(ValidationError) as refused:
        Entry(division=division, player=player, number=count + 4).full_clean()
    assert f"is {count + 1}" in str(refused.value)
    Entry(division=division, player=player, number=count + 1).full_clean()
    last = division.entries.order_by("-number").first()
    last.number = 1
    with pytest.raises(ValidationError):
        last.full_clean()
    Entry.objects.filter(pk=last.pk).update(number=count + 3)  # a gap, as a raw write makes
    with pytest.raises(ServiceError) as refused:
        services.register_player(division, player=player, actor="t")
    assert refused.value.code == "entry_numbers_out_of_sequence"


# --- scoped pairings and ratings admins ---


def test_pairings_admin_is_scoped(client, demo, other, stranger):
    client.force_login(stranger)
    schedule = ScheduleRange.objects.filter(division__tournament=demo).first()
    listing = client.get(reverse("admin:pairings_schedulerange_changelist"))
    assert listing.status_code == 200
    assert schedule not in listing.context["cl"].queryset
    url = reverse("admin:pairings_schedulerange_change", args=[schedule.pk])
    assert client.post(url, {"first_round": 1, "last_round": 8}).status_code in (302, 403)
    assert ScheduleRange.objects.get(pk=schedule.pk).last_round == schedule.last_round


def test_ratings_admin_is_scoped(client, demo, other, td, stranger, rating_list):
    zoe = Player.objects.get(name="Zed, Zoe")
    theirs = PlayerRating.objects.create(rating_list=rating_list, player=zoe, start_rating=1500)
    client.force_login(td)
    listing = client.get(reverse("admin:ratings_playerrating_changelist"))
    assert listing.status_code == 200 and theirs not in listing.context["cl"].queryset
    client.force_login(stranger)
    listing = client.get(reverse("admin:ratings_playerrating_changelist"))
    assert theirs in listing.context["cl"].queryset
    url = reverse("admin:ratings_playerrating_change", args=[theirs.pk])
    assert client.post(url, {"start_rating": 2100}).status_code == 403  # no officer
    assert PlayerRating.objects.get(pk=theirs.pk).start_rating == 1500
    lst_url = reverse("admin:ratings_ratinglist_change", args=[rating_list.pk])
    assert client.post(lst_url, {"name": "Mine now"}).status_code == 403


def test_merge_moves_entries_online_and_refuses_two_live_ones_in_one_tournament(other, keeper):
    """An entry online holds its player (protected): the merge used to fail with a traceback
    once the duplicate had entered online; it moves with the player now, and two live entries
    of one tournament are refused until the director settles one."""
    import datetime as dt

    from django.utils import timezone

    from tournament.services import online_entries as oe

    zoe = Player.objects.get(name="Zed, Zoe")
    twin = Player.objects.create(name="Zed, Zoe (2)")
    other_twin = Player.objects.create(name="Zed, Zoe (3)")
    event = services.create_tournament(name="Autumn Open", slug="autumn", published=True)
    division = services.create_division(event, name="A", rounds=3)
    now = timezone.now()
    oe.open_entries(event, now - dt.timedelta(days=1), now + dt.timedelta(days=2), actor="t")
    oe.set_division_rule(division, actor="t")
    first = oe.submit_entry(division, player_id=twin.pk, email="twin@example.org").online
    services.merge_players(zoe, twin, actor=keeper)
    first.refresh_from_db()
    assert first.player_id == zoe.pk and not Player.objects.filter(pk=twin.pk).exists()
    oe.submit_entry(division, player_id=other_twin.pk, email="t3@example.org")
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        services.merge_players(zoe, other_twin, actor=keeper)
    assert refused.value.code == "registry_merge_both_online"
    assert "Autumn Open" in refused.value.message
    assert snapshot() == before
