"""A published tournament taking entries online: division A capped at 3, B open to all."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tests.core.smtp import smtp  # noqa: F401 (the loopback mail server, tests/core/smtp.py)
from tournament import services
from tournament.models import Division, Tournament
from tournament.services import online_entries as oe


@dataclass
class Event:
    tournament: Tournament
    a: Division
    b: Division
    director: Any
    other_director: Any
    scorekeeper: Any


@pytest.fixture
def event(db, settings) -> Event:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    t = services.create_tournament(name="Spring Open", slug="spring", published=True)
    a = services.create_division(t, name="A", rounds=3)
    b = services.create_division(t, name="B", rounds=3)
    users = get_user_model().objects
    director = users.create_user("dora", "dora@example.org", None)
    t.directors.add(director)
    keeper = users.create_user("kit", "kit@example.org", None)
    t.scorekeepers.add(keeper)
    other = services.create_tournament(name="Other Open", slug="other")
    stranger = users.create_user("olga", "olga@example.org", None)
    other.directors.add(stranger)
    now = timezone.now()
    oe.open_entries(t, now - dt.timedelta(days=1), now + dt.timedelta(days=7), actor=director)
    oe.set_division_rule(a, cap=3, fee_amount="40", fee_currency="USD", actor=director)
    oe.set_division_rule(b, actor=director)
    return Event(t, a, b, director, stranger, keeper)


def enter(division: Division, name: str, email: str = "") -> oe.Submitted:
    """An anonymous entry confirmed by its mailed link, opted in to e-mail notices."""
    email = email or name.split(",")[0].lower().replace(" ", "") + "@example.org"
    done = oe.submit_entry(division, name=name, email=email, notices_opt_in=True)
    oe.confirm_entry(done.confirm_token)
    done.online.refresh_from_db()
    return done
