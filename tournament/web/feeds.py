"""Machine-readable live feeds that other programs poll.

``tourney.js`` at a stable URL makes the project a drop-in live source for the broadcast
overlays and results pages written for TSH: they fetch the file every few seconds, so the
response is the public copy (no passwords), read-only, and cacheable for a few seconds only.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from ..formats.tourney_js import write_tourney_js
from ..interchange import export_tourney_js
from .caching import MAX_AGE_SECONDS, Version, public_page

__all__ = ["MAX_AGE_SECONDS", "tourney_js"]


@require_safe
@public_page("tourney.js", public_only=True)
def tourney_js(request: HttpRequest, slug: str, version: Version | None) -> HttpResponse:
    """The feed, built once per version for every worker; pollers that send the ETag back get
    a bodiless 304 after one query until a write changes the tournament. Only published
    tournaments have a feed, and it is the same for everyone (``public_only``)."""
    if version is None or not version.published:
        raise Http404(f"no published tournament {slug!r}")
    body = write_tourney_js(export_tourney_js(version.tournament, public=True)).encode("utf-8")
    response = HttpResponse(body, content_type="application/javascript; charset=utf-8")
    response["Access-Control-Allow-Origin"] = "*"  # overlays run on other origins
    return response
