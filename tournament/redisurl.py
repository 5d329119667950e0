"""Redis database numbers within one server's URL, shared by the settings and the test setup.

Kept apart from ``tournament.settings`` so the test setup can use it before settings load:
importing the settings early would freeze them with the environment not yet given per worker.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def redis_db_offset(url: str, offset: int) -> str:
    """The same Redis server, database number ``offset`` above the URL's own (0 if none)."""
    parts = urlsplit(url)
    path = parts.path.strip("/")
    db = int(path) if path.isascii() and path.isdigit() else 0
    return urlunsplit(parts._replace(path=f"/{db + offset}"))
