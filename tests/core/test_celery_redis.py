"""A task through a real Redis broker and a real Celery worker (runs when REDIS_URL is set)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from celery import Celery
from django.db import connection

from tests.conftest import REPO
from tournament import services
from tournament.tasks import export_tournament

from .conftest import make_director

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


def start_worker() -> subprocess.Popen:
    """A real Celery worker process on the test database, consuming from the real Redis."""
    env = {
        **os.environ,
        "REDIS_URL": REDIS_URL,
        "DATABASE_URL": database_url(),
        "GIBSON_SECRET_KEY": "worker-test",
        "GIBSON_DEVELOPMENT": "1",
    }
    command = [
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
    ]
    return subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def stop_worker(worker: subprocess.Popen) -> None:
    worker.terminate()
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()


@pytest.mark.skipif(not REDIS_URL, reason="REDIS_URL is not set: no Redis server to queue to")
@pytest.mark.django_db(transaction=True)
def test_export_through_redis_and_a_real_worker(tmp_path):
    t = services.create_tournament(name="Queued Open")
    d = services.create_division(t, name="A")
    services.register_player(d, name="Able, Ann", rating=1500)
    worker = start_worker()
    # A client of our own, as the web process is when REDIS_URL is set: it only knows the
    # task's name and the broker; the worker process does the work.
    # Not the current app: tasks declared with shared_task (notices, chances) bind to the
    # current app when first used, and would bind to this one, never eager, for the rest of
    # the run (notices then waited for a worker in later tests).
    client = Celery("gibson-test-client", broker=REDIS_URL, backend=REDIS_URL, set_as_current=False)
    try:
        result = client.send_task("tournament.export_tsh", args=(t.slug, str(tmp_path)))
        paths = result.get(timeout=60)
        assert result.successful()
        assert (tmp_path / "a.t").read_text(encoding="utf-8").startswith("Able, Ann")
        assert sorted(os.path.basename(p) for p in paths) == ["a.t", "config.tsh"]
    finally:
        client.close()
        stop_worker(worker)


@pytest.mark.skipif(not REDIS_URL, reason="REDIS_URL is not set: no Redis server to queue to")
@pytest.mark.django_db(transaction=True)
def test_desk_scorecards_job_on_a_real_worker_reports_progress(client, settings, tmp_path):
    """The director's browser path: POST a job, poll its status, download the file."""
    from tournament.celery import app
    from tournament.demo import DEMO_SLUG, load_demo

    settings.DATA_DIR = tmp_path
    tournament, _ = load_demo()
    user = make_director(tournament, "queued-td")
    client.force_login(user)
    worker = start_worker()
    app.conf.task_always_eager = False  # as the web process runs when REDIS_URL is set
    try:
        started = client.post(f"/t/{DEMO_SLUG}/desk/A/scorecards/", {"per_page": "1"})
        assert started.status_code == 202, started.content
        job = started.json()
        seen: list[dict] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status = client.get(job["status"]).json()
            seen.append(status)
            if status["state"] in ("done", "failed"):
                break
            time.sleep(0.05)
        assert seen[-1] == {"ok": True, "state": "done", "file": job["file"]}, seen[-5:]
        assert {s["state"] for s in seen} <= {"queued", "working", "done"}
        for s in seen:
            if "total" in s:
                assert s["total"] == 24 and 1 <= s["current"] <= 24
        pdf = client.get(job["file"])
        assert pdf.status_code == 200
        assert b"".join(pdf.streaming_content).startswith(b"%PDF")
    finally:
        app.conf.task_always_eager = True
        stop_worker(worker)


@pytest.mark.skipif(not REDIS_URL, reason="REDIS_URL is not set: no Redis server to queue to")
@pytest.mark.django_db(transaction=True)
def test_an_upload_is_imported_by_a_real_worker(client, settings):
    """The upload's production path when a worker runs (issue 19): the request stores the
    file and a job, the job goes to the Celery worker through Redis, and the worker imports
    it; the job's page follows it to the end."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.console.test_import_jobs import archive, founder
    from tournament.celery import app
    from tournament.health import worker_replies
    from tournament.models import Game, ImportJob

    settings.IMPORT_JOB_RUNNER = "auto"
    client.force_login(founder())
    worker = start_worker()
    app.conf.task_always_eager = False  # as the web process runs when REDIS_URL is set
    try:
        deadline = time.monotonic() + 60
        while not worker_replies(timeout=0.5) and time.monotonic() < deadline:
            time.sleep(0.2)
        upload = SimpleUploadedFile("all.tsh", archive(2, 20, 4))
        response = client.post("/console/new/upload/", {"upload-file": upload})
        assert response.status_code == 302, response.content[:300]
        job = ImportJob.objects.get()
        deadline = time.monotonic() + 60
        while job.state not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(0.1)
            job.refresh_from_db()
        assert job.state == "done", (job.state, job.error)
        assert job.runner.startswith("celery:"), job.runner
        assert Game.objects.filter(round__division__tournament=job.tournament).count() == 80
        page = client.get(response["Location"]).content.decode()
        assert job.tournament.slug in page
    finally:
        app.conf.task_always_eager = True
        stop_worker(worker)
