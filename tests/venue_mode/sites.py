"""Two real Gibson processes on loopback for venue mode's tests and benchmark: a hosted site
(PostgreSQL when the tests run on it, else SQLite) and a venue (SQLite), each with its own
data folder and database, driven by their management commands."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.conftest import REPO
from tests.migrated import migrated_sqlite
from tests.ports import free_port
from tests.warm import Spawned, Warm


class Site:
    """One Gibson instance: its environment, its commands, its server (started on demand).

    Its commands run in processes of their own forked from a warm parent (tests/warm.py):
    each pays the command, not Django's start (a second or more, some forty times a test).
    ``fresh=True`` runs ``manage.py`` as a program of its own, for what is about that."""

    def __init__(self, name: str, folder: Path, database_url: str | None = None) -> None:
        self.name = name
        folder.mkdir(parents=True, exist_ok=True)
        self.env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        self.env.update(
            GIBSON_DATA_DIR=str(folder),
            GIBSON_SECRET_KEY=f"venue-mode-test-{name}",
            GIBSON_DEVELOPMENT="0",
            GIBSON_LOG_LEVEL="WARNING",
            GIBSON_VENUE_ALLOW_PRIVATE="1",  # the two sites talk over loopback
            # standings pages with current prize chances: a page may otherwise reuse chances
            # computed up to 30 s before for an earlier state, and the two sites' tables,
            # read within a second of a push, would differ by them alone
            GIBSON_CHANCES_PAGE_SECONDS="0",
        )
        if database_url:
            self.env["DATABASE_URL"] = database_url
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server: Spawned | None = None
        self.log = folder / "server.log"
        self.database = folder / "gibson.sqlite3"
        self.warm = Warm(REPO, folder / "commands")

    def manage(
        self, *args: str, check: bool = True, timeout: float = 300, fresh: bool = False
    ) -> subprocess.CompletedProcess:
        if fresh:
            done = subprocess.run(
                [sys.executable, "manage.py", *args],
                cwd=REPO,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        else:
            done = self.warm.run(list(args), self.env, timeout)
        if check and done.returncode != 0:
            raise AssertionError(
                f"{self.name}: manage.py {' '.join(args)}\n{done.stdout}\n{done.stderr}"
            )
        return done

    def migrate(self) -> None:
        """An empty, migrated database: the shared template copied for a SQLite site
        (tests/migrated.py), ``manage.py migrate`` for a PostgreSQL one."""
        if "DATABASE_URL" in self.env:
            self.manage("migrate", "-v", "0")
        else:
            migrated_sqlite(self.database)

    def json(self, *args: str) -> Any:
        return json.loads(self.manage(*args, "--json").stdout)

    def shell(self, code: str, timeout: float = 600) -> str:
        return self.manage("shell", "-v", "0", "-c", code, timeout=timeout).stdout

    def popen(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "manage.py", *args],
            cwd=REPO,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def start(self) -> None:
        """The site's server (``runserver``), forked from the warm parent like the commands:
        a process of its own that a test stops, kills with -9 and starts again."""
        self.server = self.warm.spawn(
            ["runserver", "--noreload", f"127.0.0.1:{self.port}"], self.env, self.log
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.server.poll() is None, self.log.read_text()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"{self.name} did not start: {self.log.read_text()}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.server is not None and self.server.poll() is None:
            self.server.send_signal(sig)
            try:
                self.server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait(timeout=10)
        self.server = None

    def close(self) -> None:
        """Stop the server and end the commands' warm parent: the test is over."""
        self.stop()
        self.warm.close()

    def text(self, path: str) -> str:
        with urllib.request.urlopen(self.url + path, timeout=60) as answer:
            return answer.read().decode()

    def get(self, path: str) -> Any:
        try:
            with urllib.request.urlopen(self.url + path, timeout=60) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{self.name} {path}: {exc.code} {exc.read()[:500]!r}") from exc


def postgres_database(tag: str) -> tuple[str | None, Any]:
    """A fresh PostgreSQL database for the hosted site when the tests run on PostgreSQL
    (DATABASE_URL), and a function that drops it; (None, no-op) otherwise."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        return None, lambda: None
    import psycopg

    base, _, _ = url.rpartition("/")
    name = f"gibson_{tag}_{os.getpid()}"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.execute(f"CREATE DATABASE {name}")

    def drop() -> None:
        with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    return f"{base}/{name}", drop


IGNORED = {"id", "player_id", "url", "registry_id", "player_url", "version"}


def comparable(value: Any) -> Any:
    """An API answer without what differs between two sites by nature (row ids, URLs)."""
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items() if k not in IGNORED}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value
