"""Faults answered in the API's own shape (issue "Authority in one place"): a busy or
unreachable database is a 503 with its code, an unexpected error a JSON 500, and a failing
shared cache (Redis down) no longer fails every request through the throttle."""

from __future__ import annotations

import pytest
from django.db.utils import OperationalError
from rest_framework.test import APIClient

from tournament.api import views

pytestmark = pytest.mark.django_db

URL = "/api/v1/tournaments/"


def failing(exc):
    def get(*args, **kwargs):
        raise exc

    return get


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (OperationalError("database is locked"), "database_busy"),
        (OperationalError("server closed the connection unexpectedly"), "database_unavailable"),
    ],
)
def test_database_faults_are_503_in_the_api_shape(monkeypatch, exc, code):
    monkeypatch.setattr(views.TournamentList, "get_queryset", failing(exc))
    answer = APIClient().get(URL)
    assert answer.status_code == 503
    assert answer["Content-Type"] == "application/json"
    assert answer.json()["errors"][0]["code"] == code
    assert answer["Retry-After"] == "5"


def test_a_bug_is_a_json_500(monkeypatch):
    monkeypatch.setattr(views.TournamentList, "get_queryset", failing(KeyError("bug")))
    answer = APIClient().get(URL)
    assert answer.status_code == 500
    assert answer.json()["errors"][0]["code"] == "server_error"


def test_the_api_works_with_the_shared_cache_down(monkeypatch):
    from django.core.cache import cache

    monkeypatch.setattr(cache, "get", failing(ConnectionError("redis down")))
    monkeypatch.setattr(cache, "set", failing(ConnectionError("redis down")))
    for _ in range(3):
        assert APIClient().get("/api/v1/rating-lists/").status_code == 200
