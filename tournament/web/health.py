"""``/healthz``: one plain-text line a load balancer, a monitor or a director's script can read.

- ``200 ok``: the database answers and, when ``REDIS_URL`` is set, Redis answers and at least
  one Celery worker replies to a ping within a second.
- ``200 degraded: redis unreachable`` / ``200 degraded: no celery worker``: the site still
  serves every page and records every result; only background jobs (scorecards prepared on a
  worker, re-rates queued) wait. A 200, so a load balancer keeps the site in rotation.
- ``200 degraded: low disk space (N MB free)``: under GIBSON_LOW_DISK_MB (500) free in the
  data folder (the SQLite database, page cache and exports live there).
- ``503 database unavailable``: nothing useful can be served.
- ``503 disk full (N MB free)``: under GIBSON_FULL_DISK_MB (50) free: results could not be
  saved, so a load balancer should send players to a site that can.

Each check has a short timeout, so the answer comes in about a second even when something is
down. No sign-in, no session, never cached: a monitor must see the state now.

The Redis and worker checks are also what the desk asks before queuing a job, so a director
hears "the background worker is unavailable" at once instead of waiting on a dead queue.
"""

from __future__ import annotations

import shutil

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

REDIS_TIMEOUT = 0.5  # seconds, to connect and to answer
WORKER_TIMEOUT = 1.0  # seconds a worker has to reply to a ping


def database_answers() -> bool:
    """True if the database runs a trivial query; any database error counts as down."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:  # noqa: BLE001 - the health page reports, it never raises
        connection.close()  # a broken connection must not be reused by the next request
        return False
    return True


def redis_answers(url: str | None = None, timeout: float = REDIS_TIMEOUT) -> bool:
    """True if the Redis at ``url`` (default REDIS_URL) answers PING within ``timeout``."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    url = url if url is not None else settings.REDIS_URL
    if not url:
        return False
    client = redis.Redis.from_url(
        url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),  # one try: the caller wants an answer now
    )
    try:
        return bool(client.ping())
    except (redis.exceptions.RedisError, OSError):
        return False
    finally:
        client.close()


def worker_replies(timeout: float = WORKER_TIMEOUT) -> bool:
    """True if at least one Celery worker answers a ping within ``timeout`` seconds."""
    from ..celery import app

    try:  # through the app's own broker: the queue the desk's jobs go to
        return bool(app.control.ping(timeout=timeout, limit=1))
    except Exception as exc:  # noqa: BLE001
        if is_queue_error(exc):
            return False
        raise


def is_queue_error(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) means the queue or result store is out of reach.

    Celery words one failure several ways: kombu's OperationalError from a publish, redis-py's
    ConnectionError/TimeoutError, or a RuntimeError wrapping one from its result consumer.
    """
    import redis
    from kombu.exceptions import OperationalError

    seen: BaseException | None = exc
    for _ in range(5):  # a short cause chain; never loop on a cycle
        if seen is None:
            return False
        if isinstance(seen, OperationalError | redis.exceptions.RedisError | OSError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def free_disk_mb() -> int | None:
    """Megabytes free where the site writes (GIBSON_DATA_DIR), or None if it cannot be read."""
    try:
        return shutil.disk_usage(settings.DATA_DIR).free // (1024 * 1024)
    except OSError:
        return None


def health_status() -> tuple[int, str]:
    """(HTTP status, text) for the current state; see the module docstring."""
    if not database_answers():
        return 503, "database unavailable"
    free = free_disk_mb()
    if free is not None and free < settings.FULL_DISK_MB:
        return 503, f"disk full ({free} MB free)"
    if settings.REDIS_URL:
        if not redis_answers():
            return 200, "degraded: redis unreachable"
        if not worker_replies():
            return 200, "degraded: no celery worker"
    if free is not None and free < settings.LOW_DISK_MB:
        return 200, f"degraded: low disk space ({free} MB free)"
    return 200, "ok"


@never_cache
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """The state as one line of plain text; reads no session and no user."""
    status, text = health_status()
    return HttpResponse(text, status=status, content_type="text/plain; charset=utf-8")
