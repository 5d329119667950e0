"""Faults: a busy SQLite database, a dropped PostgreSQL connection, Redis going away, a
background worker lost mid-job, and kill -9 in the middle of an import or a re-rate."""

from __future__ import annotations

import datetime
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection

from pairings.services.store import PlannedGame, save_round_pairings
from ratings import services as rs
from ratings.engine import RatedGame
from ratings.models import PlayerRating, RatedEvent, RatingHistory, RatingList
from tests import warm
from tests.conftest import REPO
from tests.core.conftest import make_director
from tests.ports import free_port
from tournament import services
from tournament.access import visible_tournaments
from tournament.interchange.jobs import sweep_lost_jobs
from tournament.models import AuditEvent, Entry, Game, Player, Seat, Tournament

from .test_concurrency import POSTGRES, child_env

pytestmark = pytest.mark.django_db(transaction=True)
SQLITE = connection.vendor == "sqlite"


def paired_event(name: str = "Faults", players: int = 4):
    t = services.create_tournament(name=name)
    d = services.create_division(t, name="A", rounds=3)
    for n in range(1, players + 1):
        services.register_player(d, name=f"Player{n}, Test", rating=1500 + n)
    games = [PlannedGame(2 * k + 1, 2 * k + 2, board=k + 1) for k in range(players // 2)]
    save_round_pairings(d, 1, games, system="manual", actor="test")
    return t, d


def results_url(t, d, rnd=1):
    return f"/t/{t.slug}/console/{d.slug}/round/{rnd}/results/"


def manage(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """A command in a process of its own on the test database (forked from a warm parent,
    tests/warm.py: without Django's start, which a kill at a fraction of the run's time
    would otherwise mostly hit)."""
    return warm.manage(child_env(), *args, timeout=timeout)


# --------------------------------------------------------------------------- SQLite busy


def test_sqlite_runs_in_wal_mode_with_a_modest_busy_timeout():
    if not SQLITE:
        pytest.skip("SQLite settings: the database is not SQLite")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
        cursor.execute("PRAGMA busy_timeout")
        assert 0 < cursor.fetchone()[0] <= 10_000


@contextmanager
def write_lock_held():
    """Another connection holds SQLite's write lock (as a long import once did)."""
    options = connection.settings_dict["OPTIONS"]
    saved = options["timeout"]
    connection.close()
    options["timeout"] = 0.3  # the same path as 5 s, without the wait
    other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()
        connection.close()
        options["timeout"] = saved


def test_result_typed_while_the_database_is_busy_is_a_clean_refusal(client):
    if not SQLITE:
        pytest.skip("database_busy on a held write lock: the database is not SQLite")
    t, d = paired_event()
    client.force_login(make_director(t, "busy-td"))
    events = AuditEvent.objects.count()
    with write_lock_held():
        page = client.post(results_url(t, d), {"line": "1 400 300"}, HTTP_HX_REQUEST="true")
    body = page.content.decode()
    assert page.status_code == 400
    assert "the database is busy" in body and "try again" in body
    assert "Traceback" not in body
    assert Game.objects.filter(score1__isnull=False, player2__isnull=False).count() == 0
    assert AuditEvent.objects.count() == events


def test_command_while_the_database_is_busy_says_so(tmp_path):
    if not SQLITE:
        pytest.skip("database_busy on a held write lock: the database is not SQLite")
    t, _ = paired_event()
    other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        env = {**child_env(), "GIBSON_SQLITE_BUSY_TIMEOUT": "0.3"}
        done = subprocess.run(
            [
                sys.executable,
                "manage.py",
                "record_result",
                t.slug,
                "--round",
                "1",
                "1",
                "400",
                "300",
                "--json",
            ],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert done.returncode == 1, done.stderr
    answer = json.loads(done.stdout)
    assert answer["code"] == "database_busy" and "try again" in answer["error"]
    assert "Traceback" not in done.stderr
    assert Game.objects.filter(score1__isnull=False, player2__isnull=False).count() == 0


def test_busy_page_elsewhere_is_503_not_500(rf):
    from django.db.utils import OperationalError

    from tournament.web.errors import BusyDatabaseMiddleware

    middleware = BusyDatabaseMiddleware(lambda request: None)
    request = rf.post("/anything/", HTTP_ACCEPT="application/json")
    answer = middleware.process_exception(request, OperationalError("database is locked"))
    assert answer.status_code == 503 and json.loads(answer.content)["code"] == "database_busy"
    assert middleware.process_exception(request, OperationalError("disk I/O error")) is None


# --------------------------------------------------------------------------- PostgreSQL


def test_request_after_the_server_dropped_the_connection_succeeds(client):
    """The database restarted (here: our backend is terminated): the next request works."""
    if not POSTGRES:
        pytest.skip("pg_terminate_backend: DATABASE_URL is not PostgreSQL")
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import RequestFactory

    t, d = paired_event("Restart")
    user = make_director(t, "restart-td")
    client.force_login(user)
    session = client.cookies["sessionid"].value
    handler = WSGIHandler()  # the server's own path: request_started runs the health check
    settings_dict = connection.settings_dict
    saved = settings_dict["CONN_MAX_AGE"], settings_dict["CONN_HEALTH_CHECKS"]
    settings_dict["CONN_MAX_AGE"], settings_dict["CONN_HEALTH_CHECKS"] = 600, True

    csrf = "c" * 32  # an unmasked secret: the cookie and the field agree

    def post(line: str) -> int:
        environ = (
            RequestFactory()
            .post(
                results_url(t, d),
                {"line": line, "csrfmiddlewaretoken": csrf},
                HTTP_COOKIE=f"sessionid={session}; csrftoken={csrf}",
            )
            .environ
        )
        statuses = []
        body = b"".join(handler(environ, lambda status, headers: statuses.append(status)))
        assert body
        return int(statuses[0].split()[0])

    try:
        connection.close()  # a server's connection, opened with the server's settings
        connection.ensure_connection()
        assert post("1 400 300") == 200
        pid = connection.connection.info.backend_pid
        import psycopg

        dsn = {k: settings_dict[k] for k in ("HOST", "PORT", "USER", "PASSWORD")}
        with psycopg.connect(
            host=dsn["HOST"],
            port=dsn["PORT"],
            user=dsn["USER"],
            password=dsn["PASSWORD"],
            dbname="postgres",
            autocommit=True,
        ) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])
        assert post("3 410 310") == 200
        assert connection.connection.info.backend_pid != pid
    finally:
        settings_dict["CONN_MAX_AGE"], settings_dict["CONN_HEALTH_CHECKS"] = saved
        connection.close()
    game = Game.objects.get(round__division=d, player1__number=3)
    assert (game.score1, game.score2) == (410, 310)


# --------------------------------------------------------------------------- Redis


def test_result_entry_works_after_redis_stops_mid_run(client, settings, tmp_path):
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed")
    port = free_port()
    redis = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": f"redis://127.0.0.1:{port}/0",
                "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
            }
        }
        t, d = paired_event("Redis away", players=6)
        client.force_login(make_director(t, "redis-td"))
        assert client.post(results_url(t, d), {"line": "1 400 300"}).status_code == 200
        assert client.get(f"/t/{t.slug}/").status_code in (200, 302)
        redis.terminate()
        redis.wait(timeout=10)
        started = time.monotonic()
        page = client.post(results_url(t, d), {"line": "3 410 310"})
        assert page.status_code == 200
        assert time.monotonic() - started < 10
        game = Game.objects.get(round__division=d, player1__number=3)
        assert (game.score1, game.score2) == (410, 310)
        assert client.get(f"/t/{t.slug}/").status_code in (200, 302)
    finally:
        if redis.poll() is None:
            redis.kill()
            redis.wait()


# --------------------------------------------------------------------------- lost worker


def test_a_job_whose_worker_died_shows_failed_not_working(client, settings, tmp_path, monkeypatch):
    """The worker was killed mid-job: its state stays PROGRESS in the result store for ever;
    the desk sees the job's heartbeat (its marker) stop and says failed, start again."""
    from celery.result import AsyncResult

    from tournament.web import desk

    settings.DATA_DIR = tmp_path
    t, d = paired_event("Lost worker")
    client.force_login(make_director(t, "lost-td"))
    job = "ab" * 16
    folder = tmp_path / "reports" / t.slug
    folder.mkdir(parents=True)
    marker = folder / f"{job}.queued"
    marker.write_text("/now", encoding="utf-8")
    state = {"value": "PROGRESS"}
    monkeypatch.setattr(AsyncResult, "state", property(lambda self: state["value"]))
    monkeypatch.setattr(AsyncResult, "info", property(lambda self: {"current": 3, "total": 9}))
    from django.urls import reverse

    url = reverse("desk:job", args=(t.slug, job))
    conf = desk.division_scorecards.app.conf
    eager = conf.task_always_eager
    conf.task_always_eager = False  # as the web process runs with a worker
    try:
        _lost_job_answers(client, url, marker, state)
    finally:
        conf.task_always_eager = eager


def _lost_job_answers(client, url: str, marker: Path, state: dict) -> None:
    from tournament.web import desk

    fresh = client.get(url).json()
    assert fresh["state"] == "working" and fresh["current"] == 3
    old = time.time() - desk.JOB_STALE_SECONDS - 5
    os.utime(marker, (old, old))
    lost = client.get(url).json()
    assert lost["ok"] is False and lost["state"] == "failed"
    assert "start again" in lost["error"]
    state["value"] = "PENDING"  # queued, and no worker ever took it
    assert client.get(url).json()["state"] == "queued"
    older = time.time() - desk.JOB_QUEUE_SECONDS - 5
    os.utime(marker, (older, older))
    assert client.get(url).json()["state"] == "failed"


def test_the_task_keeps_its_heartbeat_and_is_requeued_if_its_worker_dies(tmp_path):
    from tournament.reports.tasks import division_scorecards, heartbeat

    assert division_scorecards.acks_late and division_scorecards.reject_on_worker_lost
    marker = tmp_path / "job.queued"
    marker.write_text("x", encoding="utf-8")
    os.utime(marker, (1000, 1000))
    heartbeat(tmp_path / "job.pdf")
    assert time.time() - marker.stat().st_mtime < 60


# --------------------------------------------------------------------------- kill -9


def big_t_file(path: Path, players: int = 300, rounds: int = 20) -> int:
    """A division file of ``players`` players and ``rounds`` rounds (circle method); returns
    the number of games."""
    rng = random.Random(7)
    opponents = {n: [] for n in range(1, players + 1)}
    scores = {n: [] for n in range(1, players + 1)}
    ring = list(range(2, players + 1))
    for _ in range(rounds):
        order = [1, *ring]
        for k in range(players // 2):
            a, b = order[k], order[-1 - k]
            opponents[a].append(b)
            opponents[b].append(a)
            scores[a].append(rng.randint(250, 550))
            scores[b].append(rng.randint(250, 550))
        ring = ring[-1:] + ring[:-1]
    lines = [
        f"Player{n:04d}, Big {1200 + n} {' '.join(map(str, opponents[n]))}; "
        f"{' '.join(map(str, scores[n]))}"
        for n in range(1, players + 1)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return players // 2 * rounds


def import_state() -> tuple:
    return (
        Tournament.objects.count(),
        Entry.objects.count(),
        Game.objects.count(),
        Seat.objects.count(),
        Player.objects.count(),
    )


def kill_after(command: list[str], delay: float) -> int | None:
    """Run ``command`` in a process of its own and kill -9 it after ``delay`` seconds unless
    it ended before; its exit status (-9 when killed)."""
    env = child_env()
    pool = warm.warm_for(env)
    proc = pool.spawn(command, env, pool.folder / "killed.log")
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return proc.returncode


def test_kill_9_during_an_import_leaves_nothing_half_written(tmp_path):
    path = tmp_path / "big.t"
    games = big_t_file(path)
    players = 300
    before = import_state()
    warm.warm_for(child_env()).ready(child_env())  # its start is not the import's time
    started = time.monotonic()
    done = manage("import_tsh", str(path), "--name", "Whole")
    assert done.returncode == 0, done.stderr
    whole = time.monotonic() - started
    full = import_state()
    assert full[1:4] == (before[1] + players, before[2] + games, before[3] + 2 * games)
    for fraction in (0.6, 0.85, 0.97):
        now = import_state()
        killed = kill_after(
            ["import_tsh", str(path), "--name", f"Cut {fraction}"], whole * fraction
        )
        after = import_state()
        cut = Tournament.objects.filter(name=f"Cut {fraction}").first()
        if cut is not None and cut.importing:
            # killed between two of its short transactions: hidden (never public, in no
            # console list), and the next import finds its job lost and deletes it
            assert killed == -signal.SIGKILL
            assert not visible_tournaments(None).filter(pk=cut.pk).exists()
            assert sweep_lost_jobs() == 1
            after = import_state()
            cut = None
        if cut is None:  # killed before anything of it stayed: nothing of it
            assert killed == -signal.SIGKILL
            assert after == now
        else:  # it finished: all of it
            entries = Entry.objects.filter(division__tournament=cut).count()
            assert entries == players
            assert Game.objects.filter(round__division__tournament=cut).count() == games
            assert Seat.objects.filter(round__division__tournament=cut).count() == 2 * games
            assert cut.divisions.count() == 1


def _ratings(lst: RatingList) -> tuple:
    return (
        lst.system,
        sorted(
            PlayerRating.objects.filter(rating_list=lst).values_list(
                "player_id", "rating", "career_games"
            )
        ),
        sorted(
            RatingHistory.objects.filter(event__rating_list=lst).values_list(
                "event_id", "player_id", "before", "after"
            )
        ),
    )


def test_kill_9_during_a_rerate_leaves_the_list_unchanged_or_fully_rerated():
    lst = rs.create_rating_list("Kill list", slug="kill-list", start_date=datetime.date(2024, 1, 1))
    ids = [Player.objects.create(name=f"Rater{n:03d}, Test").pk for n in range(60)]
    rng = random.Random(3)
    for e in range(12):
        games = []
        for r in range(1, 8):
            order = ids[:]
            rng.shuffle(order)
            games += [
                RatedGame(r, a, b, rng.randint(300, 500), rng.randint(300, 500))
                for a, b in zip(order[::2], order[1::2], strict=False)
            ]
        rs.submit_event(
            lst,
            name=f"Event {e}",
            date=datetime.date(2024, 1, 1 + 2 * e),
            configured_rounds=7,
            games=games,
            start={i: (1500, 100) for i in ids} if e == 0 else None,
        )
    assert RatedEvent.objects.filter(rating_list=lst).count() == 12
    original = _ratings(lst)
    warm.warm_for(child_env()).ready(child_env())  # its start is not the re-rate's time
    started = time.monotonic()
    done = manage("rerate", lst.slug, "--system", "glicko2")
    assert done.returncode == 0, done.stderr
    whole = time.monotonic() - started
    lst.refresh_from_db()
    rerated = _ratings(lst)
    assert rerated != original
    done = manage("rerate", lst.slug, "--system", "nsa2008")
    assert done.returncode == 0, done.stderr
    lst.refresh_from_db()
    assert _ratings(lst) == original
    for fraction in (0.7, 0.95):
        kill_after(["rerate", lst.slug, "--system", "glicko2"], whole * fraction)
        lst.refresh_from_db()
        assert _ratings(lst) in (original, rerated)
        assert manage("rerate", lst.slug, "--system", "nsa2008").returncode == 0
        lst.refresh_from_db()
        assert _ratings(lst) == original
