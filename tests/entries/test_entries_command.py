"""The ``entries`` command: list, check in, remove the absent; refusals exit non-zero with
the code in --json and change nothing."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tournament import services
from tournament.models import AuditEvent
from tournament.services import checkin
from tournament.services import online_entries as oe

from .conftest import enter


def run(*args: str) -> dict:
    out = StringIO()
    call_command("entries", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


@pytest.fixture
def field(event):
    for name in ("Evans, Eve", "Fong, Fay", "Gale, Gus"):
        services.register_player(event.b, name=name)
    return event


def test_list_check_in_and_remove_the_absent(field):
    assert run("spring", "list")["players"] == 3
    assert run("spring", "check-in", "2", "--division", "B")["here"] is True
    listed = run("spring", "list")
    assert listed["checked_in"] == 1 and listed["divisions"][1]["entrants"][1]["checked_in"]
    assert run("spring", "remove-absent", "--division", "B")["removed"] == [
        "#1 Evans, Eve",
        "#3 Gale, Gus",
    ]


def test_remove_absent_names_the_checked_in_waiting_it_promoted(event):
    done = [enter(event.a, n) for n in ("Adams, Ada", "Brook, Ben", "Chu, Cara", "Diaz, Dev")]
    checkin.check_in(done[0].online.entry, actor=event.director)
    checkin.check_in_waiting(done[3].online, actor=oe.entries_actor(done[3].online))
    answer = run("spring", "remove-absent", "--division", "A")
    assert answer["removed"] == ["#2 Brook, Ben", "#3 Chu, Cara"]
    assert answer["promoted"] == ["#2 Diaz, Dev"]


@pytest.mark.parametrize(
    "args",
    [
        ("check-in", "--division", "B"),
        ("check-in", "x7", "--division", "B"),
        ("check-in", "9", "--division", "B"),
        ("remove-absent", "--division", "B"),
        ("check-in", "1", "--division", "Z"),
        ("check-in", "1", "--division", "B", "--as", "kit"),
    ],
)
def test_refusals_change_nothing(field, args):
    before = AuditEvent.objects.count()
    with pytest.raises((CommandError, SystemExit)):
        run("spring", *args)
    assert AuditEvent.objects.count() == before and field.b.entries.count() == 3


def test_the_lists_are_the_apis_rows(event):
    """``entries list --json`` prints each division's entrants and waiting list with the API's
    rows (tournament.shapes); the waiting rows had no club before."""
    from rest_framework.test import APIClient

    for name in ("Adams, Ada", "Brook, Ben", "Chu, Cara", "Diaz, Dev"):
        enter(event.a, name)  # A takes 3: Diaz waits
    listed = run("spring", "list")["divisions"]
    api = APIClient().get("/api/v1/tournaments/spring/entries/").json()["divisions"]
    assert listed[0]["waiting"] and listed[0]["entrants"]
    assert [(d["entrants"], d["waiting"]) for d in listed] == [
        (d["entrants"], d["waiting"]) for d in api
    ]
