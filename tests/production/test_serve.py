"""``manage.py serve``: gunicorn with N workers, static files by whitenoise, busy port refused."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import REPO

from .conftest import clean_env, free_port


def fetch(url: str) -> tuple[int, bytes, str]:
    # a fresh worker's first answer loads Django and the static manifest: on a loaded CI
    # machine that took over 5 s once, so the wait is generous (a hang still fails)
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read(), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("Content-Type", "")


def children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("PPid:") and int(line.split()[1]) == pid:
                found.append(int(status.parent.name))
    return found


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)  # gunicorn's graceful stop
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_serve_runs_gunicorn_with_two_workers_and_static_files(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--addr", f"127.0.0.1:{port}", "--workers", "2"],
        cwd=REPO,
        env=clean_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        assert server.poll() is None, server.stdout.read()
        status, body, _ = fetch(f"{base}/")
        assert status == 200 and b"Gibson" in body
        status, body, kind = fetch(f"{base}/static/django_htmx/htmx-2.min.js")
        assert status == 200 and "javascript" in kind and b"htmx" in body
        # collected into STATIC_ROOT first, which is what whitenoise serves from
        assert (tmp_path / "static" / "django_htmx" / "htmx-2.min.js").is_file()
        assert fetch(f"{base}/healthz")[:2] == (200, b"ok")
        # the manual, built at start into the data folder, served by the workers
        status, body, kind = fetch(f"{base}/docs/")
        assert status == 200 and b"<title>Gibson manual</title>" in body, body[:200]
        assert (tmp_path / "manual" / "search" / "search_index.json").is_file()
        assert (tmp_path / "gibson.sqlite3").is_file()  # migrated before serving
        # gunicorn replaced the command's process: it is the master, with two workers
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(children(server.pid)) != 2:
            time.sleep(0.1)
        assert len(children(server.pid)) == 2
    finally:
        stop(server)
    output = server.stdout.read()
    assert f"Gibson is serving on http://127.0.0.1:{port}/ with 2 worker processes" in output
    assert f"The manual: http://127.0.0.1:{port}/docs/" in output
    assert server.returncode == 0, output


def test_busy_port_is_named_before_anything_is_printed(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "manage.py", "serve", "--addr", f"127.0.0.1:{port}"],
            cwd=REPO,
            env=clean_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stdout == ""
    assert f"cannot serve on 127.0.0.1:{port}" in done.stderr
    # nothing was prepared for a server that never started: not migrated, nothing collected
    assert not (tmp_path / "gibson.sqlite3").exists()
    assert not any((tmp_path / "static").glob("*"))


def _time_wait_port() -> int:
    """A port whose server just stopped: it accepted a connection and closed it first, so the
    connection waits in TIME_WAIT and nothing listens (a director's stop before a restart).
    The server sets SO_REUSEADDR as gunicorn and runserver do (Linux lets a new socket share
    a TIME_WAIT port only when both said so)."""
    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)) as client:
            conn, _ = server.accept()
            conn.close()  # the server's side closes first: its end goes to TIME_WAIT
            client.recv(1)
    with socket.socket() as plain, pytest.raises(OSError):  # what the old check did
        plain.bind(("127.0.0.1", port))
    return port


def test_a_port_whose_server_just_stopped_is_free_to_serve_on():
    from tournament.management.serving import check_free

    port = _time_wait_port()
    check_free(f"127.0.0.1:{port}")  # no "Address already in use" for a minute
    with socket.socket() as busy:  # a port with a listener is still refused
        busy.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        busy.bind(("127.0.0.1", port))
        busy.listen()
        with pytest.raises(Exception, match=f"cannot serve on 127.0.0.1:{port}"):
            check_free(f"127.0.0.1:{port}")


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--workers", "0"], {}, "--workers='0': give a whole number of worker processes"),
        (["--workers", "two"], {}, "--workers='two'"),
        ([], {"GIBSON_WORKERS": "-3"}, "GIBSON_WORKERS='-3'"),
        (["--addr", "127.0.0.1"], {}, "--addr '127.0.0.1': give HOST:PORT"),
    ],
)
def test_bad_workers_or_address_refused(tmp_path, args, env, message):
    done = subprocess.run(
        [sys.executable, "manage.py", "serve", "--addr", f"127.0.0.1:{free_port()}", *args],
        cwd=REPO,
        env=clean_env(tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert message in done.stderr
    assert done.stdout == ""


def test_default_workers_follow_the_environment(monkeypatch):
    from tournament.management.commands.serve import default_workers

    monkeypatch.setenv("GIBSON_WORKERS", "3")
    assert default_workers() == 3
    monkeypatch.delenv("GIBSON_WORKERS")
    assert default_workers() == 2 * (os.cpu_count() or 1)


@pytest.mark.slow(seconds=4)
def test_serve_rebuilds_a_manual_older_than_docs_and_keeps_a_current_one(settings, tmp_path):
    """A manual built from other sources (an upgrade changed docs/) is built again at start;
    one built from these sources is kept, so a restart stays quick. Seconds: one build."""
    from tournament.management.serving import ensure_manual
    from tournament.manual import STAMP

    settings.MANUAL_DIR = tmp_path / "manual"
    settings.MANUAL_DIR.mkdir()
    (settings.MANUAL_DIR / "index.html").write_text("the manual of the previous version")
    (settings.MANUAL_DIR / STAMP).write_text("digest of older sources")
    assert ensure_manual("http://127.0.0.1:8000") == "The manual: http://127.0.0.1:8000/docs/"
    start = settings.MANUAL_DIR / "index.html"
    assert "<title>Gibson manual</title>" in start.read_text()
    built_at = start.stat().st_mtime_ns
    ensure_manual("http://127.0.0.1:8000")
    assert start.stat().st_mtime_ns == built_at


def test_serve_says_when_the_manual_cannot_be_built_and_serves_on(settings, tmp_path, monkeypatch):
    """A server installed without the development extras has no MkDocs: the start says so."""
    import tournament.manual
    from tournament.management.serving import ensure_manual

    def no_mkdocs(out, **kwargs):
        raise tournament.manual.ManualError("the manual needs MkDocs (mkdocs is not installed)")

    monkeypatch.setattr(tournament.manual, "build_manual", no_mkdocs)
    settings.MANUAL_DIR = tmp_path / "manual"
    said = ensure_manual("http://127.0.0.1:8000")
    assert said.startswith("The manual could not be built (the manual needs MkDocs")
    assert not settings.MANUAL_DIR.exists()
