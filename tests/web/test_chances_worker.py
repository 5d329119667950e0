"""Prize chances computed by a Celery worker after a result (issue 21, item 2): queued only
when a worker answered lately, never waited for on the result's path; pages serve the last
computed version until the worker has stored the new one."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from tournament import chances as chance_cache
from tournament import health, services
from tournament.cache import cache_get, tournament_version
from tournament.celery import app

REDIS_URL = os.environ.get("REDIS_URL", "")


class Queue:
    """``refresh_chances.apply_async`` stand-in: what would have gone to the worker."""

    def __init__(self) -> None:
        self.sent: list[tuple] = []

    def __call__(self, args=(), **kwargs) -> None:
        self.sent.append(tuple(args))


class Counted:
    """``_compute`` that counts the simulations this process runs."""

    def __init__(self) -> None:
        self.runs = 0
        self.real = chance_cache._compute

    def __call__(self, *args, **kwargs):
        self.runs += 1
        return self.real(*args, **kwargs)


@pytest.fixture
def queue(monkeypatch) -> Queue:
    q = Queue()
    monkeypatch.setattr(chance_cache.refresh_chances, "apply_async", q)
    return q


@pytest.fixture
def counted(monkeypatch) -> Counted:
    c = Counted()
    monkeypatch.setattr(chance_cache, "_compute", c)
    return c


@pytest.fixture
def lazy_tasks():
    """Tasks go to a queue, as in the web process when REDIS_URL is set."""
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = True


@pytest.mark.django_db
def test_without_a_worker_a_result_queues_nothing_and_a_page_computes(
    event, queue, counted, django_capture_on_commit_callbacks, settings
):
    t, d = event
    settings.GIBSON_CHANCES_PAGE_SECONDS = 0
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        services.record_result(d, 2, 1, 400, 300)
    # inline Celery: not even a callback (with REDIS_URL set, the live stream's announcement
    # of the write is one: it queues no task)
    chances = [c for c in callbacks if "announce_on_commit" not in c.__qualname__]
    assert queue.sent == [] and chances == []
    chance_cache.page_chances(d)
    assert counted.runs == 1


@pytest.mark.django_db
def test_no_worker_answering_queues_nothing_and_never_waits_for_a_ping(
    event, queue, lazy_tasks, monkeypatch, django_capture_on_commit_callbacks
):
    t, d = event
    asked: list[str] = []
    monkeypatch.setattr(health, "_ask_in_background", asked.append)
    monkeypatch.setattr(health, "_last_answer", lambda broker: None)

    def no_waiting(*args, **kwargs):
        raise AssertionError("the result's request pinged the workers itself")

    monkeypatch.setattr(health, "worker_replies", no_waiting)
    with django_capture_on_commit_callbacks(execute=True):
        services.record_result(d, 2, 1, 400, 300)
    assert queue.sent == []
    assert len(asked) == 1  # a background ping, for the next result


@pytest.mark.django_db
def test_with_a_worker_pages_serve_the_last_version_until_the_worker_stored_the_new(
    event, queue, counted, lazy_tasks, monkeypatch, django_capture_on_commit_callbacks, settings
):
    t, d = event
    settings.GIBSON_CHANCES_PAGE_SECONDS = 0  # no "recent enough": only the queue holds pages
    monkeypatch.setattr(chance_cache, "worker_known_available", lambda: True)
    before = chance_cache.page_chances(d)
    assert counted.runs == 1
    with django_capture_on_commit_callbacks(execute=True):
        services.record_result(d, 2, 1, 400, 300)
        services.record_result(d, 2, 2, 300, 420)  # one transaction's results: queued once
    assert queue.sent == [(t.slug,)]
    # queued: the pages serve the previous version and compute nothing
    assert chance_cache.page_chances(d) == before and counted.runs == 1
    # the worker's run (here, in this process): the new version for every division
    assert chance_cache.refresh_chances(t.slug) == 1
    assert counted.runs == 2
    after = chance_cache.page_chances(d)
    assert after != before and counted.runs == 2
    # a setting that changes no chances (the tournament's name) queues nothing
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(t, actor="test", name="Cache Open II")
    assert queue.sent == [(t.slug,)]


@pytest.mark.django_db
@pytest.mark.parametrize("broken", ["queue down", "anything else"])
def test_a_broken_queue_is_skipped_and_the_pages_compute(
    event, lazy_tasks, counted, monkeypatch, django_capture_on_commit_callbacks, settings, broken
):
    """The task is queued after the result committed: no failure there may reach the
    director (the result is saved), and the pages do not wait for a task never queued."""
    from kombu.exceptions import OperationalError

    t, d = event
    settings.GIBSON_CHANCES_PAGE_SECONDS = 0
    monkeypatch.setattr(chance_cache, "worker_known_available", lambda: True)

    def down(*args, **kwargs):
        if broken == "queue down":
            raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        raise RuntimeError("a bug in the queueing")

    monkeypatch.setattr(chance_cache.refresh_chances, "apply_async", down)
    with django_capture_on_commit_callbacks(execute=True):
        game = services.record_result(d, 2, 1, 400, 300)
    assert game.score1 == 400  # the result stands
    chance_cache.page_chances(d)
    assert counted.runs == 1  # not left waiting for a task that was never queued


@pytest.mark.skipif(not REDIS_URL, reason="REDIS_URL is not set: no Redis server to queue to")
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_computes_the_chances_after_a_result(event, lazy_tasks, monkeypatch):
    """The production path: the result's request queues the task through Redis, the worker
    process stores the new version's chances in the shared cache, the page serves them
    without simulating; meanwhile it served the previous version."""
    from tests.core.test_celery_redis import start_worker, stop_worker

    t, d = event
    services.publish_tournament(t, True, None)
    counted = Counted()
    before = chance_cache.cached_chances(d)  # the version before the result, computed here
    monkeypatch.setattr(chance_cache, "_compute", counted)
    worker = start_worker()
    try:
        deadline = time.monotonic() + 60
        while not health.worker_replies(timeout=0.5) and time.monotonic() < deadline:
            time.sleep(0.2)
        health.forget_worker_answers()
        assert health.worker_available()  # the answer the result's request will read
        services.record_result(d, 2, 1, 400, 300)  # commits: the task is queued
        version = tournament_version(t.slug)
        key = f"chances:{version.stamp}:{d.pk}:None"
        assert chance_cache.page_chances(d) in (before, cache_get(key, local=False))
        deadline = time.monotonic() + 60
        while cache_get(key, local=False) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert cache_get(key, local=False) is not None, "the worker stored no chances"
        after = chance_cache.page_chances(d)
        assert after != before
        assert counted.runs == 0  # this process simulated nothing
    finally:
        stop_worker(worker)
        health.forget_worker_answers()


def test_the_worker_finds_the_task() -> None:
    """Workers import only ``<app>.tasks`` by themselves: the chances task is registered
    through ``tournament.celery``'s second discovery."""
    import sys

    from tests.conftest import REPO

    code = (
        "import django; django.setup(); from tournament.celery import app; "
        "app.loader.import_default_modules(); print('tournament.chances_refresh' in app.tasks)"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tournament.settings",
        "GIBSON_SECRET_KEY": "worker-test",
        "GIBSON_DEVELOPMENT": "1",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env
    )
    assert out.stdout.strip().endswith("True"), out.stderr[-500:]
