"""The demo tournament loaded once per test process, then copied back in for each test.

``tournament.demo.load_demo`` imports the demo's TSH files and plays three club nights through
the services: about 3.5 s, asked for by ~90 tests. The first call in a process runs it for
real and keeps the rows it wrote (every table it changed, read back whole); a later call on a
database in the same state as that first one (every table's row count as just after the
migrations, but for accounts and sessions, which the load never touches; the changed tables'
rows the same; and the rows they point at, if any, the same) writes those rows back in one
transaction instead, with the same ids, and moves PostgreSQL's sequences past them. Anything
else (the demo already there, a test that wrote rows first) gets the real load. A database a
transactional test flushed is the migrated state again: the content types and permissions
come back under new ids, and no row of the demo points at them.

The real load stays tested as it is: tests/core/test_commands.py loads the demo in a child
process, the first test of each process to ask for the demo runs it, and
tests/core/test_demo_snapshot.py holds the copy equal to a real load.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.core.management.color import no_style
from django.db import connection, transaction

Rows = list[tuple[Any, ...]]


@dataclass
class Snapshot:
    before: dict[str, Rows]  # the changed tables' rows before the load
    after: dict[str, tuple[list[str], Rows]]  # and after it: columns, rows
    # pristine tables the demo's rows point at (none today): compared before a restore
    points_at: list[str]


_PRISTINE: dict[str, int] | None = None
_SNAPSHOT: Snapshot | None = None
_REAL: Any = None
STATS = {"real": 0, "restored": 0}


def _tables() -> list[str]:
    return sorted(connection.introspection.django_table_names(only_existing=True))


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _counts(cursor, tables: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    # one query: the sum of a count per table, each labelled (SQLite and PostgreSQL alike)
    for start in range(0, len(tables), 200):
        chunk = tables[start : start + 200]
        sql = " UNION ALL ".join(f"SELECT '{t}', COUNT(*) FROM {_q(t)}" for t in chunk)
        cursor.execute(sql)
        counts.update({name: count for name, count in cursor.fetchall()})
    return counts


def _rows(cursor, table: str) -> tuple[list[str], Rows]:
    cursor.execute(f"SELECT * FROM {_q(table)} ORDER BY 1")
    columns = [c[0] for c in cursor.description]
    return columns, [tuple(r) for r in cursor.fetchall()]


_PRISTINE_ROWS: dict[str, Rows] = {}


def record_pristine() -> None:
    """Each table's row count in a freshly migrated test database (django_db_setup), and the
    rows of the few tables the migrations fill (content types, permissions): a flush by a
    transactional test makes them again under new ids, which matters only where the demo's
    rows point at them."""
    global _PRISTINE
    with connection.cursor() as cursor:
        _PRISTINE = _counts(cursor, _tables())
        _PRISTINE_ROWS.clear()
        for table, count in _PRISTINE.items():
            if count and table not in ACCOUNT_TABLES:
                _PRISTINE_ROWS[table] = _rows(cursor, table)[1]


# Accounts and sessions a test makes before it asks for the demo (a signed-in client, then
# the demo): the load neither reads nor writes them, so they may differ from a fresh database.
ACCOUNT_TABLES = frozenset(
    {
        "auth_user",
        "auth_user_groups",
        "auth_user_user_permissions",
        "authtoken_token",
        "django_session",
        "axes_accessattempt",
        "axes_accessfailurelog",
        "axes_accesslog",
    }
)


def _as_pristine(cursor) -> bool:
    if _PRISTINE is None:
        return False
    watched = [t for t in _PRISTINE if t not in ACCOUNT_TABLES]
    if _counts(cursor, watched) != {t: _PRISTINE[t] for t in watched}:
        return False
    if _SNAPSHOT is None:
        return True
    if any(_rows(cursor, t)[1] != _PRISTINE_ROWS[t] for t in _SNAPSHOT.points_at):
        return False
    return all(_rows(cursor, t)[1] == rows for t, rows in _SNAPSHOT.before.items())


def load_demo() -> Any:
    """``tournament.demo.load_demo`` for the tests: the same rows, in milliseconds after the
    first time in a process."""
    global _SNAPSHOT
    from tournament.demo import DEMO_SLUG
    from tournament.models import Tournament

    if Tournament.objects.filter(slug=DEMO_SLUG).exists():
        return _REAL()
    with connection.cursor() as cursor:
        pristine = _as_pristine(cursor)
    if not pristine:
        STATS["real"] += 1
        return _REAL()
    if _SNAPSHOT is not None:
        _restore(_SNAPSHOT)
        STATS["restored"] += 1
        return Tournament.objects.get(slug=DEMO_SLUG), True
    tables = _tables()
    with connection.cursor() as cursor:
        before = {t: _rows(cursor, t)[1] for t in tables}
    result = _REAL()
    STATS["real"] += 1
    with connection.cursor() as cursor:
        after = {t: _rows(cursor, t) for t in tables}
    changed = [t for t in tables if after[t][1] != before[t]]
    if ACCOUNT_TABLES & set(changed):  # the load began to write accounts: no shortcut
        return result
    _SNAPSHOT = Snapshot(
        before={t: before[t] for t in changed},
        after={t: after[t] for t in changed},
        points_at=sorted(_points_at(set(changed)) & set(_PRISTINE_ROWS)),
    )
    return result


def _points_at(tables: set[str]) -> set[str]:
    """The tables the rows of ``tables`` point at by a foreign key."""
    return {
        field.related_model._meta.db_table
        for model in apps.get_models(include_auto_created=True)
        if model._meta.db_table in tables
        for field in model._meta.concrete_fields
        if field.is_relation and field.related_model is not None
    }


def _restore(snapshot: Snapshot) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        for table, (columns, rows) in snapshot.after.items():
            cursor.execute(f"DELETE FROM {_q(table)}")
            if rows:
                rows = _adapted(rows)
                names = ", ".join(_q(c) for c in columns)
                marks = ", ".join(["%s"] * len(columns))
                cursor.executemany(f"INSERT INTO {_q(table)} ({names}) VALUES ({marks})", rows)
        if connection.vendor == "postgresql":
            changed = set(snapshot.after)
            models = [
                m for m in apps.get_models(include_auto_created=True) if m._meta.db_table in changed
            ]
            for sql in connection.ops.sequence_reset_sql(no_style(), models):
                cursor.execute(sql)


def _adapted(rows: Rows) -> Rows:
    """PostgreSQL's driver reads json columns as dicts and lists but writes only what it is
    told is JSON."""
    if connection.vendor != "postgresql":
        return rows
    from psycopg.types.json import Jsonb

    return [tuple(Jsonb(v) if isinstance(v, dict | list) else v for v in row) for row in rows]


def install() -> None:
    """Put the snapshotting load in place of ``tournament.demo.load_demo`` (before the test
    modules import it by name)."""
    global _REAL
    import tournament.demo as demo

    if _REAL is None:
        _REAL = demo.load_demo
        demo.load_demo = load_demo
