"""A migrated, empty SQLite database for the tests that start Gibson in other processes.

Each such test used to run ``manage.py migrate`` for each site it started: a Django start plus
every migration, about 5 s on 2 quiet cores and 15 s under load, some 20 times a run. The
schema is the same for all of them, so it is built once per set of migrations (shared by the
xdist workers and by later runs, under a file lock) and copied: a copy takes milliseconds.

A test that checks migrations themselves still runs ``migrate``; this is only for tests whose
subject is something else.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import django

REPO = Path(__file__).resolve().parents[1]
FOLDER = REPO / "var" / "test-migrated"


def _schema_key() -> str:
    """What the migrated schema depends on: every migration file and Django's version."""
    digest = hashlib.sha256(django.get_version().encode())
    apps = ("tournament", "pairings", "ratings")
    for path in sorted(p for app in apps for p in (REPO / app).glob("**/migrations/*.py")):
        digest.update(str(path.relative_to(REPO)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _build(into: Path) -> None:
    """``manage.py migrate`` on a fresh SQLite file, in a process of its own (a real site's
    settings: not the test process's)."""
    with tempfile.TemporaryDirectory(prefix="gibson-migrate-") as folder:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.pop("GIBSON_TESTING", None)
        database = Path(folder) / "template.sqlite3"
        env.update(
            GIBSON_DATA_DIR=folder,
            DATABASE_URL=f"sqlite:///{database}",
            GIBSON_SECRET_KEY="migrated-template-only",
        )
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v", "0"],
            cwd=REPO,
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )
        # one file, no write-ahead log beside it, before it is copied anywhere
        import sqlite3

        with sqlite3.connect(database) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.execute("PRAGMA journal_mode=DELETE")
        partial = into.with_suffix(".partial")
        shutil.copyfile(database, partial)
        partial.replace(into)


def template() -> Path:
    """The migrated, empty database of this set of migrations, built by the first process
    that asks (the others wait on the lock)."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    built = FOLDER / f"{_schema_key()}.sqlite3"
    if not built.exists():
        with (FOLDER / "lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if not built.exists():
                    _build(built)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
    return built


def migrated_sqlite(to: Path) -> Path:
    """Put a migrated, empty Gibson database at ``to`` (a SQLite file) and return it."""
    source = template()
    to.parent.mkdir(parents=True, exist_ok=True)
    for extra in ("-wal", "-shm"):
        Path(str(to) + extra).unlink(missing_ok=True)
    shutil.copyfile(source, to)
    return to


def use_template_for_test_databases() -> None:
    """pytest-django's SQLite test database (a file per test process: a real Celery worker
    must see it; tournament/settings.py) is a copy of the template instead of a database
    migrated in each xdist worker: the same schema and the same rows migrate makes (content
    types, permissions, the data migrations'), in milliseconds instead of 5-10 s a worker.
    Only the ``migrate`` of Django's ``create_test_db`` is replaced; the rest (the name, the
    serialized contents, the cache table) is Django's own. PostgreSQL, and a kept database,
    migrate as before."""
    import sqlite3
    from contextlib import closing

    from django.db.backends.sqlite3.creation import DatabaseCreation

    original = DatabaseCreation.create_test_db
    if getattr(original, "from_template", False):
        return

    def create_test_db(self, verbosity=1, autoclobber=False, serialize=True, keepdb=False):
        if keepdb:
            return original(self, verbosity, autoclobber, serialize, keepdb)
        source = template()
        from django.core import management

        call_command = management.call_command

        def copy_instead_of_migrate(name, *args, **options):
            if name != "migrate":
                return call_command(name, *args, **options)
            database = self.connection.settings_dict["NAME"]
            if self.is_in_memory_db(database):
                self.connection.ensure_connection()
                with closing(sqlite3.connect(source)) as db:
                    db.backup(self.connection.connection)
            else:
                self.connection.close()
                for extra in ("-wal", "-shm"):
                    Path(f"{database}{extra}").unlink(missing_ok=True)
                shutil.copyfile(source, database)
            return None

        management.call_command = copy_instead_of_migrate
        try:
            return original(self, verbosity, autoclobber, serialize, keepdb)
        finally:
            management.call_command = call_command

    create_test_db.from_template = True  # type: ignore[attr-defined]
    DatabaseCreation.create_test_db = create_test_db
    destroy = DatabaseCreation._destroy_test_db

    def destroy_with_its_sidecars(self, test_database_name, verbosity):
        """Django removes the database file only: its write-ahead log and shared-memory
        files (4-6 MB a worker) stayed in the worker's data folder, run after run."""
        destroy(self, test_database_name, verbosity)
        if not self.is_in_memory_db(test_database_name):
            for extra in ("-wal", "-shm"):
                Path(f"{test_database_name}{extra}").unlink(missing_ok=True)

    DatabaseCreation._destroy_test_db = destroy_with_its_sidecars
    sweep_orphaned_sidecars()


def sweep_orphaned_sidecars(folder: Path | None = None) -> int:
    """Remove the ``-wal`` and ``-shm`` files of test databases that are gone (left by runs
    before ``destroy_with_its_sidecars``, or by a killed run) from this process's data
    folder; a database still there, another run's, keeps its own. Returns how many."""
    from django.conf import settings

    folder = folder or Path(settings.DATA_DIR)
    removed = 0
    for sidecar in [*folder.glob("test_*-wal"), *folder.glob("test_*-shm")]:
        if not Path(str(sidecar)[:-4]).exists():
            sidecar.unlink(missing_ok=True)
            removed += 1
    return removed
