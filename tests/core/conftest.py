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
