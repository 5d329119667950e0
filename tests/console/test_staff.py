"""A tournament's staff from the console: accounts made by a director, one-time sign-up links,
removing staff (never the last director), who may open the page, and the password pages."""

from __future__ import annotations

import datetime as dt
import hashlib
import re

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent, StaffInvite, Tournament

pytestmark = pytest.mark.django_db
User = get_user_model()


def counts() -> tuple[int, ...]:
    return (
        User.objects.count(),
        AuditEvent.objects.count(),
        StaffInvite.objects.count(),
        Tournament.objects.count(),
    )


@pytest.fixture
def event():
    return services.create_tournament(name="Staff Open", published=False)


@pytest.fixture
def td(client, event):
    client.force_login(make_director(event, "staff-td"))
    return client


def account(**over) -> dict[str, str]:
    data = {
        "role": "scorekeeper",
        "username": "keeper1",
        "email": "k1@example.org",
        "password": "a-long-passphrase-9",
        "password_again": "a-long-passphrase-9",
    }
    data.update(over)
    return {f"account-{k}": v for k, v in data.items()}


def error_at(response, field_id: str) -> str:
    m = re.search(rf'id="id_{re.escape(field_id)}_error">([^<]*)<', response.content.decode())
    return m.group(1) if m else ""


def test_staff_page_lists_directors_and_scorekeepers(td, event):
    keeper = User.objects.create_user("scorer", "", "pw-long-enough-1")
    event.scorekeepers.add(keeper)
    response = td.get(reverse("console:staff", args=[event.slug]))
    body = response.content.decode()
    assert response.status_code == 200 and "staff-td" in body and "scorer" in body


def test_add_a_scorekeeper_by_account(td, event):
    response = td.post(reverse("console:staff", args=[event.slug]), account())
    assert response.status_code == 302
    user = User.objects.get(username="keeper1")
    assert event.is_scorekeeper(user) and not event.is_director(user) and not user.is_staff
    assert authenticate(username="keeper1", password="a-long-passphrase-9") == user
    [ev] = AuditEvent.objects.filter(action="add_staff")
    assert ev.after == {"user": "keeper1", "role": "scorekeeper", "new_account": True}
    # a co-director directs this tournament only: no staff flag (the admin), no creation right
    td.post(reverse("console:staff", args=[event.slug]), account(role="director", username="co-td"))
    co = User.objects.get(username="co-td")
    assert event.is_director(co) and not co.is_staff
    assert not co.has_perm("tournament.create_tournament")


@pytest.mark.parametrize(
    "over, field, words",
    [
        ({"username": ""}, "username", "required"),
        ({"username": "bad name!"}, "username", "valid username"),
        ({"username": "STAFF-TD"}, "username", "already taken"),
        ({"password": "short", "password_again": "short"}, "password", "too short"),
        ({"password": "password123", "password_again": "password123"}, "password", "too common"),
        ({"password_again": "something-else-9"}, "password_again", "differ"),
        ({"email": "not-an-email"}, "email", "valid email"),
        ({"role": "owner"}, "role", "owner"),
    ],
)
def test_bad_account_is_refused_at_its_field(td, event, over, field, words):
    before = counts()
    response = td.post(reverse("console:staff", args=[event.slug]), account(**over))
    assert response.status_code == 400
    assert words in error_at(response, f"account-{field}"), response.content.decode()[-3000:]
    assert counts() == before


def _invite_link(td, event, role="director") -> str:
    response = td.post(
        reverse("console:staff_invite", args=[event.slug]),
        {"invite-role": role, "invite-email": "new@example.org"},
    )
    assert response.status_code == 200
    m = re.search(r'value="(http://testserver/accounts/invite/[^"]+/)"', response.content.decode())
    assert m, response.content.decode()
    return m.group(1).removeprefix("http://testserver")


def test_invite_link_works_once(td, event):
    path = _invite_link(td, event)
    token = path.rstrip("/").rsplit("/", 1)[1]
    invite = StaffInvite.objects.get()
    # only the hash is kept
    assert invite.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in str(list(StaffInvite.objects.values()))
    assert token not in str(list(AuditEvent.objects.values()))
    assert invite.expires - timezone.now() > dt.timedelta(days=6, hours=23)
    guest = Client()
    page = guest.get(path)
    assert page.status_code == 200 and "co-director" in page.content.decode()
    form = {
        "username": "newbie",
        "email": "new@example.org",
        "password": "another-long-phrase-7",
        "password_again": "another-long-phrase-7",
    }
    # a refused choice leaves the link usable
    before = counts()
    bad = guest.post(path, {**form, "password": "12345678", "password_again": "12345678"})
    assert bad.status_code == 400 and error_at(bad, "password")
    assert counts() == before
    response = guest.post(path, form)
    assert response.status_code == 302
    assert response["Location"] == reverse("console:home", args=[event.slug])
    user = User.objects.get(username="newbie")
    assert event.is_director(user) and not user.is_staff
    invite.refresh_from_db()
    assert invite.used_by == user and invite.used_at is not None
    assert AuditEvent.objects.filter(action="accept_invite", user=user).count() == 1
    # the signed-in newcomer reaches the console
    assert guest.get(reverse("console:setup", args=[event.slug])).status_code == 200
    # a second use is a plain 404, and creates nothing
    other = Client()
    before = counts()
    assert other.get(path).status_code == 404
    assert other.post(path, {**form, "username": "second"}).status_code == 404
    assert counts() == before


def test_scorekeeper_invite(td, event):
    path = _invite_link(td, event, role="scorekeeper")
    form = {
        "username": "sk",
        "password": "another-long-phrase-7",
        "password_again": "another-long-phrase-7",
    }
    assert Client().post(path, form).status_code == 302
    user = User.objects.get(username="sk")
    assert event.is_scorekeeper(user) and not event.is_director(user)


def test_expired_and_unknown_links_are_404(event):
    _, token = services.create_invite(event, role="director", actor="test")
    StaffInvite.objects.update(expires=timezone.now() - dt.timedelta(seconds=1))
    guest = Client()
    before = counts()
    assert guest.get(f"/accounts/invite/{token}/").status_code == 404
    form = {
        "username": "late",
        "password": "another-long-phrase-7",
        "password_again": "another-long-phrase-7",
    }
    assert guest.post(f"/accounts/invite/{token}/", form).status_code == 404
    assert guest.get("/accounts/invite/made-up-token/").status_code == 404
    assert counts() == before


def test_remove_staff_but_never_the_last_director(td, event):
    me = User.objects.get(username="staff-td")
    keeper = User.objects.create_user("scorer", "", "pw-long-enough-1")
    event.scorekeepers.add(keeper)
    url = reverse("console:staff_remove", args=[event.slug])
    assert td.post(url, {"user": keeper.pk, "role": "scorekeeper"}).status_code == 302
    assert not event.is_scorekeeper(keeper)
    before = counts()
    response = td.post(url, {"user": me.pk, "role": "director"})
    assert response.status_code == 400 and "last director" in response.content.decode()
    assert event.is_director(me) and counts() == before
    # not a member / unknown user: refused, nothing changes
    assert td.post(url, {"user": keeper.pk, "role": "scorekeeper"}).status_code == 400
    assert td.post(url, {"user": "x", "role": "director"}).status_code == 400
    assert counts() == before
    co = make_director(event, "co-td")
    assert td.post(url, {"user": co.pk, "role": "director"}).status_code == 302
    assert not event.is_director(co)
    assert AuditEvent.objects.filter(action="remove_staff").count() == 2


STAFF_URLS = [
    ("console:staff", "get", {}),
    ("console:staff", "post", {}),
    ("console:staff_invite", "post", {"invite-role": "director"}),
    ("console:staff_remove", "post", {}),
    ("console:setup", "get", {}),
]


@pytest.mark.parametrize("name, method, data", STAFF_URLS)
def test_staff_denials(client, event, name, method, data):
    url = reverse(name, args=[event.slug])
    director = make_director(event, "the-td")
    data = dict(data)
    if name == "console:staff_remove":
        data = {"user": director.pk, "role": "director"}
    before = counts()
    response = getattr(client, method)(url, data)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    other = services.create_tournament(name="Other Open")
    client.force_login(make_director(other, "other-td"))
    assert getattr(client, method)(url, data).status_code == 403
    keeper = User.objects.create_user("keeper", "", "pw-long-enough-1")
    event.scorekeepers.add(keeper)
    client.force_login(keeper)
    assert getattr(client, method)(url, data).status_code == 403
    # only the accounts made above; no staff change, no invite
    assert (
        counts()[2] == before[2]
        and AuditEvent.objects.filter(
            action__in=["add_staff", "remove_staff", "create_invite"]
        ).count()
        == 0
    )
    assert list(event.directors.all()) == [director]


# --------------------------------------------------------------------------- password pages


def test_password_change_end_to_end(client):
    User.objects.create_user("pat", "pat@example.org", "pw-long-enough-1")
    assert client.login(username="pat", password="pw-long-enough-1")
    page = client.get("/accounts/password/")
    assert page.status_code == 200
    response = client.post(
        "/accounts/password/",
        {
            "old_password": "pw-long-enough-1",
            "new_password1": "a-fresh-phrase-42",
            "new_password2": "a-fresh-phrase-42",
        },
    )
    assert response.status_code == 302 and response["Location"] == "/accounts/password/done/"
    assert client.get("/accounts/password/done/").status_code == 200
    assert authenticate(username="pat", password="a-fresh-phrase-42") is not None
    assert authenticate(username="pat", password="pw-long-enough-1") is None
    # a weak new password is refused at its field
    response = client.post(
        "/accounts/password/",
        {"old_password": "a-fresh-phrase-42", "new_password1": "abc", "new_password2": "abc"},
    )
    assert response.status_code == 200 and "too short" in response.content.decode()


def test_password_reset_by_email_end_to_end(client):
    User.objects.create_user("robin", "robin@example.org", "pw-long-enough-1")
    response = client.post("/accounts/reset/", {"email": "robin@example.org"})
    assert response.status_code == 302 and response["Location"] == "/accounts/reset/sent/"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["robin@example.org"]
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    page = client.get(link)  # Django swaps the token for a session and redirects
    assert page.status_code == 302
    set_url = page["Location"]
    assert client.get(set_url).status_code == 200
    response = client.post(
        set_url, {"new_password1": "reset-phrase-long-5", "new_password2": "reset-phrase-long-5"}
    )
    assert response.status_code == 302 and response["Location"] == "/accounts/reset/done/"
    assert authenticate(username="robin", password="reset-phrase-long-5") is not None
    # the link works once
    again = client.get(link, follow=True)
    assert "has been used or has expired" in again.content.decode()
    # an unknown address sends nothing and says nothing
    client.post("/accounts/reset/", {"email": "nobody@example.org"})
    assert len(mail.outbox) == 1


def test_an_unused_invite_link_can_be_turned_off(td, event):
    """An invite link sent to the wrong person is turned off before it is used (issue
    "Authority in one place": unused links could not be revoked); audited; a second turn-off,
    and another tournament's director, are refused with the reason, nothing changed."""
    path = _invite_link(td, event, role="scorekeeper")
    invite = StaffInvite.objects.get()
    page = td.get(reverse("console:staff", args=[event.slug]))
    assert "Turn off" in page.content.decode()
    other = services.create_tournament(name="Another Open")
    stranger = make_director(other, "stranger-td")
    outsider = Client()
    outsider.force_login(stranger)
    refused = outsider.post(
        reverse("console:staff_invite_revoke", args=[event.slug]), {"invite": invite.pk}
    )
    assert refused.status_code == 403
    assert StaffInvite.objects.filter(pk=invite.pk).exists()
    events = AuditEvent.objects.filter(action="revoke_invite").count()
    done = td.post(reverse("console:staff_invite_revoke", args=[event.slug]), {"invite": invite.pk})
    assert done.status_code == 302
    assert not StaffInvite.objects.filter(pk=invite.pk).exists()
    assert AuditEvent.objects.filter(action="revoke_invite").count() == events + 1
    assert Client().get(path).status_code in (404, 410, 400)  # the link opens nothing now
    revoke = reverse("console:staff_invite_revoke", args=[event.slug])
    again = td.post(revoke, {"invite": invite.pk})
    assert again.status_code == 400
    assert "already used, turned off" in again.content.decode()


def test_removing_by_id_names_no_account_beyond_the_staff(td, event):
    """Issue 19: the remove form took any account id and answered "<name> is not a director",
    so a director could read every account name (superusers included) one id at a time. Any id
    that is not this tournament's staff now gets the same answer, naming nobody."""
    boss = User.objects.create_superuser("boss-admin", "boss@example.org", "pw-long-enough-1")
    other = services.create_tournament(name="Other Open", published=False)
    stranger = make_director(other, "other-td")
    url = reverse("console:staff_remove", args=[event.slug])
    before = counts()
    answers = set()
    for user in (boss, stranger, User(pk=10_000)):
        response = td.post(url, {"user": user.pk, "role": "director"})
        text = re.sub(r"<[^>]+>", " ", response.content.decode())
        assert response.status_code == 400
        assert "boss-admin" not in text and "other-td" not in text
        answers.add(re.search(r"no such staff member", text) is not None)
    assert answers == {True} and counts() == before
    assert event.is_director(User.objects.get(username="staff-td"))


def test_visible_accounts_are_the_staff_of_ones_own_tournaments(event):
    """The one rule behind every face that names accounts (tournament.access)."""
    from django.contrib.auth.models import AnonymousUser

    from tournament.access import tournament_staff, visible_accounts

    td = make_director(event, "own-td")
    keeper = User.objects.create_user("own-keeper", "", "pw-long-enough-1")
    event.scorekeepers.add(keeper)
    boss = User.objects.create_superuser("boss-admin", "boss@example.org", "pw-long-enough-1")
    other = services.create_tournament(name="Other Open", published=False)
    stranger = make_director(other, "other-td")
    loner = User.objects.create_user("loner", "", "pw-long-enough-1")

    def names(qs) -> set[str]:
        return set(qs.values_list("username", flat=True))

    assert names(visible_accounts(td)) == {"own-td", "own-keeper"}
    assert names(visible_accounts(keeper)) == {"own-keeper"}  # keeping score shows nobody
    assert names(visible_accounts(loner)) == {"loner"}
    assert names(visible_accounts(AnonymousUser())) == set()
    assert names(visible_accounts(boss)) >= {"own-td", "own-keeper", "other-td", "loner"}
    assert names(tournament_staff(td, event)) == {"own-td", "own-keeper"}
    assert names(tournament_staff(td, other)) == set()
    assert names(tournament_staff(boss, other)) == {stranger.username}


def test_a_club_organiser_sees_the_staff_of_the_clubs_nights(client):
    """A club night is directed through its club: its organisers see its scorekeepers, and
    a scorekeeper of another night stays unnamed."""
    from tests.security.test_probe_escalation import found_club_and_start_night
    from tournament.access import tournament_staff, visible_accounts

    organiser = User.objects.create_user("club-org", "org@example.org", "pw-long-enough-1")
    client.force_login(organiser)
    _club, night = found_club_and_start_night(client, "Staff Club")
    keeper = User.objects.create_user("night-keeper", "", "pw-long-enough-1")
    night.scorekeepers.add(keeper)
    elsewhere = services.create_tournament(name="Elsewhere", published=False)
    elsewhere.scorekeepers.add(User.objects.create_user("far-keeper", "", "pw-long-enough-1"))
    names = set(visible_accounts(organiser).values_list("username", flat=True))
    assert names == {"club-org", "night-keeper"}
    assert list(tournament_staff(organiser, night)) == [keeper]
