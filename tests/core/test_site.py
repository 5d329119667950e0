"""The admin works for every model; public pages are read-only; changes need a director."""

from __future__ import annotations

import re

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import reverse

from pairings.services.store import set_pairing
from tests.core.conftest import name_admin_officer
from tournament.demo import DEMO_SLUG, load_demo
from tournament.models import AuditEvent, Game, Round

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    tournament, _ = load_demo()
    return tournament


@pytest.fixture
def director_client(client):
    user = get_user_model().objects.create_superuser("td", "td@example.org", "pw-long-enough-1")
    client.force_login(user)
    return client


def test_every_admin_changelist_search_and_change_page(director_client, demo):
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        assert director_client.get(url).status_code == 200, url
        if model_admin.search_fields:
            assert director_client.get(url, {"q": "a"}).status_code == 200, url
        obj = model.objects.first()
        if obj is not None:
            change = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
            assert director_client.get(change).status_code == 200, change


def test_round_admin_shows_games_inline(director_client, demo):
    rnd = Round.objects.filter(division__tournament=demo, division__name="A", number=1).get()
    page = director_client.get(reverse("admin:tournament_round_change", args=[rnd.pk]))
    assert page.status_code == 200
    game = rnd.games.first()
    body = page.content.decode()
    # Read-only: results are corrected on the game's own page, with a reason.
    assert re.search(rf'<td class="field-score1">\s*<p>{game.score1}</p>', body)
    assert 'name="games-0-score1"' not in body


def test_admin_change_is_audited(director_client, demo):
    game = Game.objects.filter(player2__isnull=False, score1__isnull=False).first()
    url = reverse("admin:tournament_game_change", args=[game.pk])
    form = {
        "round": game.round_id,
        "board": game.board or "",
        "player1": game.player1_id,
        "player2": game.player2_id,
        "score1": 401,
        "score2": game.score2,
        "first": game.first,
        "explanation": "",
        "reason": "scorecard misread",
    }
    response = director_client.post(url, form)
    assert response.status_code == 302, response.content.decode()[:2000]
    event = AuditEvent.objects.filter(action="correct_result").get()
    assert event.after["score1"] == 401 and event.actor == "td"
    assert event.tournament == demo and event.reason == "scorecard misread"


def test_audit_trail_cannot_be_edited(director_client, demo):
    event = AuditEvent.objects.first()
    url = reverse("admin:tournament_auditevent_change", args=[event.pk])
    director_client.post(url, {"summary": "rewritten"})
    event.refresh_from_db()
    assert event.summary != "rewritten"
    assert director_client.get(reverse("admin:tournament_auditevent_add")).status_code == 403


def test_public_pages(client, demo):
    assert DEMO_SLUG in client.get("/").content.decode()
    page = client.get(f"/t/{DEMO_SLUG}/")
    assert page.status_code == 200 and "Division" in page.content.decode()
    standings = client.get(f"/t/{DEMO_SLUG}/a/standings/", {"after": 2})
    body = standings.content.decode()
    assert standings.status_code == 200 and "after round 2" in body
    assert client.get(f"/t/{DEMO_SLUG}/Z/standings/").status_code == 404
    assert client.get("/t/no-such/").status_code == 404
    bad = client.get(f"/t/{DEMO_SLUG}/a/standings/", {"after": "x"})
    assert bad.status_code == 400 and "after=&#x27;x&#x27;" in bad.content.decode()


def test_anonymous_and_non_directors_cannot_change(client, demo):
    game = Game.objects.filter(player2__isnull=False).first()
    url = reverse("admin:tournament_game_change", args=[game.pk])
    response = client.post(url, {"score1": 1})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    player = get_user_model().objects.create_user("player", password="pw-long-enough-2")
    client.force_login(player)
    assert client.get(url).status_code == 302  # not staff: back to the login page
    assert not demo.is_director(player)
    game.refresh_from_db()
    assert game.score1 != 1


def test_demo_director_is_a_director_of_the_demo():
    from tournament.demo import ensure_director

    tournament, _ = load_demo()
    user, password = ensure_director(password="given-password-9")
    assert password == "given-password-9"
    assert tournament.is_director(get_user_model().objects.get(username=user))


def test_directors_see_and_change_only_their_own_tournaments(client, demo):
    other = load_other_tournament()
    td = get_user_model().objects.create_user("td2", password="pw-long-enough-3")
    name_admin_officer(td)  # the admin is for named officers; directing alone opens nothing
    demo.directors.add(td)
    client.force_login(td)
    mine = Game.objects.filter(round__division__tournament=demo).first()
    theirs = Game.objects.filter(round__division__tournament=other).first()
    listing = client.get(reverse("admin:tournament_game_changelist"))
    assert listing.status_code == 200
    ids = {g.pk for g in listing.context["cl"].queryset}
    assert mine.pk in ids and theirs.pk not in ids
    assert client.get(reverse("admin:tournament_game_change", args=[mine.pk])).status_code == 200
    denied = client.get(reverse("admin:tournament_game_change", args=[theirs.pk]))
    assert denied.status_code in (302, 403, 404)
    response = client.post(
        reverse("admin:tournament_tournament_delete", args=[other.pk]), {"post": "yes"}
    )
    assert response.status_code in (302, 403, 404)
    assert type(other).objects.filter(pk=other.pk).exists()
    tournaments = client.get(reverse("admin:tournament_tournament_changelist"))
    assert [t.pk for t in tournaments.context["cl"].queryset] == [demo.pk]


def test_staff_who_direct_nothing_get_no_admin(client, demo):
    staff = get_user_model().objects.create_user(
        "staff", password="pw-long-enough-4", is_staff=True
    )
    client.force_login(staff)
    for name in ("tournament_game", "tournament_tournament", "tournament_player"):
        # the staff flag alone is no longer enough to enter the admin at all
        response = client.get(reverse(f"admin:{name}_changelist"))
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    name_admin_officer(staff)  # an officer who directs nothing sees no tournament's rows
    for name in ("tournament_game", "tournament_tournament", "tournament_player"):
        assert client.get(reverse(f"admin:{name}_changelist")).status_code == 403


def load_other_tournament():
    from tournament import services

    other = services.create_tournament(name="Someone Else's Open")
    d = services.create_division(other, name="A")
    for name in ("Zed, Zoe", "Young, Yan"):
        services.register_player(d, name=name, rating=1500)
    set_pairing(d, 1, 1, 2)
    return other


def test_a_director_edits_schedule_and_entries_inline(client, demo):
    td = get_user_model().objects.create_user("td3", password="pw-long-enough-5")
    name_admin_officer(td)
    demo.directors.add(td)
    client.force_login(td)
    division = demo.divisions.get(name="A")
    page = client.get(reverse("admin:tournament_division_change", args=[division.pk]))
    body = page.content.decode()
    assert page.status_code == 200
    assert "schedule_ranges-TOTAL_FORMS" in body and "entries-TOTAL_FORMS" in body
    assert 'name="schedule_ranges-0-system"' in body  # imported from the demo's autopair lines
