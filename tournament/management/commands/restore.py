"""``manage.py restore PATH``: put a backup from ``manage.py backup`` back, replacing the data.

Everything in the database now is replaced, so the command checks the file first (a backup of
this site's kind of database, readable, holding Gibson's tables) and asks: ``--yes`` confirms;
without it a terminal is asked and anything else (a script, a pipe, ``--json``) is refused.

- SQLite: the backup API again, from the file into the live database, in one step under SQLite's
  locking, so a server still running sees either the old data or the restored data.
- PostgreSQL: ``pg_restore --clean --if-exists --single-transaction``: all of it or none.

Afterwards the database is migrated, so a backup from an older Gibson comes up to date.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

from django.core.management import CommandError, call_command
from django.core.management.base import CommandParser
from django.db import connection

from ..base import GibsonCommand
from .backup import counts, described, engine, file_kind, pg_tool, run_pg, sqlite_problem

KIND_NAMES = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


class Command(GibsonCommand):
    help = "Replace the whole database with a backup file written by `manage.py backup`."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the backup file to restore")
        parser.add_argument(
            "--yes", action="store_true", help="confirm: replace all current data without asking"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        path = Path(opts["path"]).expanduser()
        kind = engine()
        _check_file(path, kind)
        where = _database_name()
        if not opts["yes"]:
            self._confirm(path, where, json_mode=opts["json"])
        used = versions_in_use()
        if kind == "sqlite":
            _restore_sqlite(path)
        else:
            _restore_postgresql(path)
        call_command("migrate", interactive=False, verbosity=0)
        move_versions_past(used)
        _clear_page_cache()
        result = {"ok": True, "file": str(path), "engine": kind, "database": where}
        result.update(counts())
        if opts["json"]:
            self.emit_json(result)
        else:
            self.stdout.write(f"Restored {where} from {path}: {described(result)}")

    def _confirm(self, path: Path, where: str, *, json_mode: bool) -> None:
        question = f"Replace ALL data in {where} with the backup {path}? [y/N] "
        if json_mode or not sys.stdin.isatty():
            raise CommandError(
                f"restoring {path} replaces all data in {where}; add --yes to confirm "
                "(there is no terminal to ask on)"
            )
        self.stderr.write(question, ending="")
        self.stderr.flush()
        try:
            answer = input().strip().lower()
        except EOFError:
            answer = ""
        if answer not in ("y", "yes"):
            raise CommandError(f"not restored: {where} is unchanged")


def _database_name() -> str:
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"the SQLite database {s['NAME']}"
    return f"the PostgreSQL database {s['NAME']} on {s.get('HOST') or 'localhost'}"


def _check_file(path: Path, kind: str) -> None:
    """Refuse anything but a readable backup of this site's kind of database, naming the file."""
    if not path.exists():
        raise CommandError(f"{path}: no such file")
    if not path.is_file():
        raise CommandError(f"{path} is not a file")
    try:
        found = file_kind(path)
    except OSError as exc:
        raise CommandError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    if found == "other":
        raise CommandError(
            f"{path} is not a Gibson backup (neither a SQLite database nor a pg_dump custom-format "
            "file); nothing was restored"
        )
    if found != kind:
        raise CommandError(
            f"{path} is a {KIND_NAMES[found]} backup, but this site runs on {KIND_NAMES[kind]}; "
            "nothing was restored"
        )
    if kind == "sqlite":
        problem = sqlite_problem(path)
        if problem:
            raise CommandError(f"{path} {problem}; nothing was restored")
    else:
        listing = run_pg([pg_tool("pg_restore"), "--list", str(path)], f"restore {path}").stdout
        if " TABLE public tournament_tournament " not in listing:
            raise CommandError(
                f"{path} is a PostgreSQL dump but not a Gibson backup (no tournament_tournament "
                "table); nothing was restored"
            )


def _restore_sqlite(path: Path) -> None:
    connection.ensure_connection()
    if connection.in_atomic_block:
        raise CommandError("restore cannot run inside a transaction")
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        source.backup(connection.connection)  # one write transaction on the live database
    except sqlite3.Error as exc:
        raise CommandError(f"restore from {path} failed, the database is unchanged: {exc}") from exc
    finally:
        source.close()
    # the restored file was written in DELETE mode; the site runs in WAL (see settings)
    connection.close()


def _restore_postgresql(path: Path) -> None:
    connection.close()  # our own idle connection must not hold a lock pg_restore waits on
    run_pg(
        [
            pg_tool("pg_restore"),
            "--clean",
            "--if-exists",
            "--no-owner",
            "--single-transaction",
            "--exit-on-error",
            "-d",
            str(connection.settings_dict["NAME"]),
            str(path),
        ],
        f"restore {path} (the database is unchanged)",
    )


def _versioned_models() -> list[Any]:
    from ratings.models import RatingList

    from ...models import Club, Tournament

    return [Tournament, Club, RatingList]


def versions_in_use() -> int:
    """The sum of every page version the site has handed out so far (0 on an empty site)."""
    from django.db.models import Sum

    total = 0
    for model in _versioned_models():
        try:
            total += model.objects.aggregate(s=Sum("content_version"))["s"] or 0
        except Exception:  # noqa: BLE001 - a database not migrated yet has handed out none
            return total
    return total


def move_versions_past(used: int) -> None:
    """Renumber the restored data's page versions above every number used before.

    Pages, ETags and tourney.js answers are keyed by these numbers, in every running process,
    in the shared cache and in browsers and proxies: a restored database starts its versions
    below numbers already handed out, so an old page (the discarded state) would be served as
    current. Adding more than the sum of all versions in use makes each new number, and each
    sum of them a site-wide key is built from, one never used before.
    """
    from django.db.models import F

    for model in _versioned_models():
        model.objects.update(content_version=F("content_version") + used + 1)


def _clear_page_cache() -> None:
    """Pages are cached under version numbers; a restored database can show the same numbers
    with other content, so the cache starts empty (it lives apart from Celery's queues). So
    does the front tier's (``serve --front``), after the commit: a page it stored since is of
    the restored data, and one a request in flight stores meanwhile is kept at most to the end
    of its second, then asked for again under its ETag, which no longer matches."""
    from django.core.cache import cache

    from ... import cache as caching
    from ..front import empty_cache

    caching.reset_failures()
    try:
        cache.clear()
    except Exception:  # a cache that is down holds nothing to serve either
        pass
    empty_cache()
