"""Sign-up with e-mail confirmation: an account for anyone, usable only once its address is
confirmed, granting nothing beyond itself; every refusal changes nothing.

Steps: the form makes an inactive account and mails a link (Django's mail backend); the link's
page changes nothing until its button is pressed; confirming activates the account and signs
it in, and the confirmed account founds a club (unless the site requires approval). Refused:
an altered, expired or reused link, a duplicate username or address, weak or mismatched
passwords, and an address that signed up too often in the window (429).
"""

from __future__ import annotations

import datetime as dt
import html
import re
import time
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.core import mail, signing
from django.test import Client
from django.urls import reverse

from tournament.models import AuditEvent, Club
from tournament.services import accounts

# the mails go after the commit (issue 33: one mail path): real commits, so they are sent
pytestmark = pytest.mark.django_db(transaction=True)
User = get_user_model()
SIGNUP = "/accounts/signup/"
PASSWORD = "a-long-passphrase-9"


@pytest.fixture(autouse=True)
def fast_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def form(**over) -> dict[str, str]:
    data = {
        "username": "newplayer",
        "email": "new@example.org",
        "password": PASSWORD,
        "password_again": PASSWORD,
    }
    data.update(over)
    return data


def club(name: str) -> dict[str, str]:
    return {"name": name, "realm": "nsa", "newcomer_rating": "1000", "rating_system": "club-third"}


def counts() -> tuple[int, int, int]:
    return User.objects.count(), AuditEvent.objects.count(), len(mail.outbox)


def error_at(response, field: str) -> str:
    m = re.search(rf'id="id_{field}_error">([^<]*)<', response.content.decode())
    return m.group(1) if m else ""


def link_in_mail() -> str:
    [message] = mail.outbox[-1:]
    m = re.search(r"http://testserver(/accounts/signup/confirm/[^/\s]+/)", message.body)
    assert m, message.body
    return m.group(1)


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_sign_in_page_links_to_sign_up(client):
    page = client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/signup/"' in page
    assert client.get(SIGNUP).status_code == 200


def test_sign_up_confirm_and_found_a_club(client):
    response = client.post(SIGNUP, form())
    assert response.status_code == 302 and response["Location"] == "/accounts/signup/sent/"
    user = User.objects.get(username="newplayer")
    assert not user.is_active and not user.is_staff and not user.is_superuser
    assert user.email == "new@example.org" and user.check_password(PASSWORD)
    assert mail.outbox[0].to == ["new@example.org"]
    path = link_in_mail()
    # unconfirmed: no sign-in, no club
    assert not client.login(username="newplayer", password=PASSWORD)
    # the link's page changes nothing (a mail scanner's fetch)
    page = client.get(path)
    assert page.status_code == 200 and "Confirm my address" in page.content.decode()
    user.refresh_from_db()
    assert not user.is_active
    done = client.post(path)
    assert done.status_code == 302 and done["Location"] == "/accounts/signup/done/"
    user.refresh_from_db()
    assert user.is_active and signed_in(client)
    assert [e.action for e in AuditEvent.objects.order_by("id")] == ["sign_up", "confirm_sign_up"]
    # a confirmed account founds a club, and gets nothing site-wide
    assert client.get("/clubs/new/").status_code == 200
    made = client.post("/clubs/new/", club("Newplayer Club"))
    assert made.status_code == 302, made.content.decode()[-2000:]
    assert Club.objects.get(name="Newplayer Club").organisers.get() == user
    assert client.get("/console/new/").status_code == 403
    assert client.get("/admin/").status_code == 302  # to the admin's sign-in
    user.refresh_from_db()
    assert not user.is_staff and not user.has_perm("tournament.create_tournament")


def test_a_reused_link_is_refused(client):
    client.post(SIGNUP, form())
    path = link_in_mail()
    assert client.post(path).status_code == 302
    before = counts()
    again = Client().post(path)
    assert again.status_code == 400 and "already used" in again.content.decode()
    assert counts() == before


def test_an_old_link_never_wakes_an_account_disabled_later(client):
    client.post(SIGNUP, form())
    path = link_in_mail()
    client.post(path)
    User.objects.filter(username="newplayer").update(is_active=False)
    assert Client().post(path).status_code == 400
    assert not User.objects.get(username="newplayer").is_active


@pytest.mark.parametrize(
    "token, words",
    [
        ("not-a-token", "not valid"),
        ("x" * 500, "not valid"),
        ("tampered", "not valid"),
        ("other-salt", "not valid"),
        ("not-a-dict", "not valid"),
    ],
)
def test_a_bad_link_is_refused(client, token, words):
    client.post(SIGNUP, form())
    real = link_in_mail().rstrip("/").rsplit("/", 1)[1]
    user = User.objects.get(username="newplayer")
    if token == "tampered":
        token = real[:-3] + ("AAA" if not real.endswith("AAA") else "BBB")
    elif token == "other-salt":
        token = signing.dumps({"u": user.pk, "s": "x"}, salt="gibson.other")
    elif token == "not-a-dict":
        token = signing.dumps([user.pk], salt=accounts.SALT)
    before = counts()
    response = client.post(reverse("accounts:signup_confirm", args=[token]))
    assert response.status_code == 400 and words in response.content.decode()
    assert counts() == before and not User.objects.get(username="newplayer").is_active


def test_an_expired_link_is_refused_and_frees_the_names(client, settings, monkeypatch):
    client.post(SIGNUP, form())
    user = User.objects.get(username="newplayer")
    days = settings.SIGN_UP_CONFIRM_DAYS
    old = time.time() - dt.timedelta(days=days, hours=1).total_seconds()
    with monkeypatch.context() as m:
        m.setattr(signing.time, "time", lambda: old)  # the link as mailed a while ago
        token = accounts.confirmation_token(user)
    before = counts()
    response = client.post(reverse("accounts:signup_confirm", args=[token]))
    assert response.status_code == 400 and "expired" in response.content.decode()
    assert counts() == before and not User.objects.get(pk=user.pk).is_active
    # once expired, the unconfirmed account gives its username and address back
    User.objects.filter(pk=user.pk).update(
        date_joined=user.date_joined - dt.timedelta(days=days, hours=1)
    )
    again = Client().post(SIGNUP, form())
    assert again.status_code == 302
    assert User.objects.get(username="newplayer").pk != user.pk
    [expired] = AuditEvent.objects.filter(action="expire_sign_up")
    assert expired.before == {"user": "newplayer", "email": "new@example.org"}


def test_a_pending_sign_up_keeps_its_names(client):
    client.post(SIGNUP, form())
    before = counts()
    again = form(password="another-phrase-77", password_again="another-phrase-77")
    response = Client().post(SIGNUP, again)
    assert response.status_code == 400 and "already taken" in error_at(response, "username")
    # the address: "check your mail", as for a new one; its owner is mailed, nothing is made
    response = Client().post(SIGNUP, {**again, "username": "someone-else"})
    assert response.status_code == 302 and response["Location"] == "/accounts/signup/sent/"
    users, audits, mails = before
    assert counts() == (users, audits, mails + 1)
    assert "already has an account: newplayer" in mail.outbox[-1].body


def test_sign_up_with_a_taken_address_answers_as_for_a_new_one(settings):
    """No oracle (issue 31, item 5f): whether an address has an account shows nowhere but in
    the owner's own mailbox. The two answers are the same byte for byte, and a refusal for
    another field (a weak password) is the same for both addresses too."""
    User.objects.create_user("owner", "Owner@Example.org", PASSWORD)
    settings.SIGN_UPS_PER_ADDRESS = 100

    def answer(**over):
        response = Client().post(SIGNUP, form(**over))
        return response.status_code, response.get("Location"), response.content

    taken = answer(username="stranger1", email="owner@example.org")
    fresh = answer(username="stranger2", email="fresh@example.org")
    assert taken == fresh == (302, "/accounts/signup/sent/", b"")
    assert not User.objects.filter(username="stranger1").exists()
    assert User.objects.filter(username="stranger2", email="fresh@example.org").exists()
    to_owner, to_fresh = mail.outbox
    assert to_owner.to == ["owner@example.org"]
    assert "already has an account: owner" in to_owner.body
    assert "http://testserver/accounts/reset/" in to_owner.body  # how to get back in
    assert "/accounts/signup/confirm/" not in to_owner.body  # no link that makes an account
    assert to_fresh.to == ["fresh@example.org"]
    weak = {"password": "short", "password_again": "short"}
    taken_weak = Client().post(SIGNUP, form(username="s3", email="owner@example.org", **weak))
    fresh_weak = Client().post(SIGNUP, form(username="s4", email="new2@example.org", **weak))
    assert taken_weak.status_code == fresh_weak.status_code == 400
    assert "too short" in error_at(taken_weak, "password")
    assert error_at(taken_weak, "email") == error_at(fresh_weak, "email") == ""


@pytest.mark.parametrize(
    "over, field, words",
    [
        ({"username": ""}, "username", "required"),
        ({"username": "bad name!"}, "username", "valid username"),
        ({"username": "TAKEN"}, "username", "already taken"),
        ({"email": ""}, "email", "required"),
        ({"email": "not-an-email"}, "email", "valid email"),
        ({"password": "short", "password_again": "short"}, "password", "too short"),
        ({"password": "password123", "password_again": "password123"}, "password", "too common"),
        ({"password_again": "something-else-9"}, "password_again", "differ"),
    ],
)
def test_bad_sign_up_is_refused_at_its_field(client, over, field, words):
    User.objects.create_user("taken", "taken@example.org", PASSWORD)
    before = counts()
    response = client.post(SIGNUP, form(**over))
    assert response.status_code == 400
    assert words in error_at(response, field), response.content.decode()[-3000:]
    assert counts() == before


def test_sign_ups_are_throttled_per_address(settings):
    settings.SIGN_UPS_PER_ADDRESS = 3
    venue, elsewhere = Client(REMOTE_ADDR="10.9.9.9"), Client(REMOTE_ADDR="10.8.8.8")
    for i in range(3):
        response = venue.post(SIGNUP, form(username=f"p{i}", email=f"p{i}@example.org"))
        assert response.status_code == 302
    before = counts()
    refused = venue.post(SIGNUP, form(username="p9", email="p9@example.org"))
    assert refused.status_code == 429 and "too many sign-ups" in refused.content.decode()
    assert refused["Retry-After"] == str(settings.SIGN_IN_WINDOW_SECONDS)
    assert counts() == before
    # refused forms do not count; another address still signs up
    assert elsewhere.post(SIGNUP, form(username="p9", email="p9@example.org")).status_code == 302


def test_club_approval_setting_leaves_founding_to_superusers(client, settings):
    settings.CLUB_APPROVAL = True
    user = User.objects.create_user("organiser", "o@example.org", PASSWORD)
    client.force_login(user)
    before = (Club.objects.count(), AuditEvent.objects.count())
    assert client.get("/clubs/new/").status_code == 403
    response = client.post("/clubs/new/", club("Unapproved"))
    assert response.status_code == 403
    assert "found-club" not in client.get("/clubs/mine/").content.decode()
    assert (Club.objects.count(), AuditEvent.objects.count()) == before
    boss = User.objects.create_superuser("boss", "b@example.org", PASSWORD)
    client.force_login(boss)
    made = client.post("/clubs/new/", club("Approved"))
    assert made.status_code == 302 and Club.objects.filter(name="Approved").exists()


def _href(page: str, element_id: str) -> str:
    m = re.search(rf'<a href="([^"]*)" id="{element_id}"', page)
    assert m, f"no link #{element_id}"
    return html.unescape(m.group(1))


def test_an_invitation_survives_sign_in_sign_up_and_confirmation(client):
    """Issue 31: an organiser's invitation opened signed out goes to the sign-in page with
    next=the invitation; its "Sign up" link dropped it, so a newcomer confirmed their account
    and landed on a page that no longer knew the invitation. ``next`` now rides along the
    sign-up form, the mailed link and the confirmation, which ends on the invitation."""
    from tournament.clubs.services import create_club, create_organiser_invite

    home = create_club(name="Invite Club", slug="invite-club", actor="test")
    _invite, token = create_organiser_invite(home, actor="test")
    join = f"/clubs/join/{token}/"
    to_sign_in = client.get(join)
    assert to_sign_in.status_code == 302
    sign_up = _href(client.get(to_sign_in["Location"]).content.decode(), "signup-link")
    assert sign_up == f"{SIGNUP}?{urlencode({'next': join})}"
    page = client.get(sign_up).content.decode()
    assert f'<input type="hidden" name="next" value="{join}">' in page
    assert client.post(sign_up, form(next=join)).status_code == 302
    link = re.search(r"http://testserver(/accounts/signup/confirm/\S+)", mail.outbox[-1].body)
    assert link and link.group(1).endswith("?" + urlencode({"next": join})), mail.outbox[-1].body
    confirm = client.get(link.group(1)).content.decode()
    action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', confirm).group(1))
    assert action == link.group(1)
    done = client.post(action)
    assert done.status_code == 302 and done["Location"] == join
    joined = client.get(join)
    assert joined.status_code == 200 and "Invite Club" in joined.content.decode()


@pytest.mark.parametrize("elsewhere", ["https://evil.example/", "//evil.example/", "javascript:x"])
def test_a_next_off_the_site_is_dropped(client, elsewhere):
    page = client.get(f"{SIGNUP}?{urlencode({'next': elsewhere})}").content.decode()
    assert "evil" not in page and "javascript" not in page
    client.post(SIGNUP, form(next=elsewhere))
    link = re.search(r"http://testserver(/accounts/signup/confirm/\S+)", mail.outbox[-1].body)
    assert link and "next" not in link.group(1)
    done = client.post(f"{link.group(1)}?{urlencode({'next': elsewhere})}")
    assert done.status_code == 302 and done["Location"] == "/accounts/signup/done/"
