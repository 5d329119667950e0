"""A full disk answers "the server's disk is full; tell the director", never a bare 500
(issue 31, item 5c).

The disk is not filled: the write that would fail is made to fail as it does on a full disk
(``OSError`` ENOSPC from a file write, SQLite's "database or disk is full" from a query), at
sign-in, at result entry (the console and the API), at an upload and in a command.
"""

from __future__ import annotations

import errno
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.sessions.backends.db import SessionStore
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.core.management import CommandError, call_command
from django.db.backends import utils as db_utils
from django.db.utils import OperationalError
from django.test import Client

from pairings.services.store import PlannedGame, save_round_pairings
from tests.api.conftest import token_client
from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent, Game, ImportJob

FULL = "disk is full, so nothing was saved"  # the apostrophe before it is escaped in HTML
PASSWORD = "pw-long-enough-1"


def disk_full_db() -> OperationalError:
    return OperationalError("database or disk is full")


def disk_full_os() -> OSError:
    return OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture
def event(db):
    t = services.create_tournament(name="Full Open", slug="full-open")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=3)
    for n in range(1, 5):
        services.register_player(d, name=f"Player{n}, Test", rating=1500 + n)
    save_round_pairings(d, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)])
    return t, d


def writes_fail(monkeypatch) -> None:
    """From now on every INSERT and UPDATE meets a full disk (reads go on, as they do)."""
    execute: Callable = db_utils.CursorWrapper.execute

    def full(self, sql, params=None):
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
            raise disk_full_db()
        return execute(self, sql, params)

    monkeypatch.setattr(db_utils.CursorWrapper, "execute", full)


def assert_disk_full_page(answer) -> None:
    assert answer.status_code == 507, (answer.status_code, answer.content[:300])
    body = answer.content.decode()
    assert FULL in body and "tell the director" in body
    assert "Traceback" not in body and "Server Error" not in body


@pytest.mark.parametrize("when", ["in the view", "after the view"])
def test_sign_in_on_a_full_disk_says_so(db, monkeypatch, when):
    get_user_model().objects.create_user("full", "full@example.org", PASSWORD)
    saved = SessionStore.save

    def save(self, must_create=False):
        # the sign-in's new session is saved in the view, its contents by the middleware after
        if must_create and when == "after the view":
            return saved(self, must_create=True)
        raise disk_full_db()

    monkeypatch.setattr(SessionStore, "save", save)
    client = Client(raise_request_exception=False)
    answer = client.post("/accounts/login/", {"username": "full", "password": PASSWORD})
    assert_disk_full_page(answer)


def test_a_result_typed_on_a_full_disk_is_refused_at_the_line(event, monkeypatch):
    t, d = event
    client = Client(raise_request_exception=False)
    client.force_login(make_director(t, "full-td"))
    audits = AuditEvent.objects.count()
    writes_fail(monkeypatch)
    answer = client.post(
        f"/t/{t.slug}/console/{d.slug}/round/1/results/",
        {"line": "1 400 300"},
        HTTP_HX_REQUEST="true",
    )
    monkeypatch.undo()
    assert answer.status_code == 400  # htmx shows it where the line was typed
    assert FULL in answer.content.decode()
    assert Game.objects.filter(score1__isnull=False).count() == 0
    assert AuditEvent.objects.count() == audits


def test_an_api_result_on_a_full_disk_is_a_507_in_the_api_shape(event, monkeypatch):
    t, d = event
    client = token_client(make_director(t, "full-api"))
    writes_fail(monkeypatch)
    answer = client.post(
        f"/api/v1/tournaments/{t.slug}/divisions/{d.slug}/results/",
        {"round": 1, "player": 1, "score": 400, "opp_score": 300},
        format="json",
    )
    monkeypatch.undo()
    assert answer.status_code == 507, answer.content
    error = answer.json()["errors"][0]
    assert error["code"] == "disk_full" and FULL in error["message"]
    assert Game.objects.filter(score1__isnull=False).count() == 0


@pytest.mark.parametrize("csrf", [False, True], ids=["read by the view", "read by the CSRF check"])
def test_an_upload_spooled_to_a_full_disk_says_so(db, monkeypatch, settings, csrf):
    """An upload is spooled to a temporary file as it arrives; the CSRF check reads it before
    any view (a real browser's request), so the refusal must come from the handler500 too."""
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 0  # every upload goes to a temporary file

    def full(self, raw_data, start):
        raise disk_full_os()

    user = get_user_model().objects.create_user("founder", "f@example.org", PASSWORD)
    user.user_permissions.add(Permission.objects.get(codename="create_tournament"))
    client = Client(raise_request_exception=False, enforce_csrf_checks=csrf)
    client.force_login(user)
    data = {"upload-file": SimpleUploadedFile("a.t", b"Player1, Test 1500 2 ; 400\n")}
    if csrf:
        assert client.get("/console/new/").status_code == 200  # the form sets the CSRF cookie
        data["csrfmiddlewaretoken"] = client.cookies["csrftoken"].value
    monkeypatch.setattr(TemporaryFileUploadHandler, "receive_data_chunk", full)
    answer = client.post("/console/new/upload/", data)
    assert_disk_full_page(answer)
    assert not ImportJob.objects.exists()


def test_a_command_on_a_full_disk_says_so(event, monkeypatch):
    t, _ = event
    writes_fail(monkeypatch)
    with pytest.raises(CommandError, match=FULL):
        call_command("record_result", t.slug, "--round", "1", "1", "400", "300")
    monkeypatch.undo()
    assert Game.objects.filter(score1__isnull=False).count() == 0


def test_other_errors_are_still_a_500(db, monkeypatch):
    """Only a full disk is worded so: any other failure stays the logged 500 it was."""

    def broken(self, must_create=False):
        raise OperationalError("disk I/O error")

    get_user_model().objects.create_user("io", "io@example.org", PASSWORD)
    monkeypatch.setattr(SessionStore, "save", broken)
    client = Client(raise_request_exception=False)
    answer = client.post("/accounts/login/", {"username": "io", "password": PASSWORD})
    assert answer.status_code == 500
