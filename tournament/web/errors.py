"""A busy database or a full disk as a refusal, never a traceback.

On SQLite (a director's laptop) one transaction writes at a time; another writer waits up to
the busy timeout (settings: GIBSON_SQLITE_BUSY_TIMEOUT) and then gets ``OperationalError:
database is locked``. Nothing was written, so the honest answer is "the database is busy, try
again": ``busy_refusal`` turns it into ``ServiceError("database_busy")`` where a view already
shows refusals at a field, and ``BusyDatabaseMiddleware`` answers any other page the same way
(status 503 with the message) instead of a 500. ``server_error`` (the site's handler500) does
the same for a busy database met outside a view (a session saved after a sign-in, another
middleware's write), which no view's handler sees.

A full disk (``OSError`` ENOSPC, SQLite's "database or disk is full", PostgreSQL's "could not
extend file") is no bug either and no retry will mend it: nothing was written, and the person
at the keyboard must tell whoever runs the server. The same three places answer it with
``ServiceError("disk_full")`` at a form's field, or a 507 page (JSON for a script).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db.utils import OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views import defaults

from tournament.dbhealth import is_database_busy, is_disk_full
from tournament.errors import ServiceError


def busy_error(field: str = "") -> ServiceError:
    """The refusal a user sees when the database stayed busy for the whole wait."""
    return ServiceError("database_busy", field=field)


@contextmanager
def busy_refusal(field: str = "") -> Iterator[None]:
    """Run a write; a busy database comes out as ``ServiceError("database_busy")``, a full
    disk as ``ServiceError("disk_full")``.

    Use it inside the view's own ``try: ... except ServiceError`` so the message appears at
    ``field`` like any other refusal, with the form as the user typed it.
    """
    try:
        yield
    except (OperationalError, OSError) as exc:
        if is_database_busy(exc):
            raise busy_error(field) from exc
        if is_disk_full(exc):
            raise ServiceError("disk_full", field=field) from exc
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
        context = {"heading": _("The database is busy"), "message": message}
        response = render(request, "tournament/error.html", context, status=503)
    response["Retry-After"] = "5"
    return response


def disk_full_response(request: HttpRequest) -> HttpResponse:
    """A page (or JSON for a script) saying the server's disk is full; status 507."""
    message = ServiceError("disk_full").message
    if wants_json(request):
        return JsonResponse({"ok": False, "code": "disk_full", "error": message}, status=507)
    context = {"heading": _("The server's disk is full"), "message": message}
    return render(request, "tournament/error.html", context, status=507)


def fault_response(request: HttpRequest, exc: BaseException | None) -> HttpResponse | None:
    """The answer to a fault that is no bug (a busy database, a full disk), else None."""
    if exc is None:
        return None
    if is_disk_full(exc):
        return disk_full_response(request)
    if is_database_busy(exc):
        return busy_response(request)
    return None


class BusyDatabaseMiddleware:
    """Any view whose write met a busy database answers 503 "try again", a full disk 507 "tell
    the director", not a 500."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return fault_response(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: an error no view handled. A busy database is "try again" (503), a full disk
    "tell the director" (507), wherever it was met (a session saved after a sign-in, an upload
    spooled to disk while the CSRF check reads the form); anything else is Django's plain 500
    page (the error is logged with its trace)."""
    return fault_response(request, sys.exc_info()[1]) or defaults.server_error(request)
