"""A write behind a long lock is told "busy, try again" in seconds (issue 31, item 5b).

Every connection waits at most DATABASE_LOCK_TIMEOUT for another's lock (SQLite's busy
timeout, PostgreSQL's lock_timeout), then the page or the API answers 503 with the message,
never a 500 after the server gave up on the request. The lock is held by a second connection
to the suite's own database, so the same tests run on the SQLite pass and the PostgreSQL pass.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from pairings.services.store import PlannedGame, save_round_pairings
from tests.api.conftest import token_client
from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent, Game

pytestmark = pytest.mark.django_db(transaction=True)

WAIT = 0.3  # seconds: the same path as the default 5 s, without the wait


@pytest.fixture
def short_wait(settings):
    """A short lock timeout, taken up by the next connection (the setting is read then)."""
    settings.DATABASE_LOCK_TIMEOUT = WAIT
    connection.close()
    yield
    connection.close()


@contextmanager
def write_lock_held() -> Iterator[None]:
    """Another connection holds the lock every write needs (as a long import once did)."""
    if connection.vendor == "sqlite":
        other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            other.execute("ROLLBACK")
            other.close()
        return
    other = connection.copy()
    other.connect()
    other.connection.autocommit = False
    with other.connection.cursor() as cursor:
        # readers go on (ACCESS SHARE); every insert, update and row lock waits
        cursor.execute(f"LOCK TABLE {Game._meta.db_table} IN EXCLUSIVE MODE")
        cursor.execute(f"LOCK TABLE {AuditEvent._meta.db_table} IN EXCLUSIVE MODE")
    # PostgreSQL's own default waits for ever: were the lock timeout lost, the write would
    # hang the suite; the lock goes after 20 s instead, and the test fails on the time taken
    release = threading.Timer(20, other.connection.rollback)
    release.start()
    try:
        yield
    finally:
        release.cancel()
        other.connection.rollback()
        other.close()


def paired_event():
    t = services.create_tournament(name="Lock Open", slug="lock-open")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=3)
    for n in range(1, 5):
        services.register_player(d, name=f"Player{n}, Test", rating=1500 + n)
    save_round_pairings(d, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)])
    return t, d


def test_every_connection_waits_the_configured_time_for_a_lock(short_wait):
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA busy_timeout")
            assert cursor.fetchone()[0] == 300
        else:
            cursor.execute("SHOW lock_timeout")
            assert cursor.fetchone()[0] == "300ms"


def test_an_api_write_behind_a_long_lock_is_a_quick_503(short_wait):
    t, d = paired_event()
    client = token_client(make_director(t, "lock-td"))
    audits = AuditEvent.objects.count()
    url = f"/api/v1/tournaments/{t.slug}/divisions/{d.slug}/results/"
    with write_lock_held():
        started = time.monotonic()
        answer = client.post(
            url, {"round": 1, "player": 1, "score": 400, "opp_score": 300}, format="json"
        )
        took = time.monotonic() - started
    assert answer.status_code == 503, answer.content
    assert answer["Content-Type"] == "application/json"
    assert answer["Retry-After"] == "5"
    assert answer.json()["errors"][0]["code"] == "database_busy"
    assert took < 3, f"the write waited {took:.1f} s for the lock"
    assert Game.objects.filter(score1__isnull=False).count() == 0
    assert AuditEvent.objects.count() == audits


def test_a_busy_database_outside_any_view_is_a_503_page_not_a_500(monkeypatch):
    """A session saved after the view (another middleware's write) is no view's to answer:
    the site's handler500 tells it apart and says "busy, try again"."""
    from django.contrib.sessions.backends.db import SessionStore
    from django.db.utils import OperationalError

    saved = SessionStore.save

    def locked(self, must_create=False):
        if must_create:  # the sign-in's new session, in the view
            return saved(self, must_create=True)
        # the session saved by its middleware after the view, behind a long lock
        raise OperationalError("canceling statement due to lock timeout")

    client = Client(raise_request_exception=False)
    get_user_model().objects.create_user("busy", "busy@example.org", "pw-long-enough-1")
    monkeypatch.setattr(SessionStore, "save", locked)
    answer = client.post("/accounts/login/", {"username": "busy", "password": "pw-long-enough-1"})
    assert answer.status_code == 503, answer.status_code
    body = answer.content.decode()
    assert "the database is busy" in body and "try again" in body
    assert answer["Retry-After"] == "5"
