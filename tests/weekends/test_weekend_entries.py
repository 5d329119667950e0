"""The weekend's one entry form for several events (issue 22 item 5): a division per event,
entered through the online-entry services in one transaction, one mailed link confirming
them all (or at once when signed in), each event's rules applying, and bad input refused at
its field with nothing written."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.utils import timezone

from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Entry, NoticeSubscription, OnlineEntry, Player
from tournament.services import online_entries as oe
from tournament.services.weekends import add_event, create_weekend

pytestmark = pytest.mark.django_db
URL = "/weekends/spring/"


@pytest.fixture
def weekend(settings):
    """Early bird (A open) and main event (A capped at 1, already full; B for 1500 and up)."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    now = timezone.now()
    early = services.create_tournament(name="Early Bird", slug="early", published=True)
    main = services.create_tournament(name="Main Event", slug="main", published=True)
    td = make_director(early, "td-both")
    main.directors.add(td)
    ea = services.create_division(early, name="A", rounds=3)
    ma = services.create_division(main, name="A", rounds=3)
    mb = services.create_division(main, name="B", rounds=3)
    for t in (early, main):
        oe.open_entries(t, now - dt.timedelta(hours=1), now + dt.timedelta(days=2), actor=td)
    oe.set_division_rule(ea, actor=td)
    oe.set_division_rule(ma, cap=1, actor=td)
    oe.set_division_rule(mb, rating_min="1500", actor=td)
    services.register_player(ma, name="Hand, Hattie", actor=td)
    w = create_weekend(td, "Spring Weekend", early, slug="spring")
    add_event(w, main, td)
    mail.outbox.clear()
    return w


def written() -> tuple[int, ...]:
    return (
        OnlineEntry.objects.count(),
        Player.objects.count(),
        Entry.objects.count(),
        AuditEvent.objects.count(),
        NoticeSubscription.objects.count(),
        len(mail.outbox),
    )


@pytest.mark.django_db(transaction=True)  # the mails go after a real commit (issue 33)
def test_one_form_enters_both_events_and_one_link_confirms_them(client, weekend):
    page = client.get(URL).content.decode()
    assert 'name="event-early"' in page and 'name="event-main"' in page
    r = client.post(
        URL,
        {
            "event-early": "a",
            "event-main": "a",
            "name": "Wren, Willa",
            "email": "willa@example.org",
            "notices": "on",
        },
    )
    assert r.status_code == 200 and 'id="sent"' in r.content.decode()
    assert len(mail.outbox) == 1  # one mail, one link for both
    body = mail.outbox[0].body
    links = re.findall(r"/weekends/spring/confirm/[^/\s]+/", body)
    assert len(links) == 1 and len(re.findall(r"/entry/[^/\s]+/", body)) == 2
    online = OnlineEntry.objects.filter(player__name="Wren, Willa")
    assert {o.status for o in online} == {"unconfirmed"} and online.count() == 2
    assert Player.objects.filter(name="Wren, Willa").count() == 1  # one registry player

    assert client.get(links[0]).status_code == 200  # a GET changes nothing
    assert {o.status for o in online.all()} == {"unconfirmed"}
    r = client.post(links[0])
    assert r.status_code == 200
    shown = r.content.decode()
    assert "Early Bird: entered in division A as #1" in shown
    assert "Main Event: division A is full: number 1 on its waiting list" in shown  # its cap
    by_event = dict(online.values_list("tournament__slug", "status"))
    assert by_event == {"early": "entered", "main": "waiting"}
    assert client.post(links[0]).status_code == 200  # a second click changes nothing
    assert dict(online.values_list("tournament__slug", "status")) == by_event


@pytest.mark.django_db(transaction=True)  # the mails go after a real commit (issue 33)
def test_a_registry_players_name_on_the_weekend_form_waits_for_the_player(client, weekend):
    """Issue 31: someone typing a registry player's name enters nobody; the one link goes to
    the address the registry holds, and the player's confirmation gives them new pages."""
    Player.objects.create(name="Wren, Willa", email="willa@example.org")
    post = {"event-early": "a", "event-main": "a", "name": "Wren, Willa", "email": "x@ex.org"}
    r = client.post(URL, post)
    assert r.status_code == 200 and 'id="pending"' in r.content.decode()
    online = OnlineEntry.objects.filter(player__name="Wren, Willa")
    assert {o.status for o in online} == {"pending"} and Entry.objects.count() == 1
    to_player = [m for m in mail.outbox if m.to == ["willa@example.org"]]
    to_maker = [m for m in mail.outbox if m.to == ["x@ex.org"]]
    assert len(to_player) == 1 and len(to_maker) == 1
    assert "/confirm/" not in to_maker[0].body
    old_pages = re.findall(r"/entry/[^/\s]+/", to_maker[0].body)
    link = re.search(r"/weekends/spring/confirm/[^/\s]+/", to_player[0].body).group(0)
    assert "Early Bird: entered in division A as #1" in client.post(link).content.decode()
    assert dict(online.values_list("tournament__slug", "status")) == {
        "early": "entered",
        "main": "waiting",
    }
    assert all(client.get(p).status_code == 404 for p in old_pages)  # the maker's pages
    new_pages = re.findall(r"/entry/[^/\s]+/", mail.outbox[-1].body)
    assert mail.outbox[-1].to == ["willa@example.org"] and len(new_pages) == 2
    assert all(client.get(p).status_code == 200 for p in new_pages)


def test_signed_in_the_entries_count_at_once(client, weekend):
    user = get_user_model().objects.create_user("willa", "willa@example.org", "pw-long-enough-1")
    client.force_login(user)
    r = client.post(URL, {"event-early": "a", "event-main": "", "name": "Wren, Willa"})
    assert r.status_code == 200 and 'id="sent"' not in r.content.decode()
    assert list(OnlineEntry.objects.values_list("tournament__slug", "status")) == [
        ("early", "entered")
    ]


@pytest.mark.parametrize(
    ("post", "field", "words"),
    [
        ({"event-early": "", "event-main": ""}, None, "choose a division in at least one"),
        ({"event-early": "zz", "event-main": ""}, "event-early", "Select a valid choice"),
        ({"event-early": "a", "event-main": "b"}, "event-main", "1500"),  # its band
        ({"event-early": "a", "email": "not-an-address"}, "email", "not-an-address"),
        ({"event-early": "a", "email": ""}, "email", "e-mail"),
        ({"event-early": "a", "name": ""}, "name", "name"),
    ],
)
def test_bad_input_is_refused_at_its_field_and_nothing_is_written(
    client, weekend, post, field, words
):
    data = {"name": "Wren, Willa", "email": "willa@example.org", "notices": "on", **post}
    before = written()
    r = client.post(URL, data)
    assert r.status_code == 400
    form = r.context["form"]
    errors = form.errors.get(field or "__all__")
    assert errors and words.lower() in " ".join(errors).lower(), form.errors
    assert written() == before


def test_an_event_not_taking_entries_has_no_place_on_the_form(client, weekend):
    main = weekend.events.get(position=2).tournament
    oe.close_entries(main, actor="test")
    page = client.get(URL).content.decode()
    assert 'name="event-early"' in page and 'name="event-main"' not in page
    before = written()
    r = client.post(URL, {"event-main": "a", "name": "Wren, Willa", "email": "w@example.org"})
    assert r.status_code == 400 and written() == before


def test_a_bad_or_foreign_confirmation_link_is_refused_and_changes_nothing(client, weekend):
    before = written()
    r = client.post("/weekends/spring/confirm/" + "x" * 40 + "/")
    assert r.status_code == 400 and 'id="confirm-error"' in r.content.decode()
    # an entry to a tournament outside the weekend: its link does not confirm through it
    other = services.create_tournament(name="Other Open", slug="other", published=True)
    od = services.create_division(other, name="A", rounds=3)
    now = timezone.now()
    oe.open_entries(other, now - dt.timedelta(hours=1), now + dt.timedelta(days=1), actor="test")
    oe.set_division_rule(od, actor="test")
    done = oe.submit_entry(od, name="Yew, Yan", email="yan@example.org")
    r = client.post(f"/weekends/spring/confirm/{done.confirm_token}/")
    assert r.status_code == 400
    assert OnlineEntry.objects.get(pk=done.online.pk).status == "unconfirmed"
    assert written()[0] == before[0] + 1


def test_the_service_refuses_a_tournament_outside_the_weekend_at_its_field(weekend):
    other = services.create_tournament(name="Other Open", slug="other", published=True)
    od = services.create_division(other, name="A", rounds=3)
    before = written()
    with pytest.raises(ServiceError) as refused:
        oe.submit_weekend_entries(weekend, {other: od}, name="Yew, Yan", email="y@example.org")
    assert refused.value.code == "weekend_entries_not_an_event"
    assert refused.value.field == "event-other"
    assert written() == before


@pytest.mark.django_db(transaction=True)  # the mail goes after a real commit (issue 33)
def test_with_the_mail_server_down_the_weekend_entries_are_stored_and_the_mail_follows(
    client, weekend, settings
):
    from aiosmtpd.controller import Controller

    from tests.core.smtp import Inbox, free_port, point_mail_at
    from tournament.services import notices

    port = free_port()
    point_mail_at(settings, port)  # nobody listens there yet
    r = client.post(
        URL,
        {"event-early": "a", "event-main": "a", "name": "Wren, Willa", "email": "w@example.org"},
    )
    page = r.content.decode()
    assert r.status_code == 200 and 'id="sent"' in page and 'id="mail-late"' in page
    assert OnlineEntry.objects.filter(email="w@example.org", status="unconfirmed").count() == 2
    inbox = Inbox()
    server = Controller(inbox, hostname="127.0.0.1", port=port)
    server.start()
    try:
        assert notices.retry_failed()["sent"] == 1
    finally:
        server.stop()
    [mailed] = inbox.to("w@example.org")
    # "send the link again" on the weekend's page: its one mail, the same link, once more
    assert 'id="resend"' in page
    server = Controller(inbox, hostname="127.0.0.1", port=port)
    server.start()
    try:
        again = client.post("/t/early/entries/resend/", {"email": "w@example.org"})
    finally:
        server.stop()
    assert again.status_code == 200 and [m.body for m in inbox.to("w@example.org")] == [
        mailed.body,
        mailed.body,
    ]
    [link] = re.findall(r"http://testserver(/weekends/spring/confirm/[^/\s]+/)", mailed.body)
    assert client.post(link).status_code == 200
    assert set(OnlineEntry.objects.values_list("status", flat=True)) >= {"entered"}
