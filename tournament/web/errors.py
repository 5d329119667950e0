"""A busy database as a refusal, never a traceback.

On SQLite (a director's laptop) one transaction writes at a time; another writer waits up to
the busy timeout (settings: GIBSON_SQLITE_BUSY_TIMEOUT) and then gets ``OperationalError:
database is locked``. Nothing was written, so the honest answer is "the database is busy, try
again": ``busy_refusal`` turns it into ``ServiceError("database_busy")`` where a view already
shows refusals at a field, and ``BusyDatabaseMiddleware`` answers any other page the same way
(status 503 with the message) instead of a 500. ``server_error`` (the site's handler500) does
the same for a busy database met outside a view (a session saved after a sign-in, another
middleware's write), which no view's handler sees.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db.utils import OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import render
from django.views import defaults

from tournament.errors import ServiceError

# SQLite's words for "another connection holds the lock" (SQLITE_BUSY / SQLITE_LOCKED);
# PostgreSQL's lock_timeout / statement_timeout refusals mean the same to a user.
_BUSY_WORDS = (
    "database is locked",
    "database table is locked",
    "database is busy",
    "lock timeout",
    "canceling statement due to lock timeout",
)


def is_database_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is another writer holding the lock, not a broken database."""
    if not isinstance(exc, OperationalError):
        return False
    text = str(exc).lower()
    return any(words in text for words in _BUSY_WORDS)


def busy_error(field: str = "") -> ServiceError:
    """The refusal a user sees when the database stayed busy for the whole wait."""
    return ServiceError("database_busy", field=field)


@contextmanager
def busy_refusal(field: str = "") -> Iterator[None]:
    """Run a write; a busy database comes out as ``ServiceError("database_busy")``.

    Use it inside the view's own ``try: ... except ServiceError`` so the message appears at
    ``field`` like any other refusal, with the form as the user typed it.
    """
    try:
        yield
    except OperationalError as exc:
        if is_database_busy(exc):
            raise busy_error(field) from exc
        raise


def wants_json(request: HttpRequest) -> bool:
    """A script (the API, or a client asking for JSON) is answered in JSON, a person a page."""
    return request.path.startswith("/api/") or request.headers.get("Accept", "").startswith(
        "application/json"
    )


def busy_response(request: HttpRequest) -> HttpResponse:
    """A page (or JSON for a script) saying the database is busy; status 503, retry in 5 s."""
    message = busy_error().message
    if wants_json(request):
        response: HttpResponse = JsonResponse(
            {"ok": False, "code": "database_busy", "error": message}, status=503
        )
    else:
        context = {"heading": "The database is busy", "message": message}
        response = render(request, "tournament/error.html", context, status=503)
    response["Retry-After"] = "5"
    return response


class BusyDatabaseMiddleware:
    """Any view whose write met a busy database answers 503 "try again", not a 500."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if is_database_busy(exception):
            return busy_response(request)
        return None


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: an error no view handled. A busy database is "try again" (503) wherever it
    was met; anything else is Django's plain 500 page (the error is logged with its trace)."""
    exc = sys.exc_info()[1]
    if exc is not None and is_database_busy(exc):
        return busy_response(request)
    return defaults.server_error(request)
