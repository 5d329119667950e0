"""Issue 19: an upload is imported by a background job, never inside its request.

The request stores the files and an ImportJob and answers with the job's page; the job runs
on a Celery worker or in a thread of the web process and writes in short transactions, so a
result entered in another tournament meanwhile goes in at once. Only the uploader follows
the job; a job whose runner went away is failed, with a message, when next looked at.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from django.test import Client
from django.urls import reverse

from tests.security.test_probe_uploads import players_t
from tournament import services
from tournament.access import staffed_tournaments, visible_tournaments
from tournament.errors import ServiceError
from tournament.interchange import jobs
from tournament.interchange.imports import BATCH_ROWS, import_tsh
from tournament.models import Entry, Game, ImportJob, Player, Tournament

UPLOAD = "/console/new/upload/"


def founder(username: str = "founder"):
    user = get_user_model().objects.create_user(
        username, f"{username}@example.org", "pw-long-enough-1"
    )
    user.user_permissions.add(Permission.objects.get(codename="create_tournament"))
    return user


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def archive(divisions: int, players: int, rounds: int) -> bytes:
    """An all.tsh of ``divisions`` divisions, each ``players`` players pairing up each round."""
    names = "ABCDEFGH"[:divisions]
    config = "".join(f"division {n} {n.lower()}.t\n" for n in names)
    blocks = b"".join(
        f"#begin_file name={n.lower()}.t\n".encode()
        + players_t(players, rounds).replace(b"Test", f"Div{n}".encode())
        + f"#end_file name={n.lower()}.t\n".encode()
        for n in names
    )
    return config.encode() + blocks


def post(client: Client, name: str, data: bytes):
    return client.post(UPLOAD, {"upload-file": SimpleUploadedFile(name, data)})


# --------------------------------------------------------------------------- the inline suite


@pytest.mark.django_db
def test_the_job_page_follows_the_import_and_links_to_the_result():
    user = founder()
    client = signed_in(user)
    response = post(client, "all.tsh", archive(2, 10, 3))
    assert response.status_code == 302
    job = ImportJob.objects.get()
    assert response["Location"] == reverse("console_site:import_job", args=[job.pk])
    assert job.created_by == user and job.state == "done" and job.done == job.total > 0
    assert not job.files.exists()  # the uploaded bytes are not kept once imported
    page = client.get(response["Location"]).content.decode()
    t = job.tournament
    assert f'href="{reverse("console:setup", args=[t.slug])}"' in page
    assert "hx-trigger" not in page and "http-equiv" not in page  # finished: no more polling
    data = client.get(response["Location"], HTTP_ACCEPT="application/json").json()
    assert data["state"] == "done" and data["tournament"].endswith("/console/setup/")
    assert not t.published and not t.importing and t.divisions.count() == 2


@pytest.mark.django_db
def test_an_unfinished_job_polls_and_reloads_without_javascript():
    user = founder()
    job = ImportJob.objects.create(
        created_by=user,
        source="all.tsh",
        state="running",
        runner=jobs.runner_name("inline"),  # this very process: alive
        done=300,
        total=1000,
        phrase="division B: 300 of 500 players",
    )
    page = signed_in(user).get(reverse("console_site:import_job", args=[job.pk]))
    text = page.content.decode()
    assert "Importing: division B: 300 of 500 players." in text
    assert 'hx-trigger="every 1s"' in text
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in text
    assert '<progress id="job-progress" max="100" value="30"' in text


@pytest.mark.django_db
def test_only_the_uploader_follows_the_job():
    owner, other = founder("owner"), founder("other")
    response = post(signed_in(owner), "a.t", players_t(4, 1))
    url = response["Location"]
    # another director with the same rights: the plain denial, as for a job that is not there
    denied = signed_in(other).get(url)
    nothing = signed_in(other).get(reverse("console_site:import_job", args=[uuid.uuid4()]))
    assert denied.status_code == nothing.status_code == 403
    words = "an import job is seen only by the director who uploaded it"
    assert words in denied.content.decode() and words in nothing.content.decode()
    assert "a.t" not in denied.content.decode()
    # anonymous: sent to sign in, nothing shown
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    # a site superuser follows any job (and hears when there is none)
    root = get_user_model().objects.create_superuser("root", "root@example.org", "pw-long-1x")
    assert signed_in(root).get(url).status_code == 200
    missing = reverse("console_site:import_job", args=[uuid.uuid4()])
    assert signed_in(root).get(missing).status_code == 404
    # the service's own check: require(), not only the page
    with pytest.raises(ServiceError) as refused:
        jobs.follow_job(other, ImportJob.objects.get().pk)
    assert refused.value.code == "not_allowed"


@pytest.mark.django_db
def test_a_failure_while_writing_deletes_the_partial_import_and_names_the_line():
    """A player twice in the second division is found only while writing (the registry is
    asked): the first division's batches are already in, and are deleted again."""
    user = founder()
    second = players_t(6, 2).decode().splitlines()
    second[5] = second[5].replace("Player6", "Player1")  # line 6 names Player1 again
    data = archive(1, BATCH_ROWS + 10, 2) + (
        b"#begin_file name=b.t\n" + "\n".join(second).encode() + b"\n#end_file name=b.t\n"
    )
    data = data.replace(b"division A a.t\n", b"division A a.t\ndivision B b.t\n")
    before = (Tournament.objects.count(), Entry.objects.count(), Player.objects.count())
    client = signed_in(user)
    response = post(client, "all.tsh", data)
    page = client.get(response["Location"]).content.decode()
    job = ImportJob.objects.get()
    assert job.state == "failed" and job.tournament is None
    assert "b.t line 6" in job.error and "Player1" in job.error, job.error
    assert "The import failed; nothing was created." in page and "b.t line 6" in page
    assert (Tournament.objects.count(), Entry.objects.count(), Player.objects.count()) == before


@pytest.mark.django_db
def test_a_job_whose_server_restarted_is_failed_when_next_looked_at():
    user = founder()
    # a tournament left half-written by the import that was running
    t = services.create_tournament(name="Half", actor="test", published=False)
    Tournament.objects.filter(pk=t.pk).update(importing=True)
    job = ImportJob.objects.create(
        created_by=user,
        source="all.tsh",
        state="running",
        runner=f"thread:{jobs.HOST}:{jobs.os.getpid()}:an-earlier-boot",
        tournament=t,
        phrase="division A: 200 of 500 players",
    )
    page = signed_in(user).get(reverse("console_site:import_job", args=[job.pk]))
    text = page.content.decode()
    job.refresh_from_db()
    assert job.state == "failed" and "restarted while it ran" in job.error
    assert "restarted while it ran" in text and "Nothing of it was kept" in text
    assert not Tournament.objects.filter(pk=t.pk).exists()


@pytest.mark.django_db
def test_a_tournament_being_imported_is_hidden_everywhere():
    user = founder()
    t = services.create_tournament(name="Half", actor="test", directors=[user], published=True)
    Tournament.objects.filter(pk=t.pk).update(importing=True)
    client = signed_in(user)
    assert not staffed_tournaments(user).filter(pk=t.pk).exists()
    assert not visible_tournaments(user).filter(pk=t.pk).exists()
    assert client.get(reverse("console:setup", args=[t.slug])).status_code == 404
    assert t.slug not in client.get("/console/").content.decode()


# --------------------------------------------------------------------------- for real


def _wait(job_id, seconds: float = 120.0) -> ImportJob:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job = ImportJob.objects.get(pk=job_id)
        if job.finished_state:
            return job
        time.sleep(0.1)
    raise AssertionError("the import job did not finish")


@pytest.mark.django_db(transaction=True)
def test_the_upload_answers_at_once_and_a_thread_imports(settings):
    """The production path without a worker: the request returns before the import is done
    (it has not even started writing), and a thread of this process finishes it."""
    settings.IMPORT_JOB_RUNNER = "auto"  # no REDIS_URL in the suite: no worker, so a thread
    user = founder()
    client = signed_in(user)
    started = time.monotonic()
    response = post(client, "all.tsh", archive(2, 100, 10))
    answered = time.monotonic() - started
    assert response.status_code == 302
    job = ImportJob.objects.get()
    assert job.runner.startswith("thread:")
    finished = _wait(job.pk)
    took = time.monotonic() - started
    assert finished.state == "done", finished.error
    assert finished.tournament.divisions.count() == 2
    assert Game.objects.filter(round__division__tournament=finished.tournament).count() == 1000
    assert answered < took  # the request did not wait for the import
    page = client.get(response["Location"]).content.decode()
    assert reverse("console:setup", args=[finished.tournament.slug]) in page


@pytest.mark.django_db(transaction=True)
def test_a_result_in_another_tournament_goes_in_while_a_big_import_writes(tmp_path):
    """Between the import's batches another connection records results: each within a
    second (the database's busy timeout is 5 s; one transaction for the whole import held
    the lock for over 30 s, and these failed with "database busy")."""
    path = tmp_path / "night.t"  # 40 players paired in round 1, no scores yet
    path.write_bytes(players_t(40, 1).replace(b"; 400", b"; ").replace(b"; 350", b"; "))
    division = import_tsh(path, rounds=1, name="Club night").divisions.get()

    big = tmp_path / "all.tsh"
    big.write_bytes(archive(2, 300, 30))
    done = threading.Event()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            import_tsh(big, name="Big")
        except BaseException as exc:  # noqa: BLE001 - reported below
            failed.append(exc)
        finally:
            connections.close_all()
            done.set()

    thread = threading.Thread(target=run)
    thread.start()
    waits = []
    try:
        while not Game.objects.filter(round__division__tournament__name="Big").exists():
            time.sleep(0.02)  # the import is writing
        for player in range(1, 40, 2):
            if done.is_set():
                break
            started = time.monotonic()
            services.record_result(division, 1, player, 400, 350, actor="test")
            waits.append(time.monotonic() - started)
            time.sleep(0.05)
    finally:
        thread.join(300)
    assert not failed, failed
    assert len(waits) >= 3, "the import finished before results could be entered beside it"
    assert max(waits) < 1.0, waits


@pytest.mark.django_db
def test_a_new_upload_clears_jobs_older_than_a_month_and_keeps_their_tournaments():
    """Old job pages go with the next upload; what they imported stays; a lost one is failed
    first, so what it half wrote goes with it."""
    import datetime as dt

    from django.utils import timezone

    user = founder()
    client = signed_in(user)
    assert post(client, "all.tsh", archive(1, 4, 2)).status_code == 302
    done = ImportJob.objects.get()
    kept = done.tournament
    half = services.create_tournament(name="Half", actor="test", published=False)
    Tournament.objects.filter(pk=half.pk).update(importing=True)
    lost = ImportJob.objects.create(
        created_by=user,
        source="big.tsh",
        state="running",
        runner=f"thread:{jobs.HOST}:{jobs.os.getpid()}:an-earlier-boot",
        tournament=half,
    )
    recent = ImportJob.objects.create(created_by=user, source="x.t", state="failed")
    old = timezone.now() - dt.timedelta(days=jobs.KEEP_DAYS + 1)
    ImportJob.objects.filter(pk__in=[done.pk, lost.pk]).update(created=old)
    assert post(client, "all.tsh", archive(1, 4, 2)).status_code == 302
    left = set(ImportJob.objects.values_list("pk", flat=True))
    assert done.pk not in left and lost.pk not in left and recent.pk in left and len(left) == 2
    assert Tournament.objects.filter(pk=kept.pk).exists()
    assert not Tournament.objects.filter(pk=half.pk).exists()
