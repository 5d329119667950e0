"""A task through a real Redis broker and a real Celery worker (runs when REDIS_URL is set)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from celery import Celery
from django.db import connection

from tests.conftest import REPO
from tournament import services
from tournament.tasks import export_tournament

REDIS_URL = os.environ.get("REDIS_URL", "")


def database_url() -> str:
    """The test database as a URL the worker process can open."""
    s = connection.settings_dict
    if s["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{s['NAME']}"
    return f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


def test_export_runs_inline_without_redis(tmp_path, db):
    t = services.create_tournament(name="Inline")
    services.create_division(t, name="A")
    paths = export_tournament.delay(t.slug, str(tmp_path)).get(timeout=10)
    assert sorted(os.path.basename(p) for p in paths) == ["a.t", "config.tsh"]


@pytest.mark.skipif(not REDIS_URL, reason="REDIS_URL is not set: no Redis server to queue to")
@pytest.mark.django_db(transaction=True)
def test_export_through_redis_and_a_real_worker(tmp_path):
    t = services.create_tournament(name="Queued Open")
    d = services.create_division(t, name="A")
    services.register_player(d, name="Able, Ann", rating=1500)
    env = {
        **os.environ,
        "REDIS_URL": REDIS_URL,
        "DATABASE_URL": database_url(),
        "GIBSON_SECRET_KEY": "worker-test",
        "GIBSON_DEVELOPMENT": "1",
    }
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "tournament",
            "worker",
            "--pool=solo",
            "--concurrency=1",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    # A client of our own, as the web process is when REDIS_URL is set: it only knows the
    # task's name and the broker; the worker process does the work.
    client = Celery("gibson-test-client", broker=REDIS_URL, backend=REDIS_URL)
    try:
        result = client.send_task("tournament.export_tsh", args=(t.slug, str(tmp_path)))
        paths = result.get(timeout=60)
        assert result.successful()
        assert (tmp_path / "a.t").read_text(encoding="utf-8").startswith("Able, Ann")
        assert sorted(os.path.basename(p) for p in paths) == ["a.t", "config.tsh"]
    finally:
        client.close()
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
