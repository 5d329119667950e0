"""``manage.py backup PATH``: the whole database in one file, safe to take while the site runs.

A director's laptop dies mid-event, or a server is moved: the backup is what the event restarts
from (``manage.py restore PATH``). So it must be consistent even when results are being entered
at the moment it is taken:

- SQLite: the online backup API (``sqlite3.Connection.backup``) copies the database page by page
  under SQLite's own locking, WAL included; the copy is a plain single-file database (no -wal
  file to forget), checked with ``PRAGMA quick_check`` before it replaces anything at PATH.
- PostgreSQL: ``pg_dump -Fc`` (one snapshot, custom format for ``pg_restore``). The connection
  comes from DATABASE_URL; the password goes to pg_dump in its environment (PGPASSWORD), never
  on a command line another user could read in ``ps``.

The file is written beside PATH and renamed into place, so an interrupted backup never leaves
half a file under the name a script will later restore from.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from django.core.management import CommandError
from django.core.management.base import CommandParser
from django.db import connection

from ...models import Player, Tournament
from ..base import GibsonCommand

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"  # pg_dump's custom format
# Tables a Gibson database always has; a file without them is some other program's database.
GIBSON_TABLES = ("django_migrations", "tournament_tournament", "tournament_game")


def engine() -> str:
    """ "sqlite" or "postgresql"; any other database is refused, naming it."""
    vendor = connection.vendor
    if vendor not in ("sqlite", "postgresql"):
        raise CommandError(
            f"backup and restore support SQLite and PostgreSQL; this site's database is {vendor}"
        )
    return vendor


def file_kind(path: Path) -> str:
    """What a file looks like from its first bytes: "sqlite", "postgresql" or "other"."""
    with path.open("rb") as fh:
        head = fh.read(len(SQLITE_MAGIC))
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head.startswith(PG_MAGIC):
        return "postgresql"
    return "other"


def pg_env() -> dict[str, str]:
    """libpq's environment for the site's PostgreSQL database (password included, not argv)."""
    s = connection.settings_dict
    env = {**os.environ}
    for var, value in (
        ("PGHOST", s.get("HOST")),
        ("PGPORT", s.get("PORT")),
        ("PGUSER", s.get("USER")),
        ("PGPASSWORD", s.get("PASSWORD")),
        ("PGDATABASE", s.get("NAME")),
    ):
        if value:
            env[var] = str(value)
        else:
            env.pop(var, None)
    return env


def pg_tool(name: str) -> str:
    """The path of pg_dump/pg_restore, or a refusal that says how to get it."""
    found = shutil.which(name)
    if not found:
        raise CommandError(
            f"{name} is not installed (it comes with PostgreSQL's client tools, e.g. the "
            "Debian package postgresql-client)"
        )
    return found


def run_pg(argv: list[str], what: str) -> subprocess.CompletedProcess[str]:
    """Run a PostgreSQL client tool; a failure names the tool and its last line of error."""
    done = subprocess.run(argv, env=pg_env(), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        detail = lines[-1] if lines else f"exit status {done.returncode}"
        raise CommandError(f"{what}: {Path(argv[0]).name} failed: {detail}")
    return done


def sqlite_problem(path: Path) -> str:
    """Why the SQLite file at ``path`` is not a usable Gibson backup ("" if it is one)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return f"cannot be opened as a database ({exc})"
    try:
        check = db.execute("PRAGMA quick_check").fetchone()
        if not check or check[0] != "ok":
            return f"is damaged (SQLite's check says: {check[0] if check else 'nothing'})"
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error as exc:
        return f"cannot be read as a database ({exc})"
    finally:
        db.close()
    missing = [t for t in GIBSON_TABLES if t not in tables]
    if missing:
        return f"is a SQLite database but not a Gibson backup (no {', '.join(missing)} table)"
    return ""


def counts() -> dict[str, int]:
    """What a director recognises a database by: how many tournaments and players it holds."""
    return {"tournaments": Tournament.objects.count(), "players": Player.objects.count()}


def described(numbers: dict[str, int]) -> str:
    """ "1 tournament, 40 players" from ``counts()``."""
    t, p = numbers["tournaments"], numbers["players"]
    return f"{t} tournament{'s' if t != 1 else ''}, {p} player{'s' if p != 1 else ''}"


class Command(GibsonCommand):
    help = "Write the whole database to PATH (consistent even while the site is running)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the backup file to write")
        parser.add_argument(
            "--force", action="store_true", help="replace PATH if it already exists"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        path = Path(opts["path"]).expanduser()
        kind = engine()
        if path.is_dir():
            raise CommandError(f"{path} is a folder; give the backup file's name")
        if path.exists() and not opts["force"]:
            raise CommandError(f"{path} already exists; choose a new name or use --force")
        if not path.parent.is_dir():
            raise CommandError(f"{path}: the folder {path.parent} does not exist")
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            if kind == "sqlite":
                _backup_sqlite(tmp)
            else:
                run_pg([pg_tool("pg_dump"), "-Fc", "--no-owner", "-f", str(tmp)], f"backup {path}")
            tmp.chmod(0o600)  # the database holds staff accounts and password hashes
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        result = {"ok": True, "file": str(path), "engine": kind, "bytes": path.stat().st_size}
        result.update(counts())
        if opts["json"]:
            self.emit_json(result)
        else:
            self.stdout.write(
                f"Backup written to {path} ({kind}, {result['bytes']:,} bytes: {described(result)})"
            )


def _backup_sqlite(tmp: Path) -> None:
    connection.ensure_connection()
    source = connection.connection
    target = sqlite3.connect(tmp)
    try:
        source.backup(target)
        # the copy carries the live file's WAL mode; a backup is one self-contained file
        target.execute("PRAGMA journal_mode=DELETE")
        check = target.execute("PRAGMA quick_check").fetchone()
    except sqlite3.Error as exc:
        raise CommandError(f"backup failed while copying the database: {exc}") from exc
    finally:
        target.close()
    if not check or check[0] != "ok":
        raise CommandError(f"backup failed: the copy does not check out ({check})")
