"""Whether a database error is a busy database or a full disk: neither is a bug.

Every face answers them as a refusal, never a traceback: the pages (``tournament.web.errors``,
which also words them), the API (``tournament.api.errors``) and the commands
(``tournament.management.base``). The tests themselves live here, below the faces, so that no
face imports another to ask.
"""

from __future__ import annotations

import errno

from django.db.utils import DatabaseError, OperationalError

# SQLite's words for "another connection holds the lock" (SQLITE_BUSY / SQLITE_LOCKED);
# PostgreSQL's lock_timeout / statement_timeout refusals mean the same to a user.
_BUSY_WORDS = (
    "database is locked",
    "database table is locked",
    "database is busy",
    "lock timeout",
    "canceling statement due to lock timeout",
)


# The database's words for "no room to write": SQLite (SQLITE_FULL), PostgreSQL (53100 and the
# operating system's message it passes on).
_FULL_WORDS = (
    "database or disk is full",
    "no space left on device",
    "could not extend file",
    "disk quota exceeded",
)
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def is_disk_full(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or an error it was raised from) is the server's disk being full."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS:
            return True
        if isinstance(exc, DatabaseError) and any(w in str(exc).lower() for w in _FULL_WORDS):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def is_database_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is another writer holding the lock, not a broken database."""
    if not isinstance(exc, OperationalError):
        return False
    text = str(exc).lower()
    return any(words in text for words in _BUSY_WORDS)
