"""Entries online and check-in through the pages: the public form and lists, the mailed
confirmation, the entrant's own page, the console's entries and check-in pages; bad input at
each field refused beside it with nothing written; every role's denial; no e-mail on lists."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.models import AuditEvent, Entry, OnlineEntry, Player
from tournament.services import online_entries as oe
from tournament.services.selfentry import issue_token

from .conftest import enter

PAGE = "/t/spring/entries/"
CONSOLE = "/t/spring/console/setup/"


def counts():
    return (
        OnlineEntry.objects.count(),
        Player.objects.count(),
        Entry.objects.count(),
        AuditEvent.objects.count(),
    )


def director(event) -> Client:
    client = Client()
    client.force_login(event.director)
    return client


@pytest.mark.django_db(transaction=True)  # the mails go after a real commit (issue 33)
def test_a_player_enters_confirms_by_mail_and_sees_their_own_page(event):
    client = Client()
    page = client.get(PAGE)
    assert page.status_code == 200 and b"Entries are open" in page.content
    sent = client.post(
        PAGE, {"division": "a", "name": "Adams, Ada", "email": "ada@example.org", "notices": "on"}
    )
    assert sent.status_code == 200 and b"Check your e-mail" in sent.content
    assert Entry.objects.count() == 0
    body = mail.outbox[-1].body
    confirm, mine = re.findall(r"http://testserver(/entry/\S+/)", body)
    assert client.get(confirm).status_code == 200 and Entry.objects.count() == 0  # GET: nothing
    done = client.post(confirm)
    assert b"as #1" in done.content
    own = client.get(mine)
    assert own.status_code == 200 and b"#1" in own.content
    assert own["Cache-Control"] == "private, no-store"
    client.post(mine + "check-in/")
    assert Entry.objects.get().checked_in_at is not None


def test_a_signed_in_player_is_entered_at_once(event, django_user_model):
    client = Client()
    client.force_login(django_user_model.objects.create_user("bo", "bo@example.org", None))
    answer = client.post(PAGE, {"division": "b", "name": "Brook, Ben"})
    assert answer.status_code == 302 and answer["Location"].startswith("/entry/")
    assert event.b.entries.get().player.name == "Brook, Ben"


def test_the_registry_search_picks_a_player(event):
    ada = Player.objects.create(name="Adams, Ada", email="secret@example.org")
    page = Client().get(PAGE, {"q": "adams"})
    assert f"?player={ada.pk}".encode() in page.content
    assert b"secret@example.org" not in page.content
    Client().post(PAGE, {"division": "b", "player": str(ada.pk), "email": "a@example.org"})
    assert OnlineEntry.objects.get().player == ada


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"division": "zz"}, "division", "valid choice"),
        ({"name": ""}, "name", "give the player"),
        ({"name": "Semi; Colon"}, "name", ";"),
        ({"email": "not-an-address"}, "email", "not an e-mail address"),
        ({"email": ""}, "email", "give your e-mail"),
        ({"player": "abc"}, None, "not a whole number"),
        ({"player": "999999"}, None, "no player 999999"),
    ],
)
def test_bad_input_at_each_entry_field_changes_nothing(event, data, field, words):
    before = counts()
    post = {"division": "a", "name": "Adams, Ada", "email": "ada@example.org", **data}
    answer = Client().post(PAGE, post)
    assert answer.status_code == 400
    text = answer.content.decode()
    assert words in text
    if field:
        assert f'id="id_{field}_error"' in text
    assert counts() == before and not mail.outbox


def test_an_entry_is_refused_when_entries_are_closed(event):
    oe.close_entries(event.tournament, actor=event.director)
    assert b"Entries are closed" in Client().get(PAGE).content
    before = counts()
    answer = Client().post(PAGE, {"division": "a", "name": "Adams, Ada", "email": "a@example.org"})
    assert answer.status_code == 400 and counts() == before


def test_entry_lists_show_no_contact_details(event):
    for name in ("Adams, Ada", "Brook, Ben", "Chu, Cara", "Diaz, Dev"):
        enter(event.a, name)
    Player.objects.update(phone="555-0100")
    text = Client().get(PAGE).content.decode()
    assert "Diaz, Dev" in text and "Waiting list" in text
    assert "@example.org" not in text and "555-0100" not in text
    api = Client().get("/api/v1/tournaments/spring/entries/").content.decode()
    assert "Diaz, Dev" in api and "@" not in api and "555-0100" not in api


def test_withdrawing_from_ones_own_page_promotes_the_first_waiting(event):
    done = [enter(event.a, n) for n in ("Adams, Ada", "Brook, Ben", "Chu, Cara", "Diaz, Dev")]
    client = Client()
    mine = f"/entry/{done[0].link_token}/"
    client.post(mine + "withdraw/")  # not ticked: nothing
    assert event.a.entries.count() == 3 and OnlineEntry.objects.filter(status="waiting").exists()
    client.post(mine + "withdraw/", {"sure": "yes"})
    waiting = client.get(f"/entry/{done[3].link_token}/")
    assert b"moved off the waiting list" in waiting.content and b"#3" in waiting.content


def test_a_wrong_link_is_a_plain_404_and_cannot_act(event):
    done = enter(event.a, "Adams, Ada")
    other = enter(event.a, "Brook, Ben")
    wrong = done.link_token[:-2] + ("AA" if not done.link_token.endswith("AA") else "BB")
    client = Client()
    assert client.get(f"/entry/{wrong}/").status_code == 404
    assert client.post(f"/entry/{wrong}/withdraw/", {"sure": "yes"}).status_code == 404
    assert client.post(f"/entry/{wrong}/check-in/").status_code == 404
    # one entrant's page acts on their own entry only
    client.post(f"/entry/{other.link_token}/check-in/")
    assert Entry.objects.get(player__name="Brook, Ben").checked_in_at is not None
    assert Entry.objects.get(player__name="Adams, Ada").checked_in_at is None


def test_a_player_checks_in_from_the_scorecard_link(event):
    entry = services.register_player(event.b, name="Evans, Eve")
    token = issue_token(entry)
    page = Client().get(f"/e/{token}/")
    assert b"check me in" in page.content
    Client().post(f"/e/{token}/check-in/")
    entry.refresh_from_db()
    assert entry.checked_in_at is not None


# --------------------------------------------------------------------------- the console


def test_director_opens_entries_and_sets_a_rule_from_the_console(event):
    client = director(event)
    assert client.get(CONSOLE + "entries/").status_code == 200
    answer = client.post(
        CONSOLE + "entries/open/", {"opens": "2030-01-01 09:00", "closes": "2030-02-01 09:00"}
    )
    assert answer.status_code == 302
    assert b"Entries open at 2030-01-01" in client.get(CONSOLE + "entries/").content
    client.post(CONSOLE + "entries/rule/b/", {"b-cap": "12", "b-rating_max": "1600"})
    rule = event.b.entry_rule
    rule.refresh_from_db()
    assert (rule.cap, rule.rating_min, rule.rating_max) == (12, None, 1600)


@pytest.mark.parametrize(
    ("url", "data", "field", "words"),
    [
        ("entries/open/", {"opens": "soon", "closes": "2030-02-01"}, "opens", "not a date"),
        ("entries/open/", {"opens": "2030-02-01", "closes": "2030-01-01"}, "closes", "must close"),
        ("entries/open/", {"opens": "", "closes": "2030-01-01"}, "opens", "required"),
        ("entries/rule/a/", {"a-cap": "many"}, "a-cap", "not a whole number"),
        ("entries/rule/a/", {"a-cap": "-3"}, "a-cap", "at least 0"),
        (
            "entries/rule/a/",
            {"a-rating_min": "1800", "a-rating_max": "1200"},
            "a-rating_max",
            "above",
        ),
        ("entries/rule/a/", {"a-rating_max": "99999"}, "a-rating_max", "at most"),
        ("entries/rule/a/", {"a-fee_amount": "9" * 30}, "a-fee_amount", "at most 20"),
        ("entries/rule/a/", {"a-fee_currency": "dollars!!!!!"}, "a-fee_currency", "at most 10"),
    ],
)
def test_bad_input_at_each_console_field_changes_nothing(event, url, data, field, words):
    before = counts()
    rule_before = (event.a.entry_rule.cap, event.a.entry_rule.fee_amount)
    answer = director(event).post(CONSOLE + url, data)
    assert answer.status_code == 400
    text = answer.content.decode()
    assert words in text and f'id="id_{field}_error"' in text
    event.a.entry_rule.refresh_from_db()
    assert counts() == before
    assert (event.a.entry_rule.cap, event.a.entry_rule.fee_amount) == rule_before


def test_director_marks_paid_promotes_and_refuses_from_the_entries_page(event):
    done = [enter(event.a, n) for n in ("Adams, Ada", "Brook, Ben", "Chu, Cara", "Diaz, Dev")]
    client = director(event)
    act = CONSOLE + "entries/act/"
    client.post(act, {"entry": done[0].online.pk, "action": "paid"})
    client.post(act, {"entry": done[3].online.pk, "action": "promote"})
    client.post(act, {"entry": done[1].online.pk, "action": "refuse", "reason": "no fee"})
    client.post(act, {"entry": done[2].online.pk, "action": "move", "to": "b"})
    states = dict(OnlineEntry.objects.values_list("player__name", "status"))
    assert states == {
        "Adams, Ada": "entered",
        "Brook, Ben": "refused",
        "Chu, Cara": "entered",
        "Diaz, Dev": "entered",
    }
    assert OnlineEntry.objects.get(pk=done[0].online.pk).paid
    assert event.b.entries.get().player.name == "Chu, Cara"
    before = counts()
    client.post(act, {"entry": "nope", "action": "paid"})
    client.post(act, {"entry": done[0].online.pk, "action": "explode"})
    client.post(act, {"entry": done[0].online.pk, "action": "move", "to": "zz"})
    assert counts() == before


def test_director_checks_players_in_and_removes_the_absent(event):
    for name in ("Adams, Ada", "Brook, Ben", "Chu, Cara", "Diaz, Dev"):
        services.register_player(event.b, name=name)
    client = director(event)
    page = client.get(CONSOLE + "checkin/")
    assert page.status_code == 200 and b"0 of 4" in page.content
    for number in (1, 3):
        pk = event.b.entries.get(number=number).pk
        client.post(CONSOLE + "checkin/tap/", {"entry": pk, "here": "1"})
    assert b"2 of 4" in Client().get("/t/spring/").content  # the public "who is here"
    confirm = client.get(CONSOLE + "checkin/absent/b/")
    assert b"Brook, Ben" in confirm.content and Entry.objects.count() == 4
    client.post(CONSOLE + "checkin/absent/b/")
    assert list(event.b.entries.order_by("number").values_list("number", "player__name")) == [
        (1, "Adams, Ada"),
        (2, "Chu, Cara"),
    ]
    before = counts()
    client.post(CONSOLE + "checkin/tap/", {"entry": "x"})
    assert counts() == before


def test_removing_the_absent_is_refused_once_round_1_is_paired(event):
    for name in ("Adams, Ada", "Brook, Ben"):
        services.register_player(event.b, name=name)
    client = director(event)
    client.post(CONSOLE + "checkin/tap/", {"entry": event.b.entries.get(number=1).pk})
    save_round_pairings(event.b, 1, [PlannedGame(1, 2, board=1)])
    before = counts()
    client.post(CONSOLE + "checkin/absent/b/")
    assert counts() == before and event.b.entries.count() == 2


CONSOLE_POSTS = [
    ("entries/open/", {"opens": "2030-01-01", "closes": "2030-02-01"}),
    ("entries/close/", {}),
    ("entries/rule/a/", {"a-cap": "99"}),
    ("entries/act/", {"action": "paid"}),
    ("checkin/tap/", {"here": "1"}),
    ("checkin/absent/b/", {}),
]


@pytest.mark.parametrize("role", ["anonymous", "other_director", "scorekeeper"])
def test_every_console_door_refuses_all_but_the_tournaments_directors(event, role):
    done = enter(event.a, "Adams, Ada")
    services.register_player(event.b, name="Brook, Ben")
    services.register_player(event.b, name="Chu, Cara")
    client = Client()
    if role != "anonymous":
        client.force_login(getattr(event, role))
    before = counts()
    for url, data in CONSOLE_POSTS:
        if url == "entries/act/":
            data = {**data, "entry": done.online.pk}
        if url == "checkin/tap/":
            data = {**data, "entry": event.b.entries.get(number=1).pk}
        answer = client.post(CONSOLE + url, data)
        if role == "anonymous":
            assert answer.status_code == 302 and "/login/" in answer["Location"], url
        else:
            assert answer.status_code == 403, url
    for url in ("entries/", "checkin/", "checkin/absent/b/"):
        assert client.get(CONSOLE + url).status_code in (302, 403)
    assert counts() == before
    assert not OnlineEntry.objects.get().paid
    assert not Entry.objects.filter(checked_in_at__isnull=False).exists()


JUNK = ["", "x", "-1", "99999999999999999999", "\x00", "²", "a" * 5000, "٣", "\u202eevil"]


def test_hostile_input_to_the_public_pages_never_answers_a_server_error(event):
    done = enter(event.a, "Adams, Ada")
    client = Client()
    paths = [
        PAGE,
        f"/entry/{done.link_token}/withdraw/",
        f"/entry/{done.link_token}/check-in/",
        f"/entry/confirm/{'x' * 40}/",
        "/entry/confirm/short/",
        f"/entry/{'y' * 40}/",
    ]
    for junk in JUNK:
        data = {f: junk for f in ("division", "player", "name", "email", "notices", "sure")}
        for path in paths:
            assert client.post(path, data).status_code < 500, (path, junk[:10])
        assert client.get(PAGE, {"q": junk, "player": junk}).status_code < 500, junk[:10]
    assert Entry.objects.count() == 1


def test_a_name_only_nearly_a_registry_players_offers_them_to_pick(event):
    di = Player.objects.create(name="Arden, Di", email="di@example.org")
    before = counts()
    answer = Client().post(PAGE, {"division": "b", "name": "Arden, Ed", "email": "e@example.org"})
    text = answer.content.decode()
    assert answer.status_code == 400 and 'id="id_name_error"' in text
    assert f"?player={di.pk}" in text and "di@example.org" not in text
    assert counts() == before
