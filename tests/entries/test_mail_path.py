"""One mail path (issue 33): an online entry's and a sign-up's mails are notices queued in the
write's transaction and sent after its commit. With the mail server down the entry or the
account is stored, the page says the mail will follow, and it goes out once the server is
back; "send the link again" resends, throttled, telling nothing of unknown addresses; a write
rolled back sends nothing.

A real SMTP server on loopback (aiosmtpd, tests/core/smtp.py) is stopped, then started on
the same port: the failures are the SMTP conversation's own, not a mock's.
"""

from __future__ import annotations

import re

import pytest
from aiosmtpd.controller import Controller
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client

from tests.core.smtp import Inbox, free_port, point_mail_at
from tournament.models import Notice, OnlineEntry
from tournament.services import notices
from tournament.services import online_entries as oe

PAGE = "/t/spring/entries/"
RESEND = "/t/spring/entries/resend/"

pytestmark = pytest.mark.django_db(transaction=True)  # real commits: the mail goes after one


class Server:
    """The loopback mail server, down until ``start``, on a port fixed from the beginning."""

    def __init__(self, settings) -> None:
        self.port = free_port()
        self.inbox = Inbox()
        self.controller: Controller | None = None
        point_mail_at(settings, self.port)

    def start(self) -> Inbox:
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()
        return self.inbox

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()


@pytest.fixture
def server(settings):
    mail = Server(settings)
    yield mail
    mail.stop()


def test_an_entry_with_the_mail_server_down_is_stored_and_its_mail_follows(event, server):
    client = Client()
    sent = client.post(PAGE, {"division": "a", "name": "Adams, Ada", "email": "ada@example.org"})
    # stored, not a 500; the page says the mail will follow
    assert sent.status_code == 200 and b'id="mail-late"' in sent.content
    online = OnlineEntry.objects.get(email="ada@example.org")
    assert online.status == "unconfirmed"
    notice = Notice.objects.get(kind="entry_link")
    assert notice.state == "failed" and "unreachable" in notice.error
    assert "[[secret:entry.confirm:" in notice.body  # a nonce stored, not the secret
    inbox = server.start()
    assert notices.retry_failed() == {"sent": 1, "failed": 0}
    [mail] = inbox.to("ada@example.org")
    confirm, mine = re.findall(r"http://testserver(/entry/\S+/)", mail.body)
    assert confirm.split("/")[-2] not in notice.body
    assert client.post(confirm).status_code == 200
    online.refresh_from_db()
    assert online.status == "entered" and client.get(mine).status_code == 200
    assert notices.retry_failed() == {"sent": 0, "failed": 0}  # sent once, not again


def test_a_sign_up_with_the_mail_server_down_is_stored_and_its_mail_follows(db, server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    password = "a-long-passphrase-9"
    client = Client()
    answer = client.post(
        "/accounts/signup/",
        {
            "username": "newplayer",
            "email": "new@example.org",
            "password": password,
            "password_again": password,
        },
        follow=True,
    )
    assert answer.status_code == 200 and b"mail will follow" in answer.content
    user = get_user_model().objects.get(username="newplayer")
    assert not user.is_active
    assert Notice.objects.get(kind="sign_up").state == "failed"
    inbox = server.start()
    notices.retry_failed()
    [mail] = inbox.to("new@example.org")
    link = re.search(r"http://testserver(/accounts/signup/confirm/\S+/)", mail.body).group(1)
    client.post(link)
    user.refresh_from_db()
    assert user.is_active


def test_the_link_is_sent_again_throttled_and_unknown_addresses_learn_nothing(event, smtp):
    client = Client()
    client.post(PAGE, {"division": "a", "name": "Adams, Ada", "email": "ada@example.org"})
    [first] = smtp.to("ada@example.org")
    again = client.post(RESEND, {"email": "ADA@example.org"})
    assert again.status_code == 200 and b'id="resent"' in again.content
    second = smtp.to("ada@example.org")[1]
    assert second.body == first.body  # the same links, which still work
    # throttled: a second ask within minutes is refused and sends nothing
    throttled = client.post(RESEND, {"email": "ada@example.org"})
    assert throttled.status_code == 429 and len(smtp.to("ada@example.org")) == 2
    # an address that entered nothing gets the same answer and no mail
    unknown = client.post(RESEND, {"email": "nobody@example.org"})
    assert unknown.status_code == 200 and b'id="resent"' in unknown.content
    assert smtp.to("nobody@example.org") == []
    # once confirmed, there is nothing to resend
    confirm = re.findall(r"http://testserver(/entry/confirm/\S+/)", first.body)[0]
    client.post(confirm)
    later = Client(REMOTE_ADDR="10.0.0.9").post(RESEND, {"email": "other@example.org"})
    assert later.status_code == 200 and len(smtp.mails) == 2


def test_a_rolled_back_entry_sends_nothing(event, smtp):
    with pytest.raises(RuntimeError), transaction.atomic():
        oe.submit_entry(event.a, name="Adams, Ada", email="ada@example.org")
        raise RuntimeError("refused after the entry")
    assert smtp.mails == [] and not Notice.objects.exists()
    assert not OnlineEntry.objects.exists()


def test_the_command_retries_and_a_later_mail_takes_the_failed_along(event, server):
    from io import StringIO

    from django.core.management import call_command

    oe.submit_entry(event.a, name="Adams, Ada", email="ada@example.org")
    assert Notice.objects.get().state == "failed"
    out = StringIO()
    call_command("notices", "--retry", "--json", stdout=out)
    assert '"failed": 1' in out.getvalue()  # still down: failed again, kept for the next try
    inbox = server.start()
    call_command("notices", "--retry", stdout=out)
    assert len(inbox.to("ada@example.org")) == 1
    # down again, then back: the next entry's mail takes the earlier failure along
    server.stop()
    oe.submit_entry(event.a, name="Baker, Bo", email="bo@example.org")
    server.inbox.mails.clear()
    inbox = server.start()
    oe.submit_entry(event.a, name="Cole, Cy", email="cy@example.org")
    assert sorted(m.to[0] for m in inbox.mails) == ["bo@example.org", "cy@example.org"]
    assert set(Notice.objects.values_list("state", flat=True)) == {"sent"}


def test_a_refused_mailbox_is_not_retried(event, settings):
    class Picky(Inbox):
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            return "550 no such mailbox"

    controller = Controller(Picky(), hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        point_mail_at(settings, controller.port)
        oe.submit_entry(event.a, name="Adams, Ada", email="ada@example.org")
        notice = Notice.objects.get()
        assert notice.state == "failed" and notice.error.startswith(notices.FINAL)
        assert notices.retry_failed() == {"sent": 0, "failed": 0}
    finally:
        controller.stop()


def test_a_sign_ups_link_is_sent_again_throttled_and_unknown_addresses_learn_nothing(
    db, smtp, settings
):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    password = "a-long-passphrase-9"
    client = Client()
    client.post(
        "/accounts/signup/",
        {
            "username": "nell",
            "email": "nell@example.org",
            "password": password,
            "password_again": password,
        },
    )
    [first] = smtp.to("nell@example.org")
    page = client.get("/accounts/signup/sent/")
    assert b"Send the link again" in page.content
    again = client.post("/accounts/signup/sent/", {"email": "NELL@example.org"})
    assert again.status_code == 200 and b'id="resent"' in again.content
    # the same mail again; its link is made as it is sent (a timestamped token), so under
    # load the two may fall in different seconds: compare them with the links set aside
    link_re = re.compile(r"http://testserver/accounts/signup/confirm/\S+/")
    bodies = [link_re.sub("LINK", m.body) for m in smtp.to("nell@example.org")]
    assert bodies == [link_re.sub("LINK", first.body)] * 2 and "LINK" in bodies[0]
    throttled = client.post("/accounts/signup/sent/", {"email": "nell@example.org"})
    assert throttled.status_code == 429 and len(smtp.to("nell@example.org")) == 2
    # an address with no account, and one whose account is confirmed: the same answer, no mail
    get_user_model().objects.create_user("olga", "olga@example.org", password)
    for address in ("nobody@example.org", "olga@example.org"):
        answer = Client().post("/accounts/signup/sent/", {"email": address})
        assert answer.status_code == 200 and b'id="resent"' in answer.content
    assert len(smtp.mails) == 2
    resent = smtp.to("nell@example.org")[-1].body  # the link sent again confirms
    client.post(re.search(r"http://testserver(/accounts/signup/confirm/\S+/)", resent).group(1))
    assert get_user_model().objects.get(username="nell").is_active
