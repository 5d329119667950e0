"""/healthz: ok, degraded (Redis gone, no worker) or 503 (database gone), fast, plain text."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from tests.conftest import REPO

from .conftest import clean_env, free_port

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_worker_answers():
    """Each test asks about workers afresh: no answer kept from another test's broker."""
    from tournament import health

    health.forget_worker_answers()
    yield
    health.forget_worker_answers()


@pytest.fixture(autouse=True)
def any_disk(settings):
    """The other checks are judged apart from the machine's real free space (a CI machine may
    run low); the disk checks below set their own."""
    settings.LOW_DISK_MB = settings.FULL_DISK_MB = 0


@pytest.mark.parametrize(
    ("free", "status", "text"),
    [
        (10_000, 200, "ok"),
        (300, 200, "degraded: low disk space (300 MB free)"),
        (20, 503, "disk full (20 MB free)"),
    ],
)
def test_disk_space_is_reported(client, settings, monkeypatch, free, status, text):
    from tournament import health

    settings.REDIS_URL = ""
    settings.LOW_DISK_MB, settings.FULL_DISK_MB = 500, 50
    monkeypatch.setattr(health, "free_disk_mb", lambda: free)
    response, _ = get_health(client)
    assert (response.status_code, response.content.decode()) == (status, text)


def test_free_space_is_read_where_the_site_writes(settings, tmp_path):
    import shutil

    from tournament.health import free_disk_mb

    settings.DATA_DIR = tmp_path
    assert free_disk_mb() == shutil.disk_usage(tmp_path).free // (1024 * 1024)
    settings.DATA_DIR = tmp_path / "gone"
    assert free_disk_mb() is None


def get_health(client):
    started = time.monotonic()
    response = client.get("/healthz")
    return response, time.monotonic() - started


def test_ok_without_redis(client, settings):
    settings.REDIS_URL = ""  # the embedded default: tasks inline, nothing else to check
    response, _ = get_health(client)
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert "no-store" in response["Cache-Control"] and "max-age=0" in response["Cache-Control"]
    assert "Set-Cookie" not in response  # no session for a monitor polling every few seconds
    assert not response.cookies


def test_anonymous_and_head_allowed_post_refused(client, settings):
    settings.REDIS_URL = ""
    assert client.head("/healthz").status_code == 200
    assert client.post("/healthz").status_code == 405


def test_redis_unreachable_is_degraded_and_fast(client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    response, took = get_health(client)
    assert (response.status_code, response.content) == (200, b"degraded: redis unreachable")
    assert took < 3


def test_redis_up_without_a_worker_then_down(client, settings, own_redis, point_celery):
    settings.REDIS_URL = own_redis.url
    point_celery(own_redis.url)
    response, took = get_health(client)
    assert (response.status_code, response.content) == (200, b"degraded: no celery worker")
    assert took < 5
    own_redis.stop()  # Redis goes away mid-event
    response, took = get_health(client)
    assert (response.status_code, response.content) == (200, b"degraded: redis unreachable")
    assert took < 3


@pytest.mark.django_db(transaction=True)
def test_ok_with_redis_and_a_worker(client, settings, own_redis, point_celery, tmp_path):
    settings.REDIS_URL = own_redis.url
    point_celery(own_redis.url)
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "tournament",
            "worker",
            "--pool=solo",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=REPO,
        env=clean_env(tmp_path, REDIS_URL=own_redis.url),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        seen = []
        while time.monotonic() < deadline and worker.poll() is None:
            response, _ = get_health(client)
            seen.append(response.content)
            if response.content == b"ok":
                break
            time.sleep(0.2)  # the answer is kept a few seconds: no use asking in a loop
        assert seen[-1] == b"ok", (seen[-3:], worker.poll())
        assert set(seen) <= {b"ok", b"degraded: no celery worker"}
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(timeout=10)


def test_no_worker_is_asked_once_not_on_every_request(client, settings, own_redis, point_celery):
    """Without a worker a ping waits its whole timeout; a monitor polling every few seconds
    must not pay it each time (the benchmarks' servers never came up waiting on it)."""
    from tournament import health

    settings.REDIS_URL = own_redis.url
    point_celery(own_redis.url)
    pings = []
    real = health.worker_replies

    def counted(timeout: float = health.WORKER_TIMEOUT) -> bool:
        pings.append(timeout)
        return real(timeout)

    health.worker_replies = counted  # restored below; monkeypatch would not reach the thread
    try:
        first, took = get_health(client)
        assert first.content == b"degraded: no celery worker"
        assert took < 3  # the one ping, bounded by WORKER_TIMEOUT
        times = []
        for _ in range(5):
            response, took = get_health(client)
            assert response.content == b"degraded: no celery worker"
            times.append(took)
    finally:
        health.worker_replies = real
    assert pings == [health.WORKER_TIMEOUT]
    assert max(times) < 0.5, times  # a ping alone takes WORKER_TIMEOUT (0.5 s)


def test_a_stale_answer_is_given_while_asked_again_then_asked_in_the_request(monkeypatch):
    from django.core.cache import cache

    from tournament import health
    from tournament.celery import app

    broker = str(app.conf.broker_url)
    cache.delete(health._cache_key(broker))
    answers = iter([False, True, True])
    asked = []

    def fake(timeout: float = health.WORKER_TIMEOUT) -> bool:
        asked.append(threading.current_thread().name)
        return next(answers)

    monkeypatch.setattr(health, "worker_replies", fake)
    try:
        assert health.worker_available() is False  # never asked: asked in the request
        assert health.worker_available() is False  # fresh: kept
        assert asked == ["MainThread"]

        def age(seconds: float) -> None:
            at, answer = health._answers[broker]
            health._answers[broker] = (at - seconds, answer)
            cache.set(health._cache_key(broker), health._answers[broker])

        age(health.WORKER_FRESH + 1)
        assert health.worker_available() is False  # stale: given, and asked again aside
        for thread in threading.enumerate():
            if thread.name == "healthz-worker-ping":
                thread.join(timeout=10)
        assert asked == ["MainThread", "healthz-worker-ping"]
        assert health.worker_available() is True  # the background answer
        age(health.WORKER_STALE + 1)
        assert health.worker_available() is True
        assert asked[-1] == "MainThread"  # too old to give: asked in the request again
    finally:
        cache.delete(health._cache_key(broker))


HEALTH_IN_A_CHILD = (
    "import django; django.setup()\n"
    "from django.test import Client\n"
    "r = Client().get('/healthz')\n"
    "print(r.status_code, r.content.decode())\n"
)


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
def test_database_unavailable_is_503(tmp_path, kind):
    """A separate process, since the database is chosen at start-up."""
    if kind == "postgresql":
        url = f"postgres://gibson:pw@127.0.0.1:{free_port()}/gibson"
    else:
        folder = tmp_path / "not-a-database"
        folder.mkdir()
        url = f"sqlite:///{folder}"  # a folder, which SQLite cannot open
    env = clean_env(tmp_path, DATABASE_URL=url, DJANGO_SETTINGS_MODULE="tournament.settings")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", HEALTH_IN_A_CHILD],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "503 database unavailable"
    assert time.monotonic() - started < 30
