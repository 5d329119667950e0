"""The anonymous budget counts rows, not requests (issue "Authority in one place", found by
``bench_web.py --abuse``): ``games/?limit=1000`` just under 600 requests a minute from one
address took public standings to a sixth of their quiet rate. Pages now hold at most 200 rows
and a page costs a request per started hundred rows it serves: ``?limit=1000`` (200 served)
costs two."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle

pytestmark = pytest.mark.django_db

GAMES = "/api/v1/tournaments/api-open/divisions/a/games/"


@pytest.fixture
def thirty_a_minute():
    original = AnonRateThrottle.THROTTLE_RATES
    AnonRateThrottle.THROTTLE_RATES = {"anon": "30/minute", "user": "30/minute"}
    yield
    AnonRateThrottle.THROTTLE_RATES = original


def answers(url: str, n: int, address: str) -> list[int]:
    client = APIClient()
    return [client.get(url, REMOTE_ADDR=address).status_code for _ in range(n)]


def test_a_page_costs_its_rows_in_hundreds(event, thirty_a_minute):
    assert answers(GAMES + "?limit=1000", 16, "203.0.113.1") == [200] * 15 + [429]
    assert answers(GAMES + "?limit=101", 16, "203.0.113.2") == [200] * 15 + [429]


def test_the_default_page_and_other_reads_cost_one(event, thirty_a_minute):
    assert answers(GAMES, 31, "203.0.113.3") == [200] * 30 + [429]
    assert answers(GAMES + "?limit=100", 1, "203.0.113.4") == [200]
    one = "/api/v1/tournaments/api-open/?limit=1000"  # one tournament: no rows to page
    assert answers(one, 31, "203.0.113.5") == [200] * 30 + [429]


def test_a_bad_limit_costs_one_and_the_site_still_answers(event, thirty_a_minute):
    assert answers(GAMES + "?limit=abc", 2, "203.0.113.6") == [200, 200]
    assert answers(GAMES + "?limit=99999", 16, "203.0.113.7") == [200] * 15 + [429]
