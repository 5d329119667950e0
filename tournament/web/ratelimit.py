"""Requests that cost seconds of a worker (PDFs, exports, pairing proposals), counted per address.

One PDF of a big division or one pairing proposal keeps a worker busy for a second or more; a
script asking for them in a loop made every other page wait. Each client address
(``tournament.throttle``, the one place every per-address limit asks, which also counts) gets
``GIBSON_HEAVY_RATE`` of them (default 60 a minute, plenty for directors at a venue sharing
one address), then a 429 naming the limit and when to try again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from ..throttle import heavy_wait


def too_many(request: HttpRequest, wait: int) -> HttpResponse:
    """The 429: what is limited, the limit and its setting, and when to try again."""
    message = _(
        "Too many PDFs, exports and pairing proposals from your address: at most "
        "{rate} (GIBSON_HEAVY_RATE). Try again in {wait} seconds."
    ).format(rate=settings.HEAVY_RATE, wait=wait)
    if request.headers.get("Accept", "").startswith("application/json") or request.path.startswith(
        "/api/"
    ):
        response: HttpResponse = JsonResponse(
            {
                "errors": [
                    {
                        "code": "too_many_heavy_requests",
                        "field": "",
                        "message": message,
                        "params": {"rate": settings.HEAVY_RATE, "wait": wait},
                    }
                ]
            },
            status=429,
        )
    else:
        ctx = {"heading": _("Too many requests"), "message": message}
        response = render(request, "tournament/error.html", ctx, status=429)
    response["Retry-After"] = str(wait)
    return response


def heavy(view: Callable[..., Any]) -> Callable[..., Any]:
    """Count the view's requests against the address's heavy rate (a 429 past it)."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        wait = heavy_wait(request)
        if wait:
            return too_many(request, wait)
        return view(request, *args, **kwargs)

    return wrapped
