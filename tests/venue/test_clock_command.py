"""``manage.py clock``: the console's buttons from the shell, --json, refusals by name."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tournament.models import AuditEvent, RoundClock


def run(*args: str, **kw) -> str:
    out = StringIO()
    call_command("clock", "clock-open", *args, stdout=out, **kw)
    return out.getvalue()


def test_the_command_runs_the_clock(event, now):
    assert run("start", "--division", "A", "--round", "1") == (
        "division A round 1: running, 25:00 left, ends 14:25:00\n"
    )
    now.advance(minutes=5)
    body = json.loads(
        run("extend", "3", "--division", "A", "--round", "1", "--reason", "late", "--json")
    )
    assert body == {
        "ok": True,
        "division": "A",
        "round": 1,
        "state": "running",
        "minutes": 25,
        "extended_minutes": 3,
        "ends_at": "2026-04-11T14:28:00+00:00",
        "remaining_seconds": 23 * 60,
        "server_now": "2026-04-11T14:05:00+00:00",
    }
    assert "paused, 23:00 left" in run("pause", "--division", "A", "--round", "1")
    assert "paused" in run("show", "--division", "A", "--round", "1")
    event_row = AuditEvent.objects.filter(action="extend_clock").get()
    assert event_row.actor == "clock" and event_row.reason == "late"


def test_refusals_name_what_and_change_nothing(event, now):
    with pytest.raises(CommandError, match="division A round 1: the clock is not running"):
        run("pause", "--division", "A", "--round", "1")
    with pytest.raises(CommandError, match="the minutes to add must not be empty"):
        run("extend", "--division", "A", "--round", "1")
    with pytest.raises(CommandError, match="has 2 divisions; name one with --division"):
        run("start", "--round", "1")
    with pytest.raises(CommandError) as refused:
        run("start", "--division", "A", "--round", "1", as_user="kim")
    assert refused.value.code == "not_allowed"
    assert not RoundClock.objects.exists()
