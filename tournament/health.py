"""``/healthz``: one plain-text line a load balancer, a monitor or a director's script can read.

- ``200 ok``: the database answers and, when ``REDIS_URL`` is set, Redis answers and at least
  one Celery worker replied to a ping lately (see "The worker check" below).
- ``200 degraded: redis unreachable`` / ``200 degraded: no celery worker``: the site still
  serves every page and records every result; only background jobs (scorecards prepared on a
  worker, re-rates queued) wait. A 200, so a load balancer keeps the site in rotation.
- ``200 degraded: low disk space (N MB free)``: under GIBSON_LOW_DISK_MB (500) free in the
  data folder (the SQLite database, page cache and exports live there).
- ``503 database unavailable``: nothing useful can be served.
- ``503 disk full (N MB free)``: under GIBSON_FULL_DISK_MB (50) free: results could not be
  saved, so a load balancer should send players to a site that can.

Each check has a short timeout, so the answer comes in about a second even when something is
down. No sign-in, no session, never cached by browsers or proxies: a monitor must see the state
now.

The worker check. A ping that no worker answers costs its whole timeout (Celery waits for
replies that never come), and a monitor or a load balancer polls every few seconds: asked on
every request, "no worker" would make every answer take that long. So the last answer is
kept, per broker, in this process and in the shared cache (every gunicorn worker sees it):
under WORKER_FRESH seconds old it is the answer; up to WORKER_STALE seconds old it is still
the answer while one background thread pings again for the next request; older (or never
asked) the request pings itself, bounded by WORKER_TIMEOUT. A worker that stops is reported
within a poll or two of WORKER_FRESH; the database, disk and Redis checks are never cached.

The Redis and worker checks are also what the desk asks before queuing a job, so a director
hears "the background worker is unavailable" at once instead of waiting on a dead queue.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import threading
import time

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

log = logging.getLogger(__name__)

REDIS_TIMEOUT = 0.5  # seconds, to connect and to answer
# Seconds a worker has to reply to a ping: an idle worker on the same Redis replies in
# milliseconds, so this only bounds what a missing worker costs the request that asks.
WORKER_TIMEOUT = 0.5
WORKER_FRESH = 5.0  # seconds the last worker answer is used as it is
WORKER_STALE = 60.0  # seconds it is still used while a background ping asks again


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
    from .celery import app

    try:  # through the app's own broker: the queue the desk's jobs go to
        return bool(app.control.ping(timeout=timeout, limit=1))
    except Exception as exc:  # noqa: BLE001
        if is_queue_error(exc):
            return False
        raise


# broker URL -> (time.time() of the ping, answer); a per-process copy of the shared cache's
_answers: dict[str, tuple[float, bool]] = {}
_asking: set[str] = set()  # brokers a background ping is under way for, in this process
_lock = threading.Lock()


def _cache_key(broker: str) -> str:
    return "healthz:worker:" + hashlib.sha256(broker.encode()).hexdigest()[:16]


def _last_answer(broker: str) -> tuple[float, bool] | None:
    """The newest known answer for ``broker``: this process's, or another process's from the
    shared cache when that is newer. A cache that fails counts as holding nothing."""
    from django.core.cache import cache

    mine = _answers.get(broker)
    if mine is not None and time.time() - mine[0] < WORKER_FRESH:
        return mine
    try:
        shared = cache.get(_cache_key(broker))
    except Exception:  # noqa: BLE001 - Redis may have gone since it answered PING
        shared = None
    if isinstance(shared, tuple) and len(shared) == 2 and (mine is None or shared[0] > mine[0]):
        _answers[broker] = shared
        return shared
    return mine


def _store(broker: str, answer: bool) -> None:
    from django.core.cache import cache

    entry = (time.time(), answer)
    _answers[broker] = entry
    try:
        cache.set(_cache_key(broker), entry, int(WORKER_STALE) + 1)
    except Exception:  # noqa: BLE001 - the process's copy still serves this process
        pass


def _ask_in_background(broker: str) -> None:
    """One ping at a time per process and broker, its answer kept for the next request."""
    with _lock:
        if broker in _asking:
            return
        _asking.add(broker)

    def ask() -> None:
        try:
            _store(broker, worker_replies())
        except Exception:  # noqa: BLE001 - a thread has no one to raise to
            log.exception("healthz: the background worker ping failed")
        finally:
            with _lock:
                _asking.discard(broker)

    threading.Thread(target=ask, name="healthz-worker-ping", daemon=True).start()


def worker_available() -> bool:
    """Whether a Celery worker answers, without making the caller wait on a missing one
    (see "The worker check" in the module docstring). Call only with Redis answering."""
    from .celery import app

    broker = str(app.conf.broker_url)
    seen = _last_answer(broker)
    if seen is not None:
        at, answer = seen
        age = time.time() - at
        if age < WORKER_FRESH:
            return answer
        if age < WORKER_STALE:
            _ask_in_background(broker)
            return answer
    answer = worker_replies()
    _store(broker, answer)
    return answer


def worker_known_available() -> bool:
    """Whether a Celery worker answered lately, never waiting: the kept answer (this process's
    or the shared cache's) while under WORKER_STALE seconds old, else False while a background
    ping asks for the next caller. For work queued on the path of a request that must not
    wait (prize chances after a result: tournament.chances)."""
    from .celery import app

    broker = str(app.conf.broker_url)
    seen = _last_answer(broker)
    if seen is not None and time.time() - seen[0] < WORKER_FRESH:
        return seen[1]
    _ask_in_background(broker)
    return seen is not None and time.time() - seen[0] < WORKER_STALE and seen[1]


def forget_worker_answers() -> None:
    """Drop this process's kept answers (tests that start and stop workers and brokers)."""
    _answers.clear()


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
        if not worker_available():
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
