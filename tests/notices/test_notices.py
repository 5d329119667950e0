"""E-mail notices against a real SMTP server on loopback: what each subscriber receives for a
round's pairing, a re-pairing, an entry and the final results; the unsubscribe link; and what
must never happen (mail for a rolled-back write, a director's write broken by the mail server,
mail to someone who unsubscribed, an address on a public page)."""

from __future__ import annotations

import re

import pytest
from django.db import transaction
from django.test import Client

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Notice, NoticeSubscription
from tournament.services import notices

NOTICES = "/t/notice-open/console/notices/"


def _subscribe(event, *indexes: int) -> None:
    for i in indexes:
        player = event.entries[i].player
        notices.subscribe(event.tournament, player, player.email, actor=event.director)


def _pair(event, capture, games, *, round_number: int = 1, force: bool = False):
    with capture(execute=True):
        return save_round_pairings(event.a, round_number, games, actor=event.director, force=force)


ROUND_1 = [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)]


def _link(body: str) -> str:
    found = re.search(r"http://testserver(/notices/unsubscribe/[0-9a-f]+/)", body)
    assert found, body
    return found.group(1)


def test_each_subscriber_gets_their_board_and_opponent(
    event, smtp, django_capture_on_commit_callbacks
):
    _subscribe(event, 0, 3)
    _pair(event, django_capture_on_commit_callbacks, ROUND_1)
    assert sorted(m.to[0] for m in smtp.mails) == ["able@players.test", "dunn@players.test"]
    ann = smtp.to("able@players.test")[0]
    assert ann.subject == "Round 1, Notice Open: board 1"
    assert "Round 1: board 1, against Baker, Bo (1600), you go first." in ann.body
    assert "http://testserver/t/notice-open/a/player/1/" in ann.body
    assert str(ann.message["From"]) == "notices@gibson.test"
    assert str(ann.message["List-Unsubscribe"]).strip() == f"<http://testserver{_link(ann.body)}>"
    di = smtp.to("dunn@players.test")[0]
    assert "Round 1: board 2, against Cole, Cy (1500), you go second." in di.body
    assert set(Notice.objects.values_list("state", flat=True)) == {"sent"}


def test_with_two_divisions_the_board_names_its_division(
    event, smtp, django_capture_on_commit_callbacks
):
    """Each division numbers its boards from 1 (as TSH and the exports do): with a division B
    beside A, "board 1" alone sent a player of each to different tables (issue 31)."""
    b = services.create_division(event.tournament, name="B", rounds=2)
    for name in ("Ford, Fay", "Gray, Gus"):
        services.register_player(b, name=name, rating=1200)
    _subscribe(event, 0)
    _pair(event, django_capture_on_commit_callbacks, ROUND_1)
    ann = smtp.to("able@players.test")[0]
    assert ann.subject == "Round 1, Notice Open: division A, board 1"
    assert "Round 1: division A, board 1, against Baker, Bo (1600), you go first." in ann.body


def test_a_bye_is_said(event, smtp, django_capture_on_commit_callbacks):
    _subscribe(event, 3)
    _pair(
        event, django_capture_on_commit_callbacks, [PlannedGame(1, 2, board=1), PlannedGame(3, 0)]
    )
    assert smtp.mails == []  # Dunn (#4) is not paired: nothing to say yet
    _pair(
        event,
        django_capture_on_commit_callbacks,
        [PlannedGame(1, 2, board=1), PlannedGame(4, 0), PlannedGame(3, 0)],
        force=True,
    )
    [mail] = smtp.mails
    assert "Round 1: you have a bye (+50)." in mail.body


def test_re_pairing_corrects_only_the_changed_pairings(
    event, smtp, django_capture_on_commit_callbacks
):
    _subscribe(event, 0, 1, 2, 3)
    _pair(event, django_capture_on_commit_callbacks, ROUND_1)
    assert len(smtp.mails) == 4
    # the same pairings stored again: nobody is told twice
    _pair(event, django_capture_on_commit_callbacks, ROUND_1, force=True)
    assert len(smtp.mails) == 4
    # 1 and 2 keep their board; 3 and 4 move to board 5: only those two get a correction
    _pair(
        event,
        django_capture_on_commit_callbacks,
        [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=5)],
        force=True,
    )
    later = smtp.mails[4:]
    assert sorted(m.to[0] for m in later) == ["cole@players.test", "dunn@players.test"]
    assert all(m.subject.startswith("Corrected: Round 1") for m in later)
    assert (
        "Corrected pairing. Round 1: board 5, against Dunn, Di (1400)"
        in later[0].body + later[1].body
    )


def test_the_unsubscribe_link_asks_on_get_and_unsubscribes_on_post(
    event, smtp, django_capture_on_commit_callbacks
):
    _subscribe(event, 0, 1)
    _pair(event, django_capture_on_commit_callbacks, ROUND_1)
    link = _link(smtp.to("able@players.test")[0].body)
    token = link.split("/")[-2]
    # the database keeps no working link: not in the log's bodies, not as the stored hash
    assert not Notice.objects.filter(body__contains=token).exists()
    assert not NoticeSubscription.objects.filter(token_hash=token).exists()
    client = Client()
    page = client.get(link)
    html = page.content.decode()
    assert page.status_code == 200 and "Stop the e-mail notices of Notice Open" in html
    assert "able@players.test" not in html
    assert page["Cache-Control"] == "private, no-store"
    assert NoticeSubscription.objects.get(player=event.entries[0].player).active  # a GET asks
    html = client.post(link).content.decode()
    assert "You are unsubscribed" in html
    assert not NoticeSubscription.objects.get(player=event.entries[0].player).active
    assert "You are unsubscribed" in client.post(link).content.decode()  # again: harmless
    assert "already unsubscribed" in client.get(link).content.decode()
    assert AuditEvent.objects.filter(action="unsubscribe_notices").count() == 1
    # the unsubscribed player gets nothing more; the other still does
    _pair(
        event,
        django_capture_on_commit_callbacks,
        [PlannedGame(2, 1, board=1), PlannedGame(3, 4, board=2)],
        force=True,
    )
    assert len(smtp.to("able@players.test")) == 1
    assert len(smtp.to("baker@players.test")) == 2
    # a made-up or cut link is a plain 404
    assert client.get(link[:-5] + "0000/").status_code == 404
    assert client.post("/notices/unsubscribe/x/").status_code == 404


def test_a_rolled_back_write_sends_nothing(event, smtp, django_capture_on_commit_callbacks):
    _subscribe(event, 0, 1)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            save_round_pairings(event.a, 1, ROUND_1, actor=event.director)
            notices.notify_entry(
                event.tournament, event.entries[0].player, event.a, waiting_position=None
            )
            raise RuntimeError("the director's write fails after the pairing")
    assert callbacks == [] and smtp.mails == []
    assert not Notice.objects.exists()


def test_a_mail_server_down_leaves_the_write_and_marks_the_notice_failed(
    event, smtp_down, django_capture_on_commit_callbacks
):
    _subscribe(event, 0)
    rnd = _pair(event, django_capture_on_commit_callbacks, ROUND_1)
    assert rnd.games.count() == 2  # the pairing stands
    notice = Notice.objects.get()
    assert notice.state == "failed" and "mail server unreachable" in notice.error
    client = Client()
    client.force_login(event.director)
    html = client.get(NOTICES).content.decode()
    assert "(1 failed)" in html and "mail server unreachable" in html


def test_entry_waiting_list_and_promotion_notices(event, smtp, django_capture_on_commit_callbacks):
    _subscribe(event, 2)
    cy = event.entries[2].player
    with django_capture_on_commit_callbacks(execute=True):
        notices.notify_entry(event.tournament, cy, event.a, waiting_position=3)
        notices.notify_promoted(event.tournament, cy, event.a)
        notices.notify_entry(event.tournament, cy, event.a, waiting_position=None)
        # not subscribed: nothing, and no error
        notices.notify_entry(
            event.tournament, event.entries[0].player, event.a, waiting_position=None
        )
    subjects = [m.subject for m in smtp.mails]
    assert subjects == [
        "Waiting list, number 3: Notice Open, division A",
        "You are in: Notice Open, division A",
        "Entry confirmed: Notice Open, division A",
    ]
    assert "you are number 3 on its waiting list" in smtp.mails[0].body
    assert all(m.to == ["cole@players.test"] for m in smtp.mails)
    with pytest.raises(ServiceError) as refused:
        notices.notify_entry(event.tournament, cy, event.a, waiting_position=0)
    assert refused.value.field == "waiting_position"


@pytest.mark.parametrize(
    ("address", "code"),
    [
        ("", "notice_email_needed"),
        ("not-an-address", "notice_bad_email"),
        ("a@b\u202e.test", "bidi_control"),
    ],
)
def test_subscribe_refuses_a_bad_address_at_its_field(event, address, code):
    with pytest.raises(ServiceError) as refused:
        notices.subscribe(event.tournament, event.entries[0].player, address, actor=event.director)
    assert refused.value.field == "email"
    assert code in refused.value.code
    assert (
        not NoticeSubscription.objects.exists()
        and not AuditEvent.objects.filter(action="subscribe_notices").exists()
    )


def test_subscribe_is_idempotent_and_follows_a_new_address(event):
    player = event.entries[0].player
    for _ in range(2):
        notices.subscribe(event.tournament, player, "ann@x.test", actor="entry form")
    assert AuditEvent.objects.filter(action="subscribe_notices").count() == 1
    notices.subscribe(event.tournament, player, "ann@y.test", actor="entry form")
    sub = NoticeSubscription.objects.get()
    assert sub.email == "ann@y.test" and sub.active
    assert "ann@" not in " ".join(AuditEvent.objects.values_list("summary", flat=True))


def test_who_may_subscribe(event):
    """A player opts in on a published tournament's entry form, signed in or not (the entry
    service passes them on); a draft's notices are its staff's to set up."""
    player = event.entries[0].player
    notices.subscribe(event.tournament, player, "ann@x.test", actor=event.stranger)
    assert NoticeSubscription.objects.get().email == "ann@x.test"
    services.publish_tournament(event.tournament, False, actor="test")
    with pytest.raises(ServiceError) as refused:
        notices.subscribe(event.tournament, player, "ann@z.test", actor=event.stranger)
    assert refused.value.code == "not_allowed"
    assert NoticeSubscription.objects.get().email == "ann@x.test"
    notices.subscribe(event.tournament, player, "ann@y.test", actor=event.scorekeeper)
    notices.subscribe(event.tournament, player, "ann@w.test", actor=event.director)
    assert NoticeSubscription.objects.get().email == "ann@w.test"
    # the console's door is the directors' alone, published or not
    services.publish_tournament(event.tournament, True, actor="test")
    for who in (event.scorekeeper, event.stranger):
        with pytest.raises(ServiceError) as refused:
            notices.add_subscriber(event.tournament, player.pk, actor=who)
        assert refused.value.code == "not_allowed"


def _results(event, capture):
    _pair(event, capture, ROUND_1)
    _pair(event, capture, [PlannedGame(1, 3, board=1), PlannedGame(2, 4, board=2)], round_number=2)
    for rnd, player, score, opp in (
        (1, 1, 400, 350),
        (1, 3, 380, 390),
        (2, 1, 410, 300),
        (2, 2, 420, 400),
    ):
        services.record_result(event.a, rnd, player, score, opp, actor=event.director)


def test_final_results_are_confirmed_then_sent_once_then_asked_again(
    event, smtp, django_capture_on_commit_callbacks
):
    _subscribe(event, 0, 3)
    _results(event, django_capture_on_commit_callbacks)
    before = len(smtp.mails)
    client = Client()
    client.force_login(event.director)
    url = NOTICES + "results/"
    html = client.post(url).content.decode()  # the first press only asks
    assert "Yes, send the final results" in html and len(smtp.mails) == before
    with django_capture_on_commit_callbacks(execute=True):
        html = client.post(url, {"confirm": "yes"}).content.decode()
    assert "Final results queued for 2 subscribers." in html
    mails = smtp.mails[before:]
    ann = next(m for m in mails if m.to == ["able@players.test"])
    assert ann.subject == "Final results: Notice Open"
    assert "Division A: place 1 of 4, 2-0, spread +160." in ann.body
    assert "http://testserver/t/notice-open/a/standings/" in ann.body
    di = next(m for m in mails if m.to == ["dunn@players.test"])
    assert "place 3 of 4, 1-1, spread -10." in di.body or "1-1" in di.body
    assert AuditEvent.objects.filter(action="send_final_results").count() == 1
    # sending twice: refused, and the page asks again clearly
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"confirm": "yes"})
    html = response.content.decode()
    assert response.status_code == 400 and "already e-mailed" in html
    assert "Yes, send them again" in html and len(smtp.mails) == before + 2
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url, {"confirm": "yes", "again": "yes"})
    assert len(smtp.mails) == before + 4
    assert AuditEvent.objects.filter(action="send_final_results").count() == 2


def test_final_results_wait_for_the_last_round(event, smtp, django_capture_on_commit_callbacks):
    _subscribe(event, 0)
    _pair(event, django_capture_on_commit_callbacks, ROUND_1)
    with pytest.raises(ServiceError) as refused:
        notices.send_final_results(event.tournament, actor=event.director)
    assert refused.value.code == "final_results_not_final"
    assert "scored through round 0 of 2" in refused.value.message
    assert not Notice.objects.filter(kind="results").exists()


def test_final_results_need_subscribers(event):
    with pytest.raises(ServiceError) as refused:
        notices.send_final_results(event.tournament, actor=event.director)
    assert refused.value.code == "notices_no_subscribers"
