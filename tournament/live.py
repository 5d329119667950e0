"""News of a write for the live stream's processes, through Redis when the site has one.

The stream process (``tournament.stream``) notices a write by polling the tournaments' content
versions a few times a second: one small query, whatever the number of pages listening. With
``REDIS_URL`` set, every audited write also publishes the tournament's id on a Redis channel
after its commit, so every stream process (on any machine) hears of it at once and polls
rarely. A failed publish costs nothing but that speed: the poll still finds the write.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)

# The Redis channel a tournament's writes are announced on (the message is its id).
CHANNEL_PREFIX = "gibson:live:"
_client: Any = None


def channel(tournament_id: int) -> str:
    return f"{CHANNEL_PREFIX}{tournament_id}"


def announce_on_commit(tournament: Any, action: Any, obj: Any) -> None:
    """An audit hook: after the write commits, tell the stream processes through Redis (no
    Redis, nothing to do: they poll). Never refuses the write."""
    if not settings.REDIS_URL or tournament is None or not getattr(tournament, "pk", None):
        return
    pk = tournament.pk
    transaction.on_commit(lambda: _publish(pk))


def _publish(tournament_id: int) -> None:
    global _client
    try:
        if _client is None:
            import redis

            _client = redis.Redis.from_url(
                settings.REDIS_URL, socket_connect_timeout=0.5, socket_timeout=0.5
            )
        _client.publish(channel(tournament_id), str(tournament_id))
    except Exception as exc:  # Redis away: the stream's poll finds the write a moment later
        log.warning("live stream: could not publish a change on Redis: %s", exc)
        _client = None
