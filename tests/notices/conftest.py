"""A small published tournament with subscribers, its directors and people who are not; the
real SMTP server on loopback (``smtp``, ``smtp_down``) lives in tests/core/smtp.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from tests.core.smtp import (  # noqa: F401 (fixtures and helpers the notices' tests use)
    Inbox,
    Received,
    free_port,
    point_mail_at,
    smtp,
    smtp_down,
)
from tournament import services
from tournament.models import Player


@dataclass
class Event:
    tournament: Any
    a: Any
    entries: list[Any]
    director: Any
    scorekeeper: Any
    stranger: Any


NAMES = ["Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di"]


@pytest.fixture
def event(db) -> Event:
    t = services.create_tournament(name="Notice Open", slug="notice-open")
    a = services.create_division(t, name="A", rounds=2)
    entries = []
    for n, name in enumerate(NAMES, start=1):
        entry = services.register_player(a, name=name, rating=1800 - 100 * n)
        slug = name.split(",")[0].lower()
        Player.objects.filter(pk=entry.player_id).update(email=f"{slug}@players.test")
        entry.player.refresh_from_db()
        entries.append(entry)
    services.publish_tournament(t, True, actor="test")
    users = get_user_model().objects
    director = users.create_user("dora", "dora@example.org", None)
    t.directors.add(director)
    keeper = users.create_user("kim", "kim@example.org", None)
    t.scorekeepers.add(keeper)
    other = services.create_tournament(name="Other Open", slug="other-open")
    stranger = users.create_user("stan", "stan@example.org", None)
    other.directors.add(stranger)
    return Event(t, a, entries, director, keeper, stranger)
