"""Venue mode's e-mail notices (issue 23): a venue laptop often has no internet. Its notices
(an entrant's "entry confirmed" or "waiting list", a round's pairings) must not fail or slow
the director's writes: they stay queued, listed on the console's Notices page, and go out
after the next successful push (the link is up); a mail server still out of reach then marks
them failed there, with its words.

Delivery runs inline without a broker (the laptop's case), so a write that tried to send
would wait for the mail server's timeout: ``NoRoute`` below is a mail backend that records
every attempt and fails as a laptop with no internet does.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.mail.backends.base import BaseEmailBackend

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.smtp import Inbox
from tournament import services
from tournament.models import Notice, VenueTake
from tournament.services import notices
from tournament.services import online_entries as oe
from tournament.sync import inbox

from .test_down_and_faults import entries_event, linked

pytestmark = pytest.mark.django_db

ATTEMPTS: list[str] = []


class NoRoute(BaseEmailBackend):
    """A mail server the laptop cannot reach: each attempt recorded, then refused."""

    def open(self) -> bool:
        ATTEMPTS.append("open")
        raise OSError("[Errno 101] Network is unreachable")

    def send_messages(self, messages: Any) -> int:
        self.open()
        return 0


@pytest.fixture
def no_internet(settings):
    ATTEMPTS.clear()
    settings.EMAIL_BACKEND = f"{__name__}.NoRoute"
    return ATTEMPTS


def opted_in(client, monkeypatch, cap: int = 5):
    """Nora and Sam enter on the hosted copy asking for notices; Nora takes the venue's last
    place, Sam waits."""
    hosted = entries_event(cap=cap)
    link = linked(client, hosted)
    link.wire(monkeypatch)
    hosted_a = hosted.divisions.get()
    for name, address in (("New, Nora", "nora@example.org"), ("Second, Sam", "sam@example.org")):
        sub = oe.submit_entry(hosted_a, name=name, email=address, notices_opt_in=True)
        oe.confirm_entry(sub.confirm_token)
    return hosted, link


def notices_page(client, tournament) -> str:
    director = get_user_model().objects.create_user("vera", "vera@example.org", None)
    tournament.directors.add(director)
    client.force_login(director)
    return client.get(f"/t/{tournament.slug}/console/notices/").content.decode()


def test_the_venues_entry_notices_wait_for_the_link_and_fail_visibly(
    client, monkeypatch, no_internet, django_capture_on_commit_callbacks
):
    hosted, link = opted_in(client, monkeypatch)
    take = VenueTake.objects.get(pk=link.take.pk)
    # the venue settles the two entries (its writes): no mail is tried in them
    with django_capture_on_commit_callbacks(execute=True):
        assert inbox.pull(take)[0] == 2
    assert no_internet == []
    held = Notice.objects.filter(tournament=link.local).order_by("id")
    assert [(n.kind, n.state) for n in held] == [("entry", "queued"), ("waiting", "queued")]
    assert "Waiting list, number 1" in held[1].subject
    # a director's pairing at the venue: queued too, the pairing stands at once
    local_a = link.local.divisions.get()
    games = [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(5, 0, board=3)]
    with django_capture_on_commit_callbacks(execute=True):
        save_round_pairings(local_a, 1, games, system="manual", actor="venue-td")
    assert no_internet == [] and held.filter(kind="pairing").count() == 1
    page = notices_page(client, link.local)
    assert "(3 queued)" in page and "sent after the venue's next push" in page
    # the link is up (the push reaches the hosted site) but the mail server is not: failed,
    # with its words, on the Notices page; the push itself succeeded
    result = link.push()
    assert result["notices_handed_over"] == 3 and no_internet == ["open"]
    assert set(held.values_list("state", flat=True)) == {"failed"}
    assert "Network is unreachable" in held.all()[0].error
    page = notices_page_again(client, link.local)
    assert "(3 failed)" in page and "Network is unreachable" in page
    # nothing is handed over twice: the next push finds none queued
    assert link.push()["notices_handed_over"] == 0


def notices_page_again(client, tournament) -> str:
    return client.get(f"/t/{tournament.slug}/console/notices/").content.decode()


def test_the_venues_notices_go_out_after_a_push_when_mail_works(
    client, monkeypatch, smtp: Inbox, django_capture_on_commit_callbacks
):
    hosted, link = opted_in(client, monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        link.push()  # pulls (the notices are made, held), pushes, then hands them over
    assert [m.subject for m in smtp.to("nora@example.org")] == [
        "Entry confirmed: Entries Venue Open, division A"
    ]
    assert "Waiting list, number 1" in smtp.to("sam@example.org")[0].subject
    # (the subscribers' notices: the entries' own confirmation mails are notices to an
    # address, sent on the hosted site's commit, which these submits outside the capture
    # never reach)
    subscribers = Notice.objects.filter(subscription__isnull=False)
    assert set(subscribers.values_list("state", flat=True)) == {"sent"}
    # the hosted copy subscribed no one: the venue's mail is the event's
    assert not hosted.notice_subscriptions.exists()


def test_a_hosted_site_notices_are_sent_at_once_as_before(
    settings, smtp: Inbox, django_capture_on_commit_callbacks
):
    """Only a venue holds its notices: a tournament with no venue take sends them on commit."""
    t = entries_event(cap=4)
    a = t.divisions.get()
    with django_capture_on_commit_callbacks(execute=True):
        sub = oe.submit_entry(a, name="Wait, Walt", email="walt@example.org", notices_opt_in=True)
        oe.confirm_entry(sub.confirm_token)
    assert smtp.to("walt@example.org") and not notices.held_at_venue(
        list(Notice.objects.values_list("pk", flat=True))
    )
    services.publish_tournament(t, True, actor="test")  # (no second mail: nothing new)
    # one notice to the subscriber (the other mail was the entry's confirmation link)
    assert Notice.objects.filter(state="sent", subscription__isnull=False).count() == 1
