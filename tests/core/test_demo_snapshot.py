"""The suite's copied demo (tests/demo_snapshot.py) is the demo: every table the real load
writes holds the same rows, and the standings read the same.

The comparison leaves out what two loads never share: ids (the real load here runs after
the copy's first load in this process, so its rows take later ids), in columns and inside
JSON (compared by its keys), and the moments rows were written.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.db import connection, transaction

from tests import demo_snapshot
from tournament.demo import DEMO_SLUG
from tournament.models import Tournament
from tournament.selectors import division_standings

pytestmark = pytest.mark.django_db


def _picture() -> dict:
    tournament = Tournament.objects.get(slug=DEMO_SLUG)
    standings = {
        d.name: [(r.wins, r.losses, r.spread, r.name) for r in division_standings(d)]
        for d in tournament.divisions.order_by("name")
    }
    with connection.cursor() as cursor:
        counts = demo_snapshot._counts(cursor, demo_snapshot._tables())
    counts = {t: n for t, n in counts.items() if t not in demo_snapshot.ACCOUNT_TABLES}
    rows = {}
    with connection.cursor() as cursor:
        for table in sorted(demo_snapshot._SNAPSHOT.after):
            columns, found = demo_snapshot._rows(cursor, table)
            keep = [i for i, c in enumerate(columns) if c != "id" and not c.endswith("_id")]
            rows[table] = sorted(repr(tuple(_plain(r[i]) for i in keep)) for r in found)
    return {"standings": standings, "counts": counts, "venue": tournament.venue, "rows": rows}


def test_the_copied_demo_equals_the_real_load():
    from tournament import demo

    assert demo.load_demo is demo_snapshot.load_demo  # the suite loads through the copy
    demo.load_demo()  # the first call in a process is real; make sure a copy exists
    snapshot = demo_snapshot._SNAPSHOT
    assert snapshot is not None and "tournament_game" in snapshot.after
    copied_before = demo_snapshot.STATS["restored"]

    point = transaction.savepoint()
    _clear(snapshot)
    tournament, created = demo.load_demo()
    assert created and demo_snapshot.STATS["restored"] == copied_before + 1
    copied = _picture()
    transaction.savepoint_rollback(point)

    point = transaction.savepoint()
    _clear(snapshot)
    demo_snapshot._REAL()  # the real import and club nights
    real = _picture()
    transaction.savepoint_rollback(point)

    assert copied == real
    assert sum(len(rows) for rows in real["standings"].values()) == 40


def _plain(value):
    """A value both loads share: not a moment, and JSON only by its keys (its values name
    rows by id, as a club night's records name players)."""
    if isinstance(value, dt.datetime | dt.date):
        return None
    if isinstance(value, str) and value[:1] in "{[":
        try:
            value = json.loads(value)
        except ValueError:
            return value
    if isinstance(value, dict):
        return sorted(value)
    if isinstance(value, list):
        return len(value)
    return value


def _clear(snapshot) -> None:
    """Back to the migrated state: the tables the demo writes, emptied."""
    with connection.cursor() as cursor:
        for table in snapshot.after:
            cursor.execute(f"DELETE FROM {connection.ops.quote_name(table)}")
