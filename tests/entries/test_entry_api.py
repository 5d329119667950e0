"""Entries and check-in over the API: the public lists (no contact details), a director's
check-in and removal of the absent; bad input refused with nothing written; every role."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tournament import services
from tournament.models import AuditEvent, Entry, Player

from .conftest import enter

API = "/api/v1/tournaments/spring/"


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def field(event):
    for name in ("Adams, Ada", "Brook, Ben", "Chu, Cara", "Diaz, Dev"):
        enter(event.a, name)
    for name in ("Evans, Eve", "Fong, Fay", "Gale, Gus"):
        services.register_player(event.b, name=name)
    Player.objects.update(phone="555-0100")
    return event


def test_the_entry_lists_carry_no_contact_details(field):
    answer = client_for(None).get(API + "entries/")
    assert answer.status_code == 200
    data = answer.json()
    a = data["divisions"][0]
    assert [e["name"] for e in a["entrants"]] == ["Adams, Ada", "Brook, Ben", "Chu, Cara"]
    assert a["waiting"] == [{"position": 1, "name": "Diaz, Dev", "rating": 0, "club": ""}]
    assert (a["cap"], a["fee"], data["state"]) == (3, "40 USD", "open")
    assert "@" not in answer.content.decode() and "555" not in answer.content.decode()


def test_a_director_checks_in_and_removes_the_absent(field):
    client = client_for(field.director)
    answer = client.post(API + "divisions/b/entries/2/check-in/", {"here": True}, format="json")
    assert answer.status_code == 200 and answer.json()["checked_in"] is True
    assert client_for(None).get(API + "entries/").json()["checked_in"] == 1
    answer = client.post(API + "divisions/b/remove-absent/", format="json")
    assert answer.json() == {"removed": ["#1 Evans, Eve", "#3 Gale, Gus"], "promoted": []}
    assert list(field.b.entries.values_list("number", "player__name")) == [(1, "Fong, Fay")]


@pytest.mark.parametrize(
    "body", [{"here": "yes"}, {"here": 1}, {"here": True, "when": "now"}, {"here": None}]
)
def test_bad_check_in_input_changes_nothing(field, body):
    before = AuditEvent.objects.count()
    answer = client_for(field.director).post(
        API + "divisions/b/entries/1/check-in/", body, format="json"
    )
    assert answer.status_code == 400
    assert AuditEvent.objects.count() == before
    assert not Entry.objects.filter(checked_in_at__isnull=False).exists()


def test_removing_the_absent_when_nobody_checked_in_is_refused_by_code(field):
    answer = client_for(field.director).post(API + "divisions/b/remove-absent/", format="json")
    assert answer.status_code == 400
    assert answer.json()["errors"][0]["code"] == "checkin_nobody"
    assert field.b.entries.count() == 3


@pytest.mark.parametrize("role", ["anonymous", "other_director", "scorekeeper"])
def test_only_directors_write_check_ins(field, role):
    client = client_for(None if role == "anonymous" else getattr(field, role))
    before = AuditEvent.objects.count()
    for url in ("divisions/b/entries/1/check-in/", "divisions/b/remove-absent/"):
        answer = client.post(API + url, {}, format="json")
        assert answer.status_code in (401, 403), url
    assert AuditEvent.objects.count() == before and field.b.entries.count() == 3
