"""Machine-readable live feeds that other programs poll.

``tourney.js`` at a stable URL makes the project a drop-in live source for the broadcast
overlays and results pages written for TSH: they fetch the file every few seconds, so the
response is the public copy (no passwords), read-only, and cacheable for a few seconds only.
"""

from __future__ import annotations

import hashlib

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404
from django.utils.http import parse_etags
from django.views.decorators.http import require_safe

from ..formats.tourney_js import write_tourney_js
from ..interchange import export_tourney_js
from ..models import Tournament

# Overlays poll every few seconds; a short max-age lets caches absorb a crowd without showing
# a result more than a few seconds late.
MAX_AGE_SECONDS = 10


@require_safe
def tourney_js(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug, published=True)
    body = write_tourney_js(export_tourney_js(tournament, public=True)).encode("utf-8")
    # Pollers that send the ETag back get a bodiless 304 until a result changes the file.
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    if etag in parse_etags(request.headers.get("If-None-Match", "")):
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = HttpResponse(body, content_type="application/javascript; charset=utf-8")
    response["ETag"] = etag
    response["Cache-Control"] = f"public, max-age={MAX_AGE_SECONDS}"
    response["Access-Control-Allow-Origin"] = "*"  # overlays run on other origins
    return response
