"""The director's actions on online entries from every face: the console's buttons, the
``entries`` command and the API call one service (``apply_entry_action``), so a pending entry
is approved, refused, promoted, demoted, marked paid or moved with the same checks and the
same audit event from any of them; each refusal names what and changes nothing."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tournament.models import AuditEvent, OnlineEntry, Player
from tournament.services import online_entries as oe

from .conftest import enter
from .test_entry_api import client_for

Status = OnlineEntry.Status
API = "/api/v1/tournaments/spring/online-entries/"


def run(*args: str) -> dict:
    out = StringIO()
    call_command("entries", "spring", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


@pytest.fixture
def pending(event) -> OnlineEntry:
    """Someone enters registry player Quill from their own address: pending until approved."""
    quill = Player.objects.create(name="Quill, Quentin", email="qq@example.org")
    return oe.submit_entry(event.a, player_id=quill.pk, email="prank@example.org").online


def test_the_command_lists_online_entries_and_approves_a_pending_one(event, pending):
    listed = run("online")["online_entries"]
    assert [(r["id"], r["name"], r["status"]) for r in listed] == [
        (pending.pk, "Quill, Quentin", "pending")
    ]
    assert "prank@example.org" not in json.dumps(listed)  # no contact details off the console
    done = run("approve", str(pending.pk))
    assert done["status"] == "entered" and done["name"] == "Quill, Quentin"
    assert event.a.entries.filter(player__name="Quill, Quentin").exists()
    assert AuditEvent.objects.filter(action="approve_entry", actor="entries").exists()


def test_the_command_refuses_with_the_reason_and_moves_by_division_name(event, pending):
    ada = enter(event.a, "Adams, Ada").online
    moved = run("move", str(ada.pk), "--to", "B")
    assert moved["division"] == "B" and moved["status"] == "entered"
    assert event.b.entries.filter(player__name="Adams, Ada").exists()
    refused = run("refuse", str(pending.pk), "--reason", "not his entry")
    assert refused["status"] == "declined"
    assert OnlineEntry.objects.get(pk=pending.pk).note == "not his entry"
    assert run("paid", str(ada.pk))["paid"] is True


@pytest.mark.parametrize(
    "args, code",
    [
        (("approve",), "setup_required"),  # no id
        (("approve", "x1"), "entries_unknown_entry"),
        (("approve", "999"), "entries_unknown_entry"),
        (("promote", "{pk}"), "entries_state"),  # pending: not waiting
        (("move", "{pk}", "--to", "Z"), "reg_move_where"),
        (("approve", "{pk}", "--as", "kit"), "not_allowed"),  # a scorekeeper
        (("approve", "{pk}", "--as", "olga"), "not_allowed"),  # another tournament's director
    ],
)
def test_command_refusals_name_the_fault_and_change_nothing(event, pending, args, code):
    args = tuple(a.replace("{pk}", str(pending.pk)) for a in args)
    before = AuditEvent.objects.count()
    with pytest.raises(CommandError) as exc:
        call_command("entries", "spring", *args, "--json", stdout=StringIO())
    assert exc.value.code == code, str(exc.value)
    pending.refresh_from_db()
    assert pending.status == Status.PENDING and AuditEvent.objects.count() == before
    assert event.a.entries.count() == 0


def test_the_api_lists_and_approves_for_the_tournaments_director(event, pending):
    director = client_for(event.director)
    listed = director.get(API)
    assert listed.status_code == 200
    assert [(r["id"], r["status"]) for r in listed.json()] == [(pending.pk, "pending")]
    assert "prank@example.org" not in listed.content.decode()
    answer = director.post(f"{API}{pending.pk}/", {"action": "approve"}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "entered" and answer.json()["number"] == 1
    assert AuditEvent.objects.filter(action="approve_entry").count() == 1


@pytest.mark.parametrize("who", ["anonymous", "scorekeeper", "other director"])
def test_the_api_refuses_everyone_else_and_changes_nothing(event, pending, who):
    user = {"anonymous": None, "scorekeeper": event.scorekeeper}.get(who, event.other_director)
    client = client_for(user)
    assert client.get(API).status_code in (401, 403)
    answer = client.post(f"{API}{pending.pk}/", {"action": "approve"}, format="json")
    assert answer.status_code in (401, 403)
    pending.refresh_from_db()
    assert (
        pending.status == Status.PENDING
        and not AuditEvent.objects.filter(action="approve_entry").exists()
    )


@pytest.mark.parametrize(
    "body, status, field",
    [
        ({"action": "bless"}, 400, "action"),
        ({"action": "approve", "opp": 1}, 400, "opp"),
        ({"action": "move", "to": "Z"}, 400, "to"),
        ({"action": "promote"}, 400, None),
    ],
)
def test_api_bad_input_is_named_and_changes_nothing(event, pending, body, status, field):
    answer = client_for(event.director).post(f"{API}{pending.pk}/", body, format="json")
    assert answer.status_code == status, answer.content
    if field:
        assert field in answer.content.decode()
    pending.refresh_from_db()
    assert pending.status == Status.PENDING and event.a.entries.count() == 0


def test_an_entry_of_another_tournament_is_not_found(event, pending):
    answer = client_for(event.director).post(
        f"/api/v1/tournaments/other/online-entries/{pending.pk}/",
        {"action": "approve"},
        format="json",
    )
    assert answer.status_code in (403, 404)
    pending.refresh_from_db()
    assert pending.status == Status.PENDING
