"""Fixtures for tests/core."""

from __future__ import annotations

import os

import pytest

from .browser import CHROMIUM, FLAGS


@pytest.fixture
def browser():
    """A headless chromium for one test.

    Playwright's sync API runs an event loop in this thread; the ORM calls in the test are
    still plain synchronous calls, so Django's async-safety guard does not apply here.
    """
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


def make_director(tournament, username: str):
    """A staff account that directs ``tournament`` (and nothing else), password pw-long-enough-1."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(
        username, f"{username}@example.org", "pw-long-enough-1", is_staff=True
    )
    tournament.directors.add(user)
    return user


def name_admin_officer(user):
    """What a site administrator does to let an account into the admin (issue 19): mark it
    staff and name it an officer of a federation rating list (not a club's own). Directing a
    tournament alone never opens the admin; the admin's tests of a director's scope use
    such a named officer who also directs."""
    from ratings.models import RatingList

    desk, _ = RatingList.objects.get_or_create(slug="officers-desk", defaults={"name": "Desk"})
    desk.officers.add(user)
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user
