"""CORS for what anyone may read from another origin: the API's anonymous reads (a club's
website reads its public ladder from the browser) and the live feed ``/t/SLUG/tourney.js``
(TSH's scoreboard and broadcast overlays run on other origins).

``Access-Control-Allow-Origin: *`` goes only on answers to safe requests (GET, HEAD) that carry
no credentials (no Authorization header, no session): what anyone may read anyway. A wildcard
origin never lets a browser send a visitor's cookies or read a credentialed answer, so a
director's signed-in session cannot be used by another site; writes get no CORS header at all,
and a browser on another origin cannot make them.

A poller that sends ``If-Modified-Since`` or ``If-None-Match`` (TSH's scoreboard re-polls the
feed with ``If-Modified-Since``) makes the browser ask first with an ``OPTIONS`` preflight;
without an answer naming those headers the browser never sends the poll and the scoreboard
freezes after its first load. The preflight for those paths is answered here, before any view:
GET and HEAD only, and only the conditional and cache request headers (never Authorization, so
a cross-origin request can never carry a token).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

API_PREFIX = "/api/v1/"
SAFE = ("GET", "HEAD")
#: The feed's path (tournament/web/urls.py, ``tourney_js``): a slug, then the file name.
FEED_PATH = re.compile(r"/t/[-a-zA-Z0-9_]+/tourney\.js\Z")
#: Request headers another origin may send on a read: the conditional ones and cache hints.
ALLOWED_HEADERS = ("if-modified-since", "if-none-match", "cache-control", "pragma")
#: Response headers a script on another origin may read besides the safelisted ones.
EXPOSED_HEADERS = "ETag, Last-Modified"
PREFLIGHT_MAX_AGE = 86400  # seconds a browser may keep the preflight's answer


def is_open_path(path: str) -> bool:
    """Whether ``path`` is one of the reads other origins may make (the API and the feed)."""
    return path.startswith(API_PREFIX) or FEED_PATH.match(path) is not None


def preflight(request: HttpRequest) -> HttpResponse:
    """The answer to a CORS preflight for a read: 204, GET and HEAD, the allowed headers.

    The same answer for every slug (a tournament that does not exist, or is not published, is
    refused by the GET that follows), so a preflight tells nothing. Headers asked for beyond the
    allowed ones are left out, and the browser then refuses the request itself.
    """
    asked = request.headers.get("Access-Control-Request-Headers", "")
    granted = [h for h in (x.strip().lower() for x in asked.split(",")) if h in ALLOWED_HEADERS]
    response = HttpResponse(status=204)
    response["Access-Control-Allow-Origin"] = "*"
    response["Access-Control-Allow-Methods"] = "GET, HEAD"
    if granted:
        response["Access-Control-Allow-Headers"] = ", ".join(granted)
    response["Access-Control-Max-Age"] = str(PREFLIGHT_MAX_AGE)
    response["Vary"] = "Access-Control-Request-Headers"
    return response


class AnonymousReadCors:
    """Middleware: CORS on anonymous reads and their preflights (see the module's docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if (
            request.method == "OPTIONS"
            and "Access-Control-Request-Method" in request.headers
            and is_open_path(request.path)
        ):
            return preflight(request)
        response = self.get_response(request)
        if request.method not in SAFE:
            return response
        if request.path.startswith(API_PREFIX):
            if "HTTP_AUTHORIZATION" not in request.META and not getattr(
                getattr(request, "user", None), "is_authenticated", False
            ):
                response["Access-Control-Allow-Origin"] = "*"
                response["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        elif response.has_header("Access-Control-Allow-Origin") and FEED_PATH.match(request.path):
            # the feed, the same for everyone, sets the origin itself (also on a cached 304)
            response["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        return response
