"""The notices' paths beyond the basics: the engine's pairing and a pair changed by hand reach
the players, a real commit and a real rollback (no test transaction around them), a server that
refuses one recipient, and a queue that cannot take the task."""

from __future__ import annotations

import pytest
from aiosmtpd.controller import Controller
from django.db import transaction
from django.test import Client

from pairings.services.rounds import pair_round
from pairings.services.store import PlannedGame, save_round_pairings, set_pairing
from tournament.models import Notice
from tournament.services import notices

from .conftest import Inbox, free_port, point_mail_at


def _subscribe_all(event) -> None:
    for e in event.entries:
        notices.subscribe(event.tournament, e.player, e.player.email, actor=event.director)


def test_the_engines_pairing_reaches_every_subscriber(
    event, smtp, django_capture_on_commit_callbacks
):
    _subscribe_all(event)
    with django_capture_on_commit_callbacks(execute=True):
        pair_round(event.a, 1, system="koth", actor=event.director)
    assert len(smtp.mails) == 4
    assert all("Round 1: board " in m.body and ", against " in m.body for m in smtp.mails)


def test_a_pair_changed_by_hand_corrects_those_two(event, smtp, django_capture_on_commit_callbacks):
    _subscribe_all(event)
    with django_capture_on_commit_callbacks(execute=True):
        save_round_pairings(event.a, 1, [PlannedGame(1, 2, board=1)], actor=event.director)
    assert sorted(m.to[0] for m in smtp.mails) == ["able@players.test", "baker@players.test"]
    with django_capture_on_commit_callbacks(execute=True):
        set_pairing(event.a, 1, 3, 4, board=2, actor=event.director)
    later = smtp.mails[2:]
    assert sorted(m.to[0] for m in later) == ["cole@players.test", "dunn@players.test"]
    assert not any(m.subject.startswith("Corrected") for m in later)  # their first word


@pytest.mark.django_db(transaction=True)
def test_a_real_commit_sends_and_a_real_rollback_does_not(event, smtp):
    _subscribe_all(event)
    with pytest.raises(RuntimeError), transaction.atomic():
        save_round_pairings(event.a, 1, [PlannedGame(1, 2, board=1)], actor=event.director)
        raise RuntimeError("refused after the pairing")
    assert smtp.mails == [] and not Notice.objects.exists()
    save_round_pairings(event.a, 1, [PlannedGame(1, 2, board=1)], actor=event.director)
    assert sorted(m.to[0] for m in smtp.mails) == ["able@players.test", "baker@players.test"]
    assert set(Notice.objects.values_list("state", flat=True)) == {"sent"}


class Picky(Inbox):
    """A server that refuses one mailbox (550) and takes the others."""

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("baker@"):
            return "550 no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"


def test_a_refused_recipient_fails_alone(event, settings, django_capture_on_commit_callbacks):
    inbox = Picky()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        point_mail_at(settings, controller.port)
        _subscribe_all(event)
        with django_capture_on_commit_callbacks(execute=True):
            save_round_pairings(
                event.a,
                1,
                [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)],
                actor=event.director,
            )
    finally:
        controller.stop()
    assert sorted(m.to[0] for m in inbox.mails) == [
        "able@players.test",
        "cole@players.test",
        "dunn@players.test",
    ]
    failed = Notice.objects.get(state="failed")
    assert failed.subscription.player.name == "Baker, Bo" and "550" in failed.error
    assert Notice.objects.filter(state="sent").count() == 3


def test_a_queue_that_refuses_the_task_marks_the_notices_failed(
    event, smtp, monkeypatch, django_capture_on_commit_callbacks
):
    def refuse(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(notices.deliver_notices, "delay", refuse)
    _subscribe_all(event)
    with django_capture_on_commit_callbacks(execute=True):
        rnd = save_round_pairings(event.a, 1, [PlannedGame(1, 2, board=1)], actor=event.director)
    assert rnd.games.count() == 1 and smtp.mails == []
    assert {(n.state, n.error) for n in Notice.objects.all()} == {
        ("failed", "could not queue: broker down")
    }


def test_a_new_secret_key_gives_new_mails_a_working_link(
    event, smtp, settings, django_capture_on_commit_callbacks
):
    player = event.entries[0].player
    notices.subscribe(event.tournament, player, player.email, actor=event.director)
    settings.SECRET_KEY = "another key, as after a rotation " * 2
    with django_capture_on_commit_callbacks(execute=True):
        notices.notify_entry(event.tournament, player, event.a, waiting_position=None)
    [mail] = smtp.mails
    link = mail.body.split("To stop them: http://testserver")[1].split()[0]
    assert "You are unsubscribed" in Client().post(link).content.decode()


def test_a_drafts_pairings_are_not_mailed(event, smtp, django_capture_on_commit_callbacks):
    """A director tries pairings in a draft before publishing: the players hear of none."""
    from tournament import services

    _subscribe_all(event)
    services.publish_tournament(event.tournament, False, actor="test")
    with django_capture_on_commit_callbacks(execute=True):
        save_round_pairings(event.a, 1, [PlannedGame(1, 2, board=1)], actor=event.director)
    assert smtp.mails == [] and not Notice.objects.exists()


def test_pairings_made_in_a_draft_are_mailed_when_it_is_published(
    event, smtp, django_capture_on_commit_callbacks
):
    """The usual order at a venue: pair round 1 in the draft, then publish. Publishing tells
    the subscribers the round in play, once; publishing again sends nothing new."""
    from tournament import services

    _subscribe_all(event)
    services.publish_tournament(event.tournament, False, actor="test")
    with django_capture_on_commit_callbacks(execute=True):
        save_round_pairings(event.a, 1, [PlannedGame(1, 2, board=1)], actor=event.director)
    assert smtp.mails == []
    with django_capture_on_commit_callbacks(execute=True):
        services.publish_tournament(event.tournament, True, actor="test")
    assert sorted(m.to[0] for m in smtp.mails) == ["able@players.test", "baker@players.test"]
    assert all("Round 1: board 1, against " in m.body for m in smtp.mails)
    with django_capture_on_commit_callbacks(execute=True):
        services.publish_tournament(event.tournament, False, actor="test")
        services.publish_tournament(event.tournament, True, actor="test")
    assert len(smtp.mails) == 2
