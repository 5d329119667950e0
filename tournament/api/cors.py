"""CORS for the API's anonymous reads: a club's website may read its public ladder from the
browser, as overlays read tourney.js.

``Access-Control-Allow-Origin: *`` goes only on answers to safe requests (GET, HEAD) that carry
no credentials (no Authorization header, no session): what anyone may read anyway. A wildcard
origin never lets a browser send a visitor's cookies or read a credentialed answer, so a
director's signed-in session cannot be used by another site; writes get no CORS header at all,
and a browser on another origin cannot make them.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

API_PREFIX = "/api/v1/"
SAFE = ("GET", "HEAD")


class AnonymousReadCors:
    """Middleware: the CORS header on anonymous API reads (see the module's docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            request.path.startswith(API_PREFIX)
            and request.method in SAFE
            and "HTTP_AUTHORIZATION" not in request.META
            and not getattr(getattr(request, "user", None), "is_authenticated", False)
        ):
            response["Access-Control-Allow-Origin"] = "*"
            response["Access-Control-Expose-Headers"] = "ETag"
        return response
