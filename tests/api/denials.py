"""Who may not write through the API: the three callers every write endpoint refuses
(anonymous 401, another tournament's director 403, a scorekeeper 403 where only directors
write), each checked to leave the rows it names unchanged. Shared by the write tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient

from tests.core.conftest import make_director
from tournament import services

from .conftest import token_client
from .test_writes import refused


def refused_without_change(
    client: APIClient,
    method: str,
    url: str,
    body: Any,
    status: int,
    code: str,
    counts: Callable[[], tuple],
) -> None:
    before = counts()
    refused(getattr(client, method)(url, body, format="json"), status, code)
    assert counts() == before


def stranger() -> APIClient:
    """A token client of the director of another tournament."""
    other = services.create_tournament(name="Other", slug="other")
    return token_client(make_director(other, "stranger"))


def scorekeeper(tournament: Any, user_model: Any) -> APIClient:
    """A token client of one of the tournament's scorekeepers."""
    keeper = user_model.objects.create_user("keeper", password="pw-long-enough-1")
    tournament.scorekeepers.add(keeper)
    return token_client(keeper)
