"""Club organisers' pages: permissions, founding a club, settings, members, seasons.

Fixtures are built with the club services. Every denial is checked on every page and action
(anonymous, signed in without a role, organiser of another club), and every refusal to show its
message at its field with status 400 and Club, Membership, Season, Player and AuditEvent counts
as they were.
"""

from __future__ import annotations

import datetime
import html
import re

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.test import RequestFactory

from ratings.models import PlayerRating
from tournament.clubs import services as club_services
from tournament.clubs.models import Season
from tournament.clubs.web.permissions import organiser_required
from tournament.models import AuditEvent, Club, Membership, Player
from tournament.services import find_or_create_player
from tournament.services.results import record_result

PW = "pw-long-enough-1"

pytestmark = pytest.mark.django_db


@organiser_required
def _probe(request, club):
    return HttpResponse(club.slug)


def test_organiser_required_answers_each_case():
    ann = User.objects.create_user("ann", password=PW)
    bob = User.objects.create_user("bob", password=PW)
    club = club_services.create_club(name="Riverside", actor=ann)
    rf = RequestFactory()
    request = rf.get("/clubs/riverside/manage/")
    request.user = AnonymousUser()
    response = _probe(request, slug=club.slug)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/clubs/riverside/manage/")
    request.user = bob
    with pytest.raises(PermissionDenied):
        _probe(request, slug=club.slug)
    request.user = ann
    assert _probe(request, slug=club.slug).content == b"riverside"
    with pytest.raises(Http404):
        _probe(request, slug="nowhere")


# --------------------------------------------------------------------------- pages

HTMX = {"HTTP_HX_REQUEST": "true"}
LOGIN = "/accounts/login/?next="


@pytest.fixture
def ann():
    return User.objects.create_user("ann", password=PW)


@pytest.fixture
def bob():
    return User.objects.create_user("bob", password=PW)


@pytest.fixture
def cat():
    return User.objects.create_user("cat", password=PW)


@pytest.fixture
def club(ann):
    c = club_services.create_club(name="Riverside", actor=ann, city="Springfield")
    club_services.add_member(c, "Lee, Ann", actor=ann)
    club_services.add_member(c, "Ray, Bob", actor=ann, guest=True)
    club_services.create_season(
        c,
        name="Spring",
        start_date="2025-01-01",
        end_date="2025-06-30",
        actor=ann,
        preset="two-one",
    )
    return c


@pytest.fixture
def other(cat):
    """Another club, organised by cat."""
    c = club_services.create_club(name="Hilltop", actor=cat)
    club_services.add_member(c, "Hill, Holly", actor=cat)
    club_services.create_season(
        c, name="Spring", start_date="2025-01-01", end_date="2025-06-30", actor=cat
    )
    return c


def signed_in(client, user):
    client.force_login(user)
    return client


def counts():
    return (
        Club.objects.count(),
        Membership.objects.count(),
        Season.objects.count(),
        AuditEvent.objects.count(),
        Player.objects.count(),
        User.objects.filter(organised_clubs__isnull=False).count(),
    )


def error_at(response, field_id: str) -> str:
    """The message shown at one field (its ``<p class="error field-error" id=...>``)."""
    text = response.content.decode()
    found = re.findall(rf'<p class="error field-error" id="{field_id}_error">(.*?)</p>', text)
    assert found, f"no error at {field_id}"
    return html.unescape(" ".join(found))


def season_data(**over):
    data = {
        "name": "Autumn",
        "start_date": "2025-07-01",
        "end_date": "2025-12-31",
        "preset": "two-one",
    }
    data.update(over)
    return data


def actions(club, season):
    """Every organiser page and action of a club: (method, url, data)."""
    s = club.slug
    m = Membership.objects.filter(club=club).first()
    u = club.organisers.first()
    return [
        ("get", f"/clubs/{s}/manage/", None),
        (
            "post",
            f"/clubs/{s}/manage/",
            {"name": "Renamed", "realm": "nsa", "newcomer_rating": "900"},
        ),
        ("post", f"/clubs/{s}/manage/organisers/invite/", {}),
        ("post", f"/clubs/{s}/manage/organisers/invite/revoke/", {"invite": "1"}),
        ("post", f"/clubs/{s}/manage/organisers/remove/", {"user": str(u.pk)}),
        ("get", f"/clubs/{s}/manage/members/search/?name=Lee", None),
        ("post", f"/clubs/{s}/manage/members/add/", {"name": "Zed, Zoe"}),
        (
            "post",
            f"/clubs/{s}/manage/members/change/",
            {"membership": str(m.pk), "action": "lapse"},
        ),
        ("get", f"/clubs/{s}/seasons/manage/", None),
        ("post", f"/clubs/{s}/seasons/manage/", season_data()),
        ("get", f"/clubs/{s}/seasons/manage/{season.pk}/", None),
        ("post", f"/clubs/{s}/seasons/manage/{season.pk}/", season_data(name="Renamed")),
        ("post", f"/clubs/{s}/seasons/manage/{season.pk}/archive/", {}),
    ]


# --------------------------------------------------------------------------- denials


def test_anonymous_is_sent_to_sign_in_everywhere(client, club):
    before = counts()
    for method, url, data in actions(club, club.seasons.get()):
        response = getattr(client, method)(url, data or {})
        assert response.status_code == 302, url
        assert response["Location"].startswith(LOGIN), url
    for url in ("/clubs/new/", "/clubs/mine/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(LOGIN)
    response = client.post(
        "/clubs/new/",
        {
            "name": "Sneaky",
            "realm": "nsa",
            "newcomer_rating": "1000",
            "rating_system": "club-third",
        },
    )
    assert response.status_code == 302 and response["Location"].startswith(LOGIN)
    assert counts() == before


@pytest.mark.parametrize("htmx", [False, True])
def test_signed_in_non_organiser_gets_403_on_every_page_and_action(client, club, bob, htmx):
    signed_in(client, bob)
    before = counts()
    extra = HTMX if htmx else {}
    for method, url, data in actions(club, club.seasons.get()):
        response = getattr(client, method)(url, data or {}, **extra)
        assert response.status_code == 403, url
        assert b"only the organisers of Riverside" in response.content
    assert counts() == before


def test_organiser_of_another_club_gets_403_here_and_200_at_home(client, club, other, cat):
    signed_in(client, cat)
    before = counts()
    for method, url, data in actions(club, club.seasons.get()):
        response = getattr(client, method)(url, data or {})
        assert response.status_code == 403, url
    assert counts() == before
    for method, url, _ in actions(other, other.seasons.get()):
        if method == "get":
            assert client.get(url).status_code == 200, url


def test_organiser_gets_every_page(client, club, ann):
    signed_in(client, ann)
    for method, url, _ in actions(club, club.seasons.get()):
        if method == "get":
            assert client.get(url).status_code == 200, url
    assert client.get("/clubs/new/").status_code == 200
    assert client.get("/clubs/mine/").status_code == 200


def test_season_of_another_club_is_not_found_through_this_club(client, club, other, ann):
    signed_in(client, ann)
    theirs = other.seasons.get()
    before = counts()
    assert client.get(f"/clubs/riverside/seasons/manage/{theirs.pk}/").status_code == 404
    response = client.post(f"/clubs/riverside/seasons/manage/{theirs.pk}/archive/")
    assert response.status_code == 404
    assert counts() == before
    assert client.get("/clubs/nowhere/manage/").status_code == 404


def test_membership_of_another_club_is_refused(client, club, other, ann, cat):
    theirs = club_services.add_member(other, "Far, Away", actor=cat)
    signed_in(client, ann)
    before = counts()
    response = client.post(
        "/clubs/riverside/manage/members/change/", {"membership": theirs.pk, "action": "lapse"}
    )
    assert response.status_code == 400
    assert b"not in this club" in response.content
    assert counts() == before
    theirs.refresh_from_db()
    assert theirs.active


# --------------------------------------------------------------------------- found a club


def test_found_a_club(client, ann):
    signed_in(client, ann)
    before = AuditEvent.objects.count()
    response = client.post(
        "/clubs/new/",
        {
            "name": "Tuesday Tiles",
            "city": "Leeds",
            "country": "UK",
            "meets": "Tuesdays 7pm, Library",
            "realm": "absp",
            "newcomer_rating": "1200",
            "rating_system": "club-third",
        },
    )
    club = Club.objects.get(name="Tuesday Tiles")
    assert response.status_code == 302
    assert response["Location"] == f"/clubs/{club.slug}/manage/"
    assert club.is_organiser(ann)
    assert (club.city, club.meets, club.realm, club.newcomer_rating) == (
        "Leeds",
        "Tuesdays 7pm, Library",
        "absp",
        1200,
    )
    assert club.rating_list.system == "club-third"
    assert AuditEvent.objects.count() == before + 1
    page = client.get(response["Location"])
    assert b"Tuesday Tiles founded" in page.content


def test_found_a_club_with_another_rating_system(client, ann):
    signed_in(client, ann)
    form = client.get("/clubs/new/")
    assert b'value="club-third" selected' in form.content
    client.post(
        "/clubs/new/",
        {"name": "Elo Club", "realm": "nsa", "newcomer_rating": "1000", "rating_system": "nsa2008"},
    )
    assert Club.objects.get(name="Elo Club").rating_list.system == "nsa2008"


def test_found_a_club_htmx_redirects_the_page(client, ann):
    signed_in(client, ann)
    response = client.post(
        "/clubs/new/",
        {
            "name": "Htmx Club",
            "realm": "nsa",
            "newcomer_rating": "1000",
            "rating_system": "club-third",
        },
        **HTMX,
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == "/clubs/htmx-club/manage/"


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"name": ""}, "id_name", "required"),
        ({"name": "   "}, "id_name", "required"),
        ({"rating_system": "no-such"}, "id_rating_system", "not one of the available"),
        ({"realm": "mars"}, "id_realm", "not one of the available"),
        ({"newcomer_rating": "lots"}, "id_newcomer_rating", "whole number"),
        ({"newcomer_rating": "5000"}, "id_newcomer_rating", "3000"),
        ({"name": "x" * 201}, "id_name", "at most 200"),
    ],
)
def test_found_a_club_refusals(client, ann, data, field, message):
    signed_in(client, ann)
    before = counts()
    post = {
        "name": "Good Name",
        "realm": "nsa",
        "newcomer_rating": "1000",
        "rating_system": "club-third",
        **data,
    }
    response = client.post("/clubs/new/", post)
    assert response.status_code == 400
    assert message in error_at(response, field)
    assert counts() == before
    response = client.post("/clubs/new/", post, **HTMX)
    assert response.status_code == 400
    assert b"<html" not in response.content and b'id="new-club-panel"' in response.content


# --------------------------------------------------------------------------- my clubs


def test_my_clubs_lists_only_mine(client, club, other, ann):
    signed_in(client, ann)
    response = client.get("/clubs/mine/")
    text = response.content.decode()
    assert 'data-club="riverside"' in text and 'data-club="hilltop"' not in text
    assert 'href="/clubs/riverside/manage/"' in text
    assert 'href="/clubs/new/"' in text
    assert 'id="my-clubs-link"' in text  # the site navigation's entry point


def test_my_clubs_empty_and_nav_link_only_when_signed_in(client, bob):
    assert b'id="my-clubs-link"' not in client.get("/clubs/new/", follow=True).content
    signed_in(client, bob)
    response = client.get("/clubs/mine/")
    assert b'id="no-clubs"' in response.content


# --------------------------------------------------------------------------- settings


def test_settings_change(client, club, ann):
    signed_in(client, ann)
    before = AuditEvent.objects.count()
    response = client.post(
        "/clubs/riverside/manage/",
        {
            "name": "Riverside Scrabble",
            "city": "Shelbyville",
            "country": "US",
            "meets": "Thursdays 6pm",
            "realm": "nsa",
            "newcomer_rating": "900",
        },
    )
    assert response.status_code == 302
    club.refresh_from_db()
    assert (club.name, club.city, club.meets, club.newcomer_rating) == (
        "Riverside Scrabble",
        "Shelbyville",
        "Thursdays 6pm",
        900,
    )
    assert AuditEvent.objects.count() == before + 1
    page = client.get("/clubs/riverside/manage/")
    assert b"settings saved" in page.content
    assert b'href="/clubs/riverside/nights/new/"' in page.content
    assert b'href="/clubs/riverside/"' in page.content
    assert b'href="/clubs/riverside/seasons/manage/"' in page.content


def test_settings_htmx_returns_the_panel(client, club, ann):
    signed_in(client, ann)
    response = client.post(
        "/clubs/riverside/manage/",
        {"name": "Riverside", "realm": "nsa", "newcomer_rating": "1100"},
        **HTMX,
    )
    assert response.status_code == 200
    assert b"<html" not in response.content and b'id="club-panel"' in response.content
    assert b"settings saved" in response.content


@pytest.mark.parametrize("htmx", [False, True])
def test_settings_empty_name_refused(client, club, ann, htmx):
    signed_in(client, ann)
    before = counts()
    response = client.post(
        "/clubs/riverside/manage/",
        {"name": "", "realm": "nsa", "newcomer_rating": "1000"},
        **(HTMX if htmx else {}),
    )
    assert response.status_code == 400
    assert "required" in error_at(response, "id_name")
    assert counts() == before
    club.refresh_from_db()
    assert club.name == "Riverside"


# --------------------------------------------------------------------------- organisers


def _invite_link(client, ann) -> str:
    """An organiser makes an invitation link; the path it shows, once."""
    signed_in(client, ann)
    response = client.post("/clubs/riverside/manage/organisers/invite/", **HTMX)
    assert response.status_code == 200
    text = response.content.decode()
    assert "shown only this once" in text
    return re.search(r'id="invite-link"[^>]*value="http://testserver(/clubs/join/[^"]+/)"', text)[1]


def test_invite_an_organiser_then_remove_them(client, club, ann, bob):
    before = AuditEvent.objects.count()
    link = _invite_link(client, ann)
    # the page shows the link once: the next visit lists it, without the token
    page = client.get("/clubs/riverside/manage/").content.decode()
    assert link not in page and "open until" in page
    signed_in(client, bob)
    assert b"Become an organiser" in client.get(link).content
    response = client.post(link)
    assert response.status_code == 302 and response["Location"] == "/clubs/riverside/manage/"
    assert club.is_organiser(bob)
    assert club.rating_list.officers.filter(pk=bob.pk).exists()
    # spent: a second opening (by anyone) is refused and changes nothing
    again = client.get(link)
    assert again.status_code == 404 and b"not valid" in again.content
    signed_in(client, ann)
    response = client.post("/clubs/riverside/manage/organisers/remove/", {"user": bob.pk})
    assert response.status_code == 302
    assert not club.is_organiser(bob)
    names = list(AuditEvent.objects.order_by("id").values_list("action", flat=True)[before:])
    assert names == ["create_organiser_invite", "accept_organiser_invite", "remove_organiser"]


def test_an_invitation_link_asks_a_visitor_to_sign_in_first(client, club, ann):
    link = _invite_link(client, ann)
    client.logout()
    response = client.get(link)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    response = client.post(link)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert list(club.organisers.all()) == [ann]


@pytest.mark.parametrize("token", ["nope", "x" * 43, "y" * 400, "%00"])
def test_a_wrong_invitation_link_is_refused_and_tells_nothing(client, club, ann, bob, token):
    signed_in(client, bob)
    before = counts()
    for response in (client.get(f"/clubs/join/{token}/"), client.post(f"/clubs/join/{token}/")):
        assert response.status_code == 404
        assert "ask one of the club" in response.content.decode()
        assert "Riverside" not in response.content.decode()
    assert counts() == before and not club.is_organiser(bob)


def test_an_organiser_opening_their_own_link_is_told_and_the_link_stays(client, club, ann):
    link = _invite_link(client, ann)
    before = counts()
    response = client.post(link)
    assert response.status_code == 400 and b"ann already organises Riverside" in response.content
    assert counts() == before
    assert club_services.open_organiser_invite(link.split("/")[-2]) is not None


def test_a_turned_off_link_no_longer_opens(client, club, ann, bob):
    link = _invite_link(client, ann)
    invite = club.organiser_invites.get()
    response = client.post(
        "/clubs/riverside/manage/organisers/invite/revoke/", {"invite": invite.pk}
    )
    assert response.status_code == 302
    signed_in(client, bob)
    assert client.post(link).status_code == 404
    assert not club.is_organiser(bob)
    signed_in(client, ann)
    before = counts()
    for bad in (invite.pk, "x", 10**400, ""):
        response = client.post(
            "/clubs/riverside/manage/organisers/invite/revoke/", {"invite": bad}, **HTMX
        )
        assert response.status_code == 400
        assert b"already used or turned off" in response.content
    assert counts() == before


def test_an_expired_link_no_longer_opens(client, club, ann, bob):
    link = _invite_link(client, ann)
    club.organiser_invites.update(expires=datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC))
    signed_in(client, bob)
    assert client.post(link).status_code == 404
    assert not club.is_organiser(bob)


def test_an_inactive_account_cannot_join(club, ann, bob):
    _invite, token = club_services.create_organiser_invite(club, actor=ann)
    bob.is_active = False
    bob.save()
    with pytest.raises(club_services.ServiceError) as refused:
        club_services.accept_organiser_invite(token, bob)
    assert refused.value.code == "organiser_invite_invalid"
    assert not club.is_organiser(bob)


def test_the_last_organiser_stays(client, club, ann):
    signed_in(client, ann)
    before = counts()
    response = client.post("/clubs/riverside/manage/organisers/remove/", {"user": ann.pk}, **HTMX)
    assert response.status_code == 400
    text = response.content.decode()
    row = re.search(r'<li data-user="ann">.*?</li>', text, re.S)[0]
    assert 'id="organiser-error"' in row and "needs at least one organiser" in row
    assert counts() == before
    assert club.is_organiser(ann)


def test_remove_someone_who_is_not_an_organiser(client, club, ann, bob):
    signed_in(client, ann)
    before = counts()
    for user in (bob.pk, "x", 10**400):
        response = client.post("/clubs/riverside/manage/organisers/remove/", {"user": user})
        assert response.status_code == 400
        assert b"is not an organiser of Riverside" in response.content
    assert counts() == before


# --------------------------------------------------------------------------- members


def test_member_list_shows_status_guest_and_club_rating(client, club, ann):
    lee = Player.objects.get(name="Lee, Ann")
    PlayerRating.objects.create(rating_list=club.rating_list, player=lee, rating=1234)
    signed_in(client, ann)
    text = client.get("/clubs/riverside/manage/").content.decode()
    row = re.search(rf'<tr id="member-\d+" data-player="{lee.pk}".*?</tr>', text, re.S)[0]
    assert "1234" in row and "active" in row and "guest" not in row
    ray = Player.objects.get(name="Ray, Bob")
    row = re.search(rf'<tr id="member-\d+" data-player="{ray.pk}".*?</tr>', text, re.S)[0]
    assert "guest" in row and "unrated" in row and 'value="join"' in row


def test_add_member_by_typed_name(client, club, ann):
    signed_in(client, ann)
    before = AuditEvent.objects.count()
    response = client.post(
        "/clubs/riverside/manage/members/add/", {"name": "Nu, Nora", "since": "2024-09-01"}, **HTMX
    )
    assert response.status_code == 200
    assert b"Nu, Nora is a member of Riverside" in response.content
    m = Membership.objects.get(club=club, player__name="Nu, Nora")
    assert m.since == datetime.date(2024, 9, 1) and m.active and not m.guest
    assert AuditEvent.objects.count() == before + 1


def test_add_member_by_picked_suggestion(client, club, ann):
    smith = find_or_create_player("Smith, John", naspa_id="NA1234", email="js@example.org")
    signed_in(client, ann)
    players = Player.objects.count()
    response = client.post(
        "/clubs/riverside/manage/members/add/", {"name": "smi", "player_id": smith.pk}
    )
    assert response.status_code == 302
    assert Membership.objects.filter(club=club, player=smith).exists()
    assert Player.objects.count() == players


def test_add_a_guest(client, club, ann):
    signed_in(client, ann)
    client.post("/clubs/riverside/manage/members/add/", {"name": "Vis, Itor", "guest": "on"})
    m = Membership.objects.get(club=club, player__name="Vis, Itor")
    assert m.guest and m.since is None


def test_search_reuses_the_console_registry_search(client, club, ann):
    from tournament.selectors import search_players  # noqa: F401 (reused)

    find_or_create_player("Bégin, Luc", wespa_id="W77", email="luc@example.org")
    smith = find_or_create_player("Smith, John", naspa_id="NA1234", email="js@example.org")
    lst = club.rating_list
    PlayerRating.objects.create(rating_list=lst, player=smith, rating=1500)
    signed_in(client, ann)
    text = client.get("/clubs/riverside/manage/members/search/?name=begin").content.decode()
    assert "Bégin, Luc" in text and "WESPA W77" in text and "luc@example.org" not in text
    text = client.get("/clubs/riverside/manage/members/search/?name=NA1234").content.decode()
    assert f'name="player_id" value="{smith.pk}"' in text and "1500 on" in text
    assert "js@example.org" not in text
    text = client.get("/clubs/riverside/manage/members/search/?name=lee").content.decode()
    assert "already a member of Riverside" in text and 'name="player_id"' not in text
    text = client.get("/clubs/riverside/manage/members/search/?name=ray").content.decode()
    assert "guest: make a member" in text
    text = client.get("/clubs/riverside/manage/members/search/?name=zzzz").content.decode()
    assert 'id="no-match"' in text


def test_lapse_activate_and_make_a_guest_a_member(client, club, ann):
    signed_in(client, ann)
    lee = Membership.objects.get(club=club, player__name="Lee, Ann")
    ray = Membership.objects.get(club=club, player__name="Ray, Bob")
    before = AuditEvent.objects.count()
    url = "/clubs/riverside/manage/members/change/"
    response = client.post(url, {"membership": lee.pk, "action": "lapse"}, **HTMX)
    assert response.status_code == 200 and b"Lee, Ann is lapsed" in response.content
    lee.refresh_from_db()
    assert not lee.active
    client.post(url, {"membership": lee.pk, "action": "activate"})
    lee.refresh_from_db()
    assert lee.active
    client.post(url, {"membership": ray.pk, "action": "join"})
    ray.refresh_from_db()
    assert not ray.guest and ray.active and ray.since is not None
    assert AuditEvent.objects.count() == before + 3


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"name": "Lee, Ann"}, "id_member_name", "Lee, Ann is already in Riverside"),
        ({"name": ""}, "id_member_name", "type the member's name"),
        ({"name": "x" * 201}, "id_member_name", "at most 200"),
        ({"name": "Bad\x00Name"}, "id_member_name", "Null characters"),
        ({"name": "Ok, Name", "since": "yesterday"}, "id_since", "valid date"),
        ({"player_id": "999999"}, "id_member_name", "999999"),
    ],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_add_member_refusals(client, club, ann, data, field, message, htmx):
    signed_in(client, ann)
    before = counts()
    response = client.post("/clubs/riverside/manage/members/add/", data, **(HTMX if htmx else {}))
    assert response.status_code == 400
    assert message in error_at(response, field)
    assert counts() == before
    if htmx:
        assert b"<html" not in response.content


def test_member_change_refusals(client, club, ann):
    signed_in(client, ann)
    lee = Membership.objects.get(club=club, player__name="Lee, Ann")
    before = counts()
    url = "/clubs/riverside/manage/members/change/"
    response = client.post(url, {"membership": lee.pk, "action": "delete"})
    assert response.status_code == 400 and b"choose what to change" in response.content
    response = client.post(url, {"membership": "nope", "action": "lapse"})
    assert response.status_code == 400 and b"not in this club" in response.content
    response = client.post(url, {"membership": lee.pk, "action": "join"})
    assert response.status_code == 400 and b"already in Riverside" in response.content
    assert counts() == before


# --------------------------------------------------------------------------- seasons


def test_create_a_preset_season(client, club, ann):
    signed_in(client, ann)
    before = AuditEvent.objects.count()
    response = client.post(
        "/clubs/riverside/seasons/manage/", season_data(preset="margin-bonus"), **HTMX
    )
    assert response.status_code == 200 and b"Season Autumn created" in response.content
    s = Season.objects.get(club=club, name="Autumn")
    assert s.preset == "margin-bonus" and s.rule["margin_bonus"] == 1
    assert AuditEvent.objects.count() == before + 1
    assert b"2 a win, 1 a tie, +1 for a win by 50 or more" in response.content


def test_create_a_configured_season(client, club, ann):
    signed_in(client, ann)
    response = client.post(
        "/clubs/riverside/seasons/manage/",
        season_data(
            win="3",
            tie="1.5",
            loss="0",
            margin_bonus="1",
            margin="100",
            attendance="0.5",
            best_nights="8",
            min_nights="3",
        ),
    )
    assert response.status_code == 302
    s = Season.objects.get(club=club, name="Autumn")
    assert s.preset == ""
    assert s.rule == {
        "win": 3.0,
        "tie": 1.5,
        "loss": 0.0,
        "margin_bonus": 1.0,
        "margin": 100,
        "attendance": 0.5,
        "best_nights": 8,
        "min_nights": 3,
    }
    text = client.get("/clubs/riverside/seasons/manage/").content.decode()
    assert "3 points a win, 1.5 a tie, 0 a loss; 1 more for a win by 100 or more" in text
    assert "only the best 8 nights count for points; 3 nights played to be ranked" in text


def test_edit_a_season(client, club, ann):
    signed_in(client, ann)
    s = club.seasons.get()
    page = client.get(f"/clubs/riverside/seasons/manage/{s.pk}/")
    assert b'value="Spring"' in page.content
    before = AuditEvent.objects.count()
    response = client.post(
        f"/clubs/riverside/seasons/manage/{s.pk}/",
        {
            "name": "Spring League",
            "start_date": "2025-01-15",
            "end_date": "2025-06-30",
            "preset": "wins",
        },
    )
    assert response.status_code == 302
    s.refresh_from_db()
    assert (s.name, s.start_date, s.preset) == ("Spring League", datetime.date(2025, 1, 15), "wins")
    assert s.rule["win"] == 1
    assert AuditEvent.objects.count() == before + 1
    response = client.post(
        f"/clubs/riverside/seasons/manage/{s.pk}/",
        season_data(name="Spring League", start_date="2025-01-15", end_date="2025-06-30", win="4"),
        **HTMX,
    )
    assert response.status_code == 200 and response["HX-Redirect"]
    s.refresh_from_db()
    assert s.preset == "" and s.rule["win"] == 4
    page = client.get(f"/clubs/riverside/seasons/manage/{s.pk}/")
    assert b'name="win" id="id_win" value="4"' in page.content


def _played_night(club, ann):
    """A closed night of one game in the spring season: Lee 400, Zed 300."""
    night = club_services.create_night(
        club, date="2025-03-04", players=["Lee, Ann", "Zed, Al"], games=1, draw="random", actor=ann
    )
    number = club_services.pair_next_game(night, actor=ann)
    division = night.tournament.divisions.get()
    record_result(division, number, 1, 400, 300, actor=ann)
    return club_services.close_night(night, actor=ann)


def test_archive_a_season_shows_its_awards(client, club, ann):
    _played_night(club, ann)
    signed_in(client, ann)
    s = club.seasons.get()
    before = AuditEvent.objects.count()
    response = client.post(f"/clubs/riverside/seasons/manage/{s.pk}/archive/", **HTMX)
    assert response.status_code == 200
    s.refresh_from_db()
    assert s.archived_at is not None and s.awards
    text = response.content.decode()
    assert "archived with its awards" in text
    assert "champion: Lee, Ann" in text and "high game: Lee, Ann (400)" in text
    assert AuditEvent.objects.count() == before + 1
    page = client.get(f"/clubs/riverside/seasons/manage/{s.pk}/").content.decode()
    assert 'id="archived"' in page and "champion: Lee, Ann" in page
    assert 'id="season-form"' not in page
    before = counts()
    response = client.post(f"/clubs/riverside/seasons/manage/{s.pk}/archive/")
    # archived already is a state conflict: RefusalMiddleware's 409 page
    assert response.status_code == 409 and b"is archived" in response.content
    response = client.post(f"/clubs/riverside/seasons/manage/{s.pk}/", season_data())
    assert response.status_code == 400 and b"is archived" in response.content
    assert counts() == before


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"start_date": "2025-06-01"}, "id_start_date", "overlap the season Spring"),
        (
            {"start_date": "2024-12-01", "end_date": "2025-01-01"},
            "id_start_date",
            "overlap the season Spring",
        ),
        ({"end_date": "2025-06-01"}, "id_end_date", "ends (2025-06-01) before it starts"),
        ({"name": "Spring"}, "id_name", "already has a season named 'Spring'"),
        ({"name": ""}, "id_name", "required"),
        ({"preset": "galaxy"}, "id_preset", "not one of the available"),
        ({"win": "lots"}, "id_win", "'lots' is not a number of points"),
        ({"tie": "nan"}, "id_tie", "out of range (-100..100)"),
        ({"margin": "1.5"}, "id_margin", "not a whole number"),
        ({"best_nights": "-1"}, "id_best_nights", "0"),
        ({"loss": "1e400"}, "id_loss", "out of range (-100..100)"),
        ({"start_date": "2025-02-30"}, "id_start_date", "valid date"),
        ({"end_date": ""}, "id_end_date", "required"),
    ],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_create_season_refusals(client, club, ann, data, field, message, htmx):
    signed_in(client, ann)
    before = counts()
    response = client.post(
        "/clubs/riverside/seasons/manage/", season_data(**data), **(HTMX if htmx else {})
    )
    assert response.status_code == 400
    assert message in error_at(response, field)
    assert counts() == before
    if htmx:
        assert b"<html" not in response.content and b'id="seasons-panel"' in response.content


def test_edit_season_refusals(client, club, ann):
    signed_in(client, ann)
    autumn = club_services.create_season(
        club, name="Autumn", start_date="2025-07-01", end_date="2025-12-31", actor=ann
    )
    before = counts()
    url = f"/clubs/riverside/seasons/manage/{autumn.pk}/"
    for data, field, message in [
        (season_data(name="Spring"), "id_name", "already has a season named"),
        (season_data(start_date="2025-06-30"), "id_start_date", "overlap the season Spring"),
        (season_data(end_date="2025-01-01"), "id_end_date", "before it starts"),
        (season_data(win="x"), "id_win", "not a number of points"),
    ]:
        response = client.post(url, data, **HTMX)
        assert response.status_code == 400
        assert message in error_at(response, field)
        assert b'id="season-panel"' in response.content
    assert counts() == before
    autumn.refresh_from_db()
    assert autumn.name == "Autumn"


# --------------------------------------------------------------------------- hostile values

HOSTILE = [
    "\x00",
    "a\x00b",
    "1" + "0" * 400,
    "x" * 5000,
    "-1" + "0" * 400,
    "1e400",
    "<script>",
    "' OR 1=1 --",
    "NaN",
    "١٥٠٠",
]


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_values_never_500(client, club, ann, value):
    """Every field of every form, one hostile value at a time, plain and htmx."""
    signed_in(client, ann)
    s = club.seasons.get()
    m = Membership.objects.filter(club=club).first()
    forms = [
        (
            "/clubs/new/",
            {
                "name": "N",
                "realm": "nsa",
                "newcomer_rating": "1000",
                "rating_system": "club-third",
                "city": "",
                "country": "",
                "meets": "",
            },
        ),
        (
            "/clubs/riverside/manage/",
            {
                "name": "Riverside",
                "realm": "nsa",
                "newcomer_rating": "1000",
                "city": "",
                "country": "",
                "meets": "",
            },
        ),
        ("/clubs/riverside/manage/organisers/invite/", {}),
        ("/clubs/riverside/manage/organisers/remove/", {"user": str(ann.pk)}),
        (
            "/clubs/riverside/manage/members/add/",
            {"name": "A, B", "player_id": "", "since": "", "guest": ""},
        ),
        ("/clubs/riverside/manage/members/change/", {"membership": str(m.pk), "action": "lapse"}),
        (
            "/clubs/riverside/seasons/manage/",
            season_data(
                **dict.fromkeys(
                    [
                        "win",
                        "tie",
                        "loss",
                        "margin_bonus",
                        "margin",
                        "attendance",
                        "best_nights",
                        "min_nights",
                    ],
                    "",
                )
            ),
        ),
        (f"/clubs/riverside/seasons/manage/{s.pk}/", season_data(win="")),
    ]
    for url, data in forms:
        for key in data:
            for extra in ({}, HTMX):
                response = client.post(url, {**data, key: value}, **extra)
                assert response.status_code < 500, (url, key)
    for q in HOSTILE:
        response = client.get("/clubs/riverside/manage/members/search/", {"name": q})
        assert response.status_code == 200
    assert b"<script>" not in client.get("/clubs/riverside/manage/").content.split(b"</header>")[
        1
    ].replace(b'<script src="/static/django_htmx/htmx-2.min.js"', b"")


def test_two_clubs_of_one_name_and_a_long_name_each_get_their_own_list(client, ann):
    """Founding a club named as another used to loop for ever looking for a free list name."""
    signed_in(client, ann)
    post = {"realm": "nsa", "newcomer_rating": "1000", "rating_system": "club-third"}
    for _ in range(3):
        assert client.post("/clubs/new/", {**post, "name": "Twins"}).status_code == 302
    lists = sorted(c.rating_list.name for c in Club.objects.filter(name="Twins"))
    assert lists == ["Twins club ratings", "Twins club ratings (2)", "Twins club ratings (3)"]
    for _ in range(2):
        assert client.post("/clubs/new/", {**post, "name": "L" * 200}).status_code == 302
    for c in Club.objects.filter(name="L" * 200):
        assert len(c.rating_list.name) <= 100 and len(c.rating_list.slug) <= 100
