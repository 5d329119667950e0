"""The desk with its Redis gone: a clear answer within seconds, never a hang into a 500."""

from __future__ import annotations

import time
from unittest import mock

import pytest

from tests.core.conftest import make_director
from tournament.demo import DEMO_SLUG, load_demo
from tournament.web import desk

from .conftest import free_port

pytestmark = pytest.mark.django_db

DESK = f"/t/{DEMO_SLUG}/desk/"
JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def director(client, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    tournament, _ = load_demo()
    client.force_login(make_director(tournament, "redis-down-td"))
    return client


@pytest.fixture
def dead_redis(settings, point_celery):
    """The web process as it runs with REDIS_URL set, but nothing listens at that port."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    settings.REDIS_URL = url
    settings.CELERY_BROKER_URL = settings.CELERY_RESULT_BACKEND = url
    settings.CELERY_TASK_ALWAYS_EAGER = False
    point_celery(url)
    return url


def test_start_scorecards_says_the_worker_is_unavailable(director, dead_redis, tmp_path):
    started = time.monotonic()
    response = director.post(f"{DESK}A/scorecards/", {"per_page": "1", "round": "2"}, **JSON)
    assert time.monotonic() - started < 5
    assert response.status_code == 503
    body = response.json()
    assert body["ok"] is False
    assert "background worker is unavailable" in body["error"]
    assert body["error"].startswith("Gibson Demo Open, division A:")
    # the same scorecards, built in one request, one click away
    assert body["now"].startswith(f"{DESK}a/report.pdf?kind=scorecards")
    assert "per_page=1" in body["now"] and "round=2" in body["now"]
    assert list((tmp_path / "reports").rglob("*.queued")) == []  # no job left behind


def test_the_offered_link_builds_the_pdf(director, dead_redis):
    now = director.post(f"{DESK}A/scorecards/", {"per_page": "1"}, **JSON).json()["now"]
    pdf = director.get(now)
    assert pdf.status_code == 200
    assert pdf.content.startswith(b"%PDF")


def test_a_plain_form_post_gets_a_page_with_the_link(director, dead_redis):
    response = director.post(f"{DESK}A/scorecards/", {"per_page": "2"})
    assert response.status_code == 503
    page = response.content.decode()
    assert "The background worker is unavailable" in page
    assert f'href="{DESK}a/report.pdf?kind=scorecards&amp;per_page=2"' in page


def test_redis_dying_between_the_check_and_the_queue_is_answered_too(director, dead_redis):
    """The queue check passed, then publishing fails: Celery's own error is caught."""
    with mock.patch.object(desk, "_queue_answers", return_value=True):
        started = time.monotonic()
        response = director.post(f"{DESK}A/scorecards/", {"per_page": "1"}, **JSON)
    assert time.monotonic() - started < 5
    assert response.status_code == 503, response.content
    assert "background worker is unavailable" in response.json()["error"]


def test_job_status_of_a_queued_job_when_redis_is_gone(director, dead_redis, tmp_path):
    """A job queued before Redis went away: its status says so instead of a 500."""
    job = "b" * 32
    folder = tmp_path / "reports" / DEMO_SLUG
    folder.mkdir(parents=True)
    (folder / f"{job}.queued").write_text(f"{DESK}a/report.pdf?kind=scorecards", encoding="utf-8")
    started = time.monotonic()
    response = director.get(f"{DESK}jobs/{job}/", **JSON)
    assert time.monotonic() - started < 5
    assert response.status_code == 503
    body = response.json()
    assert body["ok"] is False and "background worker is unavailable" in body["error"]
    assert body["now"] == f"{DESK}a/report.pdf?kind=scorecards"


def test_job_status_of_an_unknown_job_is_a_clear_message(director, dead_redis):
    for job in ("c" * 32, "not-a-job"):
        response = director.get(f"{DESK}jobs/{job}/", **JSON)
        assert response.status_code == 404
        body = response.json()
        assert body == {
            "ok": False,
            "state": "unknown",
            "error": "Gibson Demo Open: no such scorecards job (unknown, or cleared after two "
            "days); prepare the scorecards again",
        }


def test_unknown_job_inline_too(director):
    response = director.get(f"{DESK}jobs/{'d' * 32}/", **JSON)
    assert response.status_code == 404
    assert response.json()["state"] == "unknown"


def test_redis_down_is_still_for_directors_only(client, dead_redis, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    load_demo()
    response = client.post(f"{DESK}A/scorecards/", {"per_page": "1"}, **JSON)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
