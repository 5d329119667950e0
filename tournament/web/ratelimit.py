"""Requests that cost seconds of a worker (PDFs, exports, pairing proposals), counted per address.

One PDF of a big division or one pairing proposal keeps a worker busy for a second or more; a
script asking for them in a loop made every other page wait (issue 19). Each client address
(``tournament.web.addresses``, the one place every per-address limit asks) gets
``GIBSON_HEAVY_RATE`` of them (default 60 a minute, plenty for directors at a venue sharing
one address), then a 429 naming the limit and when to try again.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache as default_cache
from django.core.cache.backends.locmem import LocMemCache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from .addresses import client_address

_LOCAL = LocMemCache("gibson-heavy", {"TIMEOUT": 3600, "OPTIONS": {}})
_UNITS = {"second": 1, "minute": 60, "hour": 3600}


def parse_rate(text: str) -> tuple[int, int]:
    """``"60/minute"`` -> (60, 60): how many requests in how many seconds."""
    count, _, unit = str(text).partition("/")
    seconds = _UNITS.get(unit.strip().lower().rstrip("s"))
    if not count.strip().isdigit() or seconds is None or int(count) < 1:
        raise ValueError(f"a rate is 'N/second', 'N/minute' or 'N/hour', not {text!r}")
    return int(count), seconds


def _count(key: str, window: int) -> int:
    """Add one to ``key``'s count for this window: the site's cache, this process's if it fails
    (Redis down must not turn every PDF into a 500; each worker then keeps its own count)."""
    for cache in (default_cache, _LOCAL):
        try:
            cache.add(key, 0, window + 5)
            return int(cache.incr(key))
        except Exception:  # noqa: BLE001 - any cache backend's failure
            continue
    return 0


def heavy_wait(request: HttpRequest) -> int:
    """Seconds this address must wait before its next heavy request (0: go ahead, counted)."""
    limit, window = parse_rate(settings.HEAVY_RATE)
    now = time.time()
    slot = int(now // window)
    address = client_address(request) or "unknown"
    if _count(f"gibson-heavy:{address}:{slot}", window) <= limit:
        return 0
    return max(1, math.ceil((slot + 1) * window - now))


def rate_wait(request: HttpRequest, name: str, rate: str) -> int:
    """Seconds this address must wait before its next ``name`` request at ``rate`` ("5/hour");
    0: go ahead, counted."""
    limit, window = parse_rate(rate)
    now = time.time()
    slot = int(now // window)
    address = client_address(request) or "unknown"
    if _count(f"gibson-{name}:{address}:{slot}", window) <= limit:
        return 0
    return max(1, math.ceil((slot + 1) * window - now))


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
