"""Every database connection waits a bounded time for another's lock (settings:
DATABASE_LOCK_TIMEOUT, from GIBSON_DB_LOCK_TIMEOUT).

A write behind a long lock (an import, a re-rate, a stuck transaction) must be told "the
database is busy, try again" in seconds, not wait until the server kills the request: SQLite
is given its busy timeout, PostgreSQL ``SET lock_timeout``. The error that follows is turned
into a 503 by tournament.web.errors (pages) and tournament.api.errors (the API). Set on each
new connection from the setting as it is then, so a test (or an operator's shell) can change
it without reloading the settings module.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings


def lock_timeout_ms() -> int:
    """The configured wait in whole milliseconds (at least 1: 0 would mean "for ever")."""
    return max(1, round(float(settings.DATABASE_LOCK_TIMEOUT) * 1000))


def set_lock_timeout(sender: Any, connection: Any, **kwargs: Any) -> None:
    """``connection_created`` receiver: bound the new connection's wait for a lock."""
    vendor = connection.vendor
    if vendor not in ("sqlite", "postgresql"):
        return
    with connection.cursor() as cursor:
        if vendor == "sqlite":
            cursor.execute(f"PRAGMA busy_timeout = {lock_timeout_ms()}")
        else:
            cursor.execute(f"SET lock_timeout = {lock_timeout_ms()}")
